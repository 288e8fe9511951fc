//! The [`Redactor`]: every secret value of a run, found and replaced in one
//! pass over bytes, text or a JSON value.
//!
//! Each secret is searched in several forms: as it is, and as JSON
//! encoders write it inside a string (`"` and `\` escaped, `/` as `\/`,
//! `<>&` as `\u003c`..., non-ASCII as `\uXXXX` in either case), so a
//! value is caught inside a CLI's JSON line before it is decoded. All
//! forms of all secrets go into one Aho-Corasick automaton matched
//! leftmost-longest: where two secrets overlap, the longer one is
//! replaced whole. Values shorter than [`MIN_SECRET_BYTES`] are not
//! searched: they would mask ordinary words and numbers.

use std::borrow::Cow;
use std::fmt::Write as _;

use aho_corasick::{AhoCorasick, MatchKind};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Secret values shorter than this many bytes are not redacted.
pub const MIN_SECRET_BYTES: usize = 8;

/// The marker of a value from the config's `redact:` list.
pub const CONFIG_MARKER: &str = "[redacted]";

/// The marker of a secret from the variable or flag `name`:
/// `[redacted:NAME]` (characters other than letters, digits, `_`, `-` and
/// `.` become `_`, so the marker is safe inside a JSON string).
pub(super) fn marker(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("[redacted:{name}]")
}

/// Collects a run's secrets (value and marker), then builds the
/// [`Redactor`]. The first marker given for a value is kept.
#[derive(Debug, Clone, Default)]
pub struct RedactorBuilder {
    secrets: Vec<(String, String)>,
}

impl RedactorBuilder {
    /// No secrets yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The variable `name` of the run's environment: kept when its name
    /// looks secret ([`super::is_secret`]).
    pub fn env(&mut self, name: &str, value: &str) -> &mut Self {
        if super::is_secret(name) {
            self.add(value, marker(name));
        }
        self
    }

    /// The value of the secret flag `flag` ([`super::secret_flag_values`]).
    pub fn flag(&mut self, flag: &str, value: &str) -> &mut Self {
        self.add(value, marker(flag));
        self
    }

    /// A value of the config's `redact:` list.
    pub fn value(&mut self, value: &str) -> &mut Self {
        self.add(value, CONFIG_MARKER.to_owned());
        self
    }

    /// How many secrets are kept.
    pub fn len(&self) -> usize {
        self.secrets.len()
    }

    /// Whether no secret is kept.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    fn add(&mut self, value: &str, marker: String) {
        if value.len() >= MIN_SECRET_BYTES && !self.secrets.iter().any(|(v, _)| v == value) {
            self.secrets.push((value.to_owned(), marker));
        }
    }

    /// The redactor of these secrets.
    pub fn build(&self) -> Redactor {
        let mut patterns: Vec<String> = Vec::new();
        let mut markers: Vec<String> = Vec::new();
        for (value, marker) in &self.secrets {
            for form in forms(value) {
                if !patterns.contains(&form) {
                    patterns.push(form);
                    markers.push(marker.clone());
                }
            }
        }
        let matcher = if patterns.is_empty() {
            None
        } else {
            match AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&patterns)
            {
                Ok(m) => Some(m),
                Err(e) => {
                    // Only past limits of billions of states; a handful of
                    // values never gets there.
                    tracing::error!("cannot search for the run's secrets: {e}");
                    None
                }
            }
        };
        Redactor {
            longest: patterns.iter().map(String::len).max().unwrap_or(0),
            secrets: self.secrets.clone(),
            matcher,
            markers,
        }
    }
}

/// Replaces a run's secret values with their markers. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<(String, String)>,
    matcher: Option<AhoCorasick>,
    /// The marker of each pattern of `matcher`, by pattern index.
    markers: Vec<String>,
    /// The length of the longest form of a secret, in bytes.
    longest: usize,
}

