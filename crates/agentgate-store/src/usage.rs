//! Usage reports: what the stored runs spent, by time bucket and one
//! dimension (`agentgate usage`, `GET /v1/usage`).
//!
//! A report covers the agent runs (kind `agent`: tool and workflow runs
//! spend no tokens of their own) that *started* in `[since, until)`, bucketed
//! by their start's UTC day, ISO week (from Monday) or month, and grouped by
//! one dimension: provider, model (the model the last attempt used), agent,
//! chain, session name, or label (`key=value`). A run's figures are the
//! columns `finish_run` wrote from its envelope; a run still running counts
//! as a run with the tokens it has so far (none).
//!
//! How it stays fast: the migration `usage` gives `runs` the columns
//! `agent` and `chain` (generated from the envelope, so every writer fills
//! them and existing rows have them) and a partial index over the start
//! time, the dimensions, the outcome and the token and cost columns. A
//! month's report is then one range scan of that index and a `GROUP BY`
//! (see `docs/operating/benchmarks.md` for the figures at one million
//! runs). PostgreSQL reads the index alone (partial, `kind = 'agent'`).
//! SQLite's is over every run with `kind` in it (migration 14: SQLite never
//! covers a query with a partial index), so a report reads it alone except
//! by agent or chain, virtual generated columns it computes from the row.
//! The label dimension joins `labels` through its primary key.
//!
//! The backends return [`UsageCell`]s (sums per bucket, group, status and
//! error type); [`assemble`] folds them into a [`UsageReport`] here, so
//! both backends report alike.
//!
//! Not a dimension yet: the API token that submitted a run (runs do not
//! record it).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use serde::Serialize;

use crate::error::StoreError;

/// How a report's rows are bucketed in time (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageBucket {
    /// One row per UTC day.
    #[default]
    Day,
    /// One row per ISO week, named by its Monday.
    Week,
    /// One row per calendar month, named by its first day.
    Month,
}

impl UsageBucket {
    /// The name used on the command line and in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageBucket::Day => "day",
            UsageBucket::Week => "week",
            UsageBucket::Month => "month",
        }
    }
}

impl FromStr for UsageBucket {
    type Err = UsageParamError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "day" => Ok(UsageBucket::Day),
            "week" => Ok(UsageBucket::Week),
            "month" => Ok(UsageBucket::Month),
            other => Err(UsageParamError::Bucket(other.to_owned())),
        }
    }
}

/// The one dimension a report's rows are grouped by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsageGroup {
    /// The provider of the run's last attempt.
    Provider,
    /// The model the run's last attempt used.
    Model,
    /// The named agent of the run's last attempt.
    Agent,
    /// The failover chain the run followed.
    Chain,
    /// The session name (`--session`).
    Session,
    /// Labels: every `key=value` pair (a run with two labels counts in two
    /// rows), or with a key (`label:team`) that key's values only.
    Label(Option<String>),
    /// The API token that submitted the run (its label
    /// [`crate::SUBMITTER_TOKEN_LABEL`]; runs of no token are the null
    /// group).
    Token,
    /// The team of the token that submitted the run
    /// ([`crate::SUBMITTER_TEAM_LABEL`]).
    Team,
}

impl UsageGroup {
    /// The name used on the command line and in the API (`label:KEY` for
    /// one key).
    pub fn name(&self) -> String {
        match self {
            UsageGroup::Provider => "provider".to_owned(),
            UsageGroup::Model => "model".to_owned(),
            UsageGroup::Agent => "agent".to_owned(),
            UsageGroup::Chain => "chain".to_owned(),
            UsageGroup::Session => "session".to_owned(),
            UsageGroup::Label(None) => "label".to_owned(),
            UsageGroup::Label(Some(key)) => format!("label:{key}"),
            UsageGroup::Token => "token".to_owned(),
            UsageGroup::Team => "team".to_owned(),
        }
    }

