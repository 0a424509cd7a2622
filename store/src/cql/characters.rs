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
use scylla::statement::prepared::PreparedStatement;
use scylla::{DeserializeRow, SerializeRow};

use super::catalogue_blocks::Placed;
use super::{CqlStore, Kind, Preparer, corrupt, unavailable};
use crate::listing::{self, Block, CardKey};
use crate::{
    CatalogueEntry, CharacterRepo, CreatedCharacter, CreatedCharacterRepo, DeletedCharacter, MediaRepo, StatusChange,
    StoreError, StoreResult, created_rank,
};
use amora_domain::account::UserId;

pub(super) struct Statements {
    cards_from: PreparedStatement,
    get: PreparedStatement,
    placement: PreparedStatement,
    insert: PreparedStatement,
    insert_card: PreparedStatement,
    delete_card: PreparedStatement,
    count: PreparedStatement,
    tagged_cards: PreparedStatement,
    insert_tag_card: PreparedStatement,
    delete_tag_card: PreparedStatement,
    save_created: PreparedStatement,
    delete_character: PreparedStatement,
    by_creator: PreparedStatement,
    count_by_creator: PreparedStatement,
    insert_by_creator: PreparedStatement,
    delete_by_creator: PreparedStatement,
    delete_creator_partition: PreparedStatement,
    review_queue: PreparedStatement,
    insert_review: PreparedStatement,
    delete_review: PreparedStatement,
}

/// Every column of `characters` as `FullRow` reads them.
const FULL_COLUMNS: &str = "character_id, name, age, introduction, photo, image_list, used_type, gender, restricted,
    personality, scenario, greeting, tags, creator_id, status, status_at, system_prompt, post_history_instructions,
    example_dialogue, alternate_greetings, has_lorebook, card_json, draft, imported, review_reason, media_ids,
    created_at, updated_at";
