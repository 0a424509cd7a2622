//! The chat engine: everything between "a user sent a message" and "the reply is stored":
//! moderation, premium characters, free message credits, the greeting, the prompt, the
//! model, the streamed events (docs/api.md "Chat events") and memory extraction. The
//! `CharacterActor` calls it and makes sure at most one reply per user–character pair is
//! in flight on this node; the engine itself holds no per-conversation state.

use std::sync::Arc;
use std::time::Instant;

use amora_ai::AiError;
use amora_ai::chat::{CancellationToken, ChatMessage, ChatModel, ChatRequest, FinishReason, Role, StreamEvent};
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId, UsedType};
use amora_domain::chat::{
    EntryId, HistoryMessage, MessageText, Persona, PromptMessage, PromptParts, PromptRole, Speaker, build_prompt,
    fill_placeholders, relevant_memories,
};
use amora_domain::code::ApiCode;
use amora_domain::moderation::{self, Refusal};
use amora_domain::viewer::Viewer;
use amora_store::{Memory, MemoryOrigin, Store, StoreError, StoredMessage};
use futures_util::StreamExt;
use serde_json::json;

use super::fair::{FairQueue, Refused};
use super::memory::{extraction_prompt, parse_facts};
use super::metrics::{ChatMetrics, Outcome, Phase};
use super::{ChatSettings, MessageView, new_entry_id, utc_day};
use crate::bus::EventBus;
use crate::events::Frame;

/// Messages of history read for one prompt; the token budget usually keeps fewer.
const HISTORY_WINDOW: u32 = 60;
/// Messages a memory extraction reads.
const EXTRACTION_WINDOW: u32 = 12;
const EXTRACTION_MAX_TOKENS: u32 = 120;

/// Who is chatting, as the server knows them from the session.
#[derive(Debug, Clone)]
pub struct Chatter {
    pub user_id: UserId,
    pub user_name: String,
    /// The adult-content preference.
    pub nsfw: bool,
    /// A paid plan: unlimited messages and premium characters.
    pub paid: bool,
    pub viewer: Viewer,
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
    #[error("{0}")]
    Invalid(String),
    #[error("the chat model is busy, please try again in a moment")]
    ModelBusy,
    /// This user has `chat.replies_per_user` replies written or waiting already.
    #[error("your other replies are still being written, please wait for them")]
    TooManyReplies,
    #[error("model: {0}")]
    Model(String),
    #[error("store: {0}")]
    Store(String),
}

impl ChatError {
    /// The code of API.md §1.3 this error answers with.
    pub fn code(&self) -> ApiCode {
        match self {
            ChatError::Refused(_) => ApiCode::InputContentIllegal,
            ChatError::Busy | ChatError::ModelBusy | ChatError::TooManyReplies => ApiCode::RateLimited,
            ChatError::OutOfCredits | ChatError::PremiumCharacter => ApiCode::NeedPay,
            ChatError::NoCharacter | ChatError::NoMessage => ApiCode::NotFound,
            ChatError::Invalid(_) => ApiCode::ParamError,
            ChatError::Model(_) | ChatError::Store(_) => ApiCode::ServerError,
        }
    }

    /// The text clients may show; internal causes stay in the log.
    pub fn public_message(&self) -> String {
        match self {
            ChatError::Model(_) | ChatError::Store(_) => self.code().default_message().to_owned(),
            other => other.to_string(),
        }
    }
}

impl From<StoreError> for ChatError {
    fn from(error: StoreError) -> Self {
        ChatError::Store(error.to_string())
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

/// How a reply ended, for the `CharacterActor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyEnd {
    Stored,
    /// Stopped before any text came; nothing stored.
    CancelledEmpty,
    Failed,
}

pub struct ChatEngine {
    store: Store,
    bus: EventBus,
    settings: ChatSettings,
    model: tokio::sync::OnceCell<Arc<dyn ChatModel>>,
    metrics: ChatMetrics,
    /// Shares the model fairly between users (`fair`).
    fair: FairQueue,
}

impl ChatEngine {
    pub fn new(store: Store, bus: EventBus, settings: ChatSettings) -> Self {
        let fair = FairQueue::new(settings.fair_limits());
        Self { store, bus, settings, model: tokio::sync::OnceCell::new(), metrics: ChatMetrics::new(), fair }
    }

