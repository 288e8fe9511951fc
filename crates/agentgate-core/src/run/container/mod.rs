//! `--sandbox container`: an attempt's CLI started in a container
//! (`docker` or `podman`): `run --rm -i` of the configured image, or
//! `exec -i` in a named running container, with the workspace and the
//! CLI's state folders mounted at the same paths, the environment passed
//! explicitly (`-e NAME`, the value in the engine's own environment, never
//! on the command line), the working folder set (`-w`), and stdin kept
//! open for CLIs that read the prompt from it. The container is named
//! after the attempt (`agentgate-<hex>`), so that when the attempt ends
//! (normally, cancelled, timed out, or with the engine client killed by
//! the supervisor) [`ContainerRun::remove`] removes it (`rm -f`) and
//! nothing outlives the run; in a named container agentgate does not
//! control, it kills the CLI's process group there instead.
//!
//! `engine.rs` finds the engine and what it is; `command.rs` writes its
//! command lines. docs/guide/sandbox.md ("Container mode") is the user's
//! side of this.

// wrap and remove: called by sandbox_attempt.rs (another commit); the
// tests call them.

mod command;
mod engine;
#[cfg(test)]
mod podman_tests;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use agentgate_protocol::{Enforcement, EnforcementState};
use agentgate_supervise::Invocation;

use crate::config::ContainerSpec;
use command::{Layout, Target};
use engine::EngineKind;

/// How long removing a container (or killing the CLI in a named one) may
/// take before [`ContainerRun::remove`] gives up and says so.
pub(crate) const REMOVE_TIMEOUT: Duration = Duration::from_secs(30);

/// A container started for one attempt: removed by [`ContainerRun::remove`].
#[derive(Debug)]
pub(crate) struct ContainerRun {
    /// The engine's program.
    pub(crate) engine: PathBuf,
    /// The container's name (`agentgate-<hex>`), or the named container
    /// `exec` ran in (never removed).
    pub(crate) name: String,
    /// The engine's dialect.
    kind: EngineKind,
    /// `podman 4.3.1`, `docker 28.2.2`.
    engine_label: String,
    /// How the CLI was started.
    started: Started,
}

/// How the attempt's CLI was started.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Started {
    /// `run --rm` of this image: the container is the attempt's.
    Run {
        /// The image.
        image: String,
    },
    /// `exec` in a container agentgate does not control; `attempt` names
    /// the CLI's pid file there.
    Exec {
        /// The attempt's name.
        attempt: String,
    },
}

/// A fresh container name for an attempt of run `run_id`:
/// `agentgate-<run>-<24 hex digits>` (the run's id, where it is one a name
/// may hold, tells an operator whose container it is).
pub(crate) fn attempt_container_name(run_id: &str) -> Result<String, String> {
    let hex = super::random_hex::random_hex(12, "a container name")?;
    let run: String = run_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(32)
        .collect();
    Ok(if run.is_empty() {
        format!("agentgate-{hex}")
    } else {
        format!("agentgate-{run}-{hex}")
    })
}

