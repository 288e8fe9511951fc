//! Where a custom provider's facts are in its JSON output: RFC 6901 JSON
//! pointers, and selectors that pick records by the values of their fields.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// An RFC 6901 JSON pointer: `/usage/input_tokens`, `/content/0/text`;
/// `""` is the whole record. `~1` stands for `/` and `~0` for `~` inside
/// a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonPointer(String);

impl JsonPointer {
    /// Check `s` is a JSON pointer.
    pub fn parse(s: &str) -> Result<JsonPointer, String> {
        if !s.is_empty() && !s.starts_with('/') {
            return Err(format!(
                "`{s}` is not a JSON pointer: it starts with `/` (e.g. `/{s}`); `\"\"` is the whole record"
            ));
        }
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
                return Err(format!(
                    "`{s}` is not a JSON pointer: `~` is followed by 0 (for `~`) or 1 (for `/`)"
                ));
            }
        }
        Ok(JsonPointer(s.to_owned()))
    }

    /// The pointer as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value it points at in `record`; `null` counts as absent.
    pub fn resolve<'v>(&self, record: &'v Value) -> Option<&'v Value> {
        record.pointer(&self.0).filter(|v| !v.is_null())
    }
}

impl fmt::Display for JsonPointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for JsonPointer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        JsonPointer::parse(&s).map_err(de::Error::custom)
    }
}

/// One pointer or several. For a text, the first that resolves wins; for a
/// count or a cost, the values of all that resolve are added up (Claude
/// reports uncached input, cache reads and cache writes apart; agentgate's
/// `input_tokens` counts all three).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointers(pub Vec<JsonPointer>);

impl Pointers {
    /// One pointer.
    pub fn one(p: JsonPointer) -> Pointers {
        Pointers(vec![p])
    }

    /// The first value that resolves.
    pub fn first<'v>(&self, record: &'v Value) -> Option<&'v Value> {
        self.0.iter().find_map(|p| p.resolve(record))
    }

    /// The first value that resolves, as text: a string as it is, anything
    /// else as compact JSON.
    pub fn text(&self, record: &Value) -> Option<String> {
        self.first(record).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    }

    /// The sum of the counts that resolve (numbers or numeric strings;
    /// fractions are rounded), or `None` when none does.
    pub fn count(&self, record: &Value) -> Option<u64> {
        self.0
            .iter()
            .filter_map(|p| p.resolve(record).and_then(as_count))
            .reduce(u64::saturating_add)
    }

    /// The sum of the numbers that resolve, or `None` when none does.
    pub fn amount(&self, record: &Value) -> Option<f64> {
        self.0
            .iter()
            .filter_map(|p| p.resolve(record).and_then(as_f64))
            .filter(|f| f.is_finite())
            .reduce(|a, b| a + b)
    }

    /// The first value that resolves to an HTTP status (100 to 599).
    pub fn status(&self, record: &Value) -> Option<u16> {
        self.0
            .iter()
            .filter_map(|p| p.resolve(record).and_then(as_count))
            .find(|n| (100..600).contains(n))
            .and_then(|n| u16::try_from(n).ok())
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn as_count(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = as_f64(v)?;
    // `as` saturates for floats out of range, which is what a count wants.
    (f.is_finite() && f >= 0.0).then(|| f.round() as u64)
}

impl<'de> Deserialize<'de> for Pointers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pointers;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON pointer (`/result`) or a list of them")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Pointers, E> {
                JsonPointer::parse(s).map(Pointers::one).map_err(E::custom)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Pointers, A::Error> {
                let mut all = Vec::new();
                while let Some(p) = seq.next_element::<JsonPointer>()? {
                    all.push(p);
                }
                if all.is_empty() {
                    return Err(de::Error::custom("an empty list of JSON pointers"));
                }
                Ok(Pointers(all))
            }
        }
        d.deserialize_any(V)
    }
}

/// Where a selector looks in a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectorKey {
    /// A top-level field (`type`).
    Field(String),
    /// A JSON pointer (`/error/type`).
    Pointer(JsonPointer),
}

impl SelectorKey {
    fn parse(key: &str) -> Result<SelectorKey, String> {
        if key.starts_with('/') {
            JsonPointer::parse(key).map(SelectorKey::Pointer)
        } else {
            Ok(SelectorKey::Field(key.to_owned()))
        }
    }

    fn lookup<'v>(&self, record: &'v Value) -> Option<&'v Value> {
        match self {
            SelectorKey::Field(f) => record.get(f),
            SelectorKey::Pointer(p) => record.pointer(p.as_str()),
        }
    }
}

/// Picks records: every key (a top-level field name, or a JSON pointer
/// when it starts with `/`) holds one of the values given for it, as in
/// `{type: result}` or `{type: [error, turn.failed]}`. Numbers compare by
/// value, and a string equals a number or boolean written the same way; a
/// missing field counts as `null`.
#[derive(Debug, Clone, PartialEq)]
pub struct Selector(pub Vec<(SelectorKey, Vec<Value>)>);

