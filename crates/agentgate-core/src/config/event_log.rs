//! `event_log:`: how much of each run's events the store keeps.
//!
//! ```yaml
//! event_log:
//!   max_bytes: 256MiB
//! ```
//!
//! Past `max_bytes` a run's log keeps only the events that frame the run
//! and its result, after a note that says so
//! ([`agentgate_store::RunFiles::bound_log`]). Every command that writes
//! runs (`run`, `serve`, `worker`, `tool`, `workflow`) bounds its store's
//! logs with it ([`agentgate_store::RunStore::set_event_log_bound`]).

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_saphyr::Spanned;

use super::yaml::Fault;

/// The smallest `max_bytes` taken: a smaller log would hold little more
/// than the note that it was cut.
pub const EVENT_LOG_MIN_BYTES: u64 = 1024 * 1024;

/// `event_log:` checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventLogSpec {
    /// The bound on each run's event log, in bytes.
    pub max_bytes: u64,
}

impl Default for EventLogSpec {
    fn default() -> Self {
        EventLogSpec {
            max_bytes: agentgate_store::DEFAULT_EVENT_LOG_MAX,
        }
    }
}

/// `event_log:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEventLog {
    max_bytes: Option<Spanned<Bytes>>,
}

/// Check `event_log:`.
pub(super) fn convert(raw: &RawEventLog) -> Result<EventLogSpec, Fault> {
    let mut spec = EventLogSpec::default();
    if let Some(max) = &raw.max_bytes {
        if max.value.0 < EVENT_LOG_MIN_BYTES {
            return Err(Fault::at(
                max,
                format!(
                    "event_log.max_bytes: {} bytes is less than the minimum of 1MiB",
                    max.value.0
                ),
            ));
        }
        spec.max_bytes = max.value.0;
    }
    Ok(spec)
}

/// A size: whole bytes, or a string such as `512KiB`, `256MiB`, `1GiB`
/// (also `KB`, `MB`, `GB`, the same powers of 1024; a space is allowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a size (bytes, or a string such as 512KiB, 256MiB, 1GiB)")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Bytes, E> {
                Ok(Bytes(n))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Bytes, E> {
                u64::try_from(n)
                    .map(Bytes)
                    .map_err(|_| E::custom(format!("`{n}` is negative: give a size")))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Bytes, E> {
                parse_bytes(s).map(Bytes).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

fn parse_bytes(text: &str) -> Result<u64, String> {
    let bad = || format!("`{text}` is not a size: give bytes, or e.g. 512KiB, 256MiB, 1GiB");
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(bad()),
    };
    n.checked_mul(scale).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{invalid, parse};

    #[test]
    fn the_bound_is_read_in_bytes_or_with_a_unit_and_defaults_to_256_mib() {
        assert_eq!(
            parse("version: 1\n").unwrap().event_log.max_bytes,
            256 * 1024 * 1024
        );
        for (given, bytes) in [
            ("2097152", 2 << 20),
            ("4MiB", 4 << 20),
            ("\"8 mb\"", 8 << 20),
            ("1GiB", 1 << 30),
            ("2048KiB", 2 << 20),
        ] {
            let cfg = parse(&format!("version: 1\nevent_log:\n  max_bytes: {given}\n")).unwrap();
            assert_eq!(cfg.event_log.max_bytes, bytes, "{given}");
        }
    }

    #[test]
    fn bad_bounds_are_refused_with_their_line() {
        for (text, says) in [
            (
                "version: 1\nevent_log:\n  max_bytes: 1000\n",
                "minimum of 1MiB",
            ),
            ("version: 1\nevent_log:\n  max_bytes: lots\n", "not a size"),
            ("version: 1\nevent_log:\n  max_bytes: 3TiB\n", "not a size"),
            ("version: 1\nevent_log:\n  max_byte: 4MiB\n", "max_byte"),
        ] {
            let (at, message) = invalid(text);
            assert_eq!(at, Some(3), "{text}: {message}");
            assert!(message.contains(says), "{text}: {message}");
        }
    }
}
