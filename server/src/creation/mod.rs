//! Created characters (docs/api.md "Created characters, My AI and character cards"): what
//! the routes of the builder, My AI, card import and export and the operator's review
//! share: the checks every saved character passes (the builder's rules, the guidelines,
//! the per-account limit), its portrait, ownership, and deletion with what goes with it.
//! The calls themselves are `routes` (the builder and My AI) and `card_routes` (card import
//! and export), mounted by `configure`.

pub mod card_image;
pub mod card_routes;
pub mod cards;
pub mod portrait;
pub mod routes;

use actix_web::web;
use amora_actors::chat::ChatError;
use amora_actors::moderation::Surface;
use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::creation::{Draft, Style, ValidDraft, ValidLooks};
use amora_domain::moderation::Refusal;
use amora_store::CreatedCharacter;

use crate::api::ApiError;
use crate::state::AppState;
use portrait::PortraitSpec;

/// The calls under `/lust/api`, inside the envelope.
pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/user/v1/character/getCreateOptions", web::post().to(routes::get_create_options))
        .route("/user/v1/character/previewPortrait", web::post().to(routes::preview_portrait))
        .route("/user/v1/character/create", web::post().to(routes::create))
        .route("/user/v1/character/update", web::post().to(routes::update))
        .route("/user/v1/character/delete", web::post().to(routes::delete))
        .route("/user/v1/character/duplicate", web::post().to(routes::duplicate))
        .route("/user/v1/character/setVisibility", web::post().to(routes::set_visibility))
        .route("/user/v1/character/getMyCharacters", web::post().to(routes::get_my_characters))
        .route("/user/v1/character/importCard", web::post().to(card_routes::import_card))
        .route("/user/v1/character/exportCard", web::post().to(card_routes::export_card));
}

/// Milliseconds since the epoch: created characters' times.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A new created character's id: `my-` and 16 random letters and digits.
pub fn new_character_id() -> Result<CharacterId, ApiError> {
    let random: String = crate::auth::random_token().chars().filter(char::is_ascii_alphanumeric).take(16).collect();
    Ok(CharacterId::parse(&format!("my-{}", random.to_lowercase()))?)
}

/// 10070 naming `field`: `field: <why>` (the client shows it by the field).
pub fn refused(field: &str, refusal: Refusal) -> ApiError {
    ApiError::Refused(format!("{field}: {}", refusal.message()))
}

/// Named texts through the node's moderation service on `surface`; 10070 naming the first
/// refused.
pub async fn moderate<'a>(
    state: &AppState,
    user: Option<&UserId>,
    surface: Surface,
    fields: impl IntoIterator<Item = (String, &'a str)>,
) -> Result<(), ApiError> {
    state.node.moderator.check_fields(surface, user, fields).await.map_err(|(field, refusal)| refused(&field, refusal))
}

/// Every text of a valid draft and its portrait's prompt, held to the character rule.
pub async fn moderate_draft(state: &AppState, user: Option<&UserId>, valid: &ValidDraft) -> Result<(), ApiError> {
    let d = valid.draft();
    let looks = valid.looks().describe();
    let mut fields: Vec<(String, &str)> = vec![
        ("characterName".into(), d.character_name.as_str()),
        ("introduction".into(), d.introduction.as_str()),
        ("greeting".into(), d.greeting.as_str()),
        ("scenario".into(), d.scenario.as_str()),
        ("personality.text".into(), d.personality.text.as_str()),
        ("relationship.text".into(), d.relationship.text.as_str()),
    ];
    fields.extend(d.tags.iter().enumerate().map(|(index, tag)| (format!("tags[{index}]"), tag.as_str())));
    fields.push(("looks".into(), looks.as_str()));
    moderate(state, user, Surface::CharacterText, fields).await
}

/// 10001 `voiceId` unless the draft's voice is one of the catalogue's (empty: the default).
pub fn check_voice(state: &AppState, draft: &Draft) -> Result<(), ApiError> {
    if draft.voice_id.is_empty() || state.voices.voices().iter().any(|voice| voice.voice_id == draft.voice_id) {
        return Ok(());
    }
    Err(ApiError::Param("voiceId: is not a voice of the catalogue".into()))
}

