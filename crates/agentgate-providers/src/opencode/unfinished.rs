//! Model steps that end without a finish reason.
//!
//! opencode calls the model again after a step whose `step_finish` reason
//! is `unknown` (the stream ended without a finish reason) exactly as after
//! `tool-calls`, so a provider whose stream keeps breaking that way makes it
//! ask again without end. [`UnfinishedSteps`] counts such steps in a row that
//! ran no tool; at [`MAX_UNFINISHED_STEPS`] the decoder reports a terminal
//! provider error and an error final record, once per attempt (opencode
//! keeps asking until agentgate stops it after the final record). The
//! message carries InvalidStreamError's words, "Model stream ended without
//! a finish reason", so the common row `common.stream_incomplete` classifies
//! it as a recoverable `provider_error`, as for Gemini CLI and Qwen Code.

use crate::decode::{Decoded, ProviderError, ProviderFinal};

/// Consecutive tool-less steps ending with reason `unknown` after which the
/// turn is treated as failed.
pub const MAX_UNFINISHED_STEPS: u32 = 3;

/// Tracks the steps of one turn for [`MAX_UNFINISHED_STEPS`].
#[derive(Debug, Clone, Default)]
pub struct UnfinishedSteps {
    in_a_row: u32,
    step_ran_tool: bool,
    /// The error was reported: later steps of this attempt add nothing.
    reported: bool,
}

impl UnfinishedSteps {
    /// A `step_start`.
    pub fn step_started(&mut self) {
        self.step_ran_tool = false;
    }

    /// A `tool_use` part in the current step.
    pub fn tool_used(&mut self) {
        self.step_ran_tool = true;
    }

    /// A `step_finish` with `reason`: true when it is the last allowed step
    /// without a finish reason, after pushing a terminal provider error and
    /// an error final record (ending the attempt) to `out`; only once.
    pub fn step_finished(
        &mut self,
        reason: Option<&str>,
        session_id: Option<&String>,
        out: &mut Vec<Decoded>,
    ) -> bool {
        if reason != Some("unknown") || self.step_ran_tool {
            self.in_a_row = 0;
            return false;
        }
        self.in_a_row += 1;
        if self.reported || self.in_a_row < MAX_UNFINISHED_STEPS {
            return false;
        }
        self.reported = true;
        out.push(Decoded::ProviderError(ProviderError {
            message: format!(
                "opencode: Model stream ended without a finish reason {} times in a row",
                self.in_a_row
            ),
            http_status: None,
            code: Some("no_finish_reason".to_owned()),
            terminal: true,
        }));
        out.push(Decoded::Final(ProviderFinal {
            text: None,
            session_id: session_id.cloned(),
            is_error: true,
            usage: None,
            num_turns: None,
        }));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finish(steps: &mut UnfinishedSteps, tool: bool, reason: &str) -> Vec<Decoded> {
        let mut out = Vec::new();
        steps.step_started();
        if tool {
            steps.tool_used();
        }
        steps.step_finished(Some(reason), None, &mut out);
        out
    }

    #[test]
    fn three_unfinished_steps_in_a_row_fail() {
        let mut steps = UnfinishedSteps::default();
        for _ in 1..MAX_UNFINISHED_STEPS {
            assert!(finish(&mut steps, false, "unknown").is_empty());
        }
        let out = finish(&mut steps, false, "unknown");
        assert!(
            matches!(&out[..], [Decoded::ProviderError(e), Decoded::Final(f)]
            if e.terminal && e.message.contains("3 times") && f.is_error)
        );
    }

    #[test]
    fn the_error_is_reported_once() {
        let mut steps = UnfinishedSteps::default();
        let reported: usize = (0..3 * MAX_UNFINISHED_STEPS)
            .map(|_| finish(&mut steps, false, "unknown").len())
            .sum();
        assert_eq!(reported, 2, "one error and one final record");
        assert!(finish(&mut steps, false, "stop").is_empty());
        for _ in 0..MAX_UNFINISHED_STEPS {
            assert!(finish(&mut steps, false, "unknown").is_empty());
        }
    }

    #[test]
    fn tool_steps_and_finished_steps_reset_the_count() {
        let mut steps = UnfinishedSteps::default();
        for _ in 0..5 {
            assert!(finish(&mut steps, true, "unknown").is_empty());
            assert!(finish(&mut steps, false, "unknown").is_empty());
            assert!(finish(&mut steps, false, "tool-calls").is_empty());
            assert!(finish(&mut steps, false, "unknown").is_empty());
            assert!(finish(&mut steps, false, "unknown").is_empty());
            assert!(finish(&mut steps, false, "stop").is_empty());
        }
    }
}
