//! The character builder and My AI (docs/api.md "Created characters"): the builder's
//! options and portrait previews (open to everyone: the builder works signed out), and a
//! signed-in user's characters: create, update, delete, duplicate, visibility, the list.

use actix_web::{HttpRequest, web};
use amora_domain::character::{CharacterId, CharacterStatus};
use amora_domain::creation::{CreateOptions, Draft, Looks, MyCharacter, Style, ValidLooks, Visibility, VoiceOption};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_store::CreatedCharacter;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::auth::session::SignedIn;
use crate::creation::portrait::{self, Preview};
use crate::creation::{self, now_ms};
use crate::state::AppState;
use amora_actors::moderation::Surface;

/// A value of the payload read on its own, so that an error names the field as the builder
/// does: a draft's fields by their own names (`style: unknown variant …`, not
/// `draft.style: …`), other values under `name` (`looks.age: …`, `visibility: …`).
pub(crate) fn parse_field<T: DeserializeOwned>(value: serde_json::Value, name: &str) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let text = error.into_inner().to_string();
        let reason = text.split(" at line ").next().unwrap_or(&text).to_owned();
        let field = match (path.as_str(), name) {
            (".", "") => "draft".to_owned(),
            (".", name) => name.to_owned(),
            (path, "") => path.to_owned(),
            (path, name) => format!("{name}.{path}"),
        };
        ApiError::Param(format!("{field}: {reason}"))
    })
}

#[derive(Deserialize, TS)]
pub struct OptionsRequest {
    #[ts(as = "amora_domain::gender::Gender")]
    gender: i64,
}

/// `character/getCreateOptions {gender}` → `CreateOptions` (the gender's presets and voices).
pub async fn get_create_options(
    state: web::Data<AppState>,
    payload: Payload<OptionsRequest>,
) -> ApiResult<CreateOptions> {
    let gender = Gender::try_from(payload.into_inner().gender)?;
    let voices = state
        .voices
        .voices()
        .into_iter()
        .filter(|voice| voice.gender == gender.code())
        .map(|voice| VoiceOption { voice_id: voice.voice_id, gender, label: voice.label })
        .collect();
    Ok(ApiReply(CreateOptions::new(gender, voices)))
}

#[derive(Deserialize, TS)]
pub struct PreviewRequest {
    #[ts(as = "amora_domain::gender::Gender")]
    gender: i64,
    #[serde(default)]
    #[ts(as = "amora_domain::creation::Style")]
    style: serde_json::Value,
    #[serde(default)]
    #[ts(as = "amora_domain::creation::Looks")]
    looks: serde_json::Value,
}

/// `character/previewPortrait {gender, style, looks}` → `{image, width, height}`: the
/// portrait these looks give, 320 px wide, as a PNG data URL. Every request counts
/// against the address's budget.
pub async fn preview_portrait(
    req: HttpRequest,
    state: web::Data<AppState>,
    payload: Payload<PreviewRequest>,
) -> ApiResult<Preview> {
    state.limits.portrait_previews_by_ip.check(&state.limits.address(&req))?;
    let request = payload.into_inner();
    let gender = Gender::try_from(request.gender)?;
    let style: Style = if request.style.is_null() { Style::default() } else { parse_field(request.style, "style")? };
    let looks: Looks = parse_field(request.looks, "looks")?;
    let looks = ValidLooks::parse(gender, &looks)?;
    // Open to visitors: no user to name in the moderation log.
    let described = looks.describe();
    creation::moderate(&state, None, Surface::CharacterText, [("looks".to_owned(), described.as_str())]).await?;
    let key = creation::looks_key(&looks, style);
    let spec = creation::portrait_spec(&looks, style);
    let preview = state.portraits.preview(&state.node.images, &state.settings.image, key, &spec).await?;
    Ok(ApiReply(preview.as_ref().clone()))
}

#[derive(Deserialize, TS)]
pub struct CreateRequest {
    #[ts(as = "amora_domain::creation::Draft")]
    draft: serde_json::Value,
}

