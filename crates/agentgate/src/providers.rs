//! Finding a provider by name: the built-in adapters, then the providers
//! the config file describes.

use std::sync::Arc;

use agentgate_core::provider::{Provider, ProviderKind};

/// The adapter for `name`.
pub fn resolve(name: &str) -> anyhow::Result<Arc<dyn Provider>> {
    Ok(name.parse::<ProviderKind>()?.adapter())
}
