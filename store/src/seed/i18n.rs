//! The seeded catalogue in the ten interface languages: `characters.json` holds each seeded
//! character's introduction and greeting in English, `i18n/{lang}.json` in the nine others
//! (key → `{introduction, greeting}`, `{{user}}` and `*narration*` kept as written).
//!
//! The texts are compiled in, like the catalogue itself, so both stores serve them with
//! nothing stored twice. A text is translated only while the stored one is still the seeded
//! English: an operator's edit of a seeded character is shown as written, in every language.

use std::collections::HashMap;
use std::sync::OnceLock;

use amora_domain::character::{Character, CharacterCard};
use serde::Deserialize;

use super::parse_seeds;

/// A seeded character's texts in one language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedTexts {
    pub introduction: String,
    pub greeting: String,
}

/// The languages other than English, with their files.
const TRANSLATIONS: [(&str, &str); 9] = [
    ("de", include_str!("i18n/de.json")),
    ("es", include_str!("i18n/es.json")),
    ("fr", include_str!("i18n/fr.json")),
    ("id", include_str!("i18n/id.json")),
    ("it", include_str!("i18n/it.json")),
    ("ja", include_str!("i18n/ja.json")),
    ("ko", include_str!("i18n/ko.json")),
    ("pl", include_str!("i18n/pl.json")),
    ("pt", include_str!("i18n/pt.json")),
];

type ByKey = HashMap<String, SeedTexts>;

struct Catalogue {
    /// The seeded English texts, to tell whether a stored text is still the seeded one.
    english: ByKey,
    by_language: HashMap<&'static str, ByKey>,
}

fn parse_language(language: &str, json: &str) -> Result<ByKey, String> {
    serde_json::from_str(json).map_err(|e| format!("i18n/{language}.json: {e}"))
}

fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let english = match parse_seeds() {
            Ok(seeds) => seeds
                .into_iter()
                .map(|s| (s.key, SeedTexts { introduction: s.introduction, greeting: s.greeting }))
                .collect(),
            Err(error) => {
                tracing::error!(%error, "the seeded catalogue cannot be read");
                HashMap::new()
            }
        };
        let mut by_language = HashMap::new();
        for (language, json) in TRANSLATIONS {
            match parse_language(language, json) {
                Ok(texts) => {
                    by_language.insert(language, texts);
                }
                // The same text fails this module's tests; the catalogue stays in English.
                Err(error) => tracing::error!(%error, "a translation of the catalogue cannot be read"),
            }
        }
        Catalogue { english, by_language }
    })
}

/// The seeded texts of character `key` in `language`, when it is a seeded character and the
/// language has them (English included).
pub fn seed_texts(key: &str, language: &str) -> Option<&'static SeedTexts> {
    let catalogue = catalogue();
    if language == "en" {
        return catalogue.english.get(key);
    }
    catalogue.by_language.get(language)?.get(key)
}

/// `text` in `language` when it is still the seeded English `field` of `key`.
fn translated(
    key: &str,
    language: &str,
    text: &str,
    field: impl Fn(&'static SeedTexts) -> &'static str,
) -> Option<&'static str> {
    let english = seed_texts(key, "en").map(&field)?;
    if english != text || language == "en" {
        return None;
    }
    seed_texts(key, language).map(field)
}

/// The card with its introduction in `language` (a seeded character's, still as seeded).
pub fn localize_card(card: &mut CharacterCard, language: &str) {
    let key = card.character_id.as_str().to_owned();
    if let Some(text) = translated(&key, language, &card.introduction, |t| &t.introduction) {
        card.introduction = text.to_owned();
    }
}

/// The character with its introduction and greeting in `language` (a seeded character's,
/// each while still as seeded).
pub fn localize_character(character: &mut Character, language: &str) {
    localize_card(&mut character.card, language);
    let key = character.card.character_id.as_str().to_owned();
    if let Some(text) = translated(&key, language, &character.greeting, |t| &t.greeting) {
        character.greeting = text.to_owned();
    }
}

