//! What a run id may look like: it names a folder, so it is checked before
//! it touches the file system or the database.

use crate::error::StoreError;

/// The longest run id accepted, in bytes.
pub const MAX_RUN_ID_LEN: usize = 128;

/// Checks that `run_id` can name a run: 1 to [`MAX_RUN_ID_LEN`] ASCII
/// letters, digits, `-`, `_` or `.`, not starting with `.` (so it is never
/// `.`, `..` or a hidden folder).
pub fn validate_run_id(run_id: &str) -> Result<(), StoreError> {
    check(run_id).map_err(|reason| StoreError::InvalidRunId {
        run_id: run_id.to_owned(),
        reason,
        max_len: MAX_RUN_ID_LEN,
    })
}

fn check(run_id: &str) -> Result<(), &'static str> {
    if run_id.is_empty() {
        return Err("it is empty");
    }
    if run_id.len() > MAX_RUN_ID_LEN {
        return Err("it is too long");
    }
    if run_id.starts_with('.') {
        return Err("it starts with `.`");
    }
    if !run_id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        return Err("it contains a character other than a letter, digit, `-`, `_` or `.`");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_usual_id_shapes() {
        for id in [
            "run_01HZX3",
            "0190f3c2-7b1e-7c3a-9d2e-123456789abc",
            "a",
            "v1.2",
        ] {
            assert!(validate_run_id(id).is_ok(), "{id}");
        }
    }

    #[test]
    fn rejects_ids_that_could_escape_the_runs_folder() {
        let too_long = "x".repeat(MAX_RUN_ID_LEN + 1);
        for id in [
            "", ".", "..", "../etc", "a/b", "a\\b", ".hidden", "a b", "é", &too_long,
        ] {
            let err = validate_run_id(id).unwrap_err();
            assert!(
                matches!(err, StoreError::InvalidRunId { .. }),
                "{id}: {err}"
            );
        }
    }
}
