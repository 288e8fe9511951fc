//! opencode's long-lived mode: `opencode acp --print-logs --log-level
//! ERROR`, the Agent Client Protocol on stdio
//! ([`WarmWire::OpencodeAcp`](crate::WarmWire::OpencodeAcp)).
//! What `opencode run` takes as flags, `acp` takes through its config:
//!
//! - The model: `model` in `OPENCODE_CONFIG_CONTENT` (`acp` has no `-m`).
//!   opencode falls back to another model when it does not know the one
//!   asked for, so the protocol checks the session got it.
//! - No title request: the `title` agent is disabled (`acp` has no
//!   `--title`). Its request's tokens would be reported nowhere.
//! - Plan: `default_agent: plan` (`acp` has no `--agent`), with the rules
//!   that deny `edit` and `bash`, as `run` has.
//! - Bypass: `acp` has no `--auto`; every permission that can ask is
//!   allowed by rule (over the config files' rules, which `--auto` keeps).
//! - Default, acceptEdits and ask: the rules `run` gets. What asks becomes
//!   a `session/request_permission`, which the approval policy answers.
//! - `--system`, MCP servers and `--add-dir` as for `run`.
//! - The reasoning variant (`run --variant`): selected over the wire once
//!   the session is open (`session/set_config_option`, `configId: effort`;
//!   agentgate_core's `warm/acp.rs`).

use serde_json::{Map, Value, json};

use super::config::{Bypass, private_tmpdir, set_config_content, set_permissions};
use crate::PermissionMode;
use crate::argv::{Context, Part, args};
use crate::provider::{CliCommand, CommandError};

/// `opencode acp`: the session (new or resumed) and the turns go over the
/// wire.
pub(super) static WARM_ARGV: &[Part] = &[
    args(&["acp", "--print-logs", "--log-level", "ERROR"]),
    Part::Extra,
    Part::Code(permissions),
    Part::Code(config_content),
    // After `config_content`: merged over the value it sets.
    Part::Code(crate::gateway_route::point_opencode),
    Part::Code(private_tmpdir),
];

fn permissions(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    set_permissions(ctx, cmd, Bypass::Rules)
}

/// The model, no title agent, the plan agent in plan mode, and what `run`
/// puts in the config besides.
fn config_content(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let req = ctx.request;
    let mut extra = Map::new();
    let mut taking = vec!["no title request"];
    extra.insert("agent".into(), json!({"title": {"disable": true}}));
    if let Some(model) = &req.model {
        extra.insert("model".into(), Value::from(model.as_str()));
        taking.push("the model");
    }
    if req.permission_mode == PermissionMode::Plan {
        extra.insert("default_agent".into(), Value::from("plan"));
        taking.push("the plan agent");
    }
    set_config_content(ctx, cmd, extra, taking)
}