    /// A ready model, e.g. one shared by several nodes of a test (the settings' model is not loaded then).
    pub fn with_model(store: Store, bus: EventBus, settings: ChatSettings, model: Arc<dyn ChatModel>) -> Self {
        let fair = FairQueue::new(settings.fair_limits());
        let model = tokio::sync::OnceCell::new_with(Some(model));
        Self { store, bus, settings, model, metrics: ChatMetrics::new(), fair }
    }

    pub fn settings(&self) -> &ChatSettings {
        &self.settings
    }

    /// The per-phase timings of replies, for the server's `/metrics`.
    pub fn metrics(&self) -> &ChatMetrics {
        &self.metrics
    }

    /// The chat model, loaded on first use (reading and converting the embedded model takes
    /// a second or two, so chat-less processes never pay for it).
    pub async fn model(&self) -> Result<Arc<dyn ChatModel>, ChatError> {
        let model = self
            .model
            .get_or_try_init(|| async {
                let started = Instant::now();
                let model = amora_ai::chat::build_async(&self.settings.model).await?;
                tracing::info!(model = ?model.info(), took_ms = started.elapsed().as_millis() as u64, "chat model loaded");
                Ok::<_, AiError>(model)
            })
            .await
            .map_err(|error| {
                tracing::error!(%error, "the chat model could not be loaded");
                ChatError::Model(error.to_string())
            })?;
        Ok(model.clone())
    }

    /// A character the chatter may talk with: one the operator hid is gone for everyone.
    pub async fn character(&self, id: &CharacterId, viewer: Viewer) -> Result<Character, ChatError> {
        let character = self.store.characters.get(id).await?.filter(|c| viewer.may_see(c.exposure));
        let hidden = character.is_some() && self.store.characters.is_hidden(id).await?;
        character.filter(|_| !hidden).ok_or(ChatError::NoCharacter)
    }

    /// A page of the conversation, newest first. Opening a new conversation writes the
    /// character's greeting as its first message.
    pub async fn history(
        &self,
        chatter: &Chatter,
        character: &Character,
        before: Option<EntryId>,
        limit: u32,
    ) -> Result<Vec<StoredMessage>, ChatError> {
        let id = &character.card.character_id;
        let page = self.store.conversations.messages(&chatter.user_id, id, before, limit).await?;
        if page.is_empty() && before.is_none() {
            let greeting = self.write_greeting(chatter, character).await?;
            // The user's other tabs learn of the new conversation as they would of a message.
            self.publish_message(chatter, id, &greeting).await;
            return Ok(vec![greeting]);
        }
        Ok(page)
    }

    async fn write_greeting(&self, chatter: &Chatter, character: &Character) -> Result<StoredMessage, ChatError> {
        let greeting = StoredMessage {
            message_id: new_entry_id(),
            speaker: Speaker::Character,
            content: fill_placeholders(&character.greeting, &chatter.user_name, &character.card.character_name),
        };
        self.store.conversations.append(&chatter.user_id, &character.card.character_id, greeting.clone()).await?;
        Ok(greeting)
    }

    /// Checks a message and stores it before any reply is written: moderation, premium
    /// characters, a free credit; a new conversation gets its greeting first. Every socket
    /// of the user hears `chatMessage`.
    pub async fn accept(
        &self,
        chatter: &Chatter,
        character: &Character,
        text: MessageText,
    ) -> Result<StoredMessage, ChatError> {
        let started = Instant::now();
        if let Some(refusal) = moderation::check(text.as_str()) {
            return Err(ChatError::Refused(refusal));
        }
        self.take_credit(chatter, character).await?;
        let stored = async {
            let id = &character.card.character_id;
            if self.store.conversations.messages(&chatter.user_id, id, None, 1).await?.is_empty() {
                let greeting = self.write_greeting(chatter, character).await?;
                self.publish_message(chatter, id, &greeting).await;
            }
            let message =
                StoredMessage { message_id: new_entry_id(), speaker: Speaker::User, content: text.into_string() };
            self.store.conversations.append(&chatter.user_id, id, message.clone()).await?;
            Ok::<_, ChatError>(message)
        }
        .await;
        match stored {
            Ok(message) => {
                self.publish_message(chatter, &character.card.character_id, &message).await;
                self.metrics.observe(Phase::Accept, started.elapsed());
                Ok(message)
            }
            Err(error) => {
                self.give_back_credit(chatter).await;
                Err(error)
            }
        }
    }

