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
}

impl RawEvent {
    /// The event for one line of bytes (without its terminator).
    pub fn from_bytes(stream: RawStream, bytes: &[u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(line) => Self {
                stream,
                line: line.to_owned(),
                bytes_base64: None,
            },
            Err(_) => Self {
                stream,
                line: String::from_utf8_lossy(bytes).into_owned(),
                bytes_base64: Some(STANDARD.encode(bytes)),
            },
        }
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
