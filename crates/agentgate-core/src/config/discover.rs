//! Which config file a run reads.
//!
//! In order: `--config FILE`; the `AGENTGATE_CONFIG` variable; the
//! `GARDENER_CLI_CONFIG` variable (the Gardener's, for a migrated
//! cli_agents.yaml); `agentgate.yaml`, then `.agentgate/config.yaml`, then
//! `.gardener/cli_agents.yaml` (the Gardener's default place,
//! `DATA_DIR/.gardener/`), in the working directory and then each of its
//! ancestors; the user's
//! `$XDG_CONFIG_HOME/agentgate/config.yaml` (else
//! `~/.config/agentgate/config.yaml`); else none: built-in defaults.
//! A file named by `--config` or the variable must exist; a relative name
//! is made absolute against the working directory here, so that the file
//! and the paths it holds mean the same wherever the config is read again
//! (a session host runs in its own folder).

use std::path::{Path, PathBuf};

use super::source::{ConfigError, ConfigSource};

/// The variable that names the config file.
pub const CONFIG_ENV: &str = "AGENTGATE_CONFIG";

/// The variable the Gardener named its cli_agents.yaml with, honoured after
/// [`CONFIG_ENV`].
pub const GARDENER_CONFIG_ENV: &str = "GARDENER_CLI_CONFIG";

/// The file names looked for in the working directory and its ancestors,
/// in order.
pub const PROJECT_FILES: [&str; 2] = ["agentgate.yaml", ".agentgate/config.yaml"];

/// The Gardener's cli_agents.yaml in its data folder, looked for after
/// [`PROJECT_FILES`] in each folder.
pub const GARDENER_PROJECT_FILE: &str = ".gardener/cli_agents.yaml";

/// What discovery looks at, so that it can be run on any inputs.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// `--config`.
    pub flag: Option<PathBuf>,
    /// `AGENTGATE_CONFIG` (ignored when empty).
    pub env: Option<PathBuf>,
    /// `GARDENER_CLI_CONFIG` (ignored when empty).
    pub gardener_env: Option<PathBuf>,
    /// The folder the project search starts in.
    pub cwd: PathBuf,
    /// `XDG_CONFIG_HOME` (ignored unless absolute, as the spec says).
    pub xdg_config_home: Option<PathBuf>,
    /// The home folder.
    pub home: Option<PathBuf>,
}

impl Discovery {
    /// Discovery for this process: its environment and working directory.
    pub fn from_process(flag: Option<&Path>) -> Result<Discovery, ConfigError> {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Ok(Discovery {
            flag: flag.map(Path::to_path_buf),
            env: var(CONFIG_ENV),
            gardener_env: var(GARDENER_CONFIG_ENV),
            cwd: std::env::current_dir().map_err(ConfigError::Cwd)?,
            xdg_config_home: var("XDG_CONFIG_HOME"),
            home: var("HOME"),
        })
    }

    /// The file to read (an absolute path when `cwd` is), or
    /// [`ConfigSource::Default`]. Nothing is read.
    pub fn find(&self) -> Result<ConfigSource, ConfigError> {
        if let Some(p) = &self.flag {
            return given(&self.cwd.join(p), "--config").map(ConfigSource::Flag);
        }
        if let Some(p) = self.env.as_ref().filter(|p| !p.as_os_str().is_empty()) {
            return given(&self.cwd.join(p), CONFIG_ENV).map(ConfigSource::Env);
        }
        if let Some(p) = self
            .gardener_env
            .as_ref()
            .filter(|p| !p.as_os_str().is_empty())
        {
            return given(&self.cwd.join(p), GARDENER_CONFIG_ENV).map(ConfigSource::Env);
        }
        for dir in self.cwd.ancestors() {
            for name in PROJECT_FILES.into_iter().chain([GARDENER_PROJECT_FILE]) {
                let p = dir.join(name);
                if p.is_file() {
                    return Ok(ConfigSource::Project(p));
                }
            }
        }
        let user_dir = match (&self.xdg_config_home, &self.home) {
            (Some(x), _) if x.is_absolute() => Some(x.clone()),
            (_, Some(h)) => Some(h.join(".config")),
            _ => None,
        };
        if let Some(dir) = user_dir {
            let p = dir.join("agentgate").join("config.yaml");
            if p.is_file() {
                return Ok(ConfigSource::User(p));
            }
        }
        Ok(ConfigSource::Default)
    }
}

