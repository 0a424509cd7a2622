//! The operator's moderation of the public feed and the moderation log under
//! `/lust/admin` (issue 27; same token, JSON errors and logging as `admin`): list feed
//! images with their reports and hold, restore a reported or hidden one, remove one for
//! good, and read what moderation refused.
//!
//! Removing deletes the image (record, feed entry, bytes and every resized variant), as
//! `image/remove` does, rather than unsharing it: an unshared image stays in its owner's
//! gallery, from where it could be shared again under a new feed entry, and its bytes stay
//! served at `/media/img-…` to anyone who kept the address. An image the operator judged
//! against the guidelines should not be kept on the platform at all.

use actix_web::{HttpRequest, HttpResponse, web};
use amora_domain::chat::EntryId;
use amora_store::{FeedFilter, ModeratedFeedEntry};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::admin::{AdminError, authorised, internal};
use crate::state::AppState;

/// Most feed images or log events one page returns.
const MAX_PAGE: u32 = 200;
const DEFAULT_PAGE: u32 = 50;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/feed", web::get().to(list_feed))
        .route("/feed/restore", web::post().to(restore))
        .route("/feed/remove", web::post().to(remove))
        .route("/moderation/log", web::get().to(moderation_log));
}

fn bad_request(error: impl std::fmt::Display) -> AdminError {
    AdminError::BadRequest(error.to_string())
}

/// An id as the API writes it: a positive integer in a string.
fn parse_id(raw: &str, field: &str) -> Result<EntryId, AdminError> {
    raw.parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .map(EntryId::from_raw)
        .ok_or_else(|| bad_request(format!("{field}: must be a positive integer in a string")))
}

fn page_limit(limit: Option<u32>) -> u32 {
    limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedQuery {
    /// The oldest `feedId` of the previous page.
    before: Option<String>,
    limit: Option<u32>,
    /// `all` (default), `flagged` (reported or hidden) or `hidden`.
    filter: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FeedItemView {
    feed_id: String,
    image_id: String,
    url: String,
    owner_id: String,
    /// The owner's number, for `suspend`; empty when the account is gone.
    owner_no: String,
    character_id: Option<String>,
    character_name: Option<String>,
    prompt: String,
    restricted: bool,
    /// Distinct reporters since the image was last restored.
    reports: u32,
    hidden: bool,
    /// Seconds since the epoch.
    hidden_at: Option<i64>,
    /// Milliseconds since the epoch.
    shared_at: i64,
}

/// The feed as the operator sees it, newest share first, restricted and hidden images
/// included.
async fn list_feed(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<FeedQuery>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let query = query.into_inner();
    let before = query.before.as_deref().map(|raw| parse_id(raw, "before")).transpose()?;
    let filter = match query.filter.as_deref().unwrap_or("all") {
        "all" => FeedFilter::All,
        "flagged" => FeedFilter::Flagged,
        "hidden" => FeedFilter::Hidden,
        other => return Err(bad_request(format!("filter: {other:?} is not all, flagged or hidden"))),
    };
    let limit = page_limit(query.limit);
    let entries = state.store.feed_moderation.list(before, limit, filter).await.map_err(internal)?;
    let mut images = Vec::with_capacity(entries.len());
    for ModeratedFeedEntry { entry, reports, hidden_at } in entries {
        let owner = state.store.users.by_id(&entry.owner).await.map_err(internal)?;
        images.push(FeedItemView {
            feed_id: entry.feed_id.raw().to_string(),
            image_id: entry.image_id.raw().to_string(),
            url: amora_store::image_media_url(entry.image_id),
            owner_id: entry.owner.to_string(),
            owner_no: owner.map(|user| user.user_no.as_str().to_owned()).unwrap_or_default(),
            character_id: entry.character_id.map(|id| id.to_string()),
            character_name: entry.character_name,
            prompt: entry.prompt,
            restricted: entry.restricted,
            reports,
            hidden: hidden_at.is_some(),
            hidden_at,
            shared_at: entry.feed_id.unix_millis(),
        });
    }
    tracing::info!(target: "admin", count = images.len(), filter = ?filter, "admin feed listed");
    let has_more = images.len() == limit as usize;
    Ok(HttpResponse::Ok().json(json!({ "images": images, "hasMore": has_more })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FeedEntryRequest {
    feed_id: String,
}

/// The feed entry named by the request, 404 when there is none.
async fn entry_of(state: &AppState, request: FeedEntryRequest) -> Result<amora_store::FeedEntry, AdminError> {
    let feed_id = parse_id(&request.feed_id, "feedId")?;
    let entry = state.store.gallery.feed_entry(feed_id).await.map_err(internal)?;
    entry.ok_or_else(|| AdminError::NotFound(format!("no feed entry {}", feed_id.raw())))
}

/// The operator keeps the image: back in the feed, its reports cleared, so that hiding it
/// again takes as many new reporters.
async fn restore(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<FeedEntryRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let entry = entry_of(&state, body.into_inner()).await?;
    state.store.feed_moderation.restore(&entry.owner, entry.image_id).await.map_err(internal)?;
    tracing::info!(target: "admin", feed = entry.feed_id.raw(), image = entry.image_id.raw(), "admin feed image restored");
    Ok(HttpResponse::Ok().json(json!({
        "feedId": entry.feed_id.raw().to_string(),
        "imageId": entry.image_id.raw().to_string(),
        "outcome": "restored",
    })))
}

/// The operator removes the image for good: deleted, as the module's comment says why.
async fn remove(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<FeedEntryRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let entry = entry_of(&state, body.into_inner()).await?;
    if !state.store.gallery.delete(&entry.owner, entry.image_id).await.map_err(internal)? {
        return Err(AdminError::NotFound(format!("no feed entry {}", entry.feed_id.raw())));
    }
    tracing::info!(
        target: "admin",
        feed = entry.feed_id.raw(),
        image = entry.image_id.raw(),
        user = %entry.owner,
        "admin feed image removed"
    );
    Ok(HttpResponse::Ok().json(json!({
        "feedId": entry.feed_id.raw().to_string(),
        "imageId": entry.image_id.raw().to_string(),
        "outcome": "removed",
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogQuery {
    /// The oldest `eventId` of the previous page.
    before: Option<String>,
    limit: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EventView {
    event_id: String,
    /// Seconds since the epoch.
    at: i64,
    user_id: Option<String>,
    surface: String,
    policy: String,
    refusal: String,
    layer: String,
    excerpt: String,
}

/// What moderation refused, newest first.
async fn moderation_log(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<LogQuery>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let query = query.into_inner();
    let before = query.before.as_deref().map(|raw| parse_id(raw, "before")).transpose()?;
    let limit = page_limit(query.limit);
    let events = state.store.moderation_log.recent(before, limit).await.map_err(internal)?;
    let has_more = events.len() == limit as usize;
    let events: Vec<EventView> = events
        .into_iter()
        .map(|event| EventView {
            event_id: event.event_id.raw().to_string(),
            at: event.at,
            user_id: event.user_id.map(|id| id.to_string()),
            surface: event.surface,
            policy: event.policy,
            refusal: event.refusal,
            layer: event.layer,
            excerpt: event.excerpt,
        })
        .collect();
    tracing::info!(target: "admin", count = events.len(), "admin moderation log listed");
    Ok(HttpResponse::Ok().json(json!({ "events": events, "hasMore": has_more })))
}