    /// The label key whose values are the groups (`label:KEY`, `token`,
    /// `team`), bound by the backends as the query's third value.
    pub(crate) fn label_key(&self) -> Option<&str> {
        match self {
            UsageGroup::Label(Some(key)) => Some(key),
            UsageGroup::Token => Some(crate::SUBMITTER_TOKEN_LABEL),
            UsageGroup::Team => Some(crate::SUBMITTER_TEAM_LABEL),
            _ => None,
        }
    }
}

/// The condition narrowing a report to `query.team`'s runs, its value the
/// placeholder `p` (both backends; empty without a team).
pub(crate) fn team_condition(query: &UsageQuery, p: &str) -> String {
    match query.team {
        None => String::new(),
        Some(_) => format!(
            " AND runs.run_id IN (SELECT id FROM labels WHERE key = '{}' AND value = {p})",
            crate::SUBMITTER_TEAM_LABEL
        ),
    }
}

/// The SQL of a report's group (both backends): the key expression and the
/// join it needs. `null` is the backend's typed NULL (no group), `key_param`
/// the placeholder of a label key (bound by the caller as the third value).
pub(crate) fn group_sql(
    group: Option<&UsageGroup>,
    null: &str,
    key_param: &str,
) -> (String, String) {
    let column = |name: &str| (format!("runs.{name}"), String::new());
    match group {
        None => (null.to_owned(), String::new()),
        Some(UsageGroup::Provider) => column("provider"),
        Some(UsageGroup::Model) => column("final_model"),
        Some(UsageGroup::Agent) => column("agent"),
        Some(UsageGroup::Chain) => column("chain"),
        Some(UsageGroup::Session) => column("session_name"),
        Some(UsageGroup::Label(None)) => (
            "labels.key || '=' || labels.value".to_owned(),
            "LEFT JOIN labels ON labels.id = runs.run_id".to_owned(),
        ),
        Some(UsageGroup::Label(Some(_)) | UsageGroup::Token | UsageGroup::Team) => (
            "labels.value".to_owned(),
            format!("LEFT JOIN labels ON labels.id = runs.run_id AND labels.key = {key_param}"),
        ),
    }
}

impl FromStr for UsageGroup {
    type Err = UsageParamError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "provider" => Ok(UsageGroup::Provider),
            "model" => Ok(UsageGroup::Model),
            "agent" => Ok(UsageGroup::Agent),
            "chain" => Ok(UsageGroup::Chain),
            "session" => Ok(UsageGroup::Session),
            "label" => Ok(UsageGroup::Label(None)),
            "token" => Ok(UsageGroup::Token),
            "team" => Ok(UsageGroup::Team),
            other => match other.strip_prefix("label:") {
                Some(key) if !key.is_empty() => Ok(UsageGroup::Label(Some(key.to_owned()))),
                _ => Err(UsageParamError::Group(other.to_owned())),
            },
        }
    }
}

/// A parameter of a usage report that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageParamError {
    /// `--by` is not a bucket.
    #[error("unknown bucket `{0}`: use day, week or month")]
    Bucket(String),
    /// `--group` is not a dimension.
    #[error(
        "unknown group `{0}`: use provider, model, agent, chain, session, token, team, label or \
         label:KEY"
    )]
    Group(String),
    /// A date that is neither `YYYY-MM-DD` nor RFC 3339.
    #[error(
        "`{name}` is `{value}`: give a date (2026-11-01) or an RFC 3339 time (2026-11-01T08:00:00Z)"
    )]
    Time {
        /// `since` or `until`.
        name: &'static str,
        /// What was given.
        value: String,
    },
    /// `since` is not before `until`.
    #[error("the range is empty: since ({since}) must be before until ({until})")]
    EmptyRange {
        /// The start, as resolved.
        since: Timestamp,
        /// The end, as resolved.
        until: Timestamp,
    },
}

