//! Opening a [`PgStore`]: the URL, the runtime, the pool, the schema.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime, Timeouts};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{PgError, PgOptions, PgStore, listen, migrations, tls, url};
use crate::error::StoreError;
use crate::redact::redact_url;

impl PgStore {
    /// Connects to the database at `url` (a libpq connection URL, e.g.
    /// `postgres://agentgate@db.example/agentgate` or, for a Unix socket,
    /// `postgres://agentgate@localhost/agentgate?host=/run/postgresql`),
    /// migrates its schema (once, under a lock, whoever else connects at the
    /// same time) and keeps a pool of connections. Local run files go in
    /// `runs_dir`.
    ///
    /// TLS follows the URL's `sslmode` (`disable`, `allow`, `prefer` (the
    /// default), `require`, `verify-ca`, `verify-full`) and `sslrootcert`
    /// (a PEM file; else the system's roots), as libpq reads them; see
    /// `tls.rs` for where it differs.
    ///
    /// A connection that the network stopped answering (a partition, a
    /// host gone without a reset) fails in bounded time: see
    /// [`bound_dead_connections`]; the pool then opens new ones, so a
    /// process reconnects by itself once the network is back.
    pub fn connect(
        url: &str,
        runs_dir: impl Into<PathBuf>,
        options: &PgOptions,
    ) -> Result<PgStore, StoreError> {
        let database = redact_url(url);
        let invalid = |reason: String| StoreError::InvalidStore {
            store: database.clone(),
            reason,
        };
        let (driver_url, tls_settings) = url::split_url(url).map_err(invalid)?;
        let mut config = tokio_postgres::Config::from_str(&driver_url)
            .map_err(|e| invalid(format!("not a PostgreSQL connection URL: {e}")))?;
        tls::apply_mode(&mut config, &tls_settings);
        bound_dead_connections(&mut config);
        let tls = tls::connector(&tls_settings).map_err(invalid)?;
        let runs_dir = runs_dir.into();
        crate::run_files::create_private_dir(&runs_dir)
            .and_then(|()| crate::run_files::make_private(&runs_dir))
            .map_err(|source| StoreError::Io {
                op: "create the runs folder",
                path: runs_dir.clone(),
                source,
            })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("agentgate-pg")
            .enable_all()
            .build()
            .map_err(|source| StoreError::Io {
                op: "start the PostgreSQL store's runtime",
                path: PathBuf::from(&database),
                source,
            })?;
        let listen_target = listen::ListenTarget {
            config: config.clone(),
            tls: tls.clone(),
            timeout: options.timeout,
        };
        let pool = build_pool(config, tls, options, &runtime).map_err(|reason| {
            StoreError::InvalidStore {
                store: database.clone(),
                reason,
            }
        })?;
        let store = PgStore::from_parts(runtime, pool, listen_target, database, runs_dir);
        let migrated = store.call("connect and migrate the schema", |client| {
            Box::pin(async move { migrations::migrate(client).await })
        })?;
        if let migrations::Migrated::TooNew(found) = migrated {
            return Err(StoreError::TooNew {
                path: PathBuf::from(store.database()),
                found: i64::from(found),
                supported: i64::from(migrations::PG_SCHEMA_VERSION),
            });
        }
        Ok(store)
    }
}

/// How long opening a connection may take unless the URL says
/// (`connect_timeout`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long data sent on a connection may stay unacknowledged before the
/// kernel drops the connection, unless the URL says (`tcp_user_timeout`).
pub const TCP_USER_TIMEOUT: Duration = Duration::from_secs(10);

/// An idle connection is probed after this long without traffic, unless
/// the URL says (`keepalives_idle`), then every [`KEEPALIVE_INTERVAL`], and
/// dropped after [`KEEPALIVE_RETRIES`] unanswered probes.
pub const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);
pub const KEEPALIVE_RETRIES: u32 = 2;

/// Make a connection the network stopped answering fail in bounded time:
/// without these, a query on a socket whose peer is cut off (no reset
/// comes) waits for the kernel's retransmissions, some 15 minutes, and an
/// idle pooled connection looks alive for two hours. The URL's own
/// `connect_timeout`, `tcp_user_timeout` and `keepalives_*` win.
fn bound_dead_connections(config: &mut tokio_postgres::Config) {
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(TCP_USER_TIMEOUT);
    }
    // The driver's default idle time is libpq's: two hours.
    if config.get_keepalives() && config.get_keepalives_idle() == Duration::from_secs(2 * 60 * 60) {
        config.keepalives_idle(KEEPALIVE_IDLE);
        if config.get_keepalives_interval().is_none() {
            config.keepalives_interval(KEEPALIVE_INTERVAL);
        }
        if config.get_keepalives_retries().is_none() {
            config.keepalives_retries(KEEPALIVE_RETRIES);
        }
    }
}

fn build_pool(
    config: tokio_postgres::Config,
    tls: MakeRustlsConnect,
    options: &PgOptions,
    runtime: &tokio::runtime::Runtime,
) -> Result<Pool, String> {
    let manager = Manager::from_config(
        config,
        tls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    let _entered = runtime.enter();
    Pool::builder(manager)
        .max_size(options.pool_size.max(1))
        .timeouts(Timeouts {
            wait: Some(options.timeout),
            create: Some(options.timeout),
            recycle: Some(options.timeout),
        })
        .runtime(Runtime::Tokio1)
        .build()
        .map_err(|e| format!("cannot build the connection pool: {e}"))
}

impl From<deadpool_postgres::PoolError> for PgError {
    fn from(error: deadpool_postgres::PoolError) -> Self {
        PgError::Pool(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded(url: &str) -> tokio_postgres::Config {
        let mut config = tokio_postgres::Config::from_str(url).unwrap();
        bound_dead_connections(&mut config);
        config
    }

    #[test]
    fn a_url_without_timeouts_gets_bounds_on_a_dead_connection() {
        let config = bounded("postgres://u@db.example/agentgate");
        assert_eq!(config.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        assert_eq!(config.get_tcp_user_timeout(), Some(&TCP_USER_TIMEOUT));
        assert!(config.get_keepalives());
        assert_eq!(config.get_keepalives_idle(), KEEPALIVE_IDLE);
        assert_eq!(config.get_keepalives_interval(), Some(KEEPALIVE_INTERVAL));
        assert_eq!(config.get_keepalives_retries(), Some(KEEPALIVE_RETRIES));
    }

    #[test]
    fn the_urls_own_timeouts_win() {
        let config = bounded(
            "postgres://u@db.example/agentgate?connect_timeout=3&tcp_user_timeout=4\
             &keepalives_idle=60",
        );
        assert_eq!(config.get_connect_timeout(), Some(&Duration::from_secs(3)));
        assert_eq!(config.get_tcp_user_timeout(), Some(&Duration::from_secs(4)));
        assert_eq!(config.get_keepalives_idle(), Duration::from_secs(60));
        let off = bounded("postgres://u@db.example/agentgate?keepalives=0");
        assert!(!off.get_keepalives());
    }
}
