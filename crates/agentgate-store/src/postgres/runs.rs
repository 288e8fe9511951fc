//! The `runs` and `attempts` tables.

use agentgate_protocol::{EXIT_SUCCESS, Envelope, Labels, Usage};
use jiff::Timestamp;
use tokio_postgres::types::{Json, ToSql};
use tokio_postgres::{GenericClient, Row};

use super::PgError;
use super::values::{
    clamp_bigint, describe, error_kind_from_sql, from_bigint, name_from_sql, opt_from_bigint,
    opt_to_bigint, to_bigint, u32_from_bigint, window_bound,
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
    (SELECT jsonb_object_agg(key, value) FROM labels WHERE labels.id = runs.run_id \
     AND key NOT LIKE 'agentgate.%') AS labels";

/// Records `run` as running, owned by `owner` (the calling process).
pub(super) async fn insert_run(
    client: &impl GenericClient,
    run: &RunRecord,
    owner: &RunOwner,
) -> Result<(), PgError> {
    let prompt_bytes = to_bigint("runs.prompt_bytes", run.prompt_bytes)?;
    let start_ticks = opt_to_bigint("runs.owner_start_ticks", owner.start_ticks)?;
    let pid = i64::from(owner.pid);
    client
        .execute(
            "INSERT INTO runs (run_id, status, started_at, providers, model, session_name, cwd, \
             prompt_bytes, owner_pid, owner_start_ticks, owner_boot_id, owner_host, kind, \
             parent_run_id) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
            &[
                &run.run_id,
                &RunStatus::Running.as_str(),
                &run.started_at,
                &Json(&run.providers),
                &run.model,
                &run.session,
                &run.cwd,
                &prompt_bytes,
                &pid,
                &start_ticks,
                &owner.boot_id,
                &owner.host,
                &run.kind.as_str(),
                &run.parent_run_id,
            ],
        )
        .await?;
    insert_labels(client, &run.run_id, &run.labels).await
}

/// Stores the labels of the run or job `id` (a job's run has its id: the
/// labels its job stored are kept, the run's are the same).
pub(super) async fn insert_labels(
    client: &impl GenericClient,
    id: &str,
    labels: &Labels,
) -> Result<(), PgError> {
    if labels.is_empty() {
        return Ok(());
    }
    let keys: Vec<&str> = labels.keys().map(String::as_str).collect();
    let values: Vec<&str> = labels.values().map(String::as_str).collect();
    client
        .execute(
            "INSERT INTO labels (id, key, value) SELECT $1, k, v FROM unnest($2::text[], $3::text[]) \
             AS l (k, v) ON CONFLICT (id, key) DO NOTHING",
            &[&id, &keys, &values],
        )
        .await?;
    Ok(())
}

/// The condition "the row's id carries every label of `labels`", for a
/// query whose id column is `id_column`, its parameters numbered from
/// `first`: one `IN` per label, each read from the index `labels_by_value`.
pub(super) fn labels_condition(id_column: &str, labels: &Labels, first: usize) -> String {
    (0..labels.len())
        .map(|i| {
            let (k, v) = (first + 2 * i, first + 2 * i + 1);
            format!(" AND {id_column} IN (SELECT id FROM labels WHERE key = ${k} AND value = ${v})")
        })
        .collect()
}

/// The parameters of [`labels_condition`], in order.
pub(super) fn labels_params(labels: &Labels) -> Vec<&(dyn ToSql + Sync)> {
    labels
        .iter()
        .flat_map(|(k, v)| [k as &(dyn ToSql + Sync), v as &(dyn ToSql + Sync)])
        .collect()
}

/// Labels as `jsonb_object_agg` gives them (`NULL` for none).
pub(super) fn labels_from_row(row: &Row, column: &str) -> Result<Labels, PgError> {
    Ok(row
        .try_get::<_, Option<Json<Labels>>>(column)?
        .map(|Json(labels)| labels)
        .unwrap_or_default())
}

pub(super) async fn finish_run(
    client: &impl GenericClient,
    run_id: &str,
    envelope: &Envelope,
    ended_at: Timestamp,
) -> Result<(), PgError> {
    let json = serde_json::to_string(envelope).map_err(|source| PgError::Json {
        op: "encode the envelope",
        source,
    })?;
    let exit_code = envelope
        .exit_code
        .or_else(|| envelope.is_success().then_some(EXIT_SUCCESS));
    let tokens = &envelope.tokens_used;
    let duration_ms = to_bigint("runs.duration_ms", envelope.duration_ms)?;
    let input = to_bigint("runs.input_tokens", tokens.input_tokens)?;
    let output = to_bigint("runs.output_tokens", tokens.output_tokens)?;
    let cache_read = to_bigint(
        "runs.cache_read_input_tokens",
        tokens.cache_read_input_tokens,
    )?;
    let cache_creation = to_bigint(
        "runs.cache_creation_input_tokens",
        tokens.cache_creation_input_tokens,
    )?;
    let reasoning = to_bigint("runs.reasoning_tokens", envelope.reasoning_tokens)?;
    let total = to_bigint("runs.total_tokens", tokens.total_tokens)?;
    let context = opt_to_bigint("runs.context_tokens", envelope.context_tokens)?;
    let status = RunStatus::of_envelope(envelope).as_str();
    let error_type = envelope.error_type.map(|kind| kind.as_str());
    let params: [&(dyn ToSql + Sync); 20] = [
        &status,
        &ended_at,
        &duration_ms,
        &exit_code,
        &error_type,
        &envelope.error,
        &envelope.provider,
        &envelope.model,
        &envelope.session_id,
        &input,
        &output,
        &cache_read,
        &cache_creation,
        &reasoning,
        &total,
        &tokens.cost_usd,
        &context,
        &tokens.estimated,
        &json,
        &run_id,
    ];
    let changed = client
        .execute(
            "UPDATE runs SET status = $1, ended_at = $2, duration_ms = $3, exit_code = $4, \
             error_type = $5, error = $6, provider = $7, final_model = $8, session_id = $9, \
             input_tokens = $10, output_tokens = $11, cache_read_input_tokens = $12, \
             cache_creation_input_tokens = $13, reasoning_tokens = $14, total_tokens = $15, \
             cost_usd = $16, context_tokens = $17, tokens_estimated = $18, envelope = $19 \
             WHERE run_id = $20",
            &params,
        )
        .await?;
    if changed == 0 {
        return Err(PgError::RunNotFound(run_id.to_owned()));
    }
    Ok(())
}

pub(super) async fn list_runs(
    client: &impl GenericClient,
    labels: &Labels,
    window: TimeWindow,
    limit: usize,
    offset: usize,
) -> Result<RunList, PgError> {
    let (limit, offset) = (clamp_bigint(limit), clamp_bigint(offset));
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&limit, &offset];
    params.extend(labels_params(labels));
    // The window bounds the range of `runs_by_start`.
    let (since, until) = (
        window.since.map(window_bound),
        window.until.map(window_bound),
    );
    let mut window_condition = String::new();
    for (bound, op) in [(&since, ">="), (&until, "<")] {
        if let Some(bound) = bound {
            params.push(bound);
            window_condition.push_str(&format!(" AND started_at {op} ${}", params.len()));
        }
    }
    let rows = client
        .query(
            &format!(
                "SELECT {SUMMARY_COLUMNS} FROM runs WHERE true{}{window_condition} \
                 ORDER BY started_at DESC, run_id DESC LIMIT $1 OFFSET $2",
                labels_condition("run_id", labels, 3)
            ),
            &params,
        )
        .await?;
    let mut list = RunList::default();
    for row in &rows {
        // A damaged row is reported, not the end of the list.
        match summary_from_row(row) {
            Ok(run) => list.runs.push(run),
            Err(e) => list
                .unreadable
                .push(UnreadableRow::new(row.try_get("run_id")?, describe(row, e))),
        }
    }
    Ok(list)
}

