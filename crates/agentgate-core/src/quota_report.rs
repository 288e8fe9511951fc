//! What `agentgate quota --json` prints and `GET /v1/quota` answers: for
//! every provider of the config (and any other the store has a state for),
//! the last usage-limit state seen and when it resets, read against `now`.
//! A provider whose account is named on this host is read under its quota
//! key (`claude@team-a`); states of other accounts the store holds are
//! listed too, each with its account. Each line carries the rate-limit
//! windows the model gateway last read off the wire for it, and says
//! `held` when `gateway.quota_hold_above` holds the provider.

use agentgate_protocol::RateLimitWindow;
use agentgate_store::{QuotaState, QuotaStatus, RunStore, StoreError};
use jiff::Timestamp;
use serde::Serialize;

use crate::config::{Config, split_quota_key};
use crate::quota::window_utilization;

/// One provider's quota.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProviderQuota {
    /// The provider.
    pub provider: String,
    /// The account the state belongs to (`account:` in the config, or
    /// `AGENTGATE_<PROVIDER>_ACCOUNT`); null: the provider's unnamed
    /// account, shared by every host that names none.
    pub account: Option<String>,
    /// `unknown` (never seen), `available`, `warning`, `exhausted`, `held`
    /// (a window the gateway read is used above `gateway.quota_hold_above`:
    /// runs skip the provider and queued jobs wait until `reset_at`, as for
    /// `exhausted`), or `available_again` (a warning, exhaustion or hold
    /// whose reset time passed).
    pub status: &'static str,
    /// The status as stored, before the reset time is taken into account:
    /// `available`, `warning`, `exhausted` or `held`; null when never seen.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub stored_status: Option<QuotaStatus>,
    /// When the limit resets (RFC 3339), if known.
    pub reset_at: Option<String>,
    /// Seconds until `reset_at` from now; 0 once it passed.
    pub reset_in_seconds: Option<i64>,
    /// What set the state: `error:<run_id>`, `event:<run_id>` (a
    /// `rate_limit` event), `success:<run_id>` or `wire:<run_id>` (a model
    /// call the run's gateway saw).
    pub source: Option<String>,
    /// The run that set the state.
    pub run_id: Option<String>,
    /// When the state was stored (RFC 3339).
    pub updated_at: Option<String>,
    /// The provider's message, if any; for a state read off the wire, the
    /// window that set it (`window 5h at 100%, resets …`, `held: window 5h
    /// at 97% (quota_hold_above 0.95), resets …`).
    pub message: Option<String>,
    /// The rate-limit windows the model gateway last read off the wire for
    /// this provider (and account); empty when none was seen.
    pub windows: Vec<QuotaWindow>,
}

/// One rate-limit window of a [`ProviderQuota`], as the API reported it in a
/// response's headers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QuotaWindow {
    /// Which limit: `requests`, `tokens`, `input_tokens`, `output_tokens`
    /// (Anthropic and OpenAI), `5h` and `7d` (Anthropic's unified windows),
    /// `primary` and `secondary` (Codex's usage-percent windows).
    pub name: String,
    /// The window's size as the API states it (requests or tokens).
    pub limit: Option<u64>,
    /// What is left of it.
    pub remaining: Option<u64>,
    /// How much is used, from 0.0 to 1.0: as the API gave it, else
    /// `1 - remaining / limit`.
    pub utilization: Option<f64>,
    /// When it resets (RFC 3339, UTC).
    pub resets_at: Option<String>,
    /// The API's own status word for the window (Anthropic's `allowed`,
    /// `allowed_warning`, `rejected`).
    pub status: Option<String>,
}

impl From<RateLimitWindow> for QuotaWindow {
    fn from(window: RateLimitWindow) -> Self {
        QuotaWindow {
            utilization: window_utilization(&window),
            name: window.name,
            limit: window.limit,
            remaining: window.remaining,
            resets_at: window.resets_at,
            status: window.status,
        }
    }
}

