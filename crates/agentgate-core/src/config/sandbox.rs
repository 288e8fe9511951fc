//! `sandbox:`: how agent CLIs are confined (docs/guide/sandbox.md).
//!
//! ```yaml
//! sandbox:
//!   level: workspace            # every run's level (default: off); --sandbox wins
//!   require: workspace          # serve/worker refuse runs that ask for less (422)
//!   env_allow: [CORP_PROXY_CA, "MYTOOL_*"]   # more variables the CLI keeps
//!   hide: [~/.kube, ~/work/secrets]           # more paths hidden from the CLI
//!   read_allow: [/opt/sdk]      # more paths it may read
//!   write_allow: [~/.cache/pip] # more paths it may write
//!   egress_allow: [github.com:443, registry.npmjs.org:443]  # strict: through a CONNECT proxy
//!   container: {engine: podman, image: "localhost/agents:1", args: [--memory, 2g]}
//!   providers:
//!     codex: {level: strict, env_allow: [CODEX_EXTRA]}
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::paths::{resolve_binary, resolve_path};
use super::yaml::{Entries, Fault, Text};
use agentgate_supervise::own_env::OWN_PREFIX;

pub use agentgate_protocol::SandboxLevel;

/// One provider's sandbox settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxProviderSpec {
    /// The provider (a built-in name, or a described CLI's).
    pub provider: String,
    /// Its runs' level (over `sandbox.level`).
    pub level: Option<SandboxLevel>,
    /// More variables its CLI keeps.
    pub env_allow: Vec<String>,
}

/// `sandbox.container`: how `container` runs start the CLI.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerSpec {
    /// `docker`, `podman` or a path to either (or a compatible engine);
    /// `None`: `podman` if on `PATH`, else `docker`.
    pub engine: Option<String>,
    /// The image `run --rm` starts (must hold the CLI); or
    pub image: Option<String>,
    /// a running container to `exec` the CLI in.
    pub name: Option<String>,
    /// More arguments for `run` (or `exec`), before the image.
    pub args: Vec<String>,
}

/// `sandbox:` checked. Paths are absolute (`~` expanded, relative to the
/// config file's folder otherwise).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Every run's level unless a provider's, an agent's, the request's or
    /// `--sandbox` says otherwise; `None` = `off`.
    pub level: Option<SandboxLevel>,
    /// `serve` and `worker` refuse a run whose level does not satisfy this
    /// ([`SandboxLevel::satisfies`]); `agentgate run` too.
    pub require: Option<SandboxLevel>,
    /// More variables every CLI keeps: names, or prefixes ending in `*`.
    pub env_allow: Vec<String>,
    /// More paths hidden from every CLI (besides `~/.ssh`, `~/.aws`, ...).
    pub hide: Vec<PathBuf>,
    /// More paths every CLI may read.
    pub read_allow: Vec<PathBuf>,
    /// More paths every CLI may write.
    pub write_allow: Vec<PathBuf>,
    /// `strict`: the `host:port` destinations reachable through the run's
    /// CONNECT proxy (besides the gateway).
    pub egress_allow: Vec<String>,
    /// `container`: how the CLI is started in a container.
    pub container: Option<ContainerSpec>,
    /// Per provider.
    pub providers: Vec<SandboxProviderSpec>,
}

impl SandboxConfig {
    /// The settings of `provider`, when the section names it.
    pub fn provider(&self, provider: &str) -> Option<&SandboxProviderSpec> {
        self.providers.iter().find(|p| p.provider == provider)
    }
}

