//! What must not be printed or stored: secrets.
//!
//! Two layers. Names: [`is_secret`] says an environment variable holds a
//! secret by its name, [`is_secret_flag`] says the same of a command-line
//! flag (`--api-key`); the dry run and `config show` hide such values.
//! Values: a [`Redactor`] is built once per run from every secret value
//! the run knows (the secret-named variables of its environment, inherited
//! or given, the values of secret flags among the extra arguments, the
//! config's `redact:` list) and replaces each occurrence, raw or as a JSON
//! string escapes it, with a marker naming where the value came from
//! (`[redacted:OPENAI_API_KEY]`, `[redacted:--api-key]`, [`CONFIG_MARKER`]).
//! The run applies it where the CLI's lines are read, so nothing
//! downstream (decoders, tails, envelope, events, files, database) ever
//! holds a secret, and again to every event and envelope it builds.
//!
//! A leaf: imported, never importing up.

mod redactor;

pub use redactor::{CONFIG_MARKER, MIN_SECRET_BYTES, Redactor, RedactorBuilder};

/// Whether an environment variable's value must not be printed: its name
/// says it holds a key, token, secret, password or credential.
pub fn is_secret(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH", "CREDENTIAL"]
        .iter()
        .any(|w| upper.contains(w))
}

/// Whether a command-line flag (`--api-key`, `--auth-token`, `-password`)
/// takes a secret value. Stricter than [`is_secret`], word by word, so that
/// `--max-tokens` or `--keyboard` are not: one of the name's words
/// (split at `-`, `_`, `.`) is KEY, TOKEN, AUTH or AUTHORIZATION, ends with
/// KEY or TOKEN (`--apikey`), or contains SECRET, PASSWORD, PASSWD or
/// CREDENTIAL.
pub fn is_secret_flag(flag: &str) -> bool {
    let name = flag.trim_start_matches('-');
    if name.len() == flag.len() || name.is_empty() {
        return false;
    }
    name.split(['-', '_', '.'])
        .map(str::to_ascii_uppercase)
        .any(|w| {
            matches!(w.as_str(), "AUTH" | "AUTHORIZATION")
                || w.ends_with("KEY")
                || w.ends_with("TOKEN")
                || ["SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"]
                    .iter()
                    .any(|s| w.contains(s))
        })
}

/// The values of secret flags in an argument list: `--api-key=VALUE`, or
/// `--api-key VALUE` (the next argument, unless it is itself a flag), as
/// (flag, value) pairs.
pub fn secret_flag_values(args: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut args = args.iter().peekable();
    while let Some(arg) = args.next() {
        if let Some((flag, value)) = arg.split_once('=') {
            if is_secret_flag(flag) && !value.is_empty() {
                out.push((flag.to_owned(), value.to_owned()));
            }
        } else if is_secret_flag(arg)
            && let Some(value) = args.next_if(|v| !v.starts_with('-') && !v.is_empty())
        {
            out.push((arg.clone(), value.clone()));
        }
    }
    out
}

/// `argv` with the `secrets` ([`secret_flag_values`] of the arguments it
/// was built from) replaced by their markers, whatever their length:
/// `--api-key=VALUE` becomes `--api-key=[redacted:--api-key]`, and in
/// `--api-key VALUE` the value becomes `[redacted:--api-key]`. For showing
/// a command line.
pub fn mask_secret_flags(argv: &[String], secrets: &[(String, String)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(argv.len());
    for (i, arg) in argv.iter().enumerate() {
        let previous = i.checked_sub(1).and_then(|p| argv.get(p));
        let hidden = secrets.iter().find_map(|(flag, value)| {
            if arg
                .strip_prefix(flag.as_str())
                .and_then(|r| r.strip_prefix('='))
                == Some(value.as_str())
            {
                Some(format!("{flag}={}", redactor::marker(flag)))
            } else if arg == value && previous == Some(flag) {
                Some(redactor::marker(flag))
            } else {
                None
            }
        });
        out.push(hidden.unwrap_or_else(|| arg.clone()));
    }
    out
}

#[cfg(test)]
mod tests;
