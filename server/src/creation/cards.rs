//! Character cards in and out (docs/api.md `importCard`, `exportCard`). `amora_cards`
//! reads and writes the files; this module maps a card to the catalogue's fields and back,
//! keeps the whole card (V3 JSON, unknown `extensions` included) for the prompt and for
//! export, and carries Amora's own fields in `extensions.amora`.
//!
//! The mapping keeps a round trip exact: exporting writes the character's fields back over
//! the card it came from, which are the same values import read, so import → export →
//! import gives the same character and the same card.

use amora_cards::{Card, CardError, Limits};
use amora_domain::character::{CardExtras, Character};
use amora_domain::tag::TagKey;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::ApiError;

/// The largest card file taken (the upload body is larger: base64 inside the envelope).
pub const MAX_CARD_FILE_BYTES: usize = 8 * 1024 * 1024;
/// The key of Amora's own fields in the card's `extensions`.
pub const EXTENSION_KEY: &str = "amora";
/// The builder's limits that an imported card is cut to (docs/api.md).
const NAME_MAX_CHARS: usize = 40;
const INTRODUCTION_MAX_CHARS: usize = 300;
const TAGS_MAX: usize = 10;

/// The limits cards are read and written with: the crate's, with the file limit of the API.
pub fn limits() -> Limits {
    Limits { max_file_bytes: MAX_CARD_FILE_BYTES, ..Limits::default() }
}

/// A refused card as the API answers it: 10001, `card: <code>: <reason>`.
pub fn refused(error: &CardError) -> ApiError {
    ApiError::Param(format!("card: {}: {error}", error.code()))
}

/// Amora's fields in `extensions.amora`: what a card has no field for. Each is read on its
/// own and a value of the wrong type counts as absent, so another app's odd value never
/// makes a card unreadable.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AmoraExtension {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age: Option<i64>,
    /// 0 girl, 1 boy (the product's gender codes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gender: Option<i64>,
    /// The builder's looks, as `Draft.looks` is sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub looks: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voice_id: Option<String>,
}

impl AmoraExtension {
    /// What the card's `extensions.amora` holds (nothing when it has none).
    pub fn of(card: &Card) -> Self {
        let Some(Value::Object(amora)) = card.data.extensions.get(EXTENSION_KEY) else { return Self::default() };
        let text = |key: &str| amora.get(key).and_then(Value::as_str).map(str::to_owned);
        Self {
            age: amora.get("age").and_then(Value::as_i64),
            gender: amora.get("gender").and_then(Value::as_i64),
            looks: amora.get("looks").filter(|v| v.is_object()).cloned(),
            style: text("style"),
            voice_id: text("voiceId"),
        }
    }

    fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|_| Value::Object(Map::new()))
    }
}

/// A card's content as the catalogue's fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardText {
    /// `name`, cut to 40 characters.
    pub name: String,
    /// `personality`, or `description` when the card's personality is empty.
    pub personality: String,
    pub scenario: String,
    /// `first_mes`.
    pub greeting: String,
    /// The first 300 characters of `creator_notes`, else of `description`.
    pub introduction: String,
    /// The card's tags that are valid catalogue tags, at most 10.
    pub tags: Vec<String>,
    /// What the prompt adds from the card (the whole card as V3 JSON in `card_json`).
    pub extras: CardExtras,
}

/// Reads the catalogue's fields out of a card; `card_json` is the card as V3 JSON.
pub fn text_of(card: &Card, limits: &Limits) -> Result<CardText, ApiError> {
    let data = &card.data;
    let card_json = amora_cards::export_json(card, limits).map_err(|e| refused(&e))?;
    let card_json = String::from_utf8(card_json).map_err(|e| ApiError::Internal(format!("card JSON: {e}")))?;
    let introduction_source =
        if data.creator_notes.trim().is_empty() { &data.description } else { &data.creator_notes };
    Ok(CardText {
        name: cut(data.name.trim(), NAME_MAX_CHARS),
        personality: if data.personality.trim().is_empty() {
            data.description.clone()
        } else {
            data.personality.clone()
        },
        scenario: data.scenario.clone(),
        greeting: data.first_mes.clone(),
        introduction: cut(introduction_source.trim(), INTRODUCTION_MAX_CHARS),
        tags: catalogue_tags(&data.tags),
        extras: CardExtras {
            system_prompt: data.system_prompt.clone(),
            post_history_instructions: data.post_history_instructions.clone(),
            example_dialogue: data.mes_example.clone(),
            alternate_greetings: data.alternate_greetings.clone(),
            has_lorebook: data.character_book.as_ref().is_some_and(|book| !book.entries.is_empty()),
            card_json: Some(card_json),
        },
    })
}

/// Every string of a card, each named as a refusal names it: the builder's names for the
/// fields it has (`characterName`, `greeting`, `lorebook[1]` for an entry's content), the
/// card's own path for the rest (`creator`, `extensions.depth_prompt.prompt`,
/// `lorebook[0].keys[1]`). All of them reach a prompt or, on export, other people.
pub fn moderated_texts(card: &Card) -> Vec<(String, String)> {
    amora_cards::texts::strings(card).into_iter().map(|(path, text)| (field_name(&path), text)).collect()
}

