//! Sign-in steps that browsers reach by navigation, not by API call: the mailed link and
//! the Google and Discord redirects and callbacks. They answer with redirects, set the
//! session cookie, and return people to the page they started from (same origin only).

use actix_web::cookie::time::Duration as CookieDuration;
use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use crate::api::ApiError;
use crate::auth::accounts::{self, Provider};
use crate::auth::oauth::ProvenIdentity;
use crate::auth::oauth_flow::{self, FLOW_TTL_SECS, Flow};
use crate::auth::utm_source;
use crate::auth::{now, session, token_hash};
use crate::state::AppState;

/// Where a deleted account's owner lands: home shows the 7-day message (spec §8).
const DELETED_ACCOUNT_TARGET: &str = "/?showNoAccountError=1";
const FLOW_COOKIE: &str = "amora_oauth";

fn redirect(to: &str) -> HttpResponse {
    HttpResponse::Found().insert_header((LOCATION, to)).finish()
}

/// Signs `user` in and sends them to `target`; a deletion block sends them home with the notice.
async fn finish_sign_in(
    state: &AppState,
    user: Result<amora_domain::account::User, ApiError>,
    target: &str,
) -> HttpResponse {
    let user = match user {
        Ok(user) => user,
        Err(ApiError::ReRegisterWait) => return redirect(DELETED_ACCOUNT_TARGET),
        Err(error) => return failed(error),
    };
    match session::start(state, &user).await {
        Ok(new_session) => {
            let mut response = redirect(target);
            if let Err(error) = response.add_cookie(&new_session.cookie) {
                tracing::error!(%error, "cannot set the session cookie");
            }
            response
        }
        Err(error) => failed(error),
    }
}

fn failed(error: ApiError) -> HttpResponse {
    if let ApiError::Internal(cause) = &error {
        tracing::error!(%cause, "sign-in failed");
    }
    redirect("/?signInFailed=1")
}

#[derive(Deserialize)]
pub struct LinkQuery {
    token: String,
    /// The page the link was asked for from (`sendRegisterUserEmail`'s `returnTo`).
    #[serde(default)]
    to: Option<String>,
}

/// `GET /lust/api/login/v1/emailLoginBack?token=…[&to=<path>]`: the mailed link. Works once,
/// within its lifetime; returns to `to` when it is a path of this site, else home.
pub async fn email_login_back(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<LinkQuery>,
) -> HttpResponse {
    let email = match state.store.sign_in_links.consume(&token_hash(&query.token), now()).await {
        Ok(Some(email)) => email,
        Ok(None) => return redirect("/?signInLinkExpired=1"),
        Err(error) => return failed(error.into()),
    };
    let user = accounts::find_or_create_by_email(&state, &email, &utm_source(&req)).await;
    let target = query
        .to
        .as_deref()
        .map_or_else(|| "/".to_owned(), |to| safe_return_target(&state.settings.http.public_base_url, to));
    finish_sign_in(&state, user, &target).await
}

/// Turns the page address a flow started from into a safe place to return to: a path of
/// this site, never another origin. The path itself is checked too: browsers read a
/// `Location` of `//host` or `/\\host` as another host (scheme-relative), so a path such as
/// `http://site//evil.example` would leave the site although its origin is ours.
pub fn safe_return_target(public_base_url: &str, state: &str) -> String {
    let Ok(base) = url::Url::parse(public_base_url) else {
        return "/".into();
    };
    match base.join(state) {
        Ok(target) if target.origin() == base.origin() && is_local_path(target.path()) => {
            let mut path = target.path().to_owned();
            if let Some(query) = target.query() {
                path.push('?');
                path.push_str(query);
            }
            path
        }
        _ => "/".into(),
    }
}

/// A path that every browser resolves against this site: one slash, then anything but a
/// second slash or a backslash.
fn is_local_path(path: &str) -> bool {
    let mut bytes = path.bytes();
    bytes.next() == Some(b'/') && !matches!(bytes.next(), Some(b'/' | b'\\'))
}

fn callback_url(state: &AppState, path: &str) -> String {
    format!("{}/lust/api/{path}", state.settings.http.public_base_url.trim_end_matches('/'))
}

/// The flow cookie ties a callback to the browser that started the flow.
fn flow_cookie(state: &AppState, value: String, ttl: i64) -> Cookie<'static> {
    Cookie::build(FLOW_COOKIE, value)
        .path("/lust/api")
        .http_only(true)
        // Lax: it must come back on the provider's top-level redirect to us.
        .same_site(SameSite::Lax)
        .secure(state.settings.http.served_over_https())
        .max_age(CookieDuration::seconds(ttl))
        .finish()
}

#[derive(Deserialize)]
pub struct StartQuery {
    #[serde(default)]
    state: String,
}

/// Sends the browser to the provider with a new flow (`auth::oauth_flow`) in its cookie.
async fn start_flow(
    state: &AppState,
    flow: Flow,
    authorize: impl FnOnce(&Flow) -> Result<String, ApiError>,
) -> HttpResponse {
    let url = match authorize(&flow) {
        Ok(url) => url,
        Err(error) => return failed(error),
    };
    let value = match oauth_flow::begin(&state.store, &state.settings.oauth, &flow).await {
        Ok(value) => value,
        Err(error) => return failed(error),
    };
    let mut response = redirect(&url);
    if let Err(error) = response.add_cookie(&flow_cookie(state, value, FLOW_TTL_SECS)) {
        tracing::error!(%error, "cannot set the flow cookie");
    }
    response
}

