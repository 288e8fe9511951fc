//! Answering one turn's permission requests: each request becomes an
//! `approval_request` event with agentgate's own id, the policy decides,
//! an `ask` waits for a human's answer (sent on a channel by the server's
//! route) at most the policy's ask timeout and is denied after it, and the
//! decision is an `approval_decision` event naming who decided and by
//! which rule. A call denied once in a turn and asked again is denied
//! without asking and the turn should stop (`stop_turn`): an ask never
//! loops. The counts go in the envelope's `approvals`.

use std::collections::HashSet;
use std::path::PathBuf;

use super::desk::Seat;
use super::protocol::{Answer, PermissionAsk};
use crate::approvals::{ApprovalPolicy, Decision};
use agentgate_protocol::{
    ApprovalCounts, ApprovalDecisionEvent, ApprovalRequestEvent, DecidedBy, ToolClass,
};

/// How one request was answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    /// What to send the CLI.
    pub answer: Answer,
    /// The event saying so.
    pub event: ApprovalDecisionEvent,
    /// The call was denied before in this turn: stop the turn.
    pub stop_turn: bool,
}

/// One turn's (or run's) approvals (see the module notes).
#[derive(Debug)]
pub struct Approver {
    policy: ApprovalPolicy,
    workspace: PathBuf,
    prefix: String,
    next: u64,
    denied: HashSet<String>,
    counts: ApprovalCounts,
}

impl Approver {
    /// An approver for the run `run_id` working in `workspace`.
    pub fn new(policy: ApprovalPolicy, workspace: PathBuf, run_id: &str) -> Self {
        Approver {
            policy,
            workspace,
            prefix: format!("{run_id}-ap"),
            next: 0,
            denied: HashSet::new(),
            counts: ApprovalCounts::default(),
        }
    }

    /// The counts so far, for the envelope.
    pub fn counts(&self) -> &ApprovalCounts {
        &self.counts
    }

    /// A new turn: calls denied in the last one may be asked again.
    pub fn new_turn(&mut self) {
        self.denied.clear();
    }

    /// The `approval_request` event for `ask`, with agentgate's id for it.
    pub fn request(&mut self, ask: &PermissionAsk) -> ApprovalRequestEvent {
        self.next += 1;
        self.counts.requested += 1;
        ApprovalRequestEvent {
            request_id: format!("{}{}", self.prefix, self.next),
            tool: ask.call.tool.clone(),
            class: ask.call.class.unwrap_or(ToolClass::Other),
            paths: ask.call.paths.clone(),
            command: ask.call.command.clone(),
            input: ask.input.clone(),
            tool_use_id: ask.tool_use_id.clone(),
        }
    }

    /// Decide the request `request` (made by [`Self::request`] for `ask`);
    /// `humans` is the run's seat at the desk where people's answers
    /// arrive, `None` when nobody can answer
    /// in this run (an `ask` is then denied at once).
    pub async fn decide(
        &mut self,
        ask: &PermissionAsk,
        request: &ApprovalRequestEvent,
        humans: Option<&mut Seat>,
    ) -> Decided {
        let key = format!("{}\u{0}{}", ask.call.tool, ask.input);
        if self.denied.contains(&key) {
            return self.deny(
                request,
                DecidedBy::Repeat,
                None,
                "this call was refused already in this turn".to_owned(),
                true,
            );
        }
        let verdict = self.policy.decide(&ask.call, &self.workspace);
        let rule = Some(verdict.rule.clone());
        let decided = match verdict.decision {
            Decision::Allow => self.allow(request, DecidedBy::Policy, rule),
            Decision::Deny => self.deny(
                request,
                DecidedBy::Policy,
                rule,
                format!("refused by agentgate's approval policy ({})", verdict.rule),
                false,
            ),
            Decision::Ask => {
                self.counts.asked += 1;
                match humans {
                    None => {
                        self.counts.timed_out += 1;
                        self.deny(
                            request,
                            DecidedBy::Timeout,
                            rule,
                            "the policy asks a person, and nobody can answer in this run"
                                .to_owned(),
                            false,
                        )
                    }
                    Some(seat) => {
                        seat.waiting_for(&request.request_id);
                        let decided = self.wait_for_human(request, rule, seat).await;
                        seat.done_with(&request.request_id);
                        decided
                    }
                }
            }
        };
        if decided.answer != Answer::Allow {
            self.denied.insert(key);
        }
        decided
    }

    /// The run was cancelled while `request` waited for its decision.
    pub fn cancelled(&mut self, request: &ApprovalRequestEvent) -> Decided {
        self.deny(
            request,
            DecidedBy::Cancelled,
            None,
            "the run was cancelled".to_owned(),
            false,
        )
    }

    async fn wait_for_human(
        &mut self,
        request: &ApprovalRequestEvent,
        rule: Option<String>,
        seat: &mut Seat,
    ) -> Decided {
        let deadline = tokio::time::Instant::now() + self.policy.ask_timeout;
        loop {
            match tokio::time::timeout_at(deadline, seat.answers.recv()).await {
                Ok(Some(a)) if a.request_id == request.request_id => {
                    return if a.allow {
                        self.allow(request, DecidedBy::Human, rule)
                    } else {
                        let message = a
                            .message
                            .unwrap_or_else(|| "refused by the person asked".to_owned());
                        self.deny(request, DecidedBy::Human, rule, message, false)
                    };
                }
                // An answer to another (older) request: not this one's.
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => {
                    self.counts.timed_out += 1;
                    let waited = self.policy.ask_timeout;
                    return self.deny(
                        request,
                        DecidedBy::Timeout,
                        rule,
                        format!("nobody answered within {waited:?}: refused"),
                        false,
                    );
                }
            }
        }
    }

