//! How a process that serves the API hears the system ask it to stop
//! (SIGTERM from a logout, `kill` or a service manager; SIGINT from Ctrl-C).
//!
//! The signals are caught from the moment [`StopRequests::catch`] runs and
//! for as long as the value lives, so a stop asked for before anything
//! awaits it, or while a long step runs between two waits, is kept rather
//! than ending the process uncleanly or being lost.

#[cfg(unix)]
use tokio::signal::unix::{Signal, SignalKind, signal};

/// The system's requests to stop, caught from when this was made.
pub struct StopRequests {
    #[cfg(unix)]
    signals: Option<(Signal, Signal)>,
}

impl StopRequests {
    /// Starts catching SIGTERM and SIGINT. Must run inside a Tokio runtime.
    /// Where they cannot be caught (no signal handler can be installed),
    /// [`StopRequests::requested`] never resolves, and says so in the log.
    pub fn catch() -> Self {
        #[cfg(unix)]
        {
            let signals = match (
                signal(SignalKind::terminate()),
                signal(SignalKind::interrupt()),
            ) {
                (Ok(terminate), Ok(interrupt)) => Some((terminate, interrupt)),
                (Err(err), _) | (_, Err(err)) => {
                    tracing::warn!(%err, "stop signals cannot be caught");
                    None
                }
            };
            Self { signals }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// Resolves when the system has asked the process to stop since the
    /// signals were caught (at once if it already has).
    pub async fn requested(&mut self) {
        #[cfg(unix)]
        if let Some((terminate, interrupt)) = &mut self.signals {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
            return;
        }
        std::future::pending::<()>().await;
    }
}
