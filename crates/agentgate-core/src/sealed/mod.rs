//! Secrets of a queued request, sealed: what the store keeps of a job's
//! `env` values and secret flags is ciphertext, under a key the store does
//! not hold (`keys.rs`: a 0600 file in the data folder, or one named by
//! `AGENTGATE_QUEUE_KEY_FILE` or the config's `queue.key_file`, which
//! workers on other hosts share).
//!
//! What is sealed, in every run request a job holds (the request of
//! `POST /v1/runs`, a schedule's or a watched folder's, and each `agent`
//! of a workflow's steps): **every** `env` value (a name does not tell
//! whether its value is a secret: `DB=postgres://u:pw@h` is one), and the
//! `extra_args` when they hold a secret flag's value (`--api-key X`). In
//! the request as stored, each `env` value reads `[sealed]`, the extra
//! arguments are masked (`[redacted:--api-key]`), and a `sealed` object
//! holds the originals: `{"v": 1, "key": ID, "nonce": HEX, "data": HEX}`,
//! ChaCha20-Poly1305 (`ring`) of `{"env": {...}, "extra_args": [...]}`
//! with a random 96-bit nonce, bound to the job's id (the associated
//! data), so a sealed value moved to another job does not open.
//!
//! Opening ([`open_request`]) puts the originals back and removes
//! `sealed`: the executor does it on the requests it reads, before
//! planning them. A process without the key ([`SealError::MissingKey`])
//! leaves the job queued for one that has it; a value that does not open
//! under its key ([`SealError::Corrupt`]) was altered and fails its job.
//! A request without `sealed` (queued before sealing existed) is used as
//! it is.

mod keys;

use serde_json::{Map, Value, json};

use crate::redact::{mask_secret_flags, secret_flag_values};
pub use keys::{KEY_FILE_ENV, KEY_FILE_NAME, KeyFileError, KeyRing, SealKey, key_file};

/// What an `env` value reads in a stored request.
pub const SEALED_MARK: &str = "[sealed]";

/// The field of a stored request that holds its sealed values.
pub const SEALED_FIELD: &str = "sealed";

/// The format's version.
const VERSION: u64 = 1;

/// Associated data: what a sealed value is bound to.
const CONTEXT: &str = "agentgate queued request v1:";

/// Why sealed values cannot be sealed or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// There is something to seal and no key to seal it with.
    #[error("no queue key to seal the request's secrets with")]
    NoKey,
    /// The values were sealed with a key this process does not have.
    #[error(
        "its secrets are sealed with queue key {key_id}, which this process does not have{}: give it the key file of the server that queued the job (AGENTGATE_QUEUE_KEY_FILE, or the config's queue.key_file)",
        path.as_ref().map(|p| format!(" (its key file: {p})")).unwrap_or_default()
    )]
    MissingKey {
        /// The key's id.
        key_id: String,
        /// The key file this process read, if any.
        path: Option<String>,
    },
    /// The sealed values are not well formed, or do not open under their
    /// key (altered, or moved from another job).
    #[error("its sealed secrets cannot be opened: {0}")]
    Corrupt(String),
}

/// Seal the secrets of the run request `request` (a JSON object) of job
/// `job_id` in place (see the module notes); nothing to seal leaves it as
/// it is.
pub fn seal_request(
    request: &mut Map<String, Value>,
    ring: &KeyRing,
    job_id: &str,
) -> Result<(), SealError> {
    let mut secret = Map::new();
    if let Some(env) = request.get_mut("env").and_then(Value::as_object_mut)
        && !env.is_empty()
    {
        secret.insert("env".into(), Value::Object(env.clone()));
        for value in env.values_mut() {
            *value = Value::String(SEALED_MARK.to_owned());
        }
    }
    if let Some(args) = request.get_mut("extra_args") {
        let given: Option<Vec<String>> = args
            .as_array()
            .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect());
        if let Some(given) = given {
            let secrets = secret_flag_values(&given);
            if !secrets.is_empty() {
                secret.insert("extra_args".into(), args.clone());
                *args = json!(mask_secret_flags(&given, &secrets));
            }
        }
    }
    if secret.is_empty() {
        return Ok(());
    }
    let key = ring.sealing().ok_or(SealError::NoKey)?;
    let plain = serde_json::to_vec(&secret).map_err(|e| SealError::Corrupt(e.to_string()))?;
    let (nonce, data) = aead_seal(key, job_id, &plain)?;
    request.insert(
        SEALED_FIELD.into(),
        json!({"v": VERSION, "key": key.id(), "nonce": keys::hex(&nonce), "data": keys::hex(&data)}),
    );
    Ok(())
}

