//! Why a card was refused. Each variant has a stable code ([`CardError::code`]) for the
//! server to map to its API error and for the form to show next to the file.

/// A refused card (import) or a card that cannot be written (export).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    #[error("the file is {size} bytes, over the limit of {limit}")]
    FileTooLarge { size: usize, limit: usize },
    #[error("the file is neither a PNG, a JSON card nor a CHARX archive")]
    UnknownFormat,

    #[error("not a PNG: bad signature")]
    PngSignature,
    #[error("PNG truncated at byte {offset}")]
    PngTruncated { offset: usize },
    #[error("PNG chunk {chunk} at byte {offset} has a bad CRC")]
    PngBadCrc { chunk: String, offset: usize },
    #[error("malformed PNG: {reason}")]
    PngMalformed { reason: &'static str },
    #[error("the PNG carries no character card (no tEXt chunk chara or ccv3)")]
    NoCardInPng,
    #[error("chunk {chunk} is {size} bytes, over the limit of {limit}")]
    ChunkTooLarge { chunk: String, size: usize, limit: usize },
    #[error("the card text is not valid base64")]
    Base64,
    #[error("the card text is not UTF-8")]
    NotUtf8,

    #[error("the card JSON is {size} bytes, over the limit of {limit}")]
    JsonTooLarge { size: usize, limit: usize },
    #[error("the card is not valid JSON: {message}")]
    Json { message: String },
    #[error("the card JSON nests deeper than {limit} levels")]
    JsonTooDeep { limit: usize },
    #[error("the card JSON is not an object")]
    NotAnObject,
    #[error("{path} is {bytes} bytes, over the limit of {limit}")]
    StringTooLong { path: String, bytes: usize, limit: usize },
    #[error("{path} has {count} items, over the limit of {limit}")]
    TooManyItems { path: String, count: usize, limit: usize },
    #[error("the lorebook has {count} entries, over the limit of {limit}")]
    TooManyLorebookEntries { count: usize, limit: usize },
    #[error("the lorebook has {count} keys, over the limit of {limit}")]
    TooManyLorebookKeys { count: usize, limit: usize },
    #[error("the lorebook has {count} regex keys, over the limit of {limit}")]
    TooManyRegexKeys { count: usize, limit: usize },
    #[error("{path}: {reason}")]
    RegexTooLarge { path: String, reason: String },
    #[error("{path}: {message}")]
    InvalidField { path: String, message: String },
    #[error("the card has no name")]
    MissingName,
    #[error("unknown card spec {found:?} (expected chara_card_v2 or chara_card_v3)")]
    WrongSpec { found: String },

    #[error("the CHARX archive is unreadable: {message}")]
    Zip { message: String },
    #[error("the CHARX archive has {count} entries, over the limit of {limit}")]
    ZipTooManyEntries { count: usize, limit: usize },
    #[error("CHARX entry {name} expands too far (compression bomb)")]
    ZipBomb { name: String },
    #[error("CHARX entry name {name:?} is not a safe relative path")]
    ZipUnsafePath { name: String },
    #[error("the CHARX archive has no card.json")]
    ZipMissingCard,
    #[error("the JPEG carries no character card (no CHARX archive appended)")]
    NoCardInJpeg,
}

impl CardError {
    /// A stable machine-readable code (snake case), one per variant.
    pub fn code(&self) -> &'static str {
        match self {
            Self::FileTooLarge { .. } => "file_too_large",
            Self::UnknownFormat => "unknown_format",
            Self::PngSignature => "png_signature",
            Self::PngTruncated { .. } => "png_truncated",
            Self::PngBadCrc { .. } => "png_bad_crc",
            Self::PngMalformed { .. } => "png_malformed",
            Self::NoCardInPng => "no_card_in_png",
            Self::ChunkTooLarge { .. } => "chunk_too_large",
            Self::Base64 => "base64",
            Self::NotUtf8 => "not_utf8",
            Self::JsonTooLarge { .. } => "json_too_large",
            Self::Json { .. } => "json",
            Self::JsonTooDeep { .. } => "json_too_deep",
            Self::NotAnObject => "not_an_object",
            Self::StringTooLong { .. } => "string_too_long",
            Self::TooManyItems { .. } => "too_many_items",
            Self::TooManyLorebookEntries { .. } => "too_many_lorebook_entries",
            Self::TooManyLorebookKeys { .. } => "too_many_lorebook_keys",
            Self::TooManyRegexKeys { .. } => "too_many_regex_keys",
            Self::RegexTooLarge { .. } => "regex_too_large",
            Self::InvalidField { .. } => "invalid_field",
            Self::MissingName => "missing_name",
            Self::WrongSpec { .. } => "wrong_spec",
            Self::Zip { .. } => "zip",
            Self::ZipTooManyEntries { .. } => "zip_too_many_entries",
            Self::ZipBomb { .. } => "zip_bomb",
            Self::ZipUnsafePath { .. } => "zip_unsafe_path",
            Self::ZipMissingCard => "zip_missing_card",
            Self::NoCardInJpeg => "no_card_in_jpeg",
        }
    }
}
