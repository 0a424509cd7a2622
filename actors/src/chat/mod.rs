//! Chat with characters: the rules of a conversation live in the `CharacterActor` (one
//! reply in flight per pair, the recent window and memories it holds) and the
//! `Conversations` service in front of it; the `ChatEngine` writes replies and extracts
//! memories with the model. Here: what they share — settings, errors and the shapes
//! clients see.

pub mod answer;
pub mod engine;
pub mod fair;
pub mod language;
pub mod lore;
pub mod memory;
pub mod metrics;
pub mod recall;

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use amora_ai::AiError;
use amora_ai::chat::FinishReason;
use amora_domain::account::UserId;
use amora_domain::chat::{EntryId, MemoryId, MessageId};
use amora_domain::code::ApiCode;
use amora_domain::moderation::Refusal;
use amora_domain::text::truncate_chars;
use amora_domain::viewer::Viewer;
use amora_store::StoreError;
use serde::Deserialize;

use crate::wire::chat::{RECALLED_TEXT_CHARS, RecalledItem, RecalledView};
use crate::wire::events::ReplyEnd;

pub use engine::ChatEngine;

/// Who is chatting, as their actor knows them.
#[derive(Debug, Clone)]
pub struct Chatter {
    pub user_id: UserId,
    /// The name characters know the user by: the persona's for this character when the
    /// user set one (`Conversations::chatter`), else the account's.
    pub user_name: String,
    /// What the user wrote about themselves in that persona (empty: nothing).
    pub persona: String,
    /// The interface language (`account::LANGUAGES`): the request's `language` header
    /// when the call has one, else the account's setting. A new conversation's greeting is
    /// written in it, and replies are in it when the user's messages do not tell their own.
    pub language: String,
    /// The adult-content preference.
    pub nsfw: bool,
    /// A paid plan: unlimited messages and premium characters.
    pub paid: bool,
    pub viewer: Viewer,
}

impl Chatter {
    /// Whether this chatter may open the character: a created one that is not public only
    /// when it is theirs (`Viewer::may_open`).
    pub fn may_open(&self, character: &amora_domain::character::Character) -> bool {
        self.viewer.may_open(character, Some(&self.user_id))
    }
}

/// Why a chat action was refused or failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ChatError {
    #[error("{}", .0.message())]
    Refused(Refusal),
    #[error("a reply is already being written in this conversation")]
    Busy,
    #[error("no free messages are left today: upgrade to chat without limits")]
    OutOfCredits,
    #[error("this character is for members: upgrade to chat with them")]
    PremiumCharacter,
    #[error("no such character")]
    NoCharacter,
    #[error("no such message")]
    NoMessage,
    #[error("no such memory")]
    NoMemory,
    #[error("no conversation with this character")]
    NoConversation,
    /// No such group chat of the user's (issue 31).
    #[error("no such group")]
    NoGroup,
    /// No persona is set for this character (or for every character).
    #[error("no such persona")]
    NoPersona,
    /// The session's account is gone (deleted meanwhile).
    #[error("please sign in")]
    NoAccount,
    #[error("{0}")]
    Invalid(String),
    #[error("the chat model is busy, please try again in a moment")]
    ModelBusy,
    /// This user has `chat.replies_per_user` replies written or waiting already.
    #[error("your other replies are still being written, please wait for them")]
    TooManyReplies,
    #[error("model: {0}")]
    Model(String),
    /// The model wrote nothing usable in every try (empty, or only a name): a fault for a
    /// reply the user asked for; a group member nobody asked may stay silent instead.
    #[error("model: the model wrote no usable reply in {0} tries")]
    NothingWritten(u32),
    #[error("store: {0}")]
    Store(String),
    /// The store is briefly away (`StoreError::Unavailable`), or an actor could not be
    /// reached in time (it waits on the store, or the node is shutting down): the client
    /// may try again, as the envelope's answer says (docs/api.md "Try again").
    #[error("unavailable: {0}")]
    Unavailable(String),
}

impl ChatError {
    /// The code of API.md §1.3 this error answers with.
    pub fn code(&self) -> ApiCode {
        match self {
            ChatError::Refused(_) => ApiCode::InputContentIllegal,
            ChatError::Busy | ChatError::ModelBusy | ChatError::TooManyReplies => ApiCode::RateLimited,
            ChatError::OutOfCredits | ChatError::PremiumCharacter => ApiCode::NeedPay,
            ChatError::NoCharacter
            | ChatError::NoMessage
            | ChatError::NoMemory
            | ChatError::NoConversation
            | ChatError::NoGroup
            | ChatError::NoPersona => ApiCode::NotFound,
            ChatError::NoAccount => ApiCode::TokenInvalid,
            ChatError::Invalid(_) => ApiCode::ParamError,
            ChatError::Model(_) | ChatError::NothingWritten(_) | ChatError::Store(_) | ChatError::Unavailable(_) => {
                ApiCode::ServerError
            }
        }
    }

    /// The text clients may show; internal causes stay in the log.
    pub fn public_message(&self) -> String {
        match self.code() {
            ApiCode::ServerError if self.is_temporary() => crate::TRY_AGAIN.to_owned(),
            ApiCode::ServerError => ApiCode::ServerError.default_message().to_owned(),
            _ => self.to_string(),
        }
    }

