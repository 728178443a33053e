//! Who has which story open, in which paragraph, and whether they are editing: kept in each server's memory, never stored, logged or synced, and gone when a client stops saying it is there.
//!
//! A client says it is in a story (`PUT /v3/presence/{content uuid}`)
//! every few seconds while the story is open, with the Draft.js key of the
//! block its cursor is in; it is listed until it says it left or until
//! [`DEFAULT_EXPIRY`] passes without a word. Every arrival, move and
//! departure is an event that change streams send to those who may read
//! the story. Presence is a courtesy, not a record: a restart forgets it,
//! and clients say it again within seconds.
//!
//! On a replica that syncs in its own process (the desktop app, `serve
//! --remote`), the sync forwards this copy's people to the central server
//! and relays the central server's people back, by the story's UUID on
//! each side ([`Cms::presence_to_forward`], [`Cms::relay_presence`]): a
//! relayed person is listed until the central server says they left or no
//! longer lists them, or its stream ends.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::Cms;
use crate::access::{Action, Principal};
use crate::clock;
use crate::db::{OptionalExtension as _, Transaction};
use crate::error::{CoreError, Result};
use crate::model::content::CONTENT;
use crate::record_type::RecordType;

/// How long a client is listed after its last word.
pub const DEFAULT_EXPIRY: Duration = Duration::from_secs(30);
/// The longest block key taken (Draft.js keys are five characters).
const MAX_BLOCK: usize = 64;
/// Events kept for streams that fell behind (presence is of the moment:
/// one further behind starts again from now).
const KEPT_EVENTS: usize = 1024;

/// One person in one story, as lists and events give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Present {
    /// The story's UUID.
    pub content: String,
    pub user_uuid: String,
    pub name: String,
    /// The Draft.js key of the block the cursor is in, if any.
    pub block: Option<String>,
    pub editing: bool,
    /// When they came into the story (RFC 3339).
    pub since: String,
}

/// An arrival or a move (`here`), or a departure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresenceEvent {
    pub present: Present,
    pub here: bool,
}

/// What a client says when it says it is in a story.
#[derive(Debug, Clone, Default)]
pub struct PresenceInput {
    pub block: Option<String>,
    pub editing: Option<bool>,
}

struct Entry {
    present: Present,
    seen: Instant,
}

#[derive(Default)]
struct Board {
    /// By story, then user.
    entries: HashMap<(String, String), Entry>,
    /// On a replica: the central server's people, by the server's story
    /// UUID, then user (so that a departure needs no look-up), each under
    /// this copy's story.
    relayed: HashMap<(String, String), Present>,
    /// The position of the newest event.
    version: u64,
    events: VecDeque<(u64, PresenceEvent)>,
}

impl Board {
    fn record(&mut self, event: PresenceEvent) {
        self.version += 1;
        self.events.push_back((self.version, event));
        while self.events.len() > KEPT_EVENTS {
            self.events.pop_front();
        }
    }

    /// Someone relayed from the central server is here (an event when new or moved).
    fn relay(&mut self, key: (String, String), present: Present) {
        if self.relayed.get(&key) != Some(&present) {
            self.relayed.insert(key, present.clone());
            self.record(PresenceEvent {
                present,
                here: true,
            });
        }
    }

    /// Someone relayed from the central server left (an event when they were here).
    fn unrelay(&mut self, key: &(String, String)) {
        if let Some(present) = self.relayed.remove(key) {
            self.record(PresenceEvent {
                present,
                here: false,
            });
        }
    }

    /// Everyone in a story: this server's own, then those relayed to it.
    fn everyone(&self) -> impl Iterator<Item = &Present> {
        self.entries
            .values()
            .map(|e| &e.present)
            .chain(self.relayed.values())
    }

    fn expire(&mut self, expiry: Duration, now: Instant) {
        let gone: Vec<(String, String)> = self
            .entries
            .iter()
            .filter(|(_, entry)| now.duration_since(entry.seen) >= expiry)
            .map(|(key, _)| key.clone())
            .collect();
        for key in gone {
            if let Some(entry) = self.entries.remove(&key) {
                self.record(PresenceEvent {
                    present: entry.present,
                    here: false,
                });
            }
        }
    }
}

/// The board of one server.
pub struct PresenceBoard {
    board: Mutex<Board>,
    expiry: Mutex<Duration>,
}

