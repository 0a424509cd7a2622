//! Character cards over the API (docs/api.md `importCard`, `exportCard`): a card file
//! becomes a private character of the importer, checked like one made with the builder;
//! a character the caller may open leaves as a PNG card (its portrait with `chara` and
//! `ccv3` chunks) or V3 JSON, with Amora's fields in `extensions.amora`.

use std::io::Cursor;

use actix_web::web;
use amora_actors::moderation::Surface;
use amora_cards::Card;
use amora_domain::appearance::{Look, Shot, seed_for};
use amora_domain::character::{Character, CharacterAge, CharacterId, MIN_CHARACTER_AGE};
use amora_domain::creation::{CreateOptions, Draft, Looks, MyCharacter, PresetText, Style, ValidLooks, Visibility};
use amora_domain::gender::Gender;
use amora_store::{CreatedCharacter, MediaObject};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload, Upload};
use crate::auth::session::SignedIn;
use crate::creation::cards::{self, AmoraExtension};
use crate::creation::routes::{parse_field, save_new};
use crate::creation::{self, card_image, now_ms, portrait};
use crate::state::AppState;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct ImportRequest {
    /// The file's name as the user picked it (logged with a refusal).
    #[serde(default)]
    file_name: String,
    data: String,
    #[serde(default)]
    #[ts(as = "Option<u32>")]
    age: Option<i64>,
    #[serde(default)]
    #[ts(as = "Option<amora_domain::gender::Gender>")]
    gender: Option<i64>,
}

/// `character/importCard {fileName, data, age?, gender?}` → `MyCharacter` (private).
pub async fn import_card(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Upload<ImportRequest>,
) -> ApiResult<MyCharacter> {
    let user = &signed_in.user;
    // Before any work: each import may decode a picture and ask moderation (issue 28: 30
    // import/delete cycles in 14 s were all taken).
    state.limits.card_imports_by_user.check(&user.user_id.as_str().to_owned())?;
    let request = payload.into_inner();
    let bytes = B64.decode(request.data.trim()).map_err(|_| ApiError::Param("data: must be Base64".into()))?;
    let limits = cards::limits();
    let imported = amora_cards::import(&bytes, &limits).map_err(|error| {
        tracing::info!(file = %request.file_name.chars().take(100).collect::<String>(), code = error.code(), "card refused");
        cards::refused(&error)
    })?;
    let card = imported.card;
    let amora = AmoraExtension::of(&card);
    // The age the card states (Amora's extension, else its extensions, tags or text) is
    // taken rather than asked for; only a card that states none makes the client ask.
    let stated = amora.age.or_else(|| amora_cards::stated_age(&card));
    // A card stating a minor is refused whatever age the importer offers (no aged-up
    // characters): after moderation, which names the field when its words are the reason.
    let minor = stated.filter(|years| *years < i64::from(MIN_CHARACTER_AGE));
    let age = match minor {
        Some(_) => None,
        None => {
            let age = request.age.or(stated);
            Some(CharacterAge::parse(
                age.ok_or_else(|| ApiError::Param("characterAge: the card gives no age".into()))?,
            )?)
        }
    };
    let gender = match amora.gender.or(request.gender) {
        Some(code) => Gender::try_from(code)?,
        None => user.interested_gender,
    };
    let text = cards::text_of(&card, &limits)?;
    // Every string of the card, known field or not, under the character rule: before
    // anything is stored or drawn.
    let texts = cards::moderated_texts(&card);
    let fields = texts.iter().map(|(field, text)| (field.clone(), text.as_str()));
    creation::moderate(&state, Some(&user.user_id), Surface::CardField, fields).await?;
    let Some(age) = age else {
        return Err(ApiError::Refused(format!(
            "characterAge: the card says the character is {}; characters must be 18 or older",
            minor.unwrap_or_default()
        )));
    };
    let id = creation::new_character_id()?;
    let draft = draft_of(&state, &card, &text, &amora, &id, gender, age)?;
    let valid = creation::checked_draft(&state, &user.user_id, draft).await?;
    // After moderation, as `create` does: a card is refused for what it says whatever room
    // its importer has.
    creation::ensure_room(&state, &user.user_id).await?;
    let photo = match imported.portrait {
        Some(picture) => {
            // The header first, here: a picture too large to decode waits for no turn.
            card_image::checked_dimensions(&picture.bytes).map_err(|e| card_image_refused(&e))?;
            let _turn = state
                .limits
                .card_image_decodes
                .acquire()
                .await
                .map_err(|e| ApiError::Internal(format!("the card image decodes are closed: {e}")))?;
            let cleaned = web::block(move || card_image::clean_portrait(&picture.bytes))
                .await
                .map_err(|e| ApiError::Internal(format!("the portrait task stopped: {e}")))?
                .map_err(|e| card_image_refused(&e))?;
            portrait::store(&state.store, &id, cleaned.0).await?
        }
        None => {
            let spec = creation::portrait_spec(valid.looks(), valid.draft().style);
            // No preview to match: the character's own seed, as its later images have.
            portrait::draw_and_store(&state.store, &state.node.images, &state.settings.image, &id, &spec, seed_for(&id))
                .await?
        }
    };
    let mut character = valid.character(id, &user.user_id, photo.clone(), text.extras.clone());
    // The card's whole texts; the draft holds them cut to the builder's fields.
    character.personality = text.personality;
    character.greeting = text.greeting;
    character.scenario = text.scenario;
    let now = now_ms();
    let created = CreatedCharacter {
        character,
        draft: valid.into_draft(),
        imported: true,
        review_reason: None,
        media_ids: portrait::media_id_of(&photo).map(str::to_owned).into_iter().collect(),
        created_at: now,
        updated_at: now,
        status_at: now,
    };
    save_new(&state, created).await
}

