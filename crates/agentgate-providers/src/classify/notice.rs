//! Retry notices: the lines in which a CLI says it will retry a failed
//! model request. The run loop counts them to stop a CLI that would keep
//! retrying for minutes when the caller asked to fail fast.

use serde_json::Value;

use super::pattern::compiled;
use super::status::status_in_text;
use super::table::NoticePattern;
use super::table::ProviderTable;

/// One retry a CLI announced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RetryNotice {
    /// Which attempt failed (1-based), when the CLI said.
    pub attempt: Option<u32>,
    /// How many retries or attempts the CLI allows, when it said.
    pub max: Option<u32>,
    /// The HTTP status of the failed request, when the CLI said.
    pub http_status: Option<u16>,
    /// How long the CLI waits before the retry, when it said.
    pub delay_ms: Option<u64>,
}

/// The retry that `line` (one line of the stdout or stderr of the CLI
/// whose table is `table`) announces, if it is a retry notice. A final
/// failure ("Max attempts reached", "exceeded retry limit") is not a notice.
pub fn is_retry_notice(table: &ProviderTable, line: &str) -> Option<RetryNotice> {
    table
        .retry_notices
        .iter()
        .find_map(|pattern| match_notice(pattern, line))
}

fn match_notice(pattern: &NoticePattern, line: &str) -> Option<RetryNotice> {
    match pattern {
        NoticePattern::Text(p) => {
            let c = compiled(p)?.captures(line)?;
            let number = |name: &str| c.name(name).and_then(|m| m.as_str().parse::<u64>().ok());
            let delay_ms = number("delay_ms").or_else(|| number("delay_s").map(|s| s * 1000));
            Some(RetryNotice {
                attempt: number("attempt").and_then(|n| u32::try_from(n).ok()),
                max: number("max").and_then(|n| u32::try_from(n).ok()),
                http_status: number("status")
                    .and_then(|n| u16::try_from(n).ok())
                    .or_else(|| status_in_text(line)),
                delay_ms,
            })
        }
        NoticePattern::Json {
            equals,
            attempt,
            max,
            status,
            delay_ms,
        } => {
            let trimmed = line.trim_start();
            if !trimmed.starts_with('{') {
                return None;
            }
            let value: Value = serde_json::from_str(trimmed).ok()?;
            if !equals
                .iter()
                .all(|(k, v)| value.get(k).and_then(Value::as_str) == Some(*v))
            {
                return None;
            }
            let number = |key: &str| {
                let v = value.get(key)?;
                v.as_u64().or_else(|| {
                    // Claude writes fractional delays (1177.74...).
                    v.as_f64()
                        .filter(|f| f.is_finite() && *f >= 0.0 && *f < 1e15)
                        .map(|f| {
                            #[expect(
                                clippy::cast_possible_truncation,
                                clippy::cast_sign_loss,
                                reason = "finite, non-negative and bounded"
                            )]
                            let ms = f.round() as u64;
                            ms
                        })
                })
            };
            Some(RetryNotice {
                attempt: number(attempt).and_then(|n| u32::try_from(n).ok()),
                max: number(max).and_then(|n| u32::try_from(n).ok()),
                http_status: number(status).and_then(|n| u16::try_from(n).ok()),
                delay_ms: number(delay_ms),
            })
        }
    }
}
