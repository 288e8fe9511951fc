//! Sample values shared by the tests: at least one of every event type.

use agentgate_protocol::{
    ActivityClass, Attempt, CancelReason, CancelledEvent, Envelope, ErrorInfo, ErrorKind,
    ErrorSource, Event, EventBody, HeartbeatEvent, LogEvent, LogLevel, MessageEvent, Metadata,
    ProgressMessage, RateLimitEvent, RateLimitStatus, RawEvent, RawStream, ReasoningAbsentReason,
    ReasoningSource, ResultEvent, SessionEvent, StartEvent, StatusEvent, TextDeltaEvent,
    ThinkingEvent, TokensUsed, ToolActivity, ToolClass, ToolMessage, ToolMessageBody,
    ToolMessageEvent, ToolResultEvent, ToolUseEvent, Usage, UsageEvent, UsageScope,
};
use agentgate_protocol::{ApprovalDecisionEvent, ApprovalRequestEvent, DecidedBy};
use agentgate_protocol::{
    StepOutcome, StepStatus, TaskDoneEvent, TaskErrorEvent, TaskProgressEvent, TaskStartedEvent,
    TaskSubmittedEvent, WorkflowState, WorkflowStateEvent,
};
use serde_json::json;

pub const RUN_ID: &str = "run_01";
pub const TS: &str = "2026-05-01T12:00:00.123Z";

/// A usage record with every field set.
pub fn usage() -> Usage {
    Usage {
        input_tokens: 1200,
        output_tokens: 450,
        cache_read_input_tokens: 800,
        cache_creation_input_tokens: 100,
        // Shown in its own test (absent from the JSON when 0).
        cache_creation_1h_input_tokens: 0,
        reasoning_tokens: 120,
        total_tokens: 1650,
        cost_usd: Some(0.012),
        context_tokens: Some(1650),
        estimated: false,
    }
}

/// A successful run of one attempt that used tools.
pub fn success_envelope() -> Envelope {
    let usage = usage();
    let response = "Done: added the test.";
    Envelope {
        response: response.to_owned(),
        session_id: Some("sess-1".to_owned()),
        reasoning: "Look at the file first.".to_owned(),
        tokens_used: TokensUsed::from_usage(&usage, response),
        metadata: Metadata {
            token_usage_available: true,
            reasoning_available: true,
            reasoning_source: ReasoningSource::RawOutput,
            reasoning_absent_reason: ReasoningAbsentReason::Available,
            usage_source: None,
            tool_activity: Some(ToolActivity {
                call_count: 2,
                write_count: 1,
                error_count: 0,
                tool_names: vec!["Read".to_owned(), "Edit".to_owned()],
                result_classes: vec![ToolClass::Read, ToolClass::Write],
                activity_class: ActivityClass::from_counts(2, 1, 0),
                source: "stream:claude".to_owned(),
            }),
        },
        model_resolution: None,
        run_id: RUN_ID.to_owned(),
        provider: Some("claude".to_owned()),
        model: Some("claude-sonnet-4-5".to_owned()),
        duration_ms: 4200,
        attempts: vec![Attempt {
            provider: "claude".to_owned(),
            model: Some("claude-sonnet-4-5".to_owned()),
            agent: Some("main".to_owned()),
            session_id: Some("sess-1".to_owned()),
            duration_ms: 4100,
            exit_code: Some(0),
            ..Attempt::default()
        }],
        reasoning_tokens: usage.reasoning_tokens,
        context_tokens: usage.context_tokens,
        ..Envelope::default()
    }
}

/// The error that ended [`failure_envelope`].
pub fn quota_error() -> ErrorInfo {
    ErrorInfo {
        exit_code: Some(1),
        reset_at: Some("2026-05-01T15:28:00Z".to_owned()),
        provider_status: Some(429),
        ..ErrorInfo::new(
            ErrorKind::Quota,
            ErrorSource::Pattern,
            "You've hit your usage limit. Try again at 3:28 PM.",
        )
    }
}

/// A run whose only attempt hit its quota.
pub fn failure_envelope() -> Envelope {
    let error = quota_error();
    let envelope = Envelope {
        provider: Some("codex".to_owned()),
        duration_ms: 900,
        attempts: vec![Attempt {
            provider: "codex".to_owned(),
            duration_ms: 850,
            exit_code: error.exit_code,
            error_type: Some(error.kind),
            error: Some(error.message.clone()),
            recoverable: Some(error.recoverable),
            reset_at: error.reset_at.clone(),
            ..Attempt::default()
        }],
        stderr_tail: Some("Reading additional input from stdin...".to_owned()),
        ..Envelope::new(RUN_ID)
    };
    envelope.with_error(&error, 75)
}

