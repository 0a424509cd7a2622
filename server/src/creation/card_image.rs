//! A card's picture made into a portrait (docs/api.md `importCard`): decoded with the
//! `image` crate (PNG or JPEG; anything else is not an image we take), narrowed to fit
//! 1024 px, and encoded again as a plain PNG, so that nothing of the file but its pixels
//! is kept: no card chunks, no EXIF, no colour-profile tricks, no trailing data.

use std::io::Cursor;

use amora_store::MediaObject;

/// The longest side of an imported portrait.
pub const MAX_SIDE: u32 = 1024;
/// The largest picture decoded at all: a card's PNG can claim any size in its header, and
/// decoding allocates for it.
const MAX_DECODED_SIDE: u32 = 8192;
const MAX_DECODE_BYTES: u64 = 256 * 1024 * 1024;

/// Why a card's picture was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the card's image cannot be read: {0}")]
pub struct NotAnImage(pub String);

/// The card's picture as a clean PNG portrait at most [`MAX_SIDE`] on its longer side;
/// also its width and height.
pub fn clean_portrait(bytes: &[u8]) -> Result<(MediaObject, u32, u32), NotAnImage> {
    let mut reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| NotAnImage(e.to_string()))?;
    if !matches!(reader.format(), Some(image::ImageFormat::Png | image::ImageFormat::Jpeg)) {
        return Err(NotAnImage("not a PNG or JPEG picture".into()));
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DECODED_SIDE);
    limits.max_image_height = Some(MAX_DECODED_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let picture = reader.decode().map_err(|e| NotAnImage(e.to_string()))?;
    let picture = if picture.width() > MAX_SIDE || picture.height() > MAX_SIDE {
        picture.resize(MAX_SIDE, MAX_SIDE, image::imageops::FilterType::CatmullRom)
    } else {
        picture
    };
    // RGBA8 whatever came in (16-bit, palette, grey): one plain form for every portrait.
    let picture = image::DynamicImage::ImageRgba8(picture.to_rgba8());
    let mut out = Cursor::new(Vec::new());
    picture.write_to(&mut out, image::ImageFormat::Png).map_err(|e| NotAnImage(e.to_string()))?;
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

    #[test]
    fn what_is_not_a_picture_is_refused() {
        assert!(clean_portrait(b"{\"name\":\"not a picture\"}").is_err());
        assert!(clean_portrait(b"GIF89a....").is_err());
        let mut broken = png(64, 64, false);
        broken.truncate(60);
        assert!(clean_portrait(&broken).is_err());
    }
}
