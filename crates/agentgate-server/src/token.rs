//! The API token: where it comes from, creating it, and comparing it.
//!
//! The order is `AGENTGATE_TOKEN` (when set and not empty), else the token
//! file: `--token-file PATH`, else `token` in agentgate's data folder (next
//! to the store's database, so `AGENTGATE_HOME` moves both). A missing file
//! is created with a fresh random token (32 bytes from `/dev/urandom`, hex)
//! and mode 0600, atomically: the token is written to a private temporary
//! file that is then hard-linked into place, so two servers starting at
//! once agree on one token and nobody reads a half-written file.
//!
//! An existing token file that the group or others can read or write is
//! refused, not tightened: its token may already have leaked, so the
//! operator is told to `chmod 600` it (or remove it to get a new one).
//!
//! A token is *explicit* when the operator chose it: from the environment
//! or from a `--token-file` that already existed. Only an explicit token
//! lets the server listen on a non-loopback address.
//!
//! A listener refuses to start with a token shorter than
//! [`MIN_TOKEN_CHARS`] (32 characters, e.g. `openssl rand -hex 16`; the
//! token it makes itself has 64): a short token can be guessed, and the
//! rate limit on failed requests ([`crate::auth_failures`]) only slows
//! guessing down. Clients read tokens without that check: the server
//! they talk to has made it.

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::ServeError;

/// The environment variable that gives the token.
pub const TOKEN_ENV: &str = "AGENTGATE_TOKEN";

/// The token file's name in the data folder.
pub const TOKEN_FILE_NAME: &str = "token";

/// Random bytes in a new token (it is written as twice as many hex digits).
const TOKEN_BYTES: usize = 32;

/// The fewest characters a listener's token may have.
pub const MIN_TOKEN_CHARS: usize = 32;

/// Where the token came from (printed on stderr at start; never the token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// `AGENTGATE_TOKEN`.
    Env,
    /// A token file that existed.
    File(PathBuf),
    /// A token file created by this start.
    Created(PathBuf),
}

/// The token, kept out of `Debug` output.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token([redacted])")
    }
}

impl Token {
    /// Whether `presented` is this token. Takes the same time for every
    /// presented value of the token's length, whatever byte differs.
    pub fn matches(&self, presented: &[u8]) -> bool {
        let expected = self.0.as_bytes();
        if presented.len() != expected.len() {
            return false;
        }
        let diff = expected
            .iter()
            .zip(presented)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        std::hint::black_box(diff) == 0
    }

    /// The `Authorization` header value that presents this token.
    pub(crate) fn bearer(&self) -> String {
        format!("Bearer {}", self.0)
    }

    /// Its length in characters.
    fn chars(&self) -> usize {
        self.0.chars().count()
    }

    #[cfg(test)]
    pub(crate) fn for_tests(token: &str) -> Token {
        Token(token.to_owned())
    }
}

/// Where a token file would be looked for and created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenFileChoice {
    /// `--token-file PATH`.
    Given(PathBuf),
    /// The data folder's `token`.
    Default(PathBuf),
}

impl TokenFileChoice {
    /// `given`, else the default path in the data folder.
    pub fn resolve(given: Option<PathBuf>) -> Result<TokenFileChoice, ServeError> {
        match given {
            Some(p) => Ok(TokenFileChoice::Given(p)),
            None => Ok(TokenFileChoice::Default(default_token_path()?)),
        }
    }

    /// The path.
    pub fn path(&self) -> &Path {
        match self {
            TokenFileChoice::Given(p) | TokenFileChoice::Default(p) => p,
        }
    }
}

/// `token` next to the default store's database.
pub fn default_token_path() -> Result<PathBuf, ServeError> {
    let db = agentgate_store::default_db_path()?;
    let dir = db.parent().unwrap_or_else(|| Path::new("."));
    Ok(dir.join(TOKEN_FILE_NAME))
}

/// The token from the environment, if set and not empty.
pub fn from_env(value: Option<String>) -> Option<Token> {
    value
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .map(Token)
}

/// Read an existing token file, `Ok(None)` when it does not exist.
pub fn read_file(path: &Path) -> Result<Option<Token>, ServeError> {
    let bad = |reason: String| ServeError::TokenFile {
        path: path.to_path_buf(),
        reason,
    };
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(bad(format!("failed to read it: {e}"))),
    };
    if !meta.is_file() {
        return Err(bad("it is not a regular file".to_owned()));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(bad(format!(
            "its mode is {mode:04o}, so others may read the token; run `chmod 600 {}` (or \
             remove it and a new token is made)",
            path.display()
        )));
    }
    let mut text = String::new();
    fs::File::open(path)
        .and_then(|f| f.take(64 * 1024).read_to_string(&mut text))
        .map_err(|e| bad(format!("failed to read it: {e}")))?;
    let token = text.trim();
    if token.is_empty() {
        return Err(bad(
            "it is empty; write a token in it or remove it".to_owned()
        ));
    }
    Ok(Some(Token(token.to_owned())))
}

