//! OpenAI Chat Completions: each chunk (or the whole `chat.completion`)
//! may name the model and carry `usage{prompt_tokens,
//! prompt_tokens_details.cached_tokens, completion_tokens,
//! completion_tokens_details.reasoning_tokens}` (in a stream, the last
//! chunk when `stream_options.include_usage` asked for it); a chunk with
//! `error` carries an error; `[DONE]` (read by the tap) ends the stream.
//!
//! `prompt_tokens` already holds the cache reads, `completion_tokens` the
//! reasoning. OpenAI states no cache writes; a server that does
//! (`prompt_tokens_details.cache_write_tokens`) is read.

use serde_json::Value;

use super::{Findings, count, usage};
use crate::wire::error_shape::error_text;

/// One chunk, or the whole body.
pub(super) fn chunk(found: &mut Findings, v: &Value) {
    found.model_from(v.get("model"));
    if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
        found.usage = Some(usage(
            count(u, "/prompt_tokens"),
            count(u, "/prompt_tokens_details/cached_tokens"),
            count(u, "/prompt_tokens_details/cache_write_tokens"),
            count(u, "/completion_tokens"),
            count(u, "/completion_tokens_details/reasoning_tokens"),
        ));
    }
    if let Some(text) = error_text(v) {
        found.error(text);
    }
}