/// What a usage report covers. Build it with [`UsageQuery::from_params`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageQuery {
    /// The first instant covered.
    pub since: Timestamp,
    /// The first instant not covered.
    pub until: Timestamp,
    /// The time bucket of each row.
    pub by: UsageBucket,
    /// The dimension; `None`: one row per bucket.
    pub group: Option<UsageGroup>,
    /// Only the runs the API tokens of this team submitted (a team's
    /// reader's report: `GET /v1/usage` with a team token).
    pub team: Option<String>,
}

impl UsageQuery {
    /// A query from its parameters as text (the CLI's flags, the API's
    /// query). `since` defaults to the first day of `now`'s month (UTC),
    /// `until` to the first day of the next month. A date (`2026-11-01`)
    /// means that day's start for `since` and its end (the next day's
    /// start) for `until`, so `--since 2026-11-01 --until 2026-11-30` is
    /// November; an RFC 3339 time is taken as it is (`until` excluded).
    pub fn from_params(
        by: Option<&str>,
        group: Option<&str>,
        since: Option<&str>,
        until: Option<&str>,
        now: Timestamp,
    ) -> Result<UsageQuery, UsageParamError> {
        let by = by.map(str::parse).transpose()?.unwrap_or_default();
        let group = group.map(str::parse).transpose()?;
        let today = now.to_zoned(TimeZone::UTC).date();
        let month_start = today.first_of_month();
        let since = match since {
            Some(text) => parse_bound("since", text, false)?,
            None => day_start(month_start),
        };
        let until = match until {
            Some(text) => parse_bound("until", text, true)?,
            None => day_start(
                month_start
                    .last_of_month()
                    .tomorrow()
                    .unwrap_or(month_start),
            ),
        };
        if since >= until {
            return Err(UsageParamError::EmptyRange { since, until });
        }
        Ok(UsageQuery {
            since,
            until,
            by,
            group,
            team: None,
        })
    }
}

fn day_start(date: Date) -> Timestamp {
    date.to_zoned(TimeZone::UTC)
        .map(|z| z.timestamp())
        .unwrap_or(Timestamp::UNIX_EPOCH)
}

/// A bound read by the lists' parser (the same forms everywhere), its
/// error told as a usage parameter's.
fn parse_bound(name: &'static str, text: &str, end: bool) -> Result<Timestamp, UsageParamError> {
    let parsed = if end {
        crate::time_window::parse_until(text)
    } else {
        crate::time_window::parse_since(text)
    };
    parsed.map_err(|_| UsageParamError::Time {
        name,
        value: text.to_owned(),
    })
}

/// The figures of a set of runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UsageFigures {
    /// How many runs.
    pub runs: u64,
    /// Runs that succeeded.
    pub succeeded: u64,
    /// Runs that failed.
    pub failed: u64,
    /// Runs that were cancelled.
    pub cancelled: u64,
    /// Runs not ended yet (or whose process died before it recorded the end).
    pub running: u64,
    /// Runs by error type (`rate_limit`, `timeout`, ...), whatever their status.
    pub error_types: BTreeMap<String, u64>,
    /// Input tokens (not counting cache reads and writes).
    pub input_tokens: u64,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
    /// Input tokens read from the provider's cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the provider's cache.
    pub cache_write_tokens: u64,
    /// Output tokens spent on reasoning.
    pub reasoning_tokens: u64,
    /// Total tokens, as the runs recorded them.
    pub total_tokens: u64,
    /// The cost in USD of the runs that have one (see `runs_without_cost`).
    pub cost_usd: f64,
    /// Runs with no cost recorded (their CLI reported none): not in
    /// `cost_usd`.
    pub runs_without_cost: u64,
}

impl UsageFigures {
    fn add(&mut self, cell: &UsageCell) {
        self.runs += cell.runs;
        match cell.status.as_str() {
            "succeeded" => self.succeeded += cell.runs,
            "failed" => self.failed += cell.runs,
            "cancelled" => self.cancelled += cell.runs,
            _ => self.running += cell.runs,
        }
        if let Some(kind) = &cell.error_type {
            *self.error_types.entry(kind.clone()).or_default() += cell.runs;
        }
        self.input_tokens += cell.input_tokens;
        self.output_tokens += cell.output_tokens;
        self.cache_read_tokens += cell.cache_read_tokens;
        self.cache_write_tokens += cell.cache_write_tokens;
        self.reasoning_tokens += cell.reasoning_tokens;
        self.total_tokens += cell.total_tokens;
        self.cost_usd += cell.cost_usd;
        self.runs_without_cost += cell.runs.saturating_sub(cell.runs_with_cost);
    }
}

