//! What the binary logs, and where. Logs are `tracing` events written to
//! stderr, never to stdout (which carries the JSON a caller parses).
//!
//! How much, first that applies:
//!
//! 1. `-q`/`--quiet`: errors only (and [`crate::output::note!`] prints
//!    nothing: no warnings, notes, progress or audit line);
//! 2. `-v`, `-vv`, `-vvv`: agentgate's own events from `info`, `debug`,
//!    `trace` on (other libraries stay at `warn`);
//! 3. the `AGENTGATE_LOG` variable: `tracing` EnvFilter directives
//!    (`info`, `agentgate_server=debug,sqlx=info`, ...); an invalid value is
//!    said once and the default is used;
//! 4. the default: warnings and errors.
//!
//! A flag wins over the variable: with `-v` or `-q`, `AGENTGATE_LOG` is
//! not read.

use std::io::IsTerminal as _;

use tracing_subscriber::EnvFilter;

use crate::output::note;

/// The variable of the log filter.
const LOG_ENV: &str = "AGENTGATE_LOG";

/// Every crate of agentgate logs under a target starting with this (an
/// EnvFilter target matches by prefix).
const OWN_TARGET: &str = "agentgate";

/// Start logging to stderr at the level `verbose` (`-v` count) and
/// `quiet` (`-q`) say, else `AGENTGATE_LOG`, else warnings.
pub fn init(verbose: u8, quiet: bool) {
    let (filter, from) = filter(verbose, quiet, std::env::var(LOG_ENV).ok().as_deref());
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .init();
    match from {
        Source::Invalid(why) => {
            note!("agentgate: {LOG_ENV} is not a log filter ({why}): logging warnings and errors")
        }
        source => tracing::debug!(from = source.as_str(), "logging"),
    }
}

/// Where the filter came from.
#[derive(Debug, PartialEq, Eq)]
enum Source {
    Flag,
    Env,
    Default,
    /// `AGENTGATE_LOG` did not parse: why.
    Invalid(String),
}

impl Source {
    fn as_str(&self) -> &'static str {
        match self {
            Source::Flag => "flag",
            Source::Env => "AGENTGATE_LOG",
            Source::Default | Source::Invalid(_) => "default",
        }
    }
}

/// The filter of `-v` × `verbose`, `-q`, and the variable's value `env`.
fn filter(verbose: u8, quiet: bool, env: Option<&str>) -> (EnvFilter, Source) {
    let own = |level: &str| EnvFilter::new(format!("warn,{OWN_TARGET}={level}"));
    match (quiet, verbose) {
        (true, _) => return (EnvFilter::new("error"), Source::Flag),
        (false, 1) => return (own("info"), Source::Flag),
        (false, 2) => return (own("debug"), Source::Flag),
        (false, 3..) => return (own("trace"), Source::Flag),
        (false, 0) => {}
    }
    match env.map(str::trim).filter(|v| !v.is_empty()) {
        None => (EnvFilter::new("warn"), Source::Default),
        Some(v) => match EnvFilter::try_new(v) {
            Ok(f) => (f, Source::Env),
            Err(e) => (EnvFilter::new("warn"), Source::Invalid(e.to_string())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_wins_over_the_variable_which_wins_over_the_default() {
        let shown = |verbose, quiet, env| {
            let (f, source) = filter(verbose, quiet, env);
            (f.to_string(), source)
        };
        assert_eq!(shown(0, false, None), ("warn".into(), Source::Default));
        assert_eq!(
            shown(0, false, Some("agentgate_server=debug")),
            ("agentgate_server=debug".into(), Source::Env)
        );
        assert_eq!(
            shown(1, false, Some("trace")),
            ("agentgate=info,warn".into(), Source::Flag)
        );
        assert_eq!(shown(2, false, None).0, "agentgate=debug,warn");
        assert_eq!(shown(5, false, None).0, "agentgate=trace,warn");
        assert_eq!(
            shown(0, true, Some("trace")),
            ("error".into(), Source::Flag)
        );
        let (f, source) = shown(0, false, Some("agentgate=loud"));
        assert_eq!(f, "warn");
        assert!(matches!(source, Source::Invalid(_)), "{source:?}");
        assert_eq!(shown(0, false, Some("  ")).1, Source::Default);
    }
}
