//! A real, small filesystem the tests can fill, free and make read-only: a
//! tmpfs of a few MiB. As root it is mounted on a temporary folder; as
//! another user it is mounted in a user and mount namespace of its own (a
//! holder process keeps it), and every process that must see it runs in
//! that namespace (`nsenter`). Either way [`SmallDisk::command`] starts a
//! program that sees it at [`SmallDisk::dir`].

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// See the module notes.
pub struct SmallDisk {
    dir: PathBuf,
    /// The namespace's holder (not root), else `None` (mounted here).
    holder: Option<Child>,
    _parent: tempfile::TempDir,
}

impl SmallDisk {
    /// A tmpfs of `size` (`mount -o size=`, e.g. `4m`).
    pub fn new(size: &str) -> SmallDisk {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("disk");
        std::fs::create_dir(&dir).unwrap();
        let options = format!("size={size},mode=0700");
        if is_root() {
            let status = Command::new("mount")
                .args(["-t", "tmpfs", "-o", &options, "tmpfs"])
                .arg(&dir)
                .status()
                .unwrap();
            assert!(status.success(), "mount -t tmpfs failed as root");
            return SmallDisk {
                dir,
                holder: None,
                _parent: parent,
            };
        }
        // Not root: a user namespace (this user as its root) with a mount
        // namespace of its own, where the tmpfs lives while the holder does.
        let mut holder = Command::new("unshare")
            .args([
                "--user",
                "--map-root-user",
                "--mount",
                "--propagation",
                "private",
            ])
            .args([
                "sh",
                "-c",
                "mount -t tmpfs -o \"$1\" tmpfs \"$2\" && echo ready && exec sleep 3600",
            ])
            .args(["sh", &options])
            .arg(&dir)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("unshare (util-linux) is needed to mount a tmpfs: {e}"));
        let mut line = String::new();
        BufReader::new(holder.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(
            line.trim(),
            "ready",
            "no tmpfs in a user namespace (are unprivileged user namespaces allowed?)"
        );
        SmallDisk {
            dir,
            holder: Some(holder),
            _parent: parent,
        }
    }

    /// Where the filesystem is, for the programs of [`SmallDisk::command`].
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `program`, started where it sees the filesystem.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        match &self.holder {
            None => Command::new(program),
            Some(holder) => {
                let mut cmd = Command::new("nsenter");
                cmd.arg(format!("--target={}", holder.id()))
                    .args(["--user", "--mount", "--preserve-credentials", "--"])
                    .arg(program);
                cmd
            }
        }
    }

    /// `sh -c script` where it sees the filesystem; panics if it fails.
    pub fn sh(&self, script: &str) {
        let status = self
            .command("sh")
            .args(["-c", script])
            .stdin(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "`{script}` failed");
    }

    /// The space a file `filler` in it took, given back.
    pub fn free(&self) {
        self.sh(&format!("rm -f '{}'", self.dir.join("filler").display()));
    }

    /// Make it read-only.
    pub fn read_only(&self) {
        self.sh(&format!(
            "mount -o remount,bind,ro '{}'",
            self.dir.display()
        ));
    }
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        match &mut self.holder {
            Some(holder) => {
                let _ = holder.kill();
                let _ = holder.wait();
            }
            None => {
                let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
            }
        }
    }
}
