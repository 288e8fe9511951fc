//! An attempt's CLI confined to its step's sandbox (`--sandbox`): the
//! environment allowlist (`env.rs`), the files (Landlock through `agentgate
//! __sandbox`: `paths.rs`, `spec.rs`), the network (`strict`: a namespace
//! of its own whose only ports are relayed to the run's gateway and egress
//! proxy), or a container (`container.rs`); and the envelope's `sandbox`
//! report (`report.rs`).
//!
//! Used in three steps by an attempt (a warm process keeps its sandbox
//! whole until it ends, each turn reporting it: `turn_report`):
//! [`AttemptSandbox::prepare`] before the gateway starts (it gives the
//! gateway's Unix socket), [`AttemptSandbox::confine`] once the CLI's
//! invocation is built (it becomes `agentgate __sandbox SPEC_FILE`, the
//! spec private in the run's scratch folder), and
//! [`AttemptSandbox::finish`] when the CLI has ended (the report on the
//! envelope, the spec removed, a container removed). The CLI's stdin,
//! stdout and stderr pass through the sandbox's processes; the
//! supervisor's signals to the process group reach the CLI (the sandbox's
//! own processes outlive them to write the report, and its PID namespace
//! ends whatever the CLI left when it exits).

mod egress;
mod env;
mod paths;
mod report;
mod spec;

use std::path::{Path, PathBuf};

use agentgate_protocol::{Enforcement, SandboxLevel, SandboxReport};
use agentgate_providers::{Provider, RemovedOnDrop, Scratch};
use agentgate_supervise::Invocation;

use crate::plan::{EditScope, StepSandbox};
pub(crate) use egress::next_refusal as next_egress_refusal;
pub use paths::system_read_paths;
use spec::{NetworkRule, PortForward, SANDBOX_SUBCOMMAND, SpecFile};

/// The sandbox of one attempt (or one warm process).
pub(crate) struct AttemptSandbox {
    settings: StepSandbox,
    /// Private (0700): the Unix sockets of `strict`.
    private: tempfile::TempDir,
    /// The CLI's `TMPDIR`, removed after it.
    tmpdir: tempfile::TempDir,
    /// The spec and the report, removed after the CLI.
    files: RemovedOnDrop,
    report_path: Option<PathBuf>,
    environment: Option<Enforcement>,
    egress: Option<agentgate_gateway::EgressProxy>,
    /// The egress proxy's refusals as they happen.
    egress_notices: Option<tokio::sync::mpsc::UnboundedReceiver<agentgate_gateway::EgressNotice>>,
    /// The proxy's totals as last told (`egress_left`).
    egress_told: agentgate_gateway::EgressSummary,
    container: Option<super::container::ContainerRun>,
    warnings: Vec<String>,
    /// Why the filesystem rule is weaker than the level asks, if it is.
    weakened: Option<String>,
}

/// What [`AttemptSandbox::confine`] needs of the attempt.
pub(crate) struct Confinement<'a> {
    pub provider: &'a dyn Provider,
    /// What finds the sandbox: the agentgate binary (the keeper's).
    pub agentgate: Option<&'a Path>,
    pub scratch: &'a Scratch,
    /// The store's runs folder (hidden from the CLI).
    pub runs_dir: Option<&'a Path>,
    /// More of agentgate's own files hidden from the CLI
    /// ([`super::RunOptions::hidden`]).
    pub hidden: &'a [PathBuf],
    pub edit_scope: &'a EditScope,
    /// The files the command wrote for the CLI (in the scratch folder).
    pub command_files: &'a [PathBuf],
    /// The MCP servers the CLI starts (their programs are read).
    pub mcp_servers: &'a [agentgate_providers::McpServer],
    /// The gateway's port on 127.0.0.1 (`strict` relays it).
    pub gateway_port: Option<u16>,
    /// Names the container (`container`).
    pub run_id: &'a str,
}

