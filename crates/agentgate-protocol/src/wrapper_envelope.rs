//! The envelope's compatibility form (`--envelope wrapper`, the config's
//! `envelope: wrapper`): the shell wrappers' envelope, field for field, for
//! a consumer that validates strictly against it.
//!
//! From agentgate's [`Envelope`]: the wrapper fields only (agentgate's
//! additions are left out, `tokens_used.estimated` among them); `reasoning`
//! is the wrappers' compact form (`reasoning_summary`); `reasoning_source`
//! says `session_assistant` where agentgate says `session_log`, and
//! `reasoning_absent_reason` `model_not_emitted` where agentgate says
//! `not_exposed`; `metadata.tool_activity` is left out unless a tool ran;
//! `model_resolution` is left out when the model was used as requested;
//! `tokens_used.cost_usd` is 0 when unknown; `skill` is the skill's name,
//! when the run invoked one. A failure keeps `error`, `error_type`,
//! `exit_code` and `recoverable`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::envelope::{Envelope, ReasoningAbsentReason, ReasoningSource};

/// Which envelope `agentgate run` prints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvelopeFormat {
    /// agentgate's envelope, every field.
    #[default]
    Agentgate,
    /// The shell wrappers' envelope, field for field
    /// ([`wrapper_envelope`]).
    Wrapper,
}

impl std::str::FromStr for EnvelopeFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "agentgate" => Ok(Self::Agentgate),
            "wrapper" => Ok(Self::Wrapper),
            other => Err(format!(
                "`{other}` is not an envelope format (agentgate or wrapper)"
            )),
        }
    }
}

/// `envelope` in the wrappers' form (see the module's note).
pub fn wrapper_envelope(envelope: &Envelope) -> Value {
    let t = &envelope.tokens_used;
    let m = &envelope.metadata;
    let reasoning_source = match m.reasoning_source {
        ReasoningSource::RawOutput => "raw_output",
        ReasoningSource::SessionLog => "session_assistant",
        ReasoningSource::None => "none",
    };
    let reasoning_absent_reason = match m.reasoning_absent_reason {
        ReasoningAbsentReason::Available => "available",
        ReasoningAbsentReason::ModelNotEmitted | ReasoningAbsentReason::NotExposed => {
            "model_not_emitted"
        }
        ReasoningAbsentReason::ErrorPath => "error_path",
    };
    let mut metadata = Map::new();
    metadata.insert(
        "token_usage_available".into(),
        json!(m.token_usage_available),
    );
    metadata.insert("reasoning_available".into(), json!(m.reasoning_available));
    metadata.insert("reasoning_source".into(), json!(reasoning_source));
    metadata.insert(
        "reasoning_absent_reason".into(),
        json!(reasoning_absent_reason),
    );
    if let Some(activity) = m.tool_activity.as_ref().filter(|a| a.call_count > 0) {
        metadata.insert("tool_activity".into(), json!(activity));
    }
    let mut out = Map::new();
    out.insert("response".into(), json!(envelope.response));
    out.insert("session_id".into(), json!(envelope.session_id));
    out.insert("reasoning".into(), json!(envelope.reasoning_summary));
    out.insert(
        "tokens_used".into(),
        json!({
            "input_tokens": t.input_tokens,
            "output_tokens": t.output_tokens,
            "estimated_output_tokens": t.estimated_output_tokens,
            "total_tokens": t.total_tokens,
            "cost_usd": t.cost_usd.unwrap_or(0.0),
            "cache_read_input_tokens": t.cache_read_input_tokens,
            "cache_creation_input_tokens": t.cache_creation_input_tokens,
        }),
    );
    out.insert("metadata".into(), Value::Object(metadata));
    if let Some(resolution) = &envelope.model_resolution {
        out.insert("model_resolution".into(), json!(resolution));
    }
    if let Some(skill) = &envelope.skill {
        out.insert("skill".into(), json!(skill));
    }
    if let Some(error) = &envelope.error {
        out.insert("error".into(), json!(error));
    }
    if let Some(kind) = &envelope.error_type {
        out.insert("error_type".into(), json!(kind));
    }
    if let Some(code) = envelope.exit_code {
        out.insert("exit_code".into(), json!(code));
    }
    if let Some(recoverable) = envelope.recoverable {
        out.insert("recoverable".into(), json!(recoverable));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{ActivityClass, Metadata, TokensUsed, ToolActivity};
    use crate::{ErrorInfo, ErrorKind, ErrorSource, ToolClass};

    fn keys(v: &Value) -> Vec<&str> {
        let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }

    #[test]
    fn a_plain_answer_has_the_wrapper_fields_only() {
        let mut env = Envelope::new("r1");
        env.response = "hi".into();
        env.session_id = Some("s".into());
        env.reasoning = "a\n\nlong thought".into();
        env.reasoning_summary = "a long thought".into();
        env.provider = Some("claude".into());
        env.metadata = Metadata {
            reasoning_available: true,
            reasoning_source: ReasoningSource::SessionLog,
            reasoning_absent_reason: ReasoningAbsentReason::Available,
            tool_activity: Some(ToolActivity::default()),
            ..Metadata::default()
        };
        let v = wrapper_envelope(&env);
        assert_eq!(
            keys(&v),
            [
                "metadata",
                "reasoning",
                "response",
                "session_id",
                "tokens_used"
            ]
        );
        assert_eq!(v["reasoning"], "a long thought");
        assert_eq!(v["metadata"]["reasoning_source"], "session_assistant");
        // No tool ran: no tool_activity.
        assert_eq!(
            keys(&v["metadata"]),
            [
                "reasoning_absent_reason",
                "reasoning_available",
                "reasoning_source",
                "token_usage_available"
            ]
        );
        assert_eq!(v["tokens_used"]["cost_usd"], 0.0);
        assert!(v["tokens_used"].get("estimated").is_none());
    }

    #[test]
    fn tools_skill_resolution_and_failure_fields_appear_when_they_apply() {
        let mut env = Envelope::new("r2");
        env.tokens_used = TokensUsed {
            cost_usd: Some(0.5),
            ..TokensUsed::default()
        };
        env.metadata.tool_activity = Some(ToolActivity {
            call_count: 2,
            write_count: 1,
            tool_names: vec!["Read".into(), "Edit".into()],
            result_classes: vec![ToolClass::Read, ToolClass::Write],
            activity_class: ActivityClass::WriteActive,
            ..ToolActivity::default()
        });
        env.model_resolution = Some("claude model 'opus' -> 'x' (alias)".into());
        env.skill = Some("review".into());
        let env = env.with_error(
            &ErrorInfo::new(ErrorKind::Quota, ErrorSource::Structured, "usage limit"),
            75,
        );
        let v = wrapper_envelope(&env);
        assert_eq!(v["metadata"]["tool_activity"]["call_count"], 2);
        assert_eq!(v["skill"], "review");
        assert_eq!(v["tokens_used"]["cost_usd"], 0.5);
        assert_eq!(v["error_type"], "quota");
        assert_eq!(v["exit_code"], 75);
        assert_eq!(v["recoverable"], true);
        assert!(v.get("model_resolution").is_some());
        assert!(v.get("run_id").is_none() && v.get("attempts").is_none());
    }

    #[test]
    fn formats_parse_by_name() {
        assert_eq!("wrapper".parse(), Ok(EnvelopeFormat::Wrapper));
        assert_eq!("agentgate".parse(), Ok(EnvelopeFormat::Agentgate));
        assert!("x".parse::<EnvelopeFormat>().is_err());
    }
}
