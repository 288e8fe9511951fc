//! The artifacts a tool's `result` declares, checked against the files.

use std::io::Read as _;
use std::path::Path;

use agentgate_protocol::{ArtifactCheck, ArtifactRef, ArtifactState};
use sha2::{Digest as _, Sha256};

/// Checks every declared artifact: a relative path is relative to the
/// workspace; a declared SHA-256 is compared with the file's (case
/// insensitively); a folder, or a file without a declared hash, is only
/// checked to exist.
pub(super) fn check_artifacts(declared: &[ArtifactRef], workspace: &Path) -> Vec<ArtifactCheck> {
    declared
        .iter()
        .map(|artifact| check_one(artifact, workspace))
        .collect()
}

fn check_one(artifact: &ArtifactRef, workspace: &Path) -> ArtifactCheck {
    let resolved = workspace.join(&artifact.path);
    let (actual, state) = match std::fs::metadata(&resolved) {
        Err(_) => (None, ArtifactState::Missing),
        Ok(meta) if meta.is_dir() => (None, ArtifactState::Unchecked),
        Ok(_) => match sha256_of(&resolved) {
            Err(_) => (None, ArtifactState::Missing),
            Ok(actual) => {
                let state = match &artifact.sha256 {
                    None => ArtifactState::Unchecked,
                    Some(declared) if declared.eq_ignore_ascii_case(&actual) => {
                        ArtifactState::Verified
                    }
                    Some(_) => ArtifactState::Mismatch,
                };
                (Some(actual), state)
            }
        },
    };
    ArtifactCheck {
        path: artifact.path.clone(),
        resolved: resolved.display().to_string(),
        sha256: artifact.sha256.clone(),
        actual_sha256: actual,
        state,
    }
}

/// The SHA-256 of a file's bytes, lowercase hex.
pub(crate) fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(path: &str, sha256: Option<&str>) -> ArtifactRef {
        ArtifactRef {
            path: path.to_owned(),
            sha256: sha256.map(str::to_owned),
            extra: serde_json::Map::new(),
        }
    }

    #[test]
    fn each_artifact_gets_its_verdict() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("out.txt"), b"abc").unwrap();
        std::fs::create_dir(dir.path().join("folder")).unwrap();
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let checks = check_artifacts(
            &[
                artifact("out.txt", Some(abc)),
                artifact("./out.txt", Some(&abc.to_uppercase())),
                artifact("out.txt", Some(&"0".repeat(64))),
                artifact("out.txt", None),
                artifact("folder", Some(abc)),
                artifact("gone.txt", Some(abc)),
                artifact(&dir.path().join("out.txt").display().to_string(), Some(abc)),
            ],
            dir.path(),
        );
        let states: Vec<ArtifactState> = checks.iter().map(|c| c.state).collect();
        assert_eq!(
            states,
            [
                ArtifactState::Verified,
                ArtifactState::Verified,
                ArtifactState::Mismatch,
                ArtifactState::Unchecked,
                ArtifactState::Unchecked,
                ArtifactState::Missing,
                ArtifactState::Verified,
            ]
        );
        assert_eq!(checks[2].actual_sha256.as_deref(), Some(abc));
        assert_eq!(checks[5].actual_sha256, None);
    }
}
