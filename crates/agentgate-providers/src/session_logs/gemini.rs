//! Gemini CLI's session file, through [`crate::gemini::session`]: the last
//! turn's thoughts and its model messages' token counts.

use std::path::Path;

use agentgate_protocol::Usage;

use super::SessionLog;
use crate::gemini::session::{find_session_file, read_session};

pub(super) fn read(gemini_home: &Path, id: &str) -> Result<Option<SessionLog>, String> {
    let Some(path) = find_session_file(gemini_home, id) else {
        return Ok(None);
    };
    let session = read_session(&path).map_err(|e| e.to_string())?;
    let turn = session.last_turn();
    let mut usage: Option<Usage> = None;
    let mut model = None;
    // The last model call's prompt + output: the turn's context length.
    let mut context = None;
    for m in turn {
        if let Some(t) = &m.tokens {
            // As the decoder counts Gemini's figures: input = prompt +
            // tool-use prompt, output = candidates + thoughts.
            let input = t.input.saturating_add(t.tool);
            let output = t.output.saturating_add(t.thoughts);
            let figures = Usage {
                input_tokens: input,
                output_tokens: output,
                cache_read_input_tokens: t.cached,
                reasoning_tokens: t.thoughts,
                total_tokens: input.saturating_add(output),
                ..Usage::default()
            };
            context = Some(figures.total_tokens);
            match &mut usage {
                Some(sum) => sum.add_counts(&figures),
                None => usage = Some(figures),
            }
        }
        if m.model.is_some() {
            model.clone_from(&m.model);
        }
    }
    if let Some(u) = &mut usage {
        u.context_tokens = context;
    }
    Ok(Some(SessionLog {
        provider: "gemini",
        path,
        session_id: id.to_owned(),
        reasoning: session.last_turn_thoughts(),
        usage,
        model,
        skipped: Vec::new(),
    }))
}
