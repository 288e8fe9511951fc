//! A copy of a CLI's system settings file with keys of this run set, for
//! the CLIs whose only knob for something is a settings key (Qwen Code:
//! MCP servers, its retry bound and an agent's permissions file). The CLI is pointed at the copy with
//! its variable (`QWEN_CODE_SYSTEM_SETTINGS_PATH`); Gemini CLI has the same
//! variable but skips a file that is not root's, so it cannot be used. the system settings file overrides
//! the user's and the project's, which stay untouched and still apply
//! below it. The system defaults file sits next to the system settings by
//! default, so its variable is pinned to where it was.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::provider::{CliRequest, CommandError};
use super::scratch::Scratch;

/// Where a CLI keeps its system settings, and how it is pointed elsewhere.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SystemSettings {
    /// The provider, for messages.
    pub provider: &'static str,
    /// The variable naming its system settings file.
    pub settings_env: &'static str,
    /// The variable naming its system defaults file.
    pub defaults_env: &'static str,
    /// The system settings file when the variable is not set (Linux; the
    /// macOS one when built there).
    pub default_path: &'static str,
    /// The same on macOS.
    pub default_path_macos: &'static str,
}

/// Qwen Code's system settings: `QWEN_CODE_SYSTEM_SETTINGS_PATH`, else its
/// platform's default (read by the gateway's planner and overlaid by the
/// run's copy alike).
pub(crate) static QWEN: SystemSettings = SystemSettings {
    provider: "qwen",
    settings_env: "QWEN_CODE_SYSTEM_SETTINGS_PATH",
    defaults_env: "QWEN_CODE_SYSTEM_DEFAULTS_PATH",
    default_path: "/etc/qwen-code/settings.json",
    default_path_macos: "/Library/Application Support/QwenCode/settings.json",
};

impl SystemSettings {
    /// Writes a copy of the system settings with `edit` applied, in the
    /// run's folder, and returns the variables that point the CLI at it and
    /// the file. `purpose` says what the copy is for, in an error ("bound
    /// its retries"); `instead` what the user can do instead.
    pub(crate) fn overlay(
        &self,
        req: &CliRequest,
        scratch: &Scratch,
        purpose: &str,
        instead: &str,
        edit: &dyn Fn(&mut Map<String, Value>),
    ) -> Result<(Vec<(OsString, OsString)>, PathBuf), CommandError> {
        let original = env_of(req, self.settings_env)
            .map(PathBuf::from)
            .unwrap_or_else(|| self.default_settings());
        let defaults = env_of(req, self.defaults_env)
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                original
                    .parent()
                    .unwrap_or(Path::new("/"))
                    .join("system-defaults.json")
            });
        let unsupported = |why: String| CommandError::Unsupported {
            provider: self.provider.into(),
            what: format!("{purpose}: {why} (fix that file, or {instead})"),
        };
        let mut settings = read_object(&original, "its system settings", &unsupported)?
            .unwrap_or_else(|| {
                let mut map = Map::new();
                if self.provider == "qwen" {
                    // Qwen migrates a settings file without a version.
                    map.insert("$version".into(), json!(4));
                }
                map
            });
        edit(&mut settings);
        let text = Value::Object(settings).to_string();
        let path = write_by_content(&scratch.path()?, self.provider, &text)?;
        let vars = vec![
            (
                OsString::from(self.settings_env),
                path.as_os_str().to_owned(),
            ),
            (OsString::from(self.defaults_env), defaults.into_os_string()),
        ];
        Ok((vars, path))
    }

    pub(crate) fn default_settings(&self) -> PathBuf {
        if cfg!(target_os = "macos") {
            PathBuf::from(self.default_path_macos)
        } else {
            PathBuf::from(self.default_path)
        }
    }
}

/// `settings[key]`, made an object if it is not one, for `value["k"] = ...`
/// (indexing a JSON object inserts what is missing).
pub(crate) fn object_at<'a>(settings: &'a mut Map<String, Value>, key: &str) -> &'a mut Value {
    let slot = settings.entry(key).or_insert(Value::Null);
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    slot
}

/// Writes `text` to `scratch/<provider>-system-settings-<hash of text>.json`,
/// atomically: runs without a store share one scratch folder, and runs
/// that need the same settings share the file.
fn write_by_content(scratch: &Path, provider: &str, text: &str) -> Result<PathBuf, CommandError> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    let path = scratch.join(format!(
        "{provider}-system-settings-{:016x}.json",
        h.finish()
    ));
    let partial = scratch.join(format!(
        "{provider}-system-settings-{:016x}.{}-{}.tmp",
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

/// The JSON object of a settings file (comments allowed); `None` when
/// there is no file. `what` names the file in errors ("its
/// settings"), which `unsupported` turns into the provider's refusal.
pub(crate) fn read_object(
    path: &Path,
    what: &str,
    unsupported: &dyn Fn(String) -> CommandError,
) -> Result<Option<Map<String, Value>>, CommandError> {
    match std::fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str(&strip_json_comments(&text)) {
            Ok(Value::Object(map)) => Ok(Some(map)),
            Ok(_) => Err(unsupported(format!(
                "{what} {} are not a JSON object",
                path.display()
            ))),
            Err(e) => Err(unsupported(format!(
                "failed to parse {what} {}: {e}",
                path.display()
            ))),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(unsupported(format!(
            "failed to read {what} {}: {e}",
            path.display()
        ))),
    }
}

/// A variable as the CLI will see it: the request's own environment first,
/// then agentgate's (unless the request starts from an empty environment).
pub(crate) fn env_of(req: &CliRequest, key: &str) -> Option<OsString> {
    if let Some((_, v)) = req.env.iter().rev().find(|(k, _)| k == key) {
        return Some(v.into());
    }
    if req.env_clear {
        return None;
    }
    std::env::var_os(key).filter(|v| !v.is_empty())
}

/// Qwen's settings files may carry `//` and `/* */` comments (it strips
/// them before parsing); string contents are left alone.
pub(crate) fn strip_json_comments(text: &str) -> String {
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
