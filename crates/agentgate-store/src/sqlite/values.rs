//! How record fields are written to and read from SQLite columns.

use std::str::FromStr;

use agentgate_protocol::ErrorKind;
use jiff::Timestamp;

use super::DbError;

/// A timestamp as stored: RFC 3339 in UTC with nine fractional digits, fixed
/// width so that text order is time order.
pub(super) fn timestamp_to_sql(ts: Timestamp) -> String {
    format!("{ts:.9}")
}

pub(super) fn timestamp_from_sql(column: &'static str, text: String) -> Result<Timestamp, DbError> {
    text.parse().map_err(|_| DbError::Invalid {
        column,
        value: text,
    })
}

pub(super) fn opt_timestamp_from_sql(
    column: &'static str,
    text: Option<String>,
) -> Result<Option<Timestamp>, DbError> {
    text.map(|text| timestamp_from_sql(column, text))
        .transpose()
}

/// Why a row could not be read, for a listing's
/// [`UnreadableRow`](crate::UnreadableRow).
pub(super) fn describe(error: DbError) -> String {
    match error {
        DbError::Sql(e) => e.to_string(),
        DbError::Json { op, source } => format!("failed to {op}: {source}"),
        DbError::Invalid { column, value } => {
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
pub(super) fn name_from_sql<T: FromStr>(column: &'static str, text: String) -> Result<T, DbError> {
    text.parse().map_err(|_| DbError::Invalid {
        column,
        value: text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_fixed_width_so_text_order_is_time_order() {
        let whole: Timestamp = "2026-05-01T12:00:00Z".parse().unwrap();
        let later: Timestamp = "2026-05-01T12:00:00.5Z".parse().unwrap();
        let (a, b) = (timestamp_to_sql(whole), timestamp_to_sql(later));
        assert_eq!(a, "2026-05-01T12:00:00.000000000Z");
        assert_eq!(a.len(), b.len());
        assert!(a < b);
        assert_eq!(timestamp_from_sql("t", b).unwrap(), later);
    }

    #[test]
    fn an_unknown_error_kind_reads_as_unknown() {
        assert_eq!(
            error_kind_from_sql(Some("quota".into())),
            Some(ErrorKind::Quota)
        );
        assert_eq!(
            error_kind_from_sql(Some("from_the_future".into())),
            Some(ErrorKind::Unknown)
        );
        assert_eq!(error_kind_from_sql(None), None);
    }
}
