//! A run's folders, its scoped environment and its sandbox spec.
//!
//! The run's folder in the store holds, beside `events.jsonl` and
//! `stderr.log`: `work/` (`WORKSPACE`), `logs/` (`LOG_DIR`), `tmp/`
//! (`TMPDIR`), `home/` (`HOME`), `CANCEL` (`CANCEL_FILE`, made on cancel),
//! `sandbox.json` (the spec) and `sandbox-report.json` (the report). All of
//! it is private to the user (0700 folders).

use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentgate_protocol::TOOL_PROTOCOL_VERSION;
use jiff::Timestamp;

use super::request::{ToolRunError, ToolRunRequest};
use crate::sandbox::{NetworkRule, SandboxSpec};

/// Variables passed from the caller's environment to every tool (the
/// seed's allowlist, without `HOME` and the temp folders, which the run
/// sets to its own).
pub const ENV_ALLOWLIST: &[&str] = &[
    "PATH",
    "USER",
    "USERNAME",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TERM",
    "PYTHONIOENCODING",
];

/// The folders and files of one run.
#[derive(Debug, Clone)]
pub(super) struct RunPaths {
    pub workspace: PathBuf,
    pub logs: PathBuf,
    pub tmp: PathBuf,
    pub home: PathBuf,
    pub cancel_file: PathBuf,
    pub spec: PathBuf,
    pub report: PathBuf,
}

impl RunPaths {
    pub(super) fn new(dir: PathBuf, workspace: PathBuf) -> Self {
        Self {
            workspace,
            logs: dir.join("logs"),
            tmp: dir.join("tmp"),
            home: dir.join("home"),
            cancel_file: dir.join("CANCEL"),
            spec: dir.join("sandbox.json"),
            report: dir.join("sandbox-report.json"),
        }
    }

    /// Makes the folders (the workspace only if it is new).
    pub(super) fn create(&self) -> Result<(), ToolRunError> {
        for dir in [&self.workspace, &self.logs, &self.tmp, &self.home] {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|source| ToolRunError::Prepare {
                    path: dir.clone(),
                    source,
                })?;
        }
        Ok(())
    }
}

/// The run's own values of the seed's variables (and `HOME`, `TMPDIR`).
#[derive(Debug, Clone, Copy)]
pub struct SeedVars<'a> {
    /// `RUN_ID`.
    pub run_id: &'a str,
    /// `TRACE_ID`.
    pub trace_id: &'a str,
    /// `WORKSPACE`.
    pub workspace: &'a Path,
    /// `LOG_DIR`.
    pub logs: &'a Path,
    /// `TMPDIR` (and `TMP`, `TEMP`).
    pub tmp: &'a Path,
    /// `HOME`.
    pub home: &'a Path,
    /// `CANCEL_FILE`.
    pub cancel_file: &'a Path,
    /// `DEADLINE_TS` is now plus this.
    pub deadline_in: Duration,
}

/// A tool's scoped environment: [`ENV_ALLOWLIST`] and the manifest's
/// `env.require` taken from `caller_env`, nothing else from it, then the
/// run's own `HOME` and temp folders and the seed's variables. agentgate's
/// own variables (`AGENTGATE_*`: the store and its URL, the API token, the
/// config) never pass, even when required (a manifest that requires one is
/// refused when it is read; this is the second lock). `Err` names the
/// required variables `caller_env` lacks. Runs and `tools check` selftests
/// both start tools with it.
pub fn scoped_env(
    require: &[String],
    caller_env: &[(String, String)],
    seed: &SeedVars<'_>,
) -> Result<Vec<(String, String)>, Vec<String>> {
    // agentgate's own variables are never passed on, even if a manifest
    // (not checked by `manifest::check`) asked for one: it is then missing.
    let lookup = |name: &str| {
        caller_env
            .iter()
            .rev()
            .find(|(k, v)| {
                k == name
                    && !agentgate_supervise::own_env::is_own(
                        std::ffi::OsStr::new(k),
                        std::ffi::OsStr::new(v),
                    )
            })
            .map(|(_, v)| v.clone())
    };
    let missing: Vec<String> = require
        .iter()
        .filter(|name| lookup(name).is_none())
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(missing);
    }
    let mut env: Vec<(String, String)> = Vec::new();
    for name in ENV_ALLOWLIST
        .iter()
        .copied()
        .chain(require.iter().map(String::as_str))
    {
        if env.iter().any(|(k, _)| k == name) {
            continue;
        }
        if let Some(value) = lookup(name) {
            env.push((name.to_owned(), value));
        }
    }
    let deadline = Timestamp::now()
        .checked_add(
            jiff::SignedDuration::try_from(seed.deadline_in).unwrap_or(jiff::SignedDuration::MAX),
        )
        .unwrap_or(Timestamp::MAX);
    let path = |p: &Path| p.display().to_string();
    let own = [
        ("HOME", path(seed.home)),
        ("TMPDIR", path(seed.tmp)),
        ("TMP", path(seed.tmp)),
        ("TEMP", path(seed.tmp)),
        ("RUN_ID", seed.run_id.to_owned()),
        ("TRACE_ID", seed.trace_id.to_owned()),
        ("WORKSPACE", path(seed.workspace)),
        (
            "DEADLINE_TS",
            deadline.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        ),
        ("CANCEL_FILE", path(seed.cancel_file)),
        ("AI_PROTOCOL_VERSION", TOOL_PROTOCOL_VERSION.to_string()),
        ("LOG_DIR", path(seed.logs)),
    ];
    env.retain(|(k, _)| !own.iter().any(|(name, _)| name == k));
    env.extend(own.into_iter().map(|(k, v)| (k.to_owned(), v)));
    Ok(env)
}

