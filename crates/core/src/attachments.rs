//! Attachments: a media item's file as a record, who may change it and how, and the file behind a public or original URL; the files themselves are the store's `uploads`.
//!
//! Every change of the files (a new master, a new preview angle) writes a new
//! salt folder ([`crate::store::uploads`]) before the transaction that points
//! the record at it; the old folder is removed only after that commit. A
//! crash at any point leaves the record pointing at complete files.

use crate::access::Action;
use std::fs;
use std::path::PathBuf;

use crate::db::{Dialect, OptionalExtension as _, Transaction, params};
use serde_json::{Map, Value};

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::error::{CoreError, Result};
use crate::model::attachment::COLUMNS;
pub use crate::model::attachment::{Attachment, Upload};
use crate::model::content::audit;
use crate::model::content::{CONTENT, ContentItem};
use crate::records::new_uuid;
pub use crate::store::uploads::{MAX_DECODED_IMAGE_BYTES, PREVIEW_MAX_SIDE};
use crate::store::uploads::{
    Oversized, WrittenFiles, cached_file, hash_file, remove_folder, store_in_database,
    write_from_reader, write_upload,
};

/// What one attachment PUT asks for: exactly one kind of change.
#[derive(Debug, Clone)]
pub enum AttachmentChange {
    Replace(Upload),
    Angle(String),
    Metadata(Value),
}

/// A master file on its way in (see [`Cms::begin_attachment_upload`]): its
/// own fresh folder, removed with everything in it if the upload never
/// finishes.
pub struct IncomingFile {
    files: WrittenFiles,
    content_uuid: String,
}

impl IncomingFile {
    /// Where the upload writes the file's bytes.
    pub fn path(&self) -> PathBuf {
        self.files.incoming_path()
    }
}

/// Records `files` as the attachment of `content_id`, replacing the file of
/// any earlier one (a new attachment is made with `uuid`, or a fresh one).
/// Returns the salt of the replaced files, to be removed after commit.
pub(crate) fn record_files(
    tx: &Transaction<'_>,
    content_id: i64,
    files: &WrittenFiles,
    angle: u32,
    uuid: Option<&str>,
) -> Result<Option<String>> {
    let now = clock::now();
    let old: Option<(i64, String)> = tx
        .prepare_cached("SELECT id, salt FROM attachments WHERE content_id = ?1")?
        .query_row([content_id], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let size = i64::try_from(files.size).unwrap_or(i64::MAX);
    if tx.dialect() == Dialect::Postgres
        && let Some((_, old_salt)) = &old
    {
        tx.prepare_cached("DELETE FROM attachment_files WHERE salt = ?1")?
            .execute([old_salt])?;
    }
    match &old {
        Some((id, _)) => {
            tx.prepare_cached(
                "UPDATE attachments SET base_name = ?2, salt = ?3, extension = ?4, preview_extension = ?5,
                 type = ?6, width = ?7, height = ?8, angle = ?9, size_bytes = ?10, modified_at = ?11,
                 sha256 = ?12 WHERE id = ?1",
            )?
            .execute(params![
                id,
                files.base_name,
                files.salt,
                files.extension,
                files.preview_extension,
                files.kind,
                files.width,
                files.height,
                angle,
                size,
                now,
                files.sha256
            ])?;
        }
        None => {
            tx.prepare_cached(
                "INSERT INTO attachments (uuid, content_id, base_name, salt, extension, preview_extension, type,
                 width, height, angle, size_bytes, created_at, modified_at, sha256)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13)",
            )?
            .execute(params![
                uuid.map_or_else(new_uuid, str::to_owned),
                content_id,
                files.base_name,
                files.salt,
                files.extension,
                files.preview_extension,
                files.kind,
                files.width,
                files.height,
                angle,
                size,
                now,
                files.sha256
            ])?;
            tx.prepare_cached(
                "UPDATE content SET has_attachment = 1, modified_at = ?2 WHERE id = ?1",
            )?
            .execute(params![content_id, now])?;
        }
    }
    if tx.dialect() == Dialect::Postgres {
        store_in_database(tx, files)?;
    }
    Ok(old.map(|(_, salt)| salt))
}

