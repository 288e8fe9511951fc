//! The classification passes over one invocation's evidence: the CLI's
//! structured error, then its exit status, then text patterns in its
//! output. The first pass that decides wins; see `docs/errors.md`.

use agentgate_protocol::{ErrorInfo, ErrorKind, ErrorSource};
use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::final_record::{self, StdoutSeen};
use super::generic::rules;
use super::output::Tails;
use super::pattern::compiled;
use super::reset::{parse_reset, parse_retry_after};
use super::status::{kind_for_status, status_for_exit, status_in_text};
use super::table::{ProviderTable, Rule};
use crate::decoded::{ProviderError, ProviderFinal};

/// The longest message kept, in characters; longer ones are cut with "…".
const MAX_MESSAGE_CHARS: usize = 2000;

/// Everything known about one finished invocation of a provider CLI.
#[derive(Debug, Clone)]
pub struct ClassifyInput<'a> {
    /// The provider (`"claude"`, `"codex"`, `"gemini"`, ...), for messages.
    pub provider: &'a str,
    /// What its errors mean: its description's table, or
    /// [`GENERIC`](super::GENERIC) (the common rows only) for a provider
    /// without one.
    pub table: &'a ProviderTable,
    /// The structured errors the decoder saw, in order.
    pub errors: &'a [ProviderError],
    /// The CLI's final result record, if it printed one.
    pub final_: Option<&'a ProviderFinal>,
    /// What the CLI's output format promises to end with, in words for a
    /// message (`"its closing `result` record"`); `None` when it promises
    /// nothing (plain text). A CLI that ended without it, and without any
    /// other sign of failure, gave no answer: `provider_error`,
    /// recoverable (rule `fallback.no_final_record`).
    pub final_expected: Option<&'a str>,
    /// What the CLI printed on stdout, for that error's message.
    pub stdout_seen: StdoutSeen,
    /// The CLI's exit code, if it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended the CLI, if one did.
    pub signal: Option<i32>,
    /// The end of the CLI's stdout.
    pub stdout_tail: &'a str,
    /// The end of the CLI's stderr.
    pub stderr_tail: &'a str,
    /// The current time, for relative and partial reset times.
    pub now: Timestamp,
    /// The zone the provider's clock times are read in; `None` = the
    /// machine's (the CLIs print local times), looked up only when a reset
    /// time has to be read: finding the system zone costs a scan of the
    /// zoneinfo folder, which a successful run should not pay.
    pub tz: Option<&'a TimeZone>,
}

impl<'a> ClassifyInput<'a> {
    /// An input of the provider `table` belongs to, with no evidence yet:
    /// no errors, no final record (and none expected), no exit status,
    /// empty tails.
    pub fn new(table: &'a ProviderTable, now: Timestamp, tz: &'a TimeZone) -> ClassifyInput<'a> {
        ClassifyInput {
            provider: table.name,
            table,
            errors: &[],
            final_: None,
            final_expected: None,
            stdout_seen: StdoutSeen::default(),
            exit_code: None,
            signal: None,
            stdout_tail: "",
            stderr_tail: "",
            now,
            tz: Some(tz),
        }
    }
}

/// A classified error and the name of the row (or rule) that decided it.
#[derive(Debug, Clone, PartialEq)]
pub struct Classified {
    /// The error.
    pub info: ErrorInfo,
    /// The deciding row's id (`"claude.not_logged_in"`), an HTTP status
    /// default (`"http.429"`), or a fallback (`"fallback.exit"`,
    /// `"fallback.signal"`, `"fallback.structured"`, `"fallback.answer"`,
    /// `"fallback.no_final_record"`).
    pub rule: &'static str,
}

/// The error of a finished invocation, or `None` if it succeeded.
///
/// An invocation succeeded when the CLI exited 0 (or was stopped by a
/// signal after printing a clean final record), reported no terminal error,
/// printed the final record its format promises (when
/// [`ClassifyInput::final_expected`] names one), that record is not an
/// error, and, for CLIs whose table says so, the final answer is not an
/// error report.
pub fn classify(input: &ClassifyInput) -> Option<ErrorInfo> {
    classify_explained(input).map(|c| c.info)
}

