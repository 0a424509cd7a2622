//! The memory repositories: what a character keeps about the user, and the recall index
//! over the user's messages and the pair's memories.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MemoryId};
use async_trait::async_trait;

use crate::{StoreError, StoreResult};

/// How a memory came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryOrigin {
    /// Extracted from the conversation by the chat model.
    Extracted,
    /// Written or edited by the user.
    User,
}

impl MemoryOrigin {
    /// How every store writes the origin.
    pub fn code(self) -> &'static str {
        match self {
            MemoryOrigin::Extracted => "extracted",
            MemoryOrigin::User => "user",
        }
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        match code {
            "extracted" => Ok(MemoryOrigin::Extracted),
            "user" => Ok(MemoryOrigin::User),
            other => Err(StoreError::Corrupt(format!("unknown memory origin {other:?}"))),
        }
    }
}

/// A fact about the user that a character keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    pub memory_id: MemoryId,
    pub content: String,
    pub origin: MemoryOrigin,
    /// The user pinned it: it enters every prompt of the pair.
    pub pinned: bool,
}

/// Long-term memories, partitioned by user–character pair, newest first. Memories are in
/// the pair's recall index ([`RecallRepo`]) while they exist, with their current text.
#[async_trait]
pub trait MemoryRepo: Send + Sync {
    /// Pins or unpins a memory; false when there is no such memory.
    async fn set_pinned(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        pinned: bool,
    ) -> StoreResult<bool>;
    async fn add(&self, user_id: &UserId, character_id: &CharacterId, memory: Memory) -> StoreResult<()>;
    /// Newest first.
    async fn list(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<Vec<Memory>>;
    /// Replaces the text (the memory becomes the user's); false when there is no such memory.
    async fn update(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        content: &str,
    ) -> StoreResult<bool>;
    async fn delete(&self, user_id: &UserId, character_id: &CharacterId, memory_id: MemoryId) -> StoreResult<bool>;
}

/// What the recall index holds: the user's messages and the pair's memories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecallKind {
    Message,
    Memory,
}

impl RecallKind {
    /// How every store writes the kind.
    pub fn code(self) -> &'static str {
        match self {
            RecallKind::Message => "message",
            RecallKind::Memory => "memory",
        }
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        match code {
            "message" => Ok(RecallKind::Message),
            "memory" => Ok(RecallKind::Memory),
            other => Err(StoreError::Corrupt(format!("unknown recall kind {other:?}"))),
        }
    }
}

/// One document holding one term, as the index keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecallPosting {
    pub term: String,
    pub kind: RecallKind,
    pub id: EntryId,
    /// How often the term occurs in the document.
    pub count: u32,
    /// The document's length in terms.
    pub length: u32,
}

/// What a lookup in a pair's recall index found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecallMatches {
    /// The postings of the terms asked for, in no particular order.
    pub postings: Vec<RecallPosting>,
    /// How many messages the pair's index holds and their total length in terms.
    pub messages: amora_domain::recall::CollectionSize,
    /// The same for memories.
    pub memories: amora_domain::recall::CollectionSize,
}

/// The recall index of each user–character pair: an inverted index (per term, the
/// documents holding it, with counts and lengths) over the user's messages and the pair's
/// memories, kept by [`ConversationRepo`](crate::ConversationRepo) and [`MemoryRepo`] as they change (terms by
/// `amora_domain::recall::term_counts`). Scoring is the caller's
/// (`amora_domain::recall::bm25`), so every store ranks alike.
#[async_trait]
pub trait RecallRepo: Send + Sync {
    /// The postings of `terms` in the pair's index and the size of each of its collections.
    async fn recall(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        terms: &[String],
    ) -> StoreResult<RecallMatches>;
}