fn parse_angle(raw: &str) -> Result<u32> {
    let angle: i64 = raw
        .trim()
        .parse()
        .map_err(|_| CoreError::invalid_field("angle", format!("\"{raw}\" is not an angle")))?;
    let normalised = angle.rem_euclid(360);
    if normalised % 90 != 0 {
        return Err(CoreError::invalid_field(
            "angle",
            "the preview turns by quarter turns: 0, 90, 180 or 270",
        ));
    }
    u32::try_from(normalised).map_err(|_| CoreError::invalid_field("angle", "bad angle"))
}

/// Keeps only the preview settings the spec names, each as a string.
fn parse_metadata(raw: &Value) -> Result<Value> {
    const KEYS: &[&str] = &["crop", "fit", "fp-x", "fp-y", "h", "w"];
    let previews = raw.as_object().ok_or_else(|| {
        CoreError::invalid_field(
            "metadata",
            "metadata must be an object keyed by preview name",
        )
    })?;
    let mut out = Map::new();
    for (preview, settings) in previews {
        let settings = settings.as_object().ok_or_else(|| {
            CoreError::invalid_field("metadata", format!("metadata.{preview} must be an object"))
        })?;
        let mut clean = Map::new();
        for (key, value) in settings {
            if !KEYS.contains(&key.as_str()) {
                return Err(CoreError::invalid_field(
                    "metadata",
                    format!(
                        "metadata.{preview} may hold only {}, not \"{key}\"",
                        KEYS.join(", ")
                    ),
                ));
            }
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Null => continue,
                _ => {
                    return Err(CoreError::invalid_field(
                        "metadata",
                        format!("metadata.{preview}.{key} must be a string"),
                    ));
                }
            };
            clean.insert(key.clone(), Value::String(text));
        }
        out.insert(preview.clone(), Value::Object(clean));
    }
    Ok(Value::Object(out))
}

impl Cms {
    /// Removes the folders of uploads cut off before their record was
    /// written, last changed at least `min_age` ago (see
    /// `orphaned_uploads`); returns how many.
    pub fn remove_orphaned_uploads(&self, min_age: std::time::Duration) -> Result<usize> {
        let salts: std::collections::HashSet<String> = self.read(|tx| {
            let mut statement = tx.prepare("SELECT salt FROM attachments")?;
            let salts = statement
                .query_map([], |row| row.get::<_, String>(0))?
                .collect::<std::result::Result<_, _>>()?;
            Ok(salts)
        })?;
        Ok(copydesk_store::orphaned_uploads::remove(
            self.store.files_dir(),
            &salts,
            min_age,
        ))
    }

    pub(crate) fn attachment_of_content(
        &self,
        tx: &Transaction<'_>,
        content_id: i64,
    ) -> Result<Option<Attachment>> {
        let sql = format!("SELECT {COLUMNS} FROM attachments a WHERE a.content_id = ?1");
        Ok(tx
            .prepare_cached(&sql)?
            .query_row([content_id], |row| {
                crate::model::attachment::from_row(row, &self.namespace)
            })
            .optional()?)
    }

