use std::path::PathBuf;

use super::super::*;
use super::{invalid, parse};

#[test]
fn the_sandbox_section_loads_with_its_lists_container_and_providers() {
    let home = PathBuf::from(std::env::var_os("HOME").unwrap());
    let c = parse(
        "version: 1\nproviders:\n  mycli:\n    command: [mycli, \"{prompt}\"]\nsandbox:\n  level: workspace\n  require: workspace\n  env_allow: [CORP_PROXY_CA, \"MYTOOL_*\", CORP_PROXY_CA]\n  hide: [~/.kube, secrets/, \"~\"]\n  read_allow: [/opt/sdk]\n  write_allow: [~/.cache/pip, ./out]\n  egress_allow: [GitHub.com:443, \"*.npmjs.org:443\", \"10.0.0.1:8080\", \"[::1]:9000\"]\n  container: {engine: ./bin/podman, image: \"localhost/agents:1\", args: [--memory, 2g, 3]}\n  providers:\n    Codex: {level: strict, env_allow: [CODEX_EXTRA]}\n    mycli: {env_allow: [\"MYCLI_*\"]}\nagents:\n  a: {provider: claude, sandbox: strict}\n  b: {provider: claude}\n",
    )
    .unwrap();
    let s = &c.sandbox;
    assert_eq!(s.level, Some(SandboxLevel::Workspace));
    assert_eq!(s.require, Some(SandboxLevel::Workspace));
    assert_eq!(s.env_allow, ["CORP_PROXY_CA", "MYTOOL_*"], "each once");
    assert_eq!(
        s.hide,
        [
            home.join(".kube"),
            PathBuf::from("/cfg/secrets"),
            home.clone()
        ]
    );
    assert_eq!(s.read_allow, [PathBuf::from("/opt/sdk")]);
    assert_eq!(
        s.write_allow,
        [home.join(".cache/pip"), PathBuf::from("/cfg/out")]
    );
    assert_eq!(
        s.egress_allow,
        [
            "github.com:443",
            "*.npmjs.org:443",
            "10.0.0.1:8080",
            "[::1]:9000"
        ]
    );
    assert_eq!(
        s.container,
        Some(ContainerSpec {
            engine: Some("/cfg/bin/podman".into()),
            image: Some("localhost/agents:1".into()),
            name: None,
            args: vec!["--memory".into(), "2g".into(), "3".into()],
        })
    );
    let codex = s.provider("codex").unwrap();
    assert_eq!(codex.level, Some(SandboxLevel::Strict));
    assert_eq!(codex.env_allow, ["CODEX_EXTRA"]);
    assert_eq!(s.provider("mycli").unwrap().env_allow, ["MYCLI_*"]);
    assert_eq!(c.agent("a").unwrap().sandbox, Some(SandboxLevel::Strict));
    assert_eq!(c.agent("b").unwrap().sandbox, None);
    // Without the section: every level unset (off), nothing required.
    assert_eq!(
        parse("version: 1\n").unwrap().sandbox,
        SandboxConfig::default()
    );
    // A container named instead of an image; the engine looked up on PATH.
    let c = parse(
        "version: 1\nsandbox:\n  level: container\n  container: {engine: docker, name: agents}\n",
    )
    .unwrap();
    let container = c.sandbox.container.unwrap();
    assert_eq!(container.engine.as_deref(), Some("docker"));
    assert_eq!(container.name.as_deref(), Some("agents"));
}

