//! agentgate's own variables never reach a process it starts for an agent
//! or a tool: the one rule of what a child's environment may not hold.
//!
//! A variable is agentgate's own when
//! - its name starts with [`OWN_PREFIX`] (`AGENTGATE_TOKEN`,
//!   `AGENTGATE_HOME` (where the token file is), `AGENTGATE_STORE`,
//!   `AGENTGATE_CONFIG`, every other `AGENTGATE_*`), or
//! - its value holds a secret this process holds ([`hold`]): the API token
//!   (`agentgate_server`'s `token::choose`), the store's URL and the password
//!   in it (`agentgate_store::store_choice`). A value of [`CONTAINED_MIN`] bytes or more is
//!   found anywhere in another value (`DATABASE_URL=postgres://u:pw@h/db`
//!   holds the password); a shorter one only as the whole value.
//!
//! Where it is applied, so that no mode can forget it: the supervisor
//! builds every CLI's and every tool's environment in one function
//! (`warm::child_env` of this crate, used by the cold spawn, the keeper and
//! the warm keeper's request alike), which ends with [`scrub`]; the other
//! programs agentgate starts on a user's behalf (`git` for worktrees, whose
//! hooks the agent may have written; a CLI's `--version` probe) go through
//! [`scrub_command`]. What agentgate starts of itself keeps its variables:
//! the session host (`agentgate __session-host`) is agentgate, and it
//! scrubs the CLIs it starts in turn. The `agentgate mcp` a CLI starts
//! gets nothing of agentgate's: it relays each tool call to the process
//! that runs the agent (`agentgate_tools::mcp::relay`).
//!
//! A variable a user names for a run (`--env`, a request's `env`, the
//! config's `env:`, an MCP server's `env`) is refused when its name starts
//! with `AGENTGATE_` (planning fails saying so) rather than dropped in
//! silence; the scrub would drop it anyway.

use std::ffi::{OsStr, OsString};
use std::sync::RwLock;

/// The prefix of agentgate's own variables.
pub const OWN_PREFIX: &str = "AGENTGATE_";

/// The shortest held secret looked for inside other values; a shorter one
/// only matches a whole value (it would match ordinary text).
pub const CONTAINED_MIN: usize = 8;

/// The secrets this process holds (see the module notes).
static HELD: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Whether `name` is one of agentgate's own variable names.
pub fn is_own_name(name: &OsStr) -> bool {
    name.as_encoded_bytes().starts_with(OWN_PREFIX.as_bytes())
}

/// Mark `secret` as one of this process's own: a variable whose value
/// holds it never reaches a child (see the module notes). Empty values
/// are ignored; holding a value twice changes nothing.
pub fn hold(secret: &str) {
    if secret.is_empty() {
        return;
    }
    let mut held = HELD
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !held.iter().any(|h| h == secret) {
        held.push(secret.to_owned());
    }
}

/// Hold a database URL that can unlock a store (a PostgreSQL URL), and the
/// password in it. The store's choice (`agentgate_store::store_choice`)
/// calls it for a PostgreSQL location; a SQLite path unlocks nothing that
/// the user's own files do not (and `AGENTGATE_HOME`, which names it, is
/// dropped by its name).
pub fn hold_database_url(url: &str) {
    hold(url);
    if let Some(password) = url_password(url) {
        if let Some(decoded) = percent_decoded(&password) {
            hold(&decoded);
        }
        hold(&password);
    }
}

/// The password of a `postgres://user:password@host/db` URL (as written:
/// percent-escapes kept, and also decoded when they decode to text).
fn url_password(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let userinfo = authority.rsplit_once('@')?.0;
    let password = userinfo.split_once(':')?.1;
    (!password.is_empty()).then(|| password.to_owned())
}

/// `text` with its `%XX` escapes decoded, when it has some and they
/// decode to UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    if !text.contains('%') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Whether the variable `name=value` is agentgate's own.
pub fn is_own(name: &OsStr, value: &OsStr) -> bool {
    if is_own_name(name) {
        return true;
    }
    let held = HELD
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if held.is_empty() {
        return false;
    }
    let value = value.as_encoded_bytes();
    held.iter().any(|secret| {
        let secret = secret.as_bytes();
        if secret.len() < CONTAINED_MIN {
            value == secret
        } else {
            value.windows(secret.len()).any(|w| w == secret)
        }
    })
}