/// `inv` (the CLI's program, arguments, environment, working folder and
/// stdin) as the engine's command line, the container named `name`, with
/// `mounts` (the workspace, the CLI's state folders) bound at the same
/// paths. The engine is checked here (`--version`, once per process): a
/// missing one is an error before the CLI starts.
pub(crate) fn wrap(
    spec: &ContainerSpec,
    inv: Invocation,
    name: &str,
    mounts: &[PathBuf],
) -> Result<(Invocation, ContainerRun), String> {
    command::check_name("the attempt's container name", name)?;
    let target = match (spec.image.as_deref(), spec.name.as_deref()) {
        (Some(image), None) if !image.is_empty() => Target::Image(image),
        (None, Some(container)) if !container.is_empty() => {
            command::check_name("sandbox.container.name", container)?;
            Target::Exec(container)
        }
        (Some(_), Some(_)) => {
            return Err(
                "sandbox.container names both an image and a container: give one".to_owned(),
            );
        }
        _ => {
            return Err(
                "sandbox.container needs an image (run) or a name (exec in a running container)"
                    .to_owned(),
            );
        }
    };
    let engine = engine::resolve(spec)?;
    let layout = Layout {
        name,
        mounts,
        env_names: command::env_names(&inv),
        workdir: inv.cwd.clone(),
        extra: &spec.args,
    };
    let args = command::start_args(target, &layout, &inv.program, &inv.args)?;
    let started = match target {
        Target::Image(image) => Started::Run {
            image: image.to_owned(),
        },
        Target::Exec(_) => Started::Exec {
            attempt: name.to_owned(),
        },
    };
    let run = ContainerRun {
        engine: engine.program.clone(),
        name: match target {
            Target::Image(_) => name.to_owned(),
            Target::Exec(container) => container.to_owned(),
        },
        kind: engine.kind,
        engine_label: engine.label,
        started,
    };
    // The engine client: agentgate's environment with the CLI's values
    // over it (what each `-e NAME` takes), the CLI's stdin.
    let wrapped = Invocation {
        program: engine.program,
        args,
        env: inv.env,
        env_clear: false,
        env_remove: inv.env_remove,
        cwd: inv.cwd,
        stdin: inv.stdin,
    };
    Ok((wrapped, run))
}

impl ContainerRun {
    /// What the envelope's `sandbox.container` says.
    pub(crate) fn report(&self) -> Enforcement {
        match &self.started {
            Started::Run { image } => Enforcement {
                limit: format!("container {} of image {image}", self.name),
                state: EnforcementState::Enforced,
                by: Some(self.engine_label.clone()),
                note: None,
            },
            Started::Exec { .. } => Enforcement {
                limit: format!("exec in container {}", self.name),
                state: EnforcementState::Partial,
                by: Some(self.engine_label.clone()),
                note: Some(
                    "a running container agentgate does not control: its mounts, network and \
                     lifetime are its own; the attempt's end kills the CLI's process group in it"
                        .to_owned(),
                ),
            },
        }
    }

    /// Remove the container (`rm -f`) if this attempt started it, or kill
    /// the CLI's process group in the named container; bounded in time
    /// ([`REMOVE_TIMEOUT`]). A container already gone is no error.
    pub(crate) async fn remove(self) -> Result<(), String> {
        let args = match &self.started {
            Started::Run { .. } => command::remove_args(self.kind, &self.name),
            Started::Exec { attempt } => command::kill_exec_args(&self.name, attempt),
        };
        let out = self.engine_output(&args).await?;
        if out.status.success() {
            return Ok(());
        }
        let stderr = OsString::from(String::from_utf8_lossy(&out.stderr).into_owned());
        if command::says_no_such_container(&stderr) {
            return Ok(());
        }
        if let Started::Run { .. } = self.started {
            // `run --rm` may have been removing it at the same moment.
            let inspect: Vec<OsString> = ["container", "inspect", &self.name]
                .iter()
                .map(OsString::from)
                .collect();
            if !self.engine_output(&inspect).await?.status.success() {
                return Ok(());
            }
        }
        Err(format!(
            "{} {} failed ({}): {}",
            self.engine.display(),
            args.first()
                .map(|a| a.to_string_lossy())
                .unwrap_or_default(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }

    /// The engine run with `args`, its output collected, within
    /// [`REMOVE_TIMEOUT`] (killed past it).
    async fn engine_output(&self, args: &[OsString]) -> Result<std::process::Output, String> {
        let mut std_cmd = std::process::Command::new(&self.engine);
        std_cmd
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        agentgate_supervise::own_env::scrub_command(&mut std_cmd);
        let mut cmd = tokio::process::Command::from(std_cmd);
        cmd.kill_on_drop(true);
        match tokio::time::timeout(REMOVE_TIMEOUT, cmd.output()).await {
            Ok(Ok(out)) => Ok(out),
            Ok(Err(e)) => Err(format!(
                "container engine {} does not start: {e}",
                self.engine.display()
            )),
            Err(_) => Err(format!(
                "{} {} did not end within {} s (container {})",
                self.engine.display(),
                args.first()
                    .map(|a| a.to_string_lossy())
                    .unwrap_or_default(),
                REMOVE_TIMEOUT.as_secs(),
                self.name
            )),
        }
    }
}
