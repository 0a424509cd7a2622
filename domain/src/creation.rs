//! The character builder (`/createcharacter`, docs/api.md "Created characters"): the
//! `Draft` a client sends, the presets it picks from, and the rules a draft must meet
//! before it becomes a character. Presets are keys (lower case); their labels belong to
//! the client (i18n namespace `create`), their words for prompts live here.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::Invalid;
use crate::account::UserId;
use crate::appearance::Look;
use crate::character::{
    CardExtras, Character, CharacterAge, CharacterCard, CharacterId, CharacterStatus, Exposure, MAX_CHARACTER_AGE,
    MIN_CHARACTER_AGE, UsedType,
};
use crate::gender::Gender;
use crate::tag::TagKey;

/// The builder's limits (`CreateOptions.limits`), in characters (not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CreateLimits {
    pub name_max: usize,
    pub introduction_max: usize,
    pub greeting_max: usize,
    pub scenario_max: usize,
    /// The free text of the personality and of the relationship.
    pub text_max: usize,
    pub tags_max: usize,
    pub age_min: u8,
    pub age_max: u8,
}

pub const LIMITS: CreateLimits = CreateLimits {
    name_max: 40,
    introduction_max: 300,
    greeting_max: 2000,
    scenario_max: 2000,
    text_max: 1000,
    tags_max: 10,
    age_min: MIN_CHARACTER_AGE,
    age_max: MAX_CHARACTER_AGE,
};

/// A voice id is a key of the voice catalogue (the server checks it is one); this only
/// keeps its shape sane.
const VOICE_ID_MAX: usize = 64;

/// How the portrait and images are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    #[default]
    Realistic,
    Anime,
}

impl Style {
    pub const ALL: [Style; 2] = [Style::Realistic, Style::Anime];

    pub fn key(self) -> &'static str {
        match self {
            Style::Realistic => "realistic",
            Style::Anime => "anime",
        }
    }

    /// Words that put prompt-reading image models in the style.
    pub fn prompt_words(self) -> &'static str {
        match self {
            Style::Realistic => "photorealistic portrait photo, natural light",
            Style::Anime => "anime style illustration, clean line art, soft cel shading",
        }
    }
}

/// Who the creator wants to see the character: `Public` goes through review first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    #[default]
    Private,
    Public,
}

impl Visibility {
    /// The status a character saved with this visibility takes: public ones wait for review.
    pub fn status(self) -> CharacterStatus {
        match self {
            Visibility::Private => CharacterStatus::Private,
            Visibility::Public => CharacterStatus::Review,
        }
    }

    /// What My AI shows for a status: everything but `private` was asked to be public.
    pub fn of_status(status: CharacterStatus) -> Visibility {
        match status {
            CharacterStatus::Private => Visibility::Private,
            CharacterStatus::Review | CharacterStatus::Public | CharacterStatus::Rejected => Visibility::Public,
        }
    }
}

/// The character's looks: an age and preset keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct Looks {
    /// Years, 18 to 100. Wide on the wire so that a bad value is refused by `validate`
    /// naming `looks.age`, not by the JSON reader.
    #[ts(type = "number")]
    pub age: i64,
    pub ethnicity: String,
    pub eyes: String,
    pub hair_color: String,
    pub hair_style: String,
    pub body: String,
    pub outfit: String,
}

/// A preset with the creator's own words added (`personality`, `relationship`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct PresetText {
    pub preset: String,
    pub text: String,
}

/// What the builder sends (`character/create`, `character/update`) and what My AI gives
/// back to edit. Missing text fields read as empty so that `validate` names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Draft {
    pub gender: Gender,
    #[serde(default)]
    pub style: Style,
    #[serde(default)]
    pub looks: Looks,
    #[serde(default)]
    pub personality: PresetText,
    #[serde(default)]
    pub relationship: PresetText,
    /// Empty: the default voice of the gender.
    #[serde(default)]
    pub voice_id: String,
    #[serde(default)]
    pub character_name: String,
    #[serde(default)]
    pub introduction: String,
    #[serde(default)]
    pub greeting: String,
    #[serde(default)]
    pub scenario: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub nsfw: bool,
    #[serde(default)]
    pub visibility: Visibility,
}

