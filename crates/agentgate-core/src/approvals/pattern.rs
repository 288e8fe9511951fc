//! The patterns of the approval rules: a path glob (`*` and `?` within one
//! path component, `**` any number of components) and a text glob for tool
//! names and commands (`*` any run of characters, `?` one).

/// Whether `text` matches `pattern` in full (`*` any run, `?` one char).
pub fn text_glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // One backtrack point (the last `*`): linear in practice.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(c) if *c == '?' || Some(c) == t.get(ti) => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p.get(pi..).unwrap_or_default().iter().all(|c| *c == '*')
}

/// Whether the relative path `path` (components joined by `/`) matches
/// `pattern`: `**` is any number of components (none included), other
/// components match one component with [`text_glob`] (so `*` never
/// crosses a `/`).
pub fn path_glob(pattern: &str, path: &str) -> bool {
    let p: Vec<&str> = pattern.split('/').filter(|c| !c.is_empty()).collect();
    let t: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
    components_match(&p, &t)
}

fn components_match(p: &[&str], t: &[&str]) -> bool {
    match p.split_first() {
        None => t.is_empty(),
        Some((&"**", rest)) => (0..=t.len()).any(|skip| components_match(rest, &t[skip..])),
        Some((first, rest)) => match t.split_first() {
            Some((head, tail)) => text_glob(first, head) && components_match(rest, tail),
            None => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_globs_match_whole_strings() {
        assert!(text_glob("git status*", "git status --short"));
        assert!(text_glob("mcp__*", "mcp__agentgate__scanner"));
        assert!(!text_glob("git status*", "sudo git status"));
        assert!(text_glob("a?c", "abc"));
        assert!(!text_glob("a?c", "ac"));
        assert!(text_glob("*", ""));
    }

    #[test]
    fn path_globs_keep_star_within_a_component() {
        assert!(path_glob("src/**", "src/a/b.rs"));
        assert!(path_glob("src/**", "src"));
        assert!(path_glob("**/*.md", "README.md"));
        assert!(path_glob("**/*.md", "docs/x/y.md"));
        assert!(path_glob("src/*.rs", "src/lib.rs"));
        assert!(!path_glob("src/*.rs", "src/a/lib.rs"));
        assert!(!path_glob("docs/**", "src/docs/a.md"));
    }
}
