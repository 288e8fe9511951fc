//! A provider described in the config file: its command template becomes
//! the plan, and [`CustomDecoder`] reads its output through the pointers
//! the config gives.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use super::{Features, PermissionMode, Plan, PlanError, Provider, RunRequest, Verification};
use crate::config::template::{Placeholder, Values, expand_all};
use crate::config::{
    CustomProviderSpec, OutputFormat, OutputSpec, PromptInput, ResumeSpec, SpecError,
};
use crate::decode::Decoder;
use crate::decode::custom::CustomDecoder;

/// A provider described in the config file.
#[derive(Debug, Clone)]
pub struct CustomProvider {
    spec: Arc<CustomProviderSpec>,
    output: Arc<OutputSpec>,
}

impl CustomProvider {
    /// The provider `spec` describes, once it passes
    /// [`CustomProviderSpec::validate`].
    pub fn new(spec: CustomProviderSpec) -> Result<CustomProvider, SpecError> {
        spec.validate()?;
        Ok(CustomProvider::from_checked(spec))
    }

    /// A spec the config loader already validated.
    pub(crate) fn from_checked(spec: CustomProviderSpec) -> CustomProvider {
        let output = Arc::new(spec.output.clone());
        CustomProvider {
            spec: Arc::new(spec),
            output,
        }
    }

    /// Its description.
    pub fn spec(&self) -> &CustomProviderSpec {
        &self.spec
    }

    fn unsupported(&self, what: String) -> PlanError {
        PlanError::Unsupported {
            provider: self.spec.name.clone(),
            what,
        }
    }
}

fn mode_name(mode: PermissionMode) -> (&'static str, &'static str) {
    match mode {
        PermissionMode::Default => ("default", "default"),
        PermissionMode::Plan => ("plan", "plan"),
        PermissionMode::AcceptEdits => ("acceptEdits", "accept_edits"),
        PermissionMode::Bypass => ("bypass", "bypass"),
    }
}

impl Provider for CustomProvider {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn binary_name(&self) -> &str {
        self.spec.binary_name()
    }

    fn verification(&self) -> Verification {
        Verification::Config
    }

