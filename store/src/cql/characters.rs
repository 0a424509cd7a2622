//! The character catalogue over CQL: `characters` by id, `character_cards_by_gender` for
//! the home grid in listing order, `character_cards_by_tag` for the grid of one or more tags.

use amora_domain::character::{
    CardExtras, Character, CharacterAge, CharacterCard, CharacterId, CharacterStatus, Exposure, UsedType,
};
use amora_domain::gender::Gender;
use std::collections::BTreeMap;

use amora_domain::paging::PageRequest;
use amora_domain::tag::{TagFilter, TagKey, stored_keys};
use amora_domain::viewer::Viewer;
use async_trait::async_trait;
use futures_util::TryStreamExt;
use scylla::DeserializeRow;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, corrupt, unavailable};
use crate::{CatalogueEntry, CharacterRepo, StoreError, StoreResult};

pub(super) struct Statements {
    cards: PreparedStatement,
    get: PreparedStatement,
    placement: PreparedStatement,
    insert: PreparedStatement,
    insert_card: PreparedStatement,
    delete_card: PreparedStatement,
    count: PreparedStatement,
    tagged_cards: PreparedStatement,
    insert_tag_card: PreparedStatement,
    delete_tag_card: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            cards: p
                .prepare(
                    "SELECT character_id, name, age, introduction, photo, image_list, used_type, gender, restricted
                     FROM character_cards_by_gender WHERE gender = ?",
                    Kind::Idempotent,
                )
                .await?,
            get: p
                .prepare(
                    "SELECT character_id, name, age, introduction, photo, image_list, used_type, gender, restricted,
                            personality, scenario, greeting, tags, creator_id
                     FROM characters WHERE character_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            placement: p
                .prepare("SELECT gender, rank, tags FROM characters WHERE character_id = ?", Kind::Idempotent)
                .await?,
            insert: p
                .prepare(
                    "INSERT INTO characters (character_id, gender, restricted, rank, name, age, introduction, photo,
                        image_list, used_type, personality, scenario, greeting, tags, creator_id)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            insert_card: p
                .prepare(
                    "INSERT INTO character_cards_by_gender (gender, rank, character_id, restricted, name, age,
                        introduction, photo, image_list, used_type)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            delete_card: p
                .prepare(
                    "DELETE FROM character_cards_by_gender WHERE gender = ? AND rank = ? AND character_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            // A full scan, used only to decide whether the catalogue needs seeding.
            count: p.prepare("SELECT COUNT(*) FROM characters", Kind::Idempotent).await?,
            tagged_cards: p
                .prepare(
                    "SELECT rank, character_id, name, age, introduction, photo, image_list, used_type, gender, restricted
                     FROM character_cards_by_tag WHERE tag = ? AND gender = ?",
                    Kind::Idempotent,
                )
                .await?,
            insert_tag_card: p
                .prepare(
                    "INSERT INTO character_cards_by_tag (tag, gender, rank, character_id, restricted, name, age,
                        introduction, photo, image_list, used_type)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            delete_tag_card: p
                .prepare(
                    "DELETE FROM character_cards_by_tag WHERE tag = ? AND gender = ? AND rank = ? AND character_id = ?",
                    Kind::Idempotent,
                )
                .await?,
        })
    }
}

#[derive(DeserializeRow)]
struct CardRow {
    character_id: String,
    name: String,
    age: i32,
    introduction: String,
    photo: String,
    /// CQL stores an empty list as null.
    image_list: Option<Vec<String>>,
    used_type: i32,
    gender: i32,
    restricted: bool,
}

impl CardRow {
    fn into_card(self) -> StoreResult<CharacterCard> {
        Ok(CharacterCard {
            character_id: CharacterId::parse(&self.character_id).map_err(corrupt)?,
            character_name: self.name,
            character_age: CharacterAge::parse(i64::from(self.age)).map_err(corrupt)?,
            introduction: self.introduction,
            character_photo: self.photo,
            character_image_list: self.image_list.unwrap_or_default(),
            used_type: UsedType::from_code(i64::from(self.used_type)).map_err(corrupt)?,
            gender: Gender::try_from(i64::from(self.gender)).map_err(corrupt)?,
        })
    }
}

