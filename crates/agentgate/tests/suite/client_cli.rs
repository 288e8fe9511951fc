//! `agentgate submit`, `cancel` and `tail` when the server cannot serve
//! them: unreachable, no token, a wrong token, a URL the client cannot use,
//! flags that have no meaning for a server. Each is a clear line on stderr
//! and its own exit code, never a panic.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::serve_support::{Env, Serve};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");

/// `agentgate ARGS` with only `vars` (and a HOME) in its environment.
fn agentgate(home: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    Command::new(AGENTGATE)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("AGENTGATE_HOME", home.join("data"))
        .envs(vars.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A port on 127.0.0.1 where nothing listens.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn an_unreachable_server_is_exit_75_for_every_client_command() {
    let home = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{}", closed_port());
    let token = [("AGENTGATE_TOKEN", "t0k3n-for-the-client-tests-0123456")];
    for args in [
        vec!["submit", "--server", &url, "hello"],
        vec!["submit", "--server", &url, "--wait", "hello"],
        vec!["cancel", "--server", &url, "r-1"],
        vec!["tail", "--server", &url, "r-1"],
    ] {
        let out = agentgate(home.path(), &args, &token);
        assert_eq!(out.status.code(), Some(75), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("cannot reach the server at {url}")),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // AGENTGATE_SERVER names the server when --server does not.
    let mut vars = token.to_vec();
    vars.push(("AGENTGATE_SERVER", &url));
    let out = agentgate(home.path(), &["submit", "hello"], &vars);
    assert_eq!(out.status.code(), Some(75), "{}", stderr(&out));
    assert!(stderr(&out).contains(&url), "{}", stderr(&out));
}

#[test]
fn without_a_token_or_with_a_bad_url_the_client_sends_nothing() {
    let home = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{}", closed_port());
    let out = agentgate(home.path(), &["submit", "--server", &url, "hi"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no token"), "{}", stderr(&out));

    let token = [("AGENTGATE_TOKEN", "t0k3n-for-the-client-tests-0123456")];
    for (url, says) in [("https://127.0.0.1:1", "https"), ("127.0.0.1:1", "http://")] {
        let out = agentgate(home.path(), &["cancel", "--server", url, "r-1"], &token);
        assert_eq!(out.status.code(), Some(2), "{url}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{url}: {}", stderr(&out));
    }
    for flag in ["--dry-run", "--no-store"] {
        let out = agentgate(
            home.path(),
            &["submit", "--server", &url, flag, "hi"],
            &token,
        );
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", stderr(&out));
        assert!(stderr(&out).contains(flag), "{flag}: {}", stderr(&out));
    }
}

#[test]
fn a_wrong_token_is_refused_by_a_real_server_and_never_printed() {
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let right = "the-right-token-0123456789abcdefgh";
    let serve = Serve::start(
        &Env {
            home: home.path(),
            bin: &bin,
            vars: vec![("AGENTGATE_TOKEN", right.to_owned())],
        },
        &[],
    );
    let wrong = "a-wrong-token-9876543210";
    let out = agentgate(
        home.path(),
        &["cancel", "--server", &serve.url, "r-1"],
        &[("AGENTGATE_TOKEN", wrong)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("401 unauthorized"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains(wrong) && !stderr(&out).contains(right));
    // The token file the server's data folder would hold is used when
    // AGENTGATE_TOKEN is not set: here there is none.
    let out = agentgate(home.path(), &["tail", "--server", &serve.url, "r-1"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