    fn adapter_kind(&self) -> &'static str {
        "config"
    }

    fn features(&self) -> Features {
        let usage = self.output.usage.as_ref();
        Features {
            streaming: self.output.format == OutputFormat::Jsonl,
            resume: self.spec.resume != ResumeSpec::Unsupported,
            reasoning: false,
            usage: usage.is_some(),
            cost: usage.is_some_and(|u| u.cost_usd.is_some()),
            permission_modes: self.spec.permission_modes.any(),
        }
    }

    fn plan(&self, req: &RunRequest, program: &Path, _scratch: &Path) -> Result<Plan, PlanError> {
        let spec = &self.spec;
        if !req.add_dirs.is_empty() {
            return Err(self.unsupported(
                "add directories (--add-dir): its config has no way to pass them".into(),
            ));
        }
        for (given, p, flag) in [
            (req.model.is_some(), Placeholder::Model, "--model"),
            (req.system.is_some(), Placeholder::System, "--system"),
        ] {
            if given && !spec.uses(p) {
                return Err(
                    self.unsupported(format!("take {flag}: its config uses no {p} placeholder"))
                );
            }
        }
        let resuming = req.resume.as_deref().is_some_and(|s| !s.is_empty());
        if resuming && spec.resume == ResumeSpec::Unsupported {
            return Err(self.unsupported(
                "resume a session: its config has no `resume`, `resume_command` or `{session}` group"
                    .into(),
            ));
        }
        let cwd = req.cwd.to_string_lossy();
        let values = Values {
            prompt: Some(&req.prompt),
            model: req.model.as_deref(),
            session: req.resume.as_deref(),
            cwd: Some(&cwd),
            system: req.system.as_deref(),
        };
        let missing = |p: Placeholder| {
            self.unsupported(format!(
                "run without a value for {p}, which its command needs outside an optional group"
            ))
        };
        let mut args = Vec::new();
        let command = match (&spec.resume, resuming) {
            (ResumeSpec::Command(c), true) => c,
            _ => &spec.args,
        };
        expand_all(command, &values, &mut args).map_err(missing)?;
        match spec.permission_modes.get(req.permission_mode) {
            Some(extra) => expand_all(extra, &values, &mut args).map_err(missing)?,
            None if req.permission_mode == PermissionMode::Default => {}
            None => {
                let (flag, key) = mode_name(req.permission_mode);
                return Err(self.unsupported(format!(
                    "run with --permission-mode {flag}: its config has no `permission_modes.{key}`"
                )));
            }
        }
        if let (ResumeSpec::Append(extra), true) = (&spec.resume, resuming) {
            expand_all(extra, &values, &mut args).map_err(missing)?;
        }
        args.extend(req.extra_args.iter().cloned());
        let env = spec
            .env
            .iter()
            .filter_map(|(k, t)| {
                let v = t.expand(&values).ok()?;
                Some((OsString::from(k), OsString::from(v)))
            })
            .collect();
        Ok(Plan {
            program: program.to_path_buf(),
            args: args.into_iter().map(OsString::from).collect(),
            env,
            stdin: match spec.prompt {
                PromptInput::Stdin => Some(req.prompt.clone().into_bytes()),
                PromptInput::Argv => None,
            },
            cwd: req.cwd.clone(),
            files: Vec::new(),
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(CustomDecoder::new(self.output.clone()))
    }

    fn exposes_reasoning(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::config::{Config, ConfigSource};

    fn provider(yaml: &str) -> CustomProvider {
        let cfg = Config::parse(
            &format!("version: 1\nproviders:\n  mycli:\n{yaml}"),
            ConfigSource::Flag(PathBuf::from("/etc/agentgate.yaml")),
        )
        .unwrap();
        cfg.provider("mycli").unwrap()
    }

    fn req() -> RunRequest {
        RunRequest {
            prompt: "do it".into(),
            cwd: PathBuf::from("/work"),
            ..RunRequest::default()
        }
    }

    fn argv(p: &CustomProvider, r: &RunRequest) -> Result<Vec<String>, PlanError> {
        p.plan(r, Path::new("/bin/mycli"), Path::new("/tmp"))
            .map(|plan| plan.display_args())
    }

    #[test]
    fn groups_model_resume_and_permissions_build_the_argv() {
        let p = provider(
            r#"    command: [mycli, -p, [--model, "{model}"], --cwd, "{cwd}"]
    resume: [--resume, "{session}"]
    permission_modes: {bypass: [--yolo], plan: [--mode, plan]}
    output: jsonl
    final: {type: result}
    text: /result
    session_id: /session_id
    env: {MYCLI_SYSTEM: "{system}", MYCLI_QUIET: "1"}
"#,
        );
        let plan = p
            .plan(&req(), Path::new("/bin/mycli"), Path::new("/tmp"))
            .unwrap();
        assert_eq!(plan.display_args(), ["-p", "--cwd", "/work"]);
        assert_eq!(plan.stdin.as_deref(), Some(&b"do it"[..]));
        assert_eq!(plan.env, [("MYCLI_QUIET".into(), "1".into())]);
        assert_eq!(plan.program, PathBuf::from("/bin/mycli"));
        let r = RunRequest {
            model: Some("m1".into()),
            resume: Some("S1".into()),
            system: Some("Be brief.".into()),
            permission_mode: PermissionMode::Bypass,
            extra_args: vec!["--debug".into()],
            ..req()
        };
        let plan = p
            .plan(&r, Path::new("/bin/mycli"), Path::new("/tmp"))
            .unwrap();
        assert_eq!(
            plan.display_args(),
            [
                "-p", "--model", "m1", "--cwd", "/work", "--yolo", "--resume", "S1", "--debug"
            ]
        );
        assert!(
            plan.env
                .contains(&("MYCLI_SYSTEM".into(), "Be brief.".into()))
        );
        let f = p.features();
        assert!(f.streaming && f.resume && f.permission_modes && !f.usage && !f.reasoning);
        assert_eq!(p.verification(), Verification::Config);
        assert_eq!(p.adapter_kind(), "config");
        assert_eq!(p.binary_name(), "mycli");
        assert_eq!(p.binary_env(), "AGENTGATE_MYCLI_BIN");
    }

    #[test]
    fn what_the_config_cannot_express_is_refused_with_a_reason() {
        let p = provider("    command: [mycli, \"{prompt}\"]\n");
        assert_eq!(argv(&p, &req()).unwrap(), ["do it"]);
        let plan = p
            .plan(&req(), Path::new("/bin/mycli"), Path::new("/tmp"))
            .unwrap();
        assert_eq!(plan.stdin, None);
        for (r, want) in [
            (
                RunRequest {
                    model: Some("m".into()),
                    ..req()
                },
                "mycli cannot take --model: its config uses no {model} placeholder",
            ),
            (
                RunRequest {
                    resume: Some("S".into()),
                    ..req()
                },
                "mycli cannot resume a session",
            ),
            (
                RunRequest {
                    permission_mode: PermissionMode::Plan,
                    ..req()
                },
                "`permission_modes.plan`",
            ),
            (
                RunRequest {
                    add_dirs: vec![PathBuf::from("/x")],
                    ..req()
                },
                "--add-dir",
            ),
        ] {
            let e = argv(&p, &r).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
        // A plain argument needs its value.
        let p = provider("    command: [mycli, --model, \"{model}\"]\n");
        let e = argv(&p, &req()).unwrap_err().to_string();
        assert!(e.contains("{model}"), "{e}");
    }

    #[test]
    fn a_resume_command_replaces_the_fresh_one() {
        let p = provider(
            r#"    command: [mycli, exec, --json, "-"]
    resume_command: [mycli, exec, resume, --json, "{session}", "-"]
    output: jsonl
    message: {match: {type: message}, text: /text}
    session_id: /thread_id
"#,
        );
        assert_eq!(argv(&p, &req()).unwrap(), ["exec", "--json", "-"]);
        let r = RunRequest {
            resume: Some("T1".into()),
            ..req()
        };
        assert_eq!(
            argv(&p, &r).unwrap(),
            ["exec", "resume", "--json", "T1", "-"]
        );
    }

    #[test]
    fn a_spec_built_in_code_is_validated() {
        let cfg = Config::parse(
            "version: 1\nproviders:\n  ok:\n    command: [x]\n",
            ConfigSource::Default,
        )
        .unwrap();
        let mut spec = cfg.providers[0].clone();
        spec.name = "codex".into();
        let e = CustomProvider::new(spec).unwrap_err();
        assert!(e.message.contains("built-in"), "{e}");
    }
}