/// A card of `character_cards_by_tag`, with its rank for merging several tags' partitions.
#[derive(DeserializeRow)]
struct TaggedCardRow {
    rank: i64,
    character_id: String,
    name: String,
    age: i32,
    introduction: String,
    photo: String,
    image_list: Option<Vec<String>>,
    used_type: i32,
    gender: i32,
    restricted: bool,
}

impl TaggedCardRow {
    fn into_card_row(self) -> CardRow {
        CardRow {
            character_id: self.character_id,
            name: self.name,
            age: self.age,
            introduction: self.introduction,
            photo: self.photo,
            image_list: self.image_list,
            used_type: self.used_type,
            gender: self.gender,
            restricted: self.restricted,
        }
    }
}

#[derive(DeserializeRow)]
struct CharacterRow {
    character_id: String,
    name: String,
    age: i32,
    introduction: String,
    photo: String,
    image_list: Option<Vec<String>>,
    used_type: i32,
    gender: i32,
    restricted: bool,
    personality: String,
    scenario: String,
    greeting: String,
    tags: Option<Vec<String>>,
    creator_id: Option<String>,
}

#[async_trait]
impl CharacterRepo for CqlStore {
    async fn list_cards(&self, gender: Gender, viewer: Viewer, page: PageRequest) -> StoreResult<Vec<CharacterCard>> {
        let include_restricted = viewer.may_see(Exposure::Restricted);
        let hidden = self.hidden_set().await?;
        let statement = &self.statements.characters.cards;
        self.count_round_trip();
        let pager =
            self.session.execute_iter(statement.clone(), (i32::from(gender.code()),)).await.map_err(unavailable)?;
        let mut rows = pager.rows_stream::<CardRow>().map_err(corrupt)?;
        // Restricted cards are skipped before counting, so pages stay full for everyone; the
        // pager stops fetching once the page is complete.
        let (mut skip, mut cards) = (page.offset(), Vec::with_capacity(page.page_size() as usize));
        while let Some(row) = rows.try_next().await.map_err(unavailable)? {
            if (row.restricted && !include_restricted) || hidden.contains(&row.character_id) {
                continue;
            }
            if skip > 0 {
                skip -= 1;
                continue;
            }
            cards.push(row.into_card()?);
            if cards.len() == page.page_size() as usize {
                break;
            }
        }
        Ok(cards)
    }

    async fn list_cards_tagged(
        &self,
        gender: Gender,
        tags: &TagFilter,
        viewer: Viewer,
        page: PageRequest,
    ) -> StoreResult<Vec<CharacterCard>> {
        let include_restricted = viewer.may_see(Exposure::Restricted);
        let hidden = self.hidden_set().await?;
        let statement = &self.statements.characters.tagged_cards;
        // One partition per asked tag (at most 8), each holding only that tag's characters of
        // this gender; a character found under several tags is counted once per tag.
        let mut matches: BTreeMap<(i64, String), (usize, TaggedCardRow)> = BTreeMap::new();
        for key in tags.keys() {
            let rows: Vec<TaggedCardRow> = self.paged(statement, (key.as_str(), i32::from(gender.code()))).await?;
            let visible =
                |row: &TaggedCardRow| (include_restricted || !row.restricted) && !hidden.contains(&row.character_id);
            for row in rows.into_iter().filter(visible) {
                matches.entry((row.rank, row.character_id.clone())).or_insert((0, row)).0 += 1;
            }
        }
        // Listing order already (the map's key); a stable sort puts more shared tags first.
        let mut ranked: Vec<(usize, TaggedCardRow)> = matches.into_values().collect();
        ranked.sort_by_key(|(shared, _)| std::cmp::Reverse(*shared));
        ranked
            .into_iter()
            .skip(page.offset() as usize)
            .take(page.page_size() as usize)
            .map(|(_, row)| row.into_card_row().into_card())
            .collect()
    }

