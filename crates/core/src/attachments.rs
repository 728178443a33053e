//! Attachment files: the master file of a media item and its public preview, stored under the data directory.
//!
//! Every change of the files (a new master, a new preview angle) writes a new
//! folder named by a fresh random salt before the transaction that points the
//! record at it; the old folder is removed only after that commit. A crash at
//! any point leaves the record pointing at complete files.
//!
//! On PostgreSQL the database holds every file too (`attachment_files`),
//! written in the same transaction as the record, so every node, the
//! standby and a `pg_basebackup` have it; a node's files directory is then
//! its cache, filled from the database on the first read.

use crate::access::Action;
use std::fs;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};

use crate::db::{Dialect, OptionalExtension as _, Transaction, params};
use base64::Engine as _;
use rand::RngCore as _;
use serde_json::{Map, Value};

use crate::Cms;
use crate::access::Principal;
use crate::clock;
use crate::error::{CoreError, Result};
use crate::model::attachment::COLUMNS;
pub use crate::model::attachment::{Attachment, Upload};
use crate::model::content::audit;
use images::{DecodedImage, decode_image_file, image_dimensions, preview_of};
pub use images::{MAX_DECODED_IMAGE_BYTES, PREVIEW_MAX_SIDE};

mod images;
use crate::model::content::{CONTENT, ContentItem};
use crate::records::new_uuid;

/// What one attachment PUT asks for: exactly one kind of change.
#[derive(Debug, Clone)]
pub enum AttachmentChange {
    Replace(Upload),
    Angle(String),
    Metadata(Value),
}

/// Files written to a fresh salt folder, waiting for the transaction that
/// records them. Dropping it without [`WrittenFiles::keep`] removes them.
pub struct WrittenFiles {
    pub salt: String,
    pub base_name: String,
    pub extension: String,
    pub preview_extension: String,
    pub kind: String,
    pub width: u32,
    pub height: u32,
    pub size: u64,
    pub sha256: String,
    dir: PathBuf,
    kept: bool,
}

impl WrittenFiles {
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for WrittenFiles {
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
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

fn random_salt() -> String {
    let mut buf = [0u8; 16];
    rand::rng().fill_bytes(&mut buf);
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Splits `photo.final.JPG` into (`photo.final`, `jpg`), keeping only safe characters.
fn split_name(name: &str) -> Result<(String, String)> {
    let file_name = name.rsplit(['/', '\\']).next().unwrap_or(name).trim();
    if file_name.is_empty() {
        return Err(CoreError::invalid_field("name", "the file needs a name"));
    }
    let (stem, ext) = match file_name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, ext.to_ascii_lowercase()),
        _ => (file_name, String::new()),
    };
    let ext: String = ext
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(10)
        .collect();
    Ok((stem.to_owned(), ext))
}

fn decode_base64(field: &str, text: &str) -> Result<Vec<u8>> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let compact = compact
        .split_once("base64,")
        .map_or(compact.as_str(), |(_, data)| data)
        .to_owned();
    base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .or_else(|_| {
            base64::engine::general_purpose::STANDARD_NO_PAD.decode(compact.trim_end_matches('='))
        })
        .map_err(|_| CoreError::invalid_field(field, format!("\"{field}\" is not valid base64")))
}

fn kind_by_extension(ext: &str) -> &'static str {
    match ext {
        "mp4" | "mov" | "webm" | "mkv" | "avi" => "video",
        "mp3" | "wav" | "ogg" | "m4a" | "flac" => "audio",
        _ => "file",
    }
}

/// What to do with an image too large to decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Oversized {
    /// Refuse it (413): an upload.
    Refuse,
    /// Keep it with its original as the preview: a file the central server
    /// already holds, which a replica must not refuse to copy.
    KeepUnscaled,
}

/// Writes `bytes` as a new master file and its preview, rotated by `angle`.
pub(crate) fn write_files(
    files_dir: &Path,
    name: &str,
    bytes: &[u8],
    angle: u32,
) -> Result<WrittenFiles> {
    write_from_reader(
        files_dir,
        name,
        &mut &bytes[..],
        u64::MAX,
        angle,
        Oversized::Refuse,
    )
}

