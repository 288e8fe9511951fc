//! The catalog cache: `<data folder>/catalogs/<provider>.json`, one file a
//! provider, private to the user (folder 0700, file 0600), written whole
//! to a temporary file and renamed into place so a reader never sees half
//! of one. A file that cannot be read or parsed counts as absent.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use agentgate_providers::catalog::CatalogEntry;

/// A provider's catalog as fetched and cached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CachedCatalog {
    /// The provider.
    pub provider: String,
    /// `cli` (the CLI listed it) or `static` (agentgate's table).
    pub source: String,
    /// When it was fetched (RFC 3339); `None` for a bundled table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<String>,
    /// The binary that listed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// The binary's modification time (seconds since the epoch) when it
    /// listed it: a CLI upgraded since is asked again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary_mtime: Option<i64>,
    /// The last refresh failed and this is the copy before it.
    #[serde(default)]
    pub stale: bool,
    /// Why the last refresh failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The models, in the CLI's order.
    pub models: Vec<CatalogEntry>,
}

/// The folder of the cached catalogs: `catalogs/` in agentgate's data
/// folder (beside the default database: `$AGENTGATE_HOME`, else
/// `$XDG_DATA_HOME/agentgate`, else `~/.local/share/agentgate`).
pub(crate) fn catalog_dir() -> Option<PathBuf> {
    let db = agentgate_store::default_db_path().ok()?;
    Some(db.parent()?.join("catalogs"))
}

fn file(dir: &Path, provider: &str) -> PathBuf {
    // Provider names are plain words; anything else cannot name a file.
    let safe: String = provider
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{safe}.json"))
}

/// The cached catalog of `provider`, if there is a readable one.
pub(crate) fn read(dir: &Path, provider: &str) -> Option<CachedCatalog> {
    let text = std::fs::read_to_string(file(dir, provider)).ok()?;
    serde_json::from_str(&text)
        .ok()
        .filter(|c: &CachedCatalog| c.provider == provider)
}

/// Writes `catalog` to its file.
pub(crate) fn write(dir: &Path, catalog: &CachedCatalog) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    let text = serde_json::to_vec_pretty(catalog).map_err(std::io::Error::other)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".catalog-")
        .tempfile_in(dir)?;
    // tempfile creates the file 0600.
    tmp.write_all(&text)?;
    tmp.as_file().sync_all()?;
    tmp.persist(file(dir, &catalog.provider))
        .map_err(|e| e.error)?;
    Ok(())
}

/// The modification time of `binary` in seconds, if it has one.
pub(crate) fn mtime(binary: &Path) -> Option<i64> {
    let t = std::fs::metadata(binary).ok()?.modified().ok()?;
    let secs = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(secs).ok()
}