/// One preset: its key, the illustrator's index it maps to (where it has one) and its
/// words for prompts.
struct Preset {
    key: &'static str,
    index: u8,
    words: &'static str,
}

const fn p(key: &'static str, index: u8, words: &'static str) -> Preset {
    Preset { key, index, words }
}

/// Ethnicity → skin tone (`Look::skin`: 0 porcelain, 1 fair, 2 olive, 3 tan, 4 brown, 5 deep).
const ETHNICITIES_WOMEN: &[Preset] = &[
    p("caucasian", 1, "caucasian"),
    p("latina", 3, "latina"),
    p("asian", 0, "east asian"),
    p("black", 5, "black"),
    p("arab", 2, "arab"),
    p("indian", 4, "indian"),
    p("mixed", 3, "mixed-race"),
];
const ETHNICITIES_MEN: &[Preset] = &[
    p("caucasian", 1, "caucasian"),
    p("latino", 3, "latino"),
    p("asian", 0, "east asian"),
    p("black", 5, "black"),
    p("arab", 2, "arab"),
    p("indian", 4, "indian"),
    p("mixed", 3, "mixed-race"),
];
/// `Look::eyes`.
const EYES: &[Preset] = &[
    p("brown", 0, "brown"),
    p("hazel", 1, "hazel"),
    p("green", 2, "green"),
    p("blue", 3, "blue"),
    p("grey", 4, "grey"),
];
/// `Look::hair` (7 is rose for women, silver for men).
const HAIR_COLORS_WOMEN: &[Preset] = &[
    p("black", 0, "black"),
    p("brown", 1, "dark brown"),
    p("chestnut", 2, "chestnut"),
    p("auburn", 3, "auburn"),
    p("blonde", 4, "golden blonde"),
    p("platinum", 5, "platinum blonde"),
    p("red", 6, "copper red"),
    p("pink", 7, "rose pink"),
];
const HAIR_COLORS_MEN: &[Preset] = &[
    p("black", 0, "black"),
    p("brown", 1, "dark brown"),
    p("chestnut", 2, "chestnut"),
    p("auburn", 3, "auburn"),
    p("blonde", 4, "golden blonde"),
    p("red", 6, "copper red"),
    p("silver", 7, "silver"),
];
/// `Look::hair_style`, whose table differs by gender.
const HAIR_STYLES_WOMEN: &[Preset] = &[
    p("straight", 0, "long straight"),
    p("wavy", 1, "long wavy"),
    p("bob", 2, "bob"),
    p("ponytail", 3, "ponytail"),
    p("pixie", 4, "pixie cut"),
    p("curly", 5, "curls"),
];
const HAIR_STYLES_MEN: &[Preset] = &[
    p("quiff", 0, "quiff"),
    p("fringe", 1, "tousled fringe"),
    p("curly", 2, "curly"),
    p("bun", 3, "man bun"),
    p("short", 4, "short crop"),
    p("buzz", 5, "buzz cut"),
];
/// Bodies have no illustrator index (the portrait is head and shoulders); words only.
const BODIES_WOMEN: &[Preset] = &[
    p("slim", 0, "a slim figure"),
    p("athletic", 0, "an athletic build"),
    p("average", 0, "an average build"),
    p("curvy", 0, "a curvy figure"),
    p("voluptuous", 0, "a full, voluptuous figure"),
];
const BODIES_MEN: &[Preset] = &[
    p("slim", 0, "a slim build"),
    p("athletic", 0, "an athletic build"),
    p("average", 0, "an average build"),
    p("muscular", 0, "a muscular build"),
    p("stocky", 0, "a broad, stocky build"),
];

/// An outfit picks the portrait's backdrop and accessory, so that the same looks always
/// draw the same portrait.
struct Outfit {
    key: &'static str,
    /// `Look::background`.
    background: u8,
    /// `Look::accessory`: 0 none, 1 earrings/studs, 2 glasses, 3 necklace/chain.
    accessory: u8,
    words: &'static str,
}

const fn o(key: &'static str, background: u8, accessory: u8, words: &'static str) -> Outfit {
    Outfit { key, background, accessory, words }
}

