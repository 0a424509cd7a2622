//! The repository of characters users create (My AI, the review queue): their builder
//! fields, their status and what deleting one takes with it.

use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId, CharacterStatus, Exposure};
use amora_domain::creation::{Draft, MyCharacter, Visibility};
use amora_domain::paging::PageRequest;
use async_trait::async_trait;

use crate::StoreResult;

/// A character a user made with the builder or by importing a card, with what only its
/// creator sees (My AI). `character.creator_id` is always set (the creator's user id);
/// `character.status` decides who sees it: the catalogue (`CharacterRepo::list_cards`,
/// `list_cards_tagged`) holds it only while `Public`, while `CharacterRepo::get` and
/// [`CreatedCharacterRepo::get`] find it in every status (callers check who asks).
/// `character.exposure` is `Restricted` for explicit (NSFW) characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedCharacter {
    pub character: Character,
    /// The builder's draft (for an imported card, the one the server made from it).
    pub draft: Draft,
    /// Made from an imported character card.
    pub imported: bool,
    /// The operator's reason while `Rejected`.
    pub review_reason: Option<String>,
    /// Media objects that are only this character's (its portrait, other pictures): the
    /// store deletes them with the character.
    pub media_ids: Vec<String>,
    /// Milliseconds since the epoch. My AI lists newest `created_at` first.
    pub created_at: i64,
    pub updated_at: i64,
    /// When it took its current status (ms): the submission while in `Review` (the review
    /// queue is oldest first by it), the approval while `Public` (the catalogue lists the
    /// newest approval first, see [`created_rank`](crate::created_rank)), the decision while `Rejected`.
    pub status_at: i64,
}

impl CreatedCharacter {
    /// The creator's id (`None` only for a record that lost it, which the stores refuse).
    pub fn creator(&self) -> Option<UserId> {
        self.character.creator_id.as_deref().and_then(|id| UserId::parse(id).ok())
    }

    /// The record as My AI shows it to its creator.
    pub fn into_view(self) -> MyCharacter {
        let status = self.character.status;
        MyCharacter {
            nsfw: self.character.exposure == Exposure::Restricted,
            status,
            review_reason: self.review_reason,
            visibility: Visibility::of_status(status),
            draft: self.draft,
            imported: self.imported,
            created_at: self.created_at,
            updated_at: self.updated_at,
            character: self.character,
        }
    }
}

/// What deleting a created character removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletedCharacter {
    pub character_id: CharacterId,
    pub creator_id: UserId,
    /// Its media objects, deleted with it by the store (for the caller's records and for
    /// anything it keeps elsewhere under the same ids).
    pub media_ids: Vec<String>,
}

/// The outcome of [`CreatedCharacterRepo::set_status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusChange {
    /// Moved; the character as it now is.
    Changed(Box<CreatedCharacter>),
    /// No created character has this id.
    NotFound,
    /// It is in another status than the expected one (given); nothing changed.
    Other(CharacterStatus),
}

/// Characters users created: by id, per creator newest first (a creator index on both
/// stores, `characters_by_creator` on CQL), and the review queue oldest first
/// (`characters_in_review` on CQL). Saving keeps the catalogue listings in step with the
/// status: a created character is listed only while `Public`.
#[async_trait]
pub trait CreatedCharacterRepo: Send + Sync {
    /// Creates or replaces (by id) the character with every field as given.
    async fn save(&self, created: CreatedCharacter) -> StoreResult<()>;
    /// Saves a new character as `save` does, only while its creator has fewer than `limit`
    /// other characters: true when saved, false (nothing stored) at the limit. Atomic
    /// (issue 28): of any number of concurrent calls for one creator, on any nodes, no more
    /// save than there is room for. `delete` and `delete_all_of` give the room back.
    async fn save_new(&self, created: CreatedCharacter, limit: u64) -> StoreResult<bool>;
    /// A created character in any status; `None` for an unknown id or a seeded character.
    async fn get(&self, id: &CharacterId) -> StoreResult<Option<CreatedCharacter>>;
    /// One page of `creator`'s characters, newest `created_at` first (ties by id).
    async fn list_by_creator(&self, creator: &UserId, page: PageRequest) -> StoreResult<Vec<CreatedCharacter>>;
    async fn count_by_creator(&self, creator: &UserId) -> StoreResult<u64>;
    /// Deletes the character, its catalogue rows, its review entry and its media
    /// objects; `None` when there was no created character with this id.
    async fn delete(&self, id: &CharacterId) -> StoreResult<Option<DeletedCharacter>>;
    /// Deletes every character of `creator` (account deletion) as `delete` does.
    async fn delete_all_of(&self, creator: &UserId) -> StoreResult<Vec<DeletedCharacter>>;
    /// Moves the character from `from` to `to` at `at` (ms, its new `status_at`) with the
    /// review reason `reason` (kept only for `Rejected`), only when it is in `from`.
    /// `updated_at` stays (the creator's edits set it).
    async fn set_status(
        &self,
        id: &CharacterId,
        from: CharacterStatus,
        to: CharacterStatus,
        reason: Option<String>,
        at: i64,
    ) -> StoreResult<StatusChange>;
    /// The characters waiting for review, oldest submission first, at most `limit`.
    async fn review_queue(&self, limit: u32) -> StoreResult<Vec<CreatedCharacter>>;
}
