//! STUB, being written: the Agy adapter.

use std::path::Path;

use super::{Plan, PlanError, Provider, RunRequest};
use crate::decode::Decoder;

/// The Agy adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Agy;

impl Provider for Agy {
    fn name(&self) -> &str {
        "agy"
    }

    fn binary_name(&self) -> &str {
        "agy"
    }

    fn plan(&self, _req: &RunRequest, _program: &Path, _scratch: &Path) -> Result<Plan, PlanError> {
        Err(PlanError::Unsupported {
            provider: "agy".into(),
            what: "run yet".into(),
        })
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        Box::new(crate::decode::claude::ClaudeDecoder::new())
    }
}