#[test]
fn sandbox_mistakes_name_the_key_and_the_line() {
    let cases = [
        (
            "sandbox:\n  level: tight\n",
            2,
            "sandbox.level: unknown sandbox level `tight`",
        ),
        (
            "sandbox:\n  require: Strict\n",
            2,
            "sandbox.require: unknown sandbox level",
        ),
        (
            "sandbox:\n  env_allow: [\"BAD-NAME\"]\n",
            2,
            "`BAD-NAME` is not a variable name",
        ),
        (
            "sandbox:\n  env_allow: [\"*\"]\n",
            2,
            "`*` is not a variable name",
        ),
        (
            "sandbox:\n  env_allow: [1ABC]\n",
            2,
            "`1ABC` is not a variable name",
        ),
        (
            "sandbox:\n  env_allow: [\"A*B\"]\n",
            2,
            "`A*B` is not a variable name",
        ),
        (
            "sandbox:\n  env_allow: [AGENTGATE_TOKEN]\n",
            2,
            "agentgate's own variables",
        ),
        (
            "sandbox:\n  env_allow: [\"AGENT*\"]\n",
            2,
            "agentgate's own variables",
        ),
        (
            "sandbox:\n  hide: [\"\"]\n",
            2,
            "sandbox.hide: a path is empty",
        ),
        (
            "sandbox:\n  read_allow: [~root/x]\n",
            2,
            "only `~` and `~/...`",
        ),
        (
            "sandbox:\n  write_allow: [\" \"]\n",
            2,
            "sandbox.write_allow: a path is empty",
        ),
        (
            "sandbox:\n  egress_allow: [github.com]\n",
            2,
            "`github.com` has no port",
        ),
        (
            "sandbox:\n  egress_allow: [\"github.com:0\"]\n",
            2,
            "not 1 to 65535",
        ),
        (
            "sandbox:\n  egress_allow: [\"github.com:https\"]\n",
            2,
            "not 1 to 65535",
        ),
        (
            "sandbox:\n  egress_allow: [\"api.*.com:443\"]\n",
            2,
            "not a leading `*.`",
        ),
        (
            "sandbox:\n  egress_allow: [\"bad_host:443\"]\n",
            2,
            "no valid host name",
        ),
        (
            "sandbox:\n  egress_allow: [\":443\"]\n",
            2,
            "no valid host name",
        ),
        (
            "sandbox:\n  egress_allow: [\"[nope]:443\"]\n",
            2,
            "not an IPv6 address",
        ),
        (
            "sandbox:\n  container: {engine: podman}\n",
            2,
            "exactly one of `image`",
        ),
        (
            "sandbox:\n  container: {image: a, name: b}\n",
            2,
            "exactly one of `image`",
        ),
        (
            "sandbox:\n  container: {image: \"\"}\n",
            2,
            "sandbox.container.image: it is empty",
        ),
        ("sandbox:\n  container: {image: a, tag: b}\n", 2, "tag"),
        (
            "sandbox:\n  level: container\n",
            2,
            "needs `sandbox.container`",
        ),
        (
            "sandbox:\n  providers:\n    nosuch: {}\n",
            3,
            "unknown provider `nosuch`",
        ),
        (
            "sandbox:\n  providers:\n    claude: {}\n    Claude: {}\n",
            4,
            "`claude` is given twice",
        ),
        (
            "sandbox:\n  providers:\n    claude: {level: max}\n",
            3,
            "sandbox.providers.claude.level: unknown sandbox level `max`",
        ),
        (
            "sandbox:\n  providers:\n    claude: {level: container}\n",
            3,
            "sandbox.providers.claude.level: `container` needs `sandbox.container`",
        ),
        (
            "sandbox:\n  providers:\n    claude: {env_allow: [\"X Y\"]}\n",
            3,
            "sandbox.providers.claude.env_allow: `X Y`",
        ),
        (
            "sandbox:\n  providers:\n    claude: {enabled: true}\n",
            3,
            "enabled",
        ),
        ("sandbox:\n  levels: strict\n", 2, "levels"),
        (
            "agents:\n  a: {provider: claude, sandbox: tight}\n",
            2,
            "agent `a`: `sandbox`: unknown sandbox level `tight`",
        ),
    ];
    for (section, line, words) in cases {
        let (at, message) = invalid(&format!("version: 1\n{section}"));
        assert_eq!(at, Some(line + 1), "{section}: {message}");
        assert!(message.contains(words), "{section}: {message}");
    }
}
