//! `?coalesce=`: the answer in readable chunks among a run's events, cut
//! by this follower's own `agentgate_core::ChunkFollower` (the same as
//! `agentgate run --stream --coalesce`). A chunk is a message without an
//! `id:` (so `Last-Event-ID` stays the last protocol event's) and without
//! an `event:` field (`onmessage` sees it), its data an `answer_chunk`
//! event. A stream resumed with `Last-Event-ID` cuts from the resume point:
//! its chunks' `index` and `offset` count from there.

use std::time::Duration;

use agentgate_core::{ChunkFollower, CoalesceMode, CoalesceOptions, parse_duration};
use axum::response::sse::Event;
use serde::Deserialize;

use crate::error::ApiError;

/// The query parameters of `GET /v1/runs/{id}/events` (another is a 400,
/// as on every route).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    coalesce: Option<String>,
    coalesce_min_interval: Option<String>,
    coalesce_max_chars: Option<String>,
    coalesce_idle: Option<String>,
}

impl EventsQuery {
    /// The follower the query asks for, if any; a bad value is a 400
    /// naming its parameter.
    pub(super) fn follower(&self) -> Result<Option<ChunkFollower>, ApiError> {
        let Some(mode) = &self.coalesce else {
            let stray = [
                ("coalesce_min_interval", &self.coalesce_min_interval),
                ("coalesce_max_chars", &self.coalesce_max_chars),
                ("coalesce_idle", &self.coalesce_idle),
            ];
            if let Some((name, _)) = stray.iter().find(|(_, v)| v.is_some()) {
                return Err(ApiError::invalid_parameter(
                    name,
                    "it needs `coalesce` (paragraph, sentence or size)",
                ));
            }
            return Ok(None);
        };
        let mode: CoalesceMode = mode
            .parse()
            .map_err(|e| ApiError::invalid_parameter("coalesce", e))?;
        let duration = |name: &str, v: &Option<String>| -> Result<Option<Duration>, ApiError> {
            v.as_deref()
                .map(parse_duration)
                .transpose()
                .map_err(|e| ApiError::invalid_parameter(name, e))
        };
        let max_chars = self
            .coalesce_max_chars
            .as_deref()
            .map(|v| {
                v.trim().parse::<usize>().map_err(|_| {
                    ApiError::invalid_parameter(
                        "coalesce_max_chars",
                        format!("`{v}` is not a whole number of characters"),
                    )
                })
            })
            .transpose()?;
        let options = CoalesceOptions::new(
            mode,
            duration("coalesce_min_interval", &self.coalesce_min_interval)?,
            max_chars,
            duration("coalesce_idle", &self.coalesce_idle)?,
        )
        .map_err(|e| ApiError::invalid_parameter("coalesce_max_chars", e))?;
        Ok(Some(ChunkFollower::new(options)))
    }
}

/// One event out of a [`ChunkFollower`] as an SSE message: a chunk
/// without an id; `None` for anything else (the follower sends the
/// protocol event's own line).
pub(super) fn chunk_message(event: &agentgate_protocol::Event) -> Option<Event> {
    if !matches!(event.body, agentgate_protocol::EventBody::AnswerChunk(_)) {
        return None;
    }
    match serde_json::to_string(event) {
        Ok(text) => Some(Event::default().data(text)),
        Err(e) => {
            tracing::warn!("failed to encode an answer chunk: {e}");
            None
        }
    }
}
