//! The checks a manifest passes after parsing: what serde's types cannot
//! say (a safe name, unique inputs, distinct exit codes, globs anchored at
//! the workspace or the root, `host:port` egress entries, variable names).
//! Each fault names the field by its path, which `load.rs` turns into a
//! line.

use std::collections::HashSet;

use super::fault::Fault;
use super::types::{InputType, Manifest};
use crate::yaml::Step;

/// The tool protocol version this agentgate speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest tool or input name.
pub const MAX_NAME_LEN: usize = 64;

/// The one variable a filesystem glob may hold: the run's workspace.
pub const WORKSPACE_VAR: &str = "${WORKSPACE}";

fn key(k: &str) -> Step {
    Step::Key(k.to_owned())
}

/// Whether `name` is a safe tool or input name: `[A-Za-z0-9_-]`, starting
/// with a letter or digit, at most [`MAX_NAME_LEN`] bytes.
pub fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
}

/// Whether `name` is an environment variable name (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_variable_name(name: &str) -> bool {
    name.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

pub(crate) fn check(m: &Manifest) -> Result<(), Fault> {
    if !is_safe_name(&m.name) {
        return Err(Fault::new(
            vec![key("name")],
            format!(
                "`{}` is not a safe tool name (letters, digits, `_` and `-`, starting with a letter or digit, at most {MAX_NAME_LEN} characters)",
                m.name
            ),
        ));
    }
    if m.protocol_version != PROTOCOL_VERSION {
        return Err(Fault::new(
            vec![key("protocol_version")],
            format!(
                "tool protocol version {} is not supported: this agentgate speaks version {PROTOCOL_VERSION}",
                m.protocol_version
            ),
        ));
    }
    if m.version.trim().is_empty() {
        return Err(Fault::new(vec![key("version")], "the version is empty"));
    }
    check_entry(&m.entry)?;
    check_inputs(m)?;
    check_exit_codes(m)?;
    for (kind, globs) in [
        ("read", &m.permissions.filesystem.read),
        ("write", &m.permissions.filesystem.write),
    ] {
        for (i, glob) in globs.iter().enumerate() {
            check_glob(glob).map_err(|message| {
                Fault::new(
                    vec![
                        key("permissions"),
                        key("filesystem"),
                        key(kind),
                        Step::Index(i),
                    ],
                    message,
                )
            })?;
        }
    }
    for (i, entry) in m.permissions.network.egress_allow.iter().enumerate() {
        check_egress(entry).map_err(|message| {
            Fault::new(
                vec![
                    key("permissions"),
                    key("network"),
                    key("egress_allow"),
                    Step::Index(i),
                ],
                message,
            )
        })?;
    }
    let mut seen = HashSet::new();
    for (i, name) in m.env.require.iter().enumerate() {
        let at = || vec![key("env"), key("require"), Step::Index(i)];
        if !is_variable_name(name) {
            return Err(Fault::new(
                at(),
                format!(
                    "`{name}` is not a variable name (letters, digits and `_`, not starting with a digit)"
                ),
            ));
        }
        if !seen.insert(name.as_str()) {
            return Err(Fault::new(at(), format!("`{name}` is listed twice")));
        }
        if agentgate_supervise::own_env::is_own_name(std::ffi::OsStr::new(name)) {
            return Err(Fault::new(
                at(),
                format!(
                    "`{name}` is one of agentgate's own variables (AGENTGATE_*), which never reach a tool"
                ),
            ));
        }
    }
    for (field, value) in [
        ("cpu_seconds", m.resources.cpu_seconds),
        ("memory_mb", m.resources.memory_mb),
        ("max_output_mb", m.resources.max_output_mb),
    ] {
        if value == Some(0) {
            return Err(Fault::new(
                vec![key("resources"), key(field)],
                "0 would let the tool do nothing: give 1 or more, or leave it out",
            ));
        }
    }
    for (field, value) in [
        ("run_s", m.timeouts.run_s),
        ("heartbeat_s", m.timeouts.heartbeat_s),
    ] {
        if value == Some(0) {
            return Err(Fault::new(
                vec![key("timeouts"), key(field)],
                "0 would end every run at once: give 1 or more, or leave it out",
            ));
        }
    }
    Ok(())
}

fn check_entry(entry: &str) -> Result<(), Fault> {
    let at = || vec![key("entry")];
    let path = std::path::Path::new(entry);
    if entry.trim().is_empty() {
        return Err(Fault::new(at(), "the entry is empty"));
    }
    if path.is_absolute() {
        return Err(Fault::new(
            at(),
            format!(
                "`{entry}` is absolute: the entry is relative to the tool's folder (tools/<name>/)"
            ),
        ));
    }
    if path
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(Fault::new(
            at(),
            format!("`{entry}` leaves the tool's folder (`..`): the entry is inside tools/<name>/"),
        ));
    }
    Ok(())
}

