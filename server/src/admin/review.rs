//! The operator's review of created characters under `/lust/admin/character` (same token
//! and JSON errors as `admin`; docs/api.md "Created characters"): the queue of characters
//! asked to be public, oldest first; approving one puts it in its gender's catalogue;
//! rejecting one keeps it its creator's, with a reason they read in My AI. Every call is
//! logged.

use actix_web::{HttpRequest, HttpResponse, web};
use amora_domain::character::{CharacterId, CharacterStatus};
use amora_store::{CreatedCharacter, StatusChange};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::admin::{AdminError, authorised, internal};
use crate::state::AppState;

/// Most characters one listing returns.
const MAX_LISTED: u32 = 500;
const REASON_MAX_CHARS: usize = 300;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/character/review", web::get().to(review_queue))
        .route("/character/approve", web::post().to(approve))
        .route("/character/reject", web::post().to(reject));
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QueueQuery {
    pub limit: Option<u32>,
}

/// One character waiting for review, with what the operator judges.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Waiting {
    character_id: String,
    character_name: String,
    creator_id: String,
    gender: u8,
    nsfw: bool,
    introduction: String,
    greeting: String,
    scenario: String,
    personality: String,
    character_photo: String,
    /// When it was asked to be public (ms).
    submitted_at: i64,
}

impl From<CreatedCharacter> for Waiting {
    fn from(created: CreatedCharacter) -> Self {
        let nsfw = created.draft.nsfw;
        let c = created.character;
        Waiting {
            character_id: c.card.character_id.to_string(),
            character_name: c.card.character_name,
            creator_id: c.creator_id.unwrap_or_default(),
            gender: c.card.gender.code(),
            nsfw,
            introduction: c.card.introduction,
            greeting: c.greeting,
            scenario: c.scenario,
            personality: c.personality,
            character_photo: c.card.character_photo,
            submitted_at: created.status_at,
        }
    }
}

async fn review_queue(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<QueueQuery>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let limit = query.limit.unwrap_or(50).clamp(1, MAX_LISTED);
    let waiting: Vec<Waiting> =
        state.store.created.review_queue(limit).await.map_err(internal)?.into_iter().map(Waiting::from).collect();
    tracing::info!(target: "admin", count = waiting.len(), "admin character review queue");
    Ok(HttpResponse::Ok().json(json!({ "characters": waiting })))
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApproveRequest {
    pub character_id: String,
}

async fn approve(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<ApproveRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let id = parse_id(&body.character_id)?;
    decide(&state, &id, CharacterStatus::Public, None).await?;
    tracing::info!(target: "admin", character = %id, "admin character approved");
    Ok(HttpResponse::Ok().json(json!({ "characterId": id, "outcome": "approved" })))
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RejectRequest {
    pub character_id: String,
    pub reason: String,
}

async fn reject(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<RejectRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let request = body.into_inner();
    let id = parse_id(&request.character_id)?;
    let reason = request.reason.trim().to_owned();
    let length = reason.chars().count();
    if length == 0 || length > REASON_MAX_CHARS {
        return Err(AdminError::BadRequest(format!("reason: must be 1 to {REASON_MAX_CHARS} characters")));
    }
    decide(&state, &id, CharacterStatus::Rejected, Some(reason)).await?;
    tracing::info!(target: "admin", character = %id, "admin character rejected");
    Ok(HttpResponse::Ok().json(json!({ "characterId": id, "outcome": "rejected" })))
}

fn parse_id(raw: &str) -> Result<CharacterId, AdminError> {
    CharacterId::parse(raw).map_err(|e| AdminError::BadRequest(e.to_string()))
}

/// Moves a character in review to `to`: 404 unknown, 409 when it is not in review; every
/// node's actor of it reads it again.
async fn decide(
    state: &AppState,
    id: &CharacterId,
    to: CharacterStatus,
    reason: Option<String>,
) -> Result<(), AdminError> {
    let now = crate::creation::now_ms();
    let change =
        state.store.created.set_status(id, CharacterStatus::Review, to, reason, now).await.map_err(internal)?;
    match change {
        StatusChange::Changed(_) => {
            state.node.character_changed(id).await;
            Ok(())
        }
        StatusChange::NotFound => match state.store.characters.get(id).await.map_err(internal)? {
            // A seeded character is never in review.
            Some(_) => Err(AdminError::Conflict(format!("{id} is not waiting for review"))),
            None => Err(AdminError::NotFound(format!("no character {id}"))),
        },
        StatusChange::Other(status) => {
            Err(AdminError::Conflict(format!("{id} is {}, not waiting for review", status.as_str())))
        }
    }
}
