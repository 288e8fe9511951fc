//! The queue key file: where it is, reading it, creating it.
//!
//! One key per line, 64 hex digits (32 random bytes); blank lines and
//! lines starting with `#` are skipped. The first key seals; every key
//! opens (so a new key is added on top and the old one kept until no
//! queued job needs it). A key's id is the first 16 hex digits of its
//! SHA-256: a sealed value names the key that opens it.
//!
//! Where: `$AGENTGATE_QUEUE_KEY_FILE`, else the config's `queue.key_file`,
//! else `queue.key` in agentgate's data folder (next to the store's
//! database and the API token). A missing file is created, where a process
//! seals (`serve`), with one fresh key and mode 0600, atomically (written
//! to a private temporary file, then hard-linked into place: two servers
//! starting at once agree on one key). A file the group or others can
//! read is refused, as the token file is.

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Read as _, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// The variable that names the key file.
pub const KEY_FILE_ENV: &str = "AGENTGATE_QUEUE_KEY_FILE";

/// The key file's name in the data folder.
pub const KEY_FILE_NAME: &str = "queue.key";

/// Bytes in a key.
pub const KEY_BYTES: usize = 32;

/// What is wrong with the key file.
#[derive(Debug, thiserror::Error)]
#[error("the queue key file {}: {reason}", path.display())]
pub struct KeyFileError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong, and what to do.
    pub reason: String,
}

/// One key.
#[derive(Clone, PartialEq, Eq)]
pub struct SealKey {
    id: String,
    bytes: [u8; KEY_BYTES],
}

impl fmt::Debug for SealKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SealKey({})", self.id)
    }
}

impl SealKey {
    /// A key of these bytes.
    pub fn new(bytes: [u8; KEY_BYTES]) -> SealKey {
        let digest = ring::digest::digest(&ring::digest::SHA256, &bytes);
        let id = hex(digest.as_ref().get(..8).unwrap_or_default());
        SealKey { id, bytes }
    }

    /// Its id (16 hex digits).
    pub fn id(&self) -> &str {
        &self.id
    }

    pub(super) fn bytes(&self) -> &[u8; KEY_BYTES] {
        &self.bytes
    }
}

/// The keys a process seals and opens with, and where they came from.
#[derive(Debug, Clone, Default)]
pub struct KeyRing {
    keys: Vec<SealKey>,
    path: Option<PathBuf>,
}

impl KeyRing {
    /// A ring of these keys (the first seals), read from no file.
    pub fn of(keys: Vec<SealKey>) -> KeyRing {
        KeyRing { keys, path: None }
    }

    /// The key file's keys; an empty ring when the file does not exist.
    pub fn load(path: &Path) -> Result<KeyRing, KeyFileError> {
        let keys = read(path)?.unwrap_or_default();
        Ok(KeyRing {
            keys,
            path: Some(path.to_path_buf()),
        })
    }

    /// The key file's keys, the file created with a new key when missing;
    /// whether it was created.
    pub fn load_or_create(path: &Path) -> Result<(KeyRing, bool), KeyFileError> {
        if let Some(keys) = read(path)? {
            return Ok((
                KeyRing {
                    keys,
                    path: Some(path.to_path_buf()),
                },
                false,
            ));
        }
        let created = create(path)?;
        let keys = read(path)?.unwrap_or_default();
        Ok((
            KeyRing {
                keys,
                path: Some(path.to_path_buf()),
            },
            created,
        ))
    }

    /// The key that seals: the file's first.
    pub fn sealing(&self) -> Option<&SealKey> {
        self.keys.first()
    }

    /// The key of id `id`, if this ring has it.
    pub fn get(&self, id: &str) -> Option<&SealKey> {
        self.keys.iter().find(|k| k.id == id)
    }