/// One line from the state stored under `quota_key` (`None`: never seen),
/// at `now`.
pub fn provider_quota(
    quota_key: String,
    state: Option<QuotaState>,
    now: Timestamp,
) -> ProviderQuota {
    let (provider, account) = split_quota_key(&quota_key);
    let (provider, account) = (provider.to_owned(), account.map(str::to_owned));
    let Some(s) = state else {
        return ProviderQuota {
            provider,
            account,
            status: "unknown",
            stored_status: None,
            reset_at: None,
            reset_in_seconds: None,
            source: None,
            run_id: None,
            updated_at: None,
            message: None,
            windows: Vec::new(),
        };
    };
    let reset_in_seconds = s.reset_at.map(|t| (t.as_second() - now.as_second()).max(0));
    let passed = s.reset_at.is_some_and(|t| t <= now);
    let status = match s.status {
        QuotaStatus::Exhausted | QuotaStatus::Warning | QuotaStatus::Held if passed => {
            "available_again"
        }
        other => other.as_str(),
    };
    ProviderQuota {
        provider,
        account,
        status,
        stored_status: Some(s.status),
        reset_at: s.reset_at.map(|t| t.to_string()),
        reset_in_seconds,
        run_id: s.source.split_once(':').map(|(_, id)| id.to_owned()),
        source: Some(s.source),
        updated_at: Some(s.updated_at.to_string()),
        message: s.message,
        windows: s.windows.into_iter().map(QuotaWindow::from).collect(),
    }
}

/// Every provider of `config`, then every other provider `store` has a
/// state for, at `now`. Without a store (none was created yet), every
/// provider is `unknown`.
pub fn report(
    config: &Config,
    store: Option<&dyn RunStore>,
    now: Timestamp,
) -> Result<Vec<ProviderQuota>, StoreError> {
    let mut names: Vec<String> = config
        .all_providers()
        .iter()
        .map(|p| config.quota_key(p.name()))
        .collect();
    let mut states = match store {
        Some(store) => store.list_quota()?,
        None => Vec::new(),
    };
    for (name, _) in &states {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    Ok(names
        .into_iter()
        .map(|name| {
            let state = states
                .iter()
                .position(|(n, _)| *n == name)
                .map(|i| states.swap_remove(i).1);
            provider_quota(name, state, now)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(status: QuotaStatus, reset_at: Option<Timestamp>) -> QuotaState {
        QuotaState {
            status,
            reset_at,
            source: "error:r1".into(),
            updated_at: Timestamp::UNIX_EPOCH,
            message: None,
            windows: Vec::new(),
        }
    }

    #[test]
    fn a_passed_reset_reads_as_available_again_with_zero_seconds() {
        let now = Timestamp::from_second(1_000).unwrap();
        let past = Timestamp::from_second(500).unwrap();
        let r = provider_quota(
            "claude".into(),
            Some(state(QuotaStatus::Exhausted, Some(past))),
            now,
        );
        assert_eq!(r.status, "available_again");
        assert_eq!(r.reset_in_seconds, Some(0));
        assert_eq!(r.run_id.as_deref(), Some("r1"));
        let future = Timestamp::from_second(1_600).unwrap();
        let r = provider_quota(
            "claude".into(),
            Some(state(QuotaStatus::Exhausted, Some(future))),
            now,
        );
        assert_eq!(r.status, "exhausted");
        assert_eq!(r.reset_in_seconds, Some(600));
        assert_eq!(provider_quota("codex".into(), None, now).status, "unknown");
    }

    #[test]
    fn a_hold_reads_as_held_until_its_reset_with_its_windows() {
        let now = Timestamp::from_second(1_000).unwrap();
        let reset = Timestamp::from_second(1_600).unwrap();
        let mut held = state(QuotaStatus::Held, Some(reset));
        held.source = "wire:r2".into();
        held.message = Some("held: window 5h at 97% (quota_hold_above 0.95)".into());
        held.windows = vec![RateLimitWindow {
            name: "requests".into(),
            limit: Some(200),
            remaining: Some(50),
            resets_at: Some(reset.to_string()),
            ..RateLimitWindow::default()
        }];
        let r = provider_quota("claude".into(), Some(held.clone()), now);
        assert_eq!(r.status, "held");
        assert_eq!(r.stored_status, Some(QuotaStatus::Held));
        assert_eq!(r.run_id.as_deref(), Some("r2"));
        assert_eq!(r.windows.len(), 1);
        assert_eq!(r.windows[0].name, "requests");
        // Computed from remaining / limit when the API gave no share.
        assert_eq!(r.windows[0].utilization, Some(0.75));
        assert_eq!(r.windows[0].resets_at, Some(reset.to_string()));
        // Past its reset, a hold is over like any exhaustion.
        let later = Timestamp::from_second(1_601).unwrap();
        assert_eq!(
            provider_quota("claude".into(), Some(held.clone()), later).status,
            "available_again"
        );
        // An exhaustion the wire saw (not a hold) still reads exhausted.
        held.status = QuotaStatus::Exhausted;
        held.message = Some("window 5h at 100%".into());
        assert_eq!(
            provider_quota("claude".into(), Some(held), now).status,
            "exhausted"
        );
    }
}
