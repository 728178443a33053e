//! `GET /v3/changes/stream`: the change feed as Server-Sent Events, each change as it is written, resumable from the last event a client saw.
//!
//! One task per server watches the change log's newest position (a query
//! of its index, four times a second while any stream is open) and
//! the presence board's, and wakes every open stream when either moves; a
//! woken stream reads the feed after its own cursor as its caller, so each
//! `change` event is one change-feed entry (its `seq` the event id) of a
//! record the caller may read, and each `presence` event (no id: presence
//! is of the moment, never resumed) someone arriving in a story the caller
//! may read, moving in it or leaving it. Polling
//! rather than a signal from this process's own writes: on PostgreSQL
//! another node writes too, and the log is the one place every node's
//! write reaches. A client resumes with `Last-Event-ID` (or `since`),
//! across a restart too, since the cursor is the log's own position; the
//! caller's token is checked again at every read, so a stream ends when
//! its key is revoked or its token expires, and the client opens another
//! with a fresh token and the last id it saw.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use copydesk_core::Cms;
use copydesk_core::changes::Change;
use futures_util::Stream;
use tokio::sync::watch;

use crate::AppState;
use crate::extract::Bearer;
use crate::slots::Slot;

/// How often the change log's newest position is read.
const WATCH_EVERY: Duration = Duration::from_millis(250);
/// How often an idle stream says it is still there (a comment line).
pub const HEARTBEAT: Duration = Duration::from_secs(15);

/// Where the change log and the presence board are: what streams wait to see move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Positions {
    changes: i64,
    presence: u64,
}

/// The newest positions, watched by one task for every stream.
#[derive(Clone, Default)]
pub struct Head {
    watched: Arc<OnceLock<watch::Receiver<Positions>>>,
}

impl Head {
    /// A receiver of the newest position, the watching task started on first use.
    pub fn subscribe(&self, cms: &Arc<Cms>) -> watch::Receiver<Positions> {
        self.watched
            .get_or_init(|| {
                let (sender, receiver) = watch::channel(Positions::default());
                let cms = Arc::clone(cms);
                tokio::spawn(async move {
                    loop {
                        // Only while a stream listens: the receiver kept here is the one left otherwise.
                        if sender.receiver_count() <= 1 {
                            tokio::time::sleep(WATCH_EVERY).await;
                            continue;
                        }
                        let reading = Arc::clone(&cms);
                        let read = tokio::task::spawn_blocking(move || {
                            Ok::<_, copydesk_core::CoreError>(Positions {
                                changes: reading.change_head()?,
                                presence: reading.presence_version()?,
                            })
                        });
                        if let Ok(Ok(head)) = read.await {
                            sender.send_if_modified(|seen| {
                                let moved = *seen != head;
                                *seen = head;
                                moved
                            });
                        }
                        tokio::time::sleep(WATCH_EVERY).await;
                    }
                });
                receiver
            })
            .clone()
    }
}

/// Whether the server serving a request is stopping: a stream ends then,
/// so that the server's clean stop does not wait on it (put in each
/// request's extensions by `serve`).
#[derive(Clone)]
pub struct Stopping(pub watch::Receiver<bool>);

impl Stopping {
    /// Never stopping: a router served without `serve` (the tests' own).
    fn never() -> Self {
        static NEVER: OnceLock<watch::Sender<bool>> = OnceLock::new();
        Self(NEVER.get_or_init(|| watch::channel(false).0).subscribe())
    }
}

/// One open stream: whose it is, where it is in the feed, what waits to be sent.
struct Open {
    state: AppState,
    bearer: Bearer,
    cursor: i64,
    /// The presence events sent so far.
    presence_cursor: u64,
    waiting: VecDeque<Event>,
    head: watch::Receiver<Positions>,
    stopping: Stopping,
    /// Its place among the streams the key and the server keep open.
    _slot: Slot,
}