    /// Before a reply is written again: removes the newest reply when the character wrote
    /// it after a message of the user's, and takes a credit like a new message.
    pub async fn prepare_regenerate(&self, chatter: &Chatter, character: &Character) -> Result<(), ChatError> {
        let id = &character.card.character_id;
        let newest = self.store.conversations.messages(&chatter.user_id, id, None, 2).await?;
        let to_delete = match newest.as_slice() {
            [reply, asked, ..] if reply.speaker == Speaker::Character && asked.speaker == Speaker::User => {
                Some(reply.message_id)
            }
            [asked, ..] if asked.speaker == Speaker::User => None,
            _ => return Err(ChatError::Invalid("there is no reply to write again: send a message first".into())),
        };
        self.take_credit(chatter, character).await?;
        if let Some(reply_id) = to_delete {
            self.store.conversations.delete_messages(&chatter.user_id, id, &[reply_id]).await?;
            let frame = Frame::new("chatMessageDeleted", json!({ "characterId": id, "messageIds": [reply_id] }));
            self.bus.publish(&chatter.user_id, frame).await;
        }
        Ok(())
    }

    async fn take_credit(&self, chatter: &Chatter, character: &Character) -> Result<(), ChatError> {
        if chatter.paid {
            return Ok(());
        }
        if character.card.used_type == UsedType::Premium {
            return Err(ChatError::PremiumCharacter);
        }
        let limit = self.settings.free_messages_per_day;
        match self.store.message_credits.take(&chatter.user_id, utc_day(), limit).await? {
            Some(_) => Ok(()),
            None => Err(ChatError::OutOfCredits),
        }
    }

    async fn give_back_credit(&self, chatter: &Chatter) {
        if chatter.paid {
            return;
        }
        if let Err(error) = self.store.message_credits.give_back(&chatter.user_id, utc_day()).await {
            tracing::error!(%error, user = %chatter.user_id, "a message credit could not be given back");
        }
    }

    /// How many free messages are left today; `None` for paid users (unlimited).
    pub async fn credits_left(&self, chatter: &Chatter) -> Result<Option<u32>, ChatError> {
        if chatter.paid {
            return Ok(None);
        }
        let used = self.store.message_credits.used(&chatter.user_id, utc_day()).await?;
        Ok(Some(self.settings.free_messages_per_day.saturating_sub(used)))
    }

    /// Writes the reply to the conversation so far, streaming `chatDelta` events, then
    /// stores it. Answers how it ended and the closing event (`chatDone`, or `chatError`
    /// after giving the credit back), which the caller publishes once the pair's reply
    /// slot is free, so a client answering the closing event is never told "busy".
    pub async fn reply(
        &self,
        chatter: &Chatter,
        character: &Character,
        reply_id: EntryId,
        cancel: CancellationToken,
    ) -> (ReplyEnd, Frame) {
        let character_id = &character.card.character_id;
        match self.write_reply(chatter, character, reply_id, cancel).await {
            Ok(Some(message)) => {
                self.metrics.reply_ended(Outcome::Stored);
                let frame = Frame::new(
                    "chatDone",
                    json!({ "characterId": character_id, "replyId": reply_id, "message": MessageView::from(&message.0), "finishReason": message.1 }),
                );
                (ReplyEnd::Stored, frame)
            }
            Ok(None) => {
                self.metrics.reply_ended(Outcome::Stopped);
                let frame = Frame::new(
                    "chatDone",
                    json!({ "characterId": character_id, "replyId": reply_id, "message": null, "finishReason": FinishReason::Cancelled }),
                );
                (ReplyEnd::CancelledEmpty, frame)
            }
            Err(error) => {
                let outcome = if matches!(error, ChatError::Refused(_)) { Outcome::Refused } else { Outcome::Failed };
                self.metrics.reply_ended(outcome);
                if matches!(error, ChatError::Model(_) | ChatError::Store(_)) {
                    tracing::error!(%error, user = %chatter.user_id, character = %character_id, "a reply failed");
                }
                self.give_back_credit(chatter).await;
                (ReplyEnd::Failed, error_frame(character_id, Some(reply_id), &error))
            }
        }
    }

