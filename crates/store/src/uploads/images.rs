//! Which uploads are images and how they are decoded: within a budget of memory shared by every upload in flight, and only as far as a preview needs.

use std::fs;
use std::path::Path;

use crate::error::{Result, StoreError};

/// Largest image side the service decodes, against decompression bombs.
const MAX_IMAGE_SIDE: u32 = 20_000;

/// The most memory one decoded image may take: a 50-megapixel photograph in
/// 8-bit RGB fits (150 MiB), an 11,000 × 11,000 RGBA poster (462 MiB) does
/// not. With the preview made from it, one upload stays well under 256 MiB.
pub const MAX_DECODED_IMAGE_BYTES: u64 = 160 * 1024 * 1024;

/// The longest side of a preview (`public_url`): a web rendition, made
/// without a full-size copy; the original keeps every pixel.
pub const PREVIEW_MAX_SIDE: u32 = 3000;

/// The decoded pixels all uploads together may hold at once: more images
/// than fit wait their turn instead of taking the server's memory.
const DECODING_BUDGET_BYTES: u64 = 2 * MAX_DECODED_IMAGE_BYTES;

/// The preview of a decoded image: scaled down to [`PREVIEW_MAX_SIDE`] and
/// turned by `angle`. Takes the image, so that at angle 0 a small image is
/// written as it is, with no copy.
pub(super) fn preview_of(img: image::DynamicImage, angle: u32) -> image::DynamicImage {
    let img = if img.width().max(img.height()) > PREVIEW_MAX_SIDE {
        // `thumbnail` samples straight into the small image; a filtered
        // resize would first build an intermediate as large as the original.
        img.thumbnail(PREVIEW_MAX_SIDE, PREVIEW_MAX_SIDE)
    } else {
        img
    };
    match angle {
        90 => img.rotate90(),
        180 => img.rotate180(),
        270 => img.rotate270(),
        _ => img,
    }
}

/// Decoded pixels held by uploads in this process, bounded by [`DECODING_BUDGET_BYTES`].
struct DecodingBudget {
    in_use: std::sync::Mutex<u64>,
    freed: std::sync::Condvar,
}

static DECODING: DecodingBudget = DecodingBudget {
    in_use: std::sync::Mutex::new(0),
    freed: std::sync::Condvar::new(),
};

/// A share of [`DECODING`], given back when dropped.
pub(super) struct DecodingShare(u64);

impl DecodingBudget {
    /// Waits until `bytes` fit beside what other uploads are decoding.
    fn take(&'static self, bytes: u64) -> Result<DecodingShare> {
        let poisoned = |_| StoreError::Internal("the image budget was poisoned by a panic".into());
        let mut in_use = self.in_use.lock().map_err(poisoned)?;
        while *in_use > 0 && *in_use + bytes > DECODING_BUDGET_BYTES {
            in_use = self.freed.wait(in_use).map_err(poisoned)?;
        }
        *in_use += bytes;
        Ok(DecodingShare(bytes))
    }
}

impl Drop for DecodingShare {
    fn drop(&mut self) {
        if let Ok(mut in_use) = DECODING.in_use.lock() {
            *in_use = in_use.saturating_sub(self.0);
            DECODING.freed.notify_all();
        }
    }
}

/// An image's size from its header alone; (0, 0) when it cannot be read.
pub(super) fn image_dimensions(path: &Path) -> (u32, u32) {
    image::ImageReader::open(path)
        .and_then(image::ImageReader::with_guessed_format)
        .ok()
        .and_then(|mut reader| {
            reader.no_limits();
            reader.into_dimensions().ok()
        })
        .unwrap_or((0, 0))
}

/// A decoded image and the share of the decoding budget it holds.
pub(super) struct DecodedImage {
    pub(super) image: image::DynamicImage,
    pub(super) format: image::ImageFormat,
    pub(super) share: DecodingShare,
}

/// The formats kept as images: those this server decodes.
const DECODED_FORMATS: [image::ImageFormat; 5] = [
    image::ImageFormat::Png,
    image::ImageFormat::Jpeg,
    image::ImageFormat::Gif,
    image::ImageFormat::WebP,
    image::ImageFormat::Bmp,
];