fn given(p: &Path, by: &str) -> Result<PathBuf, ConfigError> {
    if p.is_file() {
        Ok(p.to_path_buf())
    } else {
        Err(ConfigError::Missing {
            path: p.to_path_buf(),
            given_by: by.to_owned(),
            detail: if p.exists() {
                "is not a file".into()
            } else {
                "does not exist".into()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "version: 1\n").unwrap();
    }

    #[test]
    fn discovery_follows_the_documented_order() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let deep = root.join("repo/sub/deeper");
        std::fs::create_dir_all(&deep).unwrap();
        let xdg = root.join("xdg");
        let home = root.join("home");
        let mut d = Discovery {
            cwd: deep.clone(),
            xdg_config_home: Some(xdg.clone()),
            home: Some(home.clone()),
            ..Discovery::default()
        };
        assert_eq!(d.find().unwrap(), ConfigSource::Default);
        // The home folder's config, when XDG_CONFIG_HOME is not absolute.
        write(&home.join(".config/agentgate/config.yaml"));
        d.xdg_config_home = Some(PathBuf::from("relative"));
        assert_eq!(
            d.find().unwrap(),
            ConfigSource::User(home.join(".config/agentgate/config.yaml"))
        );
        d.xdg_config_home = Some(xdg.clone());
        write(&xdg.join("agentgate/config.yaml"));
        assert_eq!(
            d.find().unwrap(),
            ConfigSource::User(xdg.join("agentgate/config.yaml"))
        );
        // A project file in an ancestor wins over the user's.
        write(&root.join("repo/.agentgate/config.yaml"));
        assert_eq!(
            d.find().unwrap(),
            ConfigSource::Project(root.join("repo/.agentgate/config.yaml"))
        );
        write(&root.join("repo/agentgate.yaml"));
        assert_eq!(
            d.find().unwrap(),
            ConfigSource::Project(root.join("repo/agentgate.yaml"))
        );
        // A nearer one wins over a farther one.
        write(&root.join("repo/sub/.agentgate/config.yaml"));
        assert_eq!(
            d.find().unwrap(),
            ConfigSource::Project(root.join("repo/sub/.agentgate/config.yaml"))
        );
        // The Gardener's place, after the others of its folder.
        let sub = root.join("repo/sub/deeper/.gardener/cli_agents.yaml");
        write(&sub);
        assert_eq!(d.find().unwrap(), ConfigSource::Project(sub.clone()));
        write(&root.join("repo/sub/deeper/agentgate.yaml"));
        assert_eq!(
            d.find().unwrap(),
            ConfigSource::Project(root.join("repo/sub/deeper/agentgate.yaml"))
        );
        // GARDENER_CLI_CONFIG over the project's, under AGENTGATE_CONFIG.
        let gardener_file = root.join("gardener.yaml");
        write(&gardener_file);
        d.gardener_env = Some(gardener_file.clone());
        assert_eq!(d.find().unwrap(), ConfigSource::Env(gardener_file));
        // The variable, then the flag.
        let env_file = root.join("env.yaml");
        write(&env_file);
        d.env = Some(env_file.clone());
        assert_eq!(d.find().unwrap(), ConfigSource::Env(env_file));
        let flag_file = root.join("flag.yaml");
        write(&flag_file);
        d.flag = Some(flag_file.clone());
        assert_eq!(d.find().unwrap(), ConfigSource::Flag(flag_file));
    }

    #[test]
    fn a_relative_name_is_made_absolute_against_the_working_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(&root.join("cli_agents.yaml"));
        write(&root.join("conf/env.yaml"));
        let mut d = Discovery {
            cwd: root.to_path_buf(),
            env: Some(PathBuf::from("conf/env.yaml")),
            ..Discovery::default()
        };
        assert_eq!(
            d.find().unwrap(),
            ConfigSource::Env(root.join("conf/env.yaml"))
        );
        d.flag = Some(PathBuf::from("cli_agents.yaml"));
        assert_eq!(
            d.find().unwrap(),
            ConfigSource::Flag(root.join("cli_agents.yaml"))
        );
        // Not found: the message names the path as it was looked for.
        d.flag = Some(PathBuf::from("missing.yaml"));
        let e = d.find().unwrap_err().to_string();
        assert!(
            e.contains(&root.join("missing.yaml").display().to_string()),
            "{e}"
        );
    }

    #[test]
    fn a_named_file_must_exist() {
        let d = Discovery {
            flag: Some(PathBuf::from("/nonexistent/agentgate.yaml")),
            ..Discovery::default()
        };
        let e = d.find().unwrap_err().to_string();
        assert!(e.contains("/nonexistent/agentgate.yaml"), "{e}");
        assert!(e.contains("--config"), "{e}");
        assert!(e.contains("does not exist"), "{e}");
        let d = Discovery {
            env: Some(std::env::temp_dir()),
            ..Discovery::default()
        };
        let e = d.find().unwrap_err().to_string();
        assert!(
            e.contains("AGENTGATE_CONFIG") && e.contains("is not a file"),
            "{e}"
        );
        let d = Discovery {
            gardener_env: Some(PathBuf::from("/nonexistent/cli_agents.yaml")),
            ..Discovery::default()
        };
        let e = d.find().unwrap_err().to_string();
        assert!(
            e.contains("GARDENER_CLI_CONFIG") && e.contains("does not exist"),
            "{e}"
        );
    }
}
