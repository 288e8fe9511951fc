//! `schedules:` and `watch:`: the runs `agentgate serve` starts by itself.
//!
//! Both hold a run request as a YAML map with the fields of the JSON API
//! (`POST /v1/runs`, [`RunRequest`]); it is checked here with
//! [`RunRequest::to_flags`], so a bad request is a config error naming its
//! line, not a job that fails every time it fires. The queue fields that
//! the server derives itself (`idempotency_key`, `not_before`) are refused.
//! A watched folder's request has no `prompt` or `task`: the file is the
//! task. The API takes absolute paths only; here a relative one is
//! relative to the config file's folder, as every path of the file is.

use std::path::{Path, PathBuf};
use std::time::Duration;

use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

use super::agent::check_name;
use super::paths::{resolve_binary, resolve_path};
use super::yaml::{At, Entries, Fault, Secs};
use crate::cron::CronExpr;
use crate::request::RunRequest;

/// What a schedule does when it fires while the job of an earlier fire is
/// still queued or running.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Overlap {
    /// No new job for this fire (the default).
    #[default]
    Skip,
    /// A new job all the same; it waits in the queue like any other.
    Queue,
}

impl Overlap {
    /// `skip` or `queue`.
    pub fn as_str(self) -> &'static str {
        match self {
            Overlap::Skip => "skip",
            Overlap::Queue => "queue",
        }
    }
}

/// Where a watched file goes when its job fails (is cancelled or
/// abandoned).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnFailure {
    /// To `failed/`, next to its error record (the default).
    #[default]
    Move,
    /// Nowhere: it stays in the folder (its error record goes to
    /// `failed/`), and is not taken again until it changes.
    Keep,
}

impl OnFailure {
    /// `move` or `keep`.
    pub fn as_str(self) -> &'static str {
        match self {
            OnFailure::Move => "move",
            OnFailure::Keep => "keep",
        }
    }
}

/// The longest `catch_up` window.
pub const CATCH_UP_MAX: Duration = Duration::from_secs(31 * 24 * 3600);

/// A schedule: a run request enqueued at each fire of a cron expression.
#[derive(Debug, Clone)]
pub struct ScheduleSpec {
    /// Its name (part of each fire's idempotency key).
    pub name: String,
    /// When it fires.
    pub cron: CronExpr,
    /// The zone the expression is read in (default UTC).
    pub time_zone: TimeZone,
    /// The zone's IANA name, as written (`UTC` by default).
    pub time_zone_name: String,
    /// What a fire does while an earlier fire's job is queued or running.
    pub overlap: Overlap,
    /// How far back a fire missed while the server was not running still
    /// runs when it starts (only the most recent one); zero: none.
    pub catch_up: Duration,
    /// The run each fire enqueues.
    pub request: RunRequest,
}

/// The default pause between two scans of a watched folder.
pub const DEFAULT_POLL: Duration = Duration::from_secs(2);

/// The default time a file must stay unchanged before it is taken.
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(1);

/// The shortest `poll`.
pub const MIN_POLL: Duration = Duration::from_millis(100);

