//! A Server-Sent Events stream (`GET /v3/changes/stream`) read on a thread of its own, so that a test waits for each event with a deadline.

use std::io::{BufRead as _, BufReader};
use std::sync::mpsc;
use std::time::Duration;

use reqwest::blocking::Client;

/// One event as the stream sent it; a comment line (a heartbeat) comes as
/// an event named `comment` with the comment as its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub id: Option<String>,
    pub event: String,
    pub data: String,
}

/// An open stream: its events as they arrive.
pub struct EventStream {
    events: mpsc::Receiver<SseEvent>,
}

impl EventStream {
    /// Opens `url` with `token`, resuming after `last_event_id` when given.
    /// Panics unless the server answers 200 with `text/event-stream`.
    pub fn open(url: &str, token: &str, last_event_id: Option<&str>) -> Self {
        let client = Client::builder()
            .timeout(None::<Duration>)
            .build()
            .expect("a client");
        let mut request = client.get(url).bearer_auth(token);
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let response = request.send().expect("the server answers");
        assert_eq!(response.status().as_u16(), 200, "the stream opens");
        let content_type = crate::header(&response, "content-type").unwrap_or_default();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        let (sender, events) = mpsc::channel();
        std::thread::spawn(move || {
            let mut event = SseEvent {
                id: None,
                event: "message".to_owned(),
                data: String::new(),
            };
            for line in BufReader::new(response).lines() {
                let Ok(line) = line else { return };
                if line.is_empty() {
                    let done = std::mem::replace(
                        &mut event,
                        SseEvent {
                            id: None,
                            event: "message".to_owned(),
                            data: String::new(),
                        },
                    );
                    if !done.data.is_empty() && sender.send(done).is_err() {
                        return;
                    }
                    continue;
                }
                let (field, value) = line.split_once(':').unwrap_or((line.as_str(), ""));
                let value = value.strip_prefix(' ').unwrap_or(value).to_owned();
                match field {
                    "" => {
                        let comment = SseEvent {
                            id: None,
                            event: "comment".to_owned(),
                            data: value,
                        };
                        if sender.send(comment).is_err() {
                            return;
                        }
                    }
                    "id" => event.id = Some(value),
                    "event" => event.event = value,
                    "data" => {
                        if !event.data.is_empty() {
                            event.data.push('\n');
                        }
                        event.data.push_str(&value);
                    }
                    _ => {}
                }
            }
        });
        Self { events }
    }

    /// The next event (comments included) within `wait`, or `None`.
    pub fn next_within(&self, wait: Duration) -> Option<SseEvent> {
        self.events.recv_timeout(wait).ok()
    }

    /// Whether the server ended the stream within `wait` (the events before its end are read and dropped).
    pub fn ended_within(&self, wait: Duration) -> bool {
        let deadline = std::time::Instant::now() + wait;
        loop {
            let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) else {
                return false;
            };
            match self.events.recv_timeout(left) {
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return true,
                Err(mpsc::RecvTimeoutError::Timeout) => return false,
            }
        }
    }

    /// The next `change` event within `wait` (comments skipped), or `None`.
    pub fn next_change_within(&self, wait: Duration) -> Option<SseEvent> {
        let deadline = std::time::Instant::now() + wait;
        loop {
            let left = deadline.checked_duration_since(std::time::Instant::now())?;
            let event = self.next_within(left)?;
            if event.event == "change" {
                return Some(event);
            }
        }
    }
}
