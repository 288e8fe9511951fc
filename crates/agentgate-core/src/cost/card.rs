//! The rate card: the embedded `data/rate-card.yaml` (per vendor and
//! model, with aliases and date ranges, the price per million tokens of
//! each token class), the entries a config's `pricing:` adds in front of
//! it, and the lookup of a model on a run's date.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use jiff::civil::Date;
use serde::Deserialize;

/// The card shipped with agentgate.
const BUILTIN_CARD: &str = include_str!("../../data/rate-card.yaml");

/// The `version` given to entries from the config's `pricing:` section.
pub const CONFIG_VERSION: &str = "config";

/// Prices in US dollars per million tokens; a class left out is unpriced.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerMillion {
    /// Uncached input.
    pub input: Option<f64>,
    /// Input read from the prompt cache.
    pub cache_read: Option<f64>,
    /// Input written to the prompt cache with a 5-minute lifetime.
    pub cache_write_5m: Option<f64>,
    /// Input written to the prompt cache with a 1-hour lifetime.
    pub cache_write_1h: Option<f64>,
    /// Output (reasoning included unless `reasoning` is given).
    pub output: Option<f64>,
    /// Reasoning output, where the vendor prices it apart.
    pub reasoning: Option<f64>,
}

/// One entry as written (in the card or in the config).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEntry {
    model: String,
    #[serde(default)]
    aliases: Vec<String>,
    from: Option<String>,
    until: Option<String>,
    usd_per_million: PerMillion,
    prompt_tokens_up_to: Option<u64>,
    source: Option<String>,
    as_of: Option<String>,
}

/// Entries by vendor, as written.
pub type RawProviders = BTreeMap<String, Vec<RawEntry>>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCard {
    version: String,
    providers: RawProviders,
}

/// One checked entry.
#[derive(Debug, Clone, PartialEq)]
pub struct CardEntry {
    /// The vendor.
    pub provider: String,
    /// The canonical model name.
    pub model: String,
    /// Other names of the model.
    pub aliases: Vec<String>,
    /// First day the entry applies to (UTC), when bounded.
    pub from: Option<Date>,
    /// First day it no longer applies to, when bounded.
    pub until: Option<Date>,
    /// The prices.
    pub usd_per_million: PerMillion,
    /// The prices hold for prompts up to this many tokens.
    pub prompt_tokens_up_to: Option<u64>,
    /// Where the prices were read.
    pub source: Option<String>,
    /// When they were read.
    pub as_of: Option<String>,
    /// The card's version, or [`CONFIG_VERSION`].
    pub version: String,
}

impl CardEntry {
    fn names(&self, name: &str) -> bool {
        self.model == name || self.aliases.iter().any(|a| a == name)
    }

    fn applies_on(&self, day: Date) -> bool {
        self.from.is_none_or(|f| f <= day) && self.until.is_none_or(|u| day < u)
    }
}

/// A rate card: entries in the order they are looked up (the config's
/// first, then the built-in card's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RateCard {
    /// The built-in card's version.
    pub version: String,
    /// The entries, config's first.
    pub entries: Vec<CardEntry>,
}

/// What a lookup found.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup<'a> {
    /// The entry that prices the model on that day.
    Found(&'a CardEntry),
    /// No entry: why, for the envelope.
    Missing(String),
}

/// Check the entries of one source.
pub fn convert(providers: &RawProviders, version: &str) -> Result<Vec<CardEntry>, String> {
    let mut out = Vec::new();
    for (provider, entries) in providers {
        for raw in entries {
            let label = format!("{provider} model `{}`", raw.model);
            if raw.model.trim().is_empty() {
                return Err(format!("{provider}: an entry without a model name"));
            }
            let date = |d: &Option<String>, key: &str| -> Result<Option<Date>, String> {
                d.as_deref()
                    .map(|s| {
                        s.trim().parse::<Date>().map_err(|e| {
                            format!("{label}: `{key}: {s}` is not a date (YYYY-MM-DD): {e}")
                        })
                    })
                    .transpose()
            };
            let (from, until) = (date(&raw.from, "from")?, date(&raw.until, "until")?);
            if let (Some(f), Some(u)) = (from, until)
                && f >= u
            {
                return Err(format!("{label}: `from` ({f}) is not before `until` ({u})"));
            }
            let p = &raw.usd_per_million;
            let prices = [
                ("input", p.input),
                ("cache_read", p.cache_read),
                ("cache_write_5m", p.cache_write_5m),
                ("cache_write_1h", p.cache_write_1h),
                ("output", p.output),
                ("reasoning", p.reasoning),
            ];
            for (class, price) in prices {
                if let Some(v) = price
                    && !(v.is_finite() && v >= 0.0)
                {
                    return Err(format!(
                        "{label}: usd_per_million.{class} is {v}; a price is a number of 0 or more"
                    ));
                }
            }
            out.push(CardEntry {
                provider: provider.clone(),
                model: raw.model.trim().to_owned(),
                aliases: raw.aliases.iter().map(|a| a.trim().to_owned()).collect(),
                from,
                until,
                usd_per_million: p.clone(),
                prompt_tokens_up_to: raw.prompt_tokens_up_to,
                source: raw.source.clone(),
                as_of: raw.as_of.clone(),
                version: version.to_owned(),
            });
        }
    }
    Ok(out)
}

/// Parse a card's text.
pub fn parse_card(text: &str) -> Result<RateCard, String> {
    let raw: RawCard = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    if raw.version.trim().is_empty() {
        return Err("the rate card has an empty `version`".to_owned());
    }
    Ok(RateCard {
        entries: convert(&raw.providers, raw.version.trim())?,
        version: raw.version.trim().to_owned(),
    })
}

/// The built-in card, parsed once; its error when it does not parse (a
/// unit test keeps that from shipping).
pub fn builtin_card() -> Result<&'static RateCard, &'static str> {
    static CARD: OnceLock<Result<RateCard, String>> = OnceLock::new();
    CARD.get_or_init(|| parse_card(BUILTIN_CARD))
        .as_ref()
        .map_err(String::as_str)
}

impl RateCard {
    /// This card with `extra` entries looked up before its own.
    pub fn with_overrides(&self, extra: &[CardEntry]) -> RateCard {
        let mut entries = extra.to_vec();
        entries.extend(self.entries.iter().cloned());
        RateCard {
            version: self.version.clone(),
            entries,
        }
    }

    /// The entry pricing `model` for a run started on `day`: an exact
    /// name or alias, else the name without a `vendor/` prefix (opencode's
    /// `anthropic/claude-sonnet-4-5`, Gemini's `models/...`).
    pub fn lookup(&self, model: &str, day: Date) -> Lookup<'_> {
        let model = model.trim();
        let bare = model.rsplit_once('/').map(|(_, m)| m);
        for name in std::iter::once(model).chain(bare) {
            let named: Vec<&CardEntry> = self.entries.iter().filter(|e| e.names(name)).collect();
            if let Some(e) = named.iter().find(|e| e.applies_on(day)) {
                return Lookup::Found(e);
            }
            if !named.is_empty() {
                return Lookup::Missing(format!(
                    "the rate card has model `{name}` but no entry for runs started on {day}"
                ));
            }
        }
        Lookup::Missing(format!(
            "the rate card (version {}) does not price model `{model}`; add it under `pricing:` in the config",
            self.version
        ))
    }
}
