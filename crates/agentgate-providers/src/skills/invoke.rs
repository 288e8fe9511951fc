//! The text that invokes a skill, the provider's way ([`SkillInvoke`]).

use std::path::Path;

use super::SkillInvoke;

/// How one step invokes a skill: text put before the prompt, arguments
/// added to the command line, or the task itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillInvocation {
    /// Put first in the prompt (`/greet {"name":"Ada"}`, `$greet ...`).
    pub prefix: Option<String>,
    /// The task text to use (the prompt's task part).
    pub task: String,
    /// Arguments added to the CLI's command line (`--command greet`).
    pub extra_args: Vec<String>,
    /// `native` or `prompt`.
    pub way: &'static str,
}

/// The invocation of skill `name` (its `SKILL.md` at `path`, its body
/// `body`) with `input` (compact JSON, or empty) and the caller's `task`
/// text (may be empty).
pub fn invocation(
    invoke: SkillInvoke,
    name: &str,
    path: &Path,
    body: &str,
    input: &str,
    task: &str,
) -> SkillInvocation {
    let task = task.trim();
    let args = |sep: &str| {
        if input.is_empty() {
            String::new()
        } else {
            format!("{sep}{input}")
        }
    };
    // What the task part says when the caller gave no text of its own.
    let or_follow = |t: &str| {
        if t.is_empty() {
            format!("Follow the skill `{name}` with the input given.")
        } else {
            t.to_owned()
        }
    };
    match invoke {
        SkillInvoke::Slash => SkillInvocation {
            prefix: Some(format!("/{name}{}", args(" "))),
            task: or_follow(task),
            extra_args: Vec::new(),
            way: invoke.as_str(),
        },
        SkillInvoke::Mention => SkillInvocation {
            prefix: Some(format!("${name}{}", args("\n\nInput (JSON): "))),
            task: or_follow(task),
            extra_args: Vec::new(),
            way: invoke.as_str(),
        },
        SkillInvoke::CommandFlag(flag) => SkillInvocation {
            prefix: None,
            task: match (input.is_empty(), task.is_empty()) {
                (true, _) => or_follow(task),
                (false, true) => input.to_owned(),
                (false, false) => format!("{input}\n\n{task}"),
            },
            extra_args: vec![flag.to_owned(), name.to_owned()],
            way: invoke.as_str(),
        },
        SkillInvoke::Prompt => {
            let mut text = format!(
                "Use the skill `{name}`. Its instructions are in {} (activate it with your skill tool if you have one, or follow the instructions below):\n\n<skill name=\"{name}\">\n{}\n</skill>\n",
                path.display(),
                body.trim_end()
            );
            if !input.is_empty() {
                text.push_str(&format!("\nInput (JSON): {input}\n"));
            }
            if !task.is_empty() {
                text.push_str(&format!("\n{task}\n"));
            }
            SkillInvocation {
                prefix: None,
                task: text,
                extra_args: Vec::new(),
                way: invoke.as_str(),
            }
        }
    }
}