impl Default for PresenceBoard {
    fn default() -> Self {
        Self {
            board: Mutex::default(),
            expiry: Mutex::new(DEFAULT_EXPIRY),
        }
    }
}

impl PresenceBoard {
    fn board(&self) -> Result<std::sync::MutexGuard<'_, Board>> {
        self.board
            .lock()
            .map_err(|_| CoreError::Internal("the presence board was poisoned".into()))
    }

    fn expiry(&self) -> Duration {
        self.expiry.lock().map_or(DEFAULT_EXPIRY, |e| *e)
    }
}

fn block_of(input: &PresenceInput) -> Result<Option<String>> {
    match input.block.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(block) if block.len() <= MAX_BLOCK && !block.chars().any(char::is_control) => {
            Ok(Some(block.to_owned()))
        }
        Some(_) => Err(CoreError::invalid_field(
            "block",
            format!(
                "\"block\" must be the key of a block of the story: at most {MAX_BLOCK} characters"
            ),
        )),
    }
}

impl Cms {
    /// How long a client is listed after its last word (`serve --presence-expiry`).
    pub fn set_presence_expiry(&self, expiry: Duration) {
        if let Ok(mut kept) = self.presence.expiry.lock() {
            *kept = expiry.max(Duration::from_secs(1));
        }
    }

    /// `PUT /v3/presence/{content uuid}`: the caller is in the story (in
    /// `block`, editing or not); answers who else is.
    pub fn announce_presence(
        &self,
        who: &Principal,
        content: &str,
        input: PresenceInput,
    ) -> Result<Vec<Present>> {
        who.require(Action::ContentGet)?;
        let block = block_of(&input)?;
        let content = self.read(|tx| {
            CONTENT.id_of(tx, content)?;
            Ok(content.to_owned())
        })?;
        let mut board = self.presence.board()?;
        let key = (content.clone(), who.user_uuid.clone());
        let editing = input.editing.unwrap_or(false);
        let now = Instant::now();
        let changed = match board.entries.get_mut(&key) {
            Some(entry) => {
                entry.seen = now;
                let moved = entry.present.block != block || entry.present.editing != editing;
                entry.present.block.clone_from(&block);
                entry.present.editing = editing;
                moved.then(|| entry.present.clone())
            }
            None => {
                let present = Present {
                    content: content.clone(),
                    user_uuid: who.user_uuid.clone(),
                    name: who.name.clone(),
                    block,
                    editing,
                    since: clock::now(),
                };
                board.entries.insert(
                    key,
                    Entry {
                        present: present.clone(),
                        seen: now,
                    },
                );
                Some(present)
            }
        };
        if let Some(present) = changed {
            board.record(PresenceEvent {
                present,
                here: true,
            });
        }
        let mut others: Vec<Present> = board
            .everyone()
            .filter(|p| p.content == content && p.user_uuid != who.user_uuid)
            .cloned()
            .collect();
        others.sort_by(|a, b| a.since.cmp(&b.since).then(a.name.cmp(&b.name)));
        Ok(others)
    }

    /// `DELETE /v3/presence/{content uuid}`: the caller left the story.
    pub fn leave_presence(&self, who: &Principal, content: &str) -> Result<()> {
        who.require(Action::ContentGet)?;
        let mut board = self.presence.board()?;
        if let Some(entry) = board
            .entries
            .remove(&(content.to_owned(), who.user_uuid.clone()))
        {
            board.record(PresenceEvent {
                present: entry.present,
                here: false,
            });
        }
        Ok(())
    }

    /// `GET /v3/presence`: everyone in a story now, by story.
    pub fn presence(&self, who: &Principal) -> Result<Vec<Present>> {
        who.require(Action::ContentGet)?;
        let mut board = self.presence.board()?;
        board.expire(self.presence.expiry(), Instant::now());
        let mut all: Vec<Present> = board.everyone().cloned().collect();
        all.sort_by(|a, b| {
            (a.content.as_str(), a.since.as_str(), a.name.as_str()).cmp(&(
                b.content.as_str(),
                b.since.as_str(),
                b.name.as_str(),
            ))
        });
        Ok(all)
    }

    /// The newest presence event's position, after letting go of those
    /// whose time is up (what change streams watch, with the change log).
    pub fn presence_version(&self) -> Result<u64> {
        let mut board = self.presence.board()?;
        board.expire(self.presence.expiry(), Instant::now());
        Ok(board.version)
    }

