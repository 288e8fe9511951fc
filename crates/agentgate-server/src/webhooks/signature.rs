//! The Standard Webhooks signature (<https://www.standardwebhooks.com/>):
//! the secret is `whsec_` followed by base64 of its bytes; a delivery's
//! `webhook-signature` is `v1,` and base64 of HMAC-SHA256, keyed with the
//! secret's bytes, of `{webhook-id}.{webhook-timestamp}.{body}`.

use std::path::Path;

use agentgate_core::WebhookSecretSource;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::hmac;

/// The prefix of a secret's text.
pub const SECRET_PREFIX: &str = "whsec_";

/// The fewest bytes a secret may have (the spec asks for 24 to 64).
pub const SECRET_MIN_BYTES: usize = 24;

/// The signing secret (its bytes are never printed).
#[derive(Clone)]
pub struct WebhookSecret {
    key: hmac::Key,
}

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret([hidden])")
    }
}

/// Why the secret could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// `secret_file` could not be read.
    #[error("webhooks.secret_file {}: {reason}", path.display())]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// What failed.
        reason: String,
    },
    /// `secret_env` names a variable that is not set.
    #[error("webhooks.secret_env: the variable {0} is not set")]
    Env(String),
    /// The text is not `whsec_<base64>` of enough bytes.
    #[error(
        "the webhook secret from {from} is not `whsec_` and base64 of {SECRET_MIN_BYTES} or more bytes ({reason})"
    )]
    Format {
        /// Where it came from.
        from: String,
        /// What is wrong (never the secret).
        reason: &'static str,
    },
}

impl WebhookSecret {
    /// Read the secret from `source`.
    pub fn load(source: &WebhookSecretSource) -> Result<WebhookSecret, SecretError> {
        let (text, from) = match source {
            WebhookSecretSource::File(path) => (read_file(path)?, path.display().to_string()),
            WebhookSecretSource::Env(name) => (
                std::env::var(name).map_err(|_| SecretError::Env(name.clone()))?,
                format!("${name}"),
            ),
        };
        WebhookSecret::parse(text.trim()).map_err(|reason| SecretError::Format { from, reason })
    }

    /// A secret from its text, `whsec_<base64>`.
    pub fn parse(text: &str) -> Result<WebhookSecret, &'static str> {
        let encoded = text
            .strip_prefix(SECRET_PREFIX)
            .ok_or("it does not start with whsec_")?;
        let bytes = STANDARD
            .decode(encoded)
            .map_err(|_| "what follows whsec_ is not base64")?;
        if bytes.len() < SECRET_MIN_BYTES {
            return Err("too short");
        }
        Ok(WebhookSecret {
            key: hmac::Key::new(hmac::HMAC_SHA256, &bytes),
        })
    }

    /// The `webhook-signature` header's value for a message.
    pub fn sign(&self, message_id: &str, timestamp: i64, body: &[u8]) -> String {
        let mut ctx = hmac::Context::with_key(&self.key);
        ctx.update(message_id.as_bytes());
        ctx.update(b".");
        ctx.update(timestamp.to_string().as_bytes());
        ctx.update(b".");
        ctx.update(body);
        format!("v1,{}", STANDARD.encode(ctx.sign().as_ref()))
    }
}

fn read_file(path: &Path) -> Result<String, SecretError> {
    std::fs::read_to_string(path).map_err(|e| SecretError::File {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks reference libraries' tests
    /// (standard-webhooks/standard-webhooks, libraries/*/tests): this
    /// secret, id, timestamp and body give this signature.
    #[test]
    fn the_specs_known_vector_is_reproduced() {
        let secret = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let signature = secret.sign(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn secrets_without_the_prefix_or_too_short_are_refused_and_never_printed() {
        assert!(WebhookSecret::parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").is_err());
        assert!(WebhookSecret::parse("whsec_not base64!").is_err());
        assert_eq!(
            WebhookSecret::parse("whsec_c2hvcnQ=").unwrap_err(),
            "too short"
        );
        let secret = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        assert!(!format!("{secret:?}").contains("MfKQ"));
    }
}
