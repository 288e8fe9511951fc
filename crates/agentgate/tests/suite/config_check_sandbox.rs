//! `agentgate config check` refuses (exit 2) a config whose schedule or
//! watched folder would run below `sandbox.require`, naming each one, its
//! level and the requirement, and accepts it once their requests ask for a
//! level that meets it: found when the config is checked, not when the
//! schedule fires.

use std::process::Command;
use std::time::Duration;

use super::support::run_bounded;

const AUTOMATION: &str = "schedules:
  nightly:
    cron: \"0 2 * * *\"
    request: {prompt: review, providers: [claude], sandbox: SCHEDULE_LEVEL}
watch:
  inbox:
    folder: inbox
    request: {providers: [claude]}
";

#[test]
fn config_check_names_the_schedules_and_watches_below_the_required_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("inbox")).unwrap();
    let check = |config: &str| {
        std::fs::write(dir.path().join("agentgate.yaml"), config).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.args(["config", "check"])
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", dir.path())
            .current_dir(dir.path());
        run_bounded(cmd, Duration::from_secs(60))
    };
    let below = AUTOMATION.replace("SCHEDULE_LEVEL", "off");
    let refused = check(&format!(
        "version: 1\nsandbox:\n  require: workspace\n{below}"
    ));
    assert_eq!(refused.code, Some(2), "{}", refused.all_output());
    let stderr = &refused.stderr;
    assert!(
        stderr.contains("2 automated runs the config starts would be refused"),
        "{stderr}"
    );
    for (what, level) in [
        (
            "schedule `nightly`",
            "level `off` (its request's `sandbox`)",
        ),
        ("watched folder `inbox`", "level `off` (the default"),
    ] {
        let line = stderr
            .lines()
            .find(|l| l.trim_start().starts_with(what))
            .unwrap_or_else(|| panic!("no line for {what}: {stderr}"));
        assert!(
            line.contains(level) && line.contains("`sandbox.require: workspace`"),
            "{line}"
        );
    }
    assert!(!refused.stdout.contains("ok:"), "{}", refused.stdout);

    // Without the policy, or with levels that meet it: ok.
    let ok = check(&format!("version: 1\n{below}"));
    assert_eq!(ok.code, Some(0), "{}", ok.all_output());
    let met = AUTOMATION.replace("SCHEDULE_LEVEL", "strict");
    let ok = check(&format!(
        "version: 1\nsandbox:\n  level: workspace\n  require: workspace\n{met}"
    ));
    assert_eq!(ok.code, Some(0), "{}", ok.all_output());
    assert!(
        ok.stdout.contains("1 schedules, 1 watched folders"),
        "{}",
        ok.stdout
    );
}
