//! A Unix socket the gateway or the egress proxy serves on: bound at a
//! path that must not exist yet, made mode 600, and removed when its
//! [`SocketFile`] is dropped. The caller picks the folder (its own: a
//! run's private folder): between the bind and the mode change only who
//! can enter that folder can reach the socket.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tokio::net::UnixListener;

/// A Unix socket file made by [`bind_unix`], removed when dropped.
#[derive(Debug)]
pub(crate) struct SocketFile(PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Bind a Unix socket at `path` (which must not exist), mode 600.
pub(crate) fn bind_unix(path: &Path) -> std::io::Result<(UnixListener, SocketFile)> {
    let listener = UnixListener::bind(path)?;
    let file = SocketFile(path.to_path_buf());
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok((listener, file))
}
