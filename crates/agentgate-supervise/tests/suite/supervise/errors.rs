//! What cannot be started is an error, not a report.

use agentgate_supervise::{Invocation, SuperviseError, SupervisorConfig};

use super::support::{config, keeper_path, misbehave, start};

#[tokio::test]
async fn a_missing_program_is_reported_as_not_found() {
    for keeper in [None, Some(keeper_path())] {
        let cfg = SupervisorConfig {
            keeper: keeper.clone(),
            ..config()
        };
        let (result, _) = start(Invocation::new("agentgate-no-such-program-x"), cfg)
            .try_finish()
            .await;
        match result {
            Err(SuperviseError::ProgramNotFound { program }) => {
                assert_eq!(program.to_str(), Some("agentgate-no-such-program-x"));
            }
            other => panic!("keeper {keeper:?}: expected ProgramNotFound, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_missing_working_directory_is_reported() {
    let mut inv = misbehave();
    inv.cwd = Some("/nonexistent/agentgate/dir".into());
    let (result, _) = start(inv, config()).try_finish().await;
    assert!(
        matches!(result, Err(SuperviseError::WorkingDir { .. })),
        "{result:?}"
    );
}
