//! The documentation's links hold: every relative link of README.md,
//! AGENTS.md, each crate's README.md and every page of the book (`docs/`)
//! names a file that exists, every `#anchor` (on the same page or another
//! Markdown page) names a heading of that page, and every page of the book
//! is listed in `docs/SUMMARY.md`. Anchors are computed as mdBook makes
//! them (lowercase, whitespace to `-`, other punctuation than `-` and `_`
//! dropped, a repeated heading numbered `-1`, `-2`, ...). Links to other
//! sites (`http:`, `https:`, `mailto:`) are not fetched, except links to
//! the project's own files on its repository (`<repository>/blob/main/<path>`
//! or `/tree/main/<path>`, the `repository` of the workspace's Cargo.toml),
//! which must name a file or folder of this tree. A book page links
//! relatively only inside the book (the built site has nothing else); a file
//! outside `docs/` is linked on the repository. Text inside code (fenced
//! blocks and `inline code`) is not a link.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use super::support::workspace_root;

#[test]
fn every_relative_link_and_anchor_of_the_docs_resolves() {
    let root = workspace_root();
    let pages = documentation_pages(&root);
    assert!(
        pages.iter().any(|p| p.ends_with("docs/SUMMARY.md")),
        "no docs/SUMMARY.md among {pages:?}"
    );
    let mut anchors: HashMap<PathBuf, BTreeSet<String>> = HashMap::new();
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for link in links(&text) {
            if let Some(problem) = check_link(&root, page, &link, &mut anchors) {
                broken.push(format!(
                    "{}: ({link}) {problem}",
                    page.strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "broken links in the documentation:\n{}",
        broken.join("\n")
    );
}

#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let root = workspace_root();
    let docs = root.join("docs");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = links(&summary)
        .iter()
        .map(|link| normalise(&docs.join(link.split('#').next().unwrap_or(""))))
        .collect();
    let missing: Vec<String> = markdown_files(&docs)
        .into_iter()
        .filter(|page| !page.ends_with("docs/SUMMARY.md") && !listed.contains(page))
        .map(|page| page.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "pages of docs/ that docs/SUMMARY.md does not list: {missing:?}"
    );
}

/// The checker itself: it finds a missing file, a missing anchor and a
/// link hidden in code, and computes mdBook's anchors.
#[test]
fn the_link_checker_sees_what_is_broken() {
    assert_eq!(
        slug("Failover: chains of agents"),
        "failover-chains-of-agents"
    );
    assert_eq!(slug("`agentgate run`"), "agentgate-run");
    assert_eq!(
        slug("Clients: `agentgate submit`, `cancel`, `tail`"),
        "clients-agentgate-submit-cancel-tail"
    );
    assert_eq!(slug("The queue's throughput"), "the-queues-throughput");
    assert_eq!(
        slug("Adding a [provider](x.md) my_way"),
        "adding-a-provider-my_way"
    );
    let text = "# Top\n\n## Top\n\nSee [a](#top-1), [b](other.md#x), \
                `[c](nowhere.md)`, ![d](img.png \"title\").\n\n```\n[e](in-code.md)\n```\n";
    assert_eq!(
        links(text),
        ["#top-1", "other.md#x", "img.png"],
        "links outside code"
    );
    assert_eq!(
        headings_anchors(text),
        BTreeSet::from(["top".to_owned(), "top-1".to_owned()])
    );

    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    std::fs::write(&page, text).unwrap();
    std::fs::write(dir.path().join("other.md"), "# Y\n").unwrap();
    let mut anchors = HashMap::new();
    assert_eq!(check_link(dir.path(), &page, "#top-1", &mut anchors), None);
    assert_eq!(
        check_link(dir.path(), &page, "#top-2", &mut anchors).as_deref(),
        Some("no heading of page.md has the anchor #top-2")
    );
    assert_eq!(
        check_link(dir.path(), &page, "other.md#x", &mut anchors).as_deref(),
        Some("no heading of other.md has the anchor #x")
    );
    assert_eq!(
        check_link(dir.path(), &page, "other.md#y", &mut anchors),
        None
    );
    assert_eq!(
        check_link(dir.path(), &page, "gone.md", &mut anchors).as_deref(),
        Some("gone.md does not exist")
    );
    assert_eq!(
        check_link(dir.path(), &page, "https://example.com/gone", &mut anchors),
        None
    );

    // The project's own files on its repository are checked; a book page
    // may not link relatively out of the book.
    let root = workspace_root();
    let book_page = root.join("docs/guide/library.md");
    let on_repository =
        |path: &str| format!("https://github.com/agentgate/agentgate/blob/main/{path}");
    assert_eq!(
        check_link(&root, &book_page, &on_repository("AGENTS.md"), &mut anchors),
        None
    );
    assert_eq!(
        check_link(&root, &book_page, &on_repository("GONE.md"), &mut anchors).as_deref(),
        Some("GONE.md is not a file of this tree")
    );
    assert_eq!(
        check_link(&root, &book_page, "../../AGENTS.md", &mut anchors).as_deref(),
        Some(
            "AGENTS.md is outside the book, which the built site does not hold: link it on the repository"
        )
    );
    assert_eq!(
        check_link(&root, &root.join("README.md"), "AGENTS.md", &mut anchors),
        None
    );
}

/// README.md, AGENTS.md, `crates/*/README.md` and every `docs/**/*.md`.
fn documentation_pages(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![root.join("README.md"), root.join("AGENTS.md")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("README.md"))
        .filter(|readme| readme.is_file())
        .collect();
    crates.sort();
    pages.extend(crates);
    pages.extend(markdown_files(&root.join("docs")));
    pages
}

/// Every `.md` file under `dir`, sorted.
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(normalise(&path));
            }
        }
    }
    found.sort();
    found
}