impl AttemptSandbox {
    /// The sandbox of a step, when it has one: its private folders made.
    pub(crate) fn prepare(sandbox: Option<&StepSandbox>) -> Result<Option<AttemptSandbox>, String> {
        let Some(settings) = sandbox.filter(|s| s.level != SandboxLevel::Off) else {
            return Ok(None);
        };
        let folder = |prefix: &str| {
            tempfile::Builder::new()
                .prefix(prefix)
                .tempdir_in(std::env::temp_dir())
                .map_err(|e| {
                    format!(
                        "the sandbox could not make its private folder in {}: {e}",
                        std::env::temp_dir().display()
                    )
                })
        };
        Ok(Some(AttemptSandbox {
            settings: settings.clone(),
            private: folder("agentgate-sbx-")?,
            tmpdir: folder("agentgate-tmp-")?,
            files: RemovedOnDrop(Vec::new()),
            report_path: None,
            environment: None,
            egress: None,
            egress_notices: None,
            egress_told: agentgate_gateway::EgressSummary::default(),
            container: None,
            warnings: Vec::new(),
            weakened: None,
        }))
    }

    /// The Unix socket the gateway also serves on (`strict`).
    pub(crate) fn gateway_socket(&self) -> Option<PathBuf> {
        (self.settings.level == SandboxLevel::Strict)
            .then(|| self.private.path().join("gateway.sock"))
    }

    /// Confine `inv` (the CLI's whole invocation, about to be supervised):
    /// its environment to the allowlist, then, as `agentgate __sandbox
    /// SPEC_FILE`, its files and network (or, `container`, the engine's
    /// command line). Returns the notice saying what is confined. `Err`:
    /// the attempt does not start (never a weaker sandbox than asked).
    pub(crate) async fn confine(
        &mut self,
        inv: &mut Invocation,
        at: Confinement<'_>,
    ) -> Result<String, String> {
        let mut allow = at.provider.sandbox_env_allow();
        allow.extend(self.settings.env_allow.iter().cloned());
        env::confine_env(inv, std::env::vars_os(), &allow);
        env::set(inv, "TMPDIR", self.tmpdir.path());
        let get = |k: &str| env::get(inv, k);
        let state_vars = at.provider.sandbox_state_vars(&get);
        let state = at.provider.sandbox_state(&get);
        for (var, path) in state_vars {
            if env::get(inv, var).is_none() {
                env::set(inv, var, path);
            }
        }
        for dir in &state {
            make_private_dir(dir)?;
        }
        let kept: Vec<String> = inv
            .env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        self.environment = Some(spec::enforced(
            format!("only {} variables: {}", kept.len(), kept.join(", ")),
            "agentgate (environment allowlist)",
        ));
        let cwd = match inv.cwd.clone() {
            Some(c) => c,
            None => std::env::current_dir().map_err(|e| format!("no working folder: {e}"))?,
        };
        if self.settings.level == SandboxLevel::Container {
            return self.contain(inv, &cwd, &state, at.run_id);
        }
        let network = self.network(inv, at.gateway_port).await?;
        let home = env::get(inv, "HOME").map(PathBuf::from);
        let path_var = env::get(inv, "PATH");
        let files = files(&FilesAsked {
            settings: &self.settings,
            program: &inv.program,
            path_var: path_var.as_deref(),
            home: home.as_deref(),
            cwd: &cwd,
            edit_scope: at.edit_scope,
            state: &state,
            tmpdir: self.tmpdir.path(),
            command_files: at.command_files,
            runs_dir: at.runs_dir,
            hidden: at.hidden,
            mcp_servers: at.mcp_servers,
        });
        let scratch = at
            .scratch
            .path()
            .map_err(|e| format!("no folder for the sandbox spec: {e}"))?;
        let tag = super::random_hex::random_hex(6, "the sandbox spec's name")?;
        let spec_path = scratch.join(format!("sandbox-{tag}.json"));
        let report_path = scratch.join(format!("sandbox-{tag}-report.json"));
        let args = inv
            .args
            .iter()
            .map(|a| {
                a.to_str().map(str::to_owned).ok_or_else(|| {
                    format!(
                        "an argument of the CLI is not UTF-8: {}",
                        a.to_string_lossy()
                    )
                })
            })
            .collect::<Result<Vec<String>, String>>()?;
        let notice = report::notice(&self.settings, &kept, &files, &network);
        self.weakened = files.weakened.clone();
        let spec = SpecFile {
            program: inv.program.clone(),
            args,
            cpu_seconds: None,
            memory_mb: None,
            restrict_filesystem: true,
            read_paths: files.read,
            write_paths: files.write,
            run_paths: files.run,
            private_paths: files.private,
            isolate_processes: true,
            network,
            report_path: report_path.clone(),
        };
        self.files.0.push(spec_path.clone());
        self.files.0.push(report_path.clone());
        spec.write(&spec_path)?;
        self.report_path = Some(report_path);
        let agentgate = agentgate_binary(at.agentgate)?;
        inv.program = agentgate;
        inv.args = vec![SANDBOX_SUBCOMMAND.into(), spec_path.into_os_string()];
        Ok(notice)
    }

