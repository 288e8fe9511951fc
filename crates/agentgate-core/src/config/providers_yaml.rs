//! The `providers.yaml` users migrate from: no `version:`, per provider
//! `models:` (alias -> model id) and `default_model:`, either under
//! `providers:` or at the top level.
//!
//! ```yaml
//! providers:
//!   claude:
//!     default_model: sonnet
//!     models: {sonnet: claude-sonnet-4-5, opus: claude-opus-4-1}
//! ```
//!
//! Entries take the same default keys as a native config's built-in
//! providers (strictly: an unknown key is an error).

use std::path::Path;

use serde::Deserialize;

use super::custom::RawProvider;
use super::defaults;
use super::parsed::{Parsed, defaults_keys};
use super::yaml::{Entries, Fault, from_str};
use agentgate_providers::{builtin_names, description};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wrapped {
    providers: Entries<RawProvider>,
}

pub(super) fn parse(text: &str, base: &Path) -> Result<Parsed, Fault> {
    let top: Entries<serde::de::IgnoredAny> = from_str(text)?;
    let entries = if top.0.iter().any(|(k, _)| k.value == "providers") {
        from_str::<Wrapped>(text)?.providers
    } else {
        from_str::<Entries<RawProvider>>(text)?
    };
    if entries.0.is_empty() {
        return Err(Fault::new(None, "it lists no providers"));
    }
    let mut out = Parsed::default();
    for (name, p) in &entries.0 {
        if let Some((key, at)) = p.description_key() {
            return Err(Fault::new(
                Some(at),
                format!(
                    "provider `{}`: `{key}` belongs to a native config's described CLIs; a providers.yaml entry takes {}",
                    name.value,
                    defaults_keys()
                ),
            ));
        }
        let (provider, builtin) = match description(&name.value) {
            Some(kind) => (kind.name.to_owned(), true),
            None => {
                out.warnings.push(format!(
                    "line {}: `{}` is not a built-in provider ({}); its models are kept, but only a native config can describe how to run it",
                    name.referenced.line(),
                    name.value,
                    builtin_names()
                ));
                (name.value.clone(), false)
            }
        };
        if out.defaults.iter().any(|d| d.provider == provider) {
            return Err(Fault::at(
                name,
                format!("provider `{provider}` is given twice"),
            ));
        }
        let mut d = defaults::convert(name, &provider, true, p, base)?;
        d.builtin = builtin;
        out.defaults.push(d);
    }
    Ok(out)
}
