//! How big a card may be. The defaults are generous for real cards (the largest popular
//! SillyTavern cards carry descriptions of a few thousand words and lorebooks of a few
//! hundred entries) and small enough that a crafted file cannot make the server spend
//! more than a few megabytes or a few milliseconds on it.

/// Limits applied on import and export. [`Limits::default`] is what the server uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Whole uploaded file (PNG, JSON or CHARX).
    pub max_file_bytes: usize,
    /// The card's JSON, after base64 decoding.
    pub max_card_json_bytes: usize,
    /// Nesting of arrays and objects in the card JSON.
    pub max_json_depth: usize,
    /// Any one string anywhere in the card (description, a greeting, an entry's content...).
    pub max_string_bytes: usize,
    /// `name` and `nickname`.
    pub max_name_bytes: usize,
    /// Any one array anywhere in the card (greetings, tags, keys, extension lists).
    pub max_array_items: usize,
    /// Entries of `character_book`.
    pub max_lorebook_entries: usize,
    /// Keys of the lorebook in all (`keys` and `secondary_keys` of every entry): each is
    /// looked for in the chat at every scan.
    pub max_lorebook_keys: usize,
    /// Keys of `use_regex` entries: each is compiled (once per card version) and run over
    /// the chat at every scan, so they cost far more than plain keys.
    pub max_regex_keys: usize,
    /// One regex key, as written (`/pattern/flags`).
    pub max_regex_key_bytes: usize,
    /// What one regex key may compile to (the regex crate's `size_limit`); a key past it
    /// is refused on import (on a card stored before the limit: skipped at scan).
    pub max_regex_compiled_bytes: usize,
    /// Entries of a CHARX archive.
    pub max_zip_entries: usize,
    /// What one CHARX entry we read (card.json, the icon) may expand to.
    pub max_zip_entry_bytes: usize,
    /// Expansion ratio (uncompressed / compressed) past which a CHARX entry is a bomb.
    pub max_zip_ratio: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: 10 * 1024 * 1024,
            max_card_json_bytes: 2 * 1024 * 1024,
            max_json_depth: 64,
            max_string_bytes: 64 * 1024,
            max_name_bytes: 256,
            max_array_items: 1_000,
            max_lorebook_entries: 1_000,
            max_lorebook_keys: 10_000,
            max_regex_keys: 500,
            max_regex_key_bytes: 1_024,
            max_regex_compiled_bytes: 64 * 1024,
            max_zip_entries: 256,
            max_zip_entry_bytes: 10 * 1024 * 1024,
            max_zip_ratio: 100,
        }
    }
}