/// The flow this browser started for `provider`, used up; `None` when there is none to use.
async fn take_flow(req: &HttpRequest, state: &AppState, provider: &str, returned_state: &str) -> Option<Flow> {
    let cookie = req.cookie(FLOW_COOKIE);
    match oauth_flow::finish(
        &state.store,
        &state.settings.oauth,
        cookie.as_ref().map(|c| c.value()),
        provider,
        returned_state,
    )
    .await
    {
        Ok(flow) => flow,
        Err(error) => {
            tracing::error!(%error, "the sign-in flow could not be checked");
            None
        }
    }
}

/// `GET /lust/api/googleLogin?state=<page>`: off to Google with a nonce bound to this browser.
pub async fn google_login(state: web::Data<AppState>, query: web::Query<StartQuery>) -> HttpResponse {
    let Some(google) = state.identity.google.clone() else {
        return redirect("/?signInUnavailable=google");
    };
    let redirect_uri = callback_url(&state, "googleLoginBack");
    let flow = Flow::new("google", &query.state);
    start_flow(&state, flow, |flow| google.authorize_url(&redirect_uri, flow)).await
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    #[serde(default)]
    state: String,
    error: Option<String>,
}

/// `GET /lust/api/googleLoginBack?code&state`: exchange, verify (nonce included), sign in.
pub async fn google_login_back(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<CallbackQuery>,
) -> HttpResponse {
    let Some(google) = state.identity.google.clone() else {
        return redirect("/?signInUnavailable=google");
    };
    let flow = take_flow(&req, &state, "google", &query.state).await;
    let (Some(code), Some(flow)) = (query.code.as_deref(), flow) else {
        tracing::info!(error = ?query.error, "google callback without a code or a matching flow");
        return redirect("/?signInFailed=1");
    };
    let target = safe_return_target(&state.settings.http.public_base_url, &flow.page);
    let redirect_uri = callback_url(&state, "googleLoginBack");
    let identity = match google.exchange_code(code, &redirect_uri, &flow.verifier).await {
        Ok(id_token) => google.verify(&id_token, Some(&flow.nonce)).await,
        Err(error) => Err(error),
    };
    sign_in_identity(&req, &state, Provider::Google, identity, &target).await
}

/// `GET /lust/api/discordLogin?state=<page>`: off to Discord.
pub async fn discord_login(state: web::Data<AppState>, query: web::Query<StartQuery>) -> HttpResponse {
    let Some(discord) = state.identity.discord.clone() else {
        return redirect("/?signInUnavailable=discord");
    };
    let redirect_uri = callback_url(&state, "discordLoginBack");
    let flow = Flow::new("discord", &query.state);
    start_flow(&state, flow, |flow| discord.authorize_url(&redirect_uri, flow)).await
}

/// `GET /lust/api/discordLoginBack?code&state`: exchange, identify, sign in.
pub async fn discord_login_back(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<CallbackQuery>,
) -> HttpResponse {
    let Some(discord) = state.identity.discord.clone() else {
        return redirect("/?signInUnavailable=discord");
    };
    let flow = take_flow(&req, &state, "discord", &query.state).await;
    let (Some(code), Some(flow)) = (query.code.as_deref(), flow) else {
        tracing::info!(error = ?query.error, "discord callback without a code or a matching flow");
        return redirect("/?signInFailed=1");
    };
    let target = safe_return_target(&state.settings.http.public_base_url, &flow.page);
    let identity = discord.identify(code, &callback_url(&state, "discordLoginBack"), &flow.verifier).await;
    sign_in_identity(&req, &state, Provider::Discord, identity, &target).await
}

async fn sign_in_identity(
    req: &HttpRequest,
    state: &AppState,
    provider: Provider,
    identity: Result<ProvenIdentity, ApiError>,
    target: &str,
) -> HttpResponse {
    let user = match identity {
        Ok(identity) => accounts::find_or_create_by_identity(state, provider, identity, &utm_source(req)).await,
        Err(error) => Err(error),
    };
    let mut response = finish_sign_in(state, user, target).await;
    if let Err(error) = response.add_cookie(&flow_cookie(state, String::new(), 0)) {
        tracing::error!(%error, "cannot clear the flow cookie");
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_same_origin_targets_are_followed() {
        let base = "http://localhost:8080";
        assert_eq!(safe_return_target(base, "http://localhost:8080/chat/gf-001?x=1"), "/chat/gf-001?x=1");
        assert_eq!(safe_return_target(base, "/ai-boyfriend"), "/ai-boyfriend");
        assert_eq!(safe_return_target(base, "https://evil.example/steal"), "/");
        assert_eq!(safe_return_target(base, "//evil.example/steal"), "/");
        assert_eq!(safe_return_target(base, "http://localhost:9999/"), "/");
        assert_eq!(safe_return_target(base, ""), "/");
        assert_eq!(safe_return_target(base, "http://localhost:8080//evil.example/x"), "/");
        assert_eq!(safe_return_target(base, "/.//evil.example"), "/");
        assert_eq!(safe_return_target(base, "/\\evil.example"), "/");
    }
}
