//! The flags of `agentgate run` as a [`RunRequest`], for `agentgate
//! submit`: the same run, sent to a server. Relative paths are made
//! absolute against the working directory here, since the server's is
//! another.

use std::path::{Path, PathBuf};

use agentgate_core::PermissionMode;
use agentgate_core::RunRequest;

use std::io::IsTerminal;

use agentgate_core::{STDIN_PROMPT_MAX_BYTES, read_text};
use anyhow::Context;

use super::Args;

/// What the prompt was: an argument or stdin text, or a JSON task input.
#[derive(Debug)]
pub enum TaskText {
    /// The prompt as is.
    Prompt(String),
    /// A JSON task input object (`{"prompt", "context", "persona", "files"}`).
    Task(serde_json::Map<String, serde_json::Value>),
}

impl Args {
    /// The request for these flags and this task. `cwd` is where relative
    /// paths start, and the run's working directory unless `--cwd` says.
    pub fn request(&self, task: TaskText, cwd: &Path) -> RunRequest {
        let abs = |p: &PathBuf| cwd.join(p);
        let (prompt, task) = match task {
            TaskText::Prompt(p) => (Some(p), None),
            TaskText::Task(mut fields) => {
                // The task's files are relative to the run's working
                // directory, as `agentgate run` reads them.
                let run_dir = self.cwd.as_ref().map_or_else(|| cwd.to_path_buf(), abs);
                if let Some(serde_json::Value::Array(files)) = fields.get_mut("files") {
                    for f in files.iter_mut() {
                        if let Some(s) = f.as_str() {
                            *f = serde_json::Value::String(run_dir.join(s).display().to_string());
                        }
                    }
                }
                (None, Some(serde_json::Value::Object(fields)))
            }
        };
        let permission_mode = if self.yolo {
            Some(PermissionMode::Bypass)
        } else {
            self.permission_mode
        };
        RunRequest {
            prompt,
            task,
            // A JSON task input names its file itself (`file_name`).
            file_name: None,
            providers: self.provider.clone().map(|n| n.0).unwrap_or_default(),
            agents: self.agent.clone().map(|n| n.0).unwrap_or_default(),
            chain: self.chain.clone(),
            model: self.model.clone(),
            tier: self.tier.as_ref().map(|_| self.flags().tier),
            permission_mode: permission_mode.map(|m| m.as_str().to_owned()),
            system: self.system.clone(),
            system_file: self.system_file.as_ref().map(abs),
            agent_file: self.agent_file.as_ref().map(abs),
            persona: self.persona.clone(),
            context: self.context.iter().map(abs).collect(),
            context_dir: self.context_dir.as_ref().map(abs),
            context_max: self.context_max,
            skip_context_file: self.skip_context_file,
            no_unattended_instruction: self.no_unattended_instruction,
            prompt_max_bytes: self.prompt_max_bytes,
            prompt_warn_bytes: self.prompt_warn_bytes,
            add_dirs: self.add_dirs.iter().map(abs).collect(),
            cwd: Some(self.cwd.as_ref().map_or_else(|| cwd.to_path_buf(), abs)),
            session: self.session.clone(),
            session_busy: self.session.as_ref().map(|_| self.session_busy),
            warm: self.warm,
            warm_idle: self.warm_idle.map(seconds),
            resume: self.resume.clone(),
            timeout: self.timeout.map(seconds),
            idle_timeout: self.idle_timeout.map(seconds),
            timeout_warn: self.timeout_warn.clone(),
            extend_on_activity: self.extend_on_activity.map(seconds),
            max_timeout: self.max_timeout.map(seconds),
            max_provider_retries: self.max_provider_retries,
            binary: self.binary.as_ref().map(abs),
            on_dirty: self.on_dirty,
            handoff: self.handoff,
            retry_on: self
                .retry_on
                .as_ref()
                .map(|r| r.kinds.iter().map(ToString::to_string).collect())
                .unwrap_or_default(),
            ignore_quota: self.ignore_quota,
            tools: self.tools.clone(),
            output_schema: self.output_schema.as_ref().map(abs),
            env: self.env.iter().cloned().collect(),
            extra_args: self.extra_args.clone(),
            extra_args_mode: self.extra_args_mode,
            reasoning_effort: self.reasoning_effort.clone(),
            thinking_budget: self.thinking_budget,
            max_turns: self.max_turns,
            max_context_tokens: self.rotation.max_context_tokens,
            rotate_handoff: self.rotation.rotate_handoff.clone(),
            rotate_prompt: self.rotation.rotate_prompt.clone(),
            max_cost_usd: self.budget.max_cost,
            max_tokens: self.budget.max_tokens,
            labels: self.labels.iter().cloned().collect(),
            skill: self.skill.clone(),
            input: None,
            debug_prompt: self.debug_prompt,
            gateway: self.gateway.choice(),
            record_model_calls: self.gateway.record_model_calls,
            max_model_calls: self.gateway.max_model_calls,
            max_input_tokens: self.gateway.max_input_tokens,
            max_output_tokens: self.gateway.max_output_tokens,
            max_model_time: self.gateway.max_model_time.map(seconds),
            sandbox: self.sandbox.sandbox.map(|l| l.as_str().to_owned()),
            workspace: self.workspace,
            priority: 0,
            idempotency_key: None,
            not_before: None,
            callback_url: None,
        }
    }
}

