//! JSON taken from outside, read strictly: an object that gives the same key
//! twice is refused.
//!
//! serde_json keeps the last of two equal keys without a word, so
//! `{"model": "a", "model": "b"}` means whatever the reader happens to
//! keep, and a check that looked at one copy can be passed by the other.
//! Every JSON agentgate takes from a caller (a request body of `agentgate
//! serve`, a workflow's `--input`, an MCP message, a tool's protocol line)
//! goes through [`from_slice`] or [`from_str`] instead: a first pass walks
//! the text and fails at the first repeated key (keys compared after their
//! escapes are decoded, so `"a"` and `"\u0061"` are the same key), then
//! serde_json reads it as usual. Both passes keep serde_json's error type,
//! so a caller tells a syntax fault (`Category::Syntax`) from a refused
//! document (`Category::Data`, as the repeated key is) as before; the
//! message names the key and where it is (`duplicate key `model` in the
//! object at `agent` at line 1 column 31`).

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess};

/// Reads `bytes` as JSON into `T`, refusing a key given twice in an object.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_json::Error> {
    check_unique_keys(bytes)?;
    serde_json::from_slice(bytes)
}

/// Reads `text` as JSON into `T`, refusing a key given twice in an object.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    from_slice(text.as_bytes())
}

/// Fails at the first object of `bytes` that gives a key twice (and, as
/// serde_json would, at a syntax fault or trailing characters).
pub fn check_unique_keys(bytes: &[u8]) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    UniqueKeys { at: &Place::Top }.deserialize(&mut de)?;
    de.end()
}

/// The keys of the top-level object of `bytes`, in order, repeats
/// included; empty when the document is not an object. For a caller that
/// must tell which key a refused document repeats (a JSON-RPC server
/// answers a request whose `id` is given once, and not one whose `id` is
/// given twice).
pub fn top_level_keys(bytes: &[u8]) -> Result<Vec<String>, serde_json::Error> {
    struct Keys;
    impl<'de> de::Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<de::IgnoredAny>()?;
                keys.push(key);
            }
            Ok(keys)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            while seq.next_element::<de::IgnoredAny>()?.is_some() {}
            Ok(Vec::new())
        }
        fn visit_bool<E>(self, _: bool) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_i64<E>(self, _: i64) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_u64<E>(self, _: u64) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_f64<E>(self, _: f64) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_str<E>(self, _: &str) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_unit<E>(self) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let keys = de.deserialize_any(Keys)?;
    de.end()?;
    Ok(keys)
}

/// Where a value is, for the message: the top, or under a key or an index
/// of its parent.
enum Place<'p> {
    Top,
    Key(&'p Place<'p>, &'p str),
    Index(&'p Place<'p>, usize),
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Top => Ok(()),
            Place::Key(Place::Top, key) => write!(f, "{key}"),
            Place::Key(parent, key) => write!(f, "{parent}.{key}"),
            Place::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// Walks one value, checking every object in it.
struct UniqueKeys<'p> {
    at: &'p Place<'p>,
}

impl<'de> DeserializeSeed<'de> for UniqueKeys<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> de::Visitor<'de> for UniqueKeys<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i128<E>(self, _: i128) -> Result<(), E> {
        Ok(())
    }
    fn visit_u128<E>(self, _: u128) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while seq
            .next_element_seed(UniqueKeys {
                at: &Place::Index(self.at, index),
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen: HashSet<String> = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                let object = match self.at {
                    Place::Top => "the top-level object".to_owned(),
                    at => format!("the object at `{at}`"),
                };
                return Err(de::Error::custom(format_args!(
                    "duplicate key `{key}` in {object}"
                )));
            }
            map.next_value_seed(UniqueKeys {
                at: &Place::Key(self.at, &key),
            })?;
            seen.insert(key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn a_repeated_key_is_refused_naming_it_and_its_place() {
        for (text, says) in [
            (
                r#"{"model":"a","model":"b"}"#,
                "duplicate key `model` in the top-level object at line 1 column",
            ),
            (
                r#"{"env":{"A":"1","B":"2","A":"3"}}"#,
                "duplicate key `A` in the object at `env`",
            ),
            (
                r#"{"steps":[{"id":"x"},{"id":"y","id":"z"}]}"#,
                "duplicate key `id` in the object at `steps[1]`",
            ),
            (
                r#"[{"a":{"b":[1,{"c":1,"c":2}]}}]"#,
                "in the object at `[0].a.b[1]`",
            ),
            // The same key once its escape is decoded.
            (r#"{"a":1,"\u0061":2}"#, "duplicate key `a`"),
        ] {
            let e = from_str::<Value>(text).unwrap_err();
            assert!(e.to_string().contains(says), "{text}: {e}");
            assert!(
                e.is_data(),
                "{text}: a refused document, not a syntax fault"
            );
        }
    }

    #[test]
    fn documents_without_repeats_read_as_serde_json_reads_them() {
        for text in [
            r#"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#,
            "[]",
            "null",
            r#""text""#,
            "1.5e3",
            r#"{"":1," ":2}"#,
        ] {
            assert_eq!(
                from_str::<Value>(text).unwrap(),
                serde_json::from_str::<Value>(text).unwrap(),
                "{text}"
            );
        }
    }

    #[test]
    fn the_top_level_keys_come_in_order_with_their_repeats() {
        assert_eq!(
            top_level_keys(br#"{"id":1,"x":{"id":2},"id":3}"#).unwrap(),
            ["id", "x", "id"]
        );
        assert!(top_level_keys(b"[1,2]").unwrap().is_empty());
        assert!(top_level_keys(b"{").is_err());
    }

    #[test]
    fn syntax_faults_stay_syntax_faults() {
        for text in ["{", r#"{"a":1,}"#, "nope", r#"{"a":1} x"#] {
            let e = from_str::<Value>(text).unwrap_err();
            assert!(e.is_syntax() || e.is_eof(), "{text}: {e}");
        }
    }
}