    /// `PUT /v3/attachment/{content uuid}`: one kind of change to the item's attachment.
    pub fn update_attachment(
        &self,
        who: &Principal,
        content_uuid: &str,
        change: AttachmentChange,
    ) -> Result<ContentItem> {
        who.require(Action::AttachmentUpdate)?;
        let files_dir = self.store.files_dir().to_owned();
        // Files are written before the transaction, so a refused request removes them again.
        let (written, old_salt, item) = match change {
            AttachmentChange::Replace(upload) => {
                let files = write_upload(&files_dir, &upload.name, &upload.file_base64, 0)?;
                let (old_salt, item) = self.write(|tx| {
                    let content_id = CONTENT.id_of(tx, content_uuid)?;
                    self.check_writable(tx, who, content_id)?;
                    let old_salt = record_files(tx, content_id, &files, 0, None)?;
                    audit(tx, content_id, who, "attachment", "replaced the file")?;
                    Ok((old_salt, self.content_item(tx, content_id)?))
                })?;
                (Some(files), old_salt, item)
            }
            AttachmentChange::Angle(raw) => {
                let angle = parse_angle(&raw)?;
                let current = self.read(|tx| {
                    let content_id = CONTENT.id_of(tx, content_uuid)?;
                    self.attachment_of_content(tx, content_id)?.ok_or_else(|| {
                        CoreError::not_found(format!("content {content_uuid} has no attachment"))
                    })
                })?;
                let original = cached_file(
                    &self.store,
                    &current.salt,
                    &format!("original.{}", current.extension),
                )?;
                let files = write_from_reader(
                    &files_dir,
                    &format!("{}.{}", current.base_name, current.extension),
                    &mut fs::File::open(&original)?,
                    u64::MAX,
                    angle,
                    Oversized::Refuse,
                )?;
                let (old_salt, item) = self.write(|tx| {
                    let content_id = CONTENT.id_of(tx, content_uuid)?;
                    self.check_writable(tx, who, content_id)?;
                    let now_current = self.attachment_of_content(tx, content_id)?;
                    if now_current.as_ref().map(|a| &a.salt) != Some(&current.salt) {
                        return Err(CoreError::Conflict {
                            message: "the attachment changed meanwhile; try again".into(),
                            field: None,
                        });
                    }
                    let old_salt = record_files(tx, content_id, &files, angle, None)?;
                    audit(
                        tx,
                        content_id,
                        who,
                        "attachment",
                        &format!("turned the preview to {angle}°"),
                    )?;
                    Ok((old_salt, self.content_item(tx, content_id)?))
                })?;
                (Some(files), old_salt, item)
            }
            AttachmentChange::Metadata(raw) => {
                let metadata = parse_metadata(&raw)?;
                let item = self.write(|tx| {
                    let content_id = CONTENT.id_of(tx, content_uuid)?;
                    self.check_writable(tx, who, content_id)?;
                    let attachment =
                        self.attachment_of_content(tx, content_id)?.ok_or_else(|| {
                            CoreError::not_found(format!(
                                "content {content_uuid} has no attachment"
                            ))
                        })?;
                    tx.prepare_cached(
                        "UPDATE attachments SET metadata = ?2, modified_at = ?3 WHERE id = ?1",
                    )?
                    .execute(params![
                        attachment.id,
                        metadata.to_string(),
                        clock::now()
                    ])?;
                    audit(
                        tx,
                        content_id,
                        who,
                        "attachment",
                        "changed the preview settings",
                    )?;
                    self.content_item(tx, content_id)
                })?;
                (None, None, item)
            }
        };
        if let Some(files) = written {
            files.keep();
        }
        if let Some(salt) = old_salt {
            remove_folder(&files_dir, &salt);
        }
        Ok(item)
    }