/// `env` without agentgate's own variables.
pub fn scrub(mut env: Vec<(OsString, OsString)>) -> Vec<(OsString, OsString)> {
    env.retain(|(name, value)| !is_own(name, value));
    env
}

/// Keep agentgate's own variables out of what `cmd` passes on: those it
/// would inherit and those set on it.
pub fn scrub_command(cmd: &mut std::process::Command) {
    let set: Vec<(OsString, Option<OsString>)> = cmd
        .get_envs()
        .map(|(k, v)| (k.to_owned(), v.map(OsStr::to_owned)))
        .collect();
    for (name, value) in std::env::vars_os() {
        if is_own(&name, &value) {
            cmd.env_remove(name);
        }
    }
    for (name, value) in set {
        if let Some(value) = value
            && is_own(&name, &value)
        {
            cmd.env_remove(name);
        }
    }
}

/// The first of `names` that is agentgate's own, for a refusal naming it.
pub fn first_own_name<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    names.into_iter().find(|name| is_own_name(OsStr::new(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn every_agentgate_name_is_own_and_no_other() {
        for name in [
            "AGENTGATE_TOKEN",
            "AGENTGATE_HOME",
            "AGENTGATE_STORE",
            "AGENTGATE_CONFIG",
            "AGENTGATE_LOG",
            "AGENTGATE_",
        ] {
            assert!(is_own(OsStr::new(name), OsStr::new("x")), "{name}");
        }
        for name in ["PATH", "HOME", "MY_AGENTGATE_TOKEN", "agentgate_token"] {
            assert!(!is_own(OsStr::new(name), OsStr::new("x")), "{name}");
        }
    }

    #[test]
    fn a_held_secret_is_found_inside_values_and_a_short_one_only_whole() {
        let url = "postgres://ag:s3cret-Pa55word@db.internal:5432/agentgate";
        hold_database_url(url);
        hold("tok-0123456789abcdef");
        hold("short");
        let kept = scrub(env(&[
            ("DATABASE_URL", url),
            ("PGPASSWORD", "s3cret-Pa55word"),
            ("NOTE", "the token is tok-0123456789abcdef, see"),
            ("WORD", "short"),
            ("SENTENCE", "a short word"),
            ("LANG", "C"),
        ]));
        assert_eq!(
            kept,
            env(&[("SENTENCE", "a short word"), ("LANG", "C")]),
            "the URL, its password and the token go; a short secret only whole"
        );
    }

    #[test]
    fn the_password_of_a_url_is_what_sits_between_the_colon_and_the_at() {
        assert_eq!(
            url_password("postgres://u:p%40ss@h/db?x=1").as_deref(),
            Some("p%40ss")
        );
        assert_eq!(percent_decoded("p%40ss%2").as_deref(), Some("p@ss%2"));
        assert_eq!(percent_decoded("plain"), None);
        assert_eq!(url_password("postgres://u@h/db"), None);
        assert_eq!(url_password("postgres://h/db"), None);
        assert_eq!(url_password("postgres://u:@h/db"), None);
    }

    #[test]
    fn a_command_loses_the_own_variables_it_would_inherit_and_those_set_on_it() {
        let mut cmd = std::process::Command::new("env");
        cmd.env("AGENTGATE_STORE", "/s.db").env("KEEP", "1");
        scrub_command(&mut cmd);
        let envs: Vec<(OsString, Option<OsString>)> = cmd
            .get_envs()
            .map(|(k, v)| (k.to_owned(), v.map(OsStr::to_owned)))
            .collect();
        assert!(envs.contains(&("AGENTGATE_STORE".into(), None)), "{envs:?}");
        assert!(
            envs.contains(&("KEEP".into(), Some("1".into()))),
            "{envs:?}"
        );
    }

    #[test]
    fn the_first_own_name_is_named() {
        assert_eq!(
            first_own_name(["A", "AGENTGATE_TOKEN", "AGENTGATE_HOME"]),
            Some("AGENTGATE_TOKEN")
        );
        assert_eq!(first_own_name(["A", "B"]), None);
    }
}
