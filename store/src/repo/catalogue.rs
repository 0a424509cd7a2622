//! The character catalogue's repository: characters by id, each gender's listing by rank
//! (paged by `crate::listing`), and the rank an approved created character lists at.

use amora_domain::character::{Character, CharacterCard, CharacterId};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::tag::TagFilter;
use amora_domain::viewer::Viewer;
use async_trait::async_trait;

use crate::StoreResult;

/// A character as it goes into the catalogue, with its place in the listing order.
#[derive(Debug, Clone)]
pub struct CatalogueEntry {
    pub character: Character,
    /// Position in the gender's listing; lower comes first.
    pub rank: i64,
}

/// The character catalogue, partitioned by gender and ordered by rank.
#[async_trait]
pub trait CharacterRepo: Send + Sync {
    /// One page of the cards `viewer` may see in `gender`'s catalogue: `Public` characters
    /// only (seeded ones by rank, then approved created ones, newest approval first).
    async fn list_cards(&self, gender: Gender, viewer: Viewer, page: PageRequest) -> StoreResult<Vec<CharacterCard>>;
    /// One page of the cards `viewer` may see in `gender`'s catalogue that carry at least one
    /// of `tags` (case-insensitive): those sharing more of the tags first, then listing order.
    /// Read from a tag index kept by `upsert`, never by scanning the catalogue.
    async fn list_cards_tagged(
        &self,
        gender: Gender,
        tags: &TagFilter,
        viewer: Viewer,
        page: PageRequest,
    ) -> StoreResult<Vec<CharacterCard>>;
    /// Any character, in any status (with `status`, `creator_id` and card extras): callers
    /// showing it check who may see it.
    async fn get(&self, id: &CharacterId) -> StoreResult<Option<Character>>;
    /// Inserts or replaces entries (seeding): the catalogue fields, status and card extras;
    /// a character is listed only while its status is `Public`. Created characters are
    /// saved with [`CreatedCharacterRepo::save`](crate::CreatedCharacterRepo::save).
    async fn upsert(&self, entries: Vec<CatalogueEntry>) -> StoreResult<()>;
    async fn count(&self) -> StoreResult<u64>;
    /// Takes a character out of the catalogue (the operator's moderation) or puts it back;
    /// false when there is no such character. `get` still finds a hidden character, so
    /// callers showing it to the public ask `is_hidden`.
    async fn set_hidden(&self, id: &CharacterId, hidden: bool) -> StoreResult<bool>;
    async fn is_hidden(&self, id: &CharacterId) -> StoreResult<bool>;
    /// Every hidden character's id, in id order.
    async fn hidden(&self) -> StoreResult<Vec<CharacterId>>;
}

/// Where approved created characters start in a gender's listing: after every seeded
/// character (ranked from 0), newest approval first. See [`created_rank`].
pub const CREATED_RANK_BASE: i64 = 1 << 62;

/// The catalogue rank of a created character approved at `approved_at` (ms): larger than
/// any seeded rank, smaller for a later approval, so the newest approval lists first.
pub fn created_rank(approved_at: i64) -> i64 {
    CREATED_RANK_BASE - approved_at.clamp(0, CREATED_RANK_BASE - 1)
}
