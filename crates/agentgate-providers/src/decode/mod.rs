//! What every decoder shares. A decoder turns one provider CLI's raw output
//! lines into the protocol's events plus the facts the accumulator and the
//! classifier need ([`Decoded`]); each provider's own decoder is in its
//! folder (`providers/claude/decode.rs`).
//!
//! A decoder never fails and never drops input: a line it cannot decode (not
//! JSON, an unknown event type, invalid UTF-8, a truncated object) becomes
//! an [`EventBody::Raw`](agentgate_protocol::EventBody::Raw) event carrying the line verbatim. For JSON-lines
//! output the loop that guarantees this is written once ([`json_line`]),
//! and a decoder answers "did I understand this line?" with
//! [`Understood`]. Claude Code, Qwen Code and cursor-agent print records of
//! one shape; what reads them is in [`claude_shape`].

pub mod claude_shape;
mod decoder;
pub mod fields;
mod json_lines;
pub mod tools;

pub use crate::decoded::{Decoded, ProviderError, ProviderFinal};
pub use decoder::{Decoder, event, raw};
pub use fields::str_of;
pub use json_lines::{JsonLinesDecoder, Understood, json_line, json_value_line};
