//! Conversations over HTTP (docs/api.md "Chat"): the chat list, history pages, deleting a
//! conversation, editing and deleting the user's messages, choosing a greeting (the
//! memories panel is `memories.rs`). Sending, stopping and regenerating go over the WebSocket, where the
//! reply streams. Each handler parses its payload and hands it to the node's
//! `Conversations`, where the rules live.

use actix_web::{HttpRequest, web};
use amora_actors::conversations::{ChatSummary, MessagePage};
use amora_actors::wire::chat::MessageView;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MessageText};
use serde::Deserialize;
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::auth::session::SignedIn;
use crate::state::AppState;

/// Default and largest page of history.
const DEFAULT_PAGE: usize = 30;
const MAX_PAGE: usize = 100;

/// `chat/getChatList {}` → `ChatSummary[]`, the most recently active first.
pub async fn get_chat_list(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<Vec<ChatSummary>> {
    Ok(ApiReply(state.node.conversations.chat_list(&signed_in.user.user_id).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct MessageListRequest {
    character_id: String,
    before_id: Option<String>,
    #[ts(as = "Option<u32>")]
    page_size: Option<i64>,
}

/// `chat/getMessageList {characterId, beforeId?, pageSize?}` → `MessagePage`. The first
/// page of a new conversation holds the character's greeting.
pub async fn get_message_list(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<MessageListRequest>,
) -> ApiResult<MessagePage> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let before = request.before_id.as_deref().map(|raw| EntryId::parse(raw, "beforeId")).transpose()?;
    let page_size = match request.page_size {
        None => DEFAULT_PAGE,
        Some(n) if (1..=MAX_PAGE as i64).contains(&n) => n as usize,
        Some(_) => return Err(ApiError::Param(format!("pageSize: must be from 1 to {MAX_PAGE}"))),
    };
    // A new conversation's greeting is written in the language the page is read in.
    let language = crate::content::catalogue::request_language(&req);
    let history = state.node.conversations.history_in(&signed_in.user.user_id, &id, before, page_size, language);
    Ok(ApiReply(history.await?))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CharacterRequest {
    pub(super) character_id: String,
}

/// `chat/deleteChat {characterId}` → `true`; the conversation and its memories are gone.
pub async fn delete_chat(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<CharacterRequest>,
) -> ApiResult<bool> {
    let id = CharacterId::parse(&payload.into_inner().character_id)?;
    state.node.conversations.delete_conversation(&signed_in.user.user_id, &id).await?;
    Ok(ApiReply(true))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EditMessageRequest {
    character_id: String,
    message_id: String,
    content: String,
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
    Ok(ApiReply(state.node.conversations.edit_message(&signed_in.user.user_id, &id, message_id, text).await?))
}

#[derive(Deserialize, TS)]
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
    state.node.conversations.delete_message(&signed_in.user.user_id, &id, message_id).await?;
    Ok(ApiReply(true))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChooseGreetingRequest {
    character_id: String,
    #[ts(type = "number")]
    index: i64,
}

/// `chat/chooseGreeting {characterId, index}` → `ChatMessage`: while the conversation holds
/// only the greeting, it becomes the character's greeting number `index` (0: the main one,
/// `i`: `alternateGreetings[i - 1]`); 10001 out of range or once the conversation went on.
pub async fn choose_greeting(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<ChooseGreetingRequest>,
) -> ApiResult<MessageView> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let index = usize::try_from(request.index).map_err(|_| ApiError::Param("index: must be 0 or more".into()))?;
    let language = crate::content::catalogue::request_language(&req);
    Ok(ApiReply(state.node.conversations.choose_greeting(&signed_in.user.user_id, &id, index, language).await?))
}
