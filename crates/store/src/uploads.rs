//! An upload's files under the data directory: the master file and its public preview, written into a fresh salt folder, and on PostgreSQL copied into the database beside them.
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
//!
//! Nothing here knows who may upload what: the service checks that first.

use std::fs;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use rand::RngCore as _;

use crate::Store;
use crate::db::{OptionalExtension as _, Transaction, params};
use crate::error::{Result, StoreError};
use images::{DecodedImage, decode_image_file, image_dimensions, preview_of};
pub use images::{MAX_DECODED_IMAGE_BYTES, PREVIEW_MAX_SIDE};

mod images;

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

fn random_salt() -> String {
    let mut buf = [0u8; 16];
    rand::rng().fill_bytes(&mut buf);
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Splits `photo.final.JPG` into (`photo.final`, `jpg`), keeping only safe characters.
fn split_name(name: &str) -> Result<(String, String)> {
    let file_name = name.rsplit(['/', '\\']).next().unwrap_or(name).trim();
    if file_name.is_empty() {
        return Err(StoreError::invalid_field("name", "the file needs a name"));
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
        .map_err(|_| StoreError::invalid_field(field, format!("\"{field}\" is not valid base64")))
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
pub enum Oversized {
    /// Refuse it (413): an upload.
    Refuse,
    /// Keep it with its original as the preview: a file the central server
    /// already holds, which a replica must not refuse to copy.
    KeepUnscaled,
}

/// Writes `bytes` as a new master file and its preview, rotated by `angle`.
pub fn write_files(files_dir: &Path, name: &str, bytes: &[u8], angle: u32) -> Result<WrittenFiles> {
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
pub fn write_from_reader(
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
    pub fn new_folder(files_dir: &Path, name: &str) -> Result<Self> {
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
    pub fn incoming_path(&self) -> PathBuf {
        self.dir.join("incoming")
    }

    /// Reads what the incoming master file is, names it, and writes its preview.
    pub fn complete(&mut self, angle: u32, oversized: Oversized) -> Result<()> {
        let incoming = self.incoming_path();
        let decoded = match decode_image_file(&incoming) {
            Err(StoreError::TooLarge(_)) if oversized == Oversized::KeepUnscaled => {
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
            .map_err(|err| StoreError::Internal(format!("writing a preview: {err}")))?;
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
                return Err(StoreError::invalid_field(
                    "file",
                    format!("the upload broke off: {err}"),
                ));
            }
        };
        size += read as u64;
        if size > max_bytes {
            return Err(StoreError::TooLarge(format!(
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
pub fn hash_file(path: &Path) -> Result<(u64, String)> {
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

/// Decodes an upload sent as base64 (`file_base64`, the field `file`) and
/// writes its files under the name it was sent with.
pub fn write_upload(
    files_dir: &Path,
    name: &str,
    file_base64: &str,
    angle: u32,
) -> Result<WrittenFiles> {
    let bytes = decode_base64("file", file_base64)?;
    write_files(files_dir, name, &bytes, angle)
}

/// Removes a salt folder once no record points at it; a failure only leaves garbage.
pub fn remove_folder(files_dir: &Path, salt: &str) {
    if !salt.is_empty()
        && salt.chars().all(|c| c.is_ascii_hexdigit())
        && let Err(err) = fs::remove_dir_all(files_dir.join(salt))
    {
        tracing::warn!(salt, %err, "could not remove an old attachment folder");
    }
}

/// Copies a salt folder's files into `attachment_files`: what every node
/// reads from on PostgreSQL. A preview that is the original itself (a file
/// kept as it is) is not stored twice: no `public.*` row means the original.
pub fn store_in_database(tx: &Transaction<'_>, files: &WrittenFiles) -> Result<()> {
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
pub fn cached_file(store: &Store, salt: &str, name: &str) -> Result<PathBuf> {
    let path = store.files_dir().join(salt).join(name);
    if !store.is_postgres() || path.exists() {
        return Ok(path);
    }
    // A preview without a row of its own is the original.
    let bytes: Option<Vec<u8>> = store.read(|tx| {
        Ok::<_, StoreError>(
            tx.prepare_cached(
                "SELECT bytes FROM attachment_files WHERE salt = ?1
                 AND (name = ?2 OR (name LIKE 'original.%' AND ?2 LIKE 'public.%'))
                 ORDER BY name = ?2 DESC LIMIT 1",
            )?
            .query_row([salt, name], |row| row.get(0))
            .optional()?,
        )
    })?;
    let Some(bytes) = bytes else {
        return Ok(path);
    };
    let dir = store.files_dir().join(salt);
    fs::create_dir_all(&dir)?;
    let mut partial = tempfile::NamedTempFile::new_in(&dir)?;
    partial.write_all(&bytes)?;
    partial.persist(&path).map_err(|err| err.error)?;
    Ok(path)
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
    fn base64() {
        assert_eq!(decode_base64("file", "aGk=").ok(), Some(b"hi".to_vec()));
        assert_eq!(
            decode_base64("file", "data:image/png;base64,aGk=").ok(),
            Some(b"hi".to_vec())
        );
        assert!(decode_base64("file", "***").is_err());
    }

    /// An upload's refusals name their kind (400 or 413 once the service
    /// maps them) and the field at fault, and leave no folder behind.
    #[test]
    fn refused_uploads_say_why_and_leave_nothing() {
        let dir = tempfile::tempdir().expect("a folder");
        let refusal = |result: Result<WrittenFiles>| result.err().expect("refused");
        let field = |err: &StoreError| match err {
            StoreError::Invalid { field, .. } => field.clone(),
            _ => None,
        };
        let bad_base64 = refusal(write_upload(dir.path(), "a.png", "***", 0));
        assert_eq!(
            field(&bad_base64).as_deref(),
            Some("file"),
            "{bad_base64:?}"
        );
        assert_eq!(bad_base64.to_string(), "\"file\" is not valid base64");
        let no_name = refusal(write_upload(dir.path(), " ", "aGk=", 0));
        assert_eq!(field(&no_name).as_deref(), Some("name"), "{no_name:?}");
        let too_large = refusal(write_from_reader(
            dir.path(),
            "a.bin",
            &mut &b"abc"[..],
            2,
            0,
            Oversized::Refuse,
        ));
        assert!(
            matches!(&too_large, StoreError::TooLarge(words) if words.ends_with("(2 bytes)")),
            "{too_large:?}"
        );
        let folders = fs::read_dir(dir.path()).expect("listed").count();
        assert_eq!(folders, 0, "a refused upload leaves no folder behind");
    }

    /// An image too large to decode is refused as an upload, and kept as it
    /// is (its own preview, its size from its header) when a replica copies it.
    #[test]
    fn an_image_too_large_to_decode_is_refused_or_kept_unscaled() {
        use image::ImageEncoder as _;
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(&[0u8; 21_000], 21_000, 1, image::ExtendedColorType::L8)
            .expect("encodes");
        let dir = tempfile::tempdir().expect("a folder");
        let write = |oversized| {
            write_from_reader(
                dir.path(),
                "wide.png",
                &mut &png[..],
                u64::MAX,
                0,
                oversized,
            )
        };
        let refused = write(Oversized::Refuse).err().expect("refused");
        assert!(
            matches!(&refused, StoreError::TooLarge(words) if words.contains("21000 × 1")),
            "{refused:?}"
        );
        let kept = write(Oversized::KeepUnscaled).expect("kept");
        assert_eq!(
            (kept.kind.as_str(), kept.width, kept.height),
            ("image", 21_000, 1)
        );
        assert_eq!(kept.preview_extension, "png");
        assert_eq!(
            fs::read(kept.dir.join("public.png")).expect("the preview"),
            png
        );
    }
}