/// A change as its event: `id` its position, `event: change`, the data as `GET /v3/changes` gives it.
fn event_of(change: Change) -> Event {
    let data = copydesk_wire::Change {
        seq: change.seq.to_string(),
        record_type: change.record_type.to_string(),
        uuid: change.uuid,
        operation: change.operation,
        changed_at: change.changed_at,
        parent: change.parent,
    };
    Event::default()
        .id(change.seq.to_string())
        .event("change")
        .json_data(data)
        .unwrap_or_else(|_| Event::default().comment("a change could not be written"))
}

/// Someone's arrival, move or departure as its event: `event: presence`, no id.
fn presence_event_of(event: copydesk_core::presence::PresenceEvent) -> Event {
    let data = crate::present::presence(event.present, event.here);
    Event::default()
        .event("presence")
        .json_data(data)
        .unwrap_or_else(|_| Event::default().comment("a presence could not be written"))
}

impl Open {
    /// The next event, reading the feed and waiting for the log to move as
    /// needed; `None` when the caller may no longer read it (the stream ends).
    async fn next(&mut self) -> Option<Event> {
        // The first read looks at both; later ones only at what moved.
        let (mut read_changes, mut read_presence) = (true, true);
        loop {
            if let Some(event) = self.waiting.pop_front() {
                return Some(event);
            }
            let (since, seen) = (self.cursor, self.presence_cursor);
            let (feed, presence) = self
                .state
                .call(self.bearer.clone(), move |cms, who| {
                    let feed = match read_changes {
                        true => Some(cms.readable_changes_since(who, since)?),
                        false => None,
                    };
                    let presence = match read_presence {
                        true => Some(cms.presence_after(who, seen)?),
                        false => None,
                    };
                    Ok((feed, presence))
                })
                .await
                .ok()?;
            let mut more = false;
            if let Some(feed) = feed {
                self.cursor = feed.last;
                more = feed.more;
                self.waiting.extend(feed.items.into_iter().map(event_of));
            }
            if let Some((arrivals, presence_cursor)) = presence {
                self.presence_cursor = presence_cursor;
                self.waiting
                    .extend(arrivals.into_iter().map(presence_event_of));
            }
            if !self.waiting.is_empty() || more {
                (read_changes, read_presence) = (more, false);
                continue;
            }
            (read_changes, read_presence) = self.moved().await?;
        }
    }

    /// Waits for the change log or the presence board to move past what
    /// this stream has sent: which of the two moved. `None` when the server
    /// stops, or when the caller's token no longer lets them in (checked at
    /// every heartbeat, so that a quiet stream ends too).
    async fn moved(&mut self) -> Option<(bool, bool)> {
        loop {
            let head = *self.head.borrow_and_update();
            let changes = head.changes > self.cursor;
            let presence = head.presence > self.presence_cursor;
            if changes || presence {
                return Some((changes, presence));
            }
            let quiet = tokio::select! {
                moved = self.head.changed() => {
                    moved.ok()?;
                    false
                }
                () = tokio::time::sleep(HEARTBEAT) => true,
                stopped = self.stopping.0.wait_for(|stopping| *stopping) => {
                    drop(stopped);
                    return None;
                }
            };
            if quiet {
                self.state
                    .call(self.bearer.clone(), |_, _| Ok(()))
                    .await
                    .ok()?;
            }
        }
    }
}

/// The stream of a caller already let in, after `cursor`.
pub fn open(
    state: AppState,
    bearer: Bearer,
    cursor: i64,
    slot: Slot,
    stopping: Option<Stopping>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let head = state.head.subscribe(&state.cms);
    // Presence from now on: who is already here is `GET /v3/presence`'s to say.
    let presence_cursor = state.cms.presence_version().unwrap_or(0);
    let open = Open {
        state,
        bearer,
        cursor,
        presence_cursor,
        waiting: VecDeque::new(),
        head,
        stopping: stopping.unwrap_or_else(Stopping::never),
        _slot: slot,
    };
    let events = futures_util::stream::unfold(open, |mut open| async move {
        let event = open.next().await?;
        Some((Ok(event), open))
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(HEARTBEAT).text("heartbeat"))
}
