//! The one card model every format is read into: shaped like Character Card V3 (a superset
//! of V2, which is a superset of V1). Fields the specs do not name are kept in `extra` maps
//! and `extensions` stay whole, so a card from another app leaves us as it came.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Number, Value};

/// A character card, whichever format it came in.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Card {
    pub data: CardData,
    /// Top-level fields other than `spec`, `spec_version`, `data` and the V1 mirror fields
    /// (apps such as SillyTavern put `avatar`, `chat`, `create_date`, `talkativeness`, `fav` there).
    /// Those reserved names are rewritten on export, so a value put here under one of them
    /// does not survive; import never puts one here.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl Card {
    /// The name `{{char}}` stands for: V3's `nickname` when the card sets one, else `name`.
    pub fn prompt_name(&self) -> &str {
        match self.data.nickname.as_deref() {
            Some(nick) if !nick.trim().is_empty() => nick,
            _ => &self.data.name,
        }
    }
}

/// The card's content (`data` of V2/V3; the whole object of V1).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CardData {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub description: String,
    #[serde(default, deserialize_with = "null_default")]
    pub personality: String,
    #[serde(default, deserialize_with = "null_default")]
    pub scenario: String,
    #[serde(default, deserialize_with = "null_default")]
    pub first_mes: String,
    #[serde(default, deserialize_with = "null_default")]
    pub mes_example: String,
    // V2.
    #[serde(default, deserialize_with = "null_default")]
    pub creator_notes: String,
    #[serde(default, deserialize_with = "null_default")]
    pub system_prompt: String,
    #[serde(default, deserialize_with = "null_default")]
    pub post_history_instructions: String,
    #[serde(default, deserialize_with = "null_default")]
    pub alternate_greetings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character_book: Option<Lorebook>,
    #[serde(default, deserialize_with = "null_default")]
    pub tags: Vec<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub creator: String,
    #[serde(default, deserialize_with = "null_default")]
    pub character_version: String,
    #[serde(default, deserialize_with = "null_default")]
    pub extensions: Map<String, Value>,
    // V3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assets: Option<Vec<Asset>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creator_notes_multilingual: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Vec<String>>,
    #[serde(default, deserialize_with = "null_default")]
    pub group_only_greetings: Vec<String>,
    /// Unix seconds as the card wrote them (kept as a JSON number so a float or a
    /// millisecond value some apps write comes back out unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_date: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modification_date: Option<Number>,
    /// Fields of `data` no spec names (the V3 spec lets apps keep them for export).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A V3 asset: `uri` is `embeded://path` (CHARX), `ccdefault:`, `data:` or a URL.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Asset {
    #[serde(rename = "type", default, deserialize_with = "null_default")]
    pub kind: String,
    #[serde(default, deserialize_with = "null_default")]
    pub uri: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub ext: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `character_book`: the card's own lorebook.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Lorebook {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan_depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recursive_scanning: Option<bool>,
    #[serde(default, deserialize_with = "null_default")]
    pub extensions: Map<String, Value>,
    #[serde(default, deserialize_with = "null_default")]
    pub entries: Vec<LorebookEntry>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One lorebook entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LorebookEntry {
    #[serde(default, deserialize_with = "null_default")]
    pub keys: Vec<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub content: String,
    #[serde(default, deserialize_with = "null_default")]
    pub extensions: Map<String, Value>,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Lower first. Some apps write floats here; they are kept as the number written.
    #[serde(default = "zero")]
    pub insertion_order: Number,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_sensitive: Option<bool>,
    /// V3 requires it; V2 cards lack it (false).
    #[serde(default)]
    pub use_regex: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constant: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Higher is kept longer when the budget is short.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Number>,
    /// A number or a string, as the card wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selective: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secondary_keys: Option<Vec<String>>,
    /// `before_char` or `after_char`; kept as written (see [`LorebookEntry::position`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for LorebookEntry {
    fn default() -> Self {
        Self {
            keys: Vec::new(),
            content: String::new(),
            extensions: Map::new(),
            enabled: true,
            insertion_order: zero(),
            case_sensitive: None,
            use_regex: false,
            constant: None,
            name: None,
            priority: None,
            id: None,
            comment: None,
            selective: None,
            secondary_keys: None,
            position: None,
            extra: Map::new(),
        }
    }
}

/// Where an active entry goes relative to the character definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryPosition {
    BeforeChar,
    AfterChar,
}

impl LorebookEntry {
    /// `after_char` only when the card says so: the spec's default is before.
    pub fn position(&self) -> EntryPosition {
        match self.position.as_deref() {
            Some("after_char") => EntryPosition::AfterChar,
            _ => EntryPosition::BeforeChar,
        }
    }

    pub fn is_constant(&self) -> bool {
        self.constant == Some(true)
    }
}

fn yes() -> bool {
    true
}

fn zero() -> Number {
    Number::from(0)
}

/// Several apps write `null` where the spec wants a string or a list; read it as empty.
fn null_default<'de, D, T>(de: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(de)?.unwrap_or_default())
}
