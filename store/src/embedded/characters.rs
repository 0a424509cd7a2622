//! The character catalogue in SQLite.

use amora_domain::account::UserId;
use amora_domain::character::{
    CardExtras, Character, CharacterAge, CharacterCard, CharacterId, CharacterStatus, Exposure, UsedType,
};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::tag::{TagFilter, stored_keys};
use amora_domain::viewer::Viewer;
use async_trait::async_trait;
use rusqlite::{Connection, Row, Transaction, params};

use super::EmbeddedStore;
use super::catalogue_blocks::{self, Placed};
use crate::listing;
use crate::{
    CatalogueEntry, CharacterRepo, CreatedCharacter, CreatedCharacterRepo, DeletedCharacter, StatusChange, StoreError,
    StoreResult, created_rank,
};

const CARD_COLUMNS: &str = "character_id, name, age, introduction, photo, image_list, used_type, gender";
/// Everything `read_character` reads, in its order.
const CHARACTER_COLUMNS: &str = "character_id, name, age, introduction, photo, image_list, used_type, gender,
    personality, scenario, greeting, tags, creator_id, restricted, status, system_prompt, post_history_instructions,
    example_dialogue, alternate_greetings, has_lorebook, card_json";
/// `CHARACTER_COLUMNS` and then what only a created character has, as `read_created` reads.
const CREATED_COLUMNS: &str = "character_id, name, age, introduction, photo, image_list, used_type, gender,
    personality, scenario, greeting, tags, creator_id, restricted, status, system_prompt, post_history_instructions,
    example_dialogue, alternate_greetings, has_lorebook, card_json,
    draft, imported, review_reason, media_ids, created_at, updated_at, status_at";
/// `CARD_COLUMNS` of `characters c` in a join.
const JOINED_CARD_COLUMNS: &str =
    "c.character_id, c.name, c.age, c.introduction, c.photo, c.image_list, c.used_type, c.gender";