pub(super) async fn get_run(
    client: &impl GenericClient,
    run_id: &str,
) -> Result<Option<RunDetail>, PgError> {
    let Some(row) = client
        .query_opt(
            &format!("SELECT {SUMMARY_COLUMNS}, envelope FROM runs WHERE run_id = $1"),
            &[&run_id],
        )
        .await?
    else {
        return Ok(None);
    };
    let summary = summary_from_row(&row)?;
    let envelope = row
        .try_get::<_, Option<String>>("envelope")?
        .map(|json| serde_json::from_str::<Envelope>(&json))
        .transpose()
        .map_err(|source| PgError::Json {
            op: "decode the stored envelope",
            source,
        })?;
    Ok(Some(RunDetail {
        summary,
        envelope,
        attempts: attempts_of(client, run_id).await?,
    }))
}

/// What a run id prefix matches.
pub(super) enum Found {
    None,
    One(Box<RunDetail>),
    Several { candidates: Vec<String>, more: bool },
}

/// The run `prefix` names, exactly or as the only run id starting with it.
/// `run_id` is `COLLATE "C"`: candidates sort by bytes, as in SQLite.
pub(super) async fn find_run(client: &impl GenericClient, prefix: &str) -> Result<Found, PgError> {
    if let Some(detail) = get_run(client, prefix).await? {
        return Ok(Found::One(Box::new(detail)));
    }
    // `starts_with`, not LIKE: `_` is a LIKE wildcard and common in run ids.
    let shown = clamp_bigint(AMBIGUOUS_CANDIDATES_SHOWN + 1);
    let mut candidates = client
        .query(
            "SELECT run_id FROM runs WHERE starts_with(run_id, $1) ORDER BY run_id LIMIT $2",
            &[&prefix, &shown],
        )
        .await?
        .iter()
        .map(|row| row.try_get::<_, String>(0))
        .collect::<Result<Vec<_>, _>>()?;
    if candidates.len() > 1 {
        let more = candidates.len() > AMBIGUOUS_CANDIDATES_SHOWN;
        candidates.truncate(AMBIGUOUS_CANDIDATES_SHOWN);
        return Ok(Found::Several { candidates, more });
    }
    match candidates.pop() {
        None => Ok(Found::None),
        Some(only) => Ok(get_run(client, &only)
            .await?
            .map_or(Found::None, |d| Found::One(Box::new(d)))),
    }
}

