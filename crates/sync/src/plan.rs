//! The push plan: a pure function from a record's pending state to the one step that sends it.

use copydesk_core::replica::{Fields, PendingRecord};

/// What to send for one record.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// New here: send its current state.
    Create { body: Fields },
    /// Changed here: send only the fields that differ from the base, so the
    /// server keeps changes made there to other fields.
    Update {
        remote_uuid: String,
        changes: Fields,
    },
    /// Deleted here.
    Delete { remote_uuid: String },
    /// Nothing to send (made and deleted here, or changed back): only settle the outbox.
    Settle,
}

/// The step for `record`.
pub fn plan(record: &PendingRecord) -> Step {
    match (&record.current, &record.remote_uuid) {
        (Some(current), None) => Step::Create {
            body: current.clone(),
        },
        (Some(current), Some(remote_uuid)) => {
            let base = record.base.clone().unwrap_or_default();
            let changes: Fields = current
                .iter()
                .filter(|(field, value)| base.get(*field) != Some(*value))
                .map(|(field, value)| (field.clone(), value.clone()))
                .collect();
            if changes.is_empty() {
                Step::Settle
            } else {
                Step::Update {
                    remote_uuid: remote_uuid.clone(),
                    changes,
                }
            }
        }
        (None, Some(remote_uuid)) => Step::Delete {
            remote_uuid: remote_uuid.clone(),
        },
        (None, None) => Step::Settle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use copydesk_core::replica::RecordType;
    use serde_json::{Value, json};

    fn fields(value: Value) -> Fields {
        value.as_object().cloned().unwrap_or_default()
    }

    fn record(current: Option<Value>, remote: Option<&str>, base: Option<Value>) -> PendingRecord {
        PendingRecord {
            record_type: RecordType::Author,
            uuid: "local".into(),
            remote_uuid: remote.map(str::to_owned),
            current: current.map(fields),
            base: base.map(fields),
            key: "k".into(),
            outbox_ids: vec![1],
            attempts: 0,
            waits: false,
        }
    }

    #[test]
    fn new_records_are_created_whole() {
        let step = plan(&record(
            Some(json!({"name": "Ann", "email": ""})),
            None,
            None,
        ));
        assert_eq!(
            step,
            Step::Create {
                body: fields(json!({"name": "Ann", "email": ""}))
            }
        );
    }

    #[test]
    fn updates_send_only_what_changed() {
        let step = plan(&record(
            Some(json!({"name": "Ann B.", "tagline": "Courts"})),
            Some("remote"),
            Some(json!({"name": "Ann", "tagline": "Courts"})),
        ));
        assert_eq!(
            step,
            Step::Update {
                remote_uuid: "remote".into(),
                changes: fields(json!({"name": "Ann B."}))
            }
        );
    }

    #[test]
    fn unchanged_or_short_lived_records_only_settle() {
        let same = json!({"name": "Ann"});
        assert_eq!(
            plan(&record(Some(same.clone()), Some("r"), Some(same))),
            Step::Settle
        );
        assert_eq!(plan(&record(None, None, None)), Step::Settle);
    }

    #[test]
    fn deletes_name_the_remote_record() {
        assert_eq!(
            plan(&record(None, Some("r"), Some(json!({"name": "Ann"})))),
            Step::Delete {
                remote_uuid: "r".into()
            }
        );
    }
}
