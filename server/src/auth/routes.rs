//! Sign-in calls inside the envelope: mailed links, ID and password, Google credentials,
//! and sign-out.

use actix_web::{HttpRequest, HttpResponse, web};
use amora_domain::account::{EmailAddress, Password, UserNo};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::auth::accounts::{self, Provider, UserInfo};
use crate::auth::session::{self, MaybeSignedIn};
use crate::auth::{now, password, random_token, sign_in_pages, token_hash, utm_source};
use crate::state::AppState;

/// The answer of every successful sign-in: the voucher for app views, and the account.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "SignInResult")]
pub struct SignedInAnswer {
    voucher: String,
    user_info: UserInfo,
}

/// Sends the envelope with the session cookie attached.
fn signed_in_response(
    req: &HttpRequest,
    new_session: session::NewSession,
    user: &amora_domain::account::User,
) -> HttpResponse {
    let mut response = actix_web::Responder::respond_to(
        ApiReply(SignedInAnswer { voucher: new_session.voucher, user_info: UserInfo::from(user) }),
        req,
    );
    if let Err(error) = response.add_cookie(&new_session.cookie) {
        tracing::error!(%error, "cannot set the session cookie");
    }
    response
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SendLinkRequest {
    email_address: String,
    cf_token: String,
    /// Project extension (docs/api.md "Sign-in"): the page the visitor asked from, where the
    /// mailed link returns them (a path of this site; anything else returns home).
    #[serde(default)]
    #[ts(optional)]
    return_to: Option<String>,
}

/// `sendRegisterUserEmail {emailAddress, cfToken}` → `true` once the link is on its way.
/// The same answer whether or not the address has an account, so none can be enumerated.
pub async fn send_register_user_email(
    req: HttpRequest,
    state: web::Data<AppState>,
    payload: Payload<SendLinkRequest>,
) -> ApiResult<bool> {
    let request = payload.into_inner();
    let email = EmailAddress::parse(&request.email_address)?;
    let address = state.limits.address(&req);
    state.limits.sign_in_links_by_ip.check(&address)?;
    state.bot_check.verify(&request.cf_token, address).await?;
    accounts::ensure_not_blocked(&state, &[&email]).await?;
    state.limits.sign_in_links_by_email.check(&email.to_string())?;

    let token = random_token();
    let ttl = state.settings.accounts.sign_in_link_ttl_secs;
    state.store.sign_in_links.create(&token_hash(&token), &email, now() + ttl).await?;
    let base = state.settings.http.public_base_url.trim_end_matches('/');
    let mut link = format!("{base}/lust/api/login/v1/emailLoginBack?token={token}");
    // Only a path of this site travels in the link; the callback checks it again.
    let target = request.return_to.as_deref().map(|to| sign_in_pages::safe_return_target(base, to));
    if let Some(target) = target.filter(|target| target != "/") {
        link.push_str("&to=");
        link.extend(url::form_urlencoded::byte_serialize(target.as_bytes()));
    }
    state.mailer.send_sign_in_link(&email, &link, ttl / 60).await?;
    Ok(ApiReply(true))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PasswordLoginRequest {
    user_no: String,
    password: String,
}

/// `userPasswordLogin {userNo, password}` → `{voucher, userInfo}` and a session cookie.
pub async fn user_password_login(
    req: HttpRequest,
    state: web::Data<AppState>,
    payload: Payload<PasswordLoginRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = payload.into_inner();
    let address = state.limits.address(&req);
    state.limits.password_login_by_ip.check(&address)?;
    // Malformed IDs and passwords get the same answer as wrong ones: nothing to learn.
    let (Ok(user_no), Ok(attempt)) = (UserNo::parse(&request.user_no), Password::parse_attempt(&request.password))
    else {
        return Err(ApiError::AccountPwdError);
    };
    // Waits are per ID *and* address, so a guesser slows only itself (`auth::throttle`).
    let pair = (user_no.as_str().to_ascii_lowercase(), address);
    state.limits.password_guesses.check(&pair)?;
    let user = state.store.users.by_user_no(&user_no).await?;
    let stored = user.as_ref().and_then(|u| u.password_hash.clone());
    let matches = password::verify(attempt, stored).await?;
    let Some(user) = user.filter(|_| matches) else {
        state.limits.password_guesses.failed(&pair);
        return Err(ApiError::AccountPwdError);
    };
    state.limits.password_guesses.succeeded(&pair);
    // Only the right password learns of a suspension (session::start refuses it).
    let new_session = session::start(&state, &user).await?;
    // As the user's actor holds it (an old e-mail prefix name is replaced there).
    let user = state.node.account(&user.user_id).await?.unwrap_or(user);
    Ok(signed_in_response(&req, new_session, &user))
}

#[derive(Deserialize)]
pub struct GoogleSignUpRequest {
    credential: String,
}

/// `googleSignUp {credential}` (a Google ID token) → `{voucher, userInfo}`.
pub async fn google_sign_up(
    req: HttpRequest,
    state: web::Data<AppState>,
    payload: Payload<GoogleSignUpRequest>,
) -> Result<HttpResponse, ApiError> {
    let google =
        state.identity.google.clone().ok_or_else(|| ApiError::NotFound("Google sign-in is not configured".into()))?;
    let identity = google.verify(&payload.into_inner().credential, None).await?;
    let utm_source = utm_source(&req);
    let user = accounts::find_or_create_by_identity(&state, Provider::Google, identity, &utm_source).await?;
    let new_session = session::start(&state, &user).await?;
    // As the user's actor holds it (an old e-mail prefix name is replaced there).
    let user = state.node.account(&user.user_id).await?.unwrap_or(user);
    Ok(signed_in_response(&req, new_session, &user))
}

/// `signOut` → `true`; the session is revoked and the cookie cleared.
pub async fn sign_out(req: HttpRequest, state: web::Data<AppState>, signed_in: MaybeSignedIn) -> HttpResponse {
    if let Some(signed_in) = signed_in.0
        && let Err(error) =
            session::end(&state, &signed_in.user.user_id, session::Ending::One(&signed_in.session_hash)).await
    {
        return actix_web::ResponseError::error_response(&error);
    }
    let mut response = actix_web::Responder::respond_to(ApiReply(true), &req);
    if let Err(error) = response.add_cookie(&session::clearing_cookie(&state)) {
        tracing::error!(%error, "cannot clear the session cookie");
    }
    response
}
