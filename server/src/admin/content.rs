//! The operator's content and moderation calls under `/lust/admin` (same token and JSON
//! errors as `admin`): publish (now or from a time to come) or unpublish a blog post, read the newest reports, hide a
//! character from everyone or show it again, remove a user's image. Every call is logged.

use actix_web::{HttpRequest, HttpResponse, web};
use amora_actors::moderation::Surface;
use amora_domain::blog::BlogKey;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::admin::{AdminError, authorised, internal};
use crate::state::AppState;

/// Most reports one listing returns.
const MAX_REPORTS: u32 = 500;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/blog/publish", web::post().to(publish_post))
        .route("/blog/unpublish", web::post().to(unpublish_post))
        .route("/reports", web::get().to(list_reports))
        .route("/character/hide", web::post().to(hide_character))
        .route("/character/unhide", web::post().to(unhide_character))
        .route("/image/remove", web::post().to(remove_image));
}

fn bad_request(error: impl std::fmt::Display) -> AdminError {
    AdminError::BadRequest(error.to_string())
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublishRequest {
    /// The whole post file: front matter and Markdown body.
    pub file: String,
    /// From when readers see it, seconds since the epoch; absent: now. A time to come
    /// schedules the post: stored, and on the blog, its pages and the sitemap from then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish_at: Option<i64>,
}

/// Publishes a post file (`crate::content::blog` describes its form); a post with the same
/// key is replaced (an unpublished one so comes back). 400 names the field that is wrong.
async fn publish_post(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<PublishRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let request = body.into_inner();
    let mut post = crate::content::blog::parse_post(&request.file).map_err(bad_request)?;
    let now = crate::auth::now();
    let publish_at = match request.publish_at {
        Some(at) if at < 0 => return Err(bad_request("publishAt: seconds since the epoch")),
        Some(at) => at,
        None => now,
    };
    post.publish_at = Some(publish_at);
    // The public reads it, and crawlers: held to the chat rule like any text shown to people.
    let fields = [
        ("title".to_owned(), post.title.as_str()),
        ("description".to_owned(), post.description.as_str()),
        ("markdown".to_owned(), post.markdown.as_str()),
    ];
    if let Err((field, refusal)) = state.node.moderator.check_fields(Surface::BlogPost, None, fields).await {
        return Err(AdminError::BadRequest(format!("{field}: inputContentIllegal: {}", refusal.message())));
    }
    let existed = state.store.blog.get(&post.key).await.map_err(internal)?.is_some();
    let key = post.key.clone();
    state.store.blog.put(post).await.map_err(internal)?;
    tracing::info!(target: "admin", %key, replaced = existed, publish_at, "admin blog publish");
    let base = state.settings.http.public_base_url.trim_end_matches('/');
    let outcome = match (publish_at > now, existed) {
        (true, _) => "scheduled",
        (false, true) => "replaced",
        (false, false) => "published",
    };
    Ok(HttpResponse::Ok().json(json!({
        "key": key,
        "url": format!("{base}/blogs/{key}"),
        "publishAt": publish_at,
        "outcome": outcome,
    })))
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyRequest {
    pub key: String,
}

/// Takes a post off the blog, its page and the sitemap; it is kept (the console still
/// lists and edits it) and `blog/publish` of its file brings it back.
async fn unpublish_post(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<KeyRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let key = BlogKey::parse(&body.into_inner().key).map_err(bad_request)?;
    if !state.store.blog.set_publish_at(&key, None).await.map_err(internal)? {
        return Err(AdminError::NotFound(format!("no blog post {key}")));
    }
    tracing::info!(target: "admin", %key, "admin blog unpublish");
    Ok(HttpResponse::Ok().json(json!({ "key": key, "outcome": "unpublished" })))
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReportsQuery {
    pub limit: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportView {
    report_id: EntryId,
    created_at: i64,
    reporter_id: String,
    character_id: String,
    /// Empty when the character no longer exists.
    character_name: String,
    character_hidden: bool,
    message_id: Option<EntryId>,
    /// The reported reply's text, while it still exists.
    message_text: Option<String>,
    reason: &'static str,
    note: String,
    /// What an operator decided on it (`{decision, operatorId, at}`), or null while open.
    decision: Option<serde_json::Value>,
}

/// The newest reports first, with what the operator needs to judge them.
async fn list_reports(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<ReportsQuery>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let limit = query.limit.unwrap_or(50).clamp(1, MAX_REPORTS);
    let reports = state.store.reports.recent(limit).await.map_err(internal)?;
    let mut views = Vec::with_capacity(reports.len());
    for report in reports {
        let characters = &state.store.characters;
        let character = characters.get(&report.character_id).await.map_err(internal)?;
        let hidden = characters.is_hidden(&report.character_id).await.map_err(internal)?;
        let message_text = match report.message_id {
            Some(id) => {
                let after = EntryId::from_raw(id.raw().saturating_add(1));
                let found = state
                    .store
                    .conversations
                    .messages(&report.reporter_id, &report.character_id, Some(after), 1)
                    .await
                    .map_err(internal)?;
                found.into_iter().find(|m| m.message_id == id).map(|m| m.content)
            }
            None => None,
        };
        views.push(ReportView {
            report_id: report.report_id,
            created_at: report.created_at,
            reporter_id: report.reporter_id.to_string(),
            character_id: report.character_id.to_string(),
            character_name: character.map(|c| c.card.character_name).unwrap_or_default(),
            character_hidden: hidden,
            message_id: report.message_id,
            message_text,
            reason: report.reason.code(),
            note: report.note,
            decision: None,
        });
    }
    let ids: Vec<i64> = views.iter().map(|view| view.report_id.raw()).collect();
    let decisions = state.store.operators.report_decisions(&ids).await.map_err(internal)?;
    for decision in decisions {
        if let Some(view) = views.iter_mut().find(|view| view.report_id.raw() == decision.report_id) {
            view.decision =
                Some(json!({ "decision": decision.decision, "operatorId": decision.operator_id, "at": decision.at }));
        }
    }
    tracing::info!(target: "admin", count = views.len(), "admin reports");
    Ok(HttpResponse::Ok().json(json!({ "reports": views })))
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CharacterRequest {
    pub character_id: String,
}

async fn hide_character(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<CharacterRequest>,
) -> Result<HttpResponse, AdminError> {
    set_hidden(req, state, body.into_inner(), true).await
}

async fn unhide_character(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<CharacterRequest>,
) -> Result<HttpResponse, AdminError> {
    set_hidden(req, state, body.into_inner(), false).await
}

/// Hidden, a character leaves the catalogue and every user's chat list, its page answers
/// 404 and nobody can chat with it; its record and conversations stay, so unhiding brings
/// it back as it was.
async fn set_hidden(
    req: HttpRequest,
    state: web::Data<AppState>,
    request: CharacterRequest,
    hidden: bool,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let id = CharacterId::parse(&request.character_id).map_err(bad_request)?;
    if !state.store.characters.set_hidden(&id, hidden).await.map_err(internal)? {
        return Err(AdminError::NotFound(format!("no character {id}")));
    }
    // Every node's actor of the character reads it again before its next turn.
    state.node.character_changed(&id).await;
    tracing::info!(target: "admin", character = %id, hidden, "admin character visibility");
    Ok(HttpResponse::Ok().json(json!({
        "characterId": id,
        "outcome": if hidden { "hidden" } else { "shown" },
    })))
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RemoveImageRequest {
    /// A public feed entry (`FeedImage.feedId`): its owner is looked up.
    pub feed_id: Option<String>,
    /// Or the owner (`userNo` or email) and the image, e.g. a picture sent in a reported chat.
    pub user: Option<String>,
    pub image_id: Option<String>,
}

/// Removes an image as its owner's `image/deleteImage` would: the gallery entry, its feed
/// entry, the bytes and every resized variant. A picture sent in chat keeps its message,
/// whose image then no longer loads.
async fn remove_image(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<RemoveImageRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let parse_id = |raw: &str, field: &str| {
        raw.parse::<i64>()
            .ok()
            .filter(|id| *id > 0)
            .map(EntryId::from_raw)
            .ok_or_else(|| bad_request(format!("{field}: must be a positive integer in a string")))
    };
    let (owner, image_id) = match body.into_inner() {
        RemoveImageRequest { feed_id: Some(feed_id), user: None, image_id: None } => {
            let feed_id = parse_id(&feed_id, "feedId")?;
            let entry = state.store.gallery.feed_entry(feed_id).await.map_err(internal)?;
            let entry = entry.ok_or_else(|| AdminError::NotFound(format!("no feed entry {}", feed_id.raw())))?;
            (entry.owner, entry.image_id)
        }
        RemoveImageRequest { feed_id: None, user: Some(user), image_id: Some(image_id) } => {
            let owner = crate::admin::find_user(&state, &user).await?;
            (owner.user_id, parse_id(&image_id, "imageId")?)
        }
        _ => return Err(bad_request("give either feedId, or user and imageId")),
    };
    if !state.store.gallery.delete(&owner, image_id).await.map_err(internal)? {
        return Err(AdminError::NotFound(format!("no image {} of that user", image_id.raw())));
    }
    tracing::info!(target: "admin", user = %owner, image = image_id.raw(), "admin image removed");
    Ok(HttpResponse::Ok().json(json!({ "imageId": image_id.raw().to_string(), "outcome": "removed" })))
}