    async fn get(&self, id: &CharacterId) -> StoreResult<Option<Character>> {
        let row: Option<CharacterRow> = self.first(&self.statements.characters.get, (id.as_str(),)).await?;
        let Some(row) = row else { return Ok(None) };
        let exposure = if row.restricted { Exposure::Restricted } else { Exposure::Everyone };
        let card = CardRow {
            character_id: row.character_id,
            name: row.name,
            age: row.age,
            introduction: row.introduction,
            photo: row.photo,
            image_list: row.image_list,
            used_type: row.used_type,
            gender: row.gender,
            restricted: row.restricted,
        };
        Ok(Some(Character {
            card: card.into_card()?,
            personality: row.personality,
            scenario: row.scenario,
            greeting: row.greeting,
            tags: row.tags.unwrap_or_default(),
            creator_id: row.creator_id,
            exposure,
            status: CharacterStatus::Public,
            extras: CardExtras::default(),
        }))
    }

    async fn upsert(&self, entries: Vec<CatalogueEntry>) -> StoreResult<()> {
        let statements = &self.statements.characters;
        for CatalogueEntry { character, rank } in entries {
            let card = &character.card;
            let id = card.character_id.as_str();
            let gender = i32::from(card.gender.code());
            // A character that moved (new rank or gender) leaves no stale card behind.
            let placed: Option<(i32, i64, Option<Vec<String>>)> = self.first(&statements.placement, (id,)).await?;
            let tag_keys = stored_keys(&character.tags);
            if let Some((old_gender, old_rank, old_tags)) = placed {
                let moved = (old_gender, old_rank) != (gender, rank);
                if moved {
                    self.run(&statements.delete_card, (old_gender, old_rank, id)).await?;
                }
                // Nor stale rows in the tag index: under tags it dropped, or at its old place.
                let stale = stored_keys(&old_tags.unwrap_or_default())
                    .into_iter()
                    .filter(|key: &TagKey| moved || !tag_keys.contains(key));
                for key in stale {
                    self.run(&statements.delete_tag_card, (key.as_str(), old_gender, old_rank, id)).await?;
                }
            }
            let restricted = character.exposure == Exposure::Restricted;
            let age = i32::from(card.character_age.years());
            let used_type = i32::from(u8::from(card.used_type));
            self.run(
                &statements.insert,
                (
                    id,
                    gender,
                    restricted,
                    rank,
                    &card.character_name,
                    age,
                    &card.introduction,
                    &card.character_photo,
                    &card.character_image_list,
                    used_type,
                    &character.personality,
                    &character.scenario,
                    &character.greeting,
                    &character.tags,
                    &character.creator_id,
                ),
            )
            .await?;
            self.run(
                &statements.insert_card,
                (
                    gender,
                    rank,
                    id,
                    restricted,
                    &card.character_name,
                    age,
                    &card.introduction,
                    &card.character_photo,
                    &card.character_image_list,
                    used_type,
                ),
            )
            .await?;
            for key in &tag_keys {
                self.run(
                    &statements.insert_tag_card,
                    (
                        key.as_str(),
                        gender,
                        rank,
                        id,
                        restricted,
                        &card.character_name,
                        age,
                        &card.introduction,
                        &card.character_photo,
                        &card.character_image_list,
                        used_type,
                    ),
                )
                .await?;
            }
        }
        Ok(())
    }

    async fn count(&self) -> StoreResult<u64> {
        let row: Option<(i64,)> = self.first(&self.statements.characters.count, ()).await?;
        let count = row.map(|(n,)| n).unwrap_or(0);
        u64::try_from(count).map_err(|_| StoreError::Corrupt(format!("negative count {count}")))
    }

    async fn set_hidden(&self, id: &CharacterId, hidden: bool) -> StoreResult<bool> {
        self.set_character_hidden(id, hidden).await
    }

    async fn is_hidden(&self, id: &CharacterId) -> StoreResult<bool> {
        self.character_is_hidden(id).await
    }

    async fn hidden(&self) -> StoreResult<Vec<CharacterId>> {
        self.hidden_characters().await
    }
}
