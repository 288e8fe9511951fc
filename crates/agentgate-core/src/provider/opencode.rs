//! opencode: `opencode run --format json --thinking --print-logs --log-level
//! ERROR --title "" [--agent plan] [--auto] [-m MODEL] [-s SESSION]`, the
//! prompt on stdin (opencode reads stdin when it is not a terminal; a
//! message in argv would have its words re-joined and quoted).
//!
//! - `--print-logs --log-level ERROR` puts opencode's error log on stderr:
//!   the only place it says that a model request failed and is being
//!   retried, and what an "Unexpected server error" was.
//! - `--title ""` names a new session after the start of the prompt instead
//!   of asking the model for a title: that request's tokens are reported
//!   nowhere.
//! - Permission modes are opencode's `permission` config, set through
//!   `OPENCODE_PERMISSION` (merged over the config files, key by key):
//!   `default` asks for `edit` and `bash` and `acceptEdits` asks for `bash`
//!   (an unattended `opencode run` refuses what asks); `plan` runs the
//!   read-only `plan` agent with `edit` and `bash` denied (the tools are not
//!   even offered); `bypass` passes `--auto`, which approves whatever asks
//!   (what the config denies stays denied). `--add-dir` directories are
//!   allowed as `external_directory`. An `OPENCODE_PERMISSION` given with
//!   `--env` replaces the mode's.
//! - System instructions go to a file in the run's folder, listed in the
//!   `instructions` of `OPENCODE_CONFIG_CONTENT` (appended to opencode's
//!   system prompt, after its own and the project's instructions).
//! - The model is `-m provider/model`, passed as given.
//! - Sessions live in opencode's SQLite database
//!   (`$XDG_DATA_HOME/opencode/opencode.db`, `opencode export <id>` prints
//!   one); `-s ID` of a session that is not there exits 1 with "Session not
//!   found".

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::{Features, PermissionMode, Plan, PlanError, Provider, RunRequest, os, push};
use crate::decode::Decoder;
use crate::decode::opencode::OpencodeDecoder;

/// The opencode adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Opencode;

/// The environment variable opencode merges over its `permission` config.
const PERMISSION_ENV: &str = "OPENCODE_PERMISSION";

/// The environment variable opencode reads as one more config file.
const CONFIG_ENV: &str = "OPENCODE_CONFIG_CONTENT";

impl Provider for Opencode {
    fn name(&self) -> &str {
        "opencode"
    }

    fn binary_name(&self) -> &str {
        "opencode"
    }

    fn features(&self) -> Features {
        Features {
            streaming: true,
            resume: true,
            reasoning: true,
            usage: true,
            cost: true,
            permission_modes: true,
        }
    }