    /// `strict`: only the gateway's port (and the egress proxy's), relayed
    /// to their Unix sockets; else the network as it is.
    async fn network(
        &mut self,
        inv: &mut Invocation,
        gateway_port: Option<u16>,
    ) -> Result<NetworkRule, String> {
        if self.settings.level != SandboxLevel::Strict {
            return Ok(NetworkRule::Any);
        }
        let (Some(port), Some(socket)) = (gateway_port, self.gateway_socket()) else {
            return Err(
                "--sandbox strict lets the CLI reach its model only through the run's gateway: run it with --gateway (or gateway: in the config)"
                    .to_owned(),
            );
        };
        let mut ports = vec![PortForward { port, socket }];
        if !self.settings.egress_allow.is_empty() {
            let socket = self.private.path().join("egress.sock");
            let mut proxy =
                agentgate_gateway::EgressProxy::start(&self.settings.egress_allow, &socket)
                    .await
                    .map_err(|e| format!("the sandbox's egress proxy failed to start: {e}"))?;
            self.egress_notices = proxy.notices();
            self.egress = Some(proxy);
            // Nothing listens in the CLI's namespace but what is relayed.
            let proxy_port = if port == 3128 { 3129 } else { 3128 };
            let url = format!("http://127.0.0.1:{proxy_port}");
            for var in ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"] {
                env::set(inv, var, &url);
            }
            for var in ["NO_PROXY", "no_proxy"] {
                env::set(inv, var, "127.0.0.1,localhost");
            }
            ports.push(PortForward {
                port: proxy_port,
                socket,
            });
        }
        Ok(NetworkRule::Forward(ports))
    }

    /// `container`: the engine's command line, the workspace, the state
    /// folders and the temp folder mounted.
    fn contain(
        &mut self,
        inv: &mut Invocation,
        cwd: &Path,
        state: &[PathBuf],
        run_id: &str,
    ) -> Result<String, String> {
        let spec = self.settings.container.clone().unwrap_or_default();
        let mut mounts = vec![cwd.to_path_buf(), self.tmpdir.path().to_path_buf()];
        mounts.extend(state.iter().cloned());
        let name = super::container::attempt_container_name(run_id)?;
        let (wrapped, run) = super::container::wrap(&spec, std::mem::take(inv), &name, &mounts)?;
        *inv = wrapped;
        let notice = format!(
            "sandbox container: the CLI runs in container {} with {} mounted; environment: {}",
            run.name,
            mounts
                .iter()
                .map(|m| m.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            self.environment
                .as_ref()
                .map(|e| e.limit.as_str())
                .unwrap_or("")
        );
        self.container = Some(run);
        Ok(notice)
    }

    /// The CLI has ended: the envelope's `sandbox` from the sandbox's
    /// report; the egress proxy stopped, the container removed, the spec
    /// and the temp folder removed.
    pub(crate) async fn finish(mut self) -> SandboxReport {
        if let Some(proxy) = self.egress.take() {
            proxy.shutdown().await;
        }
        let container = match self.container.take() {
            Some(run) => {
                let entry = run.report();
                if let Err(why) = run.remove().await {
                    self.warnings
                        .push(format!("the container was not removed: {why}"));
                }
                Some(entry)
            }
            None => None,
        };
        let environment = self.environment.take().unwrap_or_else(|| {
            spec::not_enforced("environment allowlist", "the CLI did not start")
        });
        report::report(
            self.settings.level,
            environment,
            self.report_path.as_deref(),
            container,
            std::mem::take(&mut self.warnings),
            self.weakened.take(),
        )
    }
}

impl AttemptSandbox {
    /// A warm process's turn ended: the envelope's `sandbox`, the sandbox
    /// kept for the next turn (its report file, its egress proxy and its
    /// container live as long as the process).
    pub(crate) fn turn_report(&self) -> SandboxReport {
        report::report(
            self.settings.level,
            self.environment.clone().unwrap_or_else(|| {
                spec::not_enforced("environment allowlist", "the CLI did not start")
            }),
            self.report_path.as_deref(),
            self.container.as_ref().map(|run| run.report()),
            self.warnings.clone(),
            self.weakened.clone(),
        )
    }
}