/// A watched folder: each new file becomes one run whose task is the file.
#[derive(Debug, Clone)]
pub struct WatchSpec {
    /// Its name (in logs and error records).
    pub name: String,
    /// The folder (absolute); `done/` and `failed/` are made inside it.
    pub folder: PathBuf,
    /// Globs on the file name (`*` and `?`); empty: every file.
    pub patterns: Vec<String>,
    /// The pause between two scans.
    pub poll: Duration,
    /// How long a file's size and modification time must stay unchanged
    /// (seen by two scans at least this far apart) before it is taken.
    pub settle: Duration,
    /// The run each file becomes, without its task.
    pub request: RunRequest,
    /// Where a file whose job failed goes.
    pub on_failure: OnFailure,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSchedule {
    cron: Spanned<String>,
    #[serde(default)]
    time_zone: Option<Spanned<String>>,
    #[serde(default)]
    overlap: Option<Spanned<Overlap>>,
    #[serde(default)]
    catch_up: Option<Spanned<Secs>>,
    request: Spanned<Entries<serde_json::Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWatch {
    folder: Spanned<String>,
    #[serde(default)]
    patterns: Vec<Spanned<String>>,
    #[serde(default)]
    poll: Option<Spanned<Secs>>,
    #[serde(default)]
    settle: Option<Spanned<Secs>>,
    #[serde(default)]
    on_failure: Option<Spanned<OnFailure>>,
    request: Spanned<Entries<serde_json::Value>>,
}

/// Check the schedule `name`; relative paths of its request are relative
/// to `base`.
pub(super) fn schedule(
    name: &Spanned<String>,
    raw: &RawSchedule,
    base: &Path,
) -> Result<ScheduleSpec, Fault> {
    check_name("schedule", name)?;
    let label = |m: String| format!("schedule `{}`: {m}", name.value);
    let cron = CronExpr::parse(&raw.cron.value)
        .map_err(|e| Fault::at(&raw.cron, label(format!("cron: {}", e.reason))))?;
    let (time_zone, time_zone_name) = match &raw.time_zone {
        None => (TimeZone::UTC, "UTC".to_owned()),
        Some(z) => {
            let tz = TimeZone::get(z.value.trim()).map_err(|_| {
                Fault::at(
                    z,
                    label(format!(
                        "time_zone: `{}` is not an IANA time zone name (e.g. `Europe/Paris`, `America/New_York`, `UTC`)",
                        z.value
                    )),
                )
            })?;
            (tz, z.value.trim().to_owned())
        }
    };
    let catch_up = raw.catch_up.as_ref().map_or(Duration::ZERO, |c| c.value.0);
    if let Some(c) = &raw.catch_up
        && catch_up > CATCH_UP_MAX
    {
        return Err(Fault::at(
            c,
            label("catch_up: at most 31 days (744h)".to_owned()),
        ));
    }
    let request =
        request(&raw.request, false, base).map_err(|(at, m)| Fault::new(Some(at), label(m)))?;
    Ok(ScheduleSpec {
        name: name.value.clone(),
        cron,
        time_zone,
        time_zone_name,
        overlap: raw
            .overlap
            .as_ref()
            .map_or_else(Overlap::default, |o| o.value),
        catch_up,
        request,
    })
}

/// Check the watched folder `name`; a relative folder is relative to `base`.
pub(super) fn watch(
    name: &Spanned<String>,
    raw: &RawWatch,
    base: &Path,
) -> Result<WatchSpec, Fault> {
    check_name("watch", name)?;
    let label = |m: String| format!("watch `{}`: {m}", name.value);
    if raw.folder.value.trim().is_empty() {
        return Err(Fault::at(&raw.folder, label("folder: empty".to_owned())));
    }
    for p in &raw.patterns {
        if p.value.is_empty() || p.value.contains('/') {
            return Err(Fault::at(
                p,
                label(format!(
                    "patterns: `{}` is not a file name glob (`*` and `?`, no `/`)",
                    p.value
                )),
            ));
        }
    }
    let poll = raw.poll.as_ref().map_or(DEFAULT_POLL, |p| p.value.0);
    if let Some(p) = &raw.poll
        && poll < MIN_POLL
    {
        return Err(Fault::at(p, label("poll: at least 100ms".to_owned())));
    }
    let request =
        request(&raw.request, true, base).map_err(|(at, m)| Fault::new(Some(at), label(m)))?;
    Ok(WatchSpec {
        name: name.value.clone(),
        folder: resolve_path(raw.folder.value.trim(), base),
        patterns: raw.patterns.iter().map(|p| p.value.clone()).collect(),
        poll,
        settle: raw.settle.as_ref().map_or(DEFAULT_SETTLE, |s| s.value.0),
        request,
        on_failure: raw.on_failure.as_ref().map(|o| o.value).unwrap_or_default(),
    })
}

/// Read and check a request; `file_is_task`: a watched folder's, whose
/// task is each file; its relative paths are made relative to `base`. A
/// refusal points at the line of the field it names (else at the request).
fn request(
    raw: &Spanned<Entries<serde_json::Value>>,
    file_is_task: bool,
    base: &Path,
) -> Result<RunRequest, (At, String)> {
    let at_field = |field: &str| {
        let top = field.split(['.', '[']).next().unwrap_or(field);
        raw.value
            .0
            .iter()
            .find(|(k, _)| k.value == top)
            .map_or_else(|| At::of(raw), |(k, _)| At::of(k))
    };
    let fail =
        |field: &str, message: String| (at_field(field), format!("request.{field}: {message}"));
    let object: serde_json::Map<String, serde_json::Value> = raw
        .value
        .0
        .iter()
        .map(|(k, v)| (k.value.clone(), v.clone()))
        .collect();
    let mut request = RunRequest::from_value(serde_json::Value::Object(object))
        .map_err(|e| fail(&e.field, e.message))?;
    anchor_paths(&mut request, base);
    for (field, given) in [
        ("idempotency_key", request.idempotency_key.is_some()),
        ("not_before", request.not_before.is_some()),
    ] {
        if given {
            return Err(fail(
                field,
                "set by the server for each job; leave it out".to_owned(),
            ));
        }
    }
    let mut checked = request.clone();
    if file_is_task {
        for (field, given) in [
            ("prompt", request.prompt.is_some()),
            ("task", request.task.is_some()),
        ] {
            if given {
                return Err(fail(
                    field,
                    "each file of the folder is the task; leave it out".to_owned(),
                ));
            }
        }
        checked.prompt = Some("(the file)".to_owned());
    }
    checked.to_flags().map_err(|e| fail(&e.field, e.message))?;
    Ok(request)
}

/// The request's relative paths (and `task.files`), relative to `base`; a
/// `binary` without a `/` stays a name (and is refused: the API takes a
/// path).
fn anchor_paths(r: &mut RunRequest, base: &Path) {
    let anchor = |p: &mut PathBuf| {
        if p.is_relative() {
            *p = resolve_path(&p.to_string_lossy(), base);
        }
    };
    let single = [
        &mut r.system_file,
        &mut r.agent_file,
        &mut r.context_dir,
        &mut r.cwd,
        &mut r.output_schema,
    ];
    single.into_iter().flatten().for_each(anchor);
    r.context
        .iter_mut()
        .chain(r.add_dirs.iter_mut())
        .for_each(anchor);
    if let Some(b) = &mut r.binary {
        *b = PathBuf::from(resolve_binary(&b.to_string_lossy(), base));
    }
    if let Some(files) = r
        .task
        .as_mut()
        .and_then(|t| t.get_mut("files"))
        .and_then(serde_json::Value::as_array_mut)
    {
        for f in files {
            if let Some(s) = f.as_str()
                && Path::new(s).is_relative()
            {
                *f = serde_json::Value::String(resolve_path(s, base).display().to_string());
            }
        }
    }
}
