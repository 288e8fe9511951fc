//! What a run cost: the rate card (`card.rs`: the embedded
//! `data/rate-card.yaml`, the config's `pricing:` entries in front, lookup
//! by model, alias and date) and the pricing of a run's tokens against it
//! (`price.rs`: each token class at its rate, the CLI's own figure beside
//! the card's, the flag when they differ, the attempts of a run summed).
//! A leaf: it imports nothing of the crate.

mod card;
mod price;
#[cfg(test)]
mod tests;

pub use card::{
    CONFIG_VERSION, CardEntry, Lookup, PerMillion, RateCard, RawProviders, builtin_card, convert,
    parse_card,
};
pub use price::{FlagThreshold, PricedAttempt, Pricing, sum_attempts};