pub(super) async fn insert_attempt(
    client: &impl GenericClient,
    run_id: &str,
    attempt: &AttemptRecord,
) -> Result<(), PgError> {
    let exists = client
        .query_opt("SELECT 1 FROM runs WHERE run_id = $1", &[&run_id])
        .await?
        .is_some();
    if !exists {
        return Err(PgError::RunNotFound(run_id.to_owned()));
    }
    let n = i32::try_from(attempt.n).map_err(|_| PgError::TooLarge {
        column: "attempts.n",
        value: u64::from(attempt.n),
    })?;
    let duration_ms = opt_to_bigint("attempts.duration_ms", attempt.duration_ms)?;
    let error_type = attempt.error_type.map(|kind| kind.as_str());
    client
        .execute(
            "INSERT INTO attempts (run_id, n, provider, agent, model, session_id, started_at, \
             ended_at, duration_ms, exit_code, error_type, error) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
             ON CONFLICT (run_id, n) DO UPDATE SET provider = excluded.provider, \
             agent = excluded.agent, model = excluded.model, session_id = excluded.session_id, \
             started_at = excluded.started_at, ended_at = excluded.ended_at, \
             duration_ms = excluded.duration_ms, exit_code = excluded.exit_code, \
             error_type = excluded.error_type, error = excluded.error",
            &[
                &run_id,
                &n,
                &attempt.provider,
                &attempt.agent,
                &attempt.model,
                &attempt.session_id,
                &attempt.started_at,
                &attempt.ended_at,
                &duration_ms,
                &attempt.exit_code,
                &error_type,
                &attempt.error,
            ],
        )
        .await?;
    Ok(())
}