    /// The file the keys were read from.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

/// The key file to use: `$AGENTGATE_QUEUE_KEY_FILE` (when set and not
/// empty), else `configured` (the config's `queue.key_file`), else
/// `queue.key` in the data folder.
pub fn key_file(configured: Option<&Path>) -> Result<PathBuf, agentgate_store::StoreError> {
    key_file_from(std::env::var_os(KEY_FILE_ENV), configured)
}

fn key_file_from(
    env: Option<std::ffi::OsString>,
    configured: Option<&Path>,
) -> Result<PathBuf, agentgate_store::StoreError> {
    if let Some(path) = env.filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    if let Some(path) = configured {
        return Ok(path.to_path_buf());
    }
    let db = agentgate_store::default_db_path()?;
    let dir = db.parent().unwrap_or_else(|| Path::new("."));
    Ok(dir.join(KEY_FILE_NAME))
}

/// The keys of an existing file; `None` when there is none.
fn read(path: &Path) -> Result<Option<Vec<SealKey>>, KeyFileError> {
    let bad = |reason: String| KeyFileError {
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
            "its mode is {mode:04o}, so others may read the key; run `chmod 600 {}`",
            path.display()
        )));
    }
    let mut text = String::new();
    fs::File::open(path)
        .and_then(|f| f.take(64 * 1024).read_to_string(&mut text))
        .map_err(|e| bad(format!("failed to read it: {e}")))?;
    let mut keys = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bytes = unhex(line)
            .and_then(|b| <[u8; KEY_BYTES]>::try_from(b).ok())
            .ok_or_else(|| {
                bad(format!(
                    "line {} is not a key (64 hex digits: 32 random bytes, e.g. from `openssl rand -hex 32`)",
                    n + 1
                ))
            })?;
        let key = SealKey::new(bytes);
        // A key is a secret of this process: no CLI gets a variable
        // holding it.
        agentgate_supervise::own_env::hold(line);
        keys.push(key);
    }
    if keys.is_empty() {
        return Err(bad(
            "it holds no key; write one (`openssl rand -hex 32`) or remove the file to get a new one"
                .to_owned(),
        ));
    }
    Ok(Some(keys))
}

/// Create the file with a new key; `false` when another process created
/// it first.
fn create(path: &Path) -> Result<bool, KeyFileError> {
    let bad = |reason: String| KeyFileError {
        path: path.to_path_buf(),
        reason,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| bad(format!("failed to create its folder: {e}")))?;
    }
    let mut bytes = [0u8; KEY_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| bad(format!("no random bytes for a key: {e}")))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| KEY_FILE_NAME.to_owned());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(hex(&bytes).as_bytes())?;
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
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(bad(format!("failed to create it: {e}"))),
    }
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_created_private_with_one_key_and_read_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data").join("queue.key");
        assert!(KeyRing::load(&path).unwrap().sealing().is_none());
        let (ring, created) = KeyRing::load_or_create(&path).unwrap();
        assert!(created);
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let (again, created) = KeyRing::load_or_create(&path).unwrap();
        assert!(!created);
        assert_eq!(ring.sealing(), again.sealing());
        assert_eq!(ring.sealing().unwrap().id().len(), 16);
    }

    #[test]
    fn the_first_key_seals_and_every_key_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k");
        let new = "11".repeat(32);
        let old = "22".repeat(32);
        fs::write(&path, format!("# rotated on Monday\n{new}\n\n{old}\n")).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let ring = KeyRing::load(&path).unwrap();
        let old_id = SealKey::new([0x22; 32]).id().to_owned();
        assert_eq!(ring.sealing(), Some(&SealKey::new([0x11; 32])));
        assert!(ring.get(&old_id).is_some());
        assert!(!format!("{ring:?}").contains(&old), "no key in Debug");
    }

    #[test]
    fn a_file_others_can_read_or_that_holds_no_key_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k");
        fs::write(&path, format!("{}\n", "33".repeat(32))).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let e = KeyRing::load(&path).unwrap_err().to_string();
        assert!(e.contains("chmod 600"), "{e}");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(&path, "not-a-key\n").unwrap();
        let e = KeyRing::load(&path).unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("64 hex digits"), "{e}");
        fs::write(&path, "# nothing\n").unwrap();
        let e = KeyRing::load(&path).unwrap_err().to_string();
        assert!(e.contains("holds no key"), "{e}");
    }

    #[test]
    fn the_variable_wins_over_the_config_and_both_over_the_data_folder() {
        let from_env = key_file_from(Some("/e.key".into()), Some(Path::new("/c.key")));
        assert_eq!(from_env.unwrap(), PathBuf::from("/e.key"));
        let from_config = key_file_from(Some("".into()), Some(Path::new("/c.key")));
        assert_eq!(from_config.unwrap(), PathBuf::from("/c.key"));
        let default = key_file_from(None, None).unwrap();
        assert_eq!(
            default.file_name().unwrap().to_str(),
            Some(KEY_FILE_NAME),
            "{default:?}"
        );
    }
}
