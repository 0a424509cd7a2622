//! Character cards as SillyTavern, Agnaistic and RisuAI write them: Character Card V1
//! (flat JSON), V2 (`chara_card_v2`) and V3 (`chara_card_v3`), carried in JSON files, in
//! PNG `tEXt` chunks (`chara`: V1/V2, `ccv3`: V3) or in CHARX archives (also appended to a
//! JPEG, as RisuAI writes them). Import reads any
//! of them into one V3-shaped [`Card`]; export writes PNG (both chunks) and V3 JSON; the
//! lorebook and macro rules feed the prompt builder.
//!
//! Pure: bytes in, values and bytes out. A separate crate rather than part of `domain`
//! because it needs a zip reader, base64 and regex, which the domain's rules do not.
//!
//! `chat_log` reads SillyTavern's chat exports (JSONL), which group chats import from.
//!
//! Cards have no age field; [`stated_age`] reads the age a card states in its extensions,
//! tags or text. Whoever imports a card (the server) must still validate it (18 or more),
//! ask for one when the card states none, and moderate every text field and the portrait.

pub mod age;
mod charx;
pub mod chat_log;
pub mod error;
pub mod json;
pub mod limits;
pub mod lorebook;
pub mod macros;
pub mod model;
pub mod png;
pub mod texts;

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

pub use age::stated_age;
pub use error::CardError;
pub use json::{SpecVersion, export_json};
pub use limits::Limits;
pub use lorebook::{ActiveEntry, CompiledLorebook, DEFAULT_SCAN_DEPTH, LoreScan, Scanned, SkippedKey, activate};
pub use macros::replace_macros;
pub use model::{Asset, Card, CardData, EntryPosition, Lorebook, LorebookEntry};

/// The container a card came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardFormat {
    Png,
    Json,
    Charx,
    /// RisuAI's CHARX appended to a JPEG.
    CharxJpeg,
}

/// The card's picture as found: the PNG itself (card chunks removed, pixels untouched) or
/// CHARX's main icon. Not yet checked as an image: the server decodes, resizes and
/// re-encodes it (which also strips its metadata) before it becomes a portrait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Portrait {
    pub bytes: Vec<u8>,
    /// File extension as the card declares it (`png`, `webp`, `jpeg`...).
    pub ext: String,
}

/// An imported card.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub card: Card,
    pub spec: SpecVersion,
    pub format: CardFormat,
    pub portrait: Option<Portrait>,
}

/// Padding is optional on read: most writers pad, a few do not.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Imports a card file of any supported format, recognised by its first bytes.
pub fn import(bytes: &[u8], limits: &Limits) -> Result<Imported, CardError> {
    if bytes.len() > limits.max_file_bytes {
        return Err(CardError::FileTooLarge { size: bytes.len(), limit: limits.max_file_bytes });
    }
    if bytes.first() == Some(&0x89) {
        return import_png(bytes, limits);
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return import_charx(bytes, limits);
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        // A JPEG is a card only with a CHARX behind it; a plain photo is not a zip at all.
        return match import_charx(bytes, limits) {
            Err(CardError::Zip { .. }) => Err(CardError::NoCardInJpeg),
            other => other,
        };
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        return import_json(bytes, limits);
    }
    Err(CardError::UnknownFormat)
}

/// A PNG card: `ccv3` when present, else `chara`.
pub fn import_png(bytes: &[u8], limits: &Limits) -> Result<Imported, CardError> {
    let chunks = png::chunks(bytes, limits)?;
    let (keyword, text) = png::find_text(&chunks, png::CCV3)
        .map(|t| (png::CCV3, t))
        .or_else(|| png::find_text(&chunks, png::CHARA).map(|t| (png::CHARA, t)))
        .ok_or(CardError::NoCardInPng)?;
    // base64 is 4 bytes per 3; refuse before decoding anything too big.
    let max_text = limits.max_card_json_bytes.div_ceil(3) * 4 + 4;
    if text.len() > max_text {
        return Err(CardError::ChunkTooLarge { chunk: keyword.into(), size: text.len(), limit: max_text });
    }
    // Some writers wrap their base64 in lines (Python's encodebytes): whitespace is dropped.
    let text: Vec<u8> = text.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
    let json = BASE64.decode(&text).map_err(|_| CardError::Base64)?;
    if std::str::from_utf8(&json).is_err() {
        return Err(CardError::NotUtf8);
    }
    let (card, spec) = json::parse_card_json(&json, limits)?;
    check_lorebook(&card, limits)?;
    let portrait = Portrait { bytes: png::rebuild(&chunks, &[]), ext: "png".into() };
    Ok(Imported { card, spec, format: CardFormat::Png, portrait: Some(portrait) })
}

/// A JSON card (V1, V2 or V3). JSON cards carry no picture.
pub fn import_json(bytes: &[u8], limits: &Limits) -> Result<Imported, CardError> {
    if bytes.len() > limits.max_file_bytes {
        return Err(CardError::FileTooLarge { size: bytes.len(), limit: limits.max_file_bytes });
    }
    let (card, spec) = json::parse_card_json(bytes, limits)?;
    check_lorebook(&card, limits)?;
    Ok(Imported { card, spec, format: CardFormat::Json, portrait: None })
}

/// A CHARX archive (or RisuAI's CHARX-JPEG); its main icon, when embedded, becomes the
/// portrait, else the JPEG in front of the archive.
pub fn import_charx(bytes: &[u8], limits: &Limits) -> Result<Imported, CardError> {
    if bytes.len() > limits.max_file_bytes {
        return Err(CardError::FileTooLarge { size: bytes.len(), limit: limits.max_file_bytes });
    }
    let charx = charx::read(bytes, limits)?;
    check_lorebook(&charx.card, limits)?;
    let portrait = charx.icon.map(|(bytes, ext)| Portrait { bytes, ext });
    let format = if charx.in_jpeg { CardFormat::CharxJpeg } else { CardFormat::Charx };
    Ok(Imported { card: charx.card, spec: charx.spec, format, portrait })
}

/// An imported card's lorebook within the key limits (`lorebook::check`): checked on import
/// rather than on every read of a stored card, as it compiles the regex keys.
fn check_lorebook(card: &Card, limits: &Limits) -> Result<(), CardError> {
    card.data.character_book.as_ref().map_or(Ok(()), |book| lorebook::check(book, limits))
}

/// The card inside `portrait_png`: V2 JSON in a `chara` tEXt chunk and V3 JSON in a `ccv3`
/// one, placed before IEND; card chunks already there are replaced, every other chunk is
/// copied byte for byte (the pixels are not re-encoded). The result is read back before it
/// is returned, so an exported card always imports again.
pub fn export_png(card: &Card, portrait_png: &[u8], limits: &Limits) -> Result<Vec<u8>, CardError> {
    json::check_card(card, limits)?;
    let chunks = png::chunks(portrait_png, limits)?;
    let encode = |value: serde_json::Value| -> Result<Vec<u8>, CardError> {
        let text = serde_json::to_vec(&value).map_err(|e| CardError::Json { message: e.to_string() })?;
        Ok(base64::engine::general_purpose::STANDARD.encode(text).into_bytes())
    };
    let chara = png::text_chunk(png::CHARA, &encode(json::to_v2_value(card)?)?);
    let ccv3 = png::text_chunk(png::CCV3, &encode(json::to_v3_value(card)?)?);
    let out = png::rebuild(&chunks, &[chara, ccv3]);
    import_png(&out, limits)?;
    Ok(out)
}
