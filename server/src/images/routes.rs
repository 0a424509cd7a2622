//! Generated images over HTTP (docs/api.md "Images"): the options, starting and cancelling
//! a job, the gallery, sharing, the public feed, and a picture asked for in chat. Jobs and
//! their rules are the node's `ImageJobs`; images arrive over the WebSocket.

use actix_web::{HttpRequest, web};
use amora_actors::images::JobRequest;
use amora_actors::wire::images::{FeedImageView, GalleryCharacterView, GalleryImageView};
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_domain::image::{COUNTS, Preset, PresetKind, RawImageRequest};
use amora_domain::viewer::Viewer;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::auth::session::{MaybeSignedIn, SignedIn};
use crate::content::catalogue::adult_content_off;
use crate::state::AppState;

/// Default and largest page of the gallery and the feed.
const DEFAULT_PAGE: u32 = 24;
const MAX_PAGE: u32 = 60;

fn page_size(requested: Option<i64>) -> Result<u32, ApiError> {
    match requested {
        None => Ok(DEFAULT_PAGE),
        Some(n) if (1..=i64::from(MAX_PAGE)).contains(&n) => Ok(n as u32),
        Some(_) => Err(ApiError::Param(format!("pageSize: must be from 1 to {MAX_PAGE}"))),
    }
}

fn image_id(raw: &str, field: &'static str) -> Result<EntryId, ApiError> {
    Ok(EntryId::parse(raw, field)?)
}

/// Whether explicit content may be shown to this request: an account whose preference is
/// on, and a browser that did not turn it off (the `nsfw` header).
fn adult_content_on(req: &HttpRequest, signed_in: &MaybeSignedIn) -> bool {
    signed_in.0.as_ref().is_some_and(|s| s.user.nsfw) && !adult_content_off(req)
}

