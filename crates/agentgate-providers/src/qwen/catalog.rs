//! Qwen Code's models: it has no listing command, so this is a table of
//! the Qwen OAuth models its bundle names (`DEFAULT_QWEN_MODEL` is
//! `coder-model`), as of the pinned version. Informative only: with an
//! OpenAI-compatible server (`OPENAI_MODEL`, `modelProviders`) any name
//! goes.

use crate::catalog::{CatalogSource, StaticModel};

/// Qwen Code's catalog: agentgate's table.
pub const CATALOG: CatalogSource = CatalogSource::Static(TABLE);

const fn m(id: &'static str, display_name: &'static str) -> StaticModel {
    StaticModel::new(id, display_name)
}

static TABLE: &[StaticModel] = &[
    StaticModel {
        default: true,
        ..m("coder-model", "Qwen Coder (the OAuth default)")
    },
    m("qwen3-coder-plus", "Qwen3 Coder Plus"),
    m("qwen3-coder-next", "Qwen3 Coder Next"),
    m("qwen3.6-plus", "Qwen 3.6 Plus"),
    m("qwen3.7-plus", "Qwen 3.7 Plus"),
    m("qwen3.7-max", "Qwen 3.7 Max"),
    m("qwen3.8-flash", "Qwen 3.8 Flash"),
    m("qwen3.8-max", "Qwen 3.8 Max"),
];
