//! The signed-in person's own account: info, profile, password, preferences, deletion.

use actix_web::{HttpRequest, HttpResponse, web};
use amora_actors::moderation::Surface;
use amora_domain::account::{Password, parse_language, parse_user_name};
use amora_domain::gender::Gender;
use amora_store::UserChange;
use serde::{Deserialize, Deserializer};
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::auth::accounts::{self, UserDetail, UserInfo};
use crate::auth::password;
use crate::auth::session::{self, MaybeSignedIn, SignedIn};
use crate::state::AppState;

/// `getUserInfo` → `UserInfo`, or `null` when no live session was sent (API.md §2).
pub async fn get_user_info(signed_in: MaybeSignedIn) -> ApiResult<Option<UserInfo>> {
    Ok(ApiReply(signed_in.0.map(|s| UserInfo::from(&s.user))))
}

/// `getOwnUserInfoDetail` → `UserDetail`.
pub async fn get_own_user_info_detail(signed_in: SignedIn) -> ApiResult<UserDetail> {
    Ok(ApiReply(UserDetail::from(&signed_in.user)))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct UpdateInfoRequest {
    user_name: Option<String>,
    user_avatar: Option<String>,
}

/// `updateUserInfo {userName?, userAvatar?}` → `UserInfo`. Avatars are media of this site
/// (`/media/...`) so that no profile can point browsers at a third party.
pub async fn update_user_info(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<UpdateInfoRequest>,
) -> ApiResult<UserInfo> {
    let request = payload.into_inner();
    // Before its length is checked: a refused name is refused whatever its length. It goes
    // into greetings and prompts, and other users may see it.
    if let Some(name) = request.user_name.as_deref() {
        let user = Some(&signed_in.user.user_id);
        state
            .node
            .moderator
            .check(Surface::DisplayName, user, name.trim())
            .await
            .map_err(|refusal| crate::creation::refused("userName", refusal))?;
    }
    let user_name = request.user_name.as_deref().map(parse_user_name).transpose()?;
    let user_avatar = request.user_avatar.map(|avatar| parse_avatar(&avatar)).transpose()?;
    let user = accounts::update(&state, &signed_in.user, UserChange::Profile { user_name, user_avatar }).await?;
    Ok(ApiReply(UserInfo::from(&user)))
}

fn parse_avatar(raw: &str) -> Result<String, ApiError> {
    let id = raw.strip_prefix("/media/").unwrap_or_default();
    let well_formed = raw.is_empty()
        || (!id.is_empty()
            && id.len() <= 100
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    if well_formed {
        Ok(raw.to_owned())
    } else {
        Err(ApiError::Param("userAvatar: must be an image of this site (/media/...)".into()))
    }
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct UpdatePasswordRequest {
    old_password: Option<String>,
    new_password: String,
}

/// `updateUserPassword {oldPassword?, newPassword}` → `true`. Changing an existing
/// password needs the old one; the first password of an account does not.
pub async fn update_user_password(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<UpdatePasswordRequest>,
) -> ApiResult<bool> {
    let request = payload.into_inner();
    let new_password = Password::parse_new(&request.new_password, "newPassword")?;
    if let Some(stored) = signed_in.user.password_hash.clone() {
        let old =
            request.old_password.ok_or_else(|| ApiError::Param("oldPassword: required to change a password".into()))?;
        let old = Password::parse_attempt(&old).map_err(|_| ApiError::AccountPwdError)?;
        // The same waits as signing in: a stolen session must not make guessing cheaper.
        let pair = (signed_in.user.user_no.as_str().to_ascii_lowercase(), state.limits.address(&req));
        state.limits.password_guesses.check(&pair)?;
        if !password::verify(old, Some(stored)).await? {
            state.limits.password_guesses.failed(&pair);
            return Err(ApiError::AccountPwdError);
        }
        state.limits.password_guesses.succeeded(&pair);
    }
    let hash = password::hash(new_password).await?;
    accounts::update(&state, &signed_in.user, UserChange::PasswordHash(hash)).await?;
    // Whoever else was signed in (perhaps with the old password) is signed out everywhere;
    // this session, in which the change was made, stays.
    session::end(&state, &signed_in.user.user_id, session::Ending::AllBut(&signed_in.session_hash)).await?;
    Ok(ApiReply(true))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct UpdateWebDataRequest {
    #[ts(as = "Option<Gender>")]
    interested_gender: Option<i64>,
    #[serde(default, deserialize_with = "flag")]
    nsfw: Option<bool>,
    language: Option<String>,
}

/// Browsers send the NSFW preference as `1`/`0` in headers and sometimes as such in bodies.
fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    match Option::<serde_json::Value>::deserialize(deserializer)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::Bool(value)) => Ok(Some(value)),
        Some(serde_json::Value::Number(n)) if n.as_i64() == Some(0) => Ok(Some(false)),
        Some(serde_json::Value::Number(n)) if n.as_i64() == Some(1) => Ok(Some(true)),
        Some(_) => Err(serde::de::Error::custom("expected true, false, 1 or 0")),
    }
}

/// `updateWebData {interestedGender?, nsfw?, language?}` → `true`.
pub async fn update_web_data(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<UpdateWebDataRequest>,
) -> ApiResult<bool> {
    let request = payload.into_inner();
    let interested_gender = request.interested_gender.map(Gender::try_from).transpose()?;
    let language = request.language.as_deref().map(parse_language).transpose()?;
    let change = UserChange::Preferences { interested_gender, nsfw: request.nsfw, language };
    accounts::update(&state, &signed_in.user, change).await?;
    Ok(ApiReply(true))
}

/// `deleteUser {}` → `true`: the account and its data are deleted, its sessions revoked
/// everywhere, and its email blocked from registering for 7 days.
pub async fn delete_user(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed_in: SignedIn,
    _empty: Payload<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    accounts::delete(&state, &signed_in.user).await?;
    let mut response = actix_web::Responder::respond_to(ApiReply(true), &req);
    if let Err(error) = response.add_cookie(&session::clearing_cookie(&state)) {
        tracing::error!(%error, "cannot clear the session cookie");
    }
    Ok(response)
}