/// `sandbox:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSandbox {
    level: Option<Spanned<String>>,
    require: Option<Spanned<String>>,
    #[serde(default)]
    env_allow: Vec<Spanned<String>>,
    #[serde(default)]
    hide: Vec<Spanned<String>>,
    #[serde(default)]
    read_allow: Vec<Spanned<String>>,
    #[serde(default)]
    write_allow: Vec<Spanned<String>>,
    #[serde(default)]
    egress_allow: Vec<Spanned<String>>,
    container: Option<Spanned<RawContainer>>,
    #[serde(default)]
    providers: Entries<RawSandboxProvider>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContainer {
    engine: Option<Spanned<String>>,
    image: Option<Spanned<String>>,
    name: Option<Spanned<String>>,
    #[serde(default)]
    args: Vec<Text>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSandboxProvider {
    level: Option<Spanned<String>>,
    #[serde(default)]
    env_allow: Vec<Spanned<String>>,
}

/// Check `sandbox:`; relative paths are relative to `base`; `provider`
/// turns a provider's name into its canonical one (built in or described
/// in the file), or says why it is unknown.
pub(super) fn convert(
    raw: &RawSandbox,
    base: &Path,
    provider: &dyn Fn(&str) -> Result<String, String>,
) -> Result<SandboxConfig, Fault> {
    let mut spec = SandboxConfig {
        level: raw
            .level
            .as_ref()
            .map(|l| level(l, "sandbox.level"))
            .transpose()?,
        require: raw
            .require
            .as_ref()
            .map(|l| level(l, "sandbox.require"))
            .transpose()?,
        env_allow: env_names(&raw.env_allow, "sandbox.env_allow")?,
        hide: paths(&raw.hide, "hide", base)?,
        read_allow: paths(&raw.read_allow, "read_allow", base)?,
        write_allow: paths(&raw.write_allow, "write_allow", base)?,
        egress_allow: raw
            .egress_allow
            .iter()
            .map(destination)
            .collect::<Result<_, _>>()?,
        container: raw
            .container
            .as_ref()
            .map(|c| container(c, base))
            .transpose()?,
        providers: Vec::new(),
    };
    for (name, p) in &raw.providers.0 {
        let canonical = provider(name.value.trim())
            .map_err(|m| Fault::at(name, format!("sandbox.providers: {m}")))?;
        if spec.providers.iter().any(|s| s.provider == canonical) {
            return Err(Fault::at(
                name,
                format!("sandbox.providers: `{canonical}` is given twice"),
            ));
        }
        let key = |k: &str| format!("sandbox.providers.{canonical}.{k}");
        let one = SandboxProviderSpec {
            level: p
                .level
                .as_ref()
                .map(|l| level(l, &key("level")))
                .transpose()?,
            env_allow: env_names(&p.env_allow, &key("env_allow"))?,
            provider: canonical.clone(),
        };
        if one.level == Some(SandboxLevel::Container) && spec.container.is_none() {
            return Err(no_container(p.level.as_ref(), &key("level")));
        }
        spec.providers.push(one);
    }
    if spec.level == Some(SandboxLevel::Container) && spec.container.is_none() {
        return Err(no_container(raw.level.as_ref(), "sandbox.level"));
    }
    Ok(spec)
}

/// A level that names `container` without `sandbox.container`.
fn no_container(at: Option<&Spanned<String>>, key: &str) -> Fault {
    let message = format!(
        "{key}: `container` needs `sandbox.container` (the engine and the image to run, or a running container's name)"
    );
    match at {
        Some(at) => Fault::at(at, message),
        None => Fault::new(None, message),
    }
}

/// A level's name.
pub(super) fn level(value: &Spanned<String>, key: &str) -> Result<SandboxLevel, Fault> {
    value
        .value
        .trim()
        .parse()
        .map_err(|e| Fault::at(value, format!("{key}: {e}")))
}

/// `env_allow`: variable names (letters, digits and `_`, not starting
/// with a digit), or a prefix of one followed by `*`; never agentgate's
/// own variables.
fn env_names(list: &[Spanned<String>], key: &str) -> Result<Vec<String>, Fault> {
    let mut out: Vec<String> = Vec::new();
    for entry in list {
        let v = entry.value.trim();
        let (name, prefix) = match v.strip_suffix('*') {
            Some(p) => (p, true),
            None => (v, false),
        };
        let valid = name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if name.is_empty() || !valid {
            return Err(Fault::at(
                entry,
                format!(
                    "{key}: `{v}` is not a variable name or a prefix of one (letters, digits and `_`, not starting with a digit; `NAME_*` for a prefix)"
                ),
            ));
        }
        let own = if prefix {
            OWN_PREFIX.starts_with(name) || name.starts_with(OWN_PREFIX)
        } else {
            name.starts_with(OWN_PREFIX)
        };
        if own {
            return Err(Fault::at(
                entry,
                format!(
                    "{key}: `{v}` would let agentgate's own variables ({OWN_PREFIX}*) through: they never reach an agent's CLI"
                ),
            ));
        }
        if !out.iter().any(|o| o == v) {
            out.push(v.to_owned());
        }
    }
    Ok(out)
}

/// A list of paths: `~` is the home folder, a relative path is relative
/// to the config file's folder.
fn paths(list: &[Spanned<String>], key: &str, base: &Path) -> Result<Vec<PathBuf>, Fault> {
    list.iter()
        .map(|p| {
            let v = p.value.trim();
            if v.is_empty() {
                return Err(Fault::at(p, format!("sandbox.{key}: a path is empty")));
            }
            if v == "~" {
                return std::env::var_os("HOME").map(PathBuf::from).ok_or_else(|| {
                    Fault::at(p, format!("sandbox.{key}: `~` and HOME is not set"))
                });
            }
            if v.starts_with('~') && !v.starts_with("~/") {
                return Err(Fault::at(
                    p,
                    format!(
                        "sandbox.{key}: `{v}`: only `~` and `~/...` (this user's home) are expanded"
                    ),
                ));
            }
            Ok(resolve_path(v, base))
        })
        .collect()
}

/// An `egress_allow` entry: `host:port`, the host a name (`*.` in front
/// for its subdomains), an IPv4 address or `[IPv6]`; kept in lower case.
fn destination(entry: &Spanned<String>) -> Result<String, Fault> {
    let v = entry.value.trim();
    let bad = |why: &str| {
        Fault::at(
            entry,
            format!(
                "sandbox.egress_allow: `{v}` {why} (give host:port, e.g. github.com:443 or *.example.com:443)"
            ),
        )
    };
    let Some((host, port)) = v.rsplit_once(':') else {
        return Err(bad("has no port"));
    };
    match port.parse::<u16>() {
        Ok(p) if p > 0 => {}
        _ => return Err(bad(&format!("has the port `{port}`, not 1 to 65535"))),
    }
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        if inner.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(bad("is not an IPv6 address in brackets"));
        }
        return Ok(v.to_ascii_lowercase());
    }
    let name = host.strip_prefix("*.").unwrap_or(host);
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if name.is_empty() || name.len() > 253 || !name.split('.').all(label_ok) {
        return Err(bad(if host.contains('*') && !host.starts_with("*.") {
            "has a `*` that is not a leading `*.`"
        } else {
            "has no valid host name"
        }));
    }
    Ok(v.to_ascii_lowercase())
}

/// `sandbox.container`: an engine (optional), exactly one of `image` and
/// `name`, arguments.
fn container(raw: &Spanned<RawContainer>, base: &Path) -> Result<ContainerSpec, Fault> {
    let c = &raw.value;
    let text = |s: &Option<Spanned<String>>, key: &str| -> Result<Option<String>, Fault> {
        match s {
            Some(s) if s.value.trim().is_empty() => Err(Fault::at(
                s,
                format!("sandbox.container.{key}: it is empty"),
            )),
            Some(s) => Ok(Some(s.value.trim().to_owned())),
            None => Ok(None),
        }
    };
    let spec = ContainerSpec {
        engine: text(&c.engine, "engine")?.map(|e| resolve_binary(&e, base)),
        image: text(&c.image, "image")?,
        name: text(&c.name, "name")?,
        args: c.args.iter().map(|a| a.0.clone()).collect(),
    };
    if spec.image.is_some() == spec.name.is_some() {
        return Err(Fault::at(
            raw,
            "sandbox.container: give exactly one of `image` (a container started for each run, `run --rm`) and `name` (a running container the CLI is started in, `exec`)",
        ));
    }
    Ok(spec)
}