/// `ImagePreset`: a key the client labels, and whether it is explicit.
#[derive(Serialize, TS)]
#[ts(rename = "ImagePreset")]
pub struct PresetView {
    key: &'static str,
    nsfw: bool,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImageOptions {
    scenes: Vec<PresetView>,
    outfits: Vec<PresetView>,
    poses: Vec<PresetView>,
    styles: Vec<PresetView>,
    counts: [u8; 3],
    /// Coins per image (shown ÷ 10).
    #[ts(type = "number")]
    cost_per_image: i64,
    illustration: bool,
}

/// `image/getImageOptions {}` → `ImageOptions`; explicit presets only for viewers whose
/// preference allows them.
pub async fn get_image_options(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed_in: MaybeSignedIn,
) -> ApiResult<ImageOptions> {
    let nsfw = adult_content_on(&req, &signed_in);
    let list = |kind: PresetKind| -> Vec<PresetView> {
        kind.presets()
            .iter()
            .filter(|preset: &&Preset| nsfw || !preset.nsfw)
            .map(|preset| PresetView { key: preset.key, nsfw: preset.nsfw })
            .collect()
    };
    let images = &state.node.images;
    Ok(ApiReply(ImageOptions {
        scenes: list(PresetKind::Scene),
        outfits: list(PresetKind::Outfit),
        poses: list(PresetKind::Pose),
        styles: list(PresetKind::Style),
        counts: COUNTS,
        cost_per_image: images.cost_per_image().units(),
        illustration: images.illustration(),
    }))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct GenerateRequest {
    character_id: Option<String>,
    scene: Option<String>,
    outfit: Option<String>,
    pose: Option<String>,
    style: Option<String>,
    prompt: Option<String>,
    #[ts(type = "number")]
    count: i64,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "JobStarted")]
pub struct JobView {
    #[ts(type = "string")]
    job_id: EntryId,
    #[ts(type = "string[]")]
    image_ids: Vec<EntryId>,
    /// The balance after the debit (`image/generate` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    coin: Option<i64>,
}

/// `image/generate {characterId?, scene?, outfit?, pose?, style?, prompt?, count}` →
/// `{jobId, imageIds, coin}`: checked, paid for and queued.
pub async fn generate(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<GenerateRequest>,
) -> ApiResult<JobView> {
    let request = payload.into_inner();
    let character_id = request.character_id.as_deref().map(CharacterId::parse).transpose()?;
    let choice = RawImageRequest {
        scene: request.scene,
        outfit: request.outfit,
        pose: request.pose,
        style: request.style,
        prompt: request.prompt,
        count: request.count,
    };
    let job = JobRequest { character_id, choice, in_chat: false };
    let started = state.node.images.generate(&signed_in.user.user_id, job).await?;
    Ok(ApiReply(JobView { job_id: started.job_id, image_ids: started.image_ids, coin: Some(started.coin.units()) }))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct PictureRequest {
    character_id: String,
    prompt: Option<String>,
}

/// `chat/requestPicture {characterId, prompt?}` → `{jobId, imageIds}`: one image of the
/// conversation's character, sent as a selfie; when done it is also the character's message.
pub async fn request_picture(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<PictureRequest>,
) -> ApiResult<JobView> {
    let request = payload.into_inner();
    let character_id = CharacterId::parse(&request.character_id)?;
    let choice =
        RawImageRequest { pose: Some("selfie".into()), prompt: request.prompt, count: 1, ..Default::default() };
    let job = JobRequest { character_id: Some(character_id), choice, in_chat: true };
    let started = state.node.images.generate(&signed_in.user.user_id, job).await?;
    Ok(ApiReply(JobView { job_id: started.job_id, image_ids: started.image_ids, coin: None }))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct JobRef {
    job_id: String,
}

/// `image/cancel {jobId}` → `true`.
pub async fn cancel(state: web::Data<AppState>, signed_in: SignedIn, payload: Payload<JobRef>) -> ApiResult<bool> {
    let job_id = image_id(&payload.into_inner().job_id, "jobId")?;
    state.node.images.cancel(&signed_in.user.user_id, job_id)?;
    Ok(ApiReply(true))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct GalleryRequest {
    character_id: Option<String>,
    before_id: Option<String>,
    #[ts(as = "Option<u32>")]
    page_size: Option<i64>,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "ImagePage")]
pub struct Page<T> {
    images: Vec<T>,
    has_more: bool,
}

/// `image/getGallery {characterId?, beforeId?, pageSize?}` → `{images, hasMore}`.
pub async fn get_gallery(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<GalleryRequest>,
) -> ApiResult<Page<GalleryImageView>> {
    let request = payload.into_inner();
    let character_id = request.character_id.as_deref().map(CharacterId::parse).transpose()?;
    let before = request.before_id.as_deref().map(|raw| image_id(raw, "beforeId")).transpose()?;
    let limit = page_size(request.page_size)?;
    let images = state.node.images.gallery(&signed_in.user.user_id, character_id.as_ref(), before, limit).await?;
    Ok(ApiReply(Page { has_more: images.len() == limit as usize, images }))
}

/// `image/getGalleryCharacters {}` → the characters the user has images of.
pub async fn get_gallery_characters(
    state: web::Data<AppState>,
    signed_in: SignedIn,
) -> ApiResult<Vec<GalleryCharacterView>> {
    Ok(ApiReply(state.node.images.gallery_characters(&signed_in.user.user_id).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImageRef {
    image_id: String,
}

/// `image/deleteImage {imageId}` → `true`: the image, its variants and its feed entry.
pub async fn delete_image(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<ImageRef>,
) -> ApiResult<bool> {
    let image_id = image_id(&payload.into_inner().image_id, "imageId")?;
    state.node.images.delete(&signed_in.user.user_id, image_id).await?;
    Ok(ApiReply(true))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ShareRequest {
    image_id: String,
    shared: bool,
}

/// `image/shareImage {imageId, shared}` → `GalleryImage`.
pub async fn share_image(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<ShareRequest>,
) -> ApiResult<GalleryImageView> {
    let request = payload.into_inner();
    let image_id = image_id(&request.image_id, "imageId")?;
    Ok(ApiReply(state.node.images.share(&signed_in.user.user_id, image_id, request.shared).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct FeedRequest {
    before_id: Option<String>,
    #[ts(as = "Option<u32>")]
    page_size: Option<i64>,
}

/// `image/getFeed {beforeId?, pageSize?}` → `{images, hasMore}`, open to everyone.
/// Restricted images (explicit, or of a restricted character) follow the catalogue's
/// rule: only established members see them, and only with adult content on.
pub async fn get_feed(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed_in: MaybeSignedIn,
    payload: Payload<FeedRequest>,
) -> ApiResult<Page<FeedImageView>> {
    let request = payload.into_inner();
    let before = request.before_id.as_deref().map(|raw| image_id(raw, "beforeId")).transpose()?;
    let limit = page_size(request.page_size)?;
    let include_restricted = signed_in.viewer(&state) == Viewer::Member && adult_content_on(&req, &signed_in);
    let images = state.node.images.feed(before, limit, include_restricted).await?;
    Ok(ApiReply(Page { has_more: images.len() == limit as usize, images }))
}