/// What [`files`] reads.
struct FilesAsked<'a> {
    settings: &'a StepSandbox,
    program: &'a Path,
    path_var: Option<&'a std::ffi::OsStr>,
    home: Option<&'a Path>,
    cwd: &'a Path,
    edit_scope: &'a EditScope,
    state: &'a [PathBuf],
    tmpdir: &'a Path,
    command_files: &'a [PathBuf],
    runs_dir: Option<&'a Path>,
    hidden: &'a [PathBuf],
    mcp_servers: &'a [agentgate_providers::McpServer],
}

/// The spec's path rules.
pub(super) struct Files {
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
    pub run: Vec<PathBuf>,
    pub private: Vec<PathBuf>,
    /// Why the filesystem rule is weaker than the level asks, if it is.
    pub weakened: Option<String>,
}

fn files(asked: &FilesAsked<'_>) -> Files {
    let mut read = paths::system_read_paths(asked.path_var, asked.home);
    // The CLI's install, and those of the MCP servers it starts (agentgate's
    // own `mcp --relay` among them) given by path.
    let servers = asked
        .mcp_servers
        .iter()
        .filter(|s| s.command.is_absolute())
        .flat_map(|s| paths::install_paths(&s.command, asked.path_var));
    for p in paths::install_paths(asked.program, asked.path_var)
        .into_iter()
        .chain(servers)
        .chain([asked.cwd.to_path_buf()])
        .chain(asked.home.map(Path::to_path_buf))
        .chain(asked.settings.read_allow.iter().cloned())
    {
        paths::push_new(&mut read, p);
    }
    let mut write = paths::workspace_writes(asked.cwd, asked.edit_scope);
    for p in asked
        .state
        .iter()
        .cloned()
        .chain([asked.tmpdir.to_path_buf()])
        .chain(asked.settings.write_allow.iter().cloned())
        .chain(paths::DEVICE_WRITE.iter().map(PathBuf::from))
    {
        paths::push_new(&mut write, p);
    }
    let own = paths::own_paths(asked.runs_dir, asked.hidden);
    let private = paths::hidden_paths(asked.home, asked.settings, &own);
    // The command's files (its MCP configuration, a system prompt) lie in
    // the run's folder, inside agentgate's own: granted one by one.
    let mut run = asked.command_files.to_vec();
    let mut weakened = None;
    // A workspace inside agentgate's own folders (a run's worktree, in its
    // run folder) is granted as the run's own, which the sandbox keeps
    // writable: read-only there (classify, edit) cannot be kept.
    if paths::inside_any(asked.cwd, &private) {
        let workspace = paths::workspace_writes(asked.cwd, asked.edit_scope);
        write.retain(|p| !workspace.contains(p));
        run.push(asked.cwd.to_path_buf());
        if *asked.edit_scope != EditScope::Any {
            weakened = Some(format!(
                "the workspace {} lies in agentgate's data folder (a run's worktree): the sandbox keeps it writable, so the {} mode's limit is checked after the run only",
                asked.cwd.display(),
                if *asked.edit_scope == EditScope::Nothing {
                    "classify"
                } else {
                    "edit"
                }
            ));
        }
    }
    Files {
        read,
        write,
        run,
        private,
        weakened,
    }
}

/// The agentgate binary that runs the sandbox: the keeper's (the keeper is
/// the agentgate binary, or the keeper-only `agentgate-keeper` beside it),
/// else this process's own.
fn agentgate_binary(keeper: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(keeper) = keeper {
        let small = keeper
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("agentgate-keeper"));
        if !small {
            return Ok(keeper.to_path_buf());
        }
        let beside = keeper.with_file_name("agentgate");
        if beside.is_file() {
            return Ok(beside);
        }
    }
    std::env::current_exe().map_err(|e| format!("the sandbox needs the agentgate binary: {e}"))
}

/// Make `dir` (and its parents) if missing, private to the user.
fn make_private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt as _;
    if dir.exists() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| {
            format!(
                "the sandbox could not make the CLI's state folder {}: {e}",
                dir.display()
            )
        })
}

#[cfg(test)]
mod tests;