/// `character/create {draft}` → `MyCharacter`: validated, moderated, its portrait drawn.
pub async fn create(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<CreateRequest>,
) -> ApiResult<MyCharacter> {
    let user = &signed_in.user.user_id;
    let valid = creation::checked_draft(&state, user, parse_field(payload.into_inner().draft, "")?).await?;
    creation::ensure_room(&state, user).await?;
    let id = creation::new_character_id()?;
    let spec = creation::portrait_spec(valid.looks(), valid.draft().style);
    // The seed of the looks, as the builder's preview drew them: the same face.
    let seed = portrait::looks_seed(&creation::looks_key(valid.looks(), valid.draft().style));
    let photo =
        portrait::draw_and_store(&state.store, &state.node.images, &state.settings.image, &id, &spec, seed).await?;
    let now = now_ms();
    let created = CreatedCharacter {
        character: valid.character(id, user, photo.clone(), Default::default()),
        draft: valid.into_draft(),
        imported: false,
        review_reason: None,
        media_ids: portrait::media_id_of(&photo).map(str::to_owned).into_iter().collect(),
        created_at: now,
        updated_at: now,
        status_at: now,
    };
    save_new(&state, created).await
}

/// Saves a new character if its creator has room for it (atomically: the store's
/// `save_new`), else 10003; its portrait goes when it is not saved, so nothing is left behind.
pub(crate) async fn save_new(state: &AppState, created: CreatedCharacter) -> ApiResult<MyCharacter> {
    let photo = created.character.card.character_photo.clone();
    let limit = creation::room_limit(state);
    let refusal = match state.store.created.save_new(created.clone(), limit).await {
        Ok(true) => None,
        Ok(false) => Some(creation::no_room(limit)),
        Err(error) => Some(error.into()),
    };
    if let Some(refusal) = refusal {
        if let Err(cleanup) = portrait::delete(&state.store, &photo).await {
            tracing::warn!(%cleanup, %photo, "the portrait of an unsaved character could not be deleted");
        }
        return Err(refusal);
    }
    tracing::info!(character = %created.character.card.character_id, imported = created.imported, "character created");
    Ok(ApiReply(created.into_view()))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UpdateRequest {
    character_id: String,
    #[ts(as = "amora_domain::creation::Draft")]
    draft: serde_json::Value,
}

/// `character/update {characterId, draft}` → `MyCharacter`: the creator's only; new looks
/// draw a new portrait; a character asked to be public (again) goes to review.
pub async fn update(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<UpdateRequest>,
) -> ApiResult<MyCharacter> {
    let user = &signed_in.user.user_id;
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let old = creation::owned(&state, user, &id).await?;
    let valid = creation::checked_draft(&state, user, parse_field(request.draft, "")?).await?;
    let d = valid.draft();
    let redraw = d.gender != old.draft.gender || d.style != old.draft.style || d.looks != old.draft.looks;
    let old_photo = old.character.card.character_photo.clone();
    let photo = if redraw {
        portrait::draw_and_store(
            &state.store,
            &state.node.images,
            &state.settings.image,
            &id,
            &creation::portrait_spec(valid.looks(), d.style),
            portrait::looks_seed(&creation::looks_key(valid.looks(), d.style)),
        )
        .await?
    } else {
        old_photo.clone()
    };
    let mut character = valid.character(id.clone(), user, photo.clone(), old.character.extras.clone());
    character.card.character_image_list = old.character.card.character_image_list.clone();
    if old.imported {
        // A card's texts are longer than the builder's fields: the draft holds them cut,
        // and what the creator did not touch keeps the card's whole text.
        if d.personality == old.draft.personality && d.relationship == old.draft.relationship {
            character.personality = old.character.personality.clone();
        }
        if d.greeting == old.draft.greeting {
            character.greeting = old.character.greeting.clone();
        }
        if d.scenario == old.draft.scenario {
            character.scenario = old.character.scenario.clone();
        }
    }
    let now = now_ms();
    let status_at = if character.status == old.character.status && character.status != CharacterStatus::Review {
        old.status_at
    } else {
        now
    };
    let mut media_ids = old.media_ids.clone();
    if redraw {
        media_ids.retain(|m| Some(m.as_str()) != portrait::media_id_of(&old_photo));
        media_ids.extend(portrait::media_id_of(&photo).map(str::to_owned));
    }
    let updated = CreatedCharacter {
        character,
        draft: valid.into_draft(),
        imported: old.imported,
        review_reason: None,
        media_ids,
        created_at: old.created_at,
        updated_at: now,
        status_at,
    };
    if let Err(error) = state.store.created.save(updated.clone()).await {
        if redraw {
            portrait::delete(&state.store, &photo).await.ok();
        }
        return Err(error.into());
    }
    if redraw {
        portrait::delete(&state.store, &old_photo).await?;
    }
    state.node.character_changed(&id).await;
    Ok(ApiReply(updated.into_view()))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "CharacterRef")]
