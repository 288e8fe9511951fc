//! `retry_on` as the config file writes it: a list of error types, legacy
//! names and `{pattern: REGEX}` items, checked into a [`RetryOn`].

use std::fmt;

use agentgate_protocol::ErrorKind;
use regex::Regex;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_saphyr::Spanned;

use super::yaml::Fault;
use crate::retry_on::{RetryOn, RetryPattern, kind_named};

/// One item as written.
#[derive(Debug)]
pub(super) enum RawItem {
    Name(String),
    Pattern(String),
}

impl<'de> Deserialize<'de> for RawItem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawItem;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an error type (quota, rate_limit, ...) or {pattern: REGEX}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RawItem, E> {
                Ok(RawItem::Name(s.to_owned()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawItem, A::Error> {
                let mut pattern = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "pattern" {
                        return Err(de::Error::unknown_field(&key, &["pattern"]));
                    }
                    pattern = Some(map.next_value::<String>()?);
                }
                pattern
                    .map(RawItem::Pattern)
                    .ok_or_else(|| de::Error::missing_field("pattern"))
            }
        }
        d.deserialize_any(V)
    }
}

/// Check a written `retry_on`. With `lenient_names` (cli_agents.yaml), a
/// name that is no error type becomes a case-insensitive substring
/// pattern; otherwise it is an error.
pub(super) fn convert(
    items: &Spanned<Vec<Spanned<RawItem>>>,
    lenient_names: bool,
) -> Result<RetryOn, Fault> {
    let mut out = RetryOn::default();
    for item in &items.value {
        match &item.value {
            RawItem::Name(name) => match kind_named(name) {
                Some(kind) if !kind.recoverable() => {
                    return Err(Fault::at(
                        item,
                        format!(
                            "`retry_on: {name}`: `{kind}` errors are not recoverable, so a chain never moves on after them; remove it"
                        ),
                    ));
                }
                Some(kind) => {
                    if !out.kinds.contains(&kind) {
                        out.kinds.push(kind);
                    }
                }
                None if lenient_names => {
                    let regex = Regex::new(&format!("(?i){}", regex::escape(name)))
                        .map_err(|e| Fault::at(item, format!("`{name}`: {e}")))?;
                    out.patterns.push(RetryPattern {
                        text: name.clone(),
                        substring: true,
                        regex,
                    });
                }
                None => {
                    let known: Vec<&str> = ErrorKind::ALL
                        .iter()
                        .filter(|k| k.recoverable())
                        .map(|k| k.as_str())
                        .collect();
                    return Err(Fault::at(
                        item,
                        format!(
                            "`retry_on: {name}` is not an error type (recoverable ones: {}; legacy names such as allowance_exceeded and rate_limited work too); to match the message, write `{{pattern: \"...\"}}`",
                            known.join(", ")
                        ),
                    ));
                }
            },
            RawItem::Pattern(p) => {
                let regex = Regex::new(p).map_err(|e| {
                    let first = e.to_string();
                    let first = first.lines().last().unwrap_or("").trim().to_owned();
                    Fault::at(
                        item,
                        format!("`pattern: {p}` is not a regular expression: {first}"),
                    )
                })?;
                out.patterns.push(RetryPattern {
                    text: p.clone(),
                    substring: false,
                    regex,
                });
            }
        }
    }
    Ok(out)
}