const OUTFITS_WOMEN: &[Outfit] = &[
    o("casual", 2, 1, "a casual top and jeans"),
    o("dress", 0, 3, "a floral dress"),
    o("business", 1, 2, "a tailored blazer and blouse"),
    o("sporty", 3, 0, "a sports top and leggings"),
    o("evening", 6, 3, "an elegant evening gown"),
    o("cozy", 7, 0, "an oversized knit sweater"),
    o("leather", 5, 1, "a black leather jacket"),
    o("summer", 4, 1, "a light summer top and shorts"),
];
const OUTFITS_MEN: &[Outfit] = &[
    o("casual", 2, 0, "a plain t-shirt and jeans"),
    o("suit", 6, 0, "a dark tailored suit"),
    o("smart", 1, 2, "a crisp button-down shirt"),
    o("sporty", 3, 0, "a sports tank top"),
    o("cozy", 7, 0, "a chunky knit sweater"),
    o("leather", 5, 3, "a black leather jacket"),
    o("summer", 4, 1, "a linen shirt"),
    o("denim", 0, 1, "a denim jacket"),
];

/// Personalities, in words the prompt gives the model.
const PERSONALITIES: &[Preset] = &[
    p("caring", 0, "caring: warm, attentive and supportive"),
    p("playful", 0, "playful: teasing, cheerful and full of jokes"),
    p("shy", 0, "shy: gentle, a little timid, opening up slowly"),
    p("confident", 0, "confident: self-assured, direct and bold"),
    p("flirty", 0, "flirty: charming, affectionate and suggestive"),
    p("nerdy", 0, "nerdy: curious, clever and passionate about books, games and science"),
    p("adventurous", 0, "adventurous: spontaneous, daring and always up for something new"),
    p("mysterious", 0, "mysterious: calm, thoughtful and hard to read"),
];
const RELATIONSHIPS_WOMEN: &[Preset] = &[
    p("girlfriend", 0, "your girlfriend"),
    p("wife", 0, "your wife"),
    p("best-friend", 0, "your best friend"),
    p("crush", 0, "your crush, who may like you back"),
    p("coworker", 0, "your coworker"),
    p("neighbor", 0, "your neighbor"),
    p("stranger", 0, "a stranger you just met"),
];
const RELATIONSHIPS_MEN: &[Preset] = &[
    p("boyfriend", 0, "your boyfriend"),
    p("husband", 0, "your husband"),
    p("best-friend", 0, "your best friend"),
    p("crush", 0, "your crush, who may like you back"),
    p("coworker", 0, "your coworker"),
    p("neighbor", 0, "your neighbor"),
    p("stranger", 0, "a stranger you just met"),
];

fn ethnicities(gender: Gender) -> &'static [Preset] {
    by_gender(gender, ETHNICITIES_WOMEN, ETHNICITIES_MEN)
}
fn hair_colors(gender: Gender) -> &'static [Preset] {
    by_gender(gender, HAIR_COLORS_WOMEN, HAIR_COLORS_MEN)
}
fn hair_styles(gender: Gender) -> &'static [Preset] {
    by_gender(gender, HAIR_STYLES_WOMEN, HAIR_STYLES_MEN)
}
fn bodies(gender: Gender) -> &'static [Preset] {
    by_gender(gender, BODIES_WOMEN, BODIES_MEN)
}
fn outfits(gender: Gender) -> &'static [Outfit] {
    by_gender(gender, OUTFITS_WOMEN, OUTFITS_MEN)
}
fn relationships(gender: Gender) -> &'static [Preset] {
    by_gender(gender, RELATIONSHIPS_WOMEN, RELATIONSHIPS_MEN)
}

fn by_gender<T: ?Sized>(gender: Gender, women: &'static T, men: &'static T) -> &'static T {
    match gender {
        Gender::Girls => women,
        Gender::Guys => men,
    }
}

fn find<'a>(table: &'a [Preset], key: &str) -> Option<&'a Preset> {
    table.iter().find(|preset| preset.key == key)
}

fn keys(table: &[Preset]) -> Vec<PresetKey> {
    table.iter().map(|preset| PresetKey { key: preset.key }).collect()
}

/// A preset as `CreateOptions` lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(rename = "Preset")]
pub struct PresetKey {
    pub key: &'static str,
}

/// A voice the builder offers (from the voice catalogue, issue 16).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct VoiceOption {
    pub voice_id: String,
    pub gender: Gender,
    pub label: String,
}