/// Decodes the file at `path` when it is an image; `None` for anything else.
///
/// The one rule of what an upload is: an image when its first bytes name a
/// format this server decodes (PNG, JPEG, GIF, WebP, BMP) and it decodes as
/// one; anything else a file, kept as sent, whatever its first bytes look
/// like (a TIFF scan, a text that begins with `BM` or `P1`). An image whose
/// pixels would take more than [`MAX_DECODED_IMAGE_BYTES`] is refused
/// (413) from its header, before anything is allocated for it. Only the
/// first frame of an animation is decoded, and what the decoder allocates
/// for it is charged to the budget before it does: the canvas, and for a
/// GIF whose first frame does not fit its canvas, that frame as well.
pub(super) fn decode_image_file(path: &Path) -> Result<Option<DecodedImage>> {
    use image::ImageDecoder as _;
    let open = || -> Result<image::ImageReader<std::io::BufReader<fs::File>>> {
        image::ImageReader::open(path)?
            .with_guessed_format()
            .map_err(|err| StoreError::Internal(err.to_string()))
    };
    let reader = open()?;
    let Some(format) = reader.format().filter(|f| DECODED_FORMATS.contains(f)) else {
        return Ok(None);
    };
    let header = {
        let mut reader = open()?;
        reader.no_limits();
        match reader.into_decoder() {
            Ok(header) => header,
            Err(_) => return Ok(None),
        }
    };
    let (width, height) = header.dimensions();
    let canvas_bytes = header.total_bytes();
    drop(header);
    let frame = if format == image::ImageFormat::Gif {
        gif_first_frame(path, (width, height))
    } else {
        None
    };
    // The frame in colour (4 bytes a pixel), and its palette indices as the
    // GIF decoder reads them before turning them into colours (one more).
    let frame_bytes = frame.map_or(0, |(w, h)| u64::from(w) * u64::from(h) * 5);
    let decoded_bytes = canvas_bytes.saturating_add(frame_bytes);
    let (largest_width, largest_height) = frame.map_or((width, height), |(w, h)| {
        (width.max(u32::from(w)), height.max(u32::from(h)))
    });
    if largest_width > MAX_IMAGE_SIDE
        || largest_height > MAX_IMAGE_SIDE
        || decoded_bytes > MAX_DECODED_IMAGE_BYTES
    {
        let frame = frame.map_or(String::new(), |(w, h)| {
            format!(", its first frame {w} × {h} drawn on it")
        });
        return Err(StoreError::TooLarge(format!(
            "the image is {width} × {height} pixels{frame} ({} MiB decoded); this server takes images of up to {} MiB decoded (about {} megapixels in colour) and {MAX_IMAGE_SIDE} pixels a side",
            decoded_bytes.div_ceil(1024 * 1024),
            MAX_DECODED_IMAGE_BYTES / (1024 * 1024),
            MAX_DECODED_IMAGE_BYTES / 3 / 1_000_000,
        )));
    }
    let preview_bytes = u64::from(PREVIEW_MAX_SIDE) * u64::from(PREVIEW_MAX_SIDE) * 8;
    let share = DECODING.take(decoded_bytes + preview_bytes.min(canvas_bytes))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_DECODED_IMAGE_BYTES);
    let mut reader = reader;
    reader.limits(limits);
    match reader.decode() {
        Ok(image) => Ok(Some(DecodedImage {
            image,
            format,
            share,
        })),
        Err(image::ImageError::Limits(err)) => Err(StoreError::TooLarge(format!(
            "the image takes more memory to decode than this server allows: {err}"
        ))),
        // Its first bytes looked like an image, the rest is not one: a file.
        Err(_) => Ok(None),
    }
}

/// The size of a GIF's first frame when the decoder draws it through a
/// buffer of its own (it does not fill the canvas's rows from the left
/// edge); `None` when it fills the canvas directly or cannot be read.
fn gif_first_frame(path: &Path, (width, height): (u32, u32)) -> Option<(u16, u16)> {
    let file = std::io::BufReader::new(fs::File::open(path).ok()?);
    let mut decoder = gif::DecodeOptions::new().read_info(file).ok()?;
    let frame = decoder.next_frame_info().ok()??;
    let direct = frame.left == 0
        && u32::from(frame.width) == width
        && u32::from(frame.top) + u32::from(frame.height) <= height;
    (!direct).then_some((frame.width, frame.height))
}
