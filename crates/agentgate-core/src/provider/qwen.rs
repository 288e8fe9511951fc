//! STUB, being written: the Qwen adapter.

use std::path::Path;

use super::{Plan, PlanError, Provider, RunRequest};
use crate::decode::Decoder;

/// The Qwen adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Qwen;

impl Provider for Qwen {
    fn name(&self) -> &str {
        "qwen"
    }

    fn binary_name(&self) -> &str {
        "qwen"
    }

    fn plan(&self, _req: &RunRequest, _program: &Path, _scratch: &Path) -> Result<Plan, PlanError> {
        Err(PlanError::Unsupported {
            provider: "qwen".into(),
            what: "run yet".into(),
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(crate::decode::claude::ClaudeDecoder::new())
    }
}