/// [`classify`], also naming the row that decided.
pub fn classify_explained(input: &ClassifyInput) -> Option<Classified> {
    classify_with(input.table, input)
}

/// [`classify_explained`] with an explicit table.
pub fn classify_with(table: &ProviderTable, input: &ClassifyInput) -> Option<Classified> {
    let terminal = input.errors.iter().rev().find(|e| e.terminal);
    let final_error = input.final_.filter(|f| f.is_error);
    let clean_final = input.final_.is_some_and(|f| !f.is_error);
    let exit_failed = input.exit_code.is_some_and(|c| c != 0);
    // A CLI stopped by a signal after its clean final record was ended by
    // the supervisor's grace period: the run succeeded.
    let killed = input.signal.is_some() && !clean_final;
    // Ended cleanly (or with an unknown status), but without the record its
    // format promises: no answer.
    let missing_final = input.final_expected.filter(|_| {
        input.final_.is_none() && input.signal.is_none() && input.exit_code.is_none_or(|c| c == 0)
    });
    let answer = if terminal.is_none() && final_error.is_none() {
        answer_error(table, input.final_)
    } else {
        None
    };
    if terminal.is_none()
        && final_error.is_none()
        && !exit_failed
        && !killed
        && answer.is_none()
        && missing_final.is_none()
    {
        return None;
    }

    let tails = Tails::new(input.stdout_tail, input.stderr_tail, table.noise);
    let mut subjects = Vec::new();
    if let Some(e) = terminal {
        subjects.push(Subject::of_error(e));
    }
    if let Some(f) = final_error {
        subjects.push(Subject::of_text(f.text.as_deref().unwrap_or("")));
    }
    // Without a terminal error, the last notice the CLI gave before it
    // failed (Codex's "Reconnecting... waiting for network" when it was
    // killed) is weaker evidence than its exit status and output: it may
    // belong to an earlier hiccup the CLI got past.
    let last_notice = input
        .errors
        .last()
        .filter(|_| subjects.is_empty())
        .map(Subject::of_error);
    let exit_status = input
        .exit_code
        .and_then(|c| status_for_exit(table.exit_statuses, c));

    let decision = subjects
        .iter()
        .find_map(|s| structured(table, s))
        .or_else(|| by_exit(table, input, &tails, exit_status))
        .or_else(|| by_pattern(table, answer, &tails))
        .or_else(|| last_notice.as_ref().and_then(|s| structured(table, s)))
        .unwrap_or_else(|| fallback(input, &subjects, answer, missing_final, &tails));

    let status = decision
        .status
        .or_else(|| subjects.iter().find_map(Subject::status))
        .or(exit_status);
    Some(finish(decision, status, input, &tails))
}

/// What the structured pass looks at: an error's message, status and code.
#[derive(Debug)]
struct Subject<'a> {
    message: &'a str,
    status: Option<u16>,
    code: Option<&'a str>,
}