/// `character/getCreateOptions`: what the builder offers for a gender.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CreateOptions {
    pub gender: Gender,
    pub styles: Vec<PresetKey>,
    pub ethnicities: Vec<PresetKey>,
    pub eyes: Vec<PresetKey>,
    pub hair_colors: Vec<PresetKey>,
    pub hair_styles: Vec<PresetKey>,
    pub bodies: Vec<PresetKey>,
    pub outfits: Vec<PresetKey>,
    pub personalities: Vec<PresetKey>,
    pub relationships: Vec<PresetKey>,
    pub voices: Vec<VoiceOption>,
    pub limits: CreateLimits,
}

impl CreateOptions {
    /// The presets of `gender` with the voices the caller offers.
    pub fn new(gender: Gender, voices: Vec<VoiceOption>) -> Self {
        Self {
            gender,
            styles: Style::ALL.iter().map(|style| PresetKey { key: style.key() }).collect(),
            ethnicities: keys(ethnicities(gender)),
            eyes: keys(EYES),
            hair_colors: keys(hair_colors(gender)),
            hair_styles: keys(hair_styles(gender)),
            bodies: keys(bodies(gender)),
            outfits: outfits(gender).iter().map(|outfit| PresetKey { key: outfit.key }).collect(),
            personalities: keys(PERSONALITIES),
            relationships: keys(relationships(gender)),
            voices,
            limits: LIMITS,
        }
    }
}

/// Looks whose presets are all known for their gender: what the portrait is drawn from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ValidLooks {
    gender: Gender,
    age: CharacterAge,
    looks: Looks,
}

impl ValidLooks {
    /// Checks looks alone (`character/previewPortrait` draws before a draft is complete).
    pub fn parse(gender: Gender, looks: &Looks) -> Result<Self, Invalid> {
        let age = CharacterAge::parse(looks.age).map_err(|e| Invalid::new("looks.age", e.reason))?;
        let known = |table: &[Preset], field: &'static str, key: &str| {
            find(table, key).map(|_| ()).ok_or_else(|| unknown(field, key))
        };
        known(ethnicities(gender), "looks.ethnicity", &looks.ethnicity)?;
        known(EYES, "looks.eyes", &looks.eyes)?;
        known(hair_colors(gender), "looks.hairColor", &looks.hair_color)?;
        known(hair_styles(gender), "looks.hairStyle", &looks.hair_style)?;
        known(bodies(gender), "looks.body", &looks.body)?;
        if !outfits(gender).iter().any(|outfit| outfit.key == looks.outfit) {
            return Err(unknown("looks.outfit", &looks.outfit));
        }
        Ok(Self { gender, age, looks: looks.clone() })
    }

    pub fn gender(&self) -> Gender {
        self.gender
    }

    pub fn age(&self) -> CharacterAge {
        self.age
    }

    pub fn looks(&self) -> &Looks {
        &self.looks
    }

    /// The illustrator's look: skin from the ethnicity, hair colour and style, eyes, and the
    /// backdrop and accessory from the outfit. The same looks give the same `Look`.
    pub fn look(&self) -> Look {
        let g = self.gender;
        let l = &self.looks;
        let index = |table: &[Preset], key: &str| find(table, key).map(|preset| preset.index).unwrap_or(0);
        let outfit = outfits(g).iter().find(|outfit| outfit.key == l.outfit);
        Look {
            skin: index(ethnicities(g), &l.ethnicity),
            hair: index(hair_colors(g), &l.hair_color),
            hair_style: index(hair_styles(g), &l.hair_style),
            eyes: index(EYES, &l.eyes),
            background: outfit.map(|outfit| outfit.background).unwrap_or(0),
            accessory: outfit.map(|outfit| outfit.accessory).unwrap_or(0),
        }
    }

    /// The looks in words for prompt-reading image models: `Look::describe` with the age
    /// and ethnicity in front and the body and outfit after, e.g. "a 24-year-old latina
    /// woman with tan skin, long wavy dark brown hair, green eyes and a fine gold necklace,
    /// with a curvy figure, wearing a floral dress".
    pub fn describe(&self) -> String {
        let g = self.gender;
        let l = &self.looks;
        let words = |table: &[Preset], key: &str| find(table, key).map(|preset| preset.words).unwrap_or("");
        let described = self.look().describe(g);
        let (young, noun) = match g {
            Gender::Girls => ("a young woman", "woman"),
            Gender::Guys => ("a young man", "man"),
        };
        let rest = described.strip_prefix(young).unwrap_or(&described);
        let ethnicity = words(ethnicities(g), &l.ethnicity);
        let outfit = outfits(g).iter().find(|outfit| outfit.key == l.outfit).map(|outfit| outfit.words).unwrap_or("");
        format!(
            "a {}-year-old {ethnicity} {noun}{rest}, with {}, wearing {outfit}",
            self.age.years(),
            words(bodies(g), &l.body)
        )
    }
}

