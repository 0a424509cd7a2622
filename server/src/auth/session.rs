//! Sessions: created at sign-in, returned as an HttpOnly cookie (web) and a `voucher`
//! (embedded app views, sent back in the `voucher` header); either signs a request in,
//! the cookie first.

use std::future::Future;
use std::pin::Pin;

use actix_web::cookie::time::Duration as CookieDuration;
use actix_web::cookie::{Cookie, SameSite};
use actix_web::{FromRequest, HttpRequest, web};
use amora_actors::sessions::KnownSession;
use amora_domain::account::{User, UserId};
use amora_domain::viewer::Viewer;
use amora_store::SessionRecord;

use super::{now, random_token, token_hash};
use crate::api::ApiError;
use crate::state::AppState;

pub const SESSION_COOKIE: &str = "amora_session";
pub const VOUCHER_HEADER: &str = "voucher";

/// A new session's secret, to hand to the browser once.
pub struct NewSession {
    pub voucher: String,
    pub cookie: Cookie<'static>,
}

/// Every sign-in ends here, so this is where a suspended account is refused (10005).
pub async fn start(state: &AppState, user: &User) -> Result<NewSession, ApiError> {
    let voucher = random_token();
    let created_at = now();
    let ttl = state.settings.accounts.session_ttl_secs;
    let hash = token_hash(&voucher);
    state
        .store
        .sessions
        .create(SessionRecord {
            token_hash: hash.clone(),
            user_id: user.user_id.clone(),
            created_at,
            expires_at: created_at + ttl,
        })
        .await?;
    // Checked after the session exists: a suspension writes its flag before ending the
    // sessions, so one racing with it is either ended by it or refused here.
    if state.store.suspensions.suspended_since(&user.user_id).await?.is_some() {
        state.store.sessions.revoke(&hash).await?;
        return Err(ApiError::Suspended);
    }
    let cookie = session_cookie(state, voucher.clone(), CookieDuration::seconds(ttl));
    Ok(NewSession { voucher, cookie })
}

/// Which sessions of a user end.
pub enum Ending<'a> {
    /// The one with this hash (sign-out).
    One(&'a str),
    /// All but the one with this hash (a password change, made in that one).
    AllBut(&'a str),
    /// All (deletion, suspension).
    All,
}

/// Ends sessions in the store, then tells every socket of the user on every node to check
/// its own: a socket whose session ended closes, and none runs another action meanwhile
/// (`chat::socket` checks the session before each).
pub async fn end(state: &AppState, user_id: &amora_domain::account::UserId, which: Ending<'_>) -> Result<(), ApiError> {
    let sessions = &state.store.sessions;
    match which {
        Ending::One(hash) => sessions.revoke(hash).await?,
        Ending::AllBut(keep) => sessions.revoke_others(user_id, keep).await?,
        Ending::All => sessions.revoke_all(user_id).await?,
    }
    state.node.sessions_ended(user_id).await;
    Ok(())
}

/// The cookie that removes the session cookie from the browser.
pub fn clearing_cookie(state: &AppState) -> Cookie<'static> {
    session_cookie(state, String::new(), CookieDuration::ZERO)
}

fn session_cookie(state: &AppState, value: String, max_age: CookieDuration) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, value)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        // Secure only where served over HTTPS, or a local http:// install could never sign in.
        .secure(state.settings.http.served_over_https())
        .max_age(max_age)
        .finish()
}

/// The credentials a request carries: the session cookie (browsers) and the `voucher`
/// header (the mobile app's views, API.md 1.2).
pub struct Presented {
    pub cookie: Option<String>,
    pub voucher: Option<String>,
}

impl Presented {
    /// The tokens to try, the cookie first (`lookup_presented` says why).
    fn in_order(self) -> impl Iterator<Item = String> {
        [self.cookie, self.voucher].into_iter().flatten()
    }
}

/// `Presented` from a request's headers alone (the socket's upgrade has no `HttpRequest`).
/// The cookie is read as actix-web's `HttpRequest::cookie` reads it.
pub fn presented_in(headers: &actix_web::http::header::HeaderMap) -> Presented {
    let voucher = headers
        .get(VOUCHER_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty() && v.len() <= 100)
        .map(str::to_owned);
    Presented { cookie: session_cookie_value(headers), voucher }
}

/// Looks up who a request is: the cookie's session while it is live, else the voucher's.
/// The cookie wins because a voucher can be planted: `?appVoucher=` in a link puts one in
/// the browser's storage, and a voucher that outranked the cookie would silently turn a
/// signed-in visitor into the link's author (login CSRF, issue 28; docs/security.md
/// "Vouchers in links"). An app's view has no cookie, so its voucher signs it in.
pub async fn lookup_presented(state: &AppState, presented: Presented) -> Result<Option<SignedIn>, ApiError> {
    for token in presented.in_order() {
        if let Some(signed_in) = lookup_token(state, &token).await? {
            return Ok(Some(signed_in));
        }
    }
    Ok(None)
}

