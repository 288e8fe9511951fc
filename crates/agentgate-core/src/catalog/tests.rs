use std::time::Duration;

use agentgate_providers::catalog::{CatalogEntry, CatalogSource};

use super::cache::{self, CachedCatalog};
use super::check::{CatalogCheck, check_model};
use super::fresh;
use crate::config::{ModelChoice, ModelSource, ModelValidation};

fn opencode_like() -> Option<(CatalogSource, Vec<CatalogEntry>)> {
    let mut default = CatalogEntry::new("fake/fake-model");
    default.default = true;
    Some((
        CatalogSource::CodexAppServer,
        vec![
            default,
            CatalogEntry::new("fake/gpt-5.1"),
            CatalogEntry::new("fake/gpt-5.2"),
            CatalogEntry::new("openai/gpt-5.2"),
        ],
    ))
}

fn asked(model: &str, source: ModelSource) -> ModelChoice {
    ModelChoice {
        model: Some(model.to_owned()),
        source,
        resolution: None,
    }
}

#[test]
fn an_exact_id_passes_unchanged() {
    let c = asked("fake/gpt-5.1", ModelSource::Flag);
    assert_eq!(
        check_model(
            "opencode",
            opencode_like(),
            ModelValidation::Strict,
            c.clone()
        ),
        Ok(c)
    );
}

#[test]
fn a_unique_tail_is_normalised_and_said() {
    let got = check_model(
        "opencode",
        opencode_like(),
        ModelValidation::Warn,
        asked("gpt-5.1", ModelSource::Flag),
    )
    .unwrap();
    assert_eq!(got.model.as_deref(), Some("fake/gpt-5.1"));
    assert_eq!(got.source, ModelSource::Catalog);
    assert_eq!(
        got.resolution.as_deref(),
        Some("opencode model 'gpt-5.1' -> 'fake/gpt-5.1' (catalog)")
    );
}

#[test]
fn an_ambiguous_tail_is_refused_with_the_candidates() {
    let got = check_model(
        "opencode",
        opencode_like(),
        ModelValidation::Warn,
        asked("gpt-5.2", ModelSource::Agent),
    );
    assert_eq!(
        got,
        Err(CatalogCheck::Ambiguous {
            model: "gpt-5.2".into(),
            candidates: vec!["fake/gpt-5.2".into(), "openai/gpt-5.2".into()],
        })
    );
}

#[test]
fn an_absent_model_is_refused_when_strict_and_noted_when_warn() {
    let strict = check_model(
        "opencode",
        opencode_like(),
        ModelValidation::Strict,
        asked("nope", ModelSource::Flag),
    );
    assert_eq!(
        strict,
        Err(CatalogCheck::Absent {
            model: "nope".into()
        })
    );
    let warn = check_model(
        "opencode",
        opencode_like(),
        ModelValidation::Warn,
        asked("nope", ModelSource::Flag),
    )
    .unwrap();
    assert_eq!(warn.model.as_deref(), Some("nope"));
    assert!(
        warn.resolution.unwrap().contains("not in its catalog"),
        "warn says so"
    );
    let off = check_model(
        "opencode",
        opencode_like(),
        ModelValidation::Off,
        asked("gpt-5.2", ModelSource::Flag),
    );
    assert_eq!(off, Ok(asked("gpt-5.2", ModelSource::Flag)));
}

#[test]
fn a_stale_default_falls_back_to_the_catalog_default() {
    let choice = ModelChoice {
        model: Some("gone-model".into()),
        source: ModelSource::ProviderDefault,
        resolution: Some("codex model (none requested) -> 'gone-model' (default_model)".into()),
    };
    let got = check_model("codex", opencode_like(), ModelValidation::Strict, choice).unwrap();
    assert_eq!(got.model.as_deref(), Some("fake/fake-model"));
    assert_eq!(got.source, ModelSource::CatalogDefault);
    let said = got.resolution.unwrap();
    assert!(
        said.starts_with("codex model (none requested) -> 'gone-model' (default_model); "),
        "{said}"
    );
    assert!(
        said.ends_with("(stale default -> catalog default)"),
        "{said}"
    );
}

#[test]
fn a_bundled_table_is_not_authoritative() {
    let table = Some((
        CatalogSource::Static(&[]),
        vec![CatalogEntry::new("gemini-2.5-pro")],
    ));
    let c = asked("fake-model", ModelSource::Flag);
    assert_eq!(
        check_model("gemini", table, ModelValidation::Strict, c.clone()),
        Ok(c)
    );
}

#[test]
fn no_catalog_or_no_model_changes_nothing() {
    let c = asked("x", ModelSource::Flag);
    assert_eq!(
        check_model("codex", None, ModelValidation::Strict, c.clone()),
        Ok(c)
    );
    let none = ModelChoice {
        model: None,
        source: ModelSource::CliDefault,
        resolution: None,
    };
    assert_eq!(
        check_model(
            "codex",
            opencode_like(),
            ModelValidation::Strict,
            none.clone()
        ),
        Ok(none)
    );
}

fn cached(fetched_at: &str) -> CachedCatalog {
    CachedCatalog {
        provider: "opencode".into(),
        source: "cli".into(),
        fetched_at: Some(fetched_at.into()),
        binary: Some("/bin/opencode".into()),
        binary_mtime: Some(7),
        stale: false,
        error: None,
        models: vec![CatalogEntry::new("fake/fake-model")],
    }
}

#[test]
fn the_cache_round_trips_privately() {
    let dir = tempfile::tempdir().unwrap();
    let catalogs = dir.path().join("catalogs");
    let c = cached("2026-01-01T00:00:00Z");
    cache::write(&catalogs, &c).unwrap();
    assert_eq!(cache::read(&catalogs, "opencode"), Some(c));
    assert_eq!(cache::read(&catalogs, "codex"), None);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&catalogs), 0o700);
        assert_eq!(mode(&catalogs.join("opencode.json")), 0o600);
    }
    std::fs::write(catalogs.join("codex.json"), "{not json").unwrap();
    assert_eq!(cache::read(&catalogs, "codex"), None, "unreadable = absent");
}

#[test]
fn a_cached_copy_is_fresh_only_while_young_and_from_the_same_binary() {
    let now = jiff::Timestamp::now().to_string();
    let hour = Duration::from_secs(3600);
    let c = cached(&now);
    assert!(fresh(&c, hour, Some("/bin/opencode"), Some(7)));
    assert!(!fresh(&c, hour, Some("/bin/opencode"), Some(8)), "upgraded");
    assert!(
        !fresh(&c, hour, Some("/other/opencode"), Some(7)),
        "other binary"
    );
    assert!(!fresh(
        &cached("2020-01-01T00:00:00Z"),
        hour,
        Some("/bin/opencode"),
        Some(7)
    ));
    let stale = CachedCatalog {
        stale: true,
        ..cached(&now)
    };
    assert!(!fresh(&stale, hour, Some("/bin/opencode"), Some(7)));
}
