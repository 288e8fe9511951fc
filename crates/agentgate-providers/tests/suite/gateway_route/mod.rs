//! The gateway routing (`plan_upstream`, `CliRequest::gateway`), one file
//! per CLI: the plan from env and files written into a temp home, and the
//! command pointed at a gateway (what the CLI's environment, arguments and
//! files would hold).
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail the test by panicking"
)]

mod claude;
mod codex;
mod gemini;
mod opencode;
mod others;
mod qwen;

use std::collections::BTreeMap;
pub use std::path::Path;

pub use agentgate_providers::{
    CliCommand, CliEnv, CliRequest, GatewayTarget, Pointing, Provider, RouteError, Scratch,
    UpstreamKey, UpstreamOverrides, UpstreamPlan, plan_upstream,
};

/// The gateway's base URL in these tests (with its path secret).
pub const GATEWAY: &str = "http://127.0.0.1:4000/s3cr3t";
/// The stub the CLI is given.
pub const STUB: &str = "stub-key-for-this-run";
/// A real key: it must never reach the CLI.
pub const REAL: &str = "sk-real-key-0123456789";

/// A CLI environment of exactly `pairs`.
pub fn env(pairs: &[(&str, &str)]) -> CliEnv {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect();
    CliEnv::new(Vec::new(), false, &pairs, &[])
}

/// The plan of `provider` with `pairs` as its environment and `home`.
pub fn plan(
    provider: &str,
    pairs: &[(&str, &str)],
    home: &Path,
    model: Option<&str>,
) -> Result<UpstreamPlan, RouteError> {
    plan_upstream(
        provider,
        &env(pairs),
        Some(home),
        model,
        &UpstreamOverrides::default(),
    )
}

/// Writes `text` to `home/rel`, making its folders.
pub fn write(home: &Path, rel: &str, text: &str) {
    let path = home.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The key of a plan, `(value, from)`, when it is an API key.
pub fn api_key(plan: &UpstreamPlan) -> (&str, &str) {
    match &plan.key {
        UpstreamKey::ApiKey { value, from } => (value, from),
        other => panic!("not an API key: {other:?}"),
    }
}

/// The login of a plan, when it passes one through.
pub fn login(plan: &UpstreamPlan) -> &str {
    match &plan.key {
        UpstreamKey::Passthrough { login } => login,
        other => panic!("not a passthrough: {other:?}"),
    }
}

/// The error's text, which must never hold the real key.
pub fn error_text(e: RouteError) -> String {
    let text = e.to_string();
    assert!(!text.contains(REAL), "{text}");
    assert!(!format!("{e:?}").contains(REAL), "{e:?}");
    text
}

/// A request with the real key in its `env` under `key_vars` (as
/// `--env` or the config would put it), agentgate's own environment
/// cleared, and `plan`'s gateway.
pub fn request(plan: UpstreamPlan, key_vars: &[&str]) -> CliRequest {
    CliRequest {
        prompt: "do it".into(),
        cwd: "/work".into(),
        env: key_vars
            .iter()
            .map(|k| ((*k).to_owned(), REAL.to_owned()))
            .collect(),
        env_clear: true,
        gateway: Some(GatewayTarget {
            base_url: GATEWAY.into(),
            stub_key: Some(STUB.into()),
            plan,
        }),
        ..CliRequest::default()
    }
}

/// `do it` in `/work`, without a gateway.
pub fn plain_request() -> CliRequest {
    CliRequest {
        prompt: "do it".into(),
        cwd: "/work".into(),
        ..CliRequest::default()
    }
}

/// What a provider makes of a request, with the files it wrote.
pub struct Pointed {
    pub cmd: CliCommand,
    /// The CLI's environment as the attempt builds it from `inherited`:
    /// removals first, then the command's `env`, then the request's
    /// (less the command's removals).
    pub child: BTreeMap<String, String>,
    _scratch: tempfile::TempDir,
}

pub fn point(provider: &dyn Provider, req: &CliRequest, inherited: &[(&str, &str)]) -> Pointed {
    let scratch = tempfile::tempdir().unwrap();
    let cmd = provider
        .command(req, Path::new("/bin/cli"), &Scratch::at(scratch.path()))
        .unwrap_or_else(|e| panic!("{}: {e}", provider.name()));
    let child = child_env(&cmd, req, inherited);
    Pointed {
        cmd,
        child,
        _scratch: scratch,
    }
}

/// The warm command of `provider` for `req`.
pub fn point_warm(provider: &dyn Provider, req: &CliRequest) -> CliCommand {
    let scratch = tempfile::tempdir().unwrap();
    provider
        .warm_command(req, Path::new("/bin/cli"), &Scratch::at(scratch.path()))
        .unwrap()
        .unwrap()
        .command
}

fn child_env(
    cmd: &CliCommand,
    req: &CliRequest,
    inherited: &[(&str, &str)],
) -> BTreeMap<String, String> {
    let removed =
        |k: &str| req.env_remove.iter().any(|r| r == k) || cmd.env_remove.iter().any(|r| r == k);
    let mut child: BTreeMap<String, String> = inherited
        .iter()
        .filter(|(k, _)| !removed(k))
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    for (k, v) in &cmd.env {
        child.insert(
            k.to_string_lossy().into_owned(),
            v.to_string_lossy().into_owned(),
        );
    }
    for (k, v) in cmd.request_env(&req.env) {
        child.insert(k.clone(), v.clone());
    }
    child
}

impl Pointed {
    /// The CLI's value of `name`.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.child.get(name).map(String::as_str)
    }

    /// The real key is nowhere the CLI can see it: its environment, its
    /// arguments, the files written for it.
    pub fn assert_no_real_key(&self) {
        for (k, v) in &self.child {
            assert!(!v.contains(REAL), "the real key is in {k}");
        }
        for a in &self.cmd.args {
            assert!(
                !a.to_string_lossy().contains(REAL),
                "the real key is in {a:?}"
            );
        }
        for f in &self.cmd.files {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            assert!(!text.contains(REAL), "the real key is in {}", f.display());
        }
    }

    /// Whether the command removes `name` from the inherited environment.
    pub fn removes(&self, name: &str) -> bool {
        self.cmd.env_remove.iter().any(|k| k == name)
    }

    pub fn args(&self) -> Vec<String> {
        self.cmd.display_args()
    }
}

