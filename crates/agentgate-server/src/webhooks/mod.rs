//! Webhooks: signed deliveries of the events the config subscribes URLs
//! to, and of a run request's `callback_url` (docs/operating/webhooks.md).
//!
//! - Messages are written to the store's outbox where their event happens
//!   (`agentgate_executor::webhook_outbox`: a job's end or wait, written by
//!   the executor that ran it, here or in an `agentgate worker`; a run's
//!   approval request, told by the executor's approval desk through
//!   [`OutboxAsks`]). A run never waits for a delivery.
//! - [`start`] loads the secret (`signature.rs`, Standard Webhooks) and
//!   starts the delivery worker (`worker.rs`): claims due deliveries,
//!   checks the destination's addresses (`address.rs`), sends
//!   (`client.rs`), records each try, retries on the schedule
//!   (`schedule.rs`).
//! - `GET /v1/webhooks/deliveries` (`route.rs`) lists the deliveries and
//!   their tries.

mod address;
mod client;
#[cfg(test)]
mod client_tests;
mod route;
mod schedule;
mod signature;
mod worker;

use std::sync::Arc;

use agentgate_core::{Config, RequestError};
use agentgate_executor::{Clock, Executor};
use agentgate_store::StoreBackend;

pub use address::refused_because;
pub use route::{__path_v1_webhook_deliveries, DeliveryList, DeliveryView, v1_webhook_deliveries};
pub use schedule::SCHEDULE;
pub use signature::{SecretError, WebhookSecret};

/// The running delivery worker; dropping it stops it (a try under way is
/// cut off, and sent again when its lease expires).
#[derive(Debug)]
pub struct Webhooks {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Webhooks {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Why webhooks could not start.
#[derive(Debug, thiserror::Error)]
pub enum WebhookStartError {
    /// The secret could not be read or is malformed.
    #[error(transparent)]
    Secret(#[from] SecretError),
    /// The TLS settings could not be built.
    #[error("webhooks: cannot set up TLS: {0}")]
    Tls(String),
}

/// Start delivering, if the config names a secret (else nothing can be
/// signed: no worker, and `callback_url` is refused); tell the executor's
/// approval desk to write `approval.requested` messages.
pub fn start(
    config: &Config,
    store: Arc<dyn StoreBackend>,
    clock: Arc<dyn Clock>,
    executor: Option<&Arc<Executor>>,
) -> Result<Option<Webhooks>, WebhookStartError> {
    let Some(source) = &config.webhooks.secret else {
        return Ok(None);
    };
    let secret = WebhookSecret::load(source)?;
    let tls = client::tls_config().map_err(WebhookStartError::Tls)?;
    if let Some(executor) = executor {
        executor.approvals().set_ask_listener(Arc::new(OutboxAsks {
            store: store.clone(),
            config: config.clone(),
            clock: clock.clone(),
        }));
    }
    let sender = worker::Sender {
        store,
        clock,
        secret,
        allow_private: config.webhooks.allow_private,
        owner: format!(
            "webhooks-{}-{}",
            std::process::id(),
            jiff::Timestamp::now().as_nanosecond()
        ),
        tls,
    };
    Ok(Some(Webhooks {
        task: tokio::spawn(sender.run()),
    }))
}

/// A request's `callback_url` needs a secret to sign with.
pub fn check_callback(config: &Config, callback_url: Option<&str>) -> Result<(), RequestError> {
    if callback_url.is_some() && config.webhooks.secret.is_none() {
        return Err(RequestError::new(
            "callback_url",
            "this server signs no webhooks: its config's webhooks: names no secret_file or \
             secret_env",
        ));
    }
    Ok(())
}

/// Writes `approval.requested` when a run starts waiting on a person.
#[derive(Debug)]
struct OutboxAsks {
    store: Arc<dyn StoreBackend>,
    config: Config,
    clock: Arc<dyn Clock>,
}

impl agentgate_core::warm::desk::AskListener for OutboxAsks {
    fn asked(&self, run_id: &str, request_id: &str) {
        agentgate_executor::webhook_outbox::approval_requested(
            self.store.as_ref(),
            &self.config,
            self.clock.now(),
            run_id,
            request_id,
        );
    }
}