/// Streams a master file from `source` (at most `max_bytes`) into a new salt
/// folder while hashing it, then reads what it is and writes its preview.
/// Only an image is held in memory, to be decoded; other files never are.
pub(crate) fn write_from_reader(
    files_dir: &Path,
    name: &str,
    source: &mut dyn Read,
    max_bytes: u64,
    angle: u32,
    oversized: Oversized,
) -> Result<WrittenFiles> {
    let mut written = WrittenFiles::new_folder(files_dir, name)?;
    let (size, sha256) = copy_hashing(source, &written.incoming_path(), max_bytes)?;
    written.size = size;
    written.sha256 = sha256;
    written.complete(angle, oversized)?;
    Ok(written)
}

impl WrittenFiles {
    /// A fresh salt folder for a file named `name`, still empty.
    fn new_folder(files_dir: &Path, name: &str) -> Result<Self> {
        let (base_name, extension) = split_name(name)?;
        let salt = random_salt();
        let dir = files_dir.join(&salt);
        fs::create_dir_all(&dir)?;
        Ok(Self {
            salt,
            base_name,
            extension,
            preview_extension: String::new(),
            kind: String::new(),
            width: 0,
            height: 0,
            size: 0,
            sha256: String::new(),
            dir,
            kept: false,
        })
    }

    /// Where the master file is written before it is known what it is.
    fn incoming_path(&self) -> PathBuf {
        self.dir.join("incoming")
    }

    /// Reads what the incoming master file is, names it, and writes its preview.
    fn complete(&mut self, angle: u32, oversized: Oversized) -> Result<()> {
        let incoming = self.incoming_path();
        let decoded = match decode_image_file(&incoming) {
            Err(CoreError::TooLarge(_)) if oversized == Oversized::KeepUnscaled => {
                return self.keep_as_is("image", image_dimensions(&incoming));
            }
            other => other?,
        };
        let Some(DecodedImage {
            image,
            format,
            share,
        }) = decoded
        else {
            let kind = kind_by_extension(&self.extension);
            return self.keep_as_is(kind, (0, 0));
        };
        if self.extension.is_empty() {
            self.extension = format
                .extensions_str()
                .first()
                .copied()
                .unwrap_or("img")
                .to_owned();
        }
        let preview_format = if format.writing_enabled() {
            format
        } else {
            image::ImageFormat::Png
        };
        let preview_extension = preview_format
            .extensions_str()
            .first()
            .copied()
            .unwrap_or("png")
            .to_owned();
        fs::rename(
            &incoming,
            self.dir.join(format!("original.{}", self.extension)),
        )?;
        self.kind = "image".to_owned();
        self.width = image.width();
        self.height = image.height();
        preview_of(image, angle)
            .save_with_format(
                self.dir.join(format!("public.{preview_extension}")),
                preview_format,
            )
            .map_err(|err| CoreError::Internal(format!("writing a preview: {err}")))?;
        drop(share);
        self.preview_extension = preview_extension;
        Ok(())
    }

    /// Keeps the incoming file as it is: its own preview.
    fn keep_as_is(&mut self, kind: &str, (width, height): (u32, u32)) -> Result<()> {
        if self.extension.is_empty() {
            self.extension = "bin".to_owned();
        }
        let original = self.dir.join(format!("original.{}", self.extension));
        let public = self.dir.join(format!("public.{}", self.extension));
        fs::rename(self.incoming_path(), &original)?;
        fs::hard_link(&original, &public).or_else(|_| fs::copy(&original, &public).map(|_| ()))?;
        self.kind = kind.to_owned();
        self.width = width;
        self.height = height;
        self.preview_extension = self.extension.clone();
        Ok(())
    }
}

/// Copies `source` into a new file at `path`, refusing more than `max_bytes`;
/// returns the size and the SHA-256 of what was written.
fn copy_hashing(source: &mut dyn Read, path: &Path, max_bytes: u64) -> Result<(u64, String)> {
    use sha2::Digest as _;
    let mut file = fs::File::create(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut size: u64 = 0;
    loop {
        let read = match source.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => {
                return Err(CoreError::invalid_field(
                    "file",
                    format!("the upload broke off: {err}"),
                ));
            }
        };
        size += read as u64;
        if size > max_bytes {
            return Err(CoreError::TooLarge(format!(
                "the file is larger than this server accepts ({max_bytes} bytes)"
            )));
        }
        hasher.update(&buffer[..read]);
        file.write_all(&buffer[..read])?;
    }
    file.sync_all()?;
    Ok((size, hex(&hasher.finalize())))
}