/// One row of a report: a bucket and a group's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageRow {
    /// The bucket's first day (`YYYY-MM-DD`, UTC).
    pub bucket: String,
    /// The group's value (`null`: runs without one, e.g. no agent).
    pub group: Option<String>,
    /// The figures.
    #[serde(flatten)]
    pub figures: UsageFigures,
}

/// A usage report: rows by bucket then group, and the totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageReport {
    /// The first instant covered.
    pub since: Timestamp,
    /// The first instant not covered.
    pub until: Timestamp,
    /// The bucket.
    pub by: UsageBucket,
    /// The dimension's name; `null` without one.
    pub group: Option<String>,
    /// The rows, by bucket then group (`null` last).
    pub rows: Vec<UsageRow>,
    /// Every run of the range once (with labels, a run with two labels is
    /// in two rows but once here).
    pub totals: UsageFigures,
}

/// Sums of the runs of one bucket, group value, status and error type, as
/// a backend's query returns them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct UsageCell {
    pub bucket: String,
    pub group: Option<String>,
    pub status: String,
    pub error_type: Option<String>,
    pub runs: u64,
    pub runs_with_cost: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub reasoning_tokens: u64,
    pub total_tokens: u64,
    pub cost_usd: f64,
}

/// The report of `query`, from `cells(group)`, a backend's sums for a
/// dimension (`None`: by bucket only). Every label pair needs a second
/// query for the totals (a run is in as many rows as it has labels); one
/// label key does not (a run has one value of a key at most).
pub(crate) fn assemble<E>(
    query: &UsageQuery,
    mut cells: impl FnMut(Option<&UsageGroup>) -> Result<Vec<UsageCell>, E>,
) -> Result<UsageReport, E> {
    let grouped = cells(query.group.as_ref())?;
    let mut rows: BTreeMap<(String, GroupKey), UsageFigures> = BTreeMap::new();
    for cell in &grouped {
        rows.entry((cell.bucket.clone(), GroupKey(cell.group.clone())))
            .or_default()
            .add(cell);
    }
    let mut totals = UsageFigures::default();
    if query.group == Some(UsageGroup::Label(None)) {
        for cell in &cells(None)? {
            totals.add(cell);
        }
    } else {
        for cell in &grouped {
            totals.add(cell);
        }
    }
    // Sums of floats drift in the last digits (0.1 + 0.2): a nanodollar is
    // below any price.
    let nano = |usd: f64| (usd * 1e9).round() / 1e9;
    totals.cost_usd = nano(totals.cost_usd);
    for figures in rows.values_mut() {
        figures.cost_usd = nano(figures.cost_usd);
    }
    Ok(UsageReport {
        since: query.since,
        until: query.until,
        by: query.by,
        group: query.group.as_ref().map(UsageGroup::name),
        rows: rows
            .into_iter()
            .map(|((bucket, group), figures)| UsageRow {
                bucket,
                group: group.0,
                figures,
            })
            .collect(),
        totals,
    })
}

/// A group's value, ordered with `None` last.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GroupKey(Option<String>);

impl Ord for GroupKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => a.cmp(b),
            (None, None) => std::cmp::Ordering::Equal,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(_), None) => std::cmp::Ordering::Less,
        }
    }
}