/// A draft that passed every rule of the builder: texts trimmed, tags checked and
/// de-duplicated, presets known for the gender, age 18 to 100.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidDraft {
    draft: Draft,
    looks: ValidLooks,
}

impl Draft {
    /// Checks every field; the error names the first that fails (`characterName`,
    /// `looks.age`, `personality.preset`, `tags`, …), as 10001 reports it.
    pub fn validate(self) -> Result<ValidDraft, Invalid> {
        let mut draft = self;
        let gender = draft.gender;
        trim_in_place(&mut draft.looks.ethnicity);
        trim_in_place(&mut draft.looks.eyes);
        trim_in_place(&mut draft.looks.hair_color);
        trim_in_place(&mut draft.looks.hair_style);
        trim_in_place(&mut draft.looks.body);
        trim_in_place(&mut draft.looks.outfit);
        let looks = ValidLooks::parse(gender, &draft.looks)?;

        trim_in_place(&mut draft.personality.preset);
        if find(PERSONALITIES, &draft.personality.preset).is_none() {
            return Err(unknown("personality.preset", &draft.personality.preset));
        }
        text(&mut draft.personality.text, "personality.text", 0, LIMITS.text_max)?;
        trim_in_place(&mut draft.relationship.preset);
        if find(relationships(gender), &draft.relationship.preset).is_none() {
            return Err(unknown("relationship.preset", &draft.relationship.preset));
        }
        text(&mut draft.relationship.text, "relationship.text", 0, LIMITS.text_max)?;

        trim_in_place(&mut draft.voice_id);
        let voice_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
        if draft.voice_id.len() > VOICE_ID_MAX || !draft.voice_id.chars().all(voice_char) {
            return Err(Invalid::new("voiceId", "is not a voice of the catalogue"));
        }

        text(&mut draft.character_name, "characterName", 1, LIMITS.name_max)?;
        if draft.character_name.chars().any(char::is_control) {
            return Err(Invalid::new("characterName", "must be on one line"));
        }
        text(&mut draft.introduction, "introduction", 1, LIMITS.introduction_max)?;
        text(&mut draft.greeting, "greeting", 1, LIMITS.greeting_max)?;
        text(&mut draft.scenario, "scenario", 0, LIMITS.scenario_max)?;
        draft.tags = tags(&draft.tags)?;
        Ok(ValidDraft { draft, looks })
    }
}

impl ValidDraft {
    pub fn draft(&self) -> &Draft {
        &self.draft
    }

    pub fn into_draft(self) -> Draft {
        self.draft
    }

    pub fn looks(&self) -> &ValidLooks {
        &self.looks
    }

    pub fn age(&self) -> CharacterAge {
        self.looks.age
    }

    /// The status the character takes when saved from this draft (`public` → `review`).
    pub fn status(&self) -> CharacterStatus {
        self.draft.visibility.status()
    }

    /// Explicit characters get restricted exposure (community guidelines).
    pub fn exposure(&self) -> Exposure {
        if self.draft.nsfw { Exposure::Restricted } else { Exposure::Everyone }
    }

    /// The character's personality as the prompt reads it: the personality and the
    /// relationship presets in words, each followed by the creator's own text.
    pub fn personality_text(&self) -> String {
        let d = &self.draft;
        let personality = find(PERSONALITIES, &d.personality.preset).map(|preset| preset.words).unwrap_or("");
        let relationship =
            find(relationships(d.gender), &d.relationship.preset).map(|preset| preset.words).unwrap_or("");
        let mut out = format!("Personality: {personality}.");
        if !d.personality.text.is_empty() {
            out.push(' ');
            out.push_str(&d.personality.text);
        }
        out.push_str(&format!("\nRelationship: {relationship}."));
        if !d.relationship.text.is_empty() {
            out.push(' ');
            out.push_str(&d.relationship.text);
        }
        out
    }

