//! The user's persona over HTTP (docs/api.md "The user's persona", issue 18): the name and
//! description characters know the user by, for every character and per character. Each
//! handler parses its payload and hands it to the node's `Conversations`, whose user
//! actor keeps the personas.

use actix_web::web;
use amora_actors::conversations::PersonaView;
use amora_domain::character::CharacterId;
use amora_domain::persona::UserPersona;
use serde::Deserialize;
use ts_rs::TS;

use crate::api::{ApiReply, ApiResult, Payload};
use crate::auth::session::SignedIn;
use crate::state::AppState;

/// `persona/getPersonaList {}` → `UserPersona[]`: the one for every character first
/// (`characterId: null`), then one per character.
pub async fn get_persona_list(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<Vec<PersonaView>> {
    Ok(ApiReply(state.node.conversations.personas(&signed_in.user.user_id).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SetPersonaRequest {
    /// Absent or `null`: the persona for every character.
    #[serde(default)]
    #[ts(optional = nullable)]
    character_id: Option<String>,
    name: String,
    #[serde(default)]
    description: String,
}

/// `persona/setPersona {characterId?, name, description?}` → `UserPersona`: sets the
/// persona for every character (no `characterId`, or `null`) or for one character.
pub async fn set_persona(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<SetPersonaRequest>,
) -> ApiResult<PersonaView> {
    let request = payload.into_inner();
    let character = request.character_id.as_deref().map(CharacterId::parse).transpose()?;
    let persona = UserPersona::parse(&request.name, &request.description)?;
    let user_id = &signed_in.user.user_id;
    Ok(ApiReply(state.node.conversations.set_persona(user_id, character.as_ref(), persona).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeletePersonaRequest {
    #[serde(default)]
    #[ts(optional = nullable)]
    character_id: Option<String>,
}

/// `persona/deletePersona {characterId?}` → `true`: the character (or, without one, every
/// character) goes back to the persona above it; 10006 when none was set.
pub async fn delete_persona(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<DeletePersonaRequest>,
) -> ApiResult<bool> {
    let character = payload.into_inner().character_id.as_deref().map(CharacterId::parse).transpose()?;
    state.node.conversations.delete_persona(&signed_in.user.user_id, character.as_ref()).await?;
    Ok(ApiReply(true))
}