impl Selector {
    /// Whether `record` is picked.
    pub fn matches(&self, record: &Value) -> bool {
        self.0.iter().all(|(key, wanted)| {
            let got = key.lookup(record).unwrap_or(&Value::Null);
            wanted.iter().any(|w| scalar_eq(got, w))
        })
    }
}

fn scalar_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(s), Value::Number(n)) | (Value::Number(n), Value::String(s)) => {
            s.trim().parse::<f64>().ok() == n.as_f64()
        }
        (Value::String(s), Value::Bool(b)) | (Value::Bool(b), Value::String(s)) => {
            s == if *b { "true" } else { "false" }
        }
        _ => a == b,
    }
}

impl<'de> Deserialize<'de> for Selector {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(SelectorVisitor)
    }
}

struct SelectorVisitor;

impl<'de> Visitor<'de> for SelectorVisitor {
    type Value = Selector;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of field names (or JSON pointers) to values, such as `{type: result}`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Selector, A::Error> {
        let mut rules = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let key = SelectorKey::parse(&key).map_err(de::Error::custom)?;
            let wanted = match map.next_value::<Value>()? {
                Value::Array(list) => list,
                one => vec![one],
            };
            if wanted.is_empty() || wanted.iter().any(|v| v.is_array() || v.is_object()) {
                return Err(de::Error::custom(
                    "a selector's value is a scalar or a list of scalars (any of them matches)",
                ));
            }
            rules.push((key, wanted));
        }
        if rules.is_empty() {
            return Err(de::Error::custom(
                "an empty selector would pick every record: name at least one field, such as `{type: result}`",
            ));
        }
        Ok(Selector(rules))
    }
}

/// When a final record reports a failure.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// The value at this pointer is `true` (`is_error: /is_error`).
    Flag(JsonPointer),
    /// The record matches (`is_error: {status: error}`).
    Matches(Selector),
}

impl Condition {
    /// Whether it holds for `record`.
    pub fn holds(&self, record: &Value) -> bool {
        match self {
            Condition::Flag(p) => p.resolve(record) == Some(&Value::Bool(true)),
            Condition::Matches(s) => s.matches(record),
        }
    }
}

impl<'de> Deserialize<'de> for Condition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Condition;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a JSON pointer to a boolean (`/is_error`) or a selector (`{status: error}`)",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Condition, E> {
                JsonPointer::parse(s)
                    .map(Condition::Flag)
                    .map_err(E::custom)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Condition, A::Error> {
                SelectorVisitor.visit_map(map).map(Condition::Matches)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> JsonPointer {
        JsonPointer::parse(s).unwrap()
    }

    #[test]
    fn pointers_resolve_texts_counts_and_statuses() {
        let r = json!({"result": "ok", "usage": {"in": 10, "cache": "5", "cost": 0.25, "frac": 2.6},
                       "err": {"status": "429"}, "n": null, "a/b": 1});
        assert_eq!(Pointers::one(p("/result")).text(&r).as_deref(), Some("ok"));
        assert_eq!(
            Pointers(vec![p("/n"), p("/usage/in")]).text(&r).as_deref(),
            Some("10")
        );
        let sum = Pointers(vec![p("/usage/in"), p("/usage/cache"), p("/missing")]);
        assert_eq!(sum.count(&r), Some(15));
        assert_eq!(Pointers::one(p("/usage/frac")).count(&r), Some(3));
        assert_eq!(Pointers::one(p("/missing")).count(&r), None);
        assert_eq!(Pointers::one(p("/usage/cost")).amount(&r), Some(0.25));
        assert_eq!(Pointers::one(p("/err/status")).status(&r), Some(429));
        assert_eq!(Pointers::one(p("/usage/in")).status(&r), None);
        assert_eq!(Pointers::one(p("/a~1b")).count(&r), Some(1));
        assert!(Pointers::one(p("")).text(&r).unwrap().starts_with('{'));
    }

    #[test]
    fn bad_pointers_say_how_to_write_them() {
        assert!(
            JsonPointer::parse("result")
                .unwrap_err()
                .contains("`/result`")
        );
        assert!(JsonPointer::parse("/a~2").unwrap_err().contains("`~`"));
    }

    #[test]
    fn selectors_compare_scalars_leniently() {
        let s = Selector(vec![
            (
                SelectorKey::Field("type".into()),
                vec![json!("result"), json!("error")],
            ),
            (SelectorKey::Pointer(p("/e/code")), vec![json!("429")]),
        ]);
        assert!(s.matches(&json!({"type": "error", "e": {"code": 429}})));
        assert!(!s.matches(&json!({"type": "other", "e": {"code": 429}})));
        assert!(!s.matches(&json!({"type": "result"})));
        let null = Selector(vec![(SelectorKey::Field("x".into()), vec![Value::Null])]);
        assert!(null.matches(&json!({})));
        assert!(Condition::Flag(p("/is_error")).holds(&json!({"is_error": true})));
        assert!(!Condition::Flag(p("/is_error")).holds(&json!({"is_error": "true"})));
    }
}