impl PartialOrd for GroupKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for UsageBucket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Usage reports, on every backend.
pub trait UsageReports {
    /// The report of `query` (see the module doc for what it counts).
    fn usage_report(&self, query: &UsageQuery) -> Result<UsageReport, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn defaults_cover_the_current_month() {
        let q =
            UsageQuery::from_params(None, None, None, None, at("2026-02-14T10:00:00Z")).unwrap();
        assert_eq!(q.since, at("2026-02-01T00:00:00Z"));
        assert_eq!(q.until, at("2026-03-01T00:00:00Z"));
        assert_eq!(q.by, UsageBucket::Day);
        assert_eq!(q.group, None);
    }

    #[test]
    fn a_date_until_includes_that_day() {
        let now = at("2026-02-14T10:00:00Z");
        let q = UsageQuery::from_params(
            Some("week"),
            Some("label:team"),
            Some("2026-01-01"),
            Some("2026-01-31"),
            now,
        )
        .unwrap();
        assert_eq!(q.since, at("2026-01-01T00:00:00Z"));
        assert_eq!(q.until, at("2026-02-01T00:00:00Z"));
        assert_eq!(q.group, Some(UsageGroup::Label(Some("team".into()))));
        let exact =
            UsageQuery::from_params(None, None, None, Some("2026-02-20T08:00:00+01:00"), now)
                .unwrap();
        assert_eq!(exact.until, at("2026-02-20T07:00:00Z"));
        // The submitter's groups read its reserved labels.
        for (text, group, key) in [
            ("token", UsageGroup::Token, crate::SUBMITTER_TOKEN_LABEL),
            ("team", UsageGroup::Team, crate::SUBMITTER_TEAM_LABEL),
        ] {
            let q = UsageQuery::from_params(None, Some(text), None, None, now).unwrap();
            assert_eq!(q.group.as_ref(), Some(&group));
            assert_eq!(group.label_key(), Some(key));
            assert_eq!(group.name(), text);
        }
    }

    #[test]
    fn bad_parameters_say_what_to_give() {
        let now = at("2026-02-14T10:00:00Z");
        let err = |by, group, since, until| {
            UsageQuery::from_params(by, group, since, until, now)
                .unwrap_err()
                .to_string()
        };
        assert!(err(Some("year"), None, None, None).contains("day, week or month"));
        assert!(err(None, Some("colour"), None, None).contains("unknown group `colour`"));
        assert!(err(None, Some("tokens"), None, None).contains("token, team, label"));
        assert!(err(None, None, Some("yesterday"), None).contains("`since` is `yesterday`"));
        assert!(err(None, None, Some("2026-03-01"), Some("2026-02-01")).contains("range is empty"));
    }

    #[test]
    fn cells_fold_into_rows_and_totals() {
        let q = UsageQuery::from_params(
            None,
            Some("provider"),
            None,
            None,
            at("2026-02-14T00:00:00Z"),
        )
        .unwrap();
        let cell =
            |group: Option<&str>, status: &str, error: Option<&str>, runs, cost: f64, with| {
                UsageCell {
                    bucket: "2026-02-01".into(),
                    group: group.map(Into::into),
                    status: status.into(),
                    error_type: error.map(Into::into),
                    runs,
                    runs_with_cost: with,
                    input_tokens: 10 * runs,
                    cost_usd: cost,
                    ..UsageCell::default()
                }
            };
        let report = assemble::<()>(&q, |_| {
            Ok(vec![
                cell(None, "succeeded", None, 1, 0.0, 0),
                cell(Some("codex"), "failed", Some("timeout"), 2, 0.0, 0),
                cell(Some("claude"), "succeeded", None, 3, 1.5, 3),
            ])
        })
        .unwrap();
        let groups: Vec<_> = report.rows.iter().map(|r| r.group.clone()).collect();
        assert_eq!(groups, [Some("claude".into()), Some("codex".into()), None]);
        assert_eq!(report.totals.runs, 6);
        assert_eq!(report.totals.failed, 2);
        assert_eq!(report.totals.error_types["timeout"], 2);
        assert_eq!(report.totals.input_tokens, 60);
        assert_eq!(report.totals.runs_without_cost, 3);
        assert_eq!(report.totals.cost_usd, 1.5);
    }
}
