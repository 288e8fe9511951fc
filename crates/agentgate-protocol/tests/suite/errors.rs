use agentgate_protocol::{
    EXIT_ALL_RECOVERABLE, EXIT_CANCELLED, EXIT_FAILURE, EXIT_SUCCESS, EXIT_TIMEOUT, EXIT_USAGE,
    ErrorInfo, ErrorKind, ErrorSource, exit_code_for,
};
use serde_json::json;

/// The taxonomy: wire name and recoverable default of every kind. Changing a
/// row changes the contract.
const TABLE: &[(ErrorKind, &str, bool)] = &[
    (ErrorKind::Timeout, "timeout", true),
    (ErrorKind::IdleTimeout, "idle_timeout", true),
    (ErrorKind::Quota, "quota", true),
    (ErrorKind::RateLimit, "rate_limit", true),
    (ErrorKind::Overloaded, "overloaded", true),
    (ErrorKind::InvalidModel, "invalid_model", true),
    (ErrorKind::InvalidSession, "invalid_session", false),
    (ErrorKind::InvalidInput, "invalid_input", false),
    (ErrorKind::Auth, "auth", false),
    (
        ErrorKind::CredentialUnavailable,
        "credential_unavailable",
        true,
    ),
    (ErrorKind::Network, "network", true),
    (ErrorKind::ContextOverflow, "context_overflow", false),
    (ErrorKind::InvalidOutput, "invalid_output", true),
    (ErrorKind::UserInputRequested, "user_input_requested", true),
    (ErrorKind::Cancelled, "cancelled", false),
    (ErrorKind::ProviderError, "provider_error", true),
    (ErrorKind::SessionBusy, "session_busy", true),
    (ErrorKind::ToolError, "tool_error", false),
    (ErrorKind::Policy, "policy", false),
    (ErrorKind::MaxTurns, "max_turns", false),
    (ErrorKind::Budget, "budget", false),
    (ErrorKind::Unknown, "unknown", false),
];

#[test]
fn recoverable_defaults_are_pinned() {
    assert_eq!(TABLE.len(), ErrorKind::ALL.len());
    for (kind, (expected, _, recoverable)) in ErrorKind::ALL.into_iter().zip(TABLE) {
        assert_eq!(kind, *expected, "ErrorKind::ALL is out of order");
        assert_eq!(kind.recoverable(), *recoverable, "recoverable({kind})");
    }
}

#[test]
fn wire_names_are_pinned_and_parse_back() {
    for (kind, name, _) in TABLE {
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(name));
        assert_eq!(
            serde_json::from_value::<ErrorKind>(json!(name)).unwrap(),
            *kind
        );
        assert_eq!(kind.as_str(), *name);
        assert_eq!(kind.to_string(), *name);
        assert_eq!(name.parse::<ErrorKind>().unwrap(), *kind);
    }
    let err = "quota_exceeded".parse::<ErrorKind>().unwrap_err();
    assert_eq!(err.to_string(), "unknown error kind `quota_exceeded`");
}

#[test]
fn error_info_wire_shape() {
    let minimal = ErrorInfo::new(ErrorKind::Auth, ErrorSource::Structured, "Invalid API key");
    assert_eq!(
        serde_json::to_value(&minimal).unwrap(),
        json!({
            "kind": "auth",
            "message": "Invalid API key",
            "recoverable": false,
            "source": "structured",
        })
    );

    let full = ErrorInfo {
        exit_code: Some(1),
        retry_after_s: Some(30),
        reset_at: Some("2026-05-01T15:28:00Z".to_owned()),
        provider_status: Some(429),
        ..ErrorInfo::new(ErrorKind::RateLimit, ErrorSource::ExitStatus, "slow down")
    };
    let value = serde_json::to_value(&full).unwrap();
    assert_eq!(
        value,
        json!({
            "kind": "rate_limit",
            "message": "slow down",
            "recoverable": true,
            "exit_code": 1,
            "retry_after_s": 30,
            "reset_at": "2026-05-01T15:28:00Z",
            "provider_status": 429,
            "source": "exit_status",
        })
    );
    assert_eq!(serde_json::from_value::<ErrorInfo>(value).unwrap(), full);
}

#[test]
fn error_sources_wire_names() {
    let names: Vec<_> = [
        ErrorSource::Structured,
        ErrorSource::ExitStatus,
        ErrorSource::Pattern,
        ErrorSource::Internal,
    ]
    .iter()
    .map(|source| serde_json::to_value(source).unwrap())
    .collect();
    assert_eq!(
        names,
        [
            json!("structured"),
            json!("exit_status"),
            json!("pattern"),
            json!("internal")
        ]
    );
}

#[test]
fn exit_codes() {
    assert_eq!(
        [
            EXIT_SUCCESS,
            EXIT_FAILURE,
            EXIT_USAGE,
            EXIT_ALL_RECOVERABLE,
            EXIT_TIMEOUT,
            EXIT_CANCELLED
        ],
        [0, 1, 2, 75, 124, 130]
    );
    assert_eq!(exit_code_for(None, false), 0);
    assert_eq!(exit_code_for(None, true), 0);
    assert_eq!(exit_code_for(Some(ErrorKind::InvalidInput), false), 2);
    assert_eq!(exit_code_for(Some(ErrorKind::Policy), true), 2);
    assert_eq!(exit_code_for(Some(ErrorKind::ToolError), true), 75);
    assert_eq!(exit_code_for(Some(ErrorKind::Cancelled), false), 130);
    // Timeouts are recoverable, but the timeout code wins.
    assert_eq!(exit_code_for(Some(ErrorKind::Timeout), true), 124);
    assert_eq!(exit_code_for(Some(ErrorKind::IdleTimeout), false), 124);
    assert_eq!(exit_code_for(Some(ErrorKind::Quota), true), 75);
    // Quota on the last agent, but an earlier one failed for good.
    assert_eq!(exit_code_for(Some(ErrorKind::Quota), false), 1);
    assert_eq!(exit_code_for(Some(ErrorKind::Auth), false), 1);
    assert_eq!(exit_code_for(Some(ErrorKind::Unknown), false), 1);
}