/// Why `link`, found on `page`, does not resolve (None: it does).
fn check_link(
    root: &Path,
    page: &Path,
    link: &str,
    anchors: &mut HashMap<PathBuf, BTreeSet<String>>,
) -> Option<String> {
    if let Some(file) = repository_file(root, link) {
        let target = normalise(&root.join(file.split('#').next().unwrap_or("")));
        return (!target.exists()).then(|| format!("{file} is not a file of this tree"));
    }
    if is_external(link) {
        return None;
    }
    let (path, anchor) = match link.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (link, None),
    };
    let target = if path.is_empty() {
        page.to_path_buf()
    } else {
        normalise(&page.parent().unwrap().join(path))
    };
    let shown = target
        .strip_prefix(root)
        .unwrap_or(&target)
        .display()
        .to_string();
    if !target.exists() {
        return Some(format!("{shown} does not exist"));
    }
    let book = root.join("docs");
    if page.starts_with(&book) && !target.starts_with(&book) {
        return Some(format!(
            "{shown} is outside the book, which the built site does not hold: link it on the repository"
        ));
    }
    let anchor = anchor?;
    if target.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let known = anchors
        .entry(target.clone())
        .or_insert_with(|| headings_anchors(&std::fs::read_to_string(&target).unwrap_or_default()));
    if known.contains(anchor) {
        None
    } else {
        Some(format!("no heading of {shown} has the anchor #{anchor}"))
    }
}

/// The path in this tree that `link` names on the project's repository
/// (`<repository>/blob/main/<path>` or `<repository>/tree/main/<path>`).
fn repository_file<'a>(root: &Path, link: &'a str) -> Option<&'a str> {
    // A folder without a manifest (the checker's own test) has no repository.
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).ok()?;
    let repository = manifest
        .lines()
        .find_map(|line| line.strip_prefix("repository = "))
        .map(|value| value.trim().trim_matches('"'))?;
    let rest = link.strip_prefix(repository)?;
    ["/blob/main/", "/tree/main/"]
        .iter()
        .find_map(|kind| rest.strip_prefix(kind))
}

fn is_external(link: &str) -> bool {
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| link.starts_with(scheme))
}

/// `a/./b/../c` as `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The lines of `text` outside fenced code blocks.
fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut fence: Option<&str> = None;
    text.lines().filter(move |line| {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                false
            }
            (Some(open), Some(m)) if open == m => {
                fence = None;
                false
            }
            (Some(_), _) => false,
            (None, None) => true,
        }
    })
}

/// `line` without its inline code spans.
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let after = &rest[start + ticks..];
        let closing = "`".repeat(ticks);
        match after.find(&closing) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links and images of `text` (`[t](target)`,
/// `![t](target "title")`), outside code.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in prose_lines(text) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            let target = target.trim_start_matches('<').trim_end_matches('>');
            if !target.is_empty() {
                found.push(target.to_owned());
            }
            rest = &after[end..];
        }
    }
    found
}

/// The anchors mdBook gives the headings of `text`.
fn headings_anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = BTreeSet::new();
    for line in prose_lines(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let id = slug(line[hashes..].trim());
        let count = seen.entry(id.clone()).or_insert(0);
        anchors.insert(match *count {
            0 => id,
            n => format!("{id}-{n}"),
        });
        *count += 1;
    }
    anchors
}

/// mdBook's anchor of a heading: the rendered text (link targets and code
/// marks left out), lowercased, whitespace to `-`, and only alphanumerics,
/// `-` and `_` kept.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // `[text](target)` renders as `text`.
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|i| open + i) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|i| close + i) else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    text.push_str(rest);
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().collect::<String>())
            } else if c.is_whitespace() {
                Some("-".to_owned())
            } else {
                None
            }
        })
        .collect()
}