    /// The character this draft makes: the creator's, free to chat with, in the status its
    /// visibility asks for, with `photo` (its portrait's URL) as the card photo.
    pub fn character(&self, id: CharacterId, creator: &UserId, photo: String, extras: CardExtras) -> Character {
        let d = &self.draft;
        Character {
            card: CharacterCard {
                character_id: id,
                character_name: d.character_name.clone(),
                character_age: self.age(),
                introduction: d.introduction.clone(),
                character_photo: photo,
                character_image_list: Vec::new(),
                used_type: UsedType::Free,
                gender: d.gender,
            },
            personality: self.personality_text(),
            scenario: d.scenario.clone(),
            greeting: d.greeting.clone(),
            tags: d.tags.clone(),
            creator_id: Some(creator.as_str().to_owned()),
            exposure: self.exposure(),
            status: self.status(),
            extras,
        }
    }
}

/// A created character as its creator sees it in My AI (`MyCharacter`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MyCharacter {
    pub character: Character,
    pub status: CharacterStatus,
    pub review_reason: Option<String>,
    pub visibility: Visibility,
    pub nsfw: bool,
    pub draft: Draft,
    pub imported: bool,
    /// Milliseconds since the epoch.
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
}

fn unknown(field: &'static str, key: &str) -> Invalid {
    let shown: String = key.chars().take(40).collect();
    Invalid::new(field, format!("unknown preset {shown:?}"))
}

fn trim_in_place(value: &mut String) {
    let trimmed = value.trim();
    if trimmed.len() != value.len() {
        *value = trimmed.to_owned();
    }
}

/// Trims `value` and checks it holds `min` to `max` characters.
fn text(value: &mut String, field: &'static str, min: usize, max: usize) -> Result<(), Invalid> {
    trim_in_place(value);
    let count = value.chars().count();
    if count < min || count > max {
        let reason = if min == 0 {
            format!("must be at most {max} characters")
        } else {
            format!("must be {min} to {max} characters")
        };
        return Err(Invalid::new(field, reason));
    }
    Ok(())
}

