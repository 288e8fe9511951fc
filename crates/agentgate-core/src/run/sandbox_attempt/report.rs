//! What a sandbox says: the `status` notice at the attempt's start (what
//! is confined, as asked) and the envelope's `sandbox` (what held, from the
//! tools' sandbox's report: `partial` or `not_enforced` with the reason,
//! never silently weaker).

use std::path::Path;

use agentgate_protocol::{Enforcement, EnforcementState, SandboxLevel, SandboxReport};

use super::Files;
use super::spec::{NetworkRule, ReportFile, no_limit, not_enforced};
use crate::plan::StepSandbox;

/// The notice at the attempt's start.
pub(super) fn notice(
    settings: &StepSandbox,
    kept: &[String],
    files: &Files,
    network: &NetworkRule,
) -> String {
    let list = |paths: &[std::path::PathBuf]| {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let network = match network {
        NetworkRule::Any => "as it is".to_owned(),
        NetworkRule::Forward(ports) => format!(
            "only the run's gateway{} (a network namespace of its own)",
            if ports.len() > 1 {
                " and the egress proxy"
            } else {
                ""
            }
        ),
    };
    format!(
        "sandbox {}: environment: {} variables ({}); writes only: {}; hidden: {}; network: {network}",
        settings.level,
        kept.len(),
        kept.join(", "),
        list(&files.write),
        list(&files.private),
    )
}

/// The envelope's `sandbox`, from the report at `report_path` (`None`:
/// none was asked for, a container).
pub(super) fn report(
    level: SandboxLevel,
    environment: Enforcement,
    report_path: Option<&Path>,
    container: Option<Enforcement>,
    mut warnings: Vec<String>,
    weakened: Option<String>,
) -> SandboxReport {
    let (filesystem, network, processes) = match (report_path, &container) {
        (_, Some(c)) => {
            let by_container = |limit: &str| Enforcement {
                limit: limit.to_owned(),
                ..c.clone()
            };
            (
                by_container("only the mounted workspace and state folders"),
                by_container("the container engine's network"),
                by_container("the container's processes"),
            )
        }
        (Some(path), None) => match ReportFile::read(path) {
            Ok(r) => {
                warnings.extend(r.warnings.iter().cloned());
                if let Some(e) = &r.spawn_error {
                    warnings.push(e.clone());
                }
                let filesystem = with_private_files(r.filesystem, r.private_files);
                let network = if level == SandboxLevel::Strict {
                    r.network
                } else {
                    no_limit(format!("not restricted ({level})"))
                };
                let processes = r
                    .processes
                    .unwrap_or_else(|| not_enforced("other processes hidden", "not reported"));
                (filesystem, network, processes)
            }
            Err(why) => unenforced(level, &why),
        },
        (None, None) => unenforced(level, "the CLI did not start in the sandbox"),
    };
    let mut filesystem = filesystem;
    if let Some(why) = weakened
        && filesystem.state == EnforcementState::Enforced
    {
        filesystem.state = EnforcementState::Partial;
        filesystem.note = Some(why);
    }
    let state = SandboxReport::weakest(&[&environment, &filesystem, &network, &processes]);
    SandboxReport {
        level,
        state,
        environment,
        filesystem,
        network,
        processes,
        container,
        warnings,
    }
}

fn unenforced(level: SandboxLevel, why: &str) -> (Enforcement, Enforcement, Enforcement) {
    let network = if level == SandboxLevel::Strict {
        not_enforced("only the run's gateway", why)
    } else {
        no_limit(format!("not restricted ({level})"))
    };
    (
        not_enforced("writes only to the workspace and the CLI's state", why),
        network,
        not_enforced("other processes hidden", why),
    )
}

/// The filesystem entry, weakened when the secrets were not kept out.
fn with_private_files(mut fs: Enforcement, private: Option<Enforcement>) -> Enforcement {
    let Some(p) = private else {
        return fs;
    };
    if matches!(
        p.state,
        EnforcementState::Partial | EnforcementState::NotEnforced
    ) && fs.state == EnforcementState::Enforced
    {
        fs.state = EnforcementState::Partial;
        fs.note = Some(format!(
            "the hidden paths were not all kept out: {}",
            p.note.unwrap_or_else(|| p.limit.clone())
        ));
    }
    fs
}

#[cfg(test)]
mod tests {
    use super::super::spec::enforced;
    use super::*;

    fn write_report(dir: &Path, fs_state: &str, private_state: &str) -> std::path::PathBuf {
        let e = |s: &str, note: Option<&str>| serde_json::json!({"limit": "x", "state": s, "by": "Landlock ABI 7", "note": note});
        let path = dir.join("report.json");
        std::fs::write(
            &path,
            serde_json::json!({
                "cpu": e("none", None), "memory": e("none", None),
                "filesystem": e(fs_state, None),
                "network": e("enforced", None),
                "private_files": e(private_state, Some("no Landlock")),
                "processes": e("enforced", None),
                "warnings": ["w1"], "spawn_error": null, "exit": null
            })
            .to_string(),
        )
        .unwrap();
        path
    }

    #[test]
    fn a_sandbox_that_held_is_enforced_and_the_workspace_network_is_no_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_report(dir.path(), "enforced", "enforced");
        let r = report(
            SandboxLevel::Workspace,
            enforced("only 3 variables", "agentgate"),
            Some(&path),
            None,
            Vec::new(),
            None,
        );
        assert_eq!(r.state, EnforcementState::Enforced);
        assert_eq!(r.network.state, EnforcementState::NoLimit);
        assert_eq!(r.warnings, ["w1"]);
    }

    #[test]
    fn what_did_not_hold_is_said_never_silently_weaker() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_report(dir.path(), "enforced", "not_enforced");
        let r = report(
            SandboxLevel::Strict,
            enforced("only 3 variables", "agentgate"),
            Some(&path),
            None,
            Vec::new(),
            None,
        );
        assert_eq!(r.filesystem.state, EnforcementState::Partial);
        assert!(
            r.filesystem
                .note
                .as_deref()
                .unwrap_or("")
                .contains("no Landlock")
        );
        assert_eq!(r.state, EnforcementState::Partial);
        let missing = report(
            SandboxLevel::Strict,
            enforced("only 3 variables", "agentgate"),
            Some(&dir.path().join("none.json")),
            None,
            Vec::new(),
            None,
        );
        assert_eq!(missing.state, EnforcementState::NotEnforced);
        assert_eq!(missing.network.state, EnforcementState::NotEnforced);
        assert!(
            missing
                .filesystem
                .note
                .as_deref()
                .unwrap_or("")
                .contains("no report")
        );
    }
}