/// The prompt argument, or stdin: a JSON task input object, else text.
pub fn read_task_text(args: &Args) -> anyhow::Result<TaskText> {
    let text = match args.prompt.as_deref() {
        Some(p) if p != "-" => return Ok(TaskText::Prompt(p.to_owned())),
        // A skill needs no prompt: stdin is read only when asked (`-`).
        None if args.skill.is_some() => return Ok(TaskText::Prompt(String::new())),
        _ => read_stdin_prompt(args)?,
    };
    let trimmed = text.trim();
    if trimmed.starts_with('{') {
        match agentgate_protocol::strict_json::from_str(trimmed) {
            Ok(serde_json::Value::Object(fields)) => return Ok(TaskText::Task(fields)),
            // JSON that repeats a key: a task input whose meaning is not
            // clear, never a prompt.
            Err(e) if e.is_data() => anyhow::bail!("the task input on stdin: {e}"),
            _ => {}
        }
    }
    Ok(TaskText::Prompt(text))
}

/// Stdin, as the prompt (text or a JSON task input), bounded; refused on
/// a terminal. A larger --prompt-max-bytes raises the limit with it.
pub(super) fn read_stdin_prompt(args: &Args) -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        anyhow::bail!("no prompt: give it as an argument, or pipe it on stdin");
    }
    let limit = args
        .prompt_max_bytes
        .and_then(|n| u64::try_from(n).ok())
        .map_or(STDIN_PROMPT_MAX_BYTES, |n| n.max(STDIN_PROMPT_MAX_BYTES));
    read_text(std::io::stdin().lock(), limit, "a prompt on stdin")
        .context("failed to read the prompt from stdin")
}

/// Stdin as a skill's `--input -`, bounded; refused on a terminal.
pub(super) fn read_stdin_input() -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        anyhow::bail!("--input -: pipe the input on stdin");
    }
    read_text(
        std::io::stdin().lock(),
        STDIN_PROMPT_MAX_BYTES,
        "the input on stdin",
    )
    .context("failed to read the skill's input from stdin")
}