    fn allow(
        &mut self,
        request: &ApprovalRequestEvent,
        by: DecidedBy,
        rule: Option<String>,
    ) -> Decided {
        self.counts.allowed += 1;
        Decided {
            answer: Answer::Allow,
            event: ApprovalDecisionEvent {
                request_id: request.request_id.clone(),
                decision: "allow".to_owned(),
                by,
                rule,
                message: None,
            },
            stop_turn: false,
        }
    }

    fn deny(
        &mut self,
        request: &ApprovalRequestEvent,
        by: DecidedBy,
        rule: Option<String>,
        message: String,
        stop_turn: bool,
    ) -> Decided {
        self.counts.denied += 1;
        Decided {
            answer: Answer::Deny {
                message: message.clone(),
            },
            event: ApprovalDecisionEvent {
                request_id: request.request_id.clone(),
                decision: "deny".to_owned(),
                by,
                rule,
                message: Some(message),
            },
            stop_turn,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::approvals::{Rule, ToolCall};
    use crate::warm::desk::{ApprovalDesk, HumanAnswer};

    fn ask(tool: &str, class: ToolClass, path: &str) -> PermissionAsk {
        PermissionAsk {
            cli_id: json!("c1"),
            call: ToolCall {
                tool: tool.into(),
                class: Some(class),
                paths: vec![path.into()],
                command: None,
            },
            input: json!({"file_path": path}),
            tool_use_id: None,
        }
    }

    fn approver(ask_timeout: Duration) -> Approver {
        let rule = |class, decision, i: usize| Rule {
            class: Some(class),
            tool: None,
            path: None,
            command: None,
            decision,
            label: format!("approvals.rules[{i}]"),
        };
        Approver::new(
            ApprovalPolicy {
                rules: vec![
                    rule(ToolClass::Read, Decision::Allow, 0),
                    rule(ToolClass::Shell, Decision::Ask, 1),
                ],
                default: Decision::Deny,
                ask_timeout,
            },
            PathBuf::from("/w"),
            "r1",
        )
    }

    #[tokio::test]
    async fn the_policy_decides_and_a_repeat_stops_the_turn() {
        let mut a = approver(Duration::from_secs(60));
        let read = ask("Read", ToolClass::Read, "a.txt");
        let req = a.request(&read);
        assert_eq!(req.request_id, "r1-ap1");
        let d = a.decide(&read, &req, None).await;
        assert_eq!(d.answer, Answer::Allow);
        assert_eq!(d.event.rule.as_deref(), Some("approvals.rules[0]"));
        let write = ask("Write", ToolClass::Write, "b.txt");
        let req = a.request(&write);
        let d = a.decide(&write, &req, None).await;
        assert!(matches!(d.answer, Answer::Deny { .. }));
        assert_eq!(d.event.by, DecidedBy::Policy);
        assert_eq!(d.event.rule.as_deref(), Some("default"));
        assert!(!d.stop_turn);
        // The same call again: refused without asking, the turn stops.
        let req = a.request(&write);
        let d = a.decide(&write, &req, None).await;
        assert_eq!(d.event.by, DecidedBy::Repeat);
        assert!(d.stop_turn);
        // A new turn may ask it again.
        a.new_turn();
        let req = a.request(&write);
        assert!(!a.decide(&write, &req, None).await.stop_turn);
        let c = a.counts();
        assert_eq!((c.requested, c.allowed, c.denied), (4, 1, 3));
    }

    #[tokio::test(start_paused = true)]
    async fn an_ask_waits_for_its_person_at_most_the_timeout() {
        let mut a = approver(Duration::from_secs(30));
        let shell = PermissionAsk {
            call: ToolCall {
                tool: "Bash".into(),
                class: Some(ToolClass::Shell),
                paths: vec![],
                command: Some("ls".into()),
            },
            ..ask("Bash", ToolClass::Shell, "")
        };
        let desk = ApprovalDesk::new();
        let mut seat = desk.open("run_1");
        let req = a.request(&shell);
        let answer = {
            let desk = desk.clone();
            let id = req.request_id.clone();
            tokio::spawn(async move {
                // Until the run waits for it, the request is not pending.
                loop {
                    let a = HumanAnswer {
                        request_id: id.clone(),
                        allow: true,
                        message: None,
                    };
                    if desk.answer("run_1", a).is_ok() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            })
        };
        let d = a.decide(&shell, &req, Some(&mut seat)).await;
        answer.await.unwrap();
        assert_eq!(d.answer, Answer::Allow);
        assert_eq!(d.event.by, DecidedBy::Human);
        // Unanswered: denied when the timeout passes (the clock is paused
        // and advances by itself).
        let req = a.request(&shell);
        let started = tokio::time::Instant::now();
        let d = a.decide(&shell, &req, Some(&mut seat)).await;
        assert_eq!(d.event.by, DecidedBy::Timeout);
        assert!(desk.pending("run_1").is_empty(), "no longer waited for");
        assert!(matches!(d.answer, Answer::Deny { .. }));
        assert_eq!(started.elapsed(), Duration::from_secs(30));
        // Asked again in this turn: refused without asking.
        let req = a.request(&shell);
        assert_eq!(
            a.decide(&shell, &req, Some(&mut seat)).await.event.by,
            DecidedBy::Repeat
        );
        // Nobody to ask at all (next turn): denied at once.
        a.new_turn();
        let req = a.request(&shell);
        let d = a.decide(&shell, &req, None).await;
        assert_eq!(d.event.by, DecidedBy::Timeout);
        let c = a.counts();
        assert_eq!((c.asked, c.timed_out, c.allowed), (3, 2, 1));
    }
}