#[async_trait]
impl CharacterRepo for EmbeddedStore {
    async fn list_cards(&self, gender: Gender, viewer: Viewer, page: PageRequest) -> StoreResult<Vec<CharacterCard>> {
        let include_restricted = viewer.may_see(Exposure::Restricted);
        self.with_conn(move |conn| {
            // The block counts find the block of the page's first card; the read starts at
            // its fence and steps over fewer cards than one block holds (listing.rs).
            let blocks = catalogue_blocks::blocks(conn, i64::from(gender.code()))?;
            let Some((at, skip)) = listing::locate(&blocks, include_restricted, page.offset()) else {
                return Ok(Vec::new());
            };
            let fence = &blocks[at].fence;
            let sql = format!(
                "SELECT {CARD_COLUMNS} FROM characters INDEXED BY characters_listed
                 WHERE gender = ?1 AND status = 'public' AND (rank, character_id) >= (?2, ?3)
                   AND (restricted = 0 OR ?4)
                   AND character_id NOT IN (SELECT character_id FROM hidden_characters)
                 ORDER BY rank, character_id LIMIT ?5 OFFSET ?6"
            );
            let mut statement = conn.prepare_cached(&sql)?;
            let rows = statement.query_map(
                params![gender.code(), fence.rank, fence.id, include_restricted, page.page_size(), skip as i64],
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
                   AND c.gender = ?2 AND (c.restricted = 0 OR ?3) AND c.status = 'public'
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
            let sql = format!("SELECT {CHARACTER_COLUMNS} FROM characters WHERE character_id = ?1");
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
            let mut touched = Vec::new();
            for CatalogueEntry { character, rank } in entries {
                touched.extend(write_character(&tx, &character, rank)?);
            }
            catalogue_blocks::recount_places(&tx, &touched)?;
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
    let status: String = row.get(14)?;
    let alternate_greetings: String = row.get(18)?;
    Ok(Character {
        card,
        personality: row.get(8)?,
        scenario: row.get(9)?,
        greeting: row.get(10)?,
        tags: from_json(&tags)?,
        creator_id: row.get(12)?,
        exposure: if restricted { Exposure::Restricted } else { Exposure::Everyone },
        status: CharacterStatus::parse(&status).map_err(corrupt)?,
        extras: CardExtras {
            system_prompt: row.get(15)?,
            post_history_instructions: row.get(16)?,
            example_dialogue: row.get(17)?,
            alternate_greetings: from_json(&alternate_greetings)?,
            has_lorebook: row.get(19)?,
            card_json: row.get(20)?,
        },
    })
}

/// A row of `CREATED_COLUMNS`; `None` for a seeded character (no draft).
fn read_created(row: &Row<'_>) -> StoreResult<Option<CreatedCharacter>> {
    let Some(draft) = row.get::<_, Option<String>>(21)? else { return Ok(None) };
    let character = read_character(row)?;
    let media_ids: String = row.get(24)?;
    Ok(Some(CreatedCharacter {
        character,
        draft: serde_json::from_str(&draft).map_err(|e| StoreError::Corrupt(format!("bad draft column: {e}")))?,
        imported: row.get(22)?,
        review_reason: row.get(23)?,
        media_ids: from_json(&media_ids)?,
        created_at: row.get(25)?,
        updated_at: row.get(26)?,
        status_at: row.get(27)?,
    }))
}

/// Inserts or updates a character's catalogue fields, status and card extras, and its tag
/// index rows. A created character's own columns (draft, …) are left as they are. Answers
/// the listing places it left and took, whose blocks the caller recounts.
fn write_character(tx: &Transaction<'_>, character: &Character, rank: i64) -> StoreResult<Vec<Placed>> {
    let card = &character.card;
    let mut touched: Vec<Placed> = catalogue_blocks::placed(tx, card.character_id.as_str())?.into_iter().collect();
    let extras = &character.extras;
    tx.prepare_cached(
        "INSERT INTO characters (character_id, gender, restricted, rank, name, age, introduction, photo, image_list,
            used_type, personality, scenario, greeting, tags, creator_id, status, system_prompt,
            post_history_instructions, example_dialogue, alternate_greetings, has_lorebook, card_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)
         ON CONFLICT (character_id) DO UPDATE SET gender = excluded.gender, restricted = excluded.restricted,
            rank = excluded.rank, name = excluded.name, age = excluded.age, introduction = excluded.introduction,
            photo = excluded.photo, image_list = excluded.image_list, used_type = excluded.used_type,
            personality = excluded.personality, scenario = excluded.scenario, greeting = excluded.greeting,
            tags = excluded.tags, creator_id = excluded.creator_id, status = excluded.status,
            system_prompt = excluded.system_prompt, post_history_instructions = excluded.post_history_instructions,
            example_dialogue = excluded.example_dialogue, alternate_greetings = excluded.alternate_greetings,
            has_lorebook = excluded.has_lorebook, card_json = excluded.card_json",
    )?
    .execute(params![
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
        character.status.as_str(),
        extras.system_prompt,
        extras.post_history_instructions,
        extras.example_dialogue,
        to_json(&extras.alternate_greetings)?,
        extras.has_lorebook,
        extras.card_json,
    ])?;
    // The tag index follows the character's current tags.
    tx.prepare_cached("DELETE FROM character_tags WHERE character_id = ?1")?
        .execute(params![card.character_id.as_str()])?;
    let mut tag = tx.prepare_cached("INSERT INTO character_tags (tag, character_id) VALUES (?1, ?2)")?;
    for key in stored_keys(&character.tags) {
        tag.execute(params![key.as_str(), card.character_id.as_str()])?;
    }
    touched.extend(catalogue_blocks::placed(tx, card.character_id.as_str())?);
    Ok(touched)
}

fn created_where(conn: &Connection, id: &str) -> StoreResult<Option<CreatedCharacter>> {
    let sql = format!("SELECT {CREATED_COLUMNS} FROM characters WHERE character_id = ?1");
    let mut statement = conn.prepare_cached(&sql)?;
    let mut rows = statement.query(params![id])?;
    match rows.next()? {
        Some(row) => read_created(row),
        None => Ok(None),
    }
}

/// Deletes a created character with its tag rows (by cascade), hidden mark and media, in
/// the caller's transaction; `None` when `id` is no created character.
fn delete_created(tx: &Transaction<'_>, id: &str) -> StoreResult<Option<DeletedCharacter>> {
    let Some(created) = created_where(tx, id)? else { return Ok(None) };
    let creator = created.creator().ok_or_else(|| StoreError::Corrupt(format!("character {id} has no creator")))?;
    for media_id in &created.media_ids {
        super::media::delete_media(tx, media_id)?;
    }
    let touched: Vec<Placed> = catalogue_blocks::placed(tx, id)?.into_iter().collect();
    tx.execute("DELETE FROM hidden_characters WHERE character_id = ?1", params![id])?;
    tx.execute("DELETE FROM characters WHERE character_id = ?1", params![id])?;
    catalogue_blocks::recount_places(tx, &touched)?;
    Ok(Some(DeletedCharacter {
        character_id: created.character.card.character_id,
        creator_id: creator,
        media_ids: created.media_ids,
    }))
}

/// Deletes every created character of `creator` in the caller's transaction (also used by
/// the account's deletion).
pub(super) fn delete_created_of(tx: &Transaction<'_>, creator: &str) -> StoreResult<Vec<DeletedCharacter>> {
    let ids: Vec<String> = tx
        .prepare_cached("SELECT character_id FROM characters WHERE creator_id = ?1 AND draft IS NOT NULL")?
        .query_map(params![creator], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut deleted = Vec::with_capacity(ids.len());
    for id in ids {
        deleted.extend(delete_created(tx, &id)?);
    }
    Ok(deleted)
}

/// Writes a created character whole (its catalogue row, its creator's fields, its places).
fn write_created(tx: &Transaction<'_>, created: &CreatedCharacter, draft: &str) -> StoreResult<()> {
    let id = created.character.card.character_id.as_str();
    let touched = write_character(tx, &created.character, created_rank(created.status_at))?;
    tx.prepare_cached(
        "UPDATE characters SET draft = ?2, imported = ?3, review_reason = ?4, media_ids = ?5,
            created_at = ?6, updated_at = ?7, status_at = ?8
         WHERE character_id = ?1",
    )?
    .execute(params![
        id,
        draft,
        created.imported,
        created.review_reason,
        to_json(&created.media_ids)?,
        created.created_at,
        created.updated_at,
        created.status_at,
    ])?;
    catalogue_blocks::recount_places(tx, &touched)?;
    Ok(())
}

#[async_trait]
impl CreatedCharacterRepo for EmbeddedStore {
    async fn save(&self, created: CreatedCharacter) -> StoreResult<()> {
        if created.creator().is_none() {
            return Err(StoreError::Corrupt("a created character needs its creator's id".into()));
        }
        let draft = serde_json::to_string(&created.draft).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            write_created(&tx, &created, &draft)?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn save_new(&self, created: CreatedCharacter, limit: u64) -> StoreResult<bool> {
        let Some(creator) = created.creator() else {
            return Err(StoreError::Corrupt("a created character needs its creator's id".into()));
        };
        let draft = serde_json::to_string(&created.draft).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.with_conn(move |conn| {
            // IMMEDIATE takes the write lock before the count: SQLite has one writer, so no
            // other save can land between this count and this insert (a deferred
            // transaction would count, then fail to upgrade or count stale).
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let id = created.character.card.character_id.as_str();
            let others: i64 = tx
                .prepare_cached(
                    "SELECT COUNT(*) FROM characters
                     WHERE creator_id = ?1 AND draft IS NOT NULL AND character_id <> ?2",
                )?
                .query_row(params![creator.as_str(), id], |row| row.get(0))?;
            if u64::try_from(others).unwrap_or(0) >= limit {
                return Ok(false);
            }
            write_created(&tx, &created, &draft)?;
            tx.commit()?;
            Ok(true)
        })
        .await
    }

    async fn get(&self, id: &CharacterId) -> StoreResult<Option<CreatedCharacter>> {
        let id = id.clone();
        self.with_conn(move |conn| created_where(conn, id.as_str())).await
    }

    async fn list_by_creator(&self, creator: &UserId, page: PageRequest) -> StoreResult<Vec<CreatedCharacter>> {
        let creator = creator.clone();
        self.with_conn(move |conn| {
            let sql = format!(
                "SELECT {CREATED_COLUMNS} FROM characters
                 WHERE creator_id = ?1 AND draft IS NOT NULL
                 ORDER BY created_at DESC, character_id LIMIT ?2 OFFSET ?3"
            );
            let mut statement = conn.prepare_cached(&sql)?;
            let mut rows = statement.query(params![creator.as_str(), page.page_size(), page.offset() as i64])?;
            let mut list = Vec::new();
            while let Some(row) = rows.next()? {
                list.extend(read_created(row)?);
            }
            Ok(list)
        })
        .await
    }

    async fn count_by_creator(&self, creator: &UserId) -> StoreResult<u64> {
        let creator = creator.clone();
        self.with_conn(move |conn| {
            let count: i64 = conn
                .prepare_cached("SELECT COUNT(*) FROM characters WHERE creator_id = ?1 AND draft IS NOT NULL")?
                .query_row(params![creator.as_str()], |row| row.get(0))?;
            Ok(count.max(0) as u64)
        })
        .await
    }

    async fn delete(&self, id: &CharacterId) -> StoreResult<Option<DeletedCharacter>> {
        let id = id.clone();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let deleted = delete_created(&tx, id.as_str())?;
            tx.commit()?;
            Ok(deleted)
        })
        .await
    }

    async fn delete_all_of(&self, creator: &UserId) -> StoreResult<Vec<DeletedCharacter>> {
        let creator = creator.clone();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let deleted = delete_created_of(&tx, creator.as_str())?;
            tx.commit()?;
            Ok(deleted)
        })
        .await
    }

    async fn set_status(
        &self,
        id: &CharacterId,
        from: CharacterStatus,
        to: CharacterStatus,
        reason: Option<String>,
        at: i64,
    ) -> StoreResult<StatusChange> {
        let id = id.clone();
        let reason = if to == CharacterStatus::Rejected { reason } else { None };
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let Some(current) = created_where(&tx, id.as_str())? else { return Ok(StatusChange::NotFound) };
            if current.character.status != from {
                return Ok(StatusChange::Other(current.character.status));
            }
            let mut touched: Vec<Placed> = catalogue_blocks::placed(&tx, id.as_str())?.into_iter().collect();
            tx.prepare_cached(
                "UPDATE characters SET status = ?2, status_at = ?3, review_reason = ?4, rank = ?5 WHERE character_id = ?1",
            )?
            .execute(params![id.as_str(), to.as_str(), at, reason, created_rank(at)])?;
            touched.extend(catalogue_blocks::placed(&tx, id.as_str())?);
            catalogue_blocks::recount_places(&tx, &touched)?;
            let changed = created_where(&tx, id.as_str())?;
            tx.commit()?;
            Ok(changed.map_or(StatusChange::NotFound, |c| StatusChange::Changed(Box::new(c))))
        })
        .await
    }

    async fn review_queue(&self, limit: u32) -> StoreResult<Vec<CreatedCharacter>> {
        self.with_conn(move |conn| {
            let sql = format!(
                "SELECT {CREATED_COLUMNS} FROM characters INDEXED BY characters_in_review
                 WHERE status = 'review' ORDER BY status_at, character_id LIMIT ?1"
            );
            let mut statement = conn.prepare_cached(&sql)?;
            let mut rows = statement.query(params![limit])?;
            let mut list = Vec::new();
            while let Some(row) = rows.next()? {
                list.extend(read_created(row)?);
            }
            Ok(list)
        })
        .await
    }
}