/// Open the sealed secrets of the run request `request` of job `job_id`
/// in place: the originals back, `sealed` removed. A request without
/// `sealed` is left as it is.
pub fn open_request(
    request: &mut Map<String, Value>,
    ring: &KeyRing,
    job_id: &str,
) -> Result<(), SealError> {
    let Some(sealed) = request.get(SEALED_FIELD) else {
        return Ok(());
    };
    let corrupt = |why: &str| SealError::Corrupt(why.to_owned());
    let field = |name: &str| sealed.get(name).and_then(Value::as_str);
    if sealed.get("v").and_then(Value::as_u64) != Some(VERSION) {
        return Err(corrupt("an unknown format (`v` is not 1)"));
    }
    let key_id = field("key").ok_or_else(|| corrupt("no key id"))?;
    let key = ring.get(key_id).ok_or_else(|| SealError::MissingKey {
        key_id: key_id.to_owned(),
        path: ring.path().map(|p| p.display().to_string()),
    })?;
    let nonce = field("nonce")
        .and_then(keys::unhex)
        .and_then(|n| <[u8; 12]>::try_from(n).ok())
        .ok_or_else(|| corrupt("no 96-bit nonce"))?;
    let data = field("data")
        .and_then(keys::unhex)
        .ok_or_else(|| corrupt("no data"))?;
    let plain = aead_open(key, job_id, nonce, data)?;
    let secret: Map<String, Value> =
        serde_json::from_slice(&plain).map_err(|e| SealError::Corrupt(e.to_string()))?;
    request.remove(SEALED_FIELD);
    for (name, value) in secret {
        request.insert(name, value);
    }
    Ok(())
}

/// The key id the run request `request`'s secrets are sealed with.
pub fn sealed_with(request: &Map<String, Value>) -> Option<&str> {
    request
        .get(SEALED_FIELD)
        .and_then(|s| s.get("key"))
        .and_then(Value::as_str)
}

/// The run requests of a workflow definition (JSON): each step's `agent`,
/// each decision's `agent`, in `parallel` groups too.
fn workflow_agents(def: &mut Value) -> Vec<&mut Map<String, Value>> {
    let mut out = Vec::new();
    if let Some(steps) = def.get_mut("steps").and_then(Value::as_array_mut) {
        for step in steps {
            collect_step(step, &mut out);
        }
    }
    out
}

fn collect_step<'a>(step: &'a mut Value, out: &mut Vec<&'a mut Map<String, Value>>) {
    let Some(step) = step.as_object_mut() else {
        return;
    };
    for (name, value) in step.iter_mut() {
        match name.as_str() {
            "agent" => {
                if let Some(agent) = value.as_object_mut() {
                    out.push(agent);
                }
            }
            "decision" => {
                if let Some(agent) = value.get_mut("agent").and_then(Value::as_object_mut) {
                    out.push(agent);
                }
            }
            "parallel" => {
                if let Some(steps) = value.get_mut("steps").and_then(Value::as_array_mut) {
                    for inner in steps {
                        collect_step(inner, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// [`seal_request`] for every run request of the workflow definition
/// `def`.
pub fn seal_workflow(def: &mut Value, ring: &KeyRing, job_id: &str) -> Result<(), SealError> {
    for agent in workflow_agents(def) {
        seal_request(agent, ring, job_id)?;
    }
    Ok(())
}

/// [`open_request`] for every run request of the workflow definition
/// `def`.
pub fn open_workflow(def: &mut Value, ring: &KeyRing, job_id: &str) -> Result<(), SealError> {
    for agent in workflow_agents(def) {
        open_request(agent, ring, job_id)?;
    }
    Ok(())
}

/// The workflow definition `def` without its sealed values (each `env`
/// value stays `[sealed]`): for showing a workflow, never for running it.
pub fn strip_workflow(def: &mut Value) {
    for agent in workflow_agents(def) {
        agent.remove(SEALED_FIELD);
    }
}

fn aead_key(key: &SealKey) -> Result<ring::aead::LessSafeKey, SealError> {
    ring::aead::UnboundKey::new(&ring::aead::CHACHA20_POLY1305, key.bytes())
        .map(ring::aead::LessSafeKey::new)
        .map_err(|_| SealError::Corrupt("the key is not a ChaCha20-Poly1305 key".to_owned()))
}

fn aead_seal(key: &SealKey, job_id: &str, plain: &[u8]) -> Result<([u8; 12], Vec<u8>), SealError> {
    let mut nonce = [0u8; 12];
    getrandom::fill(&mut nonce).map_err(|e| SealError::Corrupt(format!("no random nonce: {e}")))?;
    let mut data = plain.to_vec();
    aead_key(key)?
        .seal_in_place_append_tag(
            ring::aead::Nonce::assume_unique_for_key(nonce),
            ring::aead::Aad::from(format!("{CONTEXT}{job_id}").as_bytes()),
            &mut data,
        )
        .map_err(|_| SealError::Corrupt("sealing failed".to_owned()))?;
    Ok((nonce, data))
}

fn aead_open(
    key: &SealKey,
    job_id: &str,
    nonce: [u8; 12],
    mut data: Vec<u8>,
) -> Result<Vec<u8>, SealError> {
    let plain = aead_key(key)?
        .open_in_place(
            ring::aead::Nonce::assume_unique_for_key(nonce),
            ring::aead::Aad::from(format!("{CONTEXT}{job_id}").as_bytes()),
            &mut data,
        )
        .map_err(|_| {
            SealError::Corrupt(
                "they do not open under their key (altered, or moved from another job)".to_owned(),
            )
        })?;
    Ok(plain.to_vec())
}

#[cfg(test)]
mod tests;
