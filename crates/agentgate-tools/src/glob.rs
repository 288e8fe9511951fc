//! The one pattern language of the policy: `*` is any run of characters
//! (none included), `?` is one character, everything else is itself.
//! Used for tool names, `host:port` entries and variable names.

/// Whether `text` matches `pattern` in full: the same language as the
/// approval rules' tool names and commands, so one matcher serves both.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    agentgate_core::text_glob(pattern, text)
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
