//! The conflicts a person settles: listed with the record they belong to, and settled with mine or theirs (a paragraph of mine put back in place).

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::access::Action;

/// A conflict as stored, read to settle it.
struct OpenConflict {
    id: i64,
    kind: RecordType,
    record_uuid: String,
    field: String,
    mine: String,
    theirs: String,
    resolved: bool,
    block_position: Option<i64>,
    block_key: Option<String>,
}

/// Settles a paragraph conflict with mine: the paragraph that holds theirs
/// (found by its key, else by its text, else where it stood) becomes mine's,
/// and the rest of the text stays as it is now.
fn replace_block(
    fields: &mut Fields,
    html: &str,
    (position, key): (usize, Option<&str>),
    theirs_html: &str,
    mine_html: &str,
) -> Result<()> {
    let raw_field = format!("{html}_raw");
    let raw = raw_of(fields, &raw_field);
    let stored = stored_text(fields, html, &raw);
    let plain = stored.is_plain();
    let mut text = stored.read();
    let had_raw = raw.is_some();
    drop(raw);
    let paragraph = |text: &str| {
        copydesk_text::merge::StoredText {
            html: text,
            raw: None,
        }
        .read()
        .blocks
    };
    let theirs = paragraph(theirs_html);
    let mine = paragraph(mine_html);
    // Only a paragraph that still reads as the server's wording is replaced:
    // the one with the conflict's key, else the nearest to where it stood.
    let wanted = theirs.first().map(copydesk_text::merge::Block::text);
    let candidates: Vec<usize> = (0..text.blocks.len())
        .filter(|i| Some(text.blocks[*i].text()) == wanted)
        .collect();
    let at = candidates
        .iter()
        .copied()
        .find(|i| key.is_some() && text.blocks[*i].key.as_deref() == key)
        .or_else(|| {
            candidates
                .iter()
                .copied()
                .min_by_key(|i| i.abs_diff(position))
        })
        .ok_or_else(|| CoreError::Conflict {
            message: "that paragraph has changed since; edit it in the story by hand".into(),
            field: Some(html.to_owned()),
        })?;
    let kept_key = text.blocks[at].key.clone();
    let mut replacement = mine;
    // Text typed to settle it keeps the paragraph what it was (a heading stays one).
    if !mine_html.contains('<') {
        for block in &mut replacement {
            block.kind.clone_from(&text.blocks[at].kind);
            block.depth = text.blocks[at].depth;
        }
    }
    if let Some(first) = replacement.first_mut() {
        first.key = kept_key;
    }
    text.blocks.splice(at..=at, replacement);
    fields.insert(
        html.to_owned(),
        Value::String(copydesk_text::merge::write_like(plain, &text)),
    );
    if had_raw {
        fields.insert(
            raw_field,
            Value::String(copydesk_text::merge::draft_raw::to_raw(&text)),
        );
    }
    Ok(())
}

impl Cms {
    /// `POST /v3/sync/conflicts/{uuid}/resolve`: keep `theirs` (as it already is) or
    /// `mine` (written back as a local edit, so the next sync sends it).
    pub fn resolve_conflict(
        &self,
        who: &Principal,
        uuid: &str,
        keep: Option<&str>,
        text: Option<&str>,
    ) -> Result<()> {
        who.require(Action::SyncResolve)?;
        // What to write: `None` keeps theirs, as the text already is.
        let chosen: Option<Option<&str>> = match keep.map(str::trim) {
            Some("mine") => Some(None),
            Some("theirs") => None,
            Some("edited") => Some(Some(text.ok_or_else(|| CoreError::required("text"))?)),
            Some(other) => {
                return Err(CoreError::invalid_field(
                    "keep",
                    format!("\"keep\" is mine, theirs or edited, not \"{other}\""),
                ));
            }
            None => return Err(CoreError::required("keep")),
        };
        self.write(|tx| {
            let found = tx
                .prepare_cached(
                    "SELECT id, record_type, record_uuid, field, mine, resolved_at, theirs, block_position, block_key
                     FROM sync_conflicts WHERE uuid = ?1",
                )?
                .query_row([uuid], |row| {
                    Ok(OpenConflict {
                        id: row.get(0)?,
                        kind: row.get(1)?,
                        record_uuid: row.get(2)?,
                        field: row.get(3)?,
                        mine: row.get(4)?,
                        resolved: row.get::<_, Option<String>>(5)?.is_some(),
                        theirs: row.get(6)?,
                        block_position: row.get(7)?,
                        block_key: row.get(8)?,
                    })
                })
                .optional()?;
            let OpenConflict {
                id,
                kind,
                record_uuid,
                field,
                mine,
                resolved,
                theirs,
                block_position,
                block_key,
            } = found.ok_or_else(|| CoreError::not_found(format!("no conflict with UUID {uuid}")))?;
            if resolved {
                return Err(CoreError::Conflict {
                    message: "this conflict is already settled".into(),
                    field: None,
                });
            }
            if let Some(edited) = chosen
                && field != "*"
            {
                let kept = edited.map_or(mine, str::to_owned);
                let mut fields = current_fields(tx, kind, &record_uuid)?
                    .ok_or_else(|| CoreError::not_found(format!("the {kind} {record_uuid} is gone")))?;
                match block_position {
                    Some(position) => {
                        let place = (usize::try_from(position).unwrap_or(0), block_key.as_deref());
                        replace_block(&mut fields, &field, place, &theirs, &kept)?;
                    }
                    None => {
                        fields.insert(field.clone(), Value::String(kept));
                    }
                }
                kind.carried()?.write(tx, &record_uuid, &fields, None)?;
            }
            let resolution = match chosen {
                None => "theirs",
                Some(None) => "mine",
                Some(Some(_)) => "edited",
            };
            tx.prepare_cached("UPDATE sync_conflicts SET resolved_at = ?2, resolution = ?3 WHERE id = ?1")?
                .execute(params![id, clock::now(), resolution])?;
            Ok(())
        })
    }

    /// `GET /v3/sync/conflicts`: the conflicts still to settle, oldest first.
    pub fn sync_conflicts(&self, who: &Principal) -> Result<Vec<SyncConflict>> {
        who.require(Action::SyncGet)?;
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT uuid, record_type, record_uuid, field, mine, theirs, created_at,
                        block_position, block_key, block_before, block_after
                 FROM sync_conflicts WHERE resolved_at IS NULL ORDER BY id",
            )?;
            let rows = stmt.query_map([], |row| {
                let record_type: RecordType = row.get(1)?;
                let record_uuid: String = row.get(2)?;
                let position: Option<i64> = row.get(7)?;
                Ok(SyncConflict {
                    uuid: row.get(0)?,
                    srn: self.srn(record_type, &record_uuid),
                    record: RecordLabel {
                        record_type,
                        uuid: record_uuid,
                        headline: String::new(),
                        story: None,
                    },
                    field: row.get(3)?,
                    mine: row.get(4)?,
                    theirs: row.get(5)?,
                    created_at: row.get(6)?,
                    block: match position {
                        Some(position) => Some(BlockPlace {
                            position: usize::try_from(position).unwrap_or(0),
                            key: row.get(8)?,
                            before: row.get(9)?,
                            after: row.get(10)?,
                        }),
                        None => None,
                    },
                })
            })?;
            let mut found: Vec<SyncConflict> = rows.collect::<Result<_, _>>()?;
            for conflict in &mut found {
                conflict.record = label_of(tx, conflict.record.record_type, &conflict.record.uuid)?;
            }
            Ok(found)
        })
    }
}
