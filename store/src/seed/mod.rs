//! The seeded character catalogue, loaded on first start: the characters of
//! `characters.json` and their two pictures each, kept in the media repository so that
//! nothing is fetched at run time. The store draws nothing: whoever seeds (the server at
//! start-up, tests) passes a painter, the embedded illustrator of the `ai` crate.

mod i18n;

pub use i18n::{SeedTexts, localize_card, localize_character, seed_texts};

use std::collections::HashMap;
use std::sync::OnceLock;

use amora_domain::appearance::{Look, Shot};
use amora_domain::character::{
    CardExtras, Character, CharacterAge, CharacterCard, CharacterId, CharacterStatus, Exposure, UsedType,
};
use amora_domain::gender::Gender;
use serde::Deserialize;

use crate::{CatalogueEntry, MediaObject, Store, StoreError, StoreResult};

const CATALOGUE_JSON: &str = include_str!("characters.json");

/// Draws one picture of a seeded character (its look, gender and which shot).
pub type Painter<'a> = &'a (dyn Fn(&Look, Gender, Shot) -> MediaObject + Sync);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedCharacter {
    key: String,
    name: String,
    age: i64,
    gender: i64,
    introduction: String,
    personality: String,
    scenario: String,
    greeting: String,
    tags: Vec<String>,
    #[serde(rename = "usedType")]
    used_type: i64,
    restricted: bool,
    look: Look,
}

/// The media id of a seeded character's portrait (`Portrait`) or secondary image.
pub fn portrait_media_id(key: &str, shot: Shot) -> String {
    match shot {
        Shot::Portrait => format!("portrait-{key}-1"),
        Shot::Secondary => format!("portrait-{key}-2"),
    }
}

fn parse_seeds() -> StoreResult<Vec<SeedCharacter>> {
    serde_json::from_str(CATALOGUE_JSON).map_err(|e| StoreError::Corrupt(format!("characters.json: {e}")))
}

/// The look of a seeded character (`None` for any other), so that its generated images
/// show the same person as its portraits.
pub fn look_of(character: &CharacterId) -> Option<Look> {
    static LOOKS: OnceLock<HashMap<String, Look>> = OnceLock::new();
    let looks = LOOKS.get_or_init(|| match parse_seeds() {
        Ok(seeds) => seeds.into_iter().map(|s| (s.key, s.look)).collect(),
        Err(error) => {
            // The same text fails the catalogue's tests and the seeding at start-up.
            tracing::error!(%error, "the seeded looks cannot be read");
            HashMap::new()
        }
    });
    looks.get(character.as_str()).copied()
}

/// Seeds the catalogue when the store has no characters yet; returns how many were added.
/// `paint` draws each character's portrait and secondary picture.
pub async fn ensure_catalogue(store: &Store, paint: Painter<'_>) -> StoreResult<usize> {
    if store.characters.count().await? > 0 {
        return Ok(0);
    }
    let seeds = parse_seeds()?;
    let mut entries = Vec::with_capacity(seeds.len());
    for (rank, seed) in seeds.into_iter().enumerate() {
        let gender = Gender::try_from(seed.gender).map_err(invalid_seed)?;
        for shot in [Shot::Portrait, Shot::Secondary] {
            let object = paint(&seed.look, gender, shot);
            store.media.put(&portrait_media_id(&seed.key, shot), object).await?;
        }
        entries.push(CatalogueEntry { character: seed_to_character(seed, gender)?, rank: rank as i64 });
    }
    let added = entries.len();
    store.characters.upsert(entries).await?;
    tracing::info!(characters = added, "seeded the character catalogue");
    Ok(added)
}

fn seed_to_character(seed: SeedCharacter, gender: Gender) -> StoreResult<Character> {
    let photo = format!("/media/{}", portrait_media_id(&seed.key, Shot::Portrait));
    let secondary = format!("/media/{}", portrait_media_id(&seed.key, Shot::Secondary));
    Ok(Character {
        card: CharacterCard {
            character_id: CharacterId::parse(&seed.key).map_err(invalid_seed)?,
            character_name: seed.name,
            character_age: CharacterAge::parse(seed.age).map_err(invalid_seed)?,
            introduction: seed.introduction,
            character_photo: photo,
            character_image_list: vec![secondary],
            used_type: UsedType::from_code(seed.used_type).map_err(invalid_seed)?,
            gender,
        },
        personality: seed.personality,
        scenario: seed.scenario,
        greeting: seed.greeting,
        tags: seed.tags,
        creator_id: None,
        exposure: if seed.restricted { Exposure::Restricted } else { Exposure::Everyone },
        status: CharacterStatus::Public,
        extras: CardExtras::default(),
    })
}

fn invalid_seed(error: amora_domain::Invalid) -> StoreError {
    StoreError::Corrupt(format!("characters.json: {error}"))
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn seeds() -> Vec<SeedCharacter> {
        parse_seeds().unwrap_or_else(|e| panic!("characters.json: {e}"))
    }

    #[test]
    fn the_look_of_a_seeded_character_is_known_and_others_have_none() {
        let sofia = CharacterId::parse("gf-001").unwrap_or_else(|e| panic!("{e}"));
        let look = look_of(&sofia).unwrap_or_else(|| panic!("gf-001 has a look"));
        assert_eq!(look, Look { skin: 1, hair: 1, hair_style: 1, eyes: 2, background: 2, accessory: 1 });
        let created = CharacterId::parse("c-123456").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(look_of(&created), None);
        assert!(
            seeds().iter().all(|s| look_of(&CharacterId::parse(&s.key).unwrap_or_else(|e| panic!("{e}"))).is_some())
        );
    }

    #[test]
    fn the_catalogue_has_sixty_of_each_gender_with_distinct_names() {
        let seeds = seeds();
        let girls = seeds.iter().filter(|s| s.gender == 0).count();
        let guys = seeds.iter().filter(|s| s.gender == 1).count();
        assert!(girls >= 60 && guys >= 60, "{girls} girls, {guys} guys");
        let names: HashSet<_> = seeds.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), seeds.len(), "names repeat");
        let keys: HashSet<_> = seeds.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys.len(), seeds.len(), "keys repeat");
    }

    #[test]
    fn every_seeded_character_is_an_adult_of_at_most_45() {
        for seed in seeds() {
            assert!((18..=45).contains(&seed.age), "{} is {}", seed.name, seed.age);
        }
    }

    #[test]
    fn the_catalogue_has_premium_and_restricted_characters_of_both_genders() {
        let seeds = seeds();
        for gender in [0, 1] {
            assert!(seeds.iter().any(|s| s.gender == gender && s.used_type == 1));
            assert!(seeds.iter().any(|s| s.gender == gender && s.restricted));
        }
    }

    #[test]
    fn every_seed_becomes_a_valid_character() {
        for seed in seeds() {
            let gender = Gender::try_from(seed.gender).unwrap_or_else(|e| panic!("{e}"));
            let name = seed.name.clone();
            let character = seed_to_character(seed, gender).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!character.card.introduction.is_empty() && !character.greeting.is_empty());
            assert!(!character.tags.is_empty());
        }
    }
}
