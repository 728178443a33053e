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
    terminate: Option<Signal>,
    #[cfg(unix)]
    interrupt: Option<Signal>,
}

impl StopRequests {
    /// Starts catching SIGTERM and SIGINT. Must run inside a Tokio runtime.
    /// A signal that cannot be caught (no handler can be installed for it)
    /// is left to the system's default, and the log says so.
    pub fn catch() -> Self {
        #[cfg(unix)]
        {
            let caught = |kind: SignalKind, name: &str| {
                signal(kind)
                    .map_err(|err| tracing::warn!(%err, "{name} cannot be caught"))
                    .ok()
            };
            Self {
                terminate: caught(SignalKind::terminate(), "SIGTERM"),
                interrupt: caught(SignalKind::interrupt(), "SIGINT"),
            }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// Resolves when the system has asked the process to stop since the
    /// signals were caught (at once if it has and this has not yet told).
    pub async fn requested(&mut self) {
        #[cfg(unix)]
        {
            async fn received(signal: Option<&mut Signal>) {
                match signal {
                    Some(signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                () = received(self.terminate.as_mut()) => {}
                () = received(self.interrupt.as_mut()) => {}
            }
        }
        #[cfg(not(unix))]
        std::future::pending::<()>().await;
    }
}