impl<'a> Subject<'a> {
    fn of_error(e: &'a ProviderError) -> Subject<'a> {
        Subject {
            message: &e.message,
            status: e.http_status,
            code: e.code.as_deref(),
        }
    }

    fn of_text(text: &'a str) -> Subject<'a> {
        Subject {
            message: text,
            status: None,
            code: None,
        }
    }

    fn status(&self) -> Option<u16> {
        self.status.or_else(|| status_in_text(self.message))
    }
}

/// A decision before the evidence-independent fields are filled in.
#[derive(Debug)]
struct Decision {
    kind: ErrorKind,
    rule: &'static str,
    recoverable: Option<bool>,
    source: ErrorSource,
    message: String,
    status: Option<u16>,
}

impl Decision {
    fn by_rule(rule: &Rule, source: ErrorSource, message: &str, status: Option<u16>) -> Decision {
        Decision {
            kind: rule.kind,
            rule: rule.id,
            recoverable: rule.recoverable,
            source,
            message: message.to_owned(),
            status,
        }
    }

    fn by_status(status: u16, source: ErrorSource, message: &str) -> Option<Decision> {
        let (kind, rule) = kind_for_status(status)?;
        Some(Decision {
            kind,
            rule,
            recoverable: None,
            source,
            message: message.to_owned(),
            status: Some(status),
        })
    }

    fn unknown(rule: &'static str, source: ErrorSource, message: String) -> Decision {
        Decision {
            kind: ErrorKind::Unknown,
            rule,
            recoverable: None,
            source,
            message,
            status: None,
        }
    }
}

/// Whether `rule`'s text, status and code conditions hold (its exit
/// condition is the caller's business).
fn holds(rule: &Rule, text: &str, status: Option<u16>, code: Option<&str>) -> bool {
    let text_ok = rule
        .text
        .is_none_or(|p| compiled(p).is_some_and(|re| re.is_match(text)));
    let status_ok = rule.statuses.is_empty() || status.is_some_and(|s| rule.statuses.contains(&s));
    let code_ok = rule.codes.is_empty()
        || code.is_some_and(|c| rule.codes.iter().any(|x| x.eq_ignore_ascii_case(c)));
    text_ok && status_ok && code_ok
}

/// Pass 1: the CLI's structured error.
fn structured(table: &ProviderTable, s: &Subject) -> Option<Decision> {
    let status = s.status();
    rules(table)
        .filter(|r| r.exits.is_empty() && r.has_condition())
        .find(|r| holds(r, s.message, status, s.code))
        .map(|r| Decision::by_rule(r, ErrorSource::Structured, s.message, status))
        .or_else(|| Decision::by_status(status?, ErrorSource::Structured, s.message))
}

/// Pass 2: the exit code, by the table's exit rows, then by the HTTP status
/// it carries (refined by the text rows over the output).
fn by_exit(
    table: &ProviderTable,
    input: &ClassifyInput,
    tails: &Tails,
    exit_status: Option<u16>,
) -> Option<Decision> {
    let code = input.exit_code.filter(|c| *c != 0)?;
    // The exit code is the evidence; the message is what the CLI said last.
    let message = |line: Option<&str>| {
        tails
            .summary()
            .or_else(|| line.map(str::to_owned))
            .unwrap_or_else(|| format!("{} exited with status {code}", input.provider))
    };
    for rule in rules(table).filter(|r| r.exits.contains(&code)) {
        let line = match rule.text {
            None => None,
            Some(p) => match compiled(p).and_then(|re| tails.find(&re)) {
                Some(line) => Some(line),
                None => continue,
            },
        };
        return Some(Decision::by_rule(
            rule,
            ErrorSource::ExitStatus,
            &message(line),
            None,
        ));
    }
    let status = exit_status?;
    for rule in
        rules(table).filter(|r| r.exits.is_empty() && r.codes.is_empty() && r.has_condition())
    {
        let line = match rule.text {
            None => None,
            Some(p) => match compiled(p).and_then(|re| tails.find(&re)) {
                Some(line) => Some(line),
                None => continue,
            },
        };
        if holds(rule, line.unwrap_or(""), Some(status), None) {
            let message = message(line);
            return Some(Decision::by_rule(
                rule,
                ErrorSource::ExitStatus,
                &message,
                Some(status),
            ));
        }
    }
    Decision::by_status(status, ErrorSource::ExitStatus, &message(None))
}

/// Pass 3: an error report in the final answer (tables with
/// `answer_error`), then the text rows over the output tails.
fn by_pattern(table: &ProviderTable, answer: Option<&str>, tails: &Tails) -> Option<Decision> {
    if let Some(text) = answer {
        let mut d = structured(table, &Subject::of_text(text)).unwrap_or_else(|| {
            Decision::unknown("fallback.answer", ErrorSource::Pattern, text.to_owned())
        });
        d.source = ErrorSource::Pattern;
        return Some(d);
    }
    let status = tails.lines().find_map(status_in_text);
    for rule in rules(table).filter(|r| r.exits.is_empty() && r.codes.is_empty()) {
        let Some(re) = rule.text.and_then(compiled) else {
            continue;
        };
        if let Some(line) = tails.find(&re)
            && holds(rule, line, status, None)
        {
            return Some(Decision::by_rule(rule, ErrorSource::Pattern, line, status));
        }
    }
    let line = tails.lines().find(|l| status_in_text(l).is_some())?;
    Decision::by_status(status?, ErrorSource::Pattern, line)
}

/// Nothing decided: the failure is `unknown`, except a CLI killed by a
/// signal, which crashed, and a CLI that ended without its final record,
/// which gave no answer (both `provider_error`).
fn fallback(
    input: &ClassifyInput,
    subjects: &[Subject],
    answer: Option<&str>,
    missing_final: Option<&str>,
    tails: &Tails,
) -> Decision {
    let summary = tails.summary();
    if let Some(s) = subjects.iter().find(|s| !s.message.trim().is_empty()) {
        return Decision::unknown(
            "fallback.structured",
            ErrorSource::Structured,
            s.message.to_owned(),
        );
    }
    if let Some(text) = answer {
        return Decision::unknown("fallback.answer", ErrorSource::Pattern, text.to_owned());
    }
    if let (Some(signal), None) = (input.signal, input.exit_code.filter(|c| *c != 0)) {
        let message =
            summary.unwrap_or_else(|| format!("{} was killed by signal {signal}", input.provider));
        return Decision {
            kind: ErrorKind::ProviderError,
            rule: "fallback.signal",
            recoverable: None,
            source: ErrorSource::ExitStatus,
            message,
            status: None,
        };
    }
    if let Some(expected) = missing_final {
        return Decision {
            kind: ErrorKind::ProviderError,
            rule: "fallback.no_final_record",
            recoverable: Some(true),
            source: if input.exit_code.is_some() {
                ErrorSource::ExitStatus
            } else {
                ErrorSource::Structured
            },
            message: final_record::message(
                input.provider,
                expected,
                input.exit_code,
                input.stdout_seen,
                summary.as_deref(),
            ),
            status: None,
        };
    }
    let message = summary.unwrap_or_else(|| match input.exit_code {
        Some(code) => format!("{} exited with status {code}", input.provider),
        None => format!("{} failed", input.provider),
    });
    let source = if input.exit_code.is_some() {
        ErrorSource::ExitStatus
    } else {
        ErrorSource::Structured
    };
    Decision::unknown("fallback.exit", source, message)
}

/// The final answer, when the table marks it as an error report.
fn answer_error<'a>(table: &ProviderTable, final_: Option<&'a ProviderFinal>) -> Option<&'a str> {
    let pattern = table.answer_error?;
    let text = final_?.text.as_deref()?;
    compiled(pattern)?.is_match(text).then_some(text)
}

