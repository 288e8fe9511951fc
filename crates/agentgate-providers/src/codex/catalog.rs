//! Codex's catalog: `codex app-server`'s `model/list` (paged:
//! `{data: [Model], nextCursor}`; a `Model` has `id`, `displayName`,
//! `hidden`, `isDefault`, `defaultReasoningEffort` and
//! `supportedReasoningEfforts: [{reasoningEffort, description}]`). The
//! list is bundled in the CLI (offline, well under a second) unless the
//! config points it elsewhere (`model_catalog_json`, a provider's
//! `model_catalog_url`).

use serde_json::Value;

use crate::catalog::CatalogEntry;

/// The method that lists the models.
pub const MODEL_LIST_METHOD: &str = "model/list";

/// The entries of one `model/list` result, and the cursor of the next page
/// (`None`: the last page).
pub fn catalog_page(result: &Value) -> (Vec<CatalogEntry>, Option<String>) {
    let empty = Vec::new();
    let entries = result["data"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .filter_map(|m| {
            let id = m["id"].as_str().or_else(|| m["model"].as_str())?;
            let efforts = m["supportedReasoningEfforts"]
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .filter_map(|e| {
                    e["reasoningEffort"]
                        .as_str()
                        .or_else(|| e.as_str())
                        .map(str::to_owned)
                })
                .collect();
            Some(CatalogEntry {
                display_name: m["displayName"].as_str().map(str::to_owned),
                default: m["isDefault"] == true,
                hidden: m["hidden"] == true,
                efforts,
                default_effort: m["defaultReasoningEffort"].as_str().map(str::to_owned),
                ..CatalogEntry::new(id)
            })
        })
        .collect();
    let next = result["nextCursor"]
        .as_str()
        .filter(|c| !c.is_empty())
        .map(str::to_owned);
    (entries, next)
}