impl RunPaths {
    /// The seed's variables of this run.
    pub(super) fn seed<'a>(
        &'a self,
        run_id: &'a str,
        trace_id: &'a str,
        deadline_in: Duration,
    ) -> SeedVars<'a> {
        SeedVars {
            run_id,
            trace_id,
            workspace: &self.workspace,
            logs: &self.logs,
            tmp: &self.tmp,
            home: &self.home,
            cancel_file: &self.cancel_file,
            deadline_in,
        }
    }
}

/// The sandbox spec of the run: the manifest's limits and permissions,
/// paths resolved against the workspace; `private` kept from the tool,
/// every other process hidden.
pub(super) fn sandbox_spec(
    req: &ToolRunRequest,
    paths: &RunPaths,
    path_var: &str,
    private: &[PathBuf],
) -> SandboxSpec {
    let manifest = &req.target.manifest;
    let fs = &manifest.permissions.filesystem;
    let home = req
        .caller_env
        .iter()
        .rev()
        .find(|(k, _)| k == "HOME")
        .map(|(_, v)| PathBuf::from(v));
    let mut read_paths =
        crate::sandbox::system_read_paths(Some(std::ffi::OsStr::new(path_var)), home.as_deref());
    read_paths.push(req.target.tool_dir.clone());
    read_paths.extend(
        fs.read
            .iter()
            .map(|glob| crate::sandbox::glob_to_path(glob, &paths.workspace)),
    );
    let run_paths = vec![
        paths.workspace.clone(),
        paths.logs.clone(),
        paths.tmp.clone(),
        paths.home.clone(),
    ];
    let write_paths = fs
        .write
        .iter()
        .map(|glob| crate::sandbox::glob_to_path(glob, &paths.workspace))
        .collect();
    let egress = &manifest.permissions.network.egress_allow;
    let network = if egress.is_empty() {
        NetworkRule::None
    } else if egress.iter().any(|e| e == "*") {
        NetworkRule::Any
    } else {
        NetworkRule::Allow(egress.clone())
    };
    SandboxSpec {
        program: req.target.entry.clone(),
        args: req.args.clone(),
        cpu_seconds: req.limits.cpu_seconds,
        memory_mb: req.limits.memory_mb,
        restrict_filesystem: true,
        read_paths,
        write_paths,
        run_paths,
        private_paths: private.to_vec(),
        isolate_processes: true,
        network,
        report_path: paths.report.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agentgate_s_own_variables_never_reach_a_tool_even_when_required() {
        let dir = Path::new("/runs/r1");
        let seed = SeedVars {
            run_id: "r1",
            trace_id: "r1",
            workspace: dir,
            logs: dir,
            tmp: dir,
            home: dir,
            cancel_file: dir,
            deadline_in: Duration::from_secs(60),
        };
        let caller: Vec<(String, String)> = [
            ("PATH", "/usr/bin"),
            ("AGENTGATE_TOKEN", "tok"),
            ("AGENTGATE_HOME", "/data"),
            ("AGENTGATE_STORE", "postgres://u:pw@db/a"),
            ("SERVICE_KEY", "k"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let require = ["SERVICE_KEY".to_owned()];
        let env = scoped_env(&require, &caller, &seed).unwrap();
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert!(names.contains(&"SERVICE_KEY"), "{names:?}");
        assert!(
            !names.iter().any(|n| n.starts_with("AGENTGATE_")),
            "{names:?}"
        );
        // Required anyway (a manifest `manifest::check` did not read): it
        // is missing, so the tool does not start.
        let require = ["SERVICE_KEY".to_owned(), "AGENTGATE_TOKEN".to_owned()];
        assert_eq!(
            scoped_env(&require, &caller, &seed).unwrap_err(),
            vec!["AGENTGATE_TOKEN".to_owned()]
        );
    }
}
