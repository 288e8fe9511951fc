//! How many connections fit under the open-files limit (which
//! `agentgate_executor::raise_open_files_limit` raised first).

/// Descriptors kept out of the connection limit: the running jobs' pipes
/// and files, the store, the logs.
pub(crate) const DESCRIPTORS_KEPT: u64 = 256;

/// `wanted` connections, or fewer if the open-files limit `open_files`
/// leaves room for fewer (after [`DESCRIPTORS_KEPT`]), at least 1.
pub(crate) fn connections_within(wanted: usize, open_files: Option<u64>) -> usize {
    let Some(limit) = open_files else {
        return wanted;
    };
    let room = usize::try_from(limit.saturating_sub(DESCRIPTORS_KEPT)).unwrap_or(usize::MAX);
    wanted.min(room).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_limit_stays_under_the_open_files_limit() {
        assert_eq!(connections_within(1024, Some(1_048_576)), 1024);
        assert_eq!(connections_within(1024, Some(1024)), 768);
        assert_eq!(connections_within(1024, None), 1024);
        assert_eq!(connections_within(1024, Some(100)), 1);
    }
}
