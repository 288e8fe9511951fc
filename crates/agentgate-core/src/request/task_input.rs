//! A run request's task ([`RunRequest::task_input`]) and its limits on
//! model use ([`RunRequest::gateway_limits`]), checked.

use super::{RequestError, RunRequest, duration};
use crate::gateway_limits::GatewayLimits;
use crate::prompt::{TaskInput, task_from_stdin};

impl RunRequest {
    /// The task: `prompt` as is, or `task` read as `agentgate run` reads a
    /// JSON task input from stdin.
    pub(super) fn task_input(&self) -> Result<TaskInput, RequestError> {
        let task = match (&self.prompt, &self.task) {
            (Some(_), Some(_)) => {
                return Err(RequestError::new("task", "give prompt or task, not both"));
            }
            (None, None) if self.skill.is_some() => TaskInput::default(),
            (None, None) => {
                return Err(RequestError::new("prompt", "a prompt or a task is needed"));
            }
            (Some(p), None) => TaskInput {
                prompt: p.clone(),
                ..TaskInput::default()
            },
            (None, Some(t @ serde_json::Value::Object(_))) => task_from_stdin(&t.to_string())
                .map_err(|e| RequestError::new("task", e.to_string()))?,
            (None, Some(_)) => {
                return Err(RequestError::new(
                    "task",
                    "expected an object: {\"prompt\", \"context\", \"persona\", \"files\"}",
                ));
            }
        };
        let mut task = task;
        if let Some(name) = &self.file_name {
            if task.file_name.is_some() {
                return Err(RequestError::new(
                    "file_name",
                    "the task input gives `file_name` too; give it once",
                ));
            }
            task.file_name = Some(
                crate::prompt::check_file_name(name)
                    .map_err(|e| RequestError::new("file_name", e))?,
            );
        }
        if let Some(name) = &self.skill {
            crate::run_flags::check_skill_name(name).map_err(|e| RequestError::new("skill", e))?;
        } else if self.input.is_some() {
            return Err(RequestError::new("input", "needs a skill"));
        }
        if task.prompt.trim().is_empty() && self.skill.is_none() {
            let field = if self.task.is_some() {
                "task"
            } else {
                "prompt"
            };
            return Err(RequestError::new(field, "the prompt is empty"));
        }
        if let Some(f) = task.files.iter().find(|f| !f.is_absolute()) {
            return Err(RequestError::new(
                "task.files",
                format!("`{}` is not an absolute path", f.display()),
            ));
        }
        Ok(task)
    }

    /// `max_model_calls`, `max_input_tokens`, `max_output_tokens` and
    /// `max_model_time` as the run's limits (each at least 1).
    pub(super) fn gateway_limits(&self) -> Result<GatewayLimits, RequestError> {
        let at_least_one = |field: &str, n: Option<u64>| match n {
            Some(0) => Err(RequestError::new(field, "at least 1")),
            _ => Ok(()),
        };
        at_least_one("max_model_calls", self.max_model_calls.map(u64::from))?;
        at_least_one("max_input_tokens", self.max_input_tokens)?;
        at_least_one("max_output_tokens", self.max_output_tokens)?;
        let max_model_time = duration("max_model_time", self.max_model_time.as_deref())?;
        if max_model_time.is_some_and(|d| d.is_zero()) {
            return Err(RequestError::new("max_model_time", "above 0"));
        }
        Ok(GatewayLimits {
            max_model_calls: self.max_model_calls,
            max_input_tokens: self.max_input_tokens,
            max_output_tokens: self.max_output_tokens,
            max_model_time,
        })
    }
}
