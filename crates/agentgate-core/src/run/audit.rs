//! The audit line: one logfmt line per run, for ops people's logs.

use agentgate_protocol::Envelope;

/// The run as one logfmt line: run id, chain, agent, provider, model, exit
/// code, elapsed seconds, tokens, cost, error type and attempts. An unknown
/// value is `-`; a value with spaces or quotes is quoted.
///
/// `agentgate run=r20261122T101500-1a2b3c4d chain=- agent=triage provider=gemini
/// model=gemini-2.5-flash exit=0 elapsed=3.42s tokens_in=120 tokens_out=45
/// cost_usd=0.0012 error=- attempts=3`
pub fn audit_line(envelope: &Envelope, exit_code: i32) -> String {
    let opt = |v: Option<&str>| v.filter(|s| !s.is_empty()).unwrap_or("-").to_owned();
    let t = &envelope.tokens_used;
    let fields = [
        ("run", envelope.run_id.clone()),
        ("chain", opt(envelope.chain.as_deref())),
        ("agent", opt(envelope.agent.as_deref())),
        ("provider", opt(envelope.provider.as_deref())),
        ("model", opt(envelope.model.as_deref())),
        ("exit", exit_code.to_string()),
        (
            "elapsed",
            format!("{:.2}s", envelope.duration_ms as f64 / 1000.0),
        ),
        ("tokens_in", t.input_tokens.to_string()),
        ("tokens_out", t.output_tokens.to_string()),
        (
            "cost_usd",
            t.cost_usd
                .map_or_else(|| "-".to_owned(), |c| format!("{c:.4}")),
        ),
        (
            "error",
            envelope
                .error_type
                .map_or_else(|| "-".to_owned(), |k| k.to_string()),
        ),
        ("attempts", envelope.attempts.len().to_string()),
    ];
    let mut out = String::from("agentgate");
    for (k, v) in fields {
        out.push(' ');
        out.push_str(k);
        out.push('=');
        out.push_str(&quote(&v));
    }
    out
}

/// Append the audit line to `path` (`$AGENTGATE_HOME/audit.log`, next to
/// the database). On Unix the file is private to the user (mode 600, an
/// existing file's group and others' permissions taken away). A failure
/// is returned for the caller to warn about: it never costs the run.
pub fn append_audit(path: &std::path::Path, line: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = f.metadata()?.permissions().mode();
        if mode & 0o077 != 0 {
            f.set_permissions(std::fs::Permissions::from_mode(mode & 0o700))?;
        }
    }
    writeln!(f, "{line}")
}

fn quote(v: &str) -> String {
    if !v.is_empty()
        && !v
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '=' || c.is_control())
    {
        return v.to_owned();
    }
    let mut q = String::from("\"");
    for c in v.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            c if c.is_control() => q.push(' '),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests {
    use agentgate_protocol::{Attempt, ErrorKind};

    use super::*;

    #[test]
    fn lines_are_appended() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.log");
        append_audit(&log, "agentgate run=r1").unwrap();
        append_audit(&log, "agentgate run=r2").unwrap();
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "agentgate run=r1\nagentgate run=r2\n"
        );
        assert!(append_audit(&dir.path().join("no/such/dir/audit.log"), "x").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn the_log_is_private_whatever_it_was() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.log");
        append_audit(&log, "agentgate run=r1").unwrap();
        assert_eq!(mode(&log), 0o600);
        std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
        append_audit(&log, "agentgate run=r2").unwrap();
        assert_eq!(mode(&log), 0o600);
    }

    #[test]
    fn the_line_has_every_field_and_quotes_what_needs_it() {
        let mut e = Envelope::new("r1");
        e.agent = Some("triage bot".into());
        e.provider = Some("gemini".into());
        e.model = Some("gemini-2.5-flash".into());
        e.duration_ms = 3421;
        e.tokens_used.input_tokens = 120;
        e.tokens_used.output_tokens = 45;
        e.tokens_used.cost_usd = Some(0.00123);
        e.attempts = vec![Attempt::default(); 3];
        assert_eq!(
            audit_line(&e, 0),
            "agentgate run=r1 chain=- agent=\"triage bot\" provider=gemini model=gemini-2.5-flash \
             exit=0 elapsed=3.42s tokens_in=120 tokens_out=45 cost_usd=0.0012 error=- attempts=3"
        );
        e.error_type = Some(ErrorKind::RateLimit);
        e.tokens_used.cost_usd = None;
        e.chain = Some("nightly".into());
        let line = audit_line(&e, 75);
        assert!(line.contains(" chain=nightly "), "{line}");
        assert!(line.contains(" exit=75 "), "{line}");
        assert!(line.contains(" cost_usd=- error=rate_limit "), "{line}");
    }
}
