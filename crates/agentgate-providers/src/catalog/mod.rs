//! Model catalogs: what models a CLI offers, as data in each provider's
//! [`Description`](crate::Description) ([`CatalogSource`]), the parsers
//! of the CLIs' own listings (each in its CLI's folder), and the lookup a
//! run's model goes through ([`lookup`]).
//!
//! A catalog comes from the CLI itself where it can tell (`opencode
//! models`, `cursor-agent models`, Codex's `app-server` `model/list`),
//! else from a table bundled here (`static`: Gemini, Claude, Qwen) that
//! only informs: those CLIs send any name to their server, so a name
//! outside the table is not wrong (see [`CatalogSource::authoritative`]).
//! Fetching, caching and validating a run's model are the engine's
//! (`agentgate-core`'s `catalog/`); this module starts nothing.

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

/// One model a CLI offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CatalogEntry {
    /// The id the CLI takes (`openai/gpt-5.1`, `gpt-5.5`).
    pub id: String,
    /// Its name for people, where the CLI gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// The CLI's default model.
    #[serde(default)]
    pub default: bool,
    /// Hidden by the CLI's own listing (listed with `--all` only).
    #[serde(default)]
    pub hidden: bool,
    /// The reasoning efforts it supports (`low`, `medium`, `high`, ...);
    /// empty when the CLI says nothing of them.
    #[serde(default)]
    pub efforts: Vec<String>,
    /// The effort it uses when none is asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_effort: Option<String>,
    /// Other names the CLI takes for it (Claude's `sonnet`).
    #[serde(default)]
    pub aliases: Vec<String>,
}

impl CatalogEntry {
    /// An entry with only its id.
    pub fn new(id: impl Into<String>) -> CatalogEntry {
        CatalogEntry {
            id: id.into(),
            display_name: None,
            default: false,
            hidden: false,
            efforts: Vec::new(),
            default_effort: None,
            aliases: Vec::new(),
        }
    }
}

/// Where a CLI's catalog comes from.
#[derive(Debug, Clone, Copy)]
pub enum CatalogSource {
    /// A subcommand that prints the models (`opencode models`), read by
    /// `parse`.
    Command {
        /// The arguments after the binary.
        args: &'static [&'static str],
        /// Variables set for it (opencode's
        /// `OPENCODE_DISABLE_MODELS_FETCH=1`: no network).
        env: &'static [(&'static str, &'static str)],
        /// Its output (stdout) to entries.
        parse: fn(&str) -> Vec<CatalogEntry>,
    },
    /// `codex app-server`: `initialize`, then `model/list` paged by
    /// `nextCursor` ([`crate::codex::catalog_page`] reads a page).
    CodexAppServer,
    /// A table bundled with agentgate.
    Static(&'static [StaticModel]),
}

impl CatalogSource {
    /// `cli` (the CLI listed it) or `static` (agentgate's table).
    pub fn kind(&self) -> &'static str {
        match self {
            CatalogSource::Static(_) => "static",
            _ => "cli",
        }
    }

    /// Whether a name outside the catalog is wrong: true for a list the
    /// CLI gives (it runs only those), false for a bundled table.
    pub fn authoritative(&self) -> bool {
        !matches!(self, CatalogSource::Static(_))
    }
}

/// A row of a bundled table.
#[derive(Debug, Clone, Copy)]
pub struct StaticModel {
    /// The id.
    pub id: &'static str,
    /// Its name for people.
    pub display_name: &'static str,
    /// The CLI's default.
    pub default: bool,
    /// Other names the CLI takes for it.
    pub aliases: &'static [&'static str],
}

impl StaticModel {
    /// A model of a bundled table, not the default, without aliases.
    pub const fn new(id: &'static str, display_name: &'static str) -> StaticModel {
        StaticModel {
            id,
            display_name,
            default: false,
            aliases: &[],
        }
    }
}

/// The entries of a bundled table.
pub fn static_entries(table: &[StaticModel]) -> Vec<CatalogEntry> {
    table
        .iter()
        .map(|m| CatalogEntry {
            display_name: Some(m.display_name.to_owned()),
            default: m.default,
            aliases: m.aliases.iter().map(|a| (*a).to_owned()).collect(),
            ..CatalogEntry::new(m.id)
        })
        .collect()
}

/// What a requested model name is in a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// An entry's id, as given.
    Exact(&'a CatalogEntry),
    /// One of an entry's aliases.
    Alias(&'a CatalogEntry),
    /// The tail of exactly one entry's id (`gpt-5.1` of
    /// `openai/gpt-5.1`).
    Tail(&'a CatalogEntry),
    /// The tail of several entries' ids: their ids.
    Ambiguous(Vec<&'a str>),
    /// Nowhere.
    Absent,
}

/// `requested` in `entries`: an exact id, else an alias, else the part
/// after the last `/` of exactly one id (a tail naming several is
/// [`Lookup::Ambiguous`]). Case matters for ids, as the CLIs' does.
pub fn lookup<'a>(entries: &'a [CatalogEntry], requested: &str) -> Lookup<'a> {
    let requested = requested.trim();
    if let Some(e) = entries.iter().find(|e| e.id == requested) {
        return Lookup::Exact(e);
    }
    if let Some(e) = entries
        .iter()
        .find(|e| e.aliases.iter().any(|a| a == requested))
    {
        return Lookup::Alias(e);
    }
    let tails: Vec<&CatalogEntry> = entries
        .iter()
        .filter(|e| {
            e.id.rsplit_once('/')
                .is_some_and(|(_, tail)| tail == requested)
        })
        .collect();
    match tails.as_slice() {
        [] => Lookup::Absent,
        [one] => Lookup::Tail(one),
        many => Lookup::Ambiguous(many.iter().map(|e| e.id.as_str()).collect()),
    }
}

/// The entry a run of `model` uses (exact id, alias or unique tail), for
/// facts such as the efforts it supports; `None` when the catalog does not
/// name it once.
pub fn entry_for<'a>(entries: &'a [CatalogEntry], model: &str) -> Option<&'a CatalogEntry> {
    match lookup(entries, model) {
        Lookup::Exact(e) | Lookup::Alias(e) | Lookup::Tail(e) => Some(e),
        Lookup::Ambiguous(_) | Lookup::Absent => None,
    }
}

/// The catalog's default entry, if it marks one.
pub fn default_entry(entries: &[CatalogEntry]) -> Option<&CatalogEntry> {
    entries.iter().find(|e| e.default)
}

/// `text` without ANSI escape sequences (colours, cursor moves), which a
/// CLI may print even to a pipe.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters and intermediates, then one final byte.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                // OSC: up to BEL or ESC \.
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {
                chars.next();
            }
        }
    }
    out
}

/// Whether `s` can be a model id: one word of letters, digits and
/// `. _ : / - [ ] @ +`.
pub fn is_model_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:/-[]@+".contains(c))
        && s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
}
