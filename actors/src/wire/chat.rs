//! Chat as clients see it (docs/api.md "Chat"): messages, the versions of a reply,
//! memories and what recall put into a reply's prompt, made from the store's records.

use amora_domain::chat::{EntryId, Speaker};
use amora_store::{Memory, MemoryOrigin, StoredMessage};
use serde::Serialize;
use ts_rs::TS;

use super::images::MessageImageView;

/// A message as clients see it (docs/api.md `ChatMessage`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "ChatMessage")]
pub struct MessageView {
    #[ts(as = "String")]
    pub message_id: EntryId,
    #[ts(as = "SpeakerName")]
    pub speaker: Speaker,
    pub content: String,
    /// Milliseconds since the epoch.
    #[ts(type = "number")]
    pub created_at: i64,
    /// The picture the message shows (asked for with `chat/requestPicture`); always sent
    /// (`null` for text), optional in TypeScript so that text-only literals stay valid.
    #[ts(optional = nullable)]
    pub image: Option<MessageImageView>,
    /// On the newest reply, when it was written more than once: which of its versions it
    /// shows (`chatSwipe` switches); `null` on every other message. Optional in TypeScript,
    /// as `image` is.
    #[ts(optional = nullable)]
    pub swipes: Option<SwipeView>,
}

/// Where a reply stands among its versions: `index` (from 0) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "ReplySwipes")]
pub struct SwipeView {
    pub index: u32,
    pub count: u32,
}

impl SwipeView {
    pub fn of(alternatives: &amora_store::ReplyAlternatives) -> Self {
        Self { index: alternatives.chosen, count: alternatives.texts.len() as u32 }
    }
}

/// Who wrote a message, as the wire writes it (`Speaker` of the domain).
#[derive(TS)]
#[allow(dead_code)]
#[ts(rename = "Speaker")]
pub enum SpeakerName {
    #[ts(rename = "user")]
    User,
    #[ts(rename = "character")]
    Character,
}

impl From<&StoredMessage> for MessageView {
    fn from(message: &StoredMessage) -> Self {
        Self {
            message_id: message.message_id,
            speaker: message.speaker,
            content: message.content.clone(),
            created_at: message.message_id.unix_millis(),
            image: message.image.as_ref().map(MessageImageView::from),
            swipes: None,
        }
    }
}

/// A memory as clients see it (docs/api.md `Memory`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Memory")]
pub struct MemoryView {
    #[ts(as = "String")]
    pub memory_id: EntryId,
    pub content: String,
    #[ts(as = "MemoryOriginName")]
    pub origin: MemoryOrigin,
    /// Milliseconds since the epoch.
    #[ts(type = "number")]
    pub created_at: i64,
    /// Pinned by the user: in every prompt of the pair.
    pub pinned: bool,
}

/// How a memory came to be, as the wire writes it.
#[derive(TS)]
#[allow(dead_code)]
#[ts(rename = "MemoryOrigin")]
pub enum MemoryOriginName {
    #[ts(rename = "extracted")]
    Extracted,
    #[ts(rename = "user")]
    User,
}

impl From<&Memory> for MemoryView {
    fn from(memory: &Memory) -> Self {
        Self {
            memory_id: memory.memory_id,
            content: memory.content.clone(),
            origin: memory.origin,
            created_at: memory.memory_id.unix_millis(),
            pinned: memory.pinned,
        }
    }
}

/// What a reply was written with from beyond the recent messages (docs/api.md "Recall"):
/// the memories and the user's earlier messages recall put into its prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, Default)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Recalled")]
pub struct RecalledView {
    pub memories: Vec<RecalledItem>,
    pub messages: Vec<RecalledItem>,
}

impl RecalledView {
    pub fn is_empty(&self) -> bool {
        self.memories.is_empty() && self.messages.is_empty()
    }
}

/// A memory (`id` is its `memoryId`) or an earlier message (its `messageId`) that a reply
/// used, with its text as the prompt held it, cut to `RECALLED_TEXT_CHARS` characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RecalledItem {
    #[ts(as = "String")]
    pub id: EntryId,
    pub content: String,
}

/// Longest text of a [`RecalledItem`], in characters: enough to tell what it was.
pub const RECALLED_TEXT_CHARS: usize = 200;
