//! The `runs` and `attempts` tables.

use agentgate_protocol::{EXIT_SUCCESS, Envelope, Labels, Usage};
use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, Row, named_params, params};

use super::DbError;
use super::values::{
    describe, error_kind_from_sql, name_from_sql, opt_timestamp_from_sql, timestamp_from_sql,
    timestamp_to_sql,
};
use crate::listing::{RunList, UnreadableRow};
use crate::owner::RunOwner;
use crate::records::{
    AttemptRecord, RunDetail, RunRecord, RunStatus, RunSummary, effective_status,
};
use crate::run_store::AMBIGUOUS_CANDIDATES_SHOWN;
use crate::time_window::TimeWindow;

/// A run's labels are its caller's: the reserved `agentgate.` ones (the
/// token that submitted its job, `crate::api_tokens`) are the job's.
const SUMMARY_COLUMNS: &str = "run_id, started_at, providers, model, session_name, cwd, \
    prompt_bytes, status, ended_at, duration_ms, exit_code, error_type, error, provider, \
    final_model, session_id, input_tokens, output_tokens, cache_read_input_tokens, \
    cache_creation_input_tokens, reasoning_tokens, total_tokens, cost_usd, context_tokens, \
    tokens_estimated, owner_pid, owner_start_ticks, owner_boot_id, owner_host, kind, \
    parent_run_id, \
    (SELECT json_group_object(key, value) FROM labels WHERE labels.id = runs.run_id \
     AND key NOT LIKE 'agentgate.%') AS labels";

/// Records `run` as running, owned by `owner` (the calling process).
pub(super) fn insert_run(
    conn: &Connection,
    run: &RunRecord,
    owner: &RunOwner,
) -> Result<(), DbError> {
    let providers = serde_json::to_string(&run.providers).map_err(|source| DbError::Json {
        op: "encode the requested providers",
        source,
    })?;
    conn.execute(
        "INSERT INTO runs (run_id, status, started_at, providers, model, session_name, cwd, \
         prompt_bytes, owner_pid, owner_start_ticks, owner_boot_id, owner_host, kind, \
         parent_run_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        params![
            run.run_id,
            RunStatus::Running.as_str(),
            timestamp_to_sql(run.started_at),
            providers,
            run.model,
            run.session,
            run.cwd,
            run.prompt_bytes,
            owner.pid,
            owner.start_ticks,
            owner.boot_id,
            owner.host,
            run.kind.as_str(),
            run.parent_run_id,
        ],
    )?;
    insert_labels(conn, &run.run_id, &run.labels)
}

/// Stores the labels of the run or job `id` (a job's run has its id: the
/// labels its job stored are kept, the run's are the same).
pub(super) fn insert_labels(conn: &Connection, id: &str, labels: &Labels) -> Result<(), DbError> {
    if labels.is_empty() {
        return Ok(());
    }
    let mut stmt = conn.prepare_cached(
        "INSERT INTO labels (id, key, value) VALUES (?1, ?2, ?3) ON CONFLICT (id, key) DO NOTHING",
    )?;
    for (key, value) in labels {
        stmt.execute(params![id, key, value])?;
    }
    Ok(())
}

/// The condition "the row's id carries every label of `labels`", for a
/// query whose id column is `id_column`, its parameters numbered from
/// `first`: one `IN` per label, each read from the index `labels_by_value`.
pub(super) fn labels_condition(id_column: &str, labels: &Labels, first: usize) -> String {
    (0..labels.len())
        .map(|i| {
            let (k, v) = (first + 2 * i, first + 2 * i + 1);
            format!(" AND {id_column} IN (SELECT id FROM labels WHERE key = ?{k} AND value = ?{v})")
        })
        .collect()
}

/// The parameters of [`labels_condition`], in order.
pub(super) fn labels_params(labels: &Labels) -> Vec<&str> {
    labels
        .iter()
        .flat_map(|(k, v)| [k.as_str(), v.as_str()])
        .collect()
}

