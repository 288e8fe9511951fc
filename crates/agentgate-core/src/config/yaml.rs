//! Reading YAML strictly: the parser options, errors with their location,
//! and the small value shapes the sections share (ordered maps, durations,
//! string lists).

use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{MessageFormatter, Spanned};

/// Where something is in the file (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct At {
    pub line: u64,
    pub column: u64,
}

impl At {
    pub fn of<T>(s: &Spanned<T>) -> At {
        At {
            line: s.referenced.line(),
            column: s.referenced.column(),
        }
    }
}

/// A fault of the file: what is wrong, and where when known.
#[derive(Debug, Clone)]
pub(super) struct Fault {
    pub at: Option<At>,
    pub message: String,
}

impl Fault {
    pub fn new(at: Option<At>, message: impl Into<String>) -> Fault {
        Fault {
            at,
            message: message.into(),
        }
    }

    pub fn at<T>(s: &Spanned<T>, message: impl Into<String>) -> Fault {
        Fault::new(Some(At::of(s)), message)
    }
}

/// Deserialize `text` strictly into `T`.
pub(super) fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Fault> {
    let options = serde_saphyr::options! {
        // YAML 1.1's `yes`/`on`/`y` booleans would turn arguments into `true`.
        strict_booleans: true,
    };
    serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let at = e.location().map(|l| At {
            line: l.line(),
            column: l.column(),
        });
        let message = serde_saphyr::DefaultMessageFormatter.format_message(&e);
        // Keep the error on one line, whatever the YAML held.
        let message: String = message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        // The library's hint is for programmers, not for the file's author.
        let message = match message.split_once(", set DuplicateKeyPolicy") {
            Some((head, _)) => head.to_owned(),
            None => message,
        };
        Fault::new(at.filter(|a| a.line > 0), message)
    })
}

/// A map in file order, with the location of each key. `null` is empty.
#[derive(Debug)]
pub(super) struct Entries<V>(pub Vec<(Spanned<String>, V)>);

impl<V> Default for Entries<V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Entries<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
            type Value = Entries<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of names to values")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Entries<V>, E> {
                Ok(Entries::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<V>, A::Error> {
                let mut all = Vec::new();
                while let Some(entry) = map.next_entry::<Spanned<String>, V>()? {
                    all.push(entry);
                }
                Ok(Entries(all))
            }
        }
        d.deserialize_any(V2(PhantomData))
    }
}

/// A scalar read as text: strings and integers (`3`), so that numbers in
/// arguments and variables need no quotes. Booleans and floats are refused
/// (YAML would have changed their spelling).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Text, E> {
                Ok(Text(s.to_owned()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Text, E> {
                Ok(Text(n.to_string()))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Text, E> {
                Ok(Text(n.to_string()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Text, E> {
                Err(E::custom("YAML reads this value as a number: quote it"))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Text, E> {
                Err(E::custom("YAML reads this value as a boolean: quote it"))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
                Err(E::custom("the value is empty (null): give a string"))
            }
        }
        d.deserialize_any(V)
    }
}

/// A list of [`Text`].
pub(super) fn texts(v: &[Text]) -> Vec<String> {
    v.iter().map(|t| t.0.clone()).collect()
}

/// A map of names to [`Text`], in file order.
pub(super) fn text_pairs(e: &Entries<Text>) -> Vec<(String, String)> {
    e.0.iter()
        .map(|(k, v)| (k.value.clone(), v.0.clone()))
        .collect()
}

/// A duration: integer (or decimal) seconds, or a string such as `90s`,
/// `1500ms`, `10m`, `1h`, `1h30m`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Secs(pub Duration);

impl<'de> Deserialize<'de> for Secs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Secs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration (seconds, or a string such as 90s, 10m, 1h)")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Secs, E> {
                Ok(Secs(Duration::from_secs(n)))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Secs, E> {
                u64::try_from(n)
                    .map(|n| Secs(Duration::from_secs(n)))
                    .map_err(|_| E::custom(format!("`{n}` is negative: give a duration")))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Secs, E> {
                Duration::try_from_secs_f64(n)
                    .map(Secs)
                    .map_err(|_| E::custom(format!("`{n}` is not a duration")))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Secs, E> {
                crate::settings::parse_duration(s)
                    .map(Secs)
                    .map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// The shape of a YAML node, for telling the file formats apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Map,
    Seq,
    Scalar,
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Shape;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Shape, E> {
                Ok(Shape::Scalar)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(Shape::Seq)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
                while map
                    .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Shape::Map)
            }
        }
        d.deserialize_any(V)
    }
}

/// The line of a value (1-based).
pub(super) fn line<T>(s: &Spanned<T>) -> u64 {
    s.referenced.line()
}
