//! `--sandbox container`: an attempt's CLI started in a container
//! (`docker` or `podman`): `run --rm -i` of the configured image, or
//! `exec -i` in a named running container, with the workspace mounted at
//! the same path, the environment passed explicitly (`-e NAME`, values
//! never on the command line), and stdin kept open for CLIs that read the
//! prompt from it. The container is named after the attempt, so that when
//! the attempt ends (cancel, timeout, a killed engine client) it is
//! removed (`rm -f`) and nothing outlives the run.

#![allow(dead_code)] // until sandbox_attempt.rs calls it

use std::path::PathBuf;

use agentgate_protocol::Enforcement;
use agentgate_supervise::Invocation;

use crate::config::ContainerSpec;

/// A container started for one attempt: removed by [`ContainerRun::remove`].
#[derive(Debug)]
pub(crate) struct ContainerRun {
    /// The engine's program.
    pub(crate) engine: PathBuf,
    /// The container's name (`agentgate-<run>-<attempt>`), or the named
    /// container `exec` ran in (never removed).
    pub(crate) name: String,
}

/// `inv` (the CLI's program, arguments, environment, working folder and
/// stdin) as the engine's command line, the container named `name`, with
/// `mounts` (the workspace, the CLI's state folders) bound at the same
/// paths.
pub(crate) fn wrap(
    spec: &ContainerSpec,
    inv: Invocation,
    name: &str,
    mounts: &[PathBuf],
) -> Result<(Invocation, ContainerRun), String> {
    let _ = (spec, inv, name, mounts);
    Err("the container sandbox is not built yet".to_owned())
}

impl ContainerRun {
    /// What the envelope's `sandbox.container` says.
    pub(crate) fn report(&self) -> Enforcement {
        Enforcement {
            limit: format!("container {}", self.name),
            state: agentgate_protocol::EnforcementState::NotEnforced,
            by: None,
            note: Some("not built yet".to_owned()),
        }
    }

    /// Remove the container (`rm -f`) if this attempt started it; bounded
    /// in time.
    pub(crate) async fn remove(self) -> Result<(), String> {
        Ok(())
    }
}
