use serde_json::json;

use super::*;
use crate::{codex, cursor, opencode};

fn ids(entries: &[CatalogEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.id.as_str()).collect()
}

#[test]
fn opencode_models_keeps_the_ids_and_skips_the_rest() {
    let out = "\u{1b}[2mfetching\u{1b}[0m\nfake/fake-model\nfake/gpt-5.1\n\nopencode/big-pickle\nopenai/gpt-5.1\nsome notice text\nfake/gpt-5.1\n";
    let e = opencode::parse_models(out);
    assert_eq!(
        ids(&e),
        [
            "fake/fake-model",
            "fake/gpt-5.1",
            "opencode/big-pickle",
            "openai/gpt-5.1"
        ]
    );
    assert!(e.iter().all(|e| !e.default && e.efforts.is_empty()));
}

#[test]
fn cursor_models_reads_ids_names_and_marks() {
    // As the third-party pages show it: a heading, `id - Name` lines,
    // marks, colour, a tip.
    let out = "\u{1b}[1mAvailable models\u{1b}[0m\n\nauto - Auto\ncomposer-1 - Composer 1  (current)\ngpt-5.5-high - GPT-5.5 High (default)\nsonnet-4.5-thinking - Claude 4.5 Sonnet (Thinking)\n\nTip: use --model <id> to switch.\n";
    let e = cursor::parse_models(out);
    assert_eq!(
        ids(&e),
        ["auto", "composer-1", "gpt-5.5-high", "sonnet-4.5-thinking"]
    );
    assert_eq!(e[1].display_name.as_deref(), Some("Composer 1"));
    assert!(!e[1].default);
    assert!(e[2].default);
    assert_eq!(e[2].display_name.as_deref(), Some("GPT-5.5 High"));
    assert_eq!(
        e[3].display_name.as_deref(),
        Some("Claude 4.5 Sonnet (Thinking)")
    );
}

#[test]
fn cursor_models_reads_bare_ids_too() {
    let e = cursor::parse_models("Models:\n  gpt-5\n  claude-4-sonnet\n");
    assert_eq!(ids(&e), ["gpt-5", "claude-4-sonnet"]);
}

#[test]
fn a_codex_model_list_page_becomes_entries_and_a_cursor() {
    let page = json!({"data": [
        {"id": "gpt-6.2-sol", "model": "gpt-6.2-sol", "displayName": "GPT-6.2 Sol", "hidden": false, "isDefault": true,
         "defaultReasoningEffort": "medium",
         "supportedReasoningEfforts": [{"reasoningEffort": "low", "description": "l"}, {"reasoningEffort": "medium", "description": "m"}, {"reasoningEffort": "ultra", "description": "u"}]},
        {"id": "gpt-5.5", "displayName": "GPT-5.5", "hidden": true, "isDefault": false,
         "supportedReasoningEfforts": [{"reasoningEffort": "low"}, {"reasoningEffort": "xhigh"}]},
        {"displayName": "no id"}
    ], "nextCursor": "abc"});
    let (e, next) = codex::catalog_page(&page);
    assert_eq!(next.as_deref(), Some("abc"));
    assert_eq!(ids(&e), ["gpt-6.2-sol", "gpt-5.5"]);
    assert!(e[0].default && !e[0].hidden);
    assert_eq!(e[0].efforts, ["low", "medium", "ultra"]);
    assert_eq!(e[0].default_effort.as_deref(), Some("medium"));
    assert!(e[1].hidden && !e[1].default);
    assert_eq!(e[1].efforts, ["low", "xhigh"]);
    let (_, last) = codex::catalog_page(&json!({"data": [], "nextCursor": null}));
    assert_eq!(last, None);
}

fn catalog() -> Vec<CatalogEntry> {
    let mut sonnet = CatalogEntry::new("claude-sonnet-5-5");
    sonnet.aliases = vec!["sonnet".into()];
    vec![
        CatalogEntry::new("openai/gpt-5.1"),
        CatalogEntry::new("fake/fake-model"),
        CatalogEntry::new("fake/gpt-5.2"),
        CatalogEntry::new("openai/gpt-5.2"),
        sonnet,
    ]
}

#[test]
fn lookup_takes_an_exact_id_an_alias_or_a_unique_tail() {
    let c = catalog();
    assert_eq!(lookup(&c, "fake/fake-model"), Lookup::Exact(&c[1]));
    assert_eq!(lookup(&c, "sonnet"), Lookup::Alias(&c[4]));
    assert_eq!(lookup(&c, "gpt-5.1"), Lookup::Tail(&c[0]));
    assert_eq!(
        lookup(&c, "gpt-5.2"),
        Lookup::Ambiguous(vec!["fake/gpt-5.2", "openai/gpt-5.2"])
    );
    assert_eq!(lookup(&c, "gpt-9"), Lookup::Absent);
    // A tail is the part after the last `/`, not any suffix.
    assert_eq!(lookup(&c, "5.1"), Lookup::Absent);
    assert_eq!(
        entry_for(&c, "gpt-5.1").map(|e| e.id.as_str()),
        Some("openai/gpt-5.1")
    );
    assert_eq!(entry_for(&c, "gpt-5.2"), None);
}

#[test]
fn static_tables_have_one_default_and_unique_names() {
    for p in crate::builtins() {
        let Some(CatalogSource::Static(table)) = p.catalog() else {
            continue;
        };
        let entries = static_entries(table);
        assert_eq!(
            entries.iter().filter(|e| e.default).count(),
            1,
            "{}",
            p.name()
        );
        let mut names: Vec<&str> = entries
            .iter()
            .flat_map(|e| {
                std::iter::once(e.id.as_str()).chain(e.aliases.iter().map(String::as_str))
            })
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "{}: a name twice", p.name());
    }
}

#[test]
fn strip_ansi_removes_csi_and_osc() {
    assert_eq!(
        strip_ansi("\u{1b}[1;32mgo\u{1b}[0m \u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{1b}\\"),
        "go link"
    );
}