/// A refused card picture as the API answers it: 10001, `card: <code>: <reason>`.
fn card_image_refused(error: &card_image::CardImageError) -> ApiError {
    ApiError::Param(format!("card: {}: {error}", error.code()))
}

/// The builder's draft of an imported card: its texts cut to the builder's fields, the
/// looks and style of `extensions.amora` when they are valid, else looks picked from the
/// character's seed; the first personality and relationship presets; private.
fn draft_of(
    state: &AppState,
    card: &Card,
    text: &cards::CardText,
    amora: &AmoraExtension,
    id: &CharacterId,
    gender: Gender,
    age: CharacterAge,
) -> Result<Draft, ApiError> {
    let options = CreateOptions::new(gender, Vec::new());
    let given_looks =
        amora.looks.clone().and_then(|value| parse_field::<Looks>(value, "looks").ok()).map(|mut looks| {
            looks.age = i64::from(age.years());
            looks
        });
    let looks = match given_looks {
        Some(looks) if ValidLooks::parse(gender, &looks).is_ok() => looks,
        _ => seeded_looks(&options, id, age),
    };
    let style = amora.style.clone().and_then(|key| parse_field::<Style>(serde_json::Value::String(key), "style").ok());
    let voice_id = amora
        .voice_id
        .clone()
        .filter(|voice| state.voices.voices().iter().any(|known| &known.voice_id == voice))
        .unwrap_or_default();
    let first = |list: &[amora_domain::creation::PresetKey]| list.first().map(|p| p.key.to_owned()).unwrap_or_default();
    let limits = amora_domain::creation::LIMITS;
    Ok(Draft {
        gender,
        style: style.unwrap_or_default(),
        looks,
        personality: PresetText {
            preset: first(&options.personalities),
            text: cut(&text.personality, limits.text_max),
        },
        relationship: PresetText { preset: first(&options.relationships), text: String::new() },
        voice_id,
        character_name: text.name.clone(),
        introduction: text.introduction.clone(),
        greeting: cut(&text.greeting, limits.greeting_max),
        scenario: cut(&text.scenario, limits.scenario_max),
        tags: text.tags.clone(),
        // Cards mark explicit characters with a tag; they get restricted exposure.
        nsfw: card.data.tags.iter().any(|tag| tag.trim().eq_ignore_ascii_case("nsfw")),
        visibility: Visibility::Private,
    })
}

/// Looks picked from the character's seed, one preset of each list: stable for the id.
fn seeded_looks(options: &CreateOptions, id: &CharacterId, age: CharacterAge) -> Looks {
    let seed = seed_for(id).to_le_bytes();
    let pick = |list: &[amora_domain::creation::PresetKey], byte: u8| {
        if list.is_empty() { String::new() } else { list[usize::from(byte) % list.len()].key.to_owned() }
    };
    Looks {
        age: i64::from(age.years()),
        ethnicity: pick(&options.ethnicities, seed[0]),
        eyes: pick(&options.eyes, seed[1]),
        hair_color: pick(&options.hair_colors, seed[2]),
        hair_style: pick(&options.hair_styles, seed[3]),
        body: pick(&options.bodies, seed[4]),
        outfit: pick(&options.outfits, seed[5]),
    }
}

