//! A provider described in the config file ([`CustomProviderSpec`]): its
//! command, resume and permission arguments become an argv table that the
//! same interpreter as the built-in providers' reads, and [`CustomDecoder`]
//! reads its output through the pointers the config gives.

mod decode;
pub mod json;
mod spec;

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

pub use decode::CustomDecoder;
pub use spec::{
    CustomProviderSpec, ErrorSpec, MessageSpec, OutputFormat, OutputSpec, PermissionArgs,
    ResumeSpec, SpecError, ToolResultSpec, ToolUseSpec, UsageSpec,
};

use super::argv::{self, Modes, Part, Parts, Words};
use super::provider::{CliCommand, CommandError, Features, Provider, RunRequest, Verification};
use super::scratch::Scratch;
use super::template::{ArgTemplate, Placeholder};
use crate::decode::Decoder;
use crate::settings::PermissionMode;

/// A provider described in the config file.
#[derive(Debug, Clone)]
pub struct CustomProvider {
    spec: Arc<CustomProviderSpec>,
    output: Arc<OutputSpec>,
    argv: Arc<Vec<Part>>,
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
        let argv = Arc::new(argv_table(&spec));
        CustomProvider {
            spec: Arc::new(spec),
            output,
            argv,
        }
    }

    /// Its description.
    pub fn spec(&self) -> &CustomProviderSpec {
        &self.spec
    }

    fn unsupported(&self, what: String) -> CommandError {
        CommandError::Unsupported {
            provider: self.spec.name.clone(),
            what,
        }
    }
}

/// The command, as argv parts: each element an argument, each optional
/// group a part left out without its values.
fn parts(templates: &[ArgTemplate]) -> Vec<Part> {
    templates
        .iter()
        .map(|t| match t {
            ArgTemplate::Arg(t) => Part::Args(Words::Parsed(vec![t.clone()])),
            ArgTemplate::Group(g) => Part::Optional(Words::Parsed(g.clone())),
        })
        .collect()
}

/// The spec's command line as an argv table: no extra directories; the
/// command (or, resuming, `resume_command`), the permission mode's
/// arguments, `resume`'s arguments, the caller's extra arguments, and the
/// environment.
fn argv_table(spec: &CustomProviderSpec) -> Vec<Part> {
    let mut table = vec![Part::RefuseDirs(
        "add directories (--add-dir): its config has no way to pass them",
    )];
    match &spec.resume {
        ResumeSpec::Command(resume) => {
            table.push(Part::Fresh(Parts::Owned(parts(&spec.args))));
            table.push(Part::Resuming(Parts::Owned(parts(resume))));
        }
        _ => table.extend(parts(&spec.args)),
    }
    let mode = |m: &Option<Vec<ArgTemplate>>| m.as_deref().map(|a| Parts::Owned(parts(a)));
    let p = &spec.permission_modes;
    table.push(Part::Mode(Modes {
        default: mode(&p.default),
        plan: mode(&p.plan),
        accept_edits: mode(&p.accept_edits),
        bypass: mode(&p.bypass),
    }));
    if let ResumeSpec::Append(extra) = &spec.resume {
        table.push(Part::Resuming(Parts::Owned(parts(extra))));
    }
    table.push(Part::Extra);
    table.extend(
        spec.env
            .iter()
            .map(|(k, t)| Part::Env(Cow::Owned(k.clone()), t.clone())),
    );
    table
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

    fn command(
        &self,
        req: &RunRequest,
        program: &Path,
        scratch: &Scratch,
    ) -> Result<CliCommand, CommandError> {
        let spec = &self.spec;
        if !req.mcp_servers.is_empty() {
            return Err(self.unsupported(
                "run with MCP servers: a CLI described in the config has no way to be given them"
                    .into(),
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
        argv::command(&spec.name, &self.argv, spec.prompt, req, program, scratch)
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(CustomDecoder::new(self.output.clone()))
    }

    /// `default` always (without `permission_modes.default` it adds
    /// nothing), another mode when `permission_modes` gives its arguments;
    /// never `ask`, which needs a long-lived mode a description cannot give.
    fn takes_permission_mode(&self, mode: PermissionMode) -> bool {
        match mode {
            PermissionMode::Default => true,
            PermissionMode::Ask => false,
            m => self.spec.permission_modes.get(m).is_some(),
        }
    }

    /// Every format promises an answer: `output: json` its document,
    /// `jsonl` with `final` a line matching it, `jsonl` without `final` a
    /// line matching `message`, `text` stdout that is not blank. A run
    /// that ends cleanly without it gave no answer.
    fn final_record(&self) -> Option<&str> {
        Some(match self.output.format {
            OutputFormat::Json => "its JSON document",
            OutputFormat::Jsonl if self.output.final_record.is_some() => {
                "its final record (a line matching `final`)"
            }
            OutputFormat::Jsonl => "an answer (a line matching `message`)",
            OutputFormat::Text => "an answer on stdout",
        })
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

    fn argv(p: &CustomProvider, r: &RunRequest) -> Result<Vec<String>, CommandError> {
        p.command(r, Path::new("/bin/mycli"), &Scratch::at("/tmp"))
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
            .command(&req(), Path::new("/bin/mycli"), &Scratch::at("/tmp"))
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
            .command(&r, Path::new("/bin/mycli"), &Scratch::at("/tmp"))
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
            .command(&req(), Path::new("/bin/mycli"), &Scratch::at("/tmp"))
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
