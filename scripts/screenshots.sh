#!/usr/bin/env bash
# Regenerates the book's screenshots of the dashboard: docs/dashboard.png,
# docs/transcript.png, docs/failover-timeline.png, docs/workflow.png and
# docs/usage-charts.png. Each is taken by the browser test that checks
# what it shows (headless Debian Chromium over WebDriver, the real Claude
# Code against `agentgate fake-llm` where a CLI runs); a test copies its
# screenshot into docs/ when its AGENTGATE_SCREENSHOT* variable names the
# file. Installs what those tests need first (the pinned CLIs, Chromium).
# Arguments go to `cargo nextest run` (e.g. `--release`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/install-nextest.sh
scripts/install-clis.sh
scripts/install-browser.sh
export AGENTGATE_TEST_CLIS="${AGENTGATE_TEST_CLIS:-$root/clis}"
export AGENTGATE_SCREENSHOT=docs/dashboard.png
export AGENTGATE_SCREENSHOT_TRANSCRIPT=docs/transcript.png
export AGENTGATE_SCREENSHOT_FAILOVER=docs/failover-timeline.png
export AGENTGATE_SCREENSHOT_WORKFLOW=docs/workflow.png
export AGENTGATE_SCREENSHOT_USAGE=docs/usage-charts.png
cargo nextest run -p agentgate --test all --locked "$@" -E '
    test(=suite::dashboard::the_page_follows_a_run_live_and_cancels_another)
  | test(=suite::dashboard_transcript::a_live_run_reads_as_a_transcript_with_its_tool_calls_and_answer)
  | test(=suite::dashboard_transcript::a_failover_run_shows_a_lane_per_attempt_with_the_error_that_moved_it_on)
  | test(=suite::dashboard_workflow::a_workflow_shows_its_steps_live_and_opens_each_steps_run)
  | test(=suite::dashboard_usage::the_usage_view_charts_the_stored_runs_figures)'
git status --short docs/*.png
