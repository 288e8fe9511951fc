//! STUB, being written: the Opencode adapter.

use std::path::Path;

use super::{Plan, PlanError, Provider, RunRequest};
use crate::decode::Decoder;

/// The Opencode adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Opencode;

impl Provider for Opencode {
    fn name(&self) -> &str {
        "opencode"
    }

    fn binary_name(&self) -> &str {
        "opencode"
    }

    fn plan(&self, _req: &RunRequest, _program: &Path, _scratch: &Path) -> Result<Plan, PlanError> {
        Err(PlanError::Unsupported {
            provider: "opencode".into(),
            what: "run yet".into(),
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(crate::decode::claude::ClaudeDecoder::new())
    }
}
