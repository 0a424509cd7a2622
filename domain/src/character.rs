//! Characters: the companions people browse and chat with (spec §3 "Character card").

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::Invalid;
use crate::gender::Gender;

/// Characters are adults; the community guidelines forbid minors and aged-up characters.
pub const MIN_CHARACTER_AGE: u8 = 18;
pub const MAX_CHARACTER_AGE: u8 = 100;
const MAX_ID_LEN: usize = 40;

/// An opaque character id: 1 to 40 of `[A-Za-z0-9_-]`, so it is safe in a URL path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(try_from = "String", into = "String")]
#[ts(type = "string")]
pub struct CharacterId(String);

impl TryFrom<String> for CharacterId {
    type Error = Invalid;

    fn try_from(raw: String) -> Result<Self, Invalid> {
        CharacterId::parse(&raw)
    }
}

impl From<CharacterId> for String {
    fn from(id: CharacterId) -> String {
        id.0
    }
}

impl CharacterId {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let valid_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if raw.is_empty() || raw.len() > MAX_ID_LEN || !raw.chars().all(valid_char) {
            return Err(Invalid::new("characterId", "must be 1 to 40 letters, digits, '-' or '_'"));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for CharacterId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A character's age in years, 18 or over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, TS)]
#[serde(transparent)]
#[ts(type = "number")]
pub struct CharacterAge(u8);

impl CharacterAge {
    pub fn parse(years: i64) -> Result<Self, Invalid> {
        if years < i64::from(MIN_CHARACTER_AGE) {
            return Err(Invalid::new("characterAge", "characters must be 18 or older"));
        }
        if years > i64::from(MAX_CHARACTER_AGE) {
            return Err(Invalid::new("characterAge", format!("must be at most {MAX_CHARACTER_AGE}")));
        }
        Ok(Self(years as u8))
    }

    pub fn years(self) -> u8 {
        self.0
    }
}

/// `usedType` of the card: 1 shows a lock icon (premium character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(into = "u8")]
#[ts(type = "number")]
pub enum UsedType {
    Free,
    Premium,
}

impl UsedType {
    pub fn from_code(code: i64) -> Result<Self, Invalid> {
        match code {
            0 => Ok(UsedType::Free),
            1 => Ok(UsedType::Premium),
            _ => Err(Invalid::new("usedType", "must be 0 or 1")),
        }
    }
}

impl From<UsedType> for u8 {
    fn from(used: UsedType) -> u8 {
        match used {
            UsedType::Free => 0,
            UsedType::Premium => 1,
        }
    }
}

/// Who may see a character in lists. Bots with explicit imagery get limited exposure:
/// hidden from new and unregistered users, never banned (community guidelines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exposure {
    Everyone,
    Restricted,
}

/// What the home grid shows for a character (API.md §4 `CharacterCard`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CharacterCard {
    pub character_id: CharacterId,
    pub character_name: String,
    pub character_age: CharacterAge,
    pub introduction: String,
    pub character_photo: String,
    pub character_image_list: Vec<String>,
    pub used_type: UsedType,
    pub gender: Gender,
}

/// The whole character (API.md §4 `Character`): the card plus what a chat needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Character {
    #[serde(flatten)]
    pub card: CharacterCard,
    pub personality: String,
    pub scenario: String,
    pub greeting: String,
    pub tags: Vec<String>,
    /// Sent only to the creator.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub creator_id: Option<String>,
    #[serde(skip)]
    pub exposure: Exposure,
    /// Who may see it: seeded characters are `Public`; created ones start `Private` or in
    /// `Review` (docs/api.md "Created characters").
    #[serde(skip)]
    pub status: CharacterStatus,
    /// What a character card adds to the prompt (empty for seeded characters).
    #[serde(flatten)]
    pub extras: CardExtras,
}

/// Where a character stands: who sees it, and whether it is in the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum CharacterStatus {
    /// Only its creator sees it.
    Private,
    /// Its creator asked for it to be public; only the creator sees it until an operator decides.
    Review,
    /// In the catalogue (every seeded character).
    #[default]
    Public,
    /// An operator refused to make it public; only the creator sees it, with the reason.
    Rejected,
}

impl CharacterStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CharacterStatus::Private => "private",
            CharacterStatus::Review => "review",
            CharacterStatus::Public => "public",
            CharacterStatus::Rejected => "rejected",
        }
    }

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        match raw {
            "private" => Ok(CharacterStatus::Private),
            "review" => Ok(CharacterStatus::Review),
            "public" => Ok(CharacterStatus::Public),
            "rejected" => Ok(CharacterStatus::Rejected),
            _ => Err(Invalid::new("status", "must be private, review, public or rejected")),
        }
    }

    /// Whether everyone (not only the creator) may find and open it.
    pub fn is_listed(self) -> bool {
        self == CharacterStatus::Public
    }
}

/// What a character card carries beyond the catalogue's fields (Character Card V2/V3:
/// `system_prompt`, `post_history_instructions`, `mes_example`, `alternate_greetings`,
/// `character_book`). Empty for seeded characters.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CardExtras {
    /// Replaces the default first line of the system message when set.
    pub system_prompt: String,
    /// Put after the history, just before the reply.
    pub post_history_instructions: String,
    /// Example dialogue (`mes_example`), `<START>`-separated.
    pub example_dialogue: String,
    /// Other first messages the user may choose from.
    pub alternate_greetings: Vec<String>,
    /// Whether the card has lorebook entries.
    pub has_lorebook: bool,
    /// The whole card as Character Card V3 JSON, kept for the lorebook and for export
    /// (unknown `extensions` survive). None for seeded and builder-made characters until
    /// exported once.
    #[serde(skip)]
    pub card_json: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_age_under_18_is_rejected() {
        assert!(CharacterAge::parse(17).is_err());
        assert!(CharacterAge::parse(-3).is_err());
        assert_eq!(CharacterAge::parse(18).map(CharacterAge::years), Ok(18));
    }

    #[test]
    fn a_character_id_is_url_safe() {
        assert!(CharacterId::parse("gf-001").is_ok());
        assert!(CharacterId::parse("").is_err());
        assert!(CharacterId::parse("../etc/passwd").is_err());
        assert!(CharacterId::parse(&"x".repeat(41)).is_err());
    }

    #[test]
    fn a_card_travels_in_camel_case_with_numeric_codes() {
        let card = CharacterCard {
            character_id: CharacterId::parse("gf-001").unwrap_or_else(|e| panic!("{e}")),
            character_name: "Sofia".into(),
            character_age: CharacterAge::parse(24).unwrap_or_else(|e| panic!("{e}")),
            introduction: "Hi".into(),
            character_photo: "/media/a".into(),
            character_image_list: vec!["/media/b".into()],
            used_type: UsedType::Premium,
            gender: Gender::Girls,
        };
        let json = serde_json::to_value(&card).unwrap_or_default();
        assert_eq!(json["characterId"], "gf-001");
        assert_eq!(json["characterAge"], 24);
        assert_eq!(json["usedType"], 1);
        assert_eq!(json["gender"], 0);
        assert_eq!(json["characterImageList"][0], "/media/b");
    }
}