fn check_inputs(m: &Manifest) -> Result<(), Fault> {
    let mut seen = HashSet::new();
    for (i, input) in m.inputs.iter().enumerate() {
        let at = |field: &str| vec![key("inputs"), Step::Index(i), key(field)];
        if !is_safe_name(&input.name) {
            return Err(Fault::new(
                at("name"),
                format!(
                    "`{}` cannot be a flag (`--{}`): letters, digits, `_` and `-`, starting with a letter or digit, at most {MAX_NAME_LEN} characters",
                    input.name, input.name
                ),
            ));
        }
        if !seen.insert(input.name.as_str()) {
            return Err(Fault::new(
                at("name"),
                format!("the input `{}` is given twice", input.name),
            ));
        }
        if let Some(choices) = &input.choices {
            if choices.is_empty() {
                return Err(Fault::new(at("enum"), "an empty list allows no value"));
            }
            for choice in choices {
                let fits = match input.kind {
                    InputType::Boolean => false,
                    InputType::Integer => choice.parse::<i64>().is_ok(),
                    InputType::Number => choice.parse::<f64>().is_ok_and(f64::is_finite),
                    InputType::String | InputType::Path => true,
                };
                if !fits {
                    return Err(Fault::new(
                        at("enum"),
                        format!(
                            "`{choice}` is not a value of type {}",
                            input.kind.schema_type()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn check_exit_codes(m: &Manifest) -> Result<(), Fault> {
    let codes = [
        ("ok", Some(m.exit_codes.ok)),
        ("retryable_error", m.exit_codes.retryable_error),
        ("fatal_error", m.exit_codes.fatal_error),
    ];
    for (i, (field, code)) in codes.iter().enumerate() {
        let Some(code) = code else { continue };
        let at = || vec![key("exit_codes"), key(field)];
        if !(0..=255).contains(code) {
            return Err(Fault::new(
                at(),
                format!("{code} is not an exit status (0 to 255)"),
            ));
        }
        if let Some((other, _)) = codes[..i].iter().find(|(_, c)| *c == Some(*code)) {
            return Err(Fault::new(
                at(),
                format!("{code} is also `{other}`: each meaning needs its own exit status"),
            ));
        }
    }
    Ok(())
}

/// A filesystem glob: absolute once `${WORKSPACE}` is replaced (so it
/// starts with `/` or `${WORKSPACE}`), no other `${...}`, no `..`.
fn check_glob(glob: &str) -> Result<(), String> {
    if glob.trim().is_empty() {
        return Err("the glob is empty".into());
    }
    let mut rest = glob;
    while let Some(start) = rest.find("${") {
        let after = &rest[start..];
        let Some(end) = after.find('}') else {
            return Err(format!("`{glob}` has an unclosed `${{`"));
        };
        let var = &after[..=end];
        if var != WORKSPACE_VAR {
            return Err(format!(
                "`{var}` is not a variable a glob may hold: only {WORKSPACE_VAR} (the run's workspace)"
            ));
        }
        if start != 0 || rest.len() != glob.len() {
            return Err(format!("`{glob}`: {WORKSPACE_VAR} may only start the glob"));
        }
        rest = &after[end + 1..];
    }
    if !(glob.starts_with('/') || glob.starts_with(WORKSPACE_VAR)) {
        return Err(format!(
            "`{glob}` is relative: start it with {WORKSPACE_VAR}/ (the run's workspace) or `/`"
        ));
    }
    if glob.split('/').any(|part| part == "..") {
        return Err(format!("`{glob}` holds `..`: write the path it means"));
    }
    Ok(())
}

/// `host:port`, `[v6]:port`, or `*` (any: the policy decides).
fn check_egress(entry: &str) -> Result<(), String> {
    if entry == "*" {
        return Ok(());
    }
    let bad =
        || format!("`{entry}` is not `host:port` (e.g. api.example.com:443, [::1]:8080) or `*`");
    let (host, port) = entry.rsplit_once(':').ok_or_else(bad)?;
    let host_ok = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        Some(v6) => {
            !v6.is_empty()
                && v6
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
        }
        None => {
            !host.is_empty()
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        }
    };
    let port_ok = port.parse::<u16>().is_ok_and(|p| p > 0);
    if host_ok && port_ok {
        Ok(())
    } else {
        Err(bad())
    }
}