    /// Whether trying again later may succeed (docs/api.md "Try again").
    pub fn is_temporary(&self) -> bool {
        matches!(self, ChatError::Unavailable(_))
    }

    /// A fault of ours rather than the user's: logged at ERROR.
    pub fn is_fault(&self) -> bool {
        self.code() == ApiCode::ServerError
    }
}

impl From<StoreError> for ChatError {
    fn from(error: StoreError) -> Self {
        // A store briefly away answers "try again", as the envelope API does, not the
        // generic server error.
        if error.is_temporary() {
            ChatError::Unavailable(error.to_string())
        } else {
            ChatError::Store(error.to_string())
        }
    }
}

impl From<AiError> for ChatError {
    fn from(error: AiError) -> Self {
        match error {
            AiError::QueueFull | AiError::Busy(_) => ChatError::ModelBusy,
            other => ChatError::Model(other.to_string()),
        }
    }
}

impl From<actix::MailboxError> for ChatError {
    fn from(error: actix::MailboxError) -> Self {
        ChatError::Unavailable(error.to_string())
    }
}

impl From<amora_domain::Invalid> for ChatError {
    fn from(error: amora_domain::Invalid) -> Self {
        ChatError::Invalid(error.to_string())
    }
}

impl From<crate::user::UserError> for ChatError {
    fn from(error: crate::user::UserError) -> Self {
        match error {
            crate::user::UserError::NoAccount => ChatError::NoAccount,
            other if other.is_temporary() => ChatError::Unavailable(other.to_string()),
            other => ChatError::Store(other.to_string()),
        }
    }
}

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
    /// Most memories put into one prompt's system message: the pinned ones (all of them),
    /// then the newest.
    pub memories_in_prompt: usize,
    /// Most prompt tokens of what recall brings back for a reply (memories and earlier
    /// messages of the user's that match the new message), after the history and apart
    /// from `history_budget_tokens`; 0 turns recall off.
    pub recall_budget_tokens: usize,
    /// Most prompt tokens a character card's lorebook entries take together (the book's own
    /// `token_budget`, when smaller, wins); 0 leaves lorebooks out.
    pub lorebook_budget_tokens: usize,
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
            recall_budget_tokens: 256,
            lorebook_budget_tokens: 400,
            preload: true,
            replies_per_user: 2,
            replies_at_once: None,
            replies_waiting: None,
            model: amora_ai::chat::ModelSettings::default(),
        }
    }
}

/// Whether a stored reply was cut (`chatDone.cut`): the token limit stopped it and it has
/// no sentence end to be trimmed back to (`domain::chat::end_reply`), so it stops
/// mid-sentence and the client may offer to continue it. A reply the limit stopped that
/// ends at a sentence (trimmed or not) is not cut; one the user stopped is theirs.
pub fn reply_was_cut(content: &str, finish: FinishReason) -> bool {
    finish == FinishReason::Length && !amora_domain::chat::ends_at_sentence(content)
}

impl From<FinishReason> for ReplyEnd {
    fn from(reason: FinishReason) -> Self {
        match reason {
            FinishReason::Stop => ReplyEnd::Stop,
            FinishReason::Length => ReplyEnd::Length,
            FinishReason::Cancelled => ReplyEnd::Cancelled,
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

pub use crate::user::utc_day;

/// What recall found for one reply: what its prompt holds after the history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// The terms of the user's message (a long recalled message is cut to its sentences holding one).
    pub terms: Vec<String>,
    /// Memories that match, most relevant first, with their text.
    pub memories: Vec<(MemoryId, String)>,
    /// The user's earlier messages that match and that the history does not hold, most
    /// relevant first, with their text (a long one cut to its matching sentences).
    pub messages: Vec<(MessageId, String)>,
}

impl Found {
    /// What `chatDone` tells of it; `None` when nothing was recalled.
    pub fn view(&self) -> Option<RecalledView> {
        let item = |(id, content): &(EntryId, String)| RecalledItem {
            id: *id,
            content: truncate_chars(content, RECALLED_TEXT_CHARS).to_owned(),
        };
        let view = RecalledView {
            memories: self.memories.iter().map(item).collect(),
            messages: self.messages.iter().map(item).collect(),
        };
        (!view.is_empty()).then_some(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_briefly_away_answers_try_again_and_a_fault_the_generic_text() {
        let away = ChatError::from(StoreError::Unavailable("the query timed out".into()));
        assert_eq!((away.code(), away.public_message()), (ApiCode::ServerError, crate::TRY_AGAIN.to_owned()));
        assert!(away.is_temporary());
        let user_away = ChatError::from(crate::user::UserError::from(StoreError::Unavailable("timed out".into())));
        assert_eq!(user_away.public_message(), crate::TRY_AGAIN);

        let broken = ChatError::from(StoreError::Corrupt("a bad row".into()));
        assert!(!broken.is_temporary());
        assert_eq!(broken.public_message(), ApiCode::ServerError.default_message());
        assert_ne!(broken.public_message(), crate::TRY_AGAIN);
    }
}
