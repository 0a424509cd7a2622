//! The chat repositories: conversations and their messages, reply versions (swipes), the
//! user's personas and the free message credits.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{MessageId, Speaker};
use amora_domain::persona::UserPersona;
use async_trait::async_trait;

use crate::{MessageImage, StoreError, StoreResult};

/// One message of a conversation as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMessage {
    pub message_id: MessageId,
    pub speaker: Speaker,
    pub content: String,
    /// The picture the message shows (a character's picture asked for in chat).
    pub image: Option<MessageImage>,
}

/// A conversation in the user's chat list: the character and its newest message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationSummary {
    pub character_id: CharacterId,
    pub last_message: StoredMessage,
}

/// Conversations, one per user–character pair, partitioned by that pair and clustered by
/// message id (time), newest first. A conversation exists while it has messages.
///
/// The user's messages are in the pair's recall index ([`RecallRepo`](crate::RecallRepo)) while they exist:
/// `append` indexes one, `update_message` indexes its new text instead of the old, and
/// `delete_messages` and `delete` take them out. The character's messages are not indexed:
/// recall brings back what the user said.
#[async_trait]
pub trait ConversationRepo: Send + Sync {
    async fn append(&self, user_id: &UserId, character_id: &CharacterId, message: StoredMessage) -> StoreResult<()>;
    /// Newest first: the messages older than `before` (all when `None`), at most `limit`.
    async fn messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        before: Option<MessageId>,
        limit: u32,
    ) -> StoreResult<Vec<StoredMessage>>;
    /// Replaces a message's text; false when there is no such message.
    async fn update_message(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
        content: &str,
    ) -> StoreResult<bool>;
    /// Deletes messages by id (and their voice clips); how many existed.
    async fn delete_messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_ids: &[MessageId],
    ) -> StoreResult<u64>;
    /// The user's conversations, the most recently active first.
    async fn list(&self, user_id: &UserId) -> StoreResult<Vec<ConversationSummary>>;
    /// Deletes the conversation with all its messages and their voice clips; false when it
    /// had no message.
    async fn delete(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<bool>;
}

/// The versions of one reply (swipes): every text written for the reply to one user message
/// (its parent), oldest first, and which one the conversation holds. Kept by parent so that
/// branching can come later; a reply nobody wrote again has none stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyAlternatives {
    pub parent_id: MessageId,
    /// Index into `texts` of the version the conversation holds.
    pub chosen: u32,
    pub texts: Vec<String>,
}

/// Reply versions per user–character pair, keyed by the parent message they answer, with
/// the chosen index. The conversation's own message row holds the chosen text; these are
/// what the user may switch between.
#[async_trait]
pub trait ReplyAlternativeRepo: Send + Sync {
    /// The versions of the reply to `parent_id`; `None` when none are stored.
    async fn alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
    ) -> StoreResult<Option<ReplyAlternatives>>;
    /// Stores `content` as the next version of the reply to `parent_id` and makes it the
    /// chosen one; answers its index (0 for the first).
    async fn add_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        content: &str,
    ) -> StoreResult<u32>;
    /// Makes version `index` the chosen one; false when there is no such version.
    async fn choose_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
    ) -> StoreResult<bool>;
    /// Replaces the text of version `index` (the reply was continued); false when there is
    /// no such version.
    async fn set_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
        content: &str,
    ) -> StoreResult<bool>;
    /// Deletes the versions of the replies to `parent_ids` (those messages were deleted).
    async fn delete_alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_ids: &[MessageId],
    ) -> StoreResult<()>;
    /// Deletes every reply version of the pair (the conversation was deleted).
    async fn delete_pair_alternatives(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<()>;
}

/// A persona of the user's (issue 18) with the character it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPersona {
    /// `None`: the persona for every character (the one set in settings).
    pub character_id: Option<CharacterId>,
    pub persona: UserPersona,
}

/// The user's personas: at most one for every character and one per character, all in the
/// user's one partition, so a single read finds which applies where. Deleting the account
/// deletes them (`UserRepo::delete`).
#[async_trait]
pub trait PersonaRepo: Send + Sync {
    /// Every persona of the user: the one for every character first, then by character id.
    async fn personas(&self, user_id: &UserId) -> StoreResult<Vec<StoredPersona>>;
    /// Creates or replaces the persona for `character` (`None`: every character).
    async fn put_persona(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        persona: UserPersona,
    ) -> StoreResult<()>;
    /// Removes the persona for `character` (`None`: every character); false when there was none.
    async fn delete_persona(&self, user_id: &UserId, character: Option<&CharacterId>) -> StoreResult<bool>;
}

/// How both stores write "every character" where a character id goes (no id is empty).
pub(crate) fn persona_key(character: Option<&CharacterId>) -> String {
    character.map(|id| id.as_str().to_owned()).unwrap_or_default()
}

/// The character a stored persona key names (`""`: every character).
pub(crate) fn persona_character(key: &str) -> StoreResult<Option<CharacterId>> {
    if key.is_empty() {
        return Ok(None);
    }
    CharacterId::parse(key).map(Some).map_err(|e| StoreError::Corrupt(format!("persona of {key:?}: {e}")))
}

/// Free message credits: how many messages a user sent on a UTC day.
#[async_trait]
pub trait MessageCreditRepo: Send + Sync {
    /// Takes one of `limit` credits of `day` (days since the epoch): the number used
    /// afterwards, or `None` when all were used already. Atomic across nodes.
    async fn take(&self, user_id: &UserId, day: i64, limit: u32) -> StoreResult<Option<u32>>;
    /// Gives a credit back (the message was refused or its reply failed).
    async fn give_back(&self, user_id: &UserId, day: i64) -> StoreResult<()>;
    async fn used(&self, user_id: &UserId, day: i64) -> StoreResult<u32>;
}