/// At least one body of every event type, each `status` kind, and a `raw`
/// line that is not UTF-8.
pub fn bodies() -> Vec<EventBody> {
    vec![
        EventBody::Start(StartEvent {
            agent: Some("main".to_owned()),
            model: Some("sonnet".to_owned()),
            resume_session_id: None,
            cwd: Some("/work/repo".to_owned()),
            tool: None,
            args: None,
        }),
        EventBody::Start(StartEvent {
            tool: Some("scanner".to_owned()),
            args: Some(vec!["--input".to_owned(), "data.json".to_owned()]),
            cwd: Some("/work/repo".to_owned()),
            ..StartEvent::default()
        }),
        EventBody::Session(SessionEvent {
            session_id: "sess-1".to_owned(),
            model: Some("claude-sonnet-4-5".to_owned()),
        }),
        EventBody::TextDelta(TextDeltaEvent {
            text: "Hel".to_owned(),
        }),
        EventBody::Message(MessageEvent {
            text: "Hello.".to_owned(),
        }),
        EventBody::Thinking(ThinkingEvent {
            text: "The user greets me.".to_owned(),
        }),
        EventBody::ToolUse(ToolUseEvent {
            id: "toolu_1".to_owned(),
            name: "Bash".to_owned(),
            class: ToolClass::Shell,
            input: json!({"command": "ls -la", "timeout": 5000}),
        }),
        EventBody::ToolResult(ToolResultEvent::new(
            "toolu_1",
            true,
            "a\nb\n",
            1024,
            Some(0),
        )),
        EventBody::ToolResult(ToolResultEvent::new(
            "toolu_2",
            false,
            "x".repeat(100).as_str(),
            10,
            None,
        )),
        EventBody::Usage(UsageEvent {
            scope: UsageScope::Total,
            usage: usage(),
        }),
        EventBody::RateLimit(RateLimitEvent {
            status: RateLimitStatus::Warning,
            resets_at: Some("2026-05-01T17:00:00Z".to_owned()),
            window: Some("five_hour".to_owned()),
            utilization: Some(0.91),
        }),
        EventBody::ModelCall(agentgate_protocol::ModelCallEvent {
            call: 1,
            api: agentgate_protocol::WireApi::AnthropicMessages,
            model: Some("claude-sonnet-4-5".to_owned()),
            path: "/v1/messages".to_owned(),
            stream: true,
            status: Some(200),
            request_bytes: 2048,
            response_bytes: 4096,
            latency_ms: 1830,
            ttft_ms: Some(412),
            usage: Some(usage()),
            cache_write_5m_tokens: Some(0),
            cache_write_1h_tokens: Some(40),
            rate_limits: vec![agentgate_protocol::RateLimitWindow {
                name: "5h".to_owned(),
                limit: None,
                remaining: None,
                utilization: Some(0.42),
                resets_at: Some("2026-05-01T17:00:00Z".to_owned()),
                status: Some("allowed".to_owned()),
            }],
            retry_after_s: None,
            error: None,
            refused_by: None,
        }),
        EventBody::Status(StatusEvent::Retry {
            retry_attempt: Some(2),
            max_retries: Some(10),
            delay_ms: Some(1200),
            provider_status: Some(529),
            detail: Some("overloaded_error".to_owned()),
        }),
        EventBody::Status(StatusEvent::Compaction {
            tokens_before: Some(180_000),
            detail: None,
        }),
        EventBody::Status(StatusEvent::Notice {
            detail: "Reading additional input from stdin...".to_owned(),
        }),
        EventBody::Heartbeat(HeartbeatEvent {
            elapsed_ms: 30_000,
            idle_ms: 15_000,
        }),
        EventBody::Log(LogEvent {
            level: LogLevel::Warn,
            message: "failing over to codex".to_owned(),
        }),
        EventBody::Raw(RawEvent::from_bytes(RawStream::Stdout, b"not json")),
        EventBody::Raw(RawEvent::from_bytes(
            RawStream::Stderr,
            b"bad \xff\xfe bytes",
        )),
        EventBody::Raw(RawEvent::cut(
            RawStream::Stdout,
            b"{\"type\":\"assis",
            41_943_040,
        )),
        EventBody::Error(quota_error()),
        EventBody::Cancelled(CancelledEvent {
            reason: CancelReason::Signal,
            signal: Some("SIGINT".to_owned()),
        }),
        EventBody::Result(ResultEvent {
            envelope: Box::new(success_envelope()),
        }),
        EventBody::Result(ResultEvent {
            envelope: Box::new(failure_envelope()),
        }),
        EventBody::ToolMessage(ToolMessageEvent {
            message: ToolMessage {
                ts: Some(TS.to_owned()),
                run_id: Some(RUN_ID.to_owned()),
                ..ToolMessage::new(ToolMessageBody::Progress(ProgressMessage {
                    step: Some("scan".to_owned()),
                    pct: serde_json::Number::from_f64(37.5),
                    msg: Some("shard 3/8".to_owned()),
                    extra: serde_json::Map::new(),
                }))
            },
        }),
        EventBody::WorkflowState(WorkflowStateEvent {
            state: WorkflowState::Running,
            name: Some("triage".to_owned()),
            execution: Some(1),
            definition: Some(json!({"version": 1, "name": "triage", "steps": []})),
            input: Some(json!({"files": 3})),
            base_dir: Some("/work/flows".to_owned()),
            step: None,
            reason: None,
        }),
        EventBody::TaskSubmitted(TaskSubmittedEvent {
            task_id: "scan".to_owned(),
            kind: "tool".to_owned(),
            group: None,
            payload: Some(json!({"tool": "scanner", "args": ["--input", "data.json"]})),
        }),
        EventBody::TaskStarted(TaskStartedEvent {
            task_id: "scan".to_owned(),
            step_attempt: 1,
            child_run_id: Some("run_02".to_owned()),
            child_kind: Some("tool".to_owned()),
            resumed_from: None,
        }),
        EventBody::TaskProgress(TaskProgressEvent {
            task_id: "scan".to_owned(),
            child_run_id: "run_02".to_owned(),
            event: Box::new(Event::new(
                "run_02",
                4,
                TS,
                EventBody::Heartbeat(HeartbeatEvent {
                    elapsed_ms: 30_000,
                    idle_ms: 15_000,
                }),
            )),
        }),
        EventBody::TaskError(TaskErrorEvent {
            task_id: "scan".to_owned(),
            step_attempt: 1,
            child_run_id: Some("run_02".to_owned()),
            code: Some("E_TRANSIENT_NET".to_owned()),
            message: "connection reset".to_owned(),
            retryable: true,
            retry_in_ms: Some(1000),
        }),
        EventBody::TaskDone(TaskDoneEvent {
            task_id: "scan".to_owned(),
            status: StepStatus::Ok,
            attempts: 2,
            child_run_ids: vec!["run_02".to_owned(), "run_03".to_owned()],
            outcome: StepOutcome {
                result: json!({"status": "ok"}),
                output: json!({"files": 3}),
                action: None,
                run_id: Some("run_03".to_owned()),
            },
            reason: None,
        }),
        EventBody::ApprovalRequest(ApprovalRequestEvent {
            request_id: "ap-1".to_owned(),
            tool: "Write".to_owned(),
            class: ToolClass::Write,
            paths: vec!["notes.txt".to_owned()],
            command: None,
            input: json!({"file_path": "notes.txt", "content": "x"}),
            tool_use_id: Some("toolu_01".to_owned()),
        }),
        EventBody::ApprovalDecision(ApprovalDecisionEvent {
            request_id: "ap-1".to_owned(),
            decision: "deny".to_owned(),
            by: DecidedBy::Policy,
            rule: Some("approvals.rules[1] (line 7)".to_owned()),
            message: Some("denied by approvals.rules[1]".to_owned()),
        }),
        EventBody::AnswerChunk(agentgate_protocol::AnswerChunkEvent {
            text: "The first paragraph.\n\n".to_owned(),
            index: 0,
            offset: 0,
            boundary: "paragraph".to_owned(),
        }),
        EventBody::Status(StatusEvent::Failover {
            from: "reviewer (claude)".to_owned(),
            to: "codex".to_owned(),
            error_type: ErrorKind::RateLimit,
            message: "rate limited".to_owned(),
        }),
        EventBody::Status(StatusEvent::Skipped {
            step: "claude".to_owned(),
            error_type: ErrorKind::Quota,
            reset_at: Some("2026-05-01T17:00:00Z".to_owned()),
            message: "skipped claude: its quota is exhausted until 2026-05-01T17:00:00Z \
                      (recorded from the gateway; --ignore-quota tries anyway)"
                .to_owned(),
        }),
        EventBody::Status(StatusEvent::TimeoutWarning {
            remaining_ms: 120_000,
            elapsed_ms: 480_000,
            deadline: "2026-05-01T12:10:00.000Z".to_owned(),
        }),
        EventBody::Status(StatusEvent::BudgetWarning {
            budget: "the day budget of agent reviewer".to_owned(),
            measure: "cost".to_owned(),
            spent: 4.0,
            limit: 5.0,
            share: 0.8,
        }),
        EventBody::Status(StatusEvent::TimeoutExtended {
            extended_by_ms: 300_000,
            remaining_ms: 300_000,
            elapsed_ms: 600_000,
            deadline: "2026-05-01T12:15:00.000Z".to_owned(),
        }),
    ]
}

/// [`bodies`] as events of one run, numbered from 0.
pub fn events() -> Vec<Event> {
    let mut events: Vec<Event> = bodies()
        .into_iter()
        .zip(0..)
        .map(|(body, seq)| Event::new(RUN_ID, seq, TS, body).with_attempt("claude", 1))
        .collect();
    // An event cut to fit the line limit says so.
    if let Some(last) = events.last_mut() {
        last.cut = Some(agentgate_protocol::Cut {
            original_bytes: 40_000_000,
        });
    }
    events
}