    /// The stored reply and why it ended, or `None` when it was stopped before any text.
    async fn write_reply(
        &self,
        chatter: &Chatter,
        character: &Character,
        reply_id: EntryId,
        cancel: CancellationToken,
    ) -> Result<Option<(StoredMessage, FinishReason)>, ChatError> {
        let character_id = &character.card.character_id;
        let started = Instant::now();
        let model = self.model().await?;
        let prompt = self.prompt(chatter, character, model.as_ref()).await?;
        let request = ChatRequest::new(prompt.into_iter().map(to_model_message).collect())
            .max_tokens(self.settings.max_reply_tokens)
            // The model must not write the user's next line for them.
            .stop([format!("\n{}:", chatter.user_name), format!("{}:", chatter.user_name)])
            .cancel(cancel.clone());
        // Held until the reply is written: the model's turn, shared fairly between users.
        let _slot = tokio::select! {
            slot = self.fair.acquire(&chatter.user_id) => slot.map_err(|refused| match refused {
                Refused::UserBusy => ChatError::TooManyReplies,
                Refused::QueueFull => ChatError::ModelBusy,
            })?,
            () = cancel.cancelled() => return Ok(None),
        };
        let model_started = Instant::now();
        self.metrics.observe(Phase::Prepare, model_started - started);
        let mut stream = model.stream(request).await?;
        let mut text = String::new();
        let mut finish = FinishReason::Stop;
        while let Some(event) = stream.next().await {
            match event? {
                StreamEvent::Delta(delta) => {
                    if text.is_empty() {
                        self.metrics.observe(Phase::FirstToken, model_started.elapsed());
                    }
                    text.push_str(&delta);
                    if let Some(refusal) = moderation::check(&text) {
                        cancel.cancel();
                        return Err(ChatError::Refused(refusal));
                    }
                    let frame = Frame::new(
                        "chatDelta",
                        json!({ "characterId": character_id, "replyId": reply_id, "delta": delta }),
                    );
                    self.bus.publish(&chatter.user_id, frame).await;
                }
                StreamEvent::Done(done) => finish = done.reason,
            }
        }
        let model_ended = Instant::now();
        self.metrics.observe(Phase::Generate, model_ended - model_started);
        let content = text.trim().to_owned();
        if content.is_empty() {
            if finish == FinishReason::Cancelled {
                return Ok(None);
            }
            return Err(ChatError::Model("the model wrote an empty reply".into()));
        }
        let message = StoredMessage { message_id: reply_id, speaker: Speaker::Character, content };
        self.store.conversations.append(&chatter.user_id, character_id, message.clone()).await?;
        self.metrics.observe(Phase::StoreReply, model_ended.elapsed());
        Ok(Some((message, finish)))
    }

    /// Persona, rules, relevant memories and the newest history that fits the budget.
    async fn prompt(
        &self,
        chatter: &Chatter,
        character: &Character,
        model: &dyn ChatModel,
    ) -> Result<Vec<PromptMessage>, ChatError> {
        let id = &character.card.character_id;
        let mut newest = self.store.conversations.messages(&chatter.user_id, id, None, HISTORY_WINDOW).await?;
        let history_is_whole = newest.len() < HISTORY_WINDOW as usize;
        newest.reverse();
        let history: Vec<HistoryMessage> = newest.into_iter().map(history_message).collect();
        let latest = history.iter().rev().find(|m| m.speaker == Speaker::User).map_or("", |m| m.content.as_str());
        let known: Vec<String> =
            self.store.memories.list(&chatter.user_id, id).await?.into_iter().map(|m| m.content).collect();
        let memories = relevant_memories(&known, latest, self.settings.memories_in_prompt);
        let parts = PromptParts {
            persona: Persona {
                name: &character.card.character_name,
                age: character.card.character_age.years(),
                personality: &character.personality,
                scenario: &character.scenario,
            },
            user_name: &chatter.user_name,
            nsfw: chatter.nsfw,
            memories: &memories,
            history: &history,
            history_is_whole,
            budget_tokens: self.settings.history_budget_tokens,
        };
        Ok(build_prompt(&parts, |text| model.count_tokens(text)))
    }

