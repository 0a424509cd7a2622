//! Spoken character messages over HTTP (docs/api.md "Voice"): the voice model's voices,
//! and playing a message. The rules (who may play what, the price, the parts) live in the
//! node's `Voices`.

use actix_web::web;
use amora_actors::voice::SpokenMessage;
use amora_actors::wire::voice::VoiceView;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use serde::Deserialize;
use ts_rs::TS;

use crate::api::{ApiReply, ApiResult, Payload};
use crate::auth::session::SignedIn;
use crate::state::AppState;

/// `voice/getVoices {}` → `{voiceId, gender, label}[]`.
pub async fn get_voices(state: web::Data<AppState>, _signed_in: SignedIn) -> ApiResult<Vec<VoiceView>> {
    Ok(ApiReply(state.voices.voices()))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SpeakRequest {
    character_id: String,
    message_id: String,
}

/// `voice/speak {characterId, messageId}` → `{messageId, voiceId, parts, complete, coin}`.
pub async fn speak(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<SpeakRequest>,
) -> ApiResult<SpokenMessage> {
    let request = payload.into_inner();
    let character_id = CharacterId::parse(&request.character_id)?;
    let message_id = EntryId::parse(&request.message_id, "messageId")?;
    Ok(ApiReply(state.voices.speak(&signed_in.user.user_id, &character_id, message_id).await?))
}
