//! Finding the key a CLI's calls carry: the config's override (a file or
//! a variable), else the first of the CLI's own variables that is set;
//! and reading the settings files the planners look into.

use std::path::Path;

use serde_json::{Map, Value};

use super::{CliEnv, PlanInput, RouteError, UpstreamKey};
use crate::system_settings::strip_json_comments;

/// The key the config names: its file (text trimmed), else its variable
/// (as the CLI's environment has it, else agentgate's own); `None` when
/// the config names neither.
pub(super) fn from_overrides(input: &PlanInput<'_>) -> Result<Option<UpstreamKey>, RouteError> {
    let missing = |what: String| RouteError::KeyMissing {
        provider: input.provider.to_owned(),
        what,
    };
    if let Some(path) = &input.overrides.key_file {
        let text = std::fs::read_to_string(path).map_err(|source| RouteError::KeyFile {
            path: path.clone(),
            source,
        })?;
        let value = text.trim();
        if value.is_empty() {
            return Err(missing(format!("the key file {}", path.display())));
        }
        return Ok(Some(UpstreamKey::ApiKey {
            value: value.to_owned(),
            from: format!("file {}", path.display()),
        }));
    }
    if let Some(var) = &input.overrides.key_env {
        let value = input
            .env
            .get_or_own(var)
            .ok_or_else(|| missing(format!("the variable {var}")))?;
        return Ok(Some(UpstreamKey::ApiKey {
            value: value.trim().to_owned(),
            from: var.clone(),
        }));
    }
    Ok(None)
}

/// The first of `vars` set in the CLI's environment, as an API key.
pub(super) fn from_env(env: &CliEnv, vars: &[&str]) -> Option<UpstreamKey> {
    vars.iter().find_map(|var| {
        env.get(var).map(|value| UpstreamKey::ApiKey {
            value: value.trim().to_owned(),
            from: (*var).to_owned(),
        })
    })
}

/// The variable a key's `from` names, when it was read from one (a
/// variable's name is all letters, digits and `_`; a file's source is
/// `file PATH`, a setting's a sentence).
pub(super) fn var_of_source(from: &str) -> Option<&str> {
    (!from.is_empty() && from.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(from)
}

/// The JSON object of a settings file (comments allowed); `None` when
/// there is no file.
pub(super) fn read_json(
    provider: &str,
    path: &Path,
) -> Result<Option<Map<String, Value>>, RouteError> {
    let bad = |why: String| RouteError::Settings {
        provider: provider.to_owned(),
        path: path.to_path_buf(),
        why,
    };
    match std::fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str(&strip_json_comments(&text)) {
            Ok(Value::Object(map)) => Ok(Some(map)),
            Ok(_) => Err(bad("not a JSON object".into())),
            // The error's line and column, never the text around them.
            Err(e) => Err(bad(format!(
                "invalid JSON at line {} column {}",
                e.line(),
                e.column()
            ))),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(bad(e.to_string())),
    }
}

/// The string at `path` (`["security", "auth", "selectedType"]`) of a
/// JSON object.
pub(super) fn str_at<'a>(map: &'a Map<String, Value>, path: &[&str]) -> Option<&'a str> {
    let (last, parents) = path.split_last()?;
    let mut at = map;
    for key in parents {
        at = at.get(*key)?.as_object()?;
    }
    at.get(*last)?.as_str().filter(|s| !s.trim().is_empty())
}

/// A base URL without its trailing slashes (the CLIs join paths to it).
pub(super) fn base(url: &str) -> String {
    url.trim().trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_variable_name_is_a_variable_source() {
        assert_eq!(
            var_of_source("ANTHROPIC_API_KEY"),
            Some("ANTHROPIC_API_KEY")
        );
        assert_eq!(var_of_source("file /run/key"), None);
        assert_eq!(var_of_source(""), None);
    }

    #[test]
    fn a_broken_settings_file_is_an_error_without_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{\"apiKey\": \"sk-secret\" oops}").unwrap();
        let err = read_json("qwen", &path).unwrap_err().to_string();
        assert!(err.contains("settings.json"), "{err}");
        assert!(!err.contains("sk-secret"), "{err}");
        assert!(
            read_json("qwen", &dir.path().join("none.json"))
                .unwrap()
                .is_none()
        );
    }
}
