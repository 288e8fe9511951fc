//! `--debug-prompt` (`debug_prompt:`): each attempt's prompt, as the CLI
//! is given it, saved with the run's secrets redacted as `prompt.txt` in
//! the run folder (and its system instructions, when it has any, as
//! `system-prompt.txt`), mode 600. A later attempt replaces the files: a
//! failover step may be given another prompt (a skill is invoked each
//! CLI's own way), and the last one sent is the one to look at.

use agentgate_protocol::LogLevel;
use agentgate_providers::CliRequest;

use super::emitter::Emitter;
use crate::private_file::write_private_atomically;

/// The prompt file's name in the run folder.
pub const PROMPT_FILE_NAME: &str = "prompt.txt";
/// The system instructions' file name in the run folder.
pub const SYSTEM_PROMPT_FILE_NAME: &str = "system-prompt.txt";

/// Save `request`'s prompt (and system instructions) in the run folder; a
/// run without a folder (no store), or a failed write, is logged as a
/// warning and the run goes on.
pub(super) fn save(em: &mut Emitter<'_>, request: &CliRequest) {
    let Some(dir) = em.run_dir().map(std::path::Path::to_path_buf) else {
        em.log(
            LogLevel::Warn,
            "--debug-prompt: the run has no run folder (no store); the prompt is not saved".into(),
        );
        return;
    };
    let mut files = vec![(PROMPT_FILE_NAME, request.prompt.as_str())];
    if let Some(system) = request.system.as_deref() {
        files.push((SYSTEM_PROMPT_FILE_NAME, system));
    }
    for (name, text) in files {
        let redacted = em.redactor().redact_str(text).into_owned();
        if let Err(e) = write_private_atomically(&dir.join(name), redacted.as_bytes()) {
            em.log(
                LogLevel::Warn,
                format!("--debug-prompt: cannot write {name}: {e}"),
            );
        }
    }
}
