//! Listening to the central server's change stream while online, so that a replica pulls as soon as the desk writes rather than at its next round.
//!
//! The stream only wakes the rounds: what a round pulls is still read from
//! the change feed, merged three ways as always, so a dropped or missed
//! event costs nothing but the wait until the next round. When the stream
//! drops (the network, the server's restart, an expired token), it is
//! opened again after a pause that doubles up to 30 s, resuming after the
//! last event seen. Its `presence` events are relayed to this copy's
//! windows, and this copy's people told to the server (`presence.rs`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use copydesk_core::Cms;
use tokio::sync::Notify;

use crate::presence;
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
    /// for as long as the runtime runs; `cms`'s sync status says whether
    /// the stream is open (`live`).
    pub fn start(cms: &Arc<Cms>, remote: Arc<Remote>) -> Self {
        let listener = Self::default();
        let heard = listener.clone();
        let (forwarded, to) = (Arc::clone(cms), Arc::clone(&remote));
        tokio::spawn(presence::forward(forwarded, to, Arc::clone(&listener.live)));
        let cms = Arc::clone(cms);
        tokio::spawn(async move { heard.listen(&cms, &remote).await });
        listener
    }

    fn set_live(&self, cms: &Cms, live: bool) {
        self.live.store(live, Ordering::Relaxed);
        cms.set_listening(live);
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

    async fn listen(&self, cms: &Arc<Cms>, remote: &Remote) {
        let mut last_event_id: Option<String> = None;
        // The central server's user this key signs as, once known.
        let mut own: Option<String> = None;
        let mut pause = Duration::from_secs(1);
        loop {
            match remote.change_stream(last_event_id.as_deref()).await {
                Ok(response) => {
                    self.set_live(cms, true);
                    pause = Duration::from_secs(1);
                    // Opened again without an id to resume after, what
                    // changed meanwhile sends no event: a round catches up.
                    if last_event_id.is_none() {
                        self.changed.notify_one();
                    }
                    presence::seed(cms, remote, &mut own).await;
                    self.read(cms, remote, response, &mut last_event_id, &mut own)
                        .await;
                    self.set_live(cms, false);
                    presence::forget(cms).await;
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

    /// Reads events until the stream ends, waking the rounds on each change,
    /// relaying each presence event (`own`'s aside), and reading who is
    /// where again at each heartbeat.
    async fn read(
        &self,
        cms: &Arc<Cms>,
        remote: &Remote,
        mut response: reqwest::Response,
        last_event_id: &mut Option<String>,
        own: &mut Option<String>,
    ) {
        // Bytes, not text: a character may be cut between two chunks.
        let mut pending: Vec<u8> = Vec::new();
        let mut event = Event::default();
        while let Ok(Ok(Some(chunk))) = tokio::time::timeout(SILENCE, response.chunk()).await {
            pending.extend_from_slice(&chunk);
            while let Some(end) = pending.iter().position(|b| *b == b'\n') {
                let bytes: Vec<u8> = pending.drain(..=end).collect();
                let line = String::from_utf8_lossy(&bytes);
                let line = line.trim_end_matches(['\n', '\r']);
                if line.is_empty() {
                    let done = std::mem::take(&mut event);
                    match done.kind.as_deref() {
                        Some("change") => {
                            if done.id.is_some() {
                                *last_event_id = done.id;
                            }
                            self.changed.notify_one();
                        }
                        Some("presence") => presence::relay(cms, &done.data, own.as_deref()).await,
                        _ => {}
                    }
                } else if line.starts_with(':') {
                    presence::seed(cms, remote, own).await;
                } else if let Some(id) = line.strip_prefix("id:") {
                    event.id = Some(id.trim().to_owned());
                } else if let Some(kind) = line.strip_prefix("event:") {
                    event.kind = Some(kind.trim().to_owned());
                } else if let Some(data) = line.strip_prefix("data:") {
                    if !event.data.is_empty() {
                        event.data.push('\n');
                    }
                    event.data.push_str(data.strip_prefix(' ').unwrap_or(data));
                }
            }
        }
    }
}

/// The parts of a Server-Sent Event the listener reads.
#[derive(Default)]
struct Event {
    id: Option<String>,
    /// `change` or `presence`.
    kind: Option<String>,
    /// Its data lines, joined.
    data: String,
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
