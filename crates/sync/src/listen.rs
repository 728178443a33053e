//! Listening to the central server's change stream while online, so that a replica pulls as soon as the desk writes rather than at its next round.
//!
//! The stream only wakes the rounds: what a round pulls is still read from
//! the change feed, merged three ways as always, so a dropped or missed
//! event costs nothing but the wait until the next round. When the stream
//! drops (the network, the server's restart, an expired token), it is
//! opened again after a pause that doubles up to 30 s, resuming after the
//! last event seen.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

use crate::remote::Remote;

/// The longest pause before the stream is opened again.
const MOST_PAUSE: Duration = Duration::from_secs(30);
/// How long the stream may say nothing (it sends a heartbeat every 15 s)
/// before it is taken for a connection gone half-open, and opened again.
const SILENCE: Duration = Duration::from_secs(45);

/// What the listener tells the rounds: a change arrived, and whether the stream is up.
#[derive(Clone, Default)]
pub struct Listener {
    changed: Arc<Notify>,
    live: Arc<AtomicBool>,
}

impl Listener {
    /// Starts listening to `remote`'s change stream, on a task of its own,
    /// for as long as the runtime runs.
    pub fn start(remote: Arc<Remote>) -> Self {
        let listener = Self::default();
        let heard = listener.clone();
        tokio::spawn(async move { heard.listen(&remote).await });
        listener
    }

    /// Waits for a change on the central server (at once if one arrived
    /// since the last wait).
    pub async fn changed(&self) {
        self.changed.notified().await;
    }

    /// Whether the stream is open now.
    pub fn is_live(&self) -> bool {
        self.live.load(Ordering::Relaxed)
    }

    async fn listen(&self, remote: &Remote) {
        let mut last_event_id: Option<String> = None;
        let mut pause = Duration::from_secs(1);
        loop {
            match remote.change_stream(last_event_id.as_deref()).await {
                Ok(response) => {
                    self.live.store(true, Ordering::Relaxed);
                    pause = Duration::from_secs(1);
                    // Opened again without an id to resume after, what
                    // changed meanwhile sends no event: a round catches up.
                    if last_event_id.is_none() {
                        self.changed.notify_one();
                    }
                    self.read(response, &mut last_event_id).await;
                    self.live.store(false, Ordering::Relaxed);
                    tracing::debug!("the change stream of {} ended", remote.base());
                }
                Err(err) => {
                    tracing::debug!(%err, "the change stream of {} did not open", remote.base());
                }
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(MOST_PAUSE);
        }
    }

    /// Reads events until the stream ends, waking the rounds on each change.
    async fn read(&self, mut response: reqwest::Response, last_event_id: &mut Option<String>) {
        let mut pending = String::new();
        let mut event = Event::default();
        while let Ok(Ok(Some(chunk))) = tokio::time::timeout(SILENCE, response.chunk()).await {
            pending.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = pending.find('\n') {
                let line: String = pending.drain(..=end).collect();
                let line = line.trim_end_matches(['\n', '\r']);
                if line.is_empty() {
                    let done = std::mem::take(&mut event);
                    if done.change {
                        if done.id.is_some() {
                            *last_event_id = done.id;
                        }
                        self.changed.notify_one();
                    }
                } else if let Some(id) = line.strip_prefix("id:") {
                    event.id = Some(id.trim().to_owned());
                } else if line.strip_prefix("event:").map(str::trim) == Some("change") {
                    event.change = true;
                }
            }
        }
    }
}

/// The parts of a Server-Sent Event the listener reads.
#[derive(Default)]
struct Event {
    id: Option<String>,
    change: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_change_wakes_a_wait_that_starts_after_it() {
        let listener = Listener::default();
        listener.changed.notify_one();
        tokio::time::timeout(Duration::from_secs(1), listener.changed())
            .await
            .expect("the change is kept for the next wait");
        assert!(!listener.is_live());
    }
}