    /// Asks the model for facts about the user in the recent conversation and keeps the
    /// new ones. Sends `memorySaving`, then `memorySaved` with every memory of the pair.
    pub async fn extract_memories(&self, chatter: &Chatter, character: &Character) -> Result<Vec<Memory>, ChatError> {
        let id = &character.card.character_id;
        self.bus.publish(&chatter.user_id, Frame::new("memorySaving", json!({ "characterId": id }))).await;
        let result = self.extract(chatter, character).await;
        let memories = self.store.memories.list(&chatter.user_id, id).await;
        let views: Vec<_> = memories.as_ref().map(|list| list.iter().map(memory_view).collect()).unwrap_or_default();
        let added = result.as_ref().map_or(0, |added| *added);
        let frame = Frame::new("memorySaved", json!({ "characterId": id, "added": added, "memories": views }));
        self.bus.publish(&chatter.user_id, frame).await;
        result?;
        Ok(memories?)
    }

    /// The number of memories added.
    async fn extract(&self, chatter: &Chatter, character: &Character) -> Result<usize, ChatError> {
        let id = &character.card.character_id;
        let mut recent = self.store.conversations.messages(&chatter.user_id, id, None, EXTRACTION_WINDOW).await?;
        recent.reverse();
        if !recent.iter().any(|m| m.speaker == Speaker::User) {
            return Ok(0);
        }
        let history: Vec<HistoryMessage> = recent.into_iter().map(history_message).collect();
        let prompt = extraction_prompt(&chatter.user_name, &character.card.character_name, &history);
        let model = self.model().await?;
        // Greedy: notes should not depend on the dice.
        let request = ChatRequest::new(prompt.into_iter().map(to_model_message).collect())
            .max_tokens(EXTRACTION_MAX_TOKENS)
            .temperature(0.0);
        let answer = model.stream(request).await?.collect_reply().await?;
        let known: Vec<String> =
            self.store.memories.list(&chatter.user_id, id).await?.into_iter().map(|m| m.content).collect();
        let mut added = 0;
        for fact in parse_facts(&answer.text, &known) {
            if moderation::check(&fact).is_some() {
                continue;
            }
            let memory = Memory { memory_id: new_entry_id(), content: fact, origin: MemoryOrigin::Extracted };
            self.store.memories.add(&chatter.user_id, id, memory).await?;
            added += 1;
        }
        Ok(added)
    }

    /// Sends one event to every socket of the user.
    pub async fn publish(&self, user_id: &UserId, frame: Frame) {
        self.bus.publish(user_id, frame).await;
    }

    async fn publish_message(&self, chatter: &Chatter, character_id: &CharacterId, message: &StoredMessage) {
        let frame =
            Frame::new("chatMessage", json!({ "characterId": character_id, "message": MessageView::from(message) }));
        self.bus.publish(&chatter.user_id, frame).await;
    }
}

/// The `chatError` event for a failure of the pair's reply (or of the request before it).
pub fn error_frame(character_id: &CharacterId, reply_id: Option<EntryId>, error: &ChatError) -> Frame {
    Frame::new(
        "chatError",
        json!({ "characterId": character_id, "replyId": reply_id, "code": error.code().value(), "msg": error.public_message() }),
    )
}

/// A memory as clients see it (docs/api.md `Memory`).
pub fn memory_view(memory: &Memory) -> serde_json::Value {
    json!({
        "memoryId": memory.memory_id,
        "content": memory.content,
        "origin": match memory.origin { MemoryOrigin::Extracted => "extracted", MemoryOrigin::User => "user" },
        "createdAt": memory.memory_id.unix_millis(),
    })
}

fn history_message(message: StoredMessage) -> HistoryMessage {
    HistoryMessage { id: message.message_id, speaker: message.speaker, content: message.content }
}

fn to_model_message(message: PromptMessage) -> ChatMessage {
    let role = match message.role {
        PromptRole::System => Role::System,
        PromptRole::User => Role::User,
        PromptRole::Assistant => Role::Assistant,
    };
    ChatMessage::new(role, message.content)
}