/// Labels read back as `json_group_object` gives them (`{}` for none).
pub(super) fn labels_from_sql(json: Option<String>) -> Result<Labels, DbError> {
    match json {
        None => Ok(Labels::new()),
        Some(json) => serde_json::from_str(&json).map_err(|source| DbError::Json {
            op: "decode the labels",
            source,
        }),
    }
}

pub(super) fn finish_run(
    conn: &Connection,
    run_id: &str,
    envelope: &Envelope,
    ended_at: Timestamp,
) -> Result<(), DbError> {
    let json = serde_json::to_string(envelope).map_err(|source| DbError::Json {
        op: "encode the envelope",
        source,
    })?;
    let exit_code = envelope
        .exit_code
        .or_else(|| envelope.is_success().then_some(EXIT_SUCCESS));
    let tokens = &envelope.tokens_used;
    let changed = conn.execute(
        "UPDATE runs SET status = :status, ended_at = :ended_at, duration_ms = :duration_ms, \
         exit_code = :exit_code, error_type = :error_type, error = :error, \
         provider = :provider, final_model = :final_model, session_id = :session_id, \
         input_tokens = :input_tokens, output_tokens = :output_tokens, \
         cache_read_input_tokens = :cache_read, cache_creation_input_tokens = :cache_creation, \
         reasoning_tokens = :reasoning_tokens, total_tokens = :total_tokens, \
         cost_usd = :cost_usd, context_tokens = :context_tokens, \
         tokens_estimated = :estimated, envelope = :envelope \
         WHERE run_id = :run_id",
        named_params! {
            ":status": RunStatus::of_envelope(envelope).as_str(),
            ":ended_at": timestamp_to_sql(ended_at),
            ":duration_ms": envelope.duration_ms,
            ":exit_code": exit_code,
            ":error_type": envelope.error_type.map(|kind| kind.as_str()),
            ":error": envelope.error,
            ":provider": envelope.provider,
            ":final_model": envelope.model,
            ":session_id": envelope.session_id,
            ":input_tokens": tokens.input_tokens,
            ":output_tokens": tokens.output_tokens,
            ":cache_read": tokens.cache_read_input_tokens,
            ":cache_creation": tokens.cache_creation_input_tokens,
            ":reasoning_tokens": envelope.reasoning_tokens,
            ":total_tokens": tokens.total_tokens,
            ":cost_usd": tokens.cost_usd,
            ":context_tokens": envelope.context_tokens,
            ":estimated": tokens.estimated,
            ":envelope": json,
            ":run_id": run_id,
        },
    )?;
    if changed == 0 {
        return Err(DbError::RunNotFound(run_id.to_owned()));
    }
    Ok(())
}

pub(super) fn list_runs(
    conn: &Connection,
    labels: &Labels,
    window: TimeWindow,
    limit: usize,
    offset: usize,
) -> Result<RunList, DbError> {
    // The window bounds the range of `runs_by_start` (fixed-width text:
    // text order is time order); its parameters follow the labels'.
    let after_labels = 3 + 2 * labels.len();
    let since = window.since.map(timestamp_to_sql);
    let until = window.until.map(timestamp_to_sql);
    let mut window_condition = String::new();
    let mut window_values: Vec<&String> = Vec::new();
    for (bound, op) in [(&since, ">="), (&until, "<")] {
        if let Some(bound) = bound {
            let n = after_labels + window_values.len();
            window_condition.push_str(&format!(" AND started_at {op} ?{n}"));
            window_values.push(bound);
        }
    }
    let mut stmt = conn.prepare(&format!(
        "SELECT {SUMMARY_COLUMNS} FROM runs WHERE 1 = 1{}{window_condition} \
         ORDER BY started_at DESC, run_id DESC LIMIT ?1 OFFSET ?2",
        labels_condition("run_id", labels, 3)
    ))?;
    // `usize::MAX` means "all": clamp instead of failing the conversion.
    let clamp = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let mut values: Vec<&dyn rusqlite::ToSql> = Vec::new();
    let (limit, offset) = (clamp(limit), clamp(offset));
    values.push(&limit);
    values.push(&offset);
    let label_values = labels_params(labels);
    for value in &label_values {
        values.push(value);
    }
    for value in &window_values {
        values.push(*value);
    }
    let mut rows = stmt.query(values.as_slice())?;
    let mut list = RunList::default();
    while let Some(row) = rows.next()? {
        // A damaged row is reported, not the end of the list.
        match summary_from_row(row) {
            Ok(run) => list.runs.push(run),
            Err(e) => list
                .unreadable
                .push(UnreadableRow::new(row.get("run_id")?, describe(e))),
        }
    }
    Ok(list)
}