#[cfg(test)]
mod tests {
    use amora_domain::account::LANGUAGES;
    use amora_domain::gender::Gender;

    use super::*;
    use crate::seed::seed_to_character;

    /// `{{…}}` placeholders and the count of `*` narration markers of a text.
    fn markers(text: &str) -> (Vec<&str>, usize) {
        let placeholders = text.match_indices("{{").filter_map(|(at, _)| {
            let end = text[at..].find("}}")?;
            Some(&text[at..at + end + 2])
        });
        let mut placeholders: Vec<&str> = placeholders.collect();
        placeholders.sort_unstable();
        (placeholders, text.matches('*').count())
    }

    #[test]
    fn every_seeded_character_has_its_texts_in_each_of_the_ten_languages() {
        let seeds = parse_seeds().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(seeds.len(), 144);
        for (language, json) in TRANSLATIONS {
            let texts = parse_language(language, json).unwrap_or_else(|e| panic!("{e}"));
            let extra: Vec<_> = texts.keys().filter(|k| !seeds.iter().any(|s| &s.key == *k)).collect();
            assert!(extra.is_empty(), "{language}: not seeded characters {extra:?}");
        }
        for language in LANGUAGES {
            for seed in &seeds {
                let texts = seed_texts(&seed.key, language)
                    .unwrap_or_else(|| panic!("{} has no texts in {language}", seed.key));
                assert!(!texts.introduction.trim().is_empty(), "{} {language}: empty introduction", seed.key);
                assert!(!texts.greeting.trim().is_empty(), "{} {language}: empty greeting", seed.key);
                if language != "en" {
                    assert_ne!(
                        texts.greeting, seed.greeting,
                        "{} {language}: the greeting is not translated",
                        seed.key
                    );
                }
            }
        }
    }

    #[test]
    fn translations_keep_the_placeholders_and_narration_markers() {
        for seed in parse_seeds().unwrap_or_else(|e| panic!("{e}")) {
            for language in LANGUAGES {
                let Some(texts) = seed_texts(&seed.key, language) else { continue };
                for (field, original, translation) in [
                    ("introduction", &seed.introduction, &texts.introduction),
                    ("greeting", &seed.greeting, &texts.greeting),
                ] {
                    assert_eq!(
                        markers(translation),
                        markers(original),
                        "{} {language} {field}: {translation:?} against {original:?}",
                        seed.key
                    );
                }
            }
        }
    }

    #[test]
    fn a_seeded_character_is_localized_and_an_edited_text_is_left_as_written() {
        let seeds = parse_seeds().unwrap_or_else(|e| panic!("{e}"));
        let seed = seeds.into_iter().next().unwrap_or_else(|| panic!("a seed"));
        let gender = Gender::try_from(seed.gender).unwrap_or_else(|e| panic!("{e}"));
        let original = seed_to_character(seed, gender).unwrap_or_else(|e| panic!("{e}"));
        let key = original.card.character_id.as_str().to_owned();
        let german = seed_texts(&key, "de").unwrap_or_else(|| panic!("German texts"));

        let mut character = original.clone();
        localize_character(&mut character, "de");
        assert_eq!(
            (character.card.introduction.as_str(), character.greeting.as_str()),
            (german.introduction.as_str(), german.greeting.as_str())
        );

        let mut english = original.clone();
        localize_character(&mut english, "en");
        assert_eq!(english, original);

        let mut edited = original.clone();
        edited.greeting = "An operator's own words.".into();
        localize_character(&mut edited, "de");
        assert_eq!(edited.greeting, "An operator's own words.");
        assert_eq!(edited.card.introduction, german.introduction, "the introduction is still the seeded one");

        let mut unknown = original;
        localize_character(&mut unknown, "xx");
        assert_eq!(unknown.greeting, seed_texts(&key, "en").map(|t| t.greeting.clone()).unwrap_or_default());
    }
}