/// The session cookie's value, if the request carries one (not yet looked up).
pub(crate) fn session_cookie_value(headers: &actix_web::http::header::HeaderMap) -> Option<String> {
    let mut found = None;
    for value in headers.get_all(actix_web::http::header::COOKIE) {
        let value = std::str::from_utf8(value.as_bytes()).ok()?;
        for part in value.split(';').map(str::trim).filter(|part| !part.is_empty()) {
            if let Ok(cookie) = Cookie::parse_encoded(part)
                && found.is_none()
                && cookie.name() == SESSION_COOKIE
            {
                found = Some(cookie.value().to_owned());
            }
        }
    }
    found.filter(|v| !v.is_empty())
}

/// A signed-in request: the account and the hash of the session it came with.
pub struct SignedIn {
    pub user: User,
    pub session_hash: String,
}

impl SignedIn {
    /// How the catalogue treats this person.
    pub fn viewer(&self, state: &AppState) -> Viewer {
        account_viewer(state, self.user.created_at)
    }
}

/// Looks the request's session up; `None` when it has none or it is dead.
pub async fn lookup(state: &AppState, req: &HttpRequest) -> Result<Option<SignedIn>, ApiError> {
    lookup_presented(state, presented_in(req.headers())).await
}

/// Looks a session token (voucher) up.
pub async fn lookup_token(state: &AppState, token: &str) -> Result<Option<SignedIn>, ApiError> {
    let Some(found) = known_session(state, token).await? else { return Ok(None) };
    // The account as the user's actor on this node holds it, read once per actor.
    let user = match found.user {
        Some(user) => Some(user),
        None => state.node.account(&found.session.user_id).await?,
    };
    Ok(user.map(|user| SignedIn { user, session_hash: found.hash }))
}

/// A token's live session, and the account when it had to be read for it.
struct Found {
    hash: String,
    session: KnownSession,
    user: Option<User>,
}

/// Who a token signs in: from the sessions this node holds (`actors::sessions`) while the
/// bus is healthy, so that ending a session anywhere reaches this node; else from the
/// store, the account read through the user's actor and the session kept for the next
/// request. `None` when the token has no live session or its account is gone.
async fn known_session(state: &AppState, token: &str) -> Result<Option<Found>, ApiError> {
    if token.is_empty() || token.len() > 100 {
        return Ok(None);
    }
    let hash = token_hash(token);
    let sessions = &state.node.sessions;
    let healthy = state.node.bus.is_healthy();
    if healthy && let Some(session) = sessions.get(&hash, now()) {
        return Ok(Some(Found { hash, session, user: None }));
    }
    // Taken before the read: a session that ends meanwhile is then not kept.
    let generation = sessions.generation();
    let Some(record) = state.store.sessions.find_live(&hash, now()).await? else {
        return Ok(None);
    };
    let Some(user) = state.node.account(&record.user_id).await? else { return Ok(None) };
    let session =
        KnownSession { user_id: record.user_id, account_created_at: user.created_at, expires_at: record.expires_at };
    if healthy {
        sessions.keep(&hash, session.clone(), generation);
    }
    Ok(Some(Found { hash, session, user: Some(user) }))
}

/// How the catalogue treats an account created at `created_at` (seconds).
fn account_viewer(state: &AppState, created_at: i64) -> Viewer {
    Viewer::of_account(now() - created_at, state.settings.accounts.established_after_secs)
}

fn app_state(req: &HttpRequest) -> Result<web::Data<AppState>, ApiError> {
    req.app_data::<web::Data<AppState>>().cloned().ok_or_else(|| ApiError::Internal("no application state".into()))
}

/// Extracting `SignedIn` answers `tokenInvalid` (10004) when there is no live session.
impl FromRequest for SignedIn {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let state = app_state(&req)?;
            lookup(&state, &req).await?.ok_or(ApiError::TokenInvalid)
        })
    }
}

/// Who a request is signed in as, without the account (the catalogue's routes): answered
/// from the node's sessions without a message to the user's actor when it can be.
pub struct Viewing(pub Option<KnownSession>);

impl Viewing {
    pub fn viewer(&self, state: &AppState) -> Viewer {
        self.0.as_ref().map_or(Viewer::SignedOut, |session| account_viewer(state, session.account_created_at))
    }

    pub fn user_id(&self) -> Option<&UserId> {
        self.0.as_ref().map(|session| &session.user_id)
    }
}

impl FromRequest for Viewing {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let state = app_state(&req)?;
            for token in presented_in(req.headers()).in_order() {
                if let Some(found) = known_session(&state, &token).await? {
                    return Ok(Viewing(Some(found.session)));
                }
            }
            Ok(Viewing(None))
        })
    }
}

/// A request that may or may not be signed in.
pub struct MaybeSignedIn(pub Option<SignedIn>);

impl MaybeSignedIn {
    pub fn viewer(&self, state: &AppState) -> Viewer {
        self.0.as_ref().map_or(Viewer::SignedOut, |signed_in| signed_in.viewer(state))
    }
}

impl FromRequest for MaybeSignedIn {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let state = app_state(&req)?;
            Ok(MaybeSignedIn(lookup(&state, &req).await?))
        })
    }
}
