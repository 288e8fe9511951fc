//! Opening a [`PgStore`]: the URL, the runtime, the pool, the schema.

use std::path::PathBuf;
use std::str::FromStr;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime, Timeouts};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{PgError, PgOptions, PgStore, listen, migrations, tls, url};
use crate::backend::redact_url;
use crate::error::StoreError;

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