/// At most `tags_max` tags, each as the catalogue's tag filter reads them (1 to 30 letters,
/// digits, spaces, '-' or '_'); kept trimmed in the creator's spelling, once per folded key.
fn tags(raw: &[String]) -> Result<Vec<String>, Invalid> {
    let mut seen: Vec<TagKey> = Vec::new();
    let mut kept = Vec::new();
    for tag in raw {
        let key = TagKey::parse(tag)?;
        if !seen.contains(&key) {
            seen.push(key);
            kept.push(tag.trim().to_owned());
        }
    }
    if kept.len() > LIMITS.tags_max {
        return Err(Invalid::new("tags", format!("at most {} tags", LIMITS.tags_max)));
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn girl() -> Draft {
        Draft {
            gender: Gender::Girls,
            style: Style::Realistic,
            looks: Looks {
                age: 24,
                ethnicity: "latina".into(),
                eyes: "green".into(),
                hair_color: "brown".into(),
                hair_style: "wavy".into(),
                body: "curvy".into(),
                outfit: "dress".into(),
            },
            personality: PresetText { preset: "playful".into(), text: "Loves bad puns.".into() },
            relationship: PresetText { preset: "girlfriend".into(), text: String::new() },
            voice_id: "af_heart".into(),
            character_name: "  Sofia ".into(),
            introduction: "A dancer from Seville.".into(),
            greeting: "Hey you!".into(),
            scenario: String::new(),
            tags: vec!["Flirty".into(), "flirty ".into(), "dancer".into()],
            nsfw: false,
            visibility: Visibility::Public,
        }
    }

    fn field_of(draft: Draft) -> &'static str {
        match draft.validate() {
            Ok(_) => "",
            Err(e) => e.field,
        }
    }

    #[test]
    fn a_good_draft_is_trimmed_and_its_tags_deduplicated() {
        let valid = girl().validate().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(valid.draft().character_name, "Sofia");
        assert_eq!(valid.draft().tags, vec!["Flirty", "dancer"]);
        assert_eq!(valid.age().years(), 24);
        assert_eq!(valid.status(), CharacterStatus::Review, "public waits for review");
        assert_eq!(valid.exposure(), Exposure::Everyone);
    }

    #[test]
    fn every_bad_field_is_named() {
        type Spoil = fn(&mut Draft);
        let cases: Vec<(&str, Spoil)> = vec![
            ("looks.age", |d| d.looks.age = 17),
            ("looks.age", |d| d.looks.age = 101),
            ("looks.age", |d| d.looks.age = -5),
            ("looks.ethnicity", |d| d.looks.ethnicity = "martian".into()),
            ("looks.eyes", |d| d.looks.eyes = "red".into()),
            ("looks.hairColor", |d| d.looks.hair_color = String::new()),
            ("looks.hairStyle", |d| d.looks.hair_style = "buzz".into()),
            ("looks.body", |d| d.looks.body = "muscular".into()),
            ("looks.outfit", |d| d.looks.outfit = "suit".into()),
            ("personality.preset", |d| d.personality.preset = "evil".into()),
            ("personality.text", |d| d.personality.text = "x".repeat(1001)),
            ("relationship.preset", |d| d.relationship.preset = "boyfriend".into()),
            ("relationship.text", |d| d.relationship.text = "é".repeat(1001)),
            ("voiceId", |d| d.voice_id = "../../etc".into()),
            ("characterName", |d| d.character_name = "   ".into()),
            ("characterName", |d| d.character_name = "n".repeat(41)),
            ("characterName", |d| d.character_name = "two\nlines".into()),
            ("introduction", |d| d.introduction = String::new()),
            ("introduction", |d| d.introduction = "i".repeat(301)),
            ("greeting", |d| d.greeting = String::new()),
            ("greeting", |d| d.greeting = "g".repeat(2001)),
            ("scenario", |d| d.scenario = "s".repeat(2001)),
            ("tags", |d| d.tags = (0..11).map(|n| format!("tag{n}")).collect()),
            ("tags", |d| d.tags = vec!["a%b".into()]),
            ("tags", |d| d.tags = vec![String::new()]),
        ];
        for (field, spoil) in cases {
            let mut draft = girl();
            spoil(&mut draft);
            assert_eq!(field_of(draft), field);
        }
    }

    #[test]
    fn limits_are_inclusive_and_counted_in_characters() {
        let mut draft = girl();
        draft.looks.age = 18;
        draft.character_name = "é".repeat(40);
        draft.introduction = "日".repeat(300);
        draft.greeting = "g".repeat(2000);
        draft.scenario = "s".repeat(2000);
        draft.personality.text = "p".repeat(1000);
        draft.tags = (0..10).map(|n| format!("tag{n}")).collect();
        assert!(draft.validate().is_ok());
        let mut old = girl();
        old.looks.age = 100;
        old.voice_id = String::new();
        assert!(old.validate().is_ok(), "100 years and the default voice are fine");
    }

    #[test]
    fn presets_depend_on_the_gender() {
        let mut guy = girl();
        guy.gender = Gender::Guys;
        assert_eq!(field_of(guy.clone()), "looks.ethnicity", "latina is a women's key");
        guy.looks.ethnicity = "latino".into();
        assert_eq!(field_of(guy.clone()), "looks.hairStyle", "wavy is a women's style");
        guy.looks.hair_style = "buzz".into();
        guy.looks.body = "muscular".into();
        guy.looks.outfit = "suit".into();
        guy.relationship.preset = "boyfriend".into();
        assert!(guy.validate().is_ok());
    }

    #[test]
    fn create_options_list_keys_only_in_lower_case() {
        for gender in [Gender::Girls, Gender::Guys] {
            let options = CreateOptions::new(gender, Vec::new());
            let lists = [
                &options.styles,
                &options.ethnicities,
                &options.eyes,
                &options.hair_colors,
                &options.hair_styles,
                &options.bodies,
                &options.outfits,
                &options.personalities,
                &options.relationships,
            ];
            for list in lists {
                assert!(list.len() >= 2, "{list:?}");
                for preset in list.iter() {
                    assert_eq!(preset.key, preset.key.to_lowercase());
                }
                let mut unique: Vec<_> = list.iter().map(|p| p.key).collect();
                unique.sort_unstable();
                unique.dedup();
                assert_eq!(unique.len(), list.len());
            }
        }
        let json = serde_json::to_value(CreateOptions::new(Gender::Guys, Vec::new())).unwrap_or_default();
        assert_eq!(json["hairStyles"][5]["key"], "buzz");
        assert_eq!(json["limits"]["nameMax"], 40);
        assert_eq!(json["limits"]["ageMin"], 18);
    }

    #[test]
    fn looks_map_to_the_illustrators_look_and_to_words() {
        let valid = girl().validate().unwrap_or_else(|e| panic!("{e}"));
        let look = valid.looks().look();
        assert_eq!(look, Look { skin: 3, hair: 1, hair_style: 1, eyes: 2, background: 0, accessory: 3 });
        assert_eq!(
            valid.looks().describe(),
            "a 24-year-old latina woman with tan skin, long wavy dark brown hair, green eyes and a fine gold \
             necklace, with a curvy figure, wearing a floral dress"
        );
        // Every preset of every gender maps inside the illustrator's tables.
        for gender in [Gender::Girls, Gender::Guys] {
            for outfit in outfits(gender) {
                let looks = ValidLooks {
                    gender,
                    age: valid.age(),
                    looks: Looks { outfit: outfit.key.into(), ..Looks::default() },
                };
                assert_eq!(looks.look(), looks.look().wrapped());
            }
            for table in [ethnicities(gender), EYES, hair_colors(gender), hair_styles(gender)] {
                for preset in table {
                    assert!(preset.index < 8, "{}", preset.key);
                }
            }
        }
        let men_text = {
            let mut guy = girl();
            guy.gender = Gender::Guys;
            guy.looks = Looks {
                age: 31,
                ethnicity: "black".into(),
                eyes: "brown".into(),
                hair_color: "silver".into(),
                hair_style: "buzz".into(),
                body: "muscular".into(),
                outfit: "suit".into(),
            };
            guy.relationship.preset = "husband".into();
            guy.validate().unwrap_or_else(|e| panic!("{e}")).looks().describe()
        };
        assert!(men_text.starts_with("a 31-year-old black man with deep brown skin, a silver buzz cut, brown eyes"));
        assert!(men_text.ends_with(", with a muscular build, wearing a dark tailored suit"), "{men_text}");
    }

    #[test]
    fn a_draft_travels_in_camel_case_and_missing_texts_are_named() {
        let json = serde_json::to_value(girl()).unwrap_or_default();
        assert_eq!(json["looks"]["hairColor"], "brown");
        assert_eq!(json["characterName"], "  Sofia ");
        assert_eq!(json["visibility"], "public");
        assert_eq!(json["style"], "realistic");
        assert_eq!(json["gender"], 0);
        let back: Draft = serde_json::from_value(json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, girl());
        let sparse: Draft =
            serde_json::from_str(r#"{"gender":1,"looks":{"age":30}}"#).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(field_of(sparse), "looks.ethnicity");
        assert!(serde_json::from_str::<Draft>(r#"{"gender":0,"style":"cartoon"}"#).is_err());
    }

    #[test]
    fn the_character_follows_the_draft() {
        let valid = girl().validate().unwrap_or_else(|e| panic!("{e}"));
        let creator = UserId::parse("u1").unwrap_or_else(|e| panic!("{e}"));
        let id = CharacterId::parse("cc-1").unwrap_or_else(|e| panic!("{e}"));
        let character = valid.character(id, &creator, "/media/p".into(), CardExtras::default());
        assert_eq!(character.creator_id.as_deref(), Some("u1"));
        assert_eq!(character.status, CharacterStatus::Review);
        assert_eq!(
            character.personality,
            "Personality: playful: teasing, cheerful and full of jokes. Loves bad puns.\nRelationship: your girlfriend."
        );
        assert_eq!(character.card.character_age.years(), 24);
        assert_eq!(Visibility::of_status(CharacterStatus::Rejected), Visibility::Public);
        assert_eq!(Visibility::of_status(CharacterStatus::Private), Visibility::Private);
    }
}
