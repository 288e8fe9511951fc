//! Atomic checkpoints in the workspace: `.checkpoints/<stage>.json`.

use std::io::Write as _;
use std::path::PathBuf;

use serde_json::Value;

/// A stage's saved state, one JSON file per stage, replaced atomically
/// (written to a temporary file in the same folder, synced, renamed), so a
/// run killed mid-save leaves the previous checkpoint whole.
#[derive(Debug, Clone)]
pub struct Checkpoints {
    dir: PathBuf,
}

impl Checkpoints {
    /// The checkpoints of a workspace (`<workspace>/.checkpoints`).
    pub fn in_workspace(workspace: &std::path::Path) -> Self {
        Self {
            dir: workspace.join(".checkpoints"),
        }
    }

    /// Saves `state` as the checkpoint of `stage`.
    pub fn save(&self, stage: &str, state: &Value) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(format!("{stage}.json"));
        let tmp = self.dir.join(format!(".{stage}.json.tmp"));
        let bytes = serde_json::to_vec(state).map_err(std::io::Error::other)?;
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        // The rename itself is durable once the folder is synced.
        std::fs::File::open(&self.dir)?.sync_all()
    }

    /// The checkpoint of `stage`, if one was saved.
    pub fn load(&self, stage: &str) -> std::io::Result<Option<Value>> {
        let path = self.dir.join(format!("{stage}.json"));
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(std::io::Error::other),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_saved_checkpoint_loads_back_and_a_new_save_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let cp = Checkpoints::in_workspace(dir.path());
        assert_eq!(cp.load("migrate").unwrap(), None);
        cp.save("migrate", &json!({"i": 3})).unwrap();
        assert_eq!(cp.load("migrate").unwrap(), Some(json!({"i": 3})));
        cp.save("migrate", &json!({"i": 7})).unwrap();
        assert_eq!(cp.load("migrate").unwrap(), Some(json!({"i": 7})));
        let names: Vec<String> = std::fs::read_dir(dir.path().join(".checkpoints"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["migrate.json"], "no temporary file is left");
    }
}