async fn attempts_of(
    client: &impl GenericClient,
    run_id: &str,
) -> Result<Vec<AttemptRecord>, PgError> {
    let rows = client
        .query(
            "SELECT n, provider, agent, model, session_id, started_at, ended_at, duration_ms, \
             exit_code, error_type, error FROM attempts WHERE run_id = $1 ORDER BY n",
            &[&run_id],
        )
        .await?;
    let mut attempts = Vec::with_capacity(rows.len());
    for row in rows {
        let n: i32 = row.try_get("n")?;
        attempts.push(AttemptRecord {
            n: u32::try_from(n).map_err(|_| PgError::Invalid {
                column: "attempts.n",
                value: n.to_string(),
            })?,
            provider: row.try_get("provider")?,
            agent: row.try_get("agent")?,
            model: row.try_get("model")?,
            session_id: row.try_get("session_id")?,
            started_at: row.try_get("started_at")?,
            ended_at: row.try_get("ended_at")?,
            duration_ms: opt_from_bigint("attempts.duration_ms", row.try_get("duration_ms")?)?,
            exit_code: row.try_get("exit_code")?,
            error_type: error_kind_from_sql(row.try_get("error_type")?),
            error: row.try_get("error")?,
        });
    }
    Ok(attempts)
}

/// A token count of a finished run: `0` where the column is empty.
fn count(row: &Row, column: &'static str) -> Result<u64, PgError> {
    Ok(opt_from_bigint(column, row.try_get(column)?)?.unwrap_or(0))
}

fn summary_from_row(row: &Row) -> Result<RunSummary, PgError> {
    let Json(providers) = row.try_get::<_, Json<Vec<String>>>("providers")?;
    let ended_at: Option<Timestamp> = row.try_get("ended_at")?;
    let usage = match ended_at {
        None => None,
        Some(_) => Some(Usage {
            input_tokens: count(row, "input_tokens")?,
            output_tokens: count(row, "output_tokens")?,
            cache_read_input_tokens: count(row, "cache_read_input_tokens")?,
            cache_creation_input_tokens: count(row, "cache_creation_input_tokens")?,
            // No column keeps it: the run's stored envelope does.
            cache_creation_1h_input_tokens: 0,
            reasoning_tokens: count(row, "reasoning_tokens")?,
            total_tokens: count(row, "total_tokens")?,
            cost_usd: row.try_get("cost_usd")?,
            context_tokens: opt_from_bigint("runs.context_tokens", row.try_get("context_tokens")?)?,
            estimated: row
                .try_get::<_, Option<bool>>("tokens_estimated")?
                .unwrap_or(false),
        }),
    };
    let owner = match (
        row.try_get::<_, Option<i64>>("owner_pid")?,
        row.try_get::<_, Option<String>>("owner_host")?,
    ) {
        (Some(pid), Some(host)) => Some(RunOwner {
            pid: u32_from_bigint("runs.owner_pid", pid)?,
            start_ticks: opt_from_bigint(
                "runs.owner_start_ticks",
                row.try_get("owner_start_ticks")?,
            )?,
            boot_id: row.try_get("owner_boot_id")?,
            host,
        }),
        _ => None,
    };
    Ok(RunSummary {
        record: RunRecord {
            run_id: row.try_get("run_id")?,
            started_at: row.try_get("started_at")?,
            providers,
            model: row.try_get("model")?,
            session: row.try_get("session_name")?,
            cwd: row.try_get("cwd")?,
            prompt_bytes: from_bigint("runs.prompt_bytes", row.try_get("prompt_bytes")?)?,
            kind: name_from_sql("runs.kind", row.try_get("kind")?)?,
            parent_run_id: row.try_get("parent_run_id")?,
            labels: labels_from_row(row, "labels")?,
        },
        status: effective_status(
            name_from_sql("runs.status", row.try_get("status")?)?,
            owner.as_ref(),
        ),
        owner,
        ended_at,
        duration_ms: opt_from_bigint("runs.duration_ms", row.try_get("duration_ms")?)?,
        exit_code: row.try_get("exit_code")?,
        error_type: error_kind_from_sql(row.try_get("error_type")?),
        error: row.try_get("error")?,
        provider: row.try_get("provider")?,
        final_model: row.try_get("final_model")?,
        session_id: row.try_get("session_id")?,
        usage,
    })
}