    /// The presence events after `version` that `who` may see, and the
    /// position to ask after next (a stream further behind than the kept
    /// events starts again from the newest).
    pub fn presence_after(
        &self,
        who: &Principal,
        version: u64,
    ) -> Result<(Vec<PresenceEvent>, u64)> {
        let board = self.presence.board()?;
        if !who.may(Action::ContentGet) {
            return Ok((Vec::new(), board.version));
        }
        let events = board
            .events
            .iter()
            .filter(|(at, _)| *at > version)
            .map(|(_, event)| event.clone())
            .collect();
        Ok((events, board.version))
    }

    /// On a replica: someone's arrival, move (`here`) or departure on the
    /// central server, their story named by the server's UUID, as its
    /// change stream tells. Listed here under this copy's story until the
    /// server says they left or no longer lists them
    /// ([`Cms::relayed_presence_is`]); a story this copy does not hold
    /// (yet) is passed over.
    pub fn relay_presence(&self, remote: Present, here: bool) -> Result<()> {
        let key = (remote.content.clone(), remote.user_uuid.clone());
        let local = if here {
            self.read(|tx| local_story(tx, &remote.content))?
        } else {
            None
        };
        let mut board = self.presence.board()?;
        match local {
            Some(content) => {
                let present = Present { content, ..remote };
                board.relay(key, present);
            }
            None => board.unrelay(&key),
        }
        Ok(())
    }

    /// On a replica: everyone the central server lists in a story now (its
    /// `GET /v3/presence`, each story by the server's UUID), in place of
    /// whom it told of before: those it no longer lists leave, so a
    /// departure this copy missed, or a stream that ended, leaves no one
    /// behind for long. An empty list forgets them all.
    pub fn relayed_presence_is(&self, everyone: Vec<Present>) -> Result<()> {
        let placed: Vec<((String, String), Option<Present>)> = self.read(|tx| {
            everyone
                .into_iter()
                .map(|remote| {
                    let key = (remote.content.clone(), remote.user_uuid.clone());
                    let local = local_story(tx, &remote.content)?;
                    Ok((key, local.map(|content| Present { content, ..remote })))
                })
                .collect()
        })?;
        let mut board = self.presence.board()?;
        let listed: std::collections::HashSet<&(String, String)> =
            placed.iter().map(|(key, _)| key).collect();
        let gone: Vec<(String, String)> = board
            .relayed
            .keys()
            .filter(|key| !listed.contains(key))
            .cloned()
            .collect();
        for key in gone {
            board.unrelay(&key);
        }
        for (key, present) in placed {
            match present {
                Some(present) => board.relay(key, present),
                None => board.unrelay(&key),
            }
        }
        Ok(())
    }

    /// On a replica: where this copy's own people are, each story by the
    /// central server's UUID, for the sync to tell the server (a story the
    /// server does not hold yet is left out): `(story, block, editing)`.
    pub fn presence_to_forward(&self) -> Result<Vec<(String, Option<String>, bool)>> {
        let here: Vec<Present> = {
            let mut board = self.presence.board()?;
            board.expire(self.presence.expiry(), Instant::now());
            board.entries.values().map(|e| e.present.clone()).collect()
        };
        if here.is_empty() {
            return Ok(Vec::new());
        }
        self.read(|tx| {
            let mut forwarded = Vec::with_capacity(here.len());
            for present in here {
                if let Some(remote) = remote_story(tx, &present.content)? {
                    forwarded.push((remote, present.block, present.editing));
                }
            }
            // One entry a story, as the server knows this copy's key: an
            // editor before a reader, so that "editing" is never hidden.
            forwarded.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)).then(a.1.cmp(&b.1)));
            forwarded.dedup_by(|later, first| later.0 == first.0);
            Ok(forwarded)
        })
    }
}

/// This copy's UUID of the central server's story `remote`, if it holds it.
fn local_story(tx: &Transaction<'_>, remote: &str) -> Result<Option<String>> {
    let local = crate::synced::local_of(tx, RecordType::Content, remote)?;
    Ok(CONTENT.try_id_of(tx, &local)?.map(|_| local))
}

/// The central server's UUID of this copy's story `local`, once it has it.
fn remote_story(tx: &Transaction<'_>, local: &str) -> Result<Option<String>> {
    Ok(tx
        .prepare_cached(
            "SELECT remote_uuid FROM sync_records WHERE record_type = 'content' AND uuid = ?1",
        )?
        .query_row([local], |row| row.get(0))
        .optional()?)
}
