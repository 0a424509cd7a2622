//! A card's picture made into a portrait (docs/api.md `importCard`): decoded with the
//! `image` crate (PNG or JPEG; anything else is not an image we take), narrowed to fit
//! 1024 px, and encoded again as a plain PNG, so that nothing of the file but its pixels
//! is kept: no card chunks, no EXIF, no colour-profile tricks, no trailing data.
//!
//! Decoding allocates for the size the file's header claims: an 8192×8192 PNG took
//! ~400 MiB and 1.8 s of CPU (issue 28). The header is read first and a picture over
//! [`MAX_DECODED_PIXELS`] or [`MAX_DECODED_SIDE`] is refused before anything is decoded;
//! the decoder's own allocation limit backs that. How many decode at once is the server's
//! (`AppState::card_images`).

use std::io::Cursor;

use amora_store::MediaObject;

/// The longest side of an imported portrait.
pub const MAX_SIDE: u32 = 1024;
/// The longest side decoded at all (a 4× upscaled portrait is about 3300×4900).
pub const MAX_DECODED_SIDE: u32 = 8192;
/// The most pixels decoded at all: 16 Mpx, 64 MiB as RGBA8.
pub const MAX_DECODED_PIXELS: u64 = 4096 * 4096;
/// What the decoder may allocate (16 Mpx at 16 bits per RGB channel fits).
const MAX_DECODE_BYTES: u64 = 128 * 1024 * 1024;

/// Why a card's picture was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardImageError {
    #[error("the card's image cannot be read: {0}")]
    NotAnImage(String),
    #[error("the card's image is {width}×{height}, over the limit of {max_pixels} pixels or {max_side} px a side")]
    TooLarge { width: u32, height: u32, max_pixels: u64, max_side: u32 },
}

impl CardImageError {
    /// The code `importCard`'s 10001 names: `card: <code>: …`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotAnImage(_) => "bad_image",
            Self::TooLarge { .. } => "image_too_large",
        }
    }
}

fn not_an_image(error: impl ToString) -> CardImageError {
    CardImageError::NotAnImage(error.to_string())
}

/// The picture's width and height as its header says, refused past the limits; nothing
/// of its pixels is read.
pub fn checked_dimensions(bytes: &[u8]) -> Result<(u32, u32), CardImageError> {
    let reader = image::ImageReader::new(Cursor::new(bytes)).with_guessed_format().map_err(not_an_image)?;
    if !matches!(reader.format(), Some(image::ImageFormat::Png | image::ImageFormat::Jpeg)) {
        return Err(not_an_image("not a PNG or JPEG picture"));
    }
    let (width, height) = reader.into_dimensions().map_err(not_an_image)?;
    if width > MAX_DECODED_SIDE
        || height > MAX_DECODED_SIDE
        || u64::from(width) * u64::from(height) > MAX_DECODED_PIXELS
    {
        return Err(CardImageError::TooLarge {
            width,
            height,
            max_pixels: MAX_DECODED_PIXELS,
            max_side: MAX_DECODED_SIDE,
        });
    }
    Ok((width, height))
}

