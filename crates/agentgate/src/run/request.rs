//! The flags of `agentgate run` as a [`RunRequest`], for `agentgate
//! submit`: the same run, sent to a server. Relative paths are made
//! absolute against the working directory here, since the server's is
//! another.

use std::path::{Path, PathBuf};

use agentgate_core::request::RunRequest;
use agentgate_core::settings::PermissionMode;

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
            resume: self.resume.clone(),
            timeout: self.timeout.map(seconds),
            idle_timeout: self.idle_timeout.map(seconds),
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
            output_schema: self.output_schema.as_ref().map(abs),
            env: self.env.iter().cloned().collect(),
            extra_args: self.extra_args.clone(),
            priority: 0,
            idempotency_key: None,
            not_before: None,
        }
    }
}

/// A duration as the request takes it: seconds, exact to the millisecond.
fn seconds(d: std::time::Duration) -> String {
    format!("{}ms", d.as_millis())
}
