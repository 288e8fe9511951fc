//! Recipes that point each real agent CLI at a running fake-llm from an
//! isolated home: the environment, the config files, and an unattended
//! argv. Used by the end-to-end tests and by `agentgate demo`.
//!
//! Each recipe writes only under the folder it is given, and the
//! environment it returns is complete: run the CLI with a cleared
//! environment plus [`ClientSetup::env`], so nothing of the caller's own
//! configuration or credentials leaks in.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

/// The CLIs with a recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cli {
    /// Claude Code (`claude`), Anthropic Messages API.
    Claude,
    /// Codex (`codex`), OpenAI Responses API.
    Codex,
    /// Gemini CLI (`gemini`), Gemini API.
    Gemini,
    /// Qwen Code (`qwen`), OpenAI Chat Completions API.
    Qwen,
    /// opencode (`opencode`), OpenAI Chat Completions API.
    Opencode,
}

impl Cli {
    /// Every CLI with a recipe.
    pub const ALL: [Cli; 5] = [
        Cli::Claude,
        Cli::Codex,
        Cli::Gemini,
        Cli::Qwen,
        Cli::Opencode,
    ];

    /// The executable's name.
    pub fn binary(self) -> &'static str {
        match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Gemini => "gemini",
            Cli::Qwen => "qwen",
            Cli::Opencode => "opencode",
        }
    }

    /// The environment variable that may name the executable
    /// (`AGENTGATE_CLAUDE_BIN`, ...).
    pub fn bin_env(self) -> String {
        format!("AGENTGATE_{}_BIN", self.binary().to_ascii_uppercase())
    }

    /// The model name the recipe configures.
    pub fn default_model(self) -> &'static str {
        match self {
            Cli::Claude => "claude-sonnet-4-5",
            Cli::Codex => "gpt-5.5",
            Cli::Gemini => "gemini-2.5-flash",
            Cli::Qwen => "qwen3-coder-plus",
            Cli::Opencode => "fake-model",
        }
    }

    /// The name of the shell tool this CLI declares.
    pub fn shell_tool(self) -> &'static str {
        match self {
            Cli::Claude => "Bash",
            Cli::Codex => "exec_command",
            Cli::Gemini | Cli::Qwen => "run_shell_command",
            Cli::Opencode => "bash",
        }
    }

    /// The wire protocol the CLI speaks to the server.
    pub fn api(self) -> crate::Api {
        match self {
            Cli::Claude => crate::Api::Anthropic,
            Cli::Codex => crate::Api::Responses,
            Cli::Gemini => crate::Api::Gemini,
            Cli::Qwen | Cli::Opencode => crate::Api::Chat,
        }
    }
}

impl fmt::Display for Cli {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.binary())
    }
}

/// Options for a recipe.
#[derive(Debug, Clone, Default)]
pub struct ClientOptions {
    /// How many times the CLI may retry a failed model request (bounded so
    /// that scripted errors fail fast). Default 0.
    pub max_retries: u32,
    /// The model to configure (the CLI's [`Cli::default_model`] when `None`).
    pub model: Option<String>,
    /// A cache folder shared between homes, for CLIs that download parts of
    /// themselves at first run (opencode npm-installs its plugin package).
    pub shared_cache: Option<PathBuf>,
    /// The folder the CLI was installed into (npm's `node_modules/.bin`,
    /// usually [`Path::parent`] of what [`locate`] found), put first on the
    /// CLI's `PATH` as `npm exec` does. A CLI that is a `#!/usr/bin/env
    /// node` script then runs on the Node.js installed beside it
    /// (`scripts/install-clis.sh` installs there the Node.js the pinned
    /// CLIs declare) instead of on whichever `node` the caller's `PATH`
    /// names first.
    pub bin_dir: Option<PathBuf>,
}

/// A CLI pointed at a fake-llm.
#[derive(Debug, Clone)]
pub struct ClientSetup {
    /// Which CLI.
    pub cli: Cli,
    /// The isolated home folder.
    pub home: PathBuf,
    /// The working folder to run the CLI in (trusted where the CLI asks).
    pub workdir: PathBuf,
    /// The complete environment to run the CLI with.
    pub env: Vec<(String, String)>,
    /// The model configured.
    pub model: String,
}

