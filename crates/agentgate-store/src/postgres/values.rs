//! How record fields are written to and read from PostgreSQL columns.
//!
//! Counts are `u64` in the records and `bigint` in the database: a value
//! above `i64::MAX` is an error when written ([`PgError::TooLarge`]), a
//! negative one an error when read ([`PgError::Invalid`]); neither wraps.
//! Times are `timestamptz`, which keeps microseconds: a record written with
//! finer times reads back cut to the microsecond.

use std::str::FromStr;

use agentgate_protocol::ErrorKind;

use super::PgError;

/// A bound of a window of times (`>=` or `<`) as the stored times compare
/// with it: rounded up to the microsecond, so that a stored time (cut to
/// the microsecond) is in the window exactly when it is at or after the
/// given start and before the given end.
pub(super) fn window_bound(at: jiff::Timestamp) -> jiff::Timestamp {
    let up = jiff::TimestampRound::new()
        .smallest(jiff::Unit::Microsecond)
        .mode(jiff::RoundMode::Ceil);
    at.round(up).unwrap_or(at)
}

/// `value` as a `bigint` for `column`.
pub(super) fn to_bigint(column: &'static str, value: u64) -> Result<i64, PgError> {
    i64::try_from(value).map_err(|_| PgError::TooLarge { column, value })
}

/// An optional `u64` as a `bigint` for `column`.
pub(super) fn opt_to_bigint(
    column: &'static str,
    value: Option<u64>,
) -> Result<Option<i64>, PgError> {
    value.map(|v| to_bigint(column, v)).transpose()
}

/// A `bigint` read from `column` as a `u64`.
pub(super) fn from_bigint(column: &'static str, value: i64) -> Result<u64, PgError> {
    u64::try_from(value).map_err(|_| PgError::Invalid {
        column,
        value: value.to_string(),
    })
}

/// An optional `bigint` read from `column` as a `u64`.
pub(super) fn opt_from_bigint(
    column: &'static str,
    value: Option<i64>,
) -> Result<Option<u64>, PgError> {
    value.map(|v| from_bigint(column, v)).transpose()
}

/// A `bigint` read from `column` as a `u32` (a pid).
pub(super) fn u32_from_bigint(column: &'static str, value: i64) -> Result<u32, PgError> {
    u32::try_from(value).map_err(|_| PgError::Invalid {
        column,
        value: value.to_string(),
    })
}

/// Why `row` could not be read, for a listing's
/// [`UnreadableRow`](crate::UnreadableRow). The driver names a column it
/// could not decode by its position: the message names it by its name.
pub(super) fn describe(row: &tokio_postgres::Row, error: PgError) -> String {
    match error {
        PgError::Sql(e) => {
            let message = e.to_string();
            let column = row
                .columns()
                .iter()
                .enumerate()
                .find(|(i, _)| message == format!("error deserializing column {i}"))
                .map(|(_, c)| c.name());
            let cause = std::error::Error::source(&e).map(ToString::to_string);
            match (column, cause) {
                (Some(name), Some(cause)) => format!("column {name} does not read: {cause}"),
                (None, Some(cause)) => format!("{message}: {cause}"),
                (_, None) => message,
            }
        }
        PgError::Json { op, source } => format!("failed to {op}: {source}"),
        PgError::Invalid { column, value } => {
            format!("{column} holds `{value}`, not a valid value")
        }
        other => format!("{other:?}"),
    }
}

/// An error kind as stored; one this version does not know (written by a
/// newer agentgate) reads as `unknown` rather than failing the whole query.
pub(super) fn error_kind_from_sql(text: Option<String>) -> Option<ErrorKind> {
    text.map(|text| ErrorKind::from_str(&text).unwrap_or(ErrorKind::Unknown))
}

/// A closed set of names (`RunStatus`, `QuotaStatus`) as stored.
pub(super) fn name_from_sql<T: FromStr>(column: &'static str, text: String) -> Result<T, PgError> {
    text.parse().map_err(|_| PgError::Invalid {
        column,
        value: text,
    })
}

/// A `usize` bound (`LIMIT`, `OFFSET`) as a `bigint`: `usize::MAX` means
/// "all", so it is clamped rather than refused.
pub(super) fn clamp_bigint(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_above_the_bigint_range_are_errors_never_wrapped() {
        assert_eq!(to_bigint("c", 5).unwrap(), 5);
        assert!(matches!(
            to_bigint("runs.prompt_bytes", u64::MAX),
            Err(PgError::TooLarge {
                column: "runs.prompt_bytes",
                value: u64::MAX
            })
        ));
        assert!(matches!(from_bigint("c", -1), Err(PgError::Invalid { .. })));
        assert_eq!(clamp_bigint(usize::MAX), i64::MAX);
    }
}