/// A duration as the request takes it: seconds, exact to the millisecond.
fn seconds(d: std::time::Duration) -> String {
    format!("{}ms", d.as_millis())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn args(argv: &[&str]) -> Args {
        Cli::try_parse_from([&["run"], argv].concat()).unwrap().args
    }

    #[test]
    fn the_request_asks_the_server_for_the_run_the_flags_ask_for() {
        let a = args(&[
            "-p",
            "claude,codex",
            "--timeout",
            "1m30s",
            "--idle-timeout",
            "1500ms",
            "--yolo",
            "--context",
            "notes.md",
            "--add-dir",
            "/abs",
            "--session",
            "s",
            "--session-busy",
            "fail",
            "--retry-on",
            "quota,rate_limit",
            "--env",
            "K=v",
            "--extra-arg=--verbose",
            "--output-schema",
            "schema.json",
            "--tier",
            "fast",
            "hello",
        ]);
        let request = a.request(TaskText::Prompt("hello".into()), Path::new("/work/repo"));
        let (sent, task) = request.to_flags().unwrap();
        let local = a.flags();
        assert_eq!(task.prompt, "hello");
        assert_eq!(sent.providers, local.providers);
        assert_eq!(sent.settings.timeout, Some(Duration::from_secs(90)));
        assert_eq!(
            sent.settings.idle_timeout,
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            sent.settings.permission_mode,
            local.settings.permission_mode
        );
        let kinds =
            |f: &agentgate_core::RunFlags| f.settings.retry_on.as_ref().map(|r| r.kinds.clone());
        assert_eq!(kinds(&sent), kinds(&local));
        assert_eq!(kinds(&sent).map(|k| k.len()), Some(2));
        assert_eq!(sent.settings.env, local.settings.env);
        assert_eq!(sent.settings.extra_args, local.settings.extra_args);
        assert_eq!(
            (sent.session, sent.session_busy),
            (local.session, local.session_busy)
        );
        assert_eq!(sent.tier, local.tier);
        // Paths are made absolute against the client's directory, which is
        // the run's working directory.
        assert_eq!(sent.context, [PathBuf::from("/work/repo/notes.md")]);
        assert_eq!(sent.add_dirs, [PathBuf::from("/abs")]);
        assert_eq!(
            sent.settings.output_schema,
            Some(PathBuf::from("/work/repo/schema.json"))
        );
        assert_eq!(sent.settings.cwd, Some(PathBuf::from("/work/repo")));
    }

    /// Every flag of `agentgate run` has its field in the one request
    /// shape the API, schedules and watched folders share: the flags sent
    /// as a request plan exactly as the flags themselves.
    #[test]
    fn every_flag_reaches_the_request_and_back_unchanged() {
        let a = args(&[
            "--agent",
            "reviewer,fixer",
            "--model",
            "opus",
            "--tier",
            "fast",
            "--permission-mode",
            "plan",
            "--system",
            "be brief",
            "--agent-file",
            "/r/AGENTS.md",
            "--persona",
            "Reviewer",
            "--context",
            "/r/a.md",
            "--context-dir",
            "/r/ctx",
            "--context-max",
            "500",
            "--skip-context-file",
            "--no-unattended-instruction",
            "--prompt-max-bytes",
            "9000",
            "--prompt-warn-bytes",
            "8000",
            "--add-dir",
            "/r/extra",
            "--cwd",
            "/r",
            "--session",
            "s",
            "--session-busy",
            "fail",
            "--timeout",
            "2m",
            "--idle-timeout",
            "1500ms",
            "--max-provider-retries",
            "3",
            "--binary",
            "/usr/bin/claude",
            "--on-dirty",
            "stash",
            "--workspace",
            "worktree",
            "--handoff",
            "summary",
            "--retry-on",
            "quota,rate_limit",
            "--ignore-quota",
            "--tools",
            "lint,test",
            "--output-schema",
            "/r/schema.json",
            "--env",
            "K=v",
            "--extra-arg=--verbose",
            "--gateway",
            "--record-model-calls",
            "--max-model-calls",
            "12",
            "--max-input-tokens",
            "90000",
            "--max-output-tokens",
            "3000",
            "--max-model-time",
            "5m",
            "--sandbox",
            "strict",
            "hello",
        ]);
        let request = a.request(TaskText::Prompt("hello".into()), Path::new("/elsewhere"));
        let (sent, _) = request.to_flags().unwrap();
        assert_eq!(format!("{sent:?}"), format!("{:?}", a.flags()));
        // Through JSON, as the server and the store read it.
        let text = serde_json::to_string(&request).unwrap();
        assert_eq!(RunRequest::from_json(&text).unwrap(), request);
    }

    #[test]
    fn a_task_input_keeps_its_fields_and_its_files_become_absolute() {
        let a = args(&["--cwd", "sub"]);
        let fields = serde_json::json!({"prompt": "p", "persona": "x", "files": ["a.rs", "/b.rs"]});
        let serde_json::Value::Object(fields) = fields else {
            unreachable!()
        };
        let request = a.request(TaskText::Task(fields), Path::new("/r"));
        let (flags, task) = request.to_flags().unwrap();
        assert_eq!(flags.settings.cwd, Some(PathBuf::from("/r/sub")));
        assert_eq!(task.persona.as_deref(), Some("x"));
        assert_eq!(
            task.files,
            [PathBuf::from("/r/sub/a.rs"), PathBuf::from("/b.rs")]
        );
        // Unset choices stay unset: the server's config decides them.
        assert!(request.tier.is_none() && request.session_busy.is_none());
        assert!(request.providers.is_empty() && request.timeout.is_none());
    }
}
