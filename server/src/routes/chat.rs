//! Conversations and memories over HTTP (docs/api.md "Chat"): the chat list, history
//! pages, deleting a conversation, editing and deleting the user's messages, and the
//! memories panel. Sending, stopping and regenerating go over the WebSocket, where the
//! reply streams.

use actix_web::web;
use amora_actors::chat::engine::memory_view;
use amora_actors::chat::memory::MAX_MEMORY_CHARS;
use amora_actors::chat::{ChatError, MessageView, new_entry_id};
use amora_domain::character::{Character, CharacterId};
use amora_domain::chat::{EntryId, MessageText, Speaker};
use amora_domain::moderation;
use amora_store::{Memory, MemoryOrigin};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::auth::session::SignedIn;
use crate::state::AppState;

/// Default and largest page of history.
const DEFAULT_PAGE: u32 = 30;
const MAX_PAGE: u32 = 100;
/// Most memories kept per conversation.
const MAX_MEMORIES: usize = 100;

async fn character(state: &AppState, signed_in: &SignedIn, raw_id: &str) -> Result<Character, ApiError> {
    let id = CharacterId::parse(raw_id)?;
    Ok(state.node.chat.character(&id, signed_in.viewer(state)).await?)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSummary {
    character_id: CharacterId,
    character_name: String,
    character_photo: String,
    last_message: MessageView,
}

/// `chat/getChatList {}` → `ChatSummary[]`, the most recently active first.
pub async fn get_chat_list(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<Vec<ChatSummary>> {
    let viewer = signed_in.viewer(&state);
    let mut summaries = Vec::new();
    for conversation in state.store.conversations.list(&signed_in.user.user_id).await? {
        // A character removed from the catalogue (or hidden now) drops out of the list.
        let Some(character) = state.store.characters.get(&conversation.character_id).await? else { continue };
        if !viewer.may_see(character.exposure) || state.store.characters.is_hidden(&conversation.character_id).await? {
            continue;
        }
        summaries.push(ChatSummary {
            character_id: conversation.character_id,
            character_name: character.card.character_name,
            character_photo: character.card.character_photo,
            last_message: MessageView::from(&conversation.last_message),
        });
    }
    Ok(ApiReply(summaries))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageListRequest {
    character_id: String,
    before_id: Option<String>,
    page_size: Option<i64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessagePage {
    /// Newest first.
    messages: Vec<MessageView>,
    /// A full page: older messages may follow (ask with `beforeId` = the last id).
    has_more: bool,
    /// Free messages left today; `null` for paid users (unlimited).
    credits_left: Option<u32>,
}

/// `chat/getMessageList {characterId, beforeId?, pageSize?}` → `MessagePage`. The first
/// page of a new conversation holds the character's greeting.
pub async fn get_message_list(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<MessageListRequest>,
) -> ApiResult<MessagePage> {
    let request = payload.into_inner();
    let character = character(&state, &signed_in, &request.character_id).await?;
    let before = request.before_id.as_deref().map(|raw| EntryId::parse(raw, "beforeId")).transpose()?;
    let page_size = match request.page_size {
        None => DEFAULT_PAGE,
        Some(n) if (1..=i64::from(MAX_PAGE)).contains(&n) => n as u32,
        Some(_) => return Err(ApiError::Param(format!("pageSize: must be from 1 to {MAX_PAGE}"))),
    };
    let chatter = signed_in.chatter(&state);
    let messages = state.node.chat.history(&chatter, &character, before, page_size).await?;
    let credits_left = state.node.chat.credits_left(&chatter).await?;
    Ok(ApiReply(MessagePage {
        has_more: messages.len() == page_size as usize,
        messages: messages.iter().map(MessageView::from).collect(),
        credits_left,
    }))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CharacterRequest {
    character_id: String,
}

/// `chat/deleteChat {characterId}` → `true`; the conversation and its memories are gone.
pub async fn delete_chat(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<CharacterRequest>,
) -> ApiResult<bool> {
    let id = CharacterId::parse(&payload.into_inner().character_id)?;
    let user = &signed_in.user.user_id;
    let existed = state.store.conversations.delete(user, &id).await?;
    for memory in state.store.memories.list(user, &id).await? {
        state.store.memories.delete(user, &id, memory.memory_id).await?;
    }
    if existed { Ok(ApiReply(true)) } else { Err(ApiError::NotFound(format!("no conversation with {id}"))) }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditMessageRequest {
    character_id: String,
    message_id: String,
    content: String,
}

/// The user's own message in the conversation, or `NotFound`/`Forbidden`.
async fn own_message(
    state: &AppState,
    signed_in: &SignedIn,
    id: &CharacterId,
    message_id: EntryId,
) -> Result<(), ApiError> {
    // One message: the page just after the id, newest first, starts with it.
    let after = EntryId::from_raw(message_id.raw().saturating_add(1));
    let found = state.store.conversations.messages(&signed_in.user.user_id, id, Some(after), 1).await?;
    match found.first() {
        Some(message) if message.message_id == message_id && message.speaker == Speaker::User => Ok(()),
        Some(message) if message.message_id == message_id => {
            Err(ApiError::Chat(ChatError::Invalid("only your own messages can be changed".into())))
        }
        _ => Err(ApiError::Chat(ChatError::NoMessage)),
    }
}

/// `chat/editMessage {characterId, messageId, content}` → `ChatMessage`: changes the text
/// of one of the user's messages (checked like a new message).
pub async fn edit_message(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<EditMessageRequest>,
) -> ApiResult<MessageView> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let message_id = EntryId::parse(&request.message_id, "messageId")?;
    let text = MessageText::parse(&request.content)?;
    if let Some(refusal) = moderation::check(text.as_str()) {
        return Err(ApiError::Chat(ChatError::Refused(refusal)));
    }
    own_message(&state, &signed_in, &id, message_id).await?;
    state.store.conversations.update_message(&signed_in.user.user_id, &id, message_id, text.as_str()).await?;
    Ok(ApiReply(MessageView {
        message_id,
        speaker: Speaker::User,
        content: text.into_string(),
        created_at: message_id.unix_millis(),
    }))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteMessageRequest {
    character_id: String,
    message_id: String,
}

/// `chat/deleteMessage {characterId, messageId}` → `true`: deletes one of the user's messages.
pub async fn delete_message(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<DeleteMessageRequest>,
) -> ApiResult<bool> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let message_id = EntryId::parse(&request.message_id, "messageId")?;
    own_message(&state, &signed_in, &id, message_id).await?;
    state.store.conversations.delete_messages(&signed_in.user.user_id, &id, &[message_id]).await?;
    Ok(ApiReply(true))
}

/// `memory/getMemoryList {characterId}` → `Memory[]`, newest first.
pub async fn get_memory_list(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<CharacterRequest>,
) -> ApiResult<Vec<Value>> {
    let id = CharacterId::parse(&payload.into_inner().character_id)?;
    let memories = state.store.memories.list(&signed_in.user.user_id, &id).await?;
    Ok(ApiReply(memories.iter().map(memory_view).collect()))
}

fn memory_text(raw: &str) -> Result<String, ApiError> {
    let text = raw.trim();
    let count = text.chars().count();
    if count == 0 || count > MAX_MEMORY_CHARS {
        return Err(ApiError::Param(format!("content: must be 1 to {MAX_MEMORY_CHARS} characters")));
    }
    // As for messages (MessageText): line breaks and tabs, no other control characters,
    // which would reach the prompt and the other tabs' screens as they are.
    if text.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')) {
        return Err(ApiError::Param("content: must not hold control characters".into()));
    }
    if let Some(refusal) = moderation::check(text) {
        return Err(ApiError::Chat(ChatError::Refused(refusal)));
    }
    Ok(text.to_owned())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddMemoryRequest {
    character_id: String,
    content: String,
}

/// `memory/addMemory {characterId, content}` → `Memory`: a fact the user writes down.
pub async fn add_memory(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<AddMemoryRequest>,
) -> ApiResult<Value> {
    let request = payload.into_inner();
    let character = character(&state, &signed_in, &request.character_id).await?;
    let content = memory_text(&request.content)?;
    let user = &signed_in.user.user_id;
    let id = &character.card.character_id;
    if state.store.memories.list(user, id).await?.len() >= MAX_MEMORIES {
        return Err(ApiError::Param(format!("a character keeps at most {MAX_MEMORIES} memories: delete one first")));
    }
    let memory = Memory { memory_id: new_entry_id(), content, origin: MemoryOrigin::User };
    state.store.memories.add(user, id, memory.clone()).await?;
    Ok(ApiReply(memory_view(&memory)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateMemoryRequest {
    character_id: String,
    memory_id: String,
    content: String,
}

/// `memory/updateMemory {characterId, memoryId, content}` → `true`.
pub async fn update_memory(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<UpdateMemoryRequest>,
) -> ApiResult<bool> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let memory_id = EntryId::parse(&request.memory_id, "memoryId")?;
    let content = memory_text(&request.content)?;
    if state.store.memories.update(&signed_in.user.user_id, &id, memory_id, &content).await? {
        Ok(ApiReply(true))
    } else {
        Err(ApiError::NotFound(format!("no memory {memory_id}")))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteMemoryRequest {
    character_id: String,
    memory_id: String,
}

/// `memory/deleteMemory {characterId, memoryId}` → `true`.
pub async fn delete_memory(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<DeleteMemoryRequest>,
) -> ApiResult<bool> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let memory_id = EntryId::parse(&request.memory_id, "memoryId")?;
    if state.store.memories.delete(&signed_in.user.user_id, &id, memory_id).await? {
        Ok(ApiReply(true))
    } else {
        Err(ApiError::NotFound(format!("no memory {memory_id}")))
    }
}