fn cut(text: &str, max_chars: usize) -> String {
    amora_domain::text::truncate_chars(text.trim(), max_chars).trim_end().to_owned()
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportRequest {
    character_id: String,
    format: String,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportedCard {
    file_name: String,
    mime: &'static str,
    /// Base64 of the file.
    data: String,
}

/// `character/exportCard {characterId, format: "png"|"json"}` → `{fileName, mime, data}`:
/// the caller's own characters and public ones.
pub async fn export_card(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<ExportRequest>,
) -> ApiResult<ExportedCard> {
    let request = payload.into_inner();
    let id = CharacterId::parse(&request.character_id)?;
    let png = match request.format.as_str() {
        "png" => true,
        "json" => false,
        _ => return Err(ApiError::Param("format: must be png or json".into())),
    };
    let user = &signed_in.user.user_id;
    let viewer = signed_in.viewer(&state);
    let character = state
        .store
        .characters
        .get(&id)
        .await?
        .filter(|c| viewer.may_open(c, Some(user)))
        .ok_or_else(|| ApiError::NotFound(format!("no character {id}")))?;
    if state.store.characters.is_hidden(&id).await? {
        return Err(ApiError::NotFound(format!("no character {id}")));
    }
    let created = state.store.created.get(&id).await?;
    let amora = amora_of(&character, created.as_ref());
    let limits = cards::limits();
    let card = cards::card_for_export(&character, &amora, &limits);
    let name = file_stem(&character.card.character_name);
    let (file_name, mime, bytes) = if png {
        let portrait = portrait_png(&state, &character, created.as_ref()).await?;
        let bytes = web::block(move || amora_cards::export_png(&card, &portrait, &limits))
            .await
            .map_err(|e| ApiError::Internal(format!("the export task stopped: {e}")))?
            .map_err(|e| cards::refused(&e))?;
        (format!("{name}.png"), "image/png", bytes)
    } else {
        let bytes = amora_cards::export_json(&card, &limits).map_err(|e| cards::refused(&e))?;
        (format!("{name}.json"), "application/json", bytes)
    };
    Ok(ApiReply(ExportedCard { file_name, mime, data: B64.encode(bytes) }))
}

/// Amora's fields of a character: everything the builder chose for a created one, the age
/// and gender for a seeded one.
fn amora_of(character: &Character, created: Option<&CreatedCharacter>) -> AmoraExtension {
    let mut amora = AmoraExtension {
        age: Some(i64::from(character.card.character_age.years())),
        gender: Some(i64::from(character.card.gender.code())),
        ..AmoraExtension::default()
    };
    if let Some(created) = created {
        let d = &created.draft;
        amora.looks = serde_json::to_value(&d.looks).ok();
        amora.style = Some(d.style.key().to_owned());
        amora.voice_id = Some(d.voice_id.clone()).filter(|v| !v.is_empty());
    }
    amora
}

/// The character's portrait as PNG bytes: the stored PNG as it is (its pixels are not
/// touched), a JPEG converted, our own SVG drawings rendered; otherwise the illustrator's
/// drawing of its look.
async fn portrait_png(
    state: &AppState,
    character: &Character,
    created: Option<&CreatedCharacter>,
) -> Result<Vec<u8>, ApiError> {
    let stored = match character.card.character_photo.strip_prefix("/media/") {
        Some(media_id) => state.store.media.get(media_id).await?,
        None => None,
    };
    let look = match created.and_then(|c| ValidLooks::parse(c.draft.gender, &c.draft.looks).ok()) {
        Some(looks) => looks.look(),
        None => {
            let id = &character.card.character_id;
            amora_store::seed::look_of(id).unwrap_or_else(|| Look::from_seed(seed_for(id)))
        }
    };
    let gender = character.card.gender;
    web::block(move || to_png(stored, &look, gender))
        .await
        .map_err(|e| ApiError::Internal(format!("the portrait task stopped: {e}")))?
}

fn to_png(stored: Option<MediaObject>, look: &Look, gender: Gender) -> Result<Vec<u8>, ApiError> {
    use amora_actors::ai::image::illustrator::{SVG_CONTENT_TYPE, catalogue_svg, render_png};
    let rendered =
        |svg: &str| render_png(svg).map_err(|e| ApiError::Internal(format!("cannot draw the portrait: {e}")));
    match stored {
        Some(object) if object.content_type == "image/png" => Ok(object.bytes),
        Some(object) if object.content_type == "image/jpeg" => {
            let picture = image::load_from_memory_with_format(&object.bytes, image::ImageFormat::Jpeg)
                .map_err(|e| ApiError::Internal(format!("the stored portrait cannot be decoded: {e}")))?;
            let mut out = Cursor::new(Vec::new());
            picture
                .write_to(&mut out, image::ImageFormat::Png)
                .map_err(|e| ApiError::Internal(format!("cannot encode the portrait: {e}")))?;
            Ok(out.into_inner())
        }
        // Only the catalogue's own drawings are stored as SVG.
        Some(object) if object.content_type == SVG_CONTENT_TYPE => match std::str::from_utf8(&object.bytes) {
            Ok(svg) => rendered(svg),
            Err(_) => rendered(&catalogue_svg(look, gender, Shot::Portrait)),
        },
        _ => rendered(&catalogue_svg(look, gender, Shot::Portrait)),
    }
}

/// A file name from the character's name: letters, digits, spaces, '-' and '_'.
fn file_stem(name: &str) -> String {
    let kept: String = name.chars().filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_')).collect::<String>();
    let kept = kept.trim();
    if kept.is_empty() { "character".to_owned() } else { kept.to_owned() }
}
