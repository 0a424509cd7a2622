//! The character catalogue: the home grid's pages and one character's details.

use actix_web::{HttpRequest, web};
use amora_domain::account::LANGUAGES;
use amora_domain::character::{Character, CharacterCard, CharacterId};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::tag::TagFilter;
use amora_store::seed::{localize_card, localize_character};
use serde::Deserialize;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::auth::session::Viewing;
use crate::state::AppState;

#[derive(Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "CharacterListQuery")]
pub struct ListRequest {
    #[ts(type = "number")]
    page_no: i64,
    #[ts(type = "number")]
    page_size: i64,
    #[ts(type = "GenderValue")]
    gender: i64,
    /// Project extension (docs/api.md): only characters carrying at least one of these tags.
    #[serde(default)]
    #[ts(optional)]
    tags: Option<Vec<String>>,
}

/// Browsers send their adult-content (NSFW) preference as the `nsfw` header, `1` or `0`
/// (spec §7). Only an explicit `0` turns it off, so callers that send no header keep the
/// catalogue their account allows.
pub(crate) fn adult_content_off(req: &HttpRequest) -> bool {
    req.headers().get("nsfw").and_then(|v| v.to_str().ok()).is_some_and(|v| v.trim() == "0")
}

/// The request's `language` header (API.md §1.2) when it names one of the ten languages.
/// The seeded catalogue's introductions and greetings answer in it; English otherwise.
pub(crate) fn request_language(req: &HttpRequest) -> Option<&'static str> {
    let raw = req.headers().get("language").and_then(|v| v.to_str().ok())?.trim();
    LANGUAGES.iter().copied().find(|language| *language == raw)
}

/// `getCharacterList {pageNo, pageSize, gender, tags?}` → `CharacterCard[]`; a page shorter
/// than `pageSize` is the last. Explicit (restricted) characters are listed only for
/// established members whose browser has adult content on. With `tags`, only characters
/// carrying one of them, those sharing more first (the landing pages' grid in one request).
pub async fn get_character_list(
    req: HttpRequest,
    state: web::Data<AppState>,
    viewing: Viewing,
    payload: Payload<ListRequest>,
) -> ApiResult<Vec<CharacterCard>> {
    let request = payload.into_inner();
    let page = PageRequest::parse(request.page_no, request.page_size)?;
    let gender = Gender::try_from(request.gender)?;
    let tags = request.tags.as_deref().map(TagFilter::parse).transpose()?;
    let viewer = viewing.viewer(&state);
    let viewer = if adult_content_off(&req) { viewer.without_adult_content() } else { viewer };
    let characters = &state.store.characters;
    let mut cards = match tags {
        None => characters.list_cards(gender, viewer, page).await?,
        Some(tags) => characters.list_cards_tagged(gender, &tags, viewer, page).await?,
    };
    if let Some(language) = request_language(&req) {
        cards.iter_mut().for_each(|card| localize_card(card, language));
    }
    Ok(ApiReply(cards))
}

#[derive(Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "CharacterInfoRequest")]
pub struct InfoRequest {
    character_id: String,
}

/// `getCharacterInfo {characterId}` → `Character`. A created character that is not public
/// is its creator's only; `creatorId` is sent to the creator only. A seeded character's
/// introduction and greeting come in the request's `language`.
pub async fn get_character_info(
    req: HttpRequest,
    state: web::Data<AppState>,
    viewing: Viewing,
    payload: Payload<InfoRequest>,
) -> ApiResult<Character> {
    let id = CharacterId::parse(&payload.into_inner().character_id)?;
    let user = viewing.user_id();
    let character = state.store.characters.get(&id).await?.filter(|c| viewing.viewer(&state).may_open(c, user));
    let hidden = character.is_some() && state.store.characters.is_hidden(&id).await?;
    match character {
        Some(mut character) if !hidden => {
            if character.creator_id.as_deref() != user.map(|u| u.as_str()) {
                character.creator_id = None;
            }
            if let Some(language) = request_language(&req) {
                localize_character(&mut character, language);
            }
            Ok(ApiReply(character))
        }
        _ => Err(ApiError::NotFound(format!("no character {id}"))),
    }
}