/// Fill in the fields every decision shares.
fn finish(d: Decision, status: Option<u16>, input: &ClassifyInput, tails: &Tails) -> Classified {
    let message = {
        let trimmed = d.message.trim();
        if trimmed.is_empty() {
            tails
                .summary()
                .unwrap_or_else(|| format!("{} failed", input.provider))
        } else {
            trimmed.to_owned()
        }
    };
    let mut info = ErrorInfo::new(d.kind, d.source, cap(&message));
    info.recoverable = d.recoverable.unwrap_or_else(|| d.kind.recoverable());
    info.exit_code = input.exit_code;
    info.provider_status = status;
    if matches!(
        d.kind,
        ErrorKind::Quota | ErrorKind::RateLimit | ErrorKind::Overloaded | ErrorKind::ProviderError
    ) {
        let texts = [message.as_str(), input.stderr_tail];
        info.retry_after_s = texts.iter().find_map(|t| parse_retry_after(t));
        let system;
        let tz = match input.tz {
            Some(tz) => tz,
            None => {
                system = TimeZone::system();
                &system
            }
        };
        info.reset_at = texts
            .iter()
            .find_map(|t| parse_reset(t, input.now, tz))
            .map(|(t, _)| whole_second_after(t).to_string());
    }
    Classified { info, rule: d.rule }
}

/// `t` rounded up to a whole second.
fn whole_second_after(t: Timestamp) -> Timestamp {
    if t.subsec_nanosecond() > 0 {
        Timestamp::from_second(t.as_second().saturating_add(1)).unwrap_or(t)
    } else {
        t
    }
}

/// `message` cut to [`MAX_MESSAGE_CHARS`].
fn cap(message: &str) -> String {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((end, _)) => format!("{}…", &message[..end]),
        None => message.to_owned(),
    }
}
