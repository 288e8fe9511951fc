//! The run store a read command works on: `--store`, else the config's
//! `store:`, else the default (`agentgate_store::store_choice`). The config
//! is read only when it may name the store.

use std::path::Path;
use std::sync::Arc;

use agentgate_store::{StoreBackend, store_choice};
use anyhow::Context;

/// Open the store that `--store` (`flag`) or the config names.
pub fn open_store(
    config: Option<&Path>,
    flag: Option<&str>,
) -> anyhow::Result<Arc<dyn StoreBackend>> {
    let given = store_choice::given(flag)?;
    let configured = match given {
        Some(_) => None,
        None => agentgate_core::Config::load(config)?.store,
    };
    let location = store_choice::choose(given, configured.as_ref())?;
    store_choice::open(&location).context("failed to open the run store")
}
