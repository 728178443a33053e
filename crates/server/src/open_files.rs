//! The open-files limit the server runs with: raised at start to what the system allows, and how many connections fit in it.
//!
//! systemd starts services with a soft limit of 1,024 open files (its
//! hard limit is far higher); every connection takes one, so a server left
//! at 1,024 is out of files after about a thousand idle clients.

/// Files kept for the database and its journal, uploads being written,
/// previews read and logs, besides the connections.
const FILES_BESIDE_CONNECTIONS: u64 = 256;

/// The most connections served at once by default, however many files the
/// process may open.
const MOST_CONNECTIONS: u64 = 16_384;

/// The fewest connections served at once, however few files it may open.
const FEWEST_CONNECTIONS: u64 = 64;

/// Raises the open-files soft limit to the hard limit, says so in the log,
/// and returns how many connections fit beside the server's own files.
pub fn raise_and_fit() -> usize {
    let before = rlimit::getrlimit(rlimit::Resource::NOFILE).ok();
    let now = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(now) => now,
        Err(err) => {
            tracing::warn!(%err, "the open-files limit could not be read or raised");
            before.map_or(1_024, |(soft, _)| soft)
        }
    };
    match before {
        Some((soft, _)) if soft < now => tracing::info!(
            "open files: the soft limit is raised from {soft} to {now}, the hard limit"
        ),
        _ => tracing::info!("open files: the limit is {now}"),
    }
    connections_fitting(now)
}

/// The connections that fit in `open_files`.
fn connections_fitting(open_files: u64) -> usize {
    let fit = open_files
        .saturating_sub(FILES_BESIDE_CONNECTIONS)
        .clamp(FEWEST_CONNECTIONS, MOST_CONNECTIONS);
    usize::try_from(fit).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_leave_room_for_the_servers_own_files() {
        assert_eq!(connections_fitting(1_024), 768);
        assert_eq!(connections_fitting(20_000), 16_384);
        assert_eq!(connections_fitting(100), 64);
    }
}