/// The size and SHA-256 of a file already written.
fn hash_file(path: &Path) -> Result<(u64, String)> {
    use sha2::Digest as _;
    let mut file = fs::File::open(path)?;
    // On disk before any record points at it, as `copy_hashing` does.
    file.sync_all()?;
    let mut hasher = sha2::Sha256::new();
    let size = std::io::copy(&mut file, &mut hasher)?;
    Ok((size, hex(&hasher.finalize())))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Decodes an upload and writes its files.
pub(crate) fn write_upload(files_dir: &Path, upload: &Upload, angle: u32) -> Result<WrittenFiles> {
    let bytes = decode_base64("file", &upload.file_base64)?;
    write_files(files_dir, &upload.name, &bytes, angle)
}

/// Removes a salt folder once no record points at it; a failure only leaves garbage.
pub(crate) fn remove_folder(files_dir: &Path, salt: &str) {
    if !salt.is_empty()
        && salt.chars().all(|c| c.is_ascii_hexdigit())
        && let Err(err) = fs::remove_dir_all(files_dir.join(salt))
    {
        tracing::warn!(salt, %err, "could not remove an old attachment folder");
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

/// Copies a salt folder's files into `attachment_files`: what every node
/// reads from on PostgreSQL. A preview that is the original itself (a file
/// kept as it is) is not stored twice: no `public.*` row means the original.
fn store_in_database(tx: &Transaction<'_>, files: &WrittenFiles) -> Result<()> {
    let original_name = format!("original.{}", files.extension);
    let original = fs::read(files.dir.join(&original_name))?;
    let public_name = format!("public.{}", files.preview_extension);
    let public = fs::read(files.dir.join(&public_name))?;
    let mut insert =
        tx.prepare_cached("INSERT INTO attachment_files (salt, name, bytes) VALUES (?1, ?2, ?3)")?;
    if public != original {
        insert.execute(params![files.salt, public_name, public])?;
    }
    insert.execute(params![files.salt, original_name, original])?;
    Ok(())
}

/// Makes sure a node's files directory holds `salt/name`, copying it from
/// the database on PostgreSQL when this node has not read it yet. The file
/// is written beside and renamed into place, so a reader never sees half.
pub(crate) fn cached_file(cms: &Cms, salt: &str, name: &str) -> Result<PathBuf> {
    let path = cms.store.files_dir().join(salt).join(name);
    if !cms.store.is_postgres() || path.exists() {
        return Ok(path);
    }
    // A preview without a row of its own is the original.
    let bytes: Option<Vec<u8>> = cms.read(|tx| {
        Ok(tx
            .prepare_cached(
                "SELECT bytes FROM attachment_files WHERE salt = ?1
                 AND (name = ?2 OR (name LIKE 'original.%' AND ?2 LIKE 'public.%'))
                 ORDER BY name = ?2 DESC LIMIT 1",
            )?
            .query_row([salt, name], |row| row.get(0))
            .optional()?)
    })?;
    let Some(bytes) = bytes else {
        return Ok(path);
    };
    let dir = cms.store.files_dir().join(salt);
    fs::create_dir_all(&dir)?;
    let mut partial = tempfile::NamedTempFile::new_in(&dir)?;
    partial.write_all(&bytes)?;
    partial.persist(&path).map_err(|err| err.error)?;
    Ok(path)
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
                let files = write_upload(&files_dir, &upload, 0)?;
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
                    self,
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
            path: cached_file(self, salt, file_name)?,
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
    fn names() {
        assert_eq!(
            split_name("photo.final.JPG").ok(),
            Some(("photo.final".into(), "jpg".into()))
        );
        assert_eq!(
            split_name("../../etc/passwd").ok(),
            Some(("passwd".into(), String::new()))
        );
        assert_eq!(
            split_name(".bashrc").ok(),
            Some((".bashrc".into(), String::new()))
        );
        assert!(split_name("  ").is_err());
    }

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

    #[test]
    fn base64() {
        assert_eq!(decode_base64("file", "aGk=").ok(), Some(b"hi".to_vec()));
        assert_eq!(
            decode_base64("file", "data:image/png;base64,aGk=").ok(),
            Some(b"hi".to_vec())
        );
        assert!(decode_base64("file", "***").is_err());
    }
}
