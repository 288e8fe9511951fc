//! What differs between the versions of a real CLI that the tests know.
//! The tests run against the pinned CLIs (`clis/`) or against any other
//! install (`scripts/cli-matrix.sh`): where a CLI's own behaviour changed
//! between releases, the test asks the installed version what to expect,
//! here, rather than failing the older or the newer one.

use std::path::Path;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::support::cli_program;

/// A version as `(major, minor, patch)`.
pub type Version = (u64, u64, u64);

/// `(major, minor, patch)` of `22`, `22.1`, `v22.1.3`, `0.24.4-nightly`.
pub fn parse_version(text: &str) -> Version {
    let core = text
        .trim()
        .trim_start_matches('v')
        .split(['-', '+'])
        .next()
        .unwrap_or_default();
    let mut parts = core.split('.').map(|p| {
        p.parse::<u64>()
            .unwrap_or_else(|_| panic!("not a version: {text:?}"))
    });
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// The `package.json` of the package that holds `file`: the nearest one
/// above it.
pub fn owning_package(file: &Path) -> Value {
    let mut dir = file.parent();
    while let Some(d) = dir {
        let candidate = d.join("package.json");
        if candidate.is_file() {
            return serde_json::from_str(&std::fs::read_to_string(&candidate).unwrap()).unwrap();
        }
        dir = d.parent();
    }
    panic!("no package.json above {}", file.display())
}

/// The version of the real `cli` the tests drive, from the package.json of
/// the package its executable belongs to.
pub fn cli_version(cli: Cli) -> Version {
    let program = cli_program(cli).canonicalize().unwrap();
    let package = owning_package(&program);
    parse_version(
        package["version"]
            .as_str()
            .unwrap_or_else(|| panic!("{cli}: no version in its package.json")),
    )
}

/// What Qwen Code exits with when its model API fails. Up to 0.2x it exits
/// 0 and only its answer tells (`[API Error: ...]`, a `result` with
/// `is_error: false`); 0.24.4 exits 1 with a `result` of subtype
/// `error_during_execution`, `is_error: true` (QwenLM/qwen-code#8920,
/// #8925). 0.15.10 and 0.24.4 were run; the releases between are not known.
pub fn qwen_api_error_exit() -> i32 {
    if cli_version(Cli::Qwen) >= (0, 24, 0) {
        1
    } else {
        0
    }
}

/// Whether Qwen Code ends its turn when a permission is refused, without
/// asking the model again (0.24.4: its ACP agent stops after a cancelled
/// permission; 0.15.10 sent the refusal back to the model).
pub fn qwen_stops_at_a_refusal() -> bool {
    cli_version(Cli::Qwen) >= (0, 24, 0)
}

/// Whether Qwen Code asks the model again after a broken stream (0.24.4:
/// `system/retry` lines, "Retrying provider attempt" on stderr, two more
/// requests before it reports the break; 0.15.10 reported it at once).
/// Such a retry names no cause, so `--max-provider-retries 0` stops Qwen
/// at the first one as a `provider_error`.
pub fn qwen_retries_a_broken_stream() -> bool {
    cli_version(Cli::Qwen) >= (0, 24, 0)
}

/// How many model requests Qwen Code makes when the API says the context
/// is too long: 0.15.10 compressed the conversation and tried once more
/// (two); 0.24.4 reports the error after the first.
pub fn qwen_requests_at_a_context_overflow() -> usize {
    if cli_version(Cli::Qwen) >= (0, 24, 0) {
        1
    } else {
        2
    }
}

#[test]
fn versions_parse_by_number() {
    assert_eq!(parse_version("v22.23.3"), (22, 23, 3));
    assert_eq!(parse_version("0.24.4-nightly.1"), (0, 24, 4));
    assert_eq!(parse_version("22"), (22, 0, 0));
    assert!(parse_version("0.24.0") > parse_version("0.15.10"));
}
