//! Chat with characters: the engine that writes replies (prompt, model, moderation,
//! storage, events) and the settings it runs with. The `CharacterActor` decides *when* a
//! reply may be written (one in flight per user–character pair); the engine writes it.

pub mod engine;
pub mod fair;
pub mod memory;
pub mod metrics;

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use amora_domain::chat::{EntryId, Speaker};
use amora_store::StoredMessage;
use serde::{Deserialize, Serialize};

pub use engine::{ChatEngine, ChatError, Chatter};

/// How chat behaves on this node (config section `[chat]`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChatSettings {
    /// Messages a free user may send a day (UTC); paid users are unlimited.
    pub free_messages_per_day: u32,
    /// Most tokens of one reply.
    pub max_reply_tokens: u32,
    /// Most prompt tokens: persona, memories and as much recent history as fits.
    pub history_budget_tokens: usize,
    /// Memories are extracted after every this many user messages (0: never automatically).
    pub memory_every_turns: u32,
    /// Most memories put into one prompt.
    pub memories_in_prompt: usize,
    /// Load the model at start-up rather than at the first message.
    pub preload: bool,
    /// Replies one user may have written or waiting at once on a node, across characters
    /// (`fair`); past it that user is told to wait (10003), not everyone else.
    pub replies_per_user: usize,
    /// Replies written at once through the fair queue; by default the embedded model's
    /// `concurrent_replies`, or 16 for a remote service.
    pub replies_at_once: Option<usize>,
    /// Replies waiting in the fair queue, all users together; by default the embedded
    /// model's `queue_size`, or 64 for a remote service.
    pub replies_waiting: Option<usize>,
    /// The chat model (`ai::chat::ModelSettings`).
    pub model: amora_ai::chat::ModelSettings,
}

impl ChatSettings {
    /// The fair queue in front of the model: as many slots as the model writes at once and
    /// as many waiting as it queues (embedded); for a remote service, which queues on its
    /// side, a generous fixed share of this node.
    pub fn fair_limits(&self) -> fair::FairLimits {
        let (slots, waiting) = match self.model.kind {
            amora_ai::chat::ModelKind::Embedded => {
                (self.model.embedded.concurrent_replies, self.model.embedded.queue_size)
            }
            amora_ai::chat::ModelKind::Openai => (REMOTE_REPLIES_AT_ONCE, REMOTE_REPLIES_WAITING),
        };
        fair::FairLimits {
            slots: self.replies_at_once.unwrap_or(slots),
            waiting: self.replies_waiting.unwrap_or(waiting),
            per_user: self.replies_per_user,
        }
    }
}

/// Replies sent to a remote model service at once from one node, and waiting for it.
const REMOTE_REPLIES_AT_ONCE: usize = 16;
const REMOTE_REPLIES_WAITING: usize = 64;

impl Default for ChatSettings {
    fn default() -> Self {
        Self {
            free_messages_per_day: 30,
            max_reply_tokens: 160,
            history_budget_tokens: 1024,
            memory_every_turns: 6,
            memories_in_prompt: 8,
            preload: true,
            replies_per_user: 2,
            replies_at_once: None,
            replies_waiting: None,
            model: amora_ai::chat::ModelSettings::default(),
        }
    }
}

/// A message as clients see it (docs/api.md `ChatMessage`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    pub message_id: EntryId,
    pub speaker: Speaker,
    pub content: String,
    /// Milliseconds since the epoch.
    pub created_at: i64,
}

impl From<&StoredMessage> for MessageView {
    fn from(message: &StoredMessage) -> Self {
        Self {
            message_id: message.message_id,
            speaker: message.speaker,
            content: message.content.clone(),
            created_at: message.message_id.unix_millis(),
        }
    }
}

/// A fresh, time-ordered id, strictly above every id this process made before (so a
/// greeting written just before a message sorts first); the random part keeps two nodes apart.
pub fn new_entry_id() -> EntryId {
    static LAST: AtomicI64 = AtomicI64::new(0);
    let micros = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64);
    let fresh = EntryId::new(micros, rand::random::<u16>() % 1000).raw();
    let previous = LAST.fetch_max(fresh, Ordering::Relaxed);
    if fresh > previous {
        EntryId::from_raw(fresh)
    } else {
        EntryId::from_raw(LAST.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

/// Today's number (days since the epoch, UTC): free message credits renew with it.
pub fn utc_day() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64) / 86_400
}
