//! `tools:`: where agentgate finds the deterministic tools agents call.
//!
//! ```yaml
//! tools:
//!   registry: tools/registry        # else tools/registry found upwards from the working directory
//!   policy: policy/tools.yaml       # else <registry>/policy.yaml, else the default policy
//!   define:                         # tools written here rather than in the registry
//!     fmt:
//!       version: 1.0.0
//!       dir: scripts                # the tool's folder (relative to this file's folder)
//!       entry: fmt.sh               # relative to dir
//! ```
//!
//! This crate checks the paths and the names; each entry of `define:` is a
//! manifest, read strictly by `agentgate-tools` from this same file (it
//! owns the manifest format). Paths are relative to the config file's
//! folder.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;

use super::paths::resolve_path;
use super::yaml::{Entries, Fault};

/// The `tools:` section, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolsSpec {
    /// `tools.registry`: the registry folder (absolute, or relative to the
    /// working directory when the config came from no file).
    pub registry: Option<PathBuf>,
    /// `tools.policy`: the org policy file.
    pub policy: Option<PathBuf>,
    /// The names under `tools.define`, in file order, with the line of each.
    pub define: Vec<(String, u64)>,
    /// The line where the section's content starts (its first key);
    /// `None` when the file has no `tools:` section.
    pub line: Option<u64>,
}

/// `tools:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTools {
    registry: Option<Spanned<String>>,
    policy: Option<Spanned<String>>,
    #[serde(default)]
    define: Entries<IgnoredAny>,
}

/// Check `tools:` (whose content starts on `line`); relative paths are relative to `base`.
pub(super) fn convert(raw: &RawTools, line: u64, base: &Path) -> Result<ToolsSpec, Fault> {
    let path = |v: &Spanned<String>, key: &str| {
        if v.value.trim().is_empty() {
            Err(Fault::at(v, format!("tools.{key}: the path is empty")))
        } else {
            Ok(resolve_path(&v.value, base))
        }
    };
    let mut spec = ToolsSpec {
        registry: raw
            .registry
            .as_ref()
            .map(|v| path(v, "registry"))
            .transpose()?,
        policy: raw.policy.as_ref().map(|v| path(v, "policy")).transpose()?,
        define: Vec::new(),
        line: Some(line),
    };
    for (name, _) in &raw.define.0 {
        if let Some((_, first)) = spec.define.iter().find(|(n, _)| *n == name.value) {
            return Err(Fault::at(
                name,
                format!(
                    "tools.define: `{}` is defined twice (first on line {first})",
                    name.value
                ),
            ));
        }
        spec.define
            .push((name.value.clone(), name.referenced.line()));
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{invalid, parse};
    use std::path::PathBuf;

    #[test]
    fn the_tools_section_gives_paths_relative_to_the_file_and_the_defined_names() {
        let cfg = parse(
            "version: 1\ntools:\n  registry: reg\n  policy: /etc/policy.yaml\n  define:\n    a: {version: '1', entry: a.sh}\n    b: {}\n",
        )
        .unwrap();
        let t = &cfg.tools;
        assert_eq!(t.line, Some(3));
        let registry = t.registry.clone().unwrap();
        assert!(
            registry.ends_with("reg") && registry.is_absolute(),
            "{registry:?}"
        );
        assert_eq!(t.policy, Some(PathBuf::from("/etc/policy.yaml")));
        assert_eq!(t.define, vec![("a".to_owned(), 6), ("b".to_owned(), 7)]);
        assert_eq!(
            parse("version: 1\n").unwrap().tools,
            super::ToolsSpec::default()
        );
    }

    #[test]
    fn bad_tools_sections_are_refused_with_their_line() {
        let (line, message) = invalid("version: 1\ntools:\n  registery: x\n");
        assert_eq!(line, Some(3), "{message}");
        assert!(message.contains("registery"), "{message}");
        let (line, message) = invalid("version: 1\ntools:\n  policy: ''\n");
        assert_eq!(line, Some(3), "{message}");
        assert!(
            message.contains("tools.policy: the path is empty"),
            "{message}"
        );
        let (line, message) = invalid("version: 1\ntools:\n  define:\n    a: {}\n    a: {}\n");
        assert!(line.is_some(), "{message}");
        assert!(message.contains('a'), "{message}");
    }
}