pub struct CharacterRequest {
    character_id: String,
}

/// `character/delete {characterId}` → `true`: the creator's only.
pub async fn delete(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<CharacterRequest>,
) -> ApiResult<bool> {
    let id = CharacterId::parse(&payload.into_inner().character_id)?;
    creation::owned(&state, &signed_in.user.user_id, &id).await?;
    creation::delete(&state, &id).await?;
    tracing::info!(character = %id, "character deleted by its creator");
    Ok(ApiReply(true))
}

/// `character/duplicate {characterId}` → `MyCharacter`: a private copy, "Name (copy)".
pub async fn duplicate(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<CharacterRequest>,
) -> ApiResult<MyCharacter> {
    let user = &signed_in.user.user_id;
    let id = CharacterId::parse(&payload.into_inner().character_id)?;
    let original = creation::owned(&state, user, &id).await?;
    creation::ensure_room(&state, user).await?;
    let copy_id = creation::new_character_id()?;
    let old_photo = &original.character.card.character_photo;
    let photo = match portrait::media_id_of(old_photo) {
        Some(media_id) => match state.store.media.get(media_id).await? {
            Some(object) => portrait::store(&state.store, &copy_id, object).await?,
            None => old_photo.clone(),
        },
        None => old_photo.clone(),
    };
    let name = copy_name(&original.character.card.character_name);
    let mut draft: Draft = original.draft.clone();
    draft.character_name = name.clone();
    draft.visibility = Visibility::Private;
    let mut character = original.character.clone();
    character.card.character_id = copy_id;
    character.card.character_name = name;
    character.card.character_photo = photo.clone();
    character.status = CharacterStatus::Private;
    let now = now_ms();
    let copy = CreatedCharacter {
        character,
        draft,
        imported: original.imported,
        review_reason: None,
        media_ids: portrait::media_id_of(&photo).map(str::to_owned).into_iter().collect(),
        created_at: now,
        updated_at: now,
        status_at: now,
    };
    save_new(&state, copy).await
}

/// "Name (copy)", the name cut so that the whole stays within 40 characters.
fn copy_name(name: &str) -> String {
    const SUFFIX: &str = " (copy)";
    let max = amora_domain::creation::LIMITS.name_max - SUFFIX.chars().count();
    format!("{}{SUFFIX}", amora_domain::text::truncate_chars(name, max).trim_end())
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct VisibilityRequest {
    character_id: String,
    #[ts(as = "amora_domain::creation::Visibility")]
    visibility: serde_json::Value,
}

/// `character/setVisibility {characterId, visibility}` → `MyCharacter`: `private` takes it
/// out of the catalogue at once; `public` sends it to review (a public one stays public).
pub async fn set_visibility(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<VisibilityRequest>,
) -> ApiResult<MyCharacter> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let visibility: Visibility = parse_field(request.visibility, "visibility")?;
    let mut created = creation::owned(&state, &signed_in.user.user_id, &id).await?;
    let status = match (visibility, created.character.status) {
        (Visibility::Public, CharacterStatus::Public) => CharacterStatus::Public,
        (visibility, _) => visibility.status(),
    };
    if status != created.character.status {
        created.character.status = status;
        created.status_at = now_ms();
        created.review_reason = None;
    }
    created.draft.visibility = visibility;
    created.updated_at = now_ms();
    state.store.created.save(created.clone()).await?;
    state.node.character_changed(&id).await;
    Ok(ApiReply(created.into_view()))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MyListRequest {
    #[ts(type = "number")]
    page_no: i64,
    #[ts(type = "number")]
    page_size: i64,
}

/// `character/getMyCharacters {pageNo, pageSize}` → `MyCharacter[]`, newest first.
pub async fn get_my_characters(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<MyListRequest>,
) -> ApiResult<Vec<MyCharacter>> {
    let request = payload.into_inner();
    let page = PageRequest::parse(request.page_no, request.page_size)?;
    let list = state.store.created.list_by_creator(&signed_in.user.user_id, page).await?;
    Ok(ApiReply(list.into_iter().map(CreatedCharacter::into_view).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_s_name_stays_within_40_characters() {
        assert_eq!(copy_name("Lena"), "Lena (copy)");
        let long = "x".repeat(40);
        let copy = copy_name(&long);
        assert_eq!(copy.chars().count(), 40);
        assert!(copy.ends_with(" (copy)"));
    }
}
