//! Who is in which story, carried between a replica and the central server while the change stream is up: this copy's people told to the server, the server's people relayed to this copy's windows.
//!
//! Presence is never synced as data: nothing here touches the outbox or
//! the change log. The server's people arrive as `presence` events on the
//! stream the listener already reads (and, when it opens, from
//! `GET /v3/presence`); they are listed here under this copy's story until
//! the server says they left or the stream ends. This copy's people are
//! read from its own board every second and told to the server
//! (`PUT /v3/presence/{the server's story UUID}`) when they move and every
//! ten seconds besides, as a window does; when they leave, the server is
//! told too (`DELETE`). Both sides name a story by their own UUID; the
//! core maps them by the sync's record of each story.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use copydesk_core::Cms;
use copydesk_core::presence::Present;
use copydesk_wire as wire;
use reqwest::Method;
use serde_json::json;

use crate::remote::Remote;

/// How often this copy's board is read for people to tell the server of.
const LOOK_EVERY: Duration = Duration::from_secs(1);
/// How often the server is told again of someone who has not moved (it
/// forgets them after 30 s without a word).
const HEARTBEAT: Duration = Duration::from_secs(10);
/// How long a departure the server did not take is sent again: by then it
/// has forgotten them by itself.
const FORGOTTEN: Duration = Duration::from_secs(30);

/// Runs `work` on the blocking pool as the rounds do; a refusal is only logged (presence is a courtesy).
async fn on_core<T: Send + 'static>(
    cms: &Arc<Cms>,
    work: impl FnOnce(&Cms) -> copydesk_core::Result<T> + Send + 'static,
) -> Option<T> {
    crate::local::blocking(cms, work)
        .await
        .map_err(|err| tracing::debug!(%err, "presence: the local service refused"))
        .ok()
}

/// The central server's user this copy's key signs as: its own presence,
/// echoed back on the stream, is not relayed.
pub(crate) async fn own_user(remote: &Remote) -> Option<String> {
    match remote.get::<wire::Me>("/v3/me").await {
        Ok(me) => Some(me.user.uuid),
        Err(err) => {
            tracing::debug!(%err, "presence: the central server did not say who this key is");
            None
        }
    }
}

/// One `presence` event's data, relayed unless it is this copy's own.
pub(crate) async fn relay(cms: &Arc<Cms>, data: &str, own: Option<&str>) {
    let Ok(event) = serde_json::from_str::<wire::Presence>(data) else {
        tracing::debug!("presence: an event that is not presence");
        return;
    };
    if own.is_none_or(|own| own == event.user_uuid) {
        return;
    }
    let here = event.here;
    let present = present_of(event);
    on_core(cms, move |cms| cms.relay_presence(present, here)).await;
}

fn present_of(event: wire::Presence) -> Present {
    Present {
        content: event.content,
        user_uuid: event.user_uuid,
        name: event.name,
        block: event.block,
        editing: event.editing,
        since: event.since,
    }
}

/// Everyone the server has in a story now, in place of whom it told of
/// before: when the stream opens (the events of who came before are not
/// sent again), and at each of its heartbeats, so that a departure missed
/// meanwhile leaves no one listed for long. Learns who this copy's key is
/// first, when it does not know yet.
pub(crate) async fn seed(cms: &Arc<Cms>, remote: &Remote, own: &mut Option<String>) {
    if own.is_none() {
        *own = own_user(remote).await;
    }
    let Some(own) = own.clone() else { return };
    let everyone = match remote
        .get::<wire::Items<wire::Presence>>("/v3/presence")
        .await
    {
        Ok(list) => list.items,
        Err(err) => {
            tracing::debug!(%err, "presence: the central server's list did not come");
            return;
        }
    };
    let others: Vec<Present> = everyone
        .into_iter()
        .filter(|p| p.user_uuid != own)
        .map(present_of)
        .collect();
    on_core(cms, move |cms| cms.relayed_presence_is(others)).await;
}

/// The stream ended: the server's people are no longer known here.
pub(crate) async fn forget(cms: &Arc<Cms>) {
    on_core(cms, |cms| cms.relayed_presence_is(Vec::new())).await;
}

/// Tells the central server where this copy's people are, for as long as
/// the runtime runs, while `live` says its stream is open (a server that
/// cannot be reached forgets them by itself within 30 s).
pub(crate) async fn forward(cms: Arc<Cms>, remote: Arc<Remote>, live: Arc<AtomicBool>) {
    // What the server was last told, by its story UUID, and when.
    let mut told: HashMap<String, ((Option<String>, bool), Instant)> = HashMap::new();
    // Departures not yet taken, and since when (the server forgets by itself after 30 s).
    let mut leaving: HashMap<String, Instant> = HashMap::new();
    loop {
        tokio::time::sleep(LOOK_EVERY).await;
        let now = Instant::now();
        let here = if live.load(Ordering::Relaxed) {
            match on_core(&cms, Cms::presence_to_forward).await {
                Some(here) => here,
                None => continue,
            }
        } else {
            // The stream is down: whoever was told of leaves, as far as the server can still hear it.
            Vec::new()
        };
        let mut still = HashMap::with_capacity(here.len());
        for (story, block, editing) in here {
            leaving.remove(&story);
            let place = (block, editing);
            let known = told.remove(&story);
            if let Some((was, at)) = known.as_ref()
                && *was == place
                && now.duration_since(*at) < HEARTBEAT
            {
                still.insert(story, (place, *at));
                continue;
            }
            let body = json!({"block": place.0, "editing": place.1});
            let path = format!("/v3/presence/{story}");
            match remote
                .request::<_, serde_json::Value>(Method::PUT, &path, Some(&body), None)
                .await
            {
                Ok(_) => {
                    still.insert(story, (place, now));
                }
                Err(err) => tracing::debug!(%err, "presence: the central server was not told"),
            }
        }
        leaving.extend(told.drain().map(|(story, _)| (story, now)));
        told = still;
        let mut left = Vec::new();
        for (story, since) in &leaving {
            let path = format!("/v3/presence/{story}");
            let taken = remote
                .request::<(), serde_json::Value>(Method::DELETE, &path, None, None)
                .await;
            if taken.is_ok() || now.duration_since(*since) > FORGOTTEN {
                left.push(story.clone());
            } else if let Err(err) = taken {
                tracing::debug!(%err, "presence: the central server was not told of a departure");
            }
        }
        for story in left {
            leaving.remove(&story);
        }
    }
}
