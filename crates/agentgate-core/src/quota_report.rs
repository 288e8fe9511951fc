//! What `agentgate quota --json` prints and `GET /v1/quota` answers: for
//! every provider of the config (and any other the store has a state for),
//! the last usage-limit state seen and when it resets, read against `now`.
//! A provider whose account is named on this host is read under its quota
//! key (`claude@team-a`); states of other accounts the store holds are
//! listed too, each with its account.

use agentgate_store::{QuotaState, QuotaStatus, RunStore, StoreError};
use jiff::Timestamp;
use serde::Serialize;

use crate::config::{Config, split_quota_key};

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
    /// `unknown` (never seen), `available`, `warning`, `exhausted`, or
    /// `available_again` (a warning or exhaustion whose reset time passed).
    pub status: &'static str,
    /// The status as stored, before the reset time is taken into account:
    /// `available`, `warning` or `exhausted`; null when never seen.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub stored_status: Option<QuotaStatus>,
    /// When the limit resets (RFC 3339), if known.
    pub reset_at: Option<String>,
    /// Seconds until `reset_at` from now; 0 once it passed.
    pub reset_in_seconds: Option<i64>,
    /// What set the state: `error:<run_id>`, `event:<run_id>` (a
    /// `rate_limit` event) or `success:<run_id>`.
    pub source: Option<String>,
    /// The run that set the state.
    pub run_id: Option<String>,
    /// When the state was stored (RFC 3339).
    pub updated_at: Option<String>,
    /// The provider's message, if any.
    pub message: Option<String>,
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
        };
    };
    let reset_in_seconds = s.reset_at.map(|t| (t.as_second() - now.as_second()).max(0));
    let passed = s.reset_at.is_some_and(|t| t <= now);
    let status = match s.status {
        QuotaStatus::Exhausted | QuotaStatus::Warning if passed => "available_again",
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
}
