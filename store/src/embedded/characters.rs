//! The character catalogue in SQLite.

use amora_domain::character::{
    CardExtras, Character, CharacterAge, CharacterCard, CharacterId, CharacterStatus, Exposure, UsedType,
};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::tag::{TagFilter, stored_keys};
use amora_domain::viewer::Viewer;
use async_trait::async_trait;
use rusqlite::{Row, params};

use super::EmbeddedStore;
use crate::{CatalogueEntry, CharacterRepo, StoreError, StoreResult};

const CARD_COLUMNS: &str = "character_id, name, age, introduction, photo, image_list, used_type, gender";
/// `CARD_COLUMNS` of `characters c` in a join.
const JOINED_CARD_COLUMNS: &str =
    "c.character_id, c.name, c.age, c.introduction, c.photo, c.image_list, c.used_type, c.gender";

#[async_trait]
impl CharacterRepo for EmbeddedStore {
    async fn list_cards(&self, gender: Gender, viewer: Viewer, page: PageRequest) -> StoreResult<Vec<CharacterCard>> {
        let include_restricted = viewer.may_see(Exposure::Restricted);
        self.with_conn(move |conn| {
            let sql = format!(
                "SELECT {CARD_COLUMNS} FROM characters
                 WHERE gender = ?1 AND (restricted = 0 OR ?2)
                   AND character_id NOT IN (SELECT character_id FROM hidden_characters)
                 ORDER BY rank, character_id LIMIT ?3 OFFSET ?4"
            );
            let mut statement = conn.prepare_cached(&sql)?;
            let rows = statement.query_map(
                params![gender.code(), include_restricted, page.page_size(), page.offset() as i64],
                read_card,
            )?;
            rows.map(|row| row?).collect()
        })
        .await
    }

    async fn list_cards_tagged(
        &self,
        gender: Gender,
        tags: &TagFilter,
        viewer: Viewer,
        page: PageRequest,
    ) -> StoreResult<Vec<CharacterCard>> {
        let include_restricted = viewer.may_see(Exposure::Restricted);
        // The tags go in as one JSON array, so a single cached statement serves any count.
        let keys: Vec<&str> = tags.keys().iter().map(|key| key.as_str()).collect();
        let keys = serde_json::to_string(&keys).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.with_conn(move |conn| {
            // The primary key (tag, character_id) finds the tagged characters; only those
            // are joined, counted and sorted. CROSS JOIN fixes that order: without it the
            // planner may walk the whole gender's catalogue and probe each character's tags.
            let sql = format!(
                "SELECT {JOINED_CARD_COLUMNS} FROM character_tags t
                 CROSS JOIN characters c ON c.character_id = t.character_id
                 WHERE t.tag IN (SELECT value FROM json_each(?1))
                   AND c.gender = ?2 AND (c.restricted = 0 OR ?3)
                   AND c.character_id NOT IN (SELECT character_id FROM hidden_characters)
                 GROUP BY c.character_id
                 ORDER BY COUNT(*) DESC, c.rank, c.character_id LIMIT ?4 OFFSET ?5"
            );
            let mut statement = conn.prepare_cached(&sql)?;
            let rows = statement.query_map(
                params![keys, gender.code(), include_restricted, page.page_size(), page.offset() as i64],
                read_card,
            )?;
            rows.map(|row| row?).collect()
        })
        .await
    }

    async fn get(&self, id: &CharacterId) -> StoreResult<Option<Character>> {
        let id = id.clone();
        self.with_conn(move |conn| {
            let sql = format!(
                "SELECT {CARD_COLUMNS}, personality, scenario, greeting, tags, creator_id, restricted
                 FROM characters WHERE character_id = ?1"
            );
            let mut statement = conn.prepare_cached(&sql)?;
            let mut rows = statement.query(params![id.as_str()])?;
            match rows.next()? {
                Some(row) => read_character(row).map(Some),
                None => Ok(None),
            }
        })
        .await
    }

    async fn upsert(&self, entries: Vec<CatalogueEntry>) -> StoreResult<()> {
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            {
                let mut statement = tx.prepare_cached(
                    "INSERT OR REPLACE INTO characters (character_id, gender, restricted, rank, name, age,
                        introduction, photo, image_list, used_type, personality, scenario, greeting, tags, creator_id)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                )?;
                let mut untag = tx.prepare_cached("DELETE FROM character_tags WHERE character_id = ?1")?;
                let mut tag = tx.prepare_cached("INSERT INTO character_tags (tag, character_id) VALUES (?1, ?2)")?;
                for CatalogueEntry { character, rank } in entries {
                    let card = &character.card;
                    statement.execute(params![
                        card.character_id.as_str(),
                        card.gender.code(),
                        character.exposure == Exposure::Restricted,
                        rank,
                        card.character_name,
                        card.character_age.years(),
                        card.introduction,
                        card.character_photo,
                        to_json(&card.character_image_list)?,
                        u8::from(card.used_type),
                        character.personality,
                        character.scenario,
                        character.greeting,
                        to_json(&character.tags)?,
                        character.creator_id,
                    ])?;
                    // The tag index follows the character's current tags.
                    untag.execute(params![card.character_id.as_str()])?;
                    for key in stored_keys(&character.tags) {
                        tag.execute(params![key.as_str(), card.character_id.as_str()])?;
                    }
                }
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn count(&self) -> StoreResult<u64> {
        self.with_conn(|conn| {
            let count: i64 = conn.query_row("SELECT COUNT(*) FROM characters", [], |row| row.get(0))?;
            Ok(count.max(0) as u64)
        })
        .await
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

fn to_json(list: &[String]) -> StoreResult<String> {
    serde_json::to_string(list).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn from_json(text: &str) -> StoreResult<Vec<String>> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("bad list column: {e}")))
}

fn corrupt(error: amora_domain::Invalid) -> StoreError {
    StoreError::Corrupt(error.to_string())
}

fn read_card(row: &Row<'_>) -> rusqlite::Result<StoreResult<CharacterCard>> {
    let id: String = row.get(0)?;
    let name: String = row.get(1)?;
    let age: i64 = row.get(2)?;
    let introduction: String = row.get(3)?;
    let photo: String = row.get(4)?;
    let image_list: String = row.get(5)?;
    let used_type: i64 = row.get(6)?;
    let gender: i64 = row.get(7)?;
    Ok((|| {
        Ok(CharacterCard {
            character_id: CharacterId::parse(&id).map_err(corrupt)?,
            character_name: name,
            character_age: CharacterAge::parse(age).map_err(corrupt)?,
            introduction,
            character_photo: photo,
            character_image_list: from_json(&image_list)?,
            used_type: UsedType::from_code(used_type).map_err(corrupt)?,
            gender: Gender::try_from(gender).map_err(corrupt)?,
        })
    })())
}

fn read_character(row: &Row<'_>) -> StoreResult<Character> {
    let card = read_card(row)??;
    let tags: String = row.get(11)?;
    let restricted: bool = row.get(13)?;
    Ok(Character {
        card,
        personality: row.get(8)?,
        scenario: row.get(9)?,
        greeting: row.get(10)?,
        tags: from_json(&tags)?,
        creator_id: row.get(12)?,
        exposure: if restricted { Exposure::Restricted } else { Exposure::Everyone },
        status: CharacterStatus::Public,
        extras: CardExtras::default(),
    })
}
