//! The sandbox rules for the runs a config starts by itself (`agentgate
//! config check` reports them; `serve` warns of them when it starts): a schedule's or a watched folder's request whose level is
//! below `sandbox.require` (or that the sandbox's other rules refuse:
//! `strict` for a provider without a gateway route, `container` without
//! `sandbox.container`) would fail every time it fires, so the check
//! reports it, naming the schedule or the watched folder, the level and
//! the requirement. The same rules as `serve`'s and `worker`'s
//! ([`check_sandbox_policy`]), without planning (nothing is read).

use super::{PlanError, check_sandbox_policy};
use crate::config::Config;
use crate::request::RunRequest;

/// What `sandbox:` refuses of the schedules' and watched folders' runs,
/// one message each, in file order (schedules first).
pub fn automation_sandbox_faults(cfg: &Config) -> Vec<String> {
    let schedules = cfg
        .schedules
        .iter()
        .map(|s| (format!("schedule `{}`", s.name), &s.request));
    let watches = cfg
        .watches
        .iter()
        .map(|w| (format!("watched folder `{}`", w.name), &w.request));
    schedules
        .chain(watches)
        .filter_map(|(what, request)| fault(cfg, &what, request))
        .collect()
}

/// Why `sandbox:` refuses the run of `request` (of `what`), if it does.
fn fault(cfg: &Config, what: &str, request: &RunRequest) -> Option<String> {
    let mut checked = request.clone();
    if checked.prompt.is_none() && checked.task.is_none() {
        // A watched folder's: each file is the task.
        checked.prompt = Some("(the file)".to_owned());
    }
    // A request that does not convert was refused when the config loaded.
    let (flags, _) = checked.to_flags().ok()?;
    let error = check_sandbox_policy(cfg, &flags).err()?;
    Some(match error {
        PlanError::SandboxBelowRequired {
            provider,
            level,
            from,
            required,
            met,
        } => {
            let from = match flags.sandbox {
                Some(_) => "its request's `sandbox`".to_owned(),
                None => from,
            };
            format!(
                "{what}: its runs would be refused when it fires: {provider} would run at sandbox level `{level}` ({from}), below the config's `sandbox.require: {required}`: give its request `sandbox: {required}` (a level that meets it: {met})"
            )
        }
        other => format!("{what}: its runs would be refused when it fires: {other}"),
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::config::ConfigSource;

    use super::*;

    fn config(yaml: &str) -> Config {
        Config::parse(
            yaml,
            ConfigSource::Flag(PathBuf::from("/cfg/agentgate.yaml")),
        )
        .unwrap()
    }

    const AUTOMATION: &str = "schedules:
  nightly:
    cron: \"0 2 * * *\"
    request: {prompt: review, providers: [claude], sandbox: off}
  hourly:
    cron: \"0 * * * *\"
    request: {prompt: triage, providers: [claude]}
  safe:
    cron: \"0 3 * * *\"
    request: {prompt: audit, providers: [claude], sandbox: strict}
watch:
  inbox:
    folder: /srv/inbox
    request: {agents: [filer]}
agents:
  filer: {provider: codex}
";

    #[test]
    fn runs_below_the_required_level_are_named_with_the_level_and_the_requirement() {
        let cfg = config(&format!(
            "version: 1\nsandbox:\n  require: workspace\n{AUTOMATION}"
        ));
        let faults = automation_sandbox_faults(&cfg);
        assert_eq!(faults.len(), 3, "{faults:#?}");
        assert!(
            faults[0].starts_with("schedule `nightly`: ")
                && faults[0].contains("level `off` (its request's `sandbox`)")
                && faults[0].contains("`sandbox.require: workspace`")
                && faults[0].contains("give its request `sandbox: workspace`"),
            "{}",
            faults[0]
        );
        assert!(
            faults[1].starts_with("schedule `hourly`: ")
                && faults[1].contains("level `off` (the default")
                && faults[1].contains("`sandbox.require: workspace`"),
            "{}",
            faults[1]
        );
        assert!(
            faults[2].starts_with("watched folder `inbox`: ")
                && faults[2].contains("codex (agent `filer`)")
                && faults[2].contains("level `off`")
                && faults[2].contains("`sandbox.require: workspace`"),
            "{}",
            faults[2]
        );
    }

    #[test]
    fn runs_that_meet_the_policy_or_no_policy_are_not_reported() {
        // No requirement: nothing to report.
        assert_eq!(
            automation_sandbox_faults(&config(&format!("version: 1\n{AUTOMATION}"))),
            Vec::<String>::new()
        );
        // The config's level meets it for those that ask for none.
        let cfg = config(&format!(
            "version: 1\nsandbox:\n  level: workspace\n  require: workspace\n{AUTOMATION}"
        ));
        let faults = automation_sandbox_faults(&cfg);
        assert_eq!(faults.len(), 1, "{faults:#?}");
        assert!(faults[0].starts_with("schedule `nightly`: "), "{faults:#?}");
    }

    #[test]
    fn the_sandboxs_other_refusals_are_reported_too() {
        let cfg = config(
            "version: 1\nschedules:\n  boxed:\n    cron: \"0 2 * * *\"\n    request: {prompt: hi, providers: [claude], sandbox: container}\n",
        );
        let faults = automation_sandbox_faults(&cfg);
        assert_eq!(faults.len(), 1, "{faults:#?}");
        assert!(
            faults[0].starts_with("schedule `boxed`: ")
                && faults[0].contains("needs `sandbox.container`"),
            "{}",
            faults[0]
        );
    }
}