    /// `PUT /v3/attachment/{content uuid}/file` (a Copydesk extension),
    /// first step: checks that `who` may replace the file, and makes the
    /// place the new master file is streamed into, never held in memory.
    pub fn begin_attachment_upload(
        &self,
        who: &Principal,
        content_uuid: &str,
        name: Option<&str>,
    ) -> Result<IncomingFile> {
        who.require(Action::AttachmentUpdate)?;
        let name = name
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| CoreError::required("name"))?;
        // Refuse early what would be refused after the upload.
        self.read(|tx| {
            let content_id = CONTENT.id_of(tx, content_uuid)?;
            self.check_writable(tx, who, content_id)
        })?;
        Ok(IncomingFile {
            files: WrittenFiles::new_folder(self.store.files_dir(), name)?,
            content_uuid: content_uuid.to_owned(),
        })
    }

    /// Second step, once the whole file is in [`IncomingFile::path`]: reads
    /// what it is, writes its preview and records it as the item's file.
    pub fn finish_attachment_upload(
        &self,
        who: &Principal,
        incoming: IncomingFile,
    ) -> Result<ContentItem> {
        who.require(Action::AttachmentUpdate)?;
        let IncomingFile {
            mut files,
            content_uuid,
        } = incoming;
        let (size, sha256) = hash_file(&files.incoming_path())?;
        files.size = size;
        files.sha256 = sha256;
        files.complete(0, Oversized::Refuse)?;
        let (old_salt, item) = self.write(|tx| {
            let content_id = CONTENT.id_of(tx, &content_uuid)?;
            self.check_writable(tx, who, content_id)?;
            let old_salt = record_files(tx, content_id, &files, 0, None)?;
            audit(tx, content_id, who, "attachment", "replaced the file")?;
            Ok((old_salt, self.content_item(tx, content_id)?))
        })?;
        files.keep();
        if let Some(salt) = old_salt {
            remove_folder(self.store.files_dir(), &salt);
        }
        Ok(item)
    }

    /// Finds the file behind a public or original URL; `None` for anything else.
    pub fn attachment_file(&self, salt: &str, file_name: &str) -> Result<Option<StoredFile>> {
        let valid_salt = salt.len() == 32 && salt.chars().all(|c| c.is_ascii_hexdigit());
        if !valid_salt {
            return Ok(None);
        }
        let found = self.read(|tx| {
            let sql = format!("SELECT {COLUMNS} FROM attachments a WHERE a.salt = ?1");
            Ok(tx
                .prepare_cached(&sql)?
                .query_row([salt], |row| {
                    crate::model::attachment::from_row(row, &self.namespace)
                })
                .optional()?)
        })?;
        let Some(attachment) = found else {
            return Ok(None);
        };
        let extension = if file_name == format!("original.{}", attachment.extension) {
            &attachment.extension
        } else if file_name == format!("public.{}", attachment.preview_extension) {
            &attachment.preview_extension
        } else {
            return Ok(None);
        };
        Ok(Some(StoredFile {
            path: cached_file(&self.store, salt, file_name)?,
            download_name: if extension.is_empty() {
                attachment.base_name.clone()
            } else {
                format!("{}.{extension}", attachment.base_name)
            },
            displays_inline: attachment.kind == "image"
                && RASTER_EXTENSIONS.contains(&extension.as_str()),
        }))
    }
}

/// Raster image formats a browser only ever draws: the one kind of user file
/// shown inline. Everything else (HTML, SVG, XML, scripts, PDFs) is a download.
const RASTER_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "bmp"];

/// A file behind a public or original URL, and how it may be shown.
#[derive(Debug, Clone)]
pub struct StoredFile {
    pub path: PathBuf,
    /// The name a download is saved under: the uploaded name's stem and this file's extension.
    pub download_name: String,
    /// A decoded raster image: safe to draw in the page; anything else is a download.
    pub displays_inline: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles() {
        assert_eq!(parse_angle("90").ok(), Some(90));
        assert_eq!(parse_angle("-90").ok(), Some(270));
        assert_eq!(parse_angle("360").ok(), Some(0));
        assert!(parse_angle("45").is_err());
        assert!(parse_angle("left").is_err());
    }

    #[test]
    fn metadata() {
        let ok =
            parse_metadata(&serde_json::json!({"default": {"crop": "1", "w": 300, "fp-x": "0.5"}}));
        assert_eq!(
            ok.ok(),
            Some(serde_json::json!({"default": {"crop": "1", "w": "300", "fp-x": "0.5"}}))
        );
        assert!(parse_metadata(&serde_json::json!({"default": {"evil": "1"}})).is_err());
        assert!(parse_metadata(&serde_json::json!([1])).is_err());
    }
}
