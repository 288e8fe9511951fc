//! Where a run's optional log file goes and its name (`--log-dir`,
//! `--log-name`, the config's `log_dir:` and `log_name:`); the file itself
//! is written by the run (`run/run_log.rs`, whose notes say what it holds).
//!
//! The name comes from a template ([`DEFAULT_LOG_NAME`] unless one is
//! given): `{label:KEY}` is a label's value, `{labels}` every label's value
//! in key order joined by `_`, `{run}` the run id, `{ts}` the start time
//! (`20260501T120000Z`), `{provider}` the first provider. A missing label
//! is dropped with the separator it leaves. The result is made a safe file
//! name ([`safe_file_name`]): no `/`, no `..`, nothing but ASCII letters,
//! digits, `.`, `_`, `-`.

use std::path::PathBuf;

use agentgate_protocol::Labels;
use jiff::Timestamp;

/// The file name template used when none is given.
pub const DEFAULT_LOG_NAME: &str = "{labels}_{ts}_{run}.log";

/// The longest file name made, in bytes (file systems allow 255).
const NAME_MAX: usize = 200;

/// Where a run's log file goes and how it is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLogSpec {
    /// The folder (made if missing).
    pub dir: PathBuf,
    /// The file name template (see the module's notes).
    pub name: String,
}

/// What the file name template reads.
#[derive(Debug, Clone, Copy)]
pub struct NameParts<'a> {
    /// The run's labels.
    pub labels: &'a Labels,
    /// The run id.
    pub run_id: &'a str,
    /// When the run started.
    pub started: Timestamp,
    /// The first provider, if any.
    pub provider: Option<&'a str>,
}

/// The file name `template` gives for `parts`, made safe.
pub fn log_file_name(template: &str, parts: &NameParts<'_>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let field = &after[..close];
        let value = match field {
            "run" => parts.run_id.to_owned(),
            "ts" => parts.started.strftime("%Y%m%dT%H%M%SZ").to_string(),
            "provider" => parts.provider.unwrap_or_default().to_owned(),
            "labels" => parts.labels.values().cloned().collect::<Vec<_>>().join("_"),
            other => match other.strip_prefix("label:") {
                Some(key) => parts.labels.get(key).cloned().unwrap_or_default(),
                // Not a field: kept as written (then made safe).
                None => format!("{{{other}}}"),
            },
        };
        out.push_str(&value);
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    let safe = safe_file_name(&out);
    if safe.is_empty() || safe.starts_with('.') {
        format!("{}{safe}", parts.run_id)
    } else {
        safe
    }
}

/// `name` as a file name that stays in its folder: every character but
/// ASCII letters, digits, `.`, `_` and `-` becomes `_` (so no `/`), runs
/// of `_`/`-` left by empty fields collapse and are trimmed from the ends,
/// `..` becomes `_`, and the name is cut to 200 bytes.
pub fn safe_file_name(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut out = String::with_capacity(mapped.len());
    for c in mapped.chars() {
        let last = out.chars().last();
        let is_sep = |c: char| matches!(c, '_' | '-');
        if is_sep(c) && last.is_some_and(is_sep) {
            continue;
        }
        // A `_` before the extension's dot goes too (`ticket_.log`).
        if c == '.' && last.is_some_and(is_sep) {
            out.pop();
        }
        out.push(c);
    }
    while out.contains("..") {
        out = out.replace("..", "_");
    }
    let trimmed = out.trim_matches(|c| matches!(c, '_' | '-'));
    let mut cut = trimmed.to_owned();
    if cut.len() > NAME_MAX {
        cut.truncate(NAME_MAX);
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn name(template: &str, pairs: &[(&str, &str)]) -> String {
        let labels = labels(pairs);
        log_file_name(
            template,
            &NameParts {
                labels: &labels,
                run_id: "r20260501T120000-0badf00d",
                started: "2026-05-01T12:00:00.5Z".parse().unwrap(),
                provider: Some("claude"),
            },
        )
    }

    #[test]
    fn the_seed_template_names_the_ticket_workflow_and_time() {
        let t = "{label:ticket}_{label:workflow}_{ts}.log";
        assert_eq!(
            name(t, &[("ticket", "T-42"), ("workflow", "review")]),
            "T-42_review_20260501T120000Z.log"
        );
        // A missing label is dropped with its separator.
        assert_eq!(name(t, &[("ticket", "T-42")]), "T-42_20260501T120000Z.log");
        assert_eq!(name(t, &[]), "20260501T120000Z.log");
    }

    #[test]
    fn the_default_holds_every_label_the_time_and_the_run() {
        assert_eq!(
            name(DEFAULT_LOG_NAME, &[("chat", "42"), ("ticket", "T-1")]),
            "42_T-1_20260501T120000Z_r20260501T120000-0badf00d.log"
        );
        assert_eq!(
            name(DEFAULT_LOG_NAME, &[]),
            "20260501T120000Z_r20260501T120000-0badf00d.log"
        );
        assert_eq!(
            name("{provider}-{run}", &[]),
            "claude-r20260501T120000-0badf00d"
        );
    }

    #[test]
    fn names_never_leave_their_folder() {
        let evil = name("{label:t}.log", &[("t", "../../etc/passwd")]);
        assert!(!evil.contains('/') && !evil.contains(".."), "{evil}");
        assert_eq!(evil, "etc_passwd.log");
        assert!(!name("{label:t}", &[("t", "..")]).contains(".."));
        assert!(!name("..", &[]).starts_with('.'));
        assert_eq!(name("a b/c\u{e9}.log", &[]), "a_b_c.log");
        assert!(name(&"x".repeat(500), &[]).len() <= 200);
        // An unknown field stays (made safe), never expands.
        assert_eq!(name("{nope}.log", &[]), "nope.log");
    }
}