/// The card's picture as a clean PNG portrait at most [`MAX_SIDE`] on its longer side;
/// also its width and height. Refused before decoding when its header claims more than
/// the limits ([`checked_dimensions`]).
pub fn clean_portrait(bytes: &[u8]) -> Result<(MediaObject, u32, u32), CardImageError> {
    checked_dimensions(bytes)?;
    let mut reader = image::ImageReader::new(Cursor::new(bytes)).with_guessed_format().map_err(not_an_image)?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DECODED_SIDE);
    limits.max_image_height = Some(MAX_DECODED_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let picture = reader.decode().map_err(not_an_image)?;
    let picture = if picture.width() > MAX_SIDE || picture.height() > MAX_SIDE {
        picture.resize(MAX_SIDE, MAX_SIDE, image::imageops::FilterType::CatmullRom)
    } else {
        picture
    };
    // RGBA8 whatever came in (16-bit, palette, grey): one plain form for every portrait.
    let picture = image::DynamicImage::ImageRgba8(picture.to_rgba8());
    let mut out = Cursor::new(Vec::new());
    picture.write_to(&mut out, image::ImageFormat::Png).map_err(not_an_image)?;
    let object = MediaObject { content_type: "image/png".into(), bytes: out.into_inner() };
    Ok((object, picture.width(), picture.height()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, extra_chunk: bool) -> Vec<u8> {
        let picture = image::RgbaImage::from_pixel(width, height, image::Rgba([200, 40, 90, 255]));
        let mut out = Cursor::new(Vec::new());
        image::DynamicImage::ImageRgba8(picture)
            .write_to(&mut out, image::ImageFormat::Png)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut bytes = out.into_inner();
        if extra_chunk {
            // A tEXt chunk before IEND: what a card carries; it must not survive.
            let iend = bytes.len() - 12;
            let data = b"chara\0c2VjcmV0";
            let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
            chunk.extend_from_slice(b"tEXt");
            chunk.extend_from_slice(data);
            let mut crc = crc32fast::Hasher::new();
            crc.update(b"tEXt");
            crc.update(data);
            chunk.extend_from_slice(&crc.finalize().to_be_bytes());
            bytes.splice(iend..iend, chunk);
        }
        bytes
    }

    #[test]
    fn a_large_picture_is_narrowed_and_stripped() {
        let (object, width, height) = clean_portrait(&png(2048, 1536, true)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((width, height), (1024, 768));
        assert_eq!(object.content_type, "image/png");
        assert!(!object.bytes.windows(5).any(|w| w == b"chara"), "the card chunk is gone");
        let back = image::load_from_memory(&object.bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((back.width(), back.height()), (1024, 768));
    }

    #[test]
    fn a_small_picture_keeps_its_size() {
        let (_, width, height) = clean_portrait(&png(300, 400, false)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((width, height), (300, 400));
    }

    /// A PNG whose header claims `width`×`height`, with a few bytes of pixel data: what a
    /// card bomb looks like (decoding would allocate for the claim before finding out).
    fn claimed(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = png(8, 8, false);
        // IHDR's data starts after the signature (8), the length (4) and the type (4).
        bytes[16..20].copy_from_slice(&width.to_be_bytes());
        bytes[20..24].copy_from_slice(&height.to_be_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.finalize().to_be_bytes());
        bytes
    }

    /// Issue 28: an 8192×8192 card cost ~400 MiB and 1.8 s to decode. Refused on its header.
    #[test]
    fn a_picture_over_the_pixel_limit_is_refused_before_it_is_decoded() {
        let too_large = |w, h| CardImageError::TooLarge {
            width: w,
            height: h,
            max_pixels: MAX_DECODED_PIXELS,
            max_side: MAX_DECODED_SIDE,
        };
        for (w, h) in [(8192, 8192), (4097, 4096), (8193, 100), (100, 60_000)] {
            let err = clean_portrait(&claimed(w, h)).err();
            assert_eq!(err, Some(too_large(w, h)), "{w}×{h}");
            assert_eq!(err.map(|e| e.code()), Some("image_too_large"));
        }
        // Within the limits the header passes; this one's pixels are not all there.
        assert_eq!(checked_dimensions(&claimed(3300, 4900)), Ok((3300, 4900)));
        assert_eq!(clean_portrait(&claimed(3300, 4900)).err().map(|e| e.code()), Some("bad_image"));
    }

    #[test]
    fn what_is_not_a_picture_is_refused() {
        assert!(clean_portrait(b"{\"name\":\"not a picture\"}").is_err());
        assert!(clean_portrait(b"GIF89a....").is_err());
        let mut broken = png(64, 64, false);
        broken.truncate(60);
        assert!(clean_portrait(&broken).is_err());
    }
}