    fn plan(&self, req: &RunRequest, program: &Path, scratch: &Path) -> Result<Plan, PlanError> {
        let mut args = Vec::new();
        push(
            &mut args,
            &[
                "run",
                "--format",
                "json",
                "--thinking",
                "--print-logs",
                "--log-level",
                "ERROR",
                "--title",
                "",
            ],
        );
        match req.permission_mode {
            PermissionMode::Plan => push(&mut args, &["--agent", "plan"]),
            PermissionMode::Bypass => push(&mut args, &["--auto"]),
            PermissionMode::Default | PermissionMode::AcceptEdits => {}
        }
        if let Some(m) = &req.model {
            push(&mut args, &["-m", m]);
        }
        if let Some(id) = &req.resume {
            push(&mut args, &["-s", id]);
        }
        args.extend(req.extra_args.iter().map(os));

        let mut env = Vec::new();
        // An OPENCODE_PERMISSION given with --env is set after the plan's and
        // replaces it: the caller's explicit permissions win.
        if let Some(rules) = permission_rules(req.permission_mode, &req.add_dirs)
            && !has_env(req, PERMISSION_ENV)
        {
            let merged = merge_into(own_env(req, PERMISSION_ENV), rules).map_err(|what| {
                PlanError::Unsupported {
                    provider: self.name().to_owned(),
                    what: format!("apply --permission-mode: {PERMISSION_ENV} {what}"),
                }
            })?;
            env.push((os(PERMISSION_ENV), os(merged)));
        }
        let mut files = Vec::new();
        if let Some(system) = &req.system {
            if has_env(req, CONFIG_ENV) {
                return Err(PlanError::Unsupported {
                    provider: self.name().to_owned(),
                    what: format!(
                        "take --system while --env sets {CONFIG_ENV} (list the instructions file in that config's `instructions` instead)"
                    ),
                });
            }
            let path = system_file(scratch, system)?;
            let mut extra = Map::new();
            extra.insert("instructions".into(), json!([path.display().to_string()]));
            let merged = merge_into(own_env(req, CONFIG_ENV), extra).map_err(|what| {
                PlanError::Unsupported {
                    provider: self.name().to_owned(),
                    what: format!("take --system: {CONFIG_ENV} {what}"),
                }
            })?;
            env.push((os(CONFIG_ENV), os(merged)));
            files.push(path);
        }
        Ok(Plan {
            program: program.to_path_buf(),
            args,
            env,
            stdin: Some(req.prompt.clone().into_bytes()),
            cwd: req.cwd.clone(),
            files,
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(OpencodeDecoder::new())
    }
}

/// The `permission` entries a mode sets, plus the extra directories; `None`
/// when there are none.
fn permission_rules(mode: PermissionMode, add_dirs: &[PathBuf]) -> Option<Map<String, Value>> {
    let mut rules = Map::new();
    let mut set = |tool: &str, action: &str| {
        rules.insert(tool.to_owned(), Value::from(action));
    };
    match mode {
        PermissionMode::Default => {
            set("edit", "ask");
            set("bash", "ask");
        }
        PermissionMode::AcceptEdits => {
            set("edit", "allow");
            set("bash", "ask");
        }
        PermissionMode::Plan => {
            set("edit", "deny");
            set("bash", "deny");
        }
        PermissionMode::Bypass => {}
    }
    if !add_dirs.is_empty() {
        let mut dirs = Map::new();
        for d in add_dirs {
            let d = d.display().to_string();
            let d = d.trim_end_matches('/');
            dirs.insert(d.to_owned(), Value::from("allow"));
            dirs.insert(format!("{d}/*"), Value::from("allow"));
        }
        rules.insert("external_directory".into(), Value::Object(dirs));
    }
    (!rules.is_empty()).then_some(rules)
}

/// Writes the system instructions where opencode will read them. The name
/// follows the text, so runs sharing a folder never see each other's.
fn system_file(scratch: &Path, text: &str) -> Result<PathBuf, PlanError> {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    let path = scratch.join(format!("opencode-system-{:016x}.md", h.finish()));
    std::fs::write(&path, text).map_err(|source| PlanError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// Whether `--env` sets `key`.
fn has_env(req: &RunRequest, key: &str) -> bool {
    req.env.iter().any(|(k, _)| k == key)
}

/// The value `key` has in agentgate's own environment, if the CLI inherits it.
fn own_env(req: &RunRequest, key: &str) -> Option<String> {
    if req.env_clear {
        return None;
    }
    std::env::var(key).ok()
}

/// `base` (a JSON object, or nothing) with `extra` merged over it: arrays
/// are appended to, objects merged, anything else replaced. Errs with what
/// is wrong with `base`.
fn merge_into(base: Option<String>, extra: Map<String, Value>) -> Result<String, &'static str> {
    let mut merged = match base.as_deref().map(str::trim) {
        None | Some("") => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            _ => return Err("is set to something other than a JSON object"),
        },
    };
    merge(&mut merged, extra);
    Ok(Value::Object(merged).to_string())
}

fn merge(into: &mut Map<String, Value>, extra: Map<String, Value>) {
    for (k, v) in extra {
        match (into.get_mut(&k), v) {
            (Some(Value::Array(a)), Value::Array(b)) => a.extend(b),
            (Some(Value::Object(a)), Value::Object(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> RunRequest {
        RunRequest {
            prompt: "do \"it\" now".into(),
            cwd: PathBuf::from("/work"),
            env_clear: true,
            ..RunRequest::default()
        }
    }

    fn plan(r: &RunRequest, scratch: &Path) -> Plan {
        Opencode
            .plan(r, Path::new("/bin/opencode"), scratch)
            .unwrap()
    }

    fn env_of(p: &Plan, key: &str) -> Option<Value> {
        p.env
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| serde_json::from_str(&v.to_string_lossy()).unwrap())
    }

    const BASE: [&str; 9] = [
        "run",
        "--format",
        "json",
        "--thinking",
        "--print-logs",
        "--log-level",
        "ERROR",
        "--title",
        "",
    ];

    #[test]
    fn the_prompt_goes_on_stdin_and_default_asks_for_edits_and_commands() {
        let p = plan(&req(), &std::env::temp_dir());
        assert_eq!(p.display_args(), BASE);
        assert_eq!(p.stdin.as_deref(), Some(&b"do \"it\" now"[..]));
        assert_eq!(p.cwd, PathBuf::from("/work"));
        assert_eq!(
            env_of(&p, PERMISSION_ENV),
            Some(json!({"edit": "ask", "bash": "ask"}))
        );
        assert!(p.files.is_empty());
    }

    #[test]
    fn model_resume_and_extra_args_map_to_flags() {
        let r = RunRequest {
            model: Some("fake/fake-model".into()),
            resume: Some("ses_1".into()),
            extra_args: vec!["--variant".into(), "high".into()],
            ..req()
        };
        let args = plan(&r, &std::env::temp_dir()).display_args();
        assert_eq!(
            &args[BASE.len()..],
            ["-m", "fake/fake-model", "-s", "ses_1", "--variant", "high"]
        );
        // A bare model name is passed as it is.
        let r = RunRequest {
            model: Some("fake-model".into()),
            ..req()
        };
        assert_eq!(
            &plan(&r, &std::env::temp_dir()).display_args()[BASE.len()..],
            ["-m", "fake-model"]
        );
    }

    #[test]
    fn permission_modes() {
        let with = |mode| {
            plan(
                &RunRequest {
                    permission_mode: mode,
                    ..req()
                },
                &std::env::temp_dir(),
            )
        };
        let p = with(PermissionMode::Plan);
        assert_eq!(&p.display_args()[BASE.len()..], ["--agent", "plan"]);
        assert_eq!(
            env_of(&p, PERMISSION_ENV),
            Some(json!({"edit": "deny", "bash": "deny"}))
        );
        let p = with(PermissionMode::AcceptEdits);
        assert_eq!(p.display_args(), BASE);
        assert_eq!(
            env_of(&p, PERMISSION_ENV),
            Some(json!({"edit": "allow", "bash": "ask"}))
        );
        let p = with(PermissionMode::Bypass);
        assert_eq!(&p.display_args()[BASE.len()..], ["--auto"]);
        assert_eq!(env_of(&p, PERMISSION_ENV), None);
    }

    #[test]
    fn extra_dirs_are_allowed_external_directories() {
        let r = RunRequest {
            permission_mode: PermissionMode::Bypass,
            add_dirs: vec![PathBuf::from("/extra/"), PathBuf::from("/more")],
            ..req()
        };
        assert_eq!(
            env_of(&plan(&r, &std::env::temp_dir()), PERMISSION_ENV),
            Some(json!({"external_directory": {
                "/extra": "allow", "/extra/*": "allow", "/more": "allow", "/more/*": "allow"
            }}))
        );
    }

    #[test]
    fn system_instructions_are_a_file_listed_in_the_config_content() {
        let dir = tempfile::tempdir().unwrap();
        let r = RunRequest {
            system: Some("Always cite MARKER.".into()),
            ..req()
        };
        let p = plan(&r, dir.path());
        let config = env_of(&p, CONFIG_ENV).unwrap();
        let listed = config["instructions"][0].as_str().unwrap();
        assert_eq!(p.files, [PathBuf::from(listed)]);
        assert!(Path::new(listed).starts_with(dir.path()));
        assert_eq!(
            std::fs::read_to_string(listed).unwrap(),
            "Always cite MARKER."
        );
        // Another text gets another file: runs sharing a folder never mix.
        let other = plan(
            &RunRequest {
                system: Some("Other.".into()),
                ..req()
            },
            dir.path(),
        );
        assert_ne!(other.files, p.files);
    }

    #[test]
    fn inherited_config_is_merged_and_an_explicit_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = RunRequest {
            system: Some("S".into()),
            ..req()
        };
        // --env sets it: the plan's value would be overridden, so say so.
        r.env = vec![(CONFIG_ENV.into(), r#"{"instructions":["a.md"]}"#.into())];
        let err = Opencode
            .plan(&r, Path::new("/bin/opencode"), dir.path())
            .unwrap_err();
        assert!(err.to_string().contains(CONFIG_ENV), "{err}");
        let merged = merge_into(
            Some(r#"{"instructions":["a.md"],"model":"x/y","permission":{"read":"allow"}}"#.into()),
            serde_json::from_value(
                json!({"instructions": ["b.md"], "permission": {"bash": "ask"}}),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&merged).unwrap(),
            json!({"instructions": ["a.md", "b.md"], "model": "x/y",
                   "permission": {"read": "allow", "bash": "ask"}})
        );
        assert!(merge_into(Some("[1]".into()), Map::new()).is_err());
        assert_eq!(merge_into(Some(" ".into()), Map::new()).unwrap(), "{}");
    }

    #[test]
    fn an_explicit_permission_env_replaces_the_modes() {
        let mut r = req();
        r.env = vec![(PERMISSION_ENV.into(), r#"{"bash":"allow"}"#.into())];
        assert_eq!(
            env_of(&plan(&r, &std::env::temp_dir()), PERMISSION_ENV),
            None
        );
        assert_eq!(own_env(&r, PERMISSION_ENV), None, "a cleared environment");
    }
}
