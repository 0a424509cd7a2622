//! The memories panel over HTTP (docs/api.md "Chat"): a conversation's memories, adding,
//! editing, deleting and pinning one. Each handler parses its payload and hands it to the
//! node's `Conversations`, where the rules live (how many, how long, what is recalled).

use actix_web::web;
use amora_actors::wire::chat::MemoryView;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use serde::Deserialize;
use ts_rs::TS;

use super::routes::CharacterRequest;
use crate::api::{ApiReply, ApiResult, Payload};
use crate::auth::session::SignedIn;
use crate::state::AppState;

/// `memory/getMemoryList {characterId}` → `Memory[]`, newest first.
pub async fn get_memory_list(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<CharacterRequest>,
) -> ApiResult<Vec<MemoryView>> {
    let id = CharacterId::parse(&payload.into_inner().character_id)?;
    Ok(ApiReply(state.node.conversations.memories(&signed_in.user.user_id, &id).await?))
}

#[derive(Deserialize, TS)]
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
) -> ApiResult<MemoryView> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    Ok(ApiReply(state.node.conversations.add_memory(&signed_in.user.user_id, &id, request.content).await?))
}

#[derive(Deserialize, TS)]
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
    state.node.conversations.update_memory(&signed_in.user.user_id, &id, memory_id, request.content).await?;
    Ok(ApiReply(true))
}

#[derive(Deserialize, TS)]
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
    state.node.conversations.delete_memory(&signed_in.user.user_id, &id, memory_id).await?;
    Ok(ApiReply(true))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PinMemoryRequest {
    character_id: String,
    memory_id: String,
    pinned: bool,
}

/// `memory/pinMemory {characterId, memoryId, pinned}` → `Memory`: a pinned memory enters
/// every prompt of the pair; 10001 past `MAX_PINNED` pinned memories.
pub async fn pin_memory(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<PinMemoryRequest>,
) -> ApiResult<MemoryView> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let memory_id = EntryId::parse(&request.memory_id, "memoryId")?;
    let memory = state.node.conversations.pin_memory(&signed_in.user.user_id, &id, memory_id, request.pinned).await?;
    Ok(ApiReply(memory))
}
