//! Bounding Qwen Code's retries: its only knob is a key of its settings
//! files, so the plan writes a copy of the system settings file with that
//! key set and points Qwen at the copy.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::providers::Scratch;
use crate::providers::provider::{CommandError, RunRequest};

/// Qwen's variable naming its system settings file, which overrides the
/// user's and the project's settings.
pub(super) const SYSTEM_SETTINGS_ENV: &str = "QWEN_CODE_SYSTEM_SETTINGS_PATH";

/// Qwen's variable naming its system defaults file; by default it sits next
/// to the system settings file, so it must be pinned when that one moves.
pub(super) const SYSTEM_DEFAULTS_ENV: &str = "QWEN_CODE_SYSTEM_DEFAULTS_PATH";

/// Bounds Qwen's retries: `model.generationConfig.maxRetries` is its only
/// knob (no flag or variable sets it), so the plan writes a copy of the
/// system settings file with that key set and points Qwen at the copy. The
/// user's and the project's settings stay untouched and still apply below
/// it. Returns the variables to set and the file written.
pub(super) fn retry_settings(
    retries: u32,
    req: &RunRequest,
    scratch: &Scratch,
) -> Result<(Vec<(OsString, OsString)>, PathBuf), CommandError> {
    let original = env_of(req, SYSTEM_SETTINGS_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(default_system_settings);
    let defaults = env_of(req, SYSTEM_DEFAULTS_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            original
                .parent()
                .unwrap_or(Path::new("/"))
                .join("system-defaults.json")
        });
    let unsupported = |why: String| CommandError::Unsupported {
        provider: "qwen".into(),
        what: format!(
            "bound its retries: {why} (fix that file, or run without --max-provider-retries)"
        ),
    };
    let mut settings = match std::fs::read_to_string(&original) {
        Ok(text) => match serde_json::from_str(&strip_json_comments(&text)) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(unsupported(format!(
                    "its system settings {} are not a JSON object",
                    original.display()
                )));
            }
            Err(e) => {
                return Err(unsupported(format!(
                    "failed to parse its system settings {}: {e}",
                    original.display()
                )));
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut map = Map::new();
            map.insert("$version".into(), json!(4));
            map
        }
        Err(e) => {
            return Err(unsupported(format!(
                "failed to read its system settings {}: {e}",
                original.display()
            )));
        }
    };
    // Indexing a JSON object inserts what is missing; only a non-object in
    // the way must be replaced first.
    let model = settings.entry("model").or_insert(Value::Null);
    if !model.is_object() {
        *model = Value::Object(Map::new());
    }
    let generation = &mut model["generationConfig"];
    if !generation.is_object() {
        *generation = Value::Object(Map::new());
    }
    generation["maxRetries"] = json!(retries);
    let text = Value::Object(settings).to_string();
    let path = write_by_content(&scratch.path()?, &text)?;
    let vars = vec![
        (
            OsString::from(SYSTEM_SETTINGS_ENV),
            path.as_os_str().to_owned(),
        ),
        (
            OsString::from(SYSTEM_DEFAULTS_ENV),
            defaults.into_os_string(),
        ),
    ];
    Ok((vars, path))
}

/// Writes `text` to `scratch/qwen-system-settings-<hash of text>.json`,
/// atomically: runs without a store share one scratch folder, and runs
/// that need the same settings share the file.
fn write_by_content(scratch: &Path, text: &str) -> Result<PathBuf, CommandError> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    let path = scratch.join(format!("qwen-system-settings-{:016x}.json", h.finish()));
    let partial = scratch.join(format!(
        "qwen-system-settings-{:016x}.{}-{}.tmp",
        h.finish(),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|source| {
            let _ = std::fs::remove_file(&partial);
            CommandError::Write {
                path: path.clone(),
                source,
            }
        })?;
    Ok(path)
}

/// A variable as the CLI will see it: the request's own environment first,
/// then agentgate's (unless the request starts from an empty environment).
fn env_of(req: &RunRequest, key: &str) -> Option<OsString> {
    if let Some((_, v)) = req.env.iter().rev().find(|(k, _)| k == key) {
        return Some(v.into());
    }
    if req.env_clear {
        return None;
    }
    std::env::var_os(key).filter(|v| !v.is_empty())
}

fn default_system_settings() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/QwenCode/settings.json")
    } else {
        PathBuf::from("/etc/qwen-code/settings.json")
    }
}

/// Qwen's settings files may carry `//` and `/* */` comments (it strips
/// them before parsing); string contents are left alone.
fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(escaped) = chars.next() {
                        out.push(escaped);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_stripped_outside_strings() {
        assert_eq!(
            strip_json_comments("{\"a\": \"x//y\\\"/*z*/\", // c\n\"b\": /* d */ 1}"),
            "{\"a\": \"x//y\\\"/*z*/\", \n\"b\":   1}"
        );
    }
}
