//! `pricing:`: entries that override and extend the built-in rate card
//! (the same shape as `data/rate-card.yaml`'s `providers:`), and the
//! threshold above which a CLI's own cost and the card's are flagged.
//!
//! ```yaml
//! pricing:
//!   flag_above: {relative: 0.05, usd: 0.01}
//!   providers:
//!     anthropic:
//!       - model: claude-sonnet-4-5
//!         usd_per_million: {input: 3, output: 15, cache_read: 0.3, cache_write_5m: 3.75, cache_write_1h: 6}
//! ```
//!
//! An entry here is looked up before the card's, so one naming a card
//! model replaces its price; one naming another model adds it.

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::yaml::Fault;
use crate::cost::{
    CONFIG_VERSION, FlagThreshold, Pricing, RawProviders, convert as convert_entries,
};

/// `pricing:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPricing {
    flag_above: Option<RawFlag>,
    #[serde(default)]
    providers: RawProviders,
}

/// `pricing.flag_above` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlag {
    relative: Option<f64>,
    usd: Option<f64>,
}

/// Check `pricing:` and put its entries in front of the built-in card.
pub(super) fn convert(raw: &Spanned<RawPricing>) -> Result<Pricing, Fault> {
    let fault = |m: String| Fault::at(raw, format!("pricing: {m}"));
    let mut pricing = Pricing::default();
    if let Some(f) = &raw.value.flag_above {
        let mut flag = FlagThreshold::default();
        for (key, value, slot) in [
            ("relative", f.relative, &mut flag.relative),
            ("usd", f.usd, &mut flag.usd),
        ] {
            if let Some(v) = value {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(fault(format!(
                        "flag_above.{key} is {v}; it is a number of 0 or more"
                    )));
                }
                *slot = v;
            }
        }
        pricing.flag_above = flag;
    }
    let entries = convert_entries(&raw.value.providers, CONFIG_VERSION).map_err(fault)?;
    pricing.card = pricing.card.with_overrides(&entries);
    Ok(pricing)
}
