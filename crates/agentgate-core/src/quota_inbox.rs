//! `quota_inbox:`: each quota error also written as a JSON file to a
//! folder, for orchestrators that read files rather than the store (the
//! shell wrappers' system-message inbox, whose files they globbed as
//! `*-claude-usage-limit.json`).
//!
//! A file is named `<time>-<run id>-<provider>-usage-limit.json` (time as
//! `20260312T153000Z`, so the names sort by time and two runs never share
//! one), written atomically and mode 600. agentgate only writes them: the
//! reader removes what it has handled.

use std::path::{Path, PathBuf};

use agentgate_protocol::ErrorInfo;
use jiff::Timestamp;
use serde::Serialize;

use crate::private_file::write_private_atomically;

/// One quota error, as the inbox file holds it.
#[derive(Debug, Serialize)]
pub struct QuotaMessage<'a> {
    /// Always `quota_exhausted`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// When the error was seen (RFC 3339, UTC).
    pub timestamp: String,
    /// The provider whose quota ran out.
    pub provider: &'a str,
    /// The quota key (`provider`, or `provider@account`).
    pub quota_key: &'a str,
    /// The agent the attempt ran, if named.
    pub agent: Option<&'a str>,
    /// The run that met the error.
    pub run_id: &'a str,
    /// Always `high`: the provider is skipped until `reset_at`.
    pub severity: &'static str,
    /// The error's message (redacted like the run's events).
    pub message: &'a str,
    /// When the quota resets (RFC 3339), when the provider said.
    pub reset_at: Option<&'a str>,
    /// Seconds to wait before retrying, when the provider said.
    pub retry_after_s: Option<u64>,
    /// When to retry, as a time: `reset_at`, else now plus
    /// `retry_after_s`; `null` when neither is known.
    pub retry_time: Option<String>,
}

/// Where the message about `error` goes in `dir`.
pub fn file_path(dir: &Path, now: Timestamp, run_id: &str, provider: &str) -> PathBuf {
    let time = now.strftime("%Y%m%dT%H%M%SZ");
    dir.join(format!("{time}-{run_id}-{provider}-usage-limit.json"))
}

/// Write `message` to `dir` (created, mode 700, if missing); returns the
/// file written.
pub fn write(dir: &Path, message: &QuotaMessage<'_>, now: Timestamp) -> std::io::Result<PathBuf> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    let path = file_path(dir, now, message.run_id, message.provider);
    let mut bytes = serde_json::to_vec_pretty(message).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    write_private_atomically(&path, &bytes)?;
    Ok(path)
}

/// The message for a quota `error` met by `run_id` on `provider`.
pub fn message<'a>(
    error: &'a ErrorInfo,
    provider: &'a str,
    quota_key: &'a str,
    agent: Option<&'a str>,
    run_id: &'a str,
    now: Timestamp,
) -> QuotaMessage<'a> {
    let retry_time = error.reset_at.clone().or_else(|| {
        let secs = i64::try_from(error.retry_after_s?).ok()?;
        now.checked_add(jiff::SignedDuration::from_secs(secs))
            .ok()
            .map(|t| t.to_string())
    });
    QuotaMessage {
        kind: "quota_exhausted",
        timestamp: now.to_string(),
        provider,
        quota_key,
        agent,
        run_id,
        severity: "high",
        message: &error.message,
        reset_at: error.reset_at.as_deref(),
        retry_after_s: error.retry_after_s,
        retry_time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentgate_protocol::{ErrorKind, ErrorSource};

    #[test]
    fn a_quota_error_becomes_a_private_json_file_named_for_globbing() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = dir.path().join("inbox");
        let now: Timestamp = "2026-03-12T15:00:00Z".parse().unwrap();
        let mut error = ErrorInfo::new(ErrorKind::Quota, ErrorSource::Structured, "usage limit");
        error.retry_after_s = Some(1800);
        let msg = message(&error, "claude", "claude@work", Some("a1"), "r-1", now);
        let path = write(&inbox, &msg, now).unwrap();
        assert_eq!(
            path.file_name().unwrap().to_str().unwrap(),
            "20260312T150000Z-r-1-claude-usage-limit.json"
        );
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(v["type"], "quota_exhausted");
        assert_eq!(v["provider"], "claude");
        assert_eq!(v["quota_key"], "claude@work");
        assert_eq!(v["run_id"], "r-1");
        assert_eq!(v["severity"], "high");
        assert_eq!(v["retry_time"], "2026-03-12T15:30:00Z");
        assert_eq!(v["reset_at"], serde_json::Value::Null);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn the_reset_time_is_the_retry_time_when_known() {
        let now: Timestamp = "2026-03-12T15:00:00Z".parse().unwrap();
        let mut error = ErrorInfo::new(ErrorKind::Quota, ErrorSource::Structured, "limit");
        error.reset_at = Some("2026-03-12T18:00:00Z".into());
        error.retry_after_s = Some(60);
        let msg = message(&error, "codex", "codex", None, "r-2", now);
        assert_eq!(msg.retry_time.as_deref(), Some("2026-03-12T18:00:00Z"));
    }
}