#[test]
fn debug_of_a_plan_and_a_target_never_shows_a_key() {
    let plan = UpstreamPlan {
        api: agentgate_protocol::WireApi::AnthropicMessages,
        upstream: "https://api.anthropic.com".into(),
        key: UpstreamKey::ApiKey {
            value: REAL.into(),
            from: "ANTHROPIC_API_KEY".into(),
        },
        notes: Vec::new(),
        pointing: Pointing::Claude {
            key_var: "ANTHROPIC_API_KEY".into(),
        },
    };
    let target = GatewayTarget {
        base_url: GATEWAY.into(),
        stub_key: Some(STUB.into()),
        plan: plan.clone(),
    };
    for text in [
        format!("{plan:?}"),
        format!("{}", plan.key),
        format!("{target:?}"),
        format!("{:?}", request(plan, &[])),
    ] {
        assert!(!text.contains(REAL), "{text}");
        assert!(!text.contains(STUB), "{text}");
        assert!(!text.contains("s3cr3t"), "{text}");
        assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
    }
}

#[test]
fn the_config_can_name_the_upstream_and_the_key_in_a_file_or_a_variable() {
    let home = tempfile::tempdir().unwrap();
    let key_file = home.path().join("anthropic.key");
    std::fs::write(&key_file, format!("{REAL}\n")).unwrap();
    let overrides = UpstreamOverrides {
        upstream: Some("https://llm-proxy.corp.example/anthropic/".into()),
        key_env: None,
        key_file: Some(key_file.clone()),
    };
    let p = plan_upstream("claude", &env(&[]), Some(home.path()), None, &overrides).unwrap();
    assert_eq!(p.upstream, "https://llm-proxy.corp.example/anthropic");
    assert_eq!(
        api_key(&p),
        (REAL, &*format!("file {}", key_file.display()))
    );
    assert!(
        p.notes.iter().any(|n| n.contains("from the config")),
        "{:?}",
        p.notes
    );

    // A variable of agentgate's own environment, even when the CLI's is cleared.
    let own = vec![("CORP_ANTHROPIC_KEY".to_owned(), REAL.to_owned())];
    let cleared = CliEnv::new(own, true, &[], &[]);
    let by_var = UpstreamOverrides {
        key_env: Some("CORP_ANTHROPIC_KEY".into()),
        ..UpstreamOverrides::default()
    };
    let p = plan_upstream("claude", &cleared, Some(home.path()), None, &by_var).unwrap();
    assert_eq!(api_key(&p), (REAL, "CORP_ANTHROPIC_KEY"));
    assert_eq!(p.upstream, "https://api.anthropic.com");

    // Named but unset, or an empty or missing file: an error naming it.
    let unset = UpstreamOverrides {
        key_env: Some("NOT_SET_ANYWHERE_1234".into()),
        ..UpstreamOverrides::default()
    };
    let text = error_text(
        plan_upstream("claude", &env(&[]), Some(home.path()), None, &unset).unwrap_err(),
    );
    assert!(text.contains("NOT_SET_ANYWHERE_1234"), "{text}");
    let missing = UpstreamOverrides {
        key_file: Some(home.path().join("none.key")),
        ..UpstreamOverrides::default()
    };
    let text = error_text(
        plan_upstream("claude", &env(&[]), Some(home.path()), None, &missing).unwrap_err(),
    );
    assert!(text.contains("none.key"), "{text}");
}

#[test]
fn the_home_defaults_to_the_environments_home() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".claude/.credentials.json", "{}");
    let h = home.path().to_str().unwrap();
    let p = plan_upstream(
        "claude",
        &env(&[("HOME", h)]),
        None,
        None,
        &UpstreamOverrides::default(),
    )
    .unwrap();
    assert_eq!(login(&p), "Claude subscription login");
}

#[test]
fn a_request_with_an_api_key_plan_and_no_stub_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let p = plan("claude", &[("ANTHROPIC_API_KEY", REAL)], home.path(), None).unwrap();
    let mut req = request(p, &[]);
    if let Some(t) = req.gateway.as_mut() {
        t.stub_key = None;
    }
    let err = agentgate_providers::claude::CLAUDE
        .command(&req, Path::new("/bin/claude"), &Scratch::temporary())
        .unwrap_err()
        .to_string();
    assert!(err.contains("no stub key"), "{err}");
}

#[test]
fn a_target_planned_for_another_cli_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let p = plan("claude", &[("ANTHROPIC_API_KEY", REAL)], home.path(), None).unwrap();
    let err = agentgate_providers::gemini::GEMINI
        .command(
            &request(p, &[]),
            Path::new("/bin/gemini"),
            &Scratch::temporary(),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("another CLI"), "{err}");
}
