//! Created characters (docs/api.md "Created characters, My AI and character cards"): what
//! the routes of the builder, My AI, card import and export and the operator's review
//! share: portraits, a card's picture made safe, and a card read into a character.

pub mod card_image;
pub mod portrait;
