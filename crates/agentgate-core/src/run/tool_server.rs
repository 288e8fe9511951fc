//! Registry tools for agent runs: a step whose agent may call tools
//! (`Step::tools`, from `--tools` and the agent's `tools:`) gets one more
//! MCP server, agentgate's own (`agentgate mcp`), told which tools to
//! offer and which run called them, so each tool run is recorded under the
//! agent run as its parent. The core only places the server; the caller
//! says how to start it ([`ToolServer`]), since the registry, the store and
//! the binary are the caller's (`agentgate-tools` checks the names).

use std::path::PathBuf;

use agentgate_providers::McpServer;

/// How to start agentgate's MCP server over the tool registry: a command
/// with its first arguments (`agentgate mcp --relay SOCKET`: the server
/// relays each call to the process that runs the agent, so it needs no
/// variable of agentgate's; see `agentgate_tools::mcp::relay`).
/// [`ToolServer::for_step`] adds `--tools NAME,...` and `--parent-run
/// RUN`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolServer {
    /// The program (the agentgate binary).
    pub command: PathBuf,
    /// Its first arguments.
    pub args: Vec<String>,
    /// Variables it needs, set on top of what the CLI passes on (none for
    /// the relay: an entry's variables are readable by the agent).
    pub env: Vec<(String, String)>,
    /// The tools its registry offers: a step that asks for another fails
    /// with `invalid_input` before its CLI starts.
    pub offered: Vec<String>,
}

impl ToolServer {
    /// The name the agent CLI knows the server by (Claude calls its tools
    /// `mcp__agentgate__NAME`).
    pub const NAME: &'static str = "agentgate";

    /// The first of `tools` the registry does not offer.
    pub fn missing<'a>(&self, tools: &'a [String]) -> Option<&'a str> {
        tools
            .iter()
            .find(|t| !self.offered.contains(t))
            .map(String::as_str)
    }

    /// The MCP server that offers `tools` to the agent of run `run_id`.
    pub fn for_step(&self, tools: &[String], run_id: &str) -> McpServer {
        let mut args = self.args.clone();
        args.extend([
            "--tools".to_owned(),
            tools.join(","),
            "--parent-run".to_owned(),
            run_id.to_owned(),
        ]);
        McpServer {
            name: Self::NAME.to_owned(),
            command: self.command.clone(),
            args,
            env: self.env.clone(),
        }
    }
}

/// Gives the [`ToolServer`] of a config and a store, for a process that
/// runs agents for clients with configs and stores of their own (the
/// session host): the binary implements it with `agentgate-tools`, which
/// this crate cannot depend on. Whatever it returns must stay usable while
/// the process runs (a warm CLI keeps its MCP server across turns).
pub trait ToolServerSource: std::fmt::Debug + Send + Sync {
    /// The server offering the registry tools of the config `config`
    /// (the registry looked for from `cwd`), recording into the store
    /// `store` (as `--store` takes it).
    fn tool_server(
        &self,
        config: &crate::config::ConfigSource,
        cwd: &std::path::Path,
        store: &str,
    ) -> Result<ToolServer, String>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_server_names_the_tools_and_the_parent_run_after_the_callers_arguments() {
        let server = ToolServer {
            command: "/opt/agentgate".into(),
            args: vec!["mcp".into(), "--registry".into(), "/r".into()],
            env: vec![("AGENTGATE_STORE".into(), "/s.db".into())],
            offered: vec!["a".into(), "b_2".into()],
        };
        let s = server.for_step(&["a".into(), "b_2".into()], "r1");
        assert_eq!(s.name, "agentgate");
        assert_eq!(s.command, PathBuf::from("/opt/agentgate"));
        assert_eq!(
            s.args,
            [
                "mcp",
                "--registry",
                "/r",
                "--tools",
                "a,b_2",
                "--parent-run",
                "r1"
            ]
        );
        assert_eq!(s.env, server.env);
        assert_eq!(server.missing(&["a".into(), "b_2".into()]), None);
        assert_eq!(server.missing(&["a".into(), "c".into()]), Some("c"));
    }
}