pub(super) fn get_run(conn: &Connection, run_id: &str) -> Result<Option<RunDetail>, DbError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {SUMMARY_COLUMNS}, envelope FROM runs WHERE run_id = ?1"
    ))?;
    let mut rows = stmt.query([run_id])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let summary = summary_from_row(row)?;
    let envelope = row
        .get::<_, Option<String>>("envelope")?
        .map(|json| serde_json::from_str::<Envelope>(&json))
        .transpose()
        .map_err(|source| DbError::Json {
            op: "decode the stored envelope",
            source,
        })?;
    Ok(Some(RunDetail {
        summary,
        envelope,
        attempts: attempts_of(conn, run_id)?,
    }))
}

/// What a run id prefix matches.
pub(super) enum Found {
    None,
    One(Box<RunDetail>),
    Several { candidates: Vec<String>, more: bool },
}

/// `prefix` must be a valid run id: it then holds no GLOB wildcard.
pub(super) fn find_run(conn: &Connection, prefix: &str) -> Result<Found, DbError> {
    if let Some(detail) = get_run(conn, prefix)? {
        return Ok(Found::One(Box::new(detail)));
    }
    let mut stmt =
        conn.prepare("SELECT run_id FROM runs WHERE run_id GLOB ?1 ORDER BY run_id LIMIT ?2")?;
    let mut candidates = stmt
        .query_map(
            params![format!("{prefix}*"), AMBIGUOUS_CANDIDATES_SHOWN + 1],
            |row| row.get::<_, String>(0),
        )?
        .collect::<Result<Vec<_>, _>>()?;
    if candidates.len() > 1 {
        let more = candidates.len() > AMBIGUOUS_CANDIDATES_SHOWN;
        candidates.truncate(AMBIGUOUS_CANDIDATES_SHOWN);
        return Ok(Found::Several { candidates, more });
    }
    match candidates.pop() {
        None => Ok(Found::None),
        Some(only) => Ok(get_run(conn, &only)?.map_or(Found::None, |d| Found::One(Box::new(d)))),
    }
}

pub(super) fn insert_attempt(
    conn: &Connection,
    run_id: &str,
    attempt: &AttemptRecord,
) -> Result<(), DbError> {
    let exists = conn
        .query_row("SELECT 1 FROM runs WHERE run_id = ?1", [run_id], |_| Ok(()))
        .optional()?
        .is_some();
    if !exists {
        return Err(DbError::RunNotFound(run_id.to_owned()));
    }
    conn.execute(
        "INSERT INTO attempts (run_id, n, provider, agent, model, session_id, started_at, \
         ended_at, duration_ms, exit_code, error_type, error) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
         ON CONFLICT (run_id, n) DO UPDATE SET provider = excluded.provider, \
         agent = excluded.agent, model = excluded.model, session_id = excluded.session_id, \
         started_at = excluded.started_at, ended_at = excluded.ended_at, \
         duration_ms = excluded.duration_ms, exit_code = excluded.exit_code, \
         error_type = excluded.error_type, error = excluded.error",
        params![
            run_id,
            attempt.n,
            attempt.provider,
            attempt.agent,
            attempt.model,
            attempt.session_id,
            timestamp_to_sql(attempt.started_at),
            attempt.ended_at.map(timestamp_to_sql),
            attempt.duration_ms,
            attempt.exit_code,
            attempt.error_type.map(|kind| kind.as_str()),
            attempt.error,
        ],
    )?;
    Ok(())
}

