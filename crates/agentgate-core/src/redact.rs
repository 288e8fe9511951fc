//! What must not be printed: secrets are never shown in a plan, a config
//! listing or a log.

/// Whether an environment variable's value must not be printed: its name
/// says it holds a key, token, secret, password or credential.
pub fn is_secret(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH", "CREDENTIAL"]
        .iter()
        .any(|w| upper.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_secrets_are_recognised() {
        for k in ["OPENAI_API_KEY", "gh_token", "DB_PASSWORD", "AUTH_HEADER"] {
            assert!(is_secret(k), "{k}");
        }
        for k in ["PATH", "HOME", "PLAIN_VAR"] {
            assert!(!is_secret(k), "{k}");
        }
    }
}
