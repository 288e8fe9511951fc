//! The sandbox an agent CLI runs in (`--sandbox`): the level asked for,
//! and the envelope's `sandbox` report of what was enforced, by what, and
//! where it is `partial` or `not_enforced`, with the reason: never
//! silently weaker than asked.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tool_protocol::Enforcement;

/// How far an agent CLI is confined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SandboxLevel {
    /// As today: the CLI gets agentgate's environment (less its own
    /// variables), the user's files and the network.
    #[default]
    Off,
    /// An environment allowlist; writes only to the workspace, the CLI's
    /// own state folders and a private temporary folder; the user's other
    /// secrets hidden. The network is not restricted.
    Workspace,
    /// `workspace`, and the network is only the run's model gateway (and
    /// the `egress_allow` hosts through a CONNECT proxy): no other host, no
    /// loopback service of the machine.
    Strict,
    /// The CLI runs in a container (`docker` or `podman`) with the
    /// workspace mounted and the environment passed explicitly.
    Container,
}

impl SandboxLevel {
    /// Every level, weakest first.
    pub const ALL: [SandboxLevel; 4] = [
        SandboxLevel::Off,
        SandboxLevel::Workspace,
        SandboxLevel::Strict,
        SandboxLevel::Container,
    ];

    /// The wire name, e.g. `"strict"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            SandboxLevel::Off => "off",
            SandboxLevel::Workspace => "workspace",
            SandboxLevel::Strict => "strict",
            SandboxLevel::Container => "container",
        }
    }

    /// Whether a run at this level meets a policy that requires `minimum`
    /// (`serve`'s and `worker`'s `sandbox.require`). `workspace` is met by
    /// `workspace`, `strict` and `container`; `strict` only by `strict`
    /// (a container's network is the engine's); `container` only by
    /// `container`.
    pub fn satisfies(self, minimum: SandboxLevel) -> bool {
        use SandboxLevel::*;
        match minimum {
            Off => true,
            Workspace => matches!(self, Workspace | Strict | Container),
            Strict => self == Strict,
            Container => self == Container,
        }
    }
}

impl fmt::Display for SandboxLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a sandbox level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSandboxLevel(pub String);

impl fmt::Display for UnknownSandboxLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown sandbox level `{}`: expected off, workspace, strict or container",
            self.0
        )
    }
}

impl std::error::Error for UnknownSandboxLevel {}

impl FromStr for SandboxLevel {
    type Err = UnknownSandboxLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SandboxLevel::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| UnknownSandboxLevel(s.to_owned()))
    }
}

/// The envelope's `sandbox`: the level a run's CLI ran under and what
/// enforced each part of it (left out when the level is `off`). For a run
/// with several attempts, the last attempt's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SandboxReport {
    /// The level asked for.
    pub level: SandboxLevel,
    /// The weakest state of the parts below: `enforced` when every part
    /// held, else `partial` or `not_enforced`.
    pub state: crate::tool_protocol::EnforcementState,
    /// The environment allowlist (`PATH`, `HOME`, the CLI's own variables,
    /// the run's `env`, the configured `env_allow`).
    pub environment: Enforcement,
    /// Writes only to the workspace (or the agent's allowlist), the CLI's
    /// state folders and a private temporary folder; secrets hidden.
    pub filesystem: Enforcement,
    /// The network (`strict`: only the gateway and `egress_allow`).
    pub network: Enforcement,
    /// Other processes hidden (a PID namespace), and none outliving the run.
    pub processes: Enforcement,
    /// The container (`container`): engine, image or name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<Enforcement>,
    /// What the sandbox changed of what it was asked, for the reader.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl SandboxReport {
    /// The weakest state among `parts` (`not_enforced` over `partial` over
    /// `enforced`; a part with no limit does not count).
    pub fn weakest(parts: &[&Enforcement]) -> crate::tool_protocol::EnforcementState {
        use crate::tool_protocol::EnforcementState as S;
        let rank = |s: &S| match s {
            S::NotEnforced => 0,
            S::Partial => 1,
            S::Enforced | S::NoLimit => 2,
        };
        parts
            .iter()
            .map(|p| &p.state)
            .min_by_key(|s| rank(s))
            .filter(|s| rank(s) < 2)
            .cloned()
            .unwrap_or(S::Enforced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_and_print_their_wire_names() {
        for level in SandboxLevel::ALL {
            assert_eq!(level.as_str().parse::<SandboxLevel>(), Ok(level));
            assert_eq!(
                serde_json::to_string(&level).unwrap(),
                format!("\"{level}\"")
            );
        }
        assert!("Strict".parse::<SandboxLevel>().is_err());
    }

    #[test]
    fn a_policy_is_met_only_by_levels_that_enforce_at_least_as_much() {
        use SandboxLevel::*;
        assert!(Strict.satisfies(Workspace));
        assert!(Container.satisfies(Workspace));
        assert!(!Off.satisfies(Workspace));
        assert!(!Workspace.satisfies(Strict));
        assert!(!Container.satisfies(Strict));
        assert!(Off.satisfies(Off));
        assert!(!Strict.satisfies(Container));
    }
}
