//! The shell wrappers' tool-name patterns: a tool's class from the words of
//! its name.
//!
//! The wrappers matched regexes over the lowercased name, in the order
//! write, read, browser, web, shell. Substrings misfire on real names
//! (`ls` in `tools`, `cat` in `locate`, `dom` in `random`), so a name is
//! cut into words first (at `_`, `-`, `.`, any other non-alphanumeric
//! character, and camel-case humps: `getFileContents` is `get file
//! contents`) and a pattern matches whole words, a trailing plural `s`
//! allowed (`list_files`, `pages`). Browser and web come before read here,
//! so `brave_web_search` is web, not read through `search`.

use agentgate_protocol::ToolClass;

/// The patterns, in the order they are tried. A pattern of several words
/// (`apply_patch`) matches those words in a row.
const PATTERNS: &[(ToolClass, &[&str])] = &[
    (
        ToolClass::Write,
        &[
            "apply_patch",
            "write",
            "edit",
            "multi_edit",
            "replace",
            "create",
            "delete",
            "remove",
            "move",
            "rename",
            "insert",
        ],
    ),
    (
        ToolClass::Browser,
        &[
            "browser",
            "playwright",
            "screenshot",
            "page",
            "dom",
            "axe",
            "lighthouse",
        ],
    ),
    (
        ToolClass::Web,
        &["web", "fetch", "http", "url", "search_query"],
    ),
    (
        ToolClass::Read,
        &[
            "read", "cat", "open", "view", "list", "ls", "find", "grep", "rg", "search",
        ],
    ),
    (
        ToolClass::Shell,
        &["exec", "bash", "shell", "command", "terminal"],
    ),
];

/// The class of a tool named `name` by the wrappers' word patterns;
/// [`ToolClass::Other`] when no pattern matches.
pub(super) fn class_by_words(name: &str) -> ToolClass {
    let words = split_words(name);
    PATTERNS
        .iter()
        .find(|(_, patterns)| patterns.iter().any(|p| matches_words(&words, p)))
        .map_or(ToolClass::Other, |(class, _)| *class)
}

/// Whether the words of `pattern` (split at `_`) occur in a row in `words`,
/// the last allowing a plural `s`.
fn matches_words(words: &[String], pattern: &str) -> bool {
    let wanted: Vec<&str> = pattern.split('_').collect();
    if wanted.is_empty() || words.len() < wanted.len() {
        return false;
    }
    words.windows(wanted.len()).any(|window| {
        window
            .iter()
            .zip(&wanted)
            .enumerate()
            .all(|(i, (w, p))| w == p || (i + 1 == wanted.len() && w.strip_suffix('s') == Some(p)))
    })
}

/// The lowercased words of `name`: cut at every character that is not an
/// ASCII letter or digit, and where a lowercase letter or digit is followed
/// by an uppercase one.
fn split_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        word.push(c.to_ascii_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_into_words() {
        assert_eq!(split_words("getFileContents"), ["get", "file", "contents"]);
        assert_eq!(split_words("create_issue"), ["create", "issue"]);
        assert_eq!(
            split_words("take-screenshot.v2"),
            ["take", "screenshot", "v2"]
        );
        assert_eq!(split_words("HTTPRequest"), ["httprequest"]);
        assert!(split_words("__").is_empty());
    }

    #[test]
    fn the_wrappers_table_by_whole_words() {
        let table = [
            ("apply_patch", ToolClass::Write),
            ("create_issue", ToolClass::Write),
            ("delete_branch", ToolClass::Write),
            ("moveFile", ToolClass::Write),
            ("rename_symbol", ToolClass::Write),
            ("insert_rows", ToolClass::Write),
            ("list_issues", ToolClass::Read),
            ("read_query", ToolClass::Read),
            ("search_code", ToolClass::Read),
            ("find_references", ToolClass::Read),
            ("open_file", ToolClass::Read),
            ("browser_navigate", ToolClass::Browser),
            ("take_screenshot", ToolClass::Browser),
            ("list_pages", ToolClass::Browser),
            ("brave_web_search", ToolClass::Web),
            ("fetch", ToolClass::Web),
            ("search_query", ToolClass::Web),
            ("http_get", ToolClass::Web),
            ("run_command", ToolClass::Shell),
            ("exec", ToolClass::Shell),
            ("terminal_send", ToolClass::Shell),
            ("get_me", ToolClass::Other),
        ];
        for (name, class) in table {
            assert_eq!(class_by_words(name), class, "{name}");
        }
    }

    #[test]
    fn pattern_words_inside_other_words_do_not_count() {
        // `ls` in `tools`, `cat` in `locate`, `dom` in `random`, `rg` in
        // `merge`, `open` in `openai`, `url` in `curly`: no match.
        for name in [
            "get_tools",
            "locate",
            "random_number",
            "merger",
            "openai_chat",
            "curly",
        ] {
            assert_eq!(class_by_words(name), ToolClass::Other, "{name}");
        }
    }
}
