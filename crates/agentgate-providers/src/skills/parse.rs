//! One `SKILL.md`: YAML front matter between `---` lines, then the body.

use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// A larger `SKILL.md` is reported, not read (the body goes into prompts).
pub const SKILL_FILE_MAX_BYTES: u64 = 256 * 1024;

/// A parsed `SKILL.md`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillDoc {
    /// The front matter's `name`.
    pub name: Option<String>,
    /// The front matter's `description`.
    pub description: Option<String>,
    /// The whole front matter (`allowed-tools`, `metadata`, ...), as JSON.
    pub front_matter: Map<String, Value>,
    /// The Markdown after the front matter.
    pub body: String,
}

/// Read and parse the `SKILL.md` at `path`; the error says why it cannot
/// be used.
pub fn read_skill(path: &Path) -> Result<SkillDoc, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(SKILL_FILE_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > SKILL_FILE_MAX_BYTES {
        return Err(format!("it is larger than {SKILL_FILE_MAX_BYTES} bytes"));
    }
    let text = String::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_owned())?;
    parse_skill(&text)
}

/// Parse a `SKILL.md`'s text.
pub fn parse_skill(text: &str) -> Result<SkillDoc, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err("it has no front matter (a first line `---`, YAML with `name` and `description`, then `---`)".to_owned());
    }
    let mut yaml = String::new();
    let mut closed = false;
    let mut consumed = first.len();
    for line in lines.by_ref() {
        consumed += line.len();
        let bare = line.trim_end();
        if bare == "---" || bare == "..." {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("its front matter is not closed by a `---` line".to_owned());
    }
    let body = text[consumed..].trim_start_matches(['\n', '\r']).to_owned();
    let front_matter = if yaml.trim().is_empty() {
        Map::new()
    } else {
        match serde_saphyr::from_str::<Value>(&yaml) {
            Ok(Value::Object(m)) => m,
            Ok(Value::Null) => Map::new(),
            Ok(_) => return Err("its front matter is not a YAML mapping".to_owned()),
            Err(e) => {
                let first_line = e.to_string();
                let first_line = first_line.lines().next().unwrap_or("");
                return Err(format!("its front matter is not valid YAML: {first_line}"));
            }
        }
    };
    let text_field = |key: &str| -> Result<Option<String>, String> {
        match front_matter.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_owned())),
            Some(_) => Err(format!("its front matter's `{key}` is not text")),
        }
    };
    Ok(SkillDoc {
        name: text_field("name")?,
        description: text_field("description")?,
        body,
        front_matter,
    })
}