/// Validates and moderates a draft of `user` as `create`, `update` and card import take it.
pub async fn checked_draft(state: &AppState, user: &UserId, draft: Draft) -> Result<ValidDraft, ApiError> {
    let valid = draft.validate()?;
    check_voice(state, valid.draft())?;
    moderate_draft(state, Some(user), &valid).await?;
    Ok(valid)
}

/// The name of these looks in this style: the preview cache's key and the portrait's seed
/// (`portrait::looks_seed`), the same for the builder's preview and the saved character.
pub fn looks_key(looks: &ValidLooks, style: Style) -> String {
    serde_json::json!([looks.gender().code(), style.key(), looks.looks()]).to_string()
}

/// What the portrait of these looks is drawn from.
pub fn portrait_spec(looks: &ValidLooks, style: Style) -> PortraitSpec {
    PortraitSpec {
        gender: looks.gender(),
        look: looks.look(),
        words: format!("{}, {}", looks.describe(), style.prompt_words()),
        style: Some(illustrator_style(style).to_owned()),
        outfit: None,
    }
}

/// The embedded illustrator's style for the builder's.
fn illustrator_style(style: Style) -> &'static str {
    match style {
        Style::Realistic => "photo",
        Style::Anime => "anime",
    }
}

/// How many characters an account may have (`limits.characters_per_user`).
pub fn room_limit(state: &AppState) -> u64 {
    u64::from(state.settings.limits.characters_per_user)
}

/// 10003: the account has as many characters as it may.
pub fn no_room(limit: u64) -> ApiError {
    ApiError::LimitReached(format!(
        "You have {limit} characters, the most an account may have. Delete one to make another."
    ))
}

/// 10003 when `user` already has as many characters as an account may: the early answer,
/// before a portrait is drawn. Not the guard itself, which is the store's atomic
/// `save_new` (issue 28: twenty concurrent imports all passed this count).
pub async fn ensure_room(state: &AppState, user: &UserId) -> Result<(), ApiError> {
    let limit = room_limit(state);
    if state.store.created.count_by_creator(user).await? >= limit {
        return Err(no_room(limit));
    }
    Ok(())
}

/// The created character `id` when `user` made it; 10006 otherwise (unknown, seeded or
/// someone else's: the same answer, so ids cannot be probed).
pub async fn owned(state: &AppState, user: &UserId, id: &CharacterId) -> Result<CreatedCharacter, ApiError> {
    match state.store.created.get(id).await? {
        Some(created) if created.character.creator_id.as_deref() == Some(user.as_str()) => Ok(created),
        _ => Err(ApiError::NotFound(format!("no character {id} of yours"))),
    }
}

/// Deletes a created character: the store removes it, its catalogue rows, review entry and
/// portrait; its creator's conversation, memories and gallery images of it go too, and
/// every node's actor of it forgets it.
pub async fn delete(state: &AppState, id: &CharacterId) -> Result<(), ApiError> {
    let Some(deleted) = state.store.created.delete(id).await? else { return Ok(()) };
    forget_creator_data(state, &deleted.creator_id, id).await?;
    state.node.character_changed(id).await;
    Ok(())
}

/// Deletes every character of `user` (account deletion), as [`delete`] does each.
pub async fn delete_all_of(state: &AppState, user: &UserId) -> Result<usize, ApiError> {
    let deleted = state.store.created.delete_all_of(user).await?;
    for gone in &deleted {
        forget_creator_data(state, user, &gone.character_id).await?;
        state.node.character_changed(&gone.character_id).await;
    }
    Ok(deleted.len())
}

/// The creator's own conversation, memories and images of a character that is gone.
async fn forget_creator_data(state: &AppState, user: &UserId, id: &CharacterId) -> Result<(), ApiError> {
    // The conversation and its memories through the character's actor, which drops what it
    // holds of the pair too (chat goes through the node's actors: docs/architecture.md).
    match state.node.conversations.delete_conversation(user, id).await {
        Ok(()) | Err(ChatError::NoConversation) => {}
        Err(error) => return Err(error.into()),
    }
    let store = &state.store;
    loop {
        let images = store.gallery.list(user, Some(id), None, 100).await?;
        if images.is_empty() {
            break;
        }
        for image in images {
            store.gallery.delete(user, image.image_id).await?;
        }
    }
    Ok(())
}