impl ClientSetup {
    /// The argv (without the program) of one unattended, streaming,
    /// auto-approving turn with `prompt`.
    pub fn args(&self, prompt: &str) -> Vec<String> {
        let s = |v: &[&str]| v.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
        let mut args = match self.cli {
            Cli::Claude => s(&[
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--permission-mode",
                "bypassPermissions",
                "--model",
                &self.model,
            ]),
            Cli::Codex => s(&[
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
            ]),
            Cli::Gemini => s(&[
                "--output-format",
                "stream-json",
                "--yolo",
                "-m",
                &self.model,
                "-p",
            ]),
            Cli::Qwen => s(&[
                "--output-format",
                "stream-json",
                "--yolo",
                "--auth-type",
                "openai",
                "-p",
            ]),
            Cli::Opencode => s(&["run", "--format", "json", "--thinking"]),
        };
        args.push(prompt.to_owned());
        args
    }

    /// A command for one turn: `program` with [`Self::args`], the cleared
    /// environment plus [`Self::env`], in [`Self::workdir`], stdin closed.
    pub fn command(&self, program: &Path, prompt: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(self.args(prompt))
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(&self.workdir)
            .stdin(std::process::Stdio::null());
        cmd
    }
}

/// Names an install folder laid out like the project's `clis/` (a
/// `package.json` and its `node_modules`) whose CLIs the tests drive
/// instead of those in `clis/`: `scripts/cli-matrix.sh` sets it to run the
/// suite against other versions.
pub const TEST_CLIS_ENV: &str = "AGENTGATE_TEST_CLIS";

/// The install folder whose CLIs the project's tests drive:
/// `$AGENTGATE_TEST_CLIS` when set, else `<workspace>/clis`, where
/// `scripts/install-clis.sh` installs the pinned versions.
pub fn test_clis_dir(workspace: &Path) -> PathBuf {
    std::env::var_os(TEST_CLIS_ENV)
        .filter(|v| !v.is_empty())
        .map_or_else(|| workspace.join("clis"), PathBuf::from)
}

/// The folder of the tests' CLIs and of the Node.js they run on: npm's
/// `node_modules/.bin` in [`test_clis_dir`].
pub fn test_bin_dir(workspace: &Path) -> PathBuf {
    test_clis_dir(workspace).join("node_modules/.bin")
}

/// Find a CLI's executable: the `AGENTGATE_<CLI>_BIN` variable, then each
/// of `dirs`, then `PATH`. The path returned is absolute, since the CLI is
/// run from another working folder.
pub fn locate(cli: Cli, dirs: &[PathBuf]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(cli.bin_env()) {
        let p = PathBuf::from(p);
        return p.is_file().then(|| std::path::absolute(&p).ok()).flatten();
    }
    let path_dirs = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    dirs.iter()
        .chain(path_dirs.iter())
        .map(|d| d.join(cli.binary()))
        .find(|p| p.is_file())
        .and_then(|p| std::path::absolute(p).ok())
}

/// The CLI's `PATH`: `bin_dir` (when given) before the caller's own `PATH`.
fn search_path(bin_dir: Option<&Path>) -> String {
    let inherited = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    match bin_dir {
        Some(dir) => format!("{}:{inherited}", dir.display()),
        None => inherited,
    }
}

