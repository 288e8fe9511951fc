//! `raw`: a provider output line kept verbatim, even when it is not UTF-8.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which output stream of the provider CLI a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RawStream {
    /// Standard output.
    #[serde(rename = "stdout")]
    Stdout,
    /// Standard error.
    #[serde(rename = "stderr")]
    Stderr,
}

/// Body of `raw`: one line the provider printed that agentgate did not
/// decode. Nothing is dropped: a line that is not valid UTF-8 keeps its exact
/// bytes in `bytes_base64`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RawEvent {
    /// The stream the line came from.
    pub stream: RawStream,
    /// The line without its terminator (`\n`, or `\r\n`). When the bytes are
    /// not valid UTF-8 this is a lossy rendering (U+FFFD for bad sequences),
    /// for reading only.
    pub line: String,
    /// The exact bytes of the line, standard base64 with padding; present
    /// only when they are not valid UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_base64: Option<String>,
    /// The line was longer than the line limit (32 MiB): `line` (and
    /// `bytes_base64`) hold its first bytes only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The whole line's length in bytes, present when `truncated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_bytes: Option<u64>,
}

impl RawEvent {
    /// The event for one line of bytes (without its terminator).
    pub fn from_bytes(stream: RawStream, bytes: &[u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(line) => Self {
                stream,
                line: line.to_owned(),
                bytes_base64: None,
                truncated: false,
                original_bytes: None,
            },
            Err(_) => Self {
                stream,
                line: String::from_utf8_lossy(bytes).into_owned(),
                bytes_base64: Some(STANDARD.encode(bytes)),
                truncated: false,
                original_bytes: None,
            },
        }
    }

    /// The event for the first `bytes` of a line of `original` bytes, cut
    /// because it was longer than the line limit. A multi-byte character
    /// cut in two at the end is left out, so a cut UTF-8 line stays text.
    pub fn cut(stream: RawStream, bytes: &[u8], original: u64) -> Self {
        let bytes = match std::str::from_utf8(bytes) {
            Err(e) if e.error_len().is_none() => bytes.get(..e.valid_up_to()).unwrap_or(bytes),
            _ => bytes,
        };
        Self {
            truncated: true,
            original_bytes: Some(original),
            ..Self::from_bytes(stream, bytes)
        }
    }

    /// Drops the last `n` bytes of a cut line (a multi-byte character cut
    /// in two goes whole). Nothing changes on a line that was not cut.
    pub fn trim_end(&mut self, n: usize) {
        if !self.truncated || n == 0 {
            return;
        }
        let Ok(mut bytes) = self.bytes() else {
            return;
        };
        bytes.truncate(bytes.len().saturating_sub(n));
        let original = self.original_bytes.unwrap_or(bytes.len() as u64);
        *self = Self::cut(self.stream, &bytes, original);
    }

    /// The exact bytes of the line: `bytes_base64` decoded when present,
    /// otherwise `line`.
    pub fn bytes(&self) -> Result<Vec<u8>, base64::DecodeError> {
        match &self.bytes_base64 {
            Some(encoded) => STANDARD.decode(encoded),
            None => Ok(self.line.as_bytes().to_vec()),
        }
    }
}