/// Cards fetched per page of the pager when reading a catalogue page: the largest page and
/// a few hidden or restricted cards to step over.
const CARDS_PER_FETCH: i32 = 80;
/// The one partition of `characters_in_review`.
const REVIEW_BUCKET: i32 = 0;

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            // A page's cards from its start, a page of the driver's pager at a time.
            cards_from: {
                let mut statement = p
                    .prepare(
                        "SELECT character_id, name, age, introduction, photo, image_list, used_type, gender, restricted
                         FROM character_cards_by_gender WHERE gender = ? AND (rank, character_id) >= (?, ?)",
                        Kind::Idempotent,
                    )
                    .await?;
                statement.set_page_size(CARDS_PER_FETCH);
                statement
            },
            get: p
                .prepare(&format!("SELECT {FULL_COLUMNS} FROM characters WHERE character_id = ?"), Kind::Idempotent)
                .await?,
            placement: p
                .prepare(
                    "SELECT gender, rank, tags, status, creator_id, created_at, status_at, draft
                     FROM characters WHERE character_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            // The catalogue's fields, status and card extras of any character; a created
            // character's own columns are written by `save_created` and left alone here.
            insert: p
                .prepare(
                    "INSERT INTO characters (character_id, gender, restricted, rank, name, age, introduction, photo,
                        image_list, used_type, personality, scenario, greeting, tags, creator_id, status,
                        system_prompt, post_history_instructions, example_dialogue, alternate_greetings,
                        has_lorebook, card_json)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            save_created: p
                .prepare(
                    "UPDATE characters SET draft = ?, imported = ?, review_reason = ?, media_ids = ?, created_at = ?,
                        updated_at = ?, status_at = ?
                     WHERE character_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            delete_character: p
                .prepare("DELETE FROM characters WHERE character_id = ?", Kind::Idempotent)
                .await?,
            by_creator: p
                .prepare(
                    "SELECT created_at, character_id FROM characters_by_creator WHERE creator_id = ? LIMIT ?",
                    Kind::Idempotent,
                )
                .await?,
            count_by_creator: p
                .prepare("SELECT COUNT(*) FROM characters_by_creator WHERE creator_id = ?", Kind::Idempotent)
                .await?,
            insert_by_creator: p
                .prepare(
                    "INSERT INTO characters_by_creator (creator_id, created_at, character_id) VALUES (?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            delete_by_creator: p
                .prepare(
                    "DELETE FROM characters_by_creator WHERE creator_id = ? AND created_at = ? AND character_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            delete_creator_partition: p
                .prepare("DELETE FROM characters_by_creator WHERE creator_id = ?", Kind::Idempotent)
                .await?,
            review_queue: p
                .prepare(
                    "SELECT submitted_at, character_id FROM characters_in_review WHERE bucket = ?",
                    Kind::Idempotent,
                )
                .await?,
            insert_review: p
                .prepare(
                    "INSERT INTO characters_in_review (bucket, submitted_at, character_id) VALUES (?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            delete_review: p
                .prepare(
                    "DELETE FROM characters_in_review WHERE bucket = ? AND submitted_at = ? AND character_id = ?",
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

/// A whole row of `characters` (`FULL_COLUMNS`). Columns added by issue 17 are null in
/// rows written before: status null is public, extras null are empty.
#[derive(DeserializeRow)]
struct FullRow {
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
    status: Option<String>,
    status_at: Option<i64>,
    system_prompt: Option<String>,
    post_history_instructions: Option<String>,
    example_dialogue: Option<String>,
    alternate_greetings: Option<Vec<String>>,
    has_lorebook: Option<bool>,
    card_json: Option<String>,
    draft: Option<String>,
    imported: Option<bool>,
    review_reason: Option<String>,
    media_ids: Option<Vec<String>>,
    created_at: Option<i64>,
    updated_at: Option<i64>,
}

impl FullRow {
    /// The character, and the created character's own fields when it is one.
    fn split(self) -> StoreResult<(Character, Option<CreatedParts>)> {
        let exposure = if self.restricted { Exposure::Restricted } else { Exposure::Everyone };
        let status = match self.status.as_deref() {
            None => CharacterStatus::Public,
            Some(raw) => CharacterStatus::parse(raw).map_err(corrupt)?,
        };
        let card = CardRow {
            character_id: self.character_id,
            name: self.name,
            age: self.age,
            introduction: self.introduction,
            photo: self.photo,
            image_list: self.image_list,
            used_type: self.used_type,
            gender: self.gender,
            restricted: self.restricted,
        };
        let character = Character {
            card: card.into_card()?,
            personality: self.personality,
            scenario: self.scenario,
            greeting: self.greeting,
            tags: self.tags.unwrap_or_default(),
            creator_id: self.creator_id,
            exposure,
            status,
            extras: CardExtras {
                system_prompt: self.system_prompt.unwrap_or_default(),
                post_history_instructions: self.post_history_instructions.unwrap_or_default(),
                example_dialogue: self.example_dialogue.unwrap_or_default(),
                alternate_greetings: self.alternate_greetings.unwrap_or_default(),
                has_lorebook: self.has_lorebook.unwrap_or(false),
                card_json: self.card_json,
            },
        };
        let created = match self.draft {
            None => None,
            Some(draft) => Some(CreatedParts {
                draft: serde_json::from_str(&draft).map_err(|e| StoreError::Corrupt(format!("bad draft: {e}")))?,
                imported: self.imported.unwrap_or(false),
                review_reason: self.review_reason,
                media_ids: self.media_ids.unwrap_or_default(),
                created_at: self.created_at.unwrap_or(0),
                updated_at: self.updated_at.unwrap_or(0),
                status_at: self.status_at.unwrap_or(0),
            }),
        };
        Ok((character, created))
    }

    fn into_created(self) -> StoreResult<Option<CreatedCharacter>> {
        let (character, parts) = self.split()?;
        Ok(parts.map(|p| CreatedCharacter {
            character,
            draft: p.draft,
            imported: p.imported,
            review_reason: p.review_reason,
            media_ids: p.media_ids,
            created_at: p.created_at,
            updated_at: p.updated_at,
            status_at: p.status_at,
        }))
    }
}

struct CreatedParts {
    draft: amora_domain::creation::Draft,
    imported: bool,
    review_reason: Option<String>,
    media_ids: Vec<String>,
    created_at: i64,
    updated_at: i64,
    status_at: i64,
}

/// The values of `Statements::insert`, bound by column name (more than a tuple holds).
#[derive(SerializeRow)]
struct CharacterValues<'a> {
    character_id: &'a str,
    gender: i32,
    restricted: bool,
    rank: i64,
    name: &'a str,
    age: i32,
    introduction: &'a str,
    photo: &'a str,
    image_list: &'a Vec<String>,
    used_type: i32,
    personality: &'a str,
    scenario: &'a str,
    greeting: &'a str,
    tags: &'a Vec<String>,
    creator_id: Option<&'a str>,
    status: &'a str,
    system_prompt: &'a str,
    post_history_instructions: &'a str,
    example_dialogue: &'a str,
    alternate_greetings: &'a Vec<String>,
    has_lorebook: bool,
    card_json: Option<&'a str>,
}

/// Where a stored character sits in the listings and indexes, read before it is rewritten
/// so that no stale row is left behind.
#[derive(DeserializeRow)]
struct Placement {
    gender: i32,
    rank: i64,
    tags: Option<Vec<String>>,
    status: Option<String>,
    creator_id: Option<String>,
    created_at: Option<i64>,
    status_at: Option<i64>,
    draft: Option<String>,
}

impl Placement {
    fn listed(&self) -> bool {
        matches!(self.status.as_deref(), None | Some("public"))
    }

    fn in_review(&self) -> bool {
        self.status.as_deref() == Some("review")
    }
}

#[async_trait]
impl CharacterRepo for CqlStore {
    async fn list_cards(&self, gender: Gender, viewer: Viewer, page: PageRequest) -> StoreResult<Vec<CharacterCard>> {
        let include_restricted = viewer.may_see(Exposure::Restricted);
        let gender = i32::from(gender.code());
        let (blocks, hidden) = futures_util::try_join!(self.counted_blocks(gender), self.hidden_set())?;
        let blocks: Vec<Block> = blocks.into_iter().map(|stored| stored.block).collect();
        // The block counts find the block of the page's first card; its keys (fewer than
        // one block holds) are stepped over to that card, whose key starts the read.
        let Some((at, skip)) = listing::locate(&blocks, include_restricted, page.offset()) else {
            return Ok(Vec::new());
        };
        let next = blocks.get(at + 1).map(|block| &block.fence);
        let mut start = blocks[at].fence.clone();
        if skip > 0 {
            let rows = self.listed_rows(gender, &start, next, &hidden).await?;
            match rows.into_iter().filter(|row| row.visible(include_restricted)).nth(skip as usize) {
                Some(row) => start = row.key,
                // Counted more than it holds (a recount in flight): the page starts after it.
                None => match next {
                    Some(next) => start = next.clone(),
                    None => return Ok(Vec::new()),
                },
            }
        }
        let statement = &self.statements.characters.cards_from;
        self.count_round_trip();
        let pager = self
            .session
            .execute_iter(statement.clone(), (gender, start.rank, start.id.as_str()))
            .await
            .map_err(unavailable)?;
        let mut rows = pager.rows_stream::<CardRow>().map_err(corrupt)?;
        // Restricted and hidden cards are stepped over, as the counts leave them out; the
        // pager stops fetching once the page is complete.
        let mut cards = Vec::with_capacity(page.page_size() as usize);
        while let Some(row) = rows.try_next().await.map_err(unavailable)? {
            if (row.restricted && !include_restricted) || hidden.contains(&row.character_id) {
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
        let row: Option<FullRow> = self.first(&self.statements.characters.get, (id.as_str(),)).await?;
        row.map(|row| row.split().map(|(character, _)| character)).transpose()
    }

    async fn upsert(&self, entries: Vec<CatalogueEntry>) -> StoreResult<()> {
        let mut touched = Vec::new();
        for CatalogueEntry { character, rank } in entries {
            let placed = self.placement(&character.card.character_id).await?;
            touched.extend(self.write_character(placed.as_ref(), &character, rank).await?);
        }
        self.recount_places(&touched).await
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

impl CqlStore {
    async fn placement(&self, id: &CharacterId) -> StoreResult<Option<Placement>> {
        self.first(&self.statements.characters.placement, (id.as_str(),)).await
    }

    /// Where character `id` sits in its gender's listing while it is listed (public).
    pub(super) async fn listed_place(&self, id: &CharacterId) -> StoreResult<Option<Placed>> {
        let placed = self.placement(id).await?;
        Ok(placed.filter(Placement::listed).map(|p| (p.gender, CardKey::new(p.rank, id.as_str()))))
    }

    /// Writes a character's row (catalogue fields, status, extras) and keeps its card rows:
    /// under its gender and tags while it is public, nowhere otherwise. `placed` is where
    /// the stored version sat; rows at a key the new version keeps are overwritten, not
    /// deleted first (a delete and an insert of one key in the same microsecond would
    /// leave the delete winning). Answers the listing places it left and took, whose
    /// blocks the caller recounts.
    async fn write_character(
        &self,
        placed: Option<&Placement>,
        character: &Character,
        rank: i64,
    ) -> StoreResult<Vec<Placed>> {
        let statements = &self.statements.characters;
        let card = &character.card;
        let id = card.character_id.as_str();
        let gender = i32::from(card.gender.code());
        let listed = character.status.is_listed();
        let tag_keys = if listed { stored_keys(&character.tags) } else { Vec::new() };
        let mut touched: Vec<Placed> = Vec::new();
        if let Some(old) = placed.filter(|old| old.listed()) {
            touched.push((old.gender, CardKey::new(old.rank, id)));
            let moved = (old.gender, old.rank) != (gender, rank);
            if moved || !listed {
                self.run(&statements.delete_card, (old.gender, old.rank, id)).await?;
            }
            // Nor stale rows in the tag index: under tags it dropped, or at its old place.
            let stale = stored_keys(old.tags.as_deref().unwrap_or_default())
                .into_iter()
                .filter(|key: &TagKey| moved || !tag_keys.contains(key));
            for key in stale {
                self.run(&statements.delete_tag_card, (key.as_str(), old.gender, old.rank, id)).await?;
            }
        }
        let restricted = character.exposure == Exposure::Restricted;
        let age = i32::from(card.character_age.years());
        let used_type = i32::from(u8::from(card.used_type));
        let extras = &character.extras;
        let values = CharacterValues {
            character_id: id,
            gender,
            restricted,
            rank,
            name: &card.character_name,
            age,
            introduction: &card.introduction,
            photo: &card.character_photo,
            image_list: &card.character_image_list,
            used_type,
            personality: &character.personality,
            scenario: &character.scenario,
            greeting: &character.greeting,
            tags: &character.tags,
            creator_id: character.creator_id.as_deref(),
            status: character.status.as_str(),
            system_prompt: &extras.system_prompt,
            post_history_instructions: &extras.post_history_instructions,
            example_dialogue: &extras.example_dialogue,
            alternate_greetings: &extras.alternate_greetings,
            has_lorebook: extras.has_lorebook,
            card_json: extras.card_json.as_deref(),
        };
        self.run(&statements.insert, values).await?;
        if !listed {
            return Ok(touched);
        }
        touched.push((gender, CardKey::new(rank, id)));
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
        Ok(touched)
    }

    /// Writes a created character over `placed` (its stored version, if any): the row, the
    /// listings (and their block counts), the creator index and the review queue.
    async fn write_created(&self, placed: Option<&Placement>, created: &CreatedCharacter) -> StoreResult<()> {
        let statements = &self.statements.characters;
        let id = created.character.card.character_id.as_str();
        let Some(creator) = created.character.creator_id.as_deref().filter(|c| UserId::parse(c).is_ok()) else {
            return Err(StoreError::Corrupt("a created character needs its creator's id".into()));
        };
        let draft = serde_json::to_string(&created.draft).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        // The indexes first: a crash leaves an index row naming a row that does not match
        // it (readers skip those), never a character its creator cannot find.
        self.run(&statements.insert_by_creator, (creator, created.created_at, id)).await?;
        let in_review = created.character.status == CharacterStatus::Review;
        if in_review {
            self.run(&statements.insert_review, (REVIEW_BUCKET, created.status_at, id)).await?;
        }
        let touched = self.write_character(placed, &created.character, created_rank(created.status_at)).await?;
        self.recount_places(&touched).await?;
        self.run(
            &statements.save_created,
            (
                draft,
                created.imported,
                &created.review_reason,
                &created.media_ids,
                created.created_at,
                created.updated_at,
                created.status_at,
                id,
            ),
        )
        .await?;
        if let Some(old) = placed {
            let old_index = (old.creator_id.as_deref(), old.created_at.unwrap_or(0));
            if let Some(old_creator) = old.creator_id.as_deref()
                && old.draft.is_some()
                && old_index != (Some(creator), created.created_at)
            {
                self.run(&statements.delete_by_creator, (old_creator, old.created_at.unwrap_or(0), id)).await?;
            }
            let old_submitted = old.status_at.unwrap_or(0);
            if old.in_review() && (!in_review || old_submitted != created.status_at) {
                self.run(&statements.delete_review, (REVIEW_BUCKET, old_submitted, id)).await?;
            }
        }
        Ok(())
    }

    /// The created character `id` names, in every status.
    async fn created(&self, id: &str) -> StoreResult<Option<CreatedCharacter>> {
        let row: Option<FullRow> = self.first(&self.statements.characters.get, (id,)).await?;
        row.map(FullRow::into_created).transpose().map(Option::flatten)
    }

    async fn delete_created(&self, id: &CharacterId) -> StoreResult<Option<DeletedCharacter>> {
        let statements = &self.statements.characters;
        let Some(placed) = self.placement(id).await? else { return Ok(None) };
        let Some(created) = self.created(id.as_str()).await? else { return Ok(None) };
        let creator = created.creator().ok_or_else(|| StoreError::Corrupt(format!("character {id} has no creator")))?;
        // Out of the listings and the queue first, then the media, the row and the index.
        let mut gone = created.character.clone();
        gone.status = CharacterStatus::Private;
        let touched = self.write_character(Some(&placed), &gone, placed.rank).await?;
        self.recount_places(&touched).await?;
        if placed.in_review() {
            self.run(&statements.delete_review, (REVIEW_BUCKET, placed.status_at.unwrap_or(0), id.as_str())).await?;
        }
        for media_id in &created.media_ids {
            MediaRepo::delete(self, media_id).await?;
        }
        self.set_character_hidden(id, false).await?;
        self.run(&statements.delete_character, (id.as_str(),)).await?;
        self.run(&statements.delete_by_creator, (creator.as_str(), created.created_at, id.as_str())).await?;
        Ok(Some(DeletedCharacter { character_id: id.clone(), creator_id: creator, media_ids: created.media_ids }))
    }

    /// The ids in `creator`'s index, newest first, at most `limit` rows read.
    pub(super) async fn creator_index(&self, creator: &UserId, limit: i32) -> StoreResult<Vec<(i64, String)>> {
        self.paged(&self.statements.characters.by_creator, (creator.as_str(), limit)).await
    }
}

#[async_trait]
impl CreatedCharacterRepo for CqlStore {
    async fn save(&self, created: CreatedCharacter) -> StoreResult<()> {
        let placed = self.placement(&created.character.card.character_id).await?;
        self.write_created(placed.as_ref(), &created).await
    }

    async fn save_new(&self, created: CreatedCharacter, limit: u64) -> StoreResult<bool> {
        let creator = created
            .creator()
            .ok_or_else(|| StoreError::Corrupt("a created character needs its creator's id".into()))?;
        let id = created.character.card.character_id.clone();
        // The slot first (see `character_slots`): of concurrent saves, no more than there
        // is room for get one; a failed save gives its slot back.
        if !self.reserve_slot(&creator, id.as_str(), limit).await? {
            return Ok(false);
        }
        let saved = async {
            let placed = self.placement(&id).await?;
            self.write_created(placed.as_ref(), &created).await
        }
        .await;
        if let Err(error) = saved {
            self.release_slot(&creator, id.as_str()).await;
            return Err(error);
        }
        Ok(true)
    }

    async fn get(&self, id: &CharacterId) -> StoreResult<Option<CreatedCharacter>> {
        self.created(id.as_str()).await
    }

    async fn list_by_creator(&self, creator: &UserId, page: PageRequest) -> StoreResult<Vec<CreatedCharacter>> {
        // One partition, read up to the end of the page; the rows are only ids.
        let end = page.offset() + u64::from(page.page_size());
        let index = self.creator_index(creator, i32::try_from(end).unwrap_or(i32::MAX)).await?;
        let wanted = index.into_iter().skip(page.offset() as usize);
        let reads =
            wanted.map(|(created_at, id)| async move {
                let found = self.created(&id).await?;
                // A row left by a crash or a move names a character that no longer matches it.
                Ok::<_, StoreError>(found.filter(|c| {
                    c.created_at == created_at && c.character.creator_id.as_deref() == Some(creator.as_str())
                }))
            });
        let found = futures_util::future::try_join_all(reads).await?;
        Ok(found.into_iter().flatten().collect())
    }

    async fn count_by_creator(&self, creator: &UserId) -> StoreResult<u64> {
        let row: Option<(i64,)> = self.first(&self.statements.characters.count_by_creator, (creator.as_str(),)).await?;
        let count = row.map(|(n,)| n).unwrap_or(0);
        u64::try_from(count).map_err(|_| StoreError::Corrupt(format!("negative count {count}")))
    }

    async fn delete(&self, id: &CharacterId) -> StoreResult<Option<DeletedCharacter>> {
        let deleted = self.delete_created(id).await?;
        if let Some(gone) = &deleted {
            self.release_slot(&gone.creator_id, gone.character_id.as_str()).await;
        }
        Ok(deleted)
    }

    async fn delete_all_of(&self, creator: &UserId) -> StoreResult<Vec<DeletedCharacter>> {
        let mut deleted = Vec::new();
        for (_, id) in self.creator_index(creator, i32::MAX).await? {
            let id = CharacterId::parse(&id).map_err(corrupt)?;
            let Some(created) = self.created(id.as_str()).await? else { continue };
            if created.character.creator_id.as_deref() == Some(creator.as_str()) {
                deleted.extend(self.delete_created(&id).await?);
            }
        }
        self.run(&self.statements.characters.delete_creator_partition, (creator.as_str(),)).await?;
        self.drop_slots(creator).await?;
        Ok(deleted)
    }

    async fn set_status(
        &self,
        id: &CharacterId,
        from: CharacterStatus,
        to: CharacterStatus,
        reason: Option<String>,
        at: i64,
    ) -> StoreResult<StatusChange> {
        // Read, check, write: not a compare-and-set across nodes. The only writers are the
        // creator (editing) and an operator (deciding), and the rewrite is whole.
        let Some(placed) = self.placement(id).await? else { return Ok(StatusChange::NotFound) };
        let Some(mut created) = self.created(id.as_str()).await? else { return Ok(StatusChange::NotFound) };
        if created.character.status != from {
            return Ok(StatusChange::Other(created.character.status));
        }
        created.character.status = to;
        created.status_at = at;
        created.review_reason = if to == CharacterStatus::Rejected { reason } else { None };
        self.write_created(Some(&placed), &created).await?;
        Ok(StatusChange::Changed(Box::new(created)))
    }

    async fn review_queue(&self, limit: u32) -> StoreResult<Vec<CreatedCharacter>> {
        let statement = &self.statements.characters.review_queue;
        self.count_round_trip();
        let pager = self.session.execute_iter(statement.clone(), (REVIEW_BUCKET,)).await.map_err(unavailable)?;
        let mut rows = pager.rows_stream::<(i64, String)>().map_err(corrupt)?;
        let mut queue = Vec::new();
        while queue.len() < limit as usize {
            let Some((submitted_at, id)) = rows.try_next().await.map_err(unavailable)? else { break };
            // Rows whose character moved on (a crash between writes) are skipped.
            if let Some(created) = self.created(&id).await?
                && created.character.status == CharacterStatus::Review
                && created.status_at == submitted_at
            {
                queue.push(created);
            }
        }
        Ok(queue)
    }
}