/// Write `cli`'s isolated home under `root` (created if needed), pointing
/// it at the server at `base_url` (`http://127.0.0.1:PORT`, no trailing
/// slash).
pub fn prepare(
    cli: Cli,
    base_url: &str,
    root: &Path,
    opts: &ClientOptions,
) -> io::Result<ClientSetup> {
    let home = root.join("home");
    let workdir = root.join("work");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&workdir)?;
    let home = home.canonicalize()?;
    let workdir = workdir.canonicalize()?;
    let model = opts
        .model
        .clone()
        .unwrap_or_else(|| cli.default_model().to_owned());
    let h = home.display().to_string();
    let mut env: Vec<(String, String)> = vec![
        ("HOME".into(), h.clone()),
        ("PATH".into(), search_path(opts.bin_dir.as_deref())),
        ("LANG".into(), "C.UTF-8".into()),
        ("TERM".into(), "dumb".into()),
        ("NO_COLOR".into(), "1".into()),
        ("TMPDIR".into(), std::env::temp_dir().display().to_string()),
    ];
    let mut set = |k: &str, v: String| env.push((k.to_owned(), v));
    let retries = opts.max_retries;
    match cli {
        Cli::Claude => {
            set("ANTHROPIC_BASE_URL", base_url.to_owned());
            set("ANTHROPIC_API_KEY", "fake-llm-key".into());
            set("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into());
            set("DISABLE_TELEMETRY", "1".into());
            set("DISABLE_AUTOUPDATER", "1".into());
            set("DISABLE_ERROR_REPORTING", "1".into());
            set("CLAUDE_CODE_MAX_RETRIES", retries.to_string());
            // bypassPermissions is refused as root unless the CLI is told it
            // runs in a sandbox; the isolated home is one.
            set("IS_SANDBOX", "1".into());
        }
        Cli::Codex => {
            let codex_home = home.join(".codex");
            std::fs::create_dir_all(&codex_home)?;
            let config = format!(
                "model = {model:?}\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"agentgate fake-llm\"\nbase_url = \"{base_url}/v1\"\nenv_key = \"FAKE_LLM_API_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = {retries}\nstream_max_retries = {retries}\n"
            );
            std::fs::write(codex_home.join("config.toml"), config)?;
            set("CODEX_HOME", codex_home.display().to_string());
            set("FAKE_LLM_API_KEY", "fake-llm-key".into());
        }
        Cli::Gemini => {
            let dir = home.join(".gemini");
            std::fs::create_dir_all(&dir)?;
            let settings = json!({
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
                "general": {
                    "enableAutoUpdate": false,
                    "enableAutoUpdateNotification": false,
                    "maxAttempts": retries + 1,
                },
            });
            std::fs::write(dir.join("settings.json"), settings.to_string())?;
            let trusted = json!({ workdir.display().to_string(): "TRUST_FOLDER" });
            std::fs::write(dir.join("trustedFolders.json"), trusted.to_string())?;
            set("GEMINI_API_KEY", "fake-llm-key".into());
            set("GOOGLE_GEMINI_BASE_URL", base_url.to_owned());
        }
        Cli::Qwen => {
            let dir = home.join(".qwen");
            std::fs::create_dir_all(&dir)?;
            let settings = json!({
                "$version": 4,
                "model": {"generationConfig": {"maxRetries": retries}},
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
                "general": {"disableAutoUpdate": true},
            });
            std::fs::write(dir.join("settings.json"), settings.to_string())?;
            set("OPENAI_BASE_URL", format!("{base_url}/v1"));
            set("OPENAI_API_KEY", "fake-llm-key".into());
            set("OPENAI_MODEL", model.clone());
        }
        Cli::Opencode => {
            let config_home = home.join(".config");
            let data_home = home.join(".local/share");
            let state_home = home.join(".local/state");
            // opencode npm-installs its plugin package into its config
            // folder at first run; a shared npm cache makes that a local copy.
            let (cache_home, npm_cache) = match &opts.shared_cache {
                Some(c) => (c.join("xdg"), c.join("npm")),
                None => (home.join(".cache"), home.join(".npm")),
            };
            let dir = config_home.join("opencode");
            for d in [&dir, &data_home, &state_home, &cache_home] {
                std::fs::create_dir_all(d)?;
            }
            let config = json!({
                "$schema": "https://opencode.ai/config.json",
                "provider": {"fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "agentgate fake-llm",
                    "options": {"baseURL": format!("{base_url}/v1"), "apiKey": "fake-llm-key", "maxRetries": retries},
                    "models": {model.clone(): {"name": model.clone()}},
                }},
                "model": format!("fake/{model}"),
                "small_model": format!("fake/{model}"),
                "autoupdate": false,
                "share": "disabled",
                "permission": {"bash": "allow", "edit": "allow", "webfetch": "allow"},
            });
            std::fs::write(dir.join("opencode.json"), config.to_string())?;
            set("XDG_CONFIG_HOME", config_home.display().to_string());
            set("XDG_DATA_HOME", data_home.display().to_string());
            set("XDG_STATE_HOME", state_home.display().to_string());
            set("XDG_CACHE_HOME", cache_home.display().to_string());
            set("npm_config_cache", npm_cache.display().to_string());
            set("OPENCODE_DISABLE_AUTOUPDATE", "1".into());
            set("OPENCODE_DISABLE_MODELS_FETCH", "1".into());
            set("OPENCODE_DISABLE_LSP_DOWNLOAD", "1".into());
        }
    }
    Ok(ClientSetup {
        cli,
        home,
        workdir,
        env,
        model,
    })
}