/// The name a refusal gives the string at `path` (`amora_cards::texts::strings`).
fn field_name(path: &str) -> String {
    let Some(inner) = path.strip_prefix("data.") else { return path.to_owned() };
    let (head, rest) = match inner.find(['.', '[']) {
        Some(at) => inner.split_at(at),
        None => (inner, ""),
    };
    let renamed = match head {
        "name" => "characterName",
        "first_mes" => "greeting",
        "mes_example" => "exampleDialogue",
        "creator_notes" => "introduction",
        "system_prompt" => "systemPrompt",
        "post_history_instructions" => "postHistoryInstructions",
        "alternate_greetings" => "alternateGreetings",
        "character_book" => {
            // `entries[i].content` is the entry itself; its other strings are named under it.
            let rest = rest.strip_prefix(".entries").map_or_else(|| rest.to_owned(), str::to_owned);
            let rest = rest.strip_suffix(".content").filter(|r| r.starts_with('[')).unwrap_or(&rest).to_owned();
            return format!("lorebook{rest}");
        }
        other => other,
    };
    format!("{renamed}{rest}")
}

/// The card a character is exported as: the card it was imported from (or an empty one),
/// with the character's fields written over it and Amora's in `extensions.amora`.
pub fn card_for_export(character: &Character, amora: &AmoraExtension, limits: &Limits) -> Card {
    let mut card = character
        .extras
        .card_json
        .as_deref()
        .and_then(|json| amora_cards::json::parse_card_json(json.as_bytes(), limits).ok())
        .map(|(card, _)| card)
        .unwrap_or_default();
    let data = &mut card.data;
    let was = (data.personality.trim().is_empty(), data.description.trim().is_empty());
    if cut(data.name.trim(), NAME_MAX_CHARS) != character.card.character_name {
        data.name = character.card.character_name.clone();
    }
    match was {
        // Imported from the description (the card had no personality): it goes back there.
        (true, false) => data.description = character.personality.clone(),
        // Made with the builder: the personality text describes the character.
        (true, true) => data.description = character.personality.clone(),
        (false, _) => data.personality = character.personality.clone(),
    }
    data.scenario = character.scenario.clone();
    data.first_mes = character.greeting.clone();
    let introduction_source =
        if data.creator_notes.trim().is_empty() { &data.description } else { &data.creator_notes };
    if cut(introduction_source.trim(), INTRODUCTION_MAX_CHARS) != character.card.introduction {
        data.creator_notes = character.card.introduction.clone();
    }
    if catalogue_tags(&data.tags) != character.tags {
        data.tags = character.tags.clone();
    }
    let extras = &character.extras;
    data.system_prompt = extras.system_prompt.clone();
    data.post_history_instructions = extras.post_history_instructions.clone();
    data.mes_example = extras.example_dialogue.clone();
    data.alternate_greetings = extras.alternate_greetings.clone();
    data.extensions.insert(EXTENSION_KEY.into(), amora.to_value());
    card
}

/// The catalogue tags among a card's: valid ones, folded duplicates dropped, at most 10.
fn catalogue_tags(tags: &[String]) -> Vec<String> {
    let mut seen = Vec::new();
    let mut kept = Vec::new();
    for tag in tags {
        if let Ok(key) = TagKey::parse(tag)
            && !seen.contains(&key)
            && kept.len() < TAGS_MAX
        {
            seen.push(key);
            kept.push(tag.trim().to_owned());
        }
    }
    kept
}

fn cut(text: &str, max_chars: usize) -> String {
    amora_domain::text::truncate_chars(text, max_chars).trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str) -> Card {
        let path = format!("{}/../cards/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        amora_cards::import(&bytes, &limits()).unwrap_or_else(|e| panic!("{name}: {e}")).card
    }

    #[test]
    fn every_string_of_a_card_is_named_as_the_refusal_names_it() {
        for (path, name) in [
            ("data.name", "characterName"),
            ("data.description", "description"),
            ("data.first_mes", "greeting"),
            ("data.alternate_greetings[2]", "alternateGreetings[2]"),
            ("data.tags[0]", "tags[0]"),
            ("data.creator", "creator"),
            ("data.extensions.depth_prompt.prompt", "extensions.depth_prompt.prompt"),
            ("data.character_book.entries[1].content", "lorebook[1]"),
            ("data.character_book.entries[0].keys[1]", "lorebook[0].keys[1]"),
            ("data.character_book.entries[0].comment", "lorebook[0].comment"),
            ("data.character_book.name", "lorebook.name"),
            ("extra.avatar", "extra.avatar"),
        ] {
            assert_eq!(field_name(path), name, "{path}");
        }
    }

    #[test]
    fn a_v1_card_maps_to_the_catalogue_fields() {
        let card = sample("v1.json");
        let text = text_of(&card, &limits()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(text.name, "Marisol");
        assert_eq!(text.personality, "dry humour, patient, curious about strangers");
        assert!(text.greeting.starts_with("*The door creaks open.*"));
        assert!(text.introduction.starts_with("{{char}} keeps the lighthouse"), "{}", text.introduction);
        assert!(text.extras.example_dialogue.starts_with("<START>"));
        assert!(!text.extras.has_lorebook);
    }

    #[test]
    fn the_amora_extension_is_read_leniently() {
        let mut card = sample("v1.json");
        assert_eq!(AmoraExtension::of(&card), AmoraExtension::default());
        card.data.extensions.insert(
            EXTENSION_KEY.into(),
            serde_json::json!({"age": 27, "gender": "girl", "style": "anime", "voiceId": 5}),
        );
        let amora = AmoraExtension::of(&card);
        assert_eq!(
            (amora.age, amora.gender, amora.style.as_deref(), amora.voice_id),
            (Some(27), None, Some("anime"), None)
        );
    }

    #[test]
    fn tags_are_kept_when_valid_and_capped() {
        let tags: Vec<String> = ["Romance", "romance", "NSFW 🔞", "slice of life"]
            .iter()
            .map(|t| (*t).to_owned())
            .chain((0..20).map(|i| format!("t{i}")))
            .collect();
        let kept = catalogue_tags(&tags);
        assert_eq!(&kept[..2], ["Romance", "slice of life"]);
        assert_eq!(kept.len(), TAGS_MAX);
    }
}
