//! `webhooks:`: the secret deliveries are signed with, whether private
//! addresses may be delivered to, and the URLs subscribed to events.
//!
//! ```yaml
//! webhooks:
//!   secret_file: /etc/agentgate/whsec     # or secret_env: NAME; "whsec_<base64>"
//!   allow_private: false
//!   subscriptions:
//!     - {url: "https://hooks.example.com/agentgate", events: [run.ended]}
//! ```
//!
//! The secret is named here and read by `agentgate serve` when it starts
//! (its format is checked there, never printed). A subscription needs a
//! secret: a section with subscriptions and no secret is refused.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::paths::resolve_path;
use super::yaml::Fault;
use crate::webhook_url::WebhookUrl;

/// An event a URL may subscribe to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WebhookEvent {
    /// `run.ended`: a job's run ended (succeeded, failed, cancelled).
    RunEnded,
    /// `job.waiting`: a job went back to the queue to wait (for a quota's
    /// reset, or a budget).
    JobWaiting,
    /// `approval.requested`: a run in permission mode `ask` waits for a
    /// person's answer.
    ApprovalRequested,
    /// `budget.warning`: a budget passed its warning threshold.
    BudgetWarning,
}

impl WebhookEvent {
    /// Every event.
    pub const ALL: [WebhookEvent; 4] = [
        Self::RunEnded,
        Self::JobWaiting,
        Self::ApprovalRequested,
        Self::BudgetWarning,
    ];

    /// Its name, the body's `type`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::RunEnded => "run.ended",
            Self::JobWaiting => "job.waiting",
            Self::ApprovalRequested => "approval.requested",
            Self::BudgetWarning => "budget.warning",
        }
    }

    /// The event named `name`.
    pub fn named(name: &str) -> Option<WebhookEvent> {
        Self::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

/// Where the signing secret is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookSecretSource {
    /// `secret_file:` (absolute, or relative to the config's folder).
    File(PathBuf),
    /// `secret_env:`: an environment variable's name.
    Env(String),
}

/// One subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookSubscription {
    /// Its URL, as written (checked).
    pub url: String,
    /// The events it gets.
    pub events: Vec<WebhookEvent>,
}

/// `webhooks:`, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhooksSpec {
    /// Where the secret is; `None`: no section (or none named), and no
    /// delivery can be signed: a request's `callback_url` is refused.
    pub secret: Option<WebhookSecretSource>,
    /// Deliveries to loopback, private, link-local and other non-public
    /// addresses are allowed.
    pub allow_private: bool,
    /// The subscriptions, in file order.
    pub subscriptions: Vec<WebhookSubscription>,
}

impl WebhooksSpec {
    /// The subscriptions' URLs that get `event`.
    pub fn urls_for(&self, event: WebhookEvent) -> impl Iterator<Item = &str> {
        self.subscriptions
            .iter()
            .filter(move |s| s.events.contains(&event))
            .map(|s| s.url.as_str())
    }
}

/// `webhooks:` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWebhooks {
    secret_file: Option<Spanned<String>>,
    secret_env: Option<Spanned<String>>,
    allow_private: Option<bool>,
    #[serde(default)]
    subscriptions: Vec<Spanned<RawSubscription>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSubscription {
    url: Spanned<String>,
    events: Vec<Spanned<String>>,
}

/// Check `webhooks:`.
pub(super) fn convert(raw: &Spanned<RawWebhooks>, base: &Path) -> Result<WebhooksSpec, Fault> {
    let w = &raw.value;
    let secret = match (&w.secret_file, &w.secret_env) {
        (Some(_), Some(env)) => {
            return Err(Fault::at(
                env,
                "webhooks: give secret_file or secret_env, not both",
            ));
        }
        (Some(file), None) => {
            if file.value.trim().is_empty() {
                return Err(Fault::at(file, "webhooks.secret_file: it is empty"));
            }
            Some(WebhookSecretSource::File(resolve_path(
                file.value.trim(),
                base,
            )))
        }
        (None, Some(env)) => {
            let name = env.value.trim();
            if name.is_empty() || name.contains('=') {
                return Err(Fault::at(
                    env,
                    format!("webhooks.secret_env: `{name}` is not a variable name"),
                ));
            }
            Some(WebhookSecretSource::Env(name.to_owned()))
        }
        (None, None) => None,
    };
    let mut subscriptions = Vec::new();
    for sub in &w.subscriptions {
        let url = &sub.value.url;
        WebhookUrl::parse(&url.value)
            .map_err(|why| Fault::at(url, format!("webhooks.subscriptions: url: {why}")))?;
        if sub.value.events.is_empty() {
            return Err(Fault::at(
                sub,
                "webhooks.subscriptions: events: it is empty; name at least one event",
            ));
        }
        let mut events = Vec::new();
        for name in &sub.value.events {
            let event = WebhookEvent::named(name.value.trim()).ok_or_else(|| {
                let known: Vec<&str> = WebhookEvent::ALL.iter().map(|e| e.as_str()).collect();
                Fault::at(
                    name,
                    format!(
                        "webhooks.subscriptions: unknown event `{}` (known: {})",
                        name.value,
                        known.join(", ")
                    ),
                )
            })?;
            if !events.contains(&event) {
                events.push(event);
            }
        }
        subscriptions.push(WebhookSubscription {
            url: url.value.clone(),
            events,
        });
    }
    if secret.is_none()
        && let Some(first) = w.subscriptions.first()
    {
        return Err(Fault::at(
            first,
            "webhooks: subscriptions need a secret to sign deliveries with: add secret_file or secret_env",
        ));
    }
    Ok(WebhooksSpec {
        secret,
        allow_private: w.allow_private.unwrap_or(false),
        subscriptions,
    })
}
