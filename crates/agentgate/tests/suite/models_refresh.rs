//! The model catalogs' background refresh in a real `agentgate serve`
//! (`models.refresh: 1s`), with a stand-in `opencode` whose `opencode
//! models` prints the lines of a file: a catalog never asked for is not
//! fetched; once `GET /v1/models` cached it, the server fetches it again
//! by itself once the CLI's list changed, keeps the older copy marked stale (its error
//! logged without the secret the CLI printed) when the CLI fails, and
//! stops at once at SIGTERM; `agentgate worker` (PostgreSQL) refreshes a
//! cached catalog the same way. Every wait polls the file with a deadline.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::serve_support::{Env, Serve, get};

const TOKEN: &str = "catalog-refresh-token-0123456789abcdef";

/// A secret in the server's environment that the failing CLI prints.
const SECRET: &str = "sk-refresh-secret-0123456789abcdef";

/// `opencode models`: the lines of `@DIR@/list`; with `@DIR@/fail`
/// present, an error on stderr that quotes the API key, exit 1.
const OPENCODE: &str = r#"#!/bin/sh
[ "$1" = models ] || exit 2
if [ -e '@DIR@/fail' ]; then
  echo "auth failed for key $OPENAI_API_KEY" >&2
  exit 1
fi
cat '@DIR@/list'
"#;

/// The cached catalog, once `ok` accepts it (polled, at most 60 s).
fn catalog_when(file: &Path, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        if let Some(v) = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .filter(|v| ok(v))
        {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}: {:?}",
            std::fs::read_to_string(file)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Until the server's log holds `text` (polled, at most 60 s).
fn wait_for_log(serve: &Serve, text: &str) {
    let start = Instant::now();
    while !serve.stderr_so_far().contains(text) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no `{text}` in the log: {}",
            serve.stderr_so_far()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn ids(catalog: &Value) -> Vec<&str> {
    catalog["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect()
}

#[test]
fn serve_refreshes_a_catalog_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let opencode = bin.join("opencode");
    std::fs::write(&opencode, OPENCODE.replace("@DIR@", home.to_str().unwrap())).unwrap();
    std::fs::set_permissions(&opencode, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(home.join("list"), "fake/model-a\n").unwrap();
    let config = home.join("agentgate.yaml");
    std::fs::write(&config, "version: 1\nmodels:\n  refresh: 1s\n").unwrap();
    let serve = Serve::start(
        &Env {
            home,
            bin: &bin,
            vars: vec![
                ("AGENTGATE_TOKEN", TOKEN.to_owned()),
                ("AGENTGATE_CONFIG", config.display().to_string()),
                ("OPENAI_API_KEY", SECRET.to_owned()),
                // The refresh's looks (debug), and its warnings.
                (
                    "AGENTGATE_LOG",
                    "warn,agentgate_core::catalog=debug".to_owned(),
                ),
            ],
        },
        &[],
    );
    let file = home.join("data/catalogs/opencode.json");

    // Nobody asked for opencode's models: the CLI is not started for them.
    // (A look happens every second: the server's log says it looked.)
    wait_for_log(&serve, "model catalogs: looked");
    assert!(!file.exists(), "fetched unasked");
    // Asked once through the API: cached.
    let r = get(&serve.url, "/v1/models?provider=opencode", Some(TOKEN));
    assert_eq!(r.status, 200, "{r:?}");
    let first = catalog_when(&file, "the first fetch", |c| ids(c) == ["fake/model-a"]);
    assert_eq!(first["stale"], false);
    // The CLI's list changes: the server fetches it again.
    std::fs::write(home.join("list"), "fake/model-a\nfake/model-b\n").unwrap();
    let second = catalog_when(&file, "the new list", |c| {
        ids(c) == ["fake/model-a", "fake/model-b"]
    });
    assert_ne!(second["fetched_at"], first["fetched_at"]);
    assert_eq!(second["stale"], false);

    // The CLI fails: the older copy stays, marked stale, with the error
    // (the key redacted).
    std::fs::write(home.join("fail"), "").unwrap();
    let stale = catalog_when(&file, "the stale copy", |c| c["stale"] == true);
    assert_eq!(ids(&stale), ["fake/model-a", "fake/model-b"]);
    assert_eq!(stale["fetched_at"], second["fetched_at"]);
    let error = stale["error"].as_str().unwrap();
    assert!(error.contains("auth failed"), "{error}");
    assert!(!error.contains(SECRET), "{error}");
    let log = serve.stderr_so_far();
    assert!(log.contains("refreshing the model catalog failed"), "{log}");
    assert!(!log.contains(SECRET), "{log}");

    // It recovers on its own once the CLI does.
    std::fs::remove_file(home.join("fail")).unwrap();
    catalog_when(&file, "the recovered copy", |c| c["stale"] == false);

    let (status, _, stderr) = serve.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains(SECRET), "{stderr}");
}

/// `agentgate worker` (on PostgreSQL) keeps a cached catalog fresh the same
/// way, and stops at SIGTERM.
#[test]
fn a_worker_refreshes_a_cached_catalog_in_the_background() {
    use super::serve_queue_support::QueueHome;
    use super::store_postgres::fresh_database;
    use super::worker::Worker;

    let url = fresh_database();
    let home = QueueHome::new("models:\n  refresh: 1s\n");
    let opencode = home.file("bin/opencode");
    std::fs::write(
        &opencode,
        OPENCODE.replace("@DIR@", home.path().to_str().unwrap()),
    )
    .unwrap();
    std::fs::set_permissions(&opencode, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(home.file("list"), "fake/model-a\n").unwrap();
    // Cached once, as `agentgate models` caches it.
    let listed = std::process::Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .args(["models", "-p", "opencode", "--json"])
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", home.file("bin").display()),
        )
        .env("HOME", home.path())
        .env("AGENTGATE_HOME", home.file("data"))
        .env("AGENTGATE_CONFIG", home.file("agentgate.yaml"))
        .current_dir(home.path())
        .output()
        .unwrap();
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let file = home.file("data/catalogs/opencode.json");
    let first = catalog_when(&file, "the cached list", |c| ids(c) == ["fake/model-a"]);

    let worker = Worker::start(&home, &url, &[]);
    std::fs::write(home.file("list"), "fake/model-c\n").unwrap();
    let second = catalog_when(&file, "the worker's refresh", |c| {
        ids(c) == ["fake/model-c"]
    });
    assert_ne!(second["fetched_at"], first["fetched_at"]);
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &worker.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let (status, log) = worker.wait();
    assert_eq!(status.code(), Some(0), "{log}");
}
