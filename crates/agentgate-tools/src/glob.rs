//! The one pattern language of the policy: `*` is any run of characters
//! (none included), `?` is one character, everything else is itself.
//! Used for tool names, `host:port` entries and variable names.

/// Whether `text` matches `pattern` in full.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative matching with one backtrack point (the last `*`): linear
    // in practice, never exponential.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(c) if *c == '?' || *c == t[ti] => {
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
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn stars_and_question_marks_match_as_documented() {
        assert!(glob_match("*", ""));
        assert!(glob_match("*", "anything"));
        assert!(glob_match("lint-*", "lint-rust"));
        assert!(!glob_match("lint-*", "format"));
        assert!(glob_match("*_SECRET*", "AWS_SECRET_KEY"));
        assert!(!glob_match("*_SECRET*", "SECRETS"));
        assert!(glob_match("*.example.com:443", "api.example.com:443"));
        assert!(!glob_match("*.example.com:443", "api.example.com:80"));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("a*b*c", "axxbyyc"));
        assert!(!glob_match("a*b*c", "axxbyy"));
        assert!(!glob_match("exact", "exactly"));
    }
}