/// The token of a listener on `addr`: `AGENTGATE_TOKEN` when set, else the
/// token file (`given`, or the default path). On a loopback address a
/// missing file is created; on any other address only a file the operator
/// named and made counts, and without one the listener is refused
/// ([`ServeError::PublicWithoutToken`]) before any file or socket is made.
/// `serve` and `worker --metrics-listen` both choose their token here;
/// `loopback` says whether `addr` is a loopback address
/// ([`crate::is_loopback`]). A token shorter than [`MIN_TOKEN_CHARS`] is
/// refused ([`ServeError::TokenTooShort`]).
///
/// The token chosen is held as one of this process's own secrets
/// ([`agentgate_supervise::own_env::hold`]): no CLI or tool it starts gets a
/// variable holding it.
pub fn choose(
    addr: std::net::SocketAddr,
    loopback: bool,
    given: Option<PathBuf>,
) -> Result<(Token, TokenSource), ServeError> {
    let (token, source) = choose_any(addr, loopback, given)?;
    if token.chars() < MIN_TOKEN_CHARS {
        return Err(ServeError::TokenTooShort {
            from: match &source {
                TokenSource::Env => TOKEN_ENV.to_owned(),
                TokenSource::File(p) | TokenSource::Created(p) => {
                    format!("the token file {}", p.display())
                }
            },
            chars: token.chars(),
            min: MIN_TOKEN_CHARS,
        });
    }
    agentgate_supervise::own_env::hold(&token.0);
    Ok((token, source))
}

fn choose_any(
    addr: std::net::SocketAddr,
    loopback: bool,
    given: Option<PathBuf>,
) -> Result<(Token, TokenSource), ServeError> {
    if let Some(t) = from_env(std::env::var(TOKEN_ENV).ok()) {
        return Ok((t, TokenSource::Env));
    }
    let choice = TokenFileChoice::resolve(given)?;
    if loopback {
        return read_or_create(choice.path());
    }
    match (&choice, read_file(choice.path())?) {
        (TokenFileChoice::Given(p), Some(t)) => Ok((t, TokenSource::File(p.clone()))),
        _ => Err(ServeError::PublicWithoutToken { addr }),
    }
}

/// Read the token file, creating it with a new random token when missing.
pub fn read_or_create(path: &Path) -> Result<(Token, TokenSource), ServeError> {
    if let Some(t) = read_file(path)? {
        return Ok((t, TokenSource::File(path.to_path_buf())));
    }
    let bad = |reason: String| ServeError::TokenFile {
        path: path.to_path_buf(),
        reason,
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| bad(format!("failed to create its folder: {e}")))?;
    }
    let token = random_token()?;
    let tmp = path.with_file_name(format!(".{TOKEN_FILE_NAME}.{}.tmp", std::process::id()));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(token.as_bytes())?;
            f.write_all(b"\n")?;
            f.sync_all()
        });
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(bad(format!("failed to create it: {e}")));
    }
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok((Token(token), TokenSource::Created(path.to_path_buf()))),
        // Another server created it first: use its token.
        Err(e) if e.kind() == ErrorKind::AlreadyExists => match read_file(path)? {
            Some(t) => Ok((t, TokenSource::File(path.to_path_buf()))),
            None => Err(bad("it vanished while being created".to_owned())),
        },
        Err(e) => Err(bad(format!("failed to create it: {e}"))),
    }
}

fn random_token() -> Result<String, ServeError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(ServeError::Random)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_only_the_same_token() {
        let t = Token("abc123".to_owned());
        assert!(t.matches(b"abc123"));
        assert!(!t.matches(b"abc124"));
        assert!(!t.matches(b"abc12"));
        assert!(!t.matches(b""));
        assert_eq!(format!("{t:?}"), "Token([redacted])");
    }

    #[test]
    fn a_created_file_is_private_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/token");
        let (first, source) = read_or_create(&path).unwrap();
        assert_eq!(source, TokenSource::Created(path.clone()));
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(first.0.len(), TOKEN_BYTES * 2);
        assert!(
            first.chars() >= MIN_TOKEN_CHARS,
            "a made token is long enough"
        );
        let (second, source) = read_or_create(&path).unwrap();
        assert_eq!(source, TokenSource::File(path.clone()));
        assert!(second.matches(first.0.as_bytes()));
        let names: Vec<_> = fs::read_dir(dir.path().join("sub")).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }

    #[test]
    fn a_readable_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        fs::write(&path, "secret\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let err = read_file(&path).unwrap_err().to_string();
        assert!(err.contains("chmod 600"), "{err}");
        assert!(!err.contains("secret"), "{err}");
    }

    #[test]
    fn an_empty_env_value_is_no_token() {
        assert!(from_env(Some(String::new())).is_none());
        assert!(from_env(None).is_none());
        assert!(from_env(Some("t".to_owned())).is_some());
    }
}