impl Redactor {
    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.matcher.is_none()
    }

    /// The length in bytes of the longest form of a secret searched for (0
    /// without secrets): text cut short may end with the first bytes of one,
    /// which no search finds; dropping this many bytes less one from the
    /// end drops them.
    pub fn longest_secret(&self) -> usize {
        self.longest
    }

    /// A builder holding this redactor's secrets, to add more.
    pub fn to_builder(&self) -> RedactorBuilder {
        RedactorBuilder {
            secrets: self.secrets.clone(),
        }
    }

    fn marker_of(&self, pattern: usize) -> &str {
        self.markers
            .get(pattern)
            .map_or(CONFIG_MARKER, String::as_str)
    }

    /// `bytes` with every secret replaced (borrowed when there is none).
    pub fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let Some(m) = &self.matcher else {
            return Cow::Borrowed(bytes);
        };
        if !m.is_match(bytes) {
            return Cow::Borrowed(bytes);
        }
        let mut out = Vec::with_capacity(bytes.len());
        m.replace_all_with_bytes(bytes, &mut out, |found, _, dst| {
            dst.extend_from_slice(self.marker_of(found.pattern().as_usize()).as_bytes());
            true
        });
        Cow::Owned(out)
    }

    /// `text` with every secret replaced (borrowed when there is none).
    pub fn redact_str<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(m) = &self.matcher else {
            return Cow::Borrowed(text);
        };
        if !m.is_match(text) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        m.replace_all_with(text, &mut out, |found, _, dst| {
            dst.push_str(self.marker_of(found.pattern().as_usize()));
            true
        });
        Cow::Owned(out)
    }

    /// Redact every string of `value` (object keys too); whether anything
    /// changed. Numbers, booleans and the structure are left as they are.
    pub fn redact_json(&self, value: &mut Value) -> bool {
        if self.is_empty() {
            return false;
        }
        match value {
            Value::String(s) => match self.redact_str(s) {
                Cow::Borrowed(_) => false,
                Cow::Owned(r) => {
                    *s = r;
                    true
                }
            },
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, v| self.redact_json(v) | changed),
            Value::Object(map) => {
                let mut changed = false;
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    if let Cow::Owned(new_key) = self.redact_str(&key)
                        && let Some(v) = map.remove(&key)
                    {
                        map.insert(new_key, v);
                        changed = true;
                    }
                }
                map.values_mut()
                    .fold(changed, |changed, v| self.redact_json(v) | changed)
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }

    /// `value` with every string redacted, through its JSON form: `None`
    /// when it holds no secret.
    ///
    /// Every event goes through here, so the common case (no secret) costs
    /// one serialisation and one scan: the JSON text holds a string's
    /// secret in the escaped form that `forms` also searches for. Only a
    /// hit builds the tree and walks it.
    pub fn redacted<T: Serialize + DeserializeOwned>(
        &self,
        value: &T,
    ) -> Result<Option<T>, serde_json::Error> {
        let Some(m) = &self.matcher else {
            return Ok(None);
        };
        let text = serde_json::to_vec(value)?;
        if !m.is_match(&text) {
            return Ok(None);
        }
        let mut json: Value = serde_json::from_slice(&text)?;
        if !self.redact_json(&mut json) {
            return Ok(None);
        }
        serde_json::from_value(json).map(Some)
    }
}

/// The forms `value` is searched in: as it is, and as JSON encoders write
/// it between quotes.
fn forms(value: &str) -> Vec<String> {
    let plain = Escape::default();
    let all = [
        plain,
        Escape {
            slash: true,
            ..plain
        },
        Escape {
            html: true,
            ..plain
        },
        Escape {
            ascii: true,
            ..plain
        },
        Escape {
            ascii: true,
            upper: true,
            ..plain
        },
    ];
    let mut out = vec![value.to_owned()];
    for e in all {
        let form = e.apply(value);
        if !out.contains(&form) {
            out.push(form);
        }
    }
    out
}

/// How a JSON encoder escapes a string's characters beyond `"`, `\` and
/// control characters.
#[derive(Debug, Clone, Copy, Default)]
struct Escape {
    /// `/` as `\/`.
    slash: bool,
    /// `<`, `>`, `&`, U+2028 and U+2029 as `\uXXXX` (Go).
    html: bool,
    /// Every non-ASCII character as `\uXXXX` (surrogate pairs beyond the
    /// BMP).
    ascii: bool,
    /// Upper-case hex digits in `\uXXXX`.
    upper: bool,
}

impl Escape {
    fn apply(self, value: &str) -> String {
        let mut out = String::with_capacity(value.len() + 8);
        let unicode = |out: &mut String, unit: u16| {
            let _ = if self.upper {
                write!(out, "\\u{unit:04X}")
            } else {
                write!(out, "\\u{unit:04x}")
            };
        };
        for c in value.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '/' if self.slash => out.push_str("\\/"),
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' if self.html => {
                    unicode(&mut out, c as u16);
                }
                c if (c as u32) < 0x20 => unicode(&mut out, c as u16),
                c if self.ascii && !c.is_ascii() => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        unicode(&mut out, *unit);
                    }
                }
                c => out.push(c),
            }
        }
        out
    }
}