fn attempts_of(conn: &Connection, run_id: &str) -> Result<Vec<AttemptRecord>, DbError> {
    let mut stmt = conn.prepare(
        "SELECT n, provider, agent, model, session_id, started_at, ended_at, duration_ms, \
         exit_code, error_type, error FROM attempts WHERE run_id = ?1 ORDER BY n",
    )?;
    let mut rows = stmt.query([run_id])?;
    let mut attempts = Vec::new();
    while let Some(row) = rows.next()? {
        attempts.push(AttemptRecord {
            n: row.get("n")?,
            provider: row.get("provider")?,
            agent: row.get("agent")?,
            model: row.get("model")?,
            session_id: row.get("session_id")?,
            started_at: timestamp_from_sql("attempts.started_at", row.get("started_at")?)?,
            ended_at: opt_timestamp_from_sql("attempts.ended_at", row.get("ended_at")?)?,
            duration_ms: row.get("duration_ms")?,
            exit_code: row.get("exit_code")?,
            error_type: error_kind_from_sql(row.get("error_type")?),
            error: row.get("error")?,
        });
    }
    Ok(attempts)
}

fn summary_from_row(row: &Row<'_>) -> Result<RunSummary, DbError> {
    let providers: String = row.get("providers")?;
    let providers = serde_json::from_str(&providers).map_err(|source| DbError::Json {
        op: "decode the requested providers",
        source,
    })?;
    let ended_at = opt_timestamp_from_sql("runs.ended_at", row.get("ended_at")?)?;
    let usage = match ended_at {
        None => None,
        Some(_) => Some(Usage {
            input_tokens: row.get::<_, Option<u64>>("input_tokens")?.unwrap_or(0),
            output_tokens: row.get::<_, Option<u64>>("output_tokens")?.unwrap_or(0),
            cache_read_input_tokens: row
                .get::<_, Option<u64>>("cache_read_input_tokens")?
                .unwrap_or(0),
            cache_creation_input_tokens: row
                .get::<_, Option<u64>>("cache_creation_input_tokens")?
                .unwrap_or(0),
            // No column keeps it: the run's stored envelope does.
            cache_creation_1h_input_tokens: 0,
            reasoning_tokens: row.get::<_, Option<u64>>("reasoning_tokens")?.unwrap_or(0),
            total_tokens: row.get::<_, Option<u64>>("total_tokens")?.unwrap_or(0),
            cost_usd: row.get("cost_usd")?,
            context_tokens: row.get("context_tokens")?,
            estimated: row
                .get::<_, Option<bool>>("tokens_estimated")?
                .unwrap_or(false),
        }),
    };
    let owner = match (row.get("owner_pid")?, row.get("owner_host")?) {
        (Some(pid), Some(host)) => Some(RunOwner {
            pid,
            start_ticks: row.get("owner_start_ticks")?,
            boot_id: row.get("owner_boot_id")?,
            host,
        }),
        _ => None,
    };
    Ok(RunSummary {
        record: RunRecord {
            run_id: row.get("run_id")?,
            started_at: timestamp_from_sql("runs.started_at", row.get("started_at")?)?,
            providers,
            model: row.get("model")?,
            session: row.get("session_name")?,
            cwd: row.get("cwd")?,
            prompt_bytes: row.get("prompt_bytes")?,
            kind: name_from_sql("runs.kind", row.get("kind")?)?,
            parent_run_id: row.get("parent_run_id")?,
            labels: labels_from_sql(row.get("labels")?)?,
        },
        status: effective_status(
            name_from_sql("runs.status", row.get("status")?)?,
            owner.as_ref(),
        ),
        owner,
        ended_at,
        duration_ms: row.get("duration_ms")?,
        exit_code: row.get("exit_code")?,
        error_type: error_kind_from_sql(row.get("error_type")?),
        error: row.get("error")?,
        provider: row.get("provider")?,
        final_model: row.get("final_model")?,
        session_id: row.get("session_id")?,
        usage,
    })
}
