use std::path::Path;

use super::*;
use crate::Scratch;
use crate::test_support::req;

fn check(servers: Vec<McpServer>) -> Result<(), String> {
    let mut r = req();
    r.mcp_servers = servers;
    let scratch = Scratch::at(Path::new("/nonexistent"));
    let ctx = Context {
        provider: "claude",
        request: &r,
        scratch: &scratch,
        resuming: false,
    };
    checked(&ctx).map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn names_are_checked_and_unique() {
    assert_eq!(
        check(vec![McpServer::new("probe_1-x", "/bin/p", &[])]),
        Ok(())
    );
    for bad in ["", "a b", "a.b", "mcp/x", &"x".repeat(65)] {
        let err = check(vec![McpServer::new(bad, "/bin/p", &[])]).unwrap_err();
        assert!(
            err.starts_with("claude cannot take the MCP server"),
            "{err}"
        );
        assert!(err.contains("letters, digits"), "{err}");
    }
    let twice = vec![
        McpServer::new("p", "/bin/p", &[]),
        McpServer::new("p", "/bin/q", &[]),
    ];
    assert!(check(twice).unwrap_err().contains("two servers"));
    assert!(
        check(vec![McpServer::new("p", "", &[])])
            .unwrap_err()
            .contains("command is empty")
    );
    let mut env = McpServer::new("p", "/bin/p", &[]);
    env.env.push(("A=B".into(), "v".into()));
    assert!(check(vec![env]).unwrap_err().contains("`A=B`"));
}

#[test]
fn the_shapes_of_the_entries() {
    let mut s = McpServer::new("probe", "/bin/probe", &["--x", "y z"]);
    s.env.push(("LOG".into(), "/tmp/log".into()));
    let plain = McpServer::new("other", "other", &[]);
    let mut trust = Map::new();
    trust.insert("trust".into(), json!(true));
    assert_eq!(
        mcp_servers_object(&[s.clone(), plain.clone()], &trust),
        json!({
            "probe": {"command": "/bin/probe", "args": ["--x", "y z"], "env": {"LOG": "/tmp/log"}, "trust": true},
            "other": {"command": "other", "args": [], "trust": true},
        })
    );
    assert_eq!(
        opencode_mcp_object(&[s, plain]),
        json!({
            "probe": {"type": "local", "command": ["/bin/probe", "--x", "y z"], "environment": {"LOG": "/tmp/log"}, "enabled": true},
            "other": {"type": "local", "command": ["other"], "enabled": true},
        })
    );
}
