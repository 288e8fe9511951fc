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
use super::provider::{CliCommand, CliRequest, CommandError, Features, Provider, Verification};
use super::scratch::Scratch;
use super::template::{ArgTemplate, Placeholder};
use crate::PermissionMode;
use crate::decode::Decoder;

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

    /// A spec the config loader (`agentgate_core::config`) already
    /// validated.
    pub fn from_checked(spec: CustomProviderSpec) -> CustomProvider {
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

    fn sandbox_env_allow(&self) -> Vec<String> {
        self.spec.env_allow.clone()
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
        req: &CliRequest,
        program: &Path,
        scratch: &Scratch,
    ) -> Result<CliCommand, CommandError> {
        let spec = &self.spec;
        if req.gateway.is_some() {
            return Err(self.unsupported(format!(
                "run behind the gateway: not supported: {}",
                crate::gateway_route::CUSTOM_WHY
            )));
        }
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
        let mut cmd = argv::command(&spec.name, &self.argv, spec.prompt, req, program, scratch)?;
        if let Some(p) = &req.permissions {
            // A described CLI takes no settings: said so, not pretended.
            let way = crate::permissions::PermissionsWay::None;
            let (_, notices) = crate::permissions::apply(way, &spec.name, p);
            cmd.notices.extend(notices);
        }
        Ok(cmd)
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
