//! Reading the tools' YAML files (manifests, `error_codes.yaml`, the policy
//! file) strictly, as the config file is read: an unknown key or a wrong
//! type is an error with its line and column.
//!
//! Checks that come after parsing (a duplicate input name, a bad glob) know
//! the place of the fault as a path of keys and indexes (`inputs[2].name`);
//! [`Node`], a second reading of the same text that keeps only the shape
//! and the location of every node, turns that path into a line.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{MessageFormatter, Spanned};

/// What is wrong with a YAML text, and where when known (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlFault {
    /// The line, when known.
    pub line: Option<u64>,
    /// The column, when known.
    pub column: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl YamlFault {
    /// ", line L column C" (or less), for messages.
    pub fn location(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!(", line {l} column {c}"),
            (Some(l), None) => format!(", line {l}"),
            _ => String::new(),
        }
    }
}

/// Deserialize `text` strictly into `T`.
pub(crate) fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlFault> {
    let options = serde_saphyr::options! {
        // YAML 1.1's `yes`/`on`/`y` booleans would turn values into `true`.
        strict_booleans: true,
    };
    serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let at = e.location().filter(|l| l.line() > 0);
        let message = serde_saphyr::DefaultMessageFormatter.format_message(&e);
        let message: String = message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let message = match message.split_once(", set DuplicateKeyPolicy") {
            Some((head, _)) => head.to_owned(),
            None => message,
        };
        YamlFault {
            line: at.map(|l| l.line()),
            column: at.map(|l| l.column()),
            message,
        }
    })
}

/// A map in file order, with the location of each key. `null` is empty.
#[derive(Debug)]
pub(crate) struct Entries<V>(pub Vec<(Spanned<String>, V)>);

impl<V> Default for Entries<V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Entries<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<V>(std::marker::PhantomData<V>);
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
        d.deserialize_any(V2(std::marker::PhantomData))
    }
}

/// One step of a path into a YAML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A map's key.
    Key(String),
    /// A list's index.
    Index(usize),
}

/// A path into a document, as written in messages (`inputs[1].name`).
pub(crate) fn path_text(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) if out.is_empty() => out.push_str(k),
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The shape of a document with the location of every node.
#[derive(Debug)]
pub(crate) enum Node {
    Map(Vec<(Spanned<Key>, Spanned<Node>)>),
    Seq(Vec<Spanned<Node>>),
    Scalar,
}

/// A map key of any scalar type, as text.
#[derive(Debug)]
pub(crate) struct Key(pub String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key, E> {
                Ok(Key(s.to_owned()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Key, E> {
                Ok(Key(n.to_string()))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Key, E> {
                Ok(Key(n.to_string()))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Key, E> {
                Ok(Key(n.to_string()))
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Key, E> {
                Ok(Key(b.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
                Ok(Key(String::new()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut all = Vec::new();
                while let Some(n) = seq.next_element::<Spanned<Node>>()? {
                    all.push(n);
                }
                Ok(Node::Seq(all))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut all = Vec::new();
                while let Some(entry) = map.next_entry::<Spanned<Key>, Spanned<Node>>()? {
                    all.push(entry);
                }
                Ok(Node::Map(all))
            }
        }
        d.deserialize_any(V)
    }
}

/// The line and column of the node at `path` in `text` (a key's own
/// location for a path ending in a key); the deepest node found when the
/// path goes further than the document (a default value has no place).
pub(crate) fn locate(text: &str, path: &[Step]) -> (Option<u64>, Option<u64>) {
    let Ok(root) = from_str::<Spanned<Node>>(text) else {
        return (None, None);
    };
    let mut at = (None, None);
    let mut node = &root;
    for step in path {
        let next = match (&node.value, step) {
            (Node::Map(entries), Step::Key(k)) => entries
                .iter()
                .find(|(key, _)| key.value.0 == *k)
                .map(|(key, value)| (key.referenced, value)),
            (Node::Seq(items), Step::Index(i)) => items.get(*i).map(|v| (v.referenced, v)),
            _ => None,
        };
        let Some((place, value)) = next else { break };
        at = (Some(place.line()), Some(place.column()));
        node = value;
    }
    (
        at.0.filter(|l| *l > 0),
        at.1.filter(|_| at.0.is_some_and(|l| l > 0)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_located_at_its_key_or_item() {
        let text = "a:\n  b:\n    - x\n    - {c: 1, d: 2}\n";
        let at = |p: &[Step]| locate(text, p).0;
        assert_eq!(at(&[Step::Key("a".into())]), Some(1));
        assert_eq!(at(&[Step::Key("a".into()), Step::Key("b".into())]), Some(2));
        let d = [
            Step::Key("a".into()),
            Step::Key("b".into()),
            Step::Index(1),
            Step::Key("d".into()),
        ];
        assert_eq!(at(&d), Some(4));
        assert_eq!(locate(text, &d).1, Some(14));
        // Past the document: the deepest node found.
        assert_eq!(
            at(&[Step::Key("a".into()), Step::Key("zz".into())]),
            Some(1)
        );
        assert_eq!(path_text(&d), "a.b[1].d");
    }
}
