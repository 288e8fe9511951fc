//! STUB, being written: the Cursor adapter.

use std::path::Path;

use super::{Plan, PlanError, Provider, RunRequest};
use crate::decode::Decoder;

/// The Cursor adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cursor;

impl Provider for Cursor {
    fn name(&self) -> &str {
        "cursor"
    }

    fn binary_name(&self) -> &str {
        "cursor-agent"
    }

    fn plan(&self, _req: &RunRequest, _program: &Path, _scratch: &Path) -> Result<Plan, PlanError> {
        Err(PlanError::Unsupported {
            provider: "cursor".into(),
            what: "run yet".into(),
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(crate::decode::claude::ClaudeDecoder::new())
    }
}
