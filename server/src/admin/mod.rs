//! The operator API under `/lust/admin` (plain JSON, not the browser envelope): create an
//! account (support staff, load-test set-up), credit or debit coins and set the VIP type
//! of a user found by `userNo` or email. Off unless
//! `admin.token` is set; the token comes as `Authorization: Bearer …`; every call is
//! logged. Changes go through the actors and the bus like any other. The operator's other
//! desks are its children: `content` (blog, reports, hidden characters), `feed` (the public
//! feed's moderation), `review` (created characters waiting for approval) and `payments`
//! (orders and refunds). The request types serialize as well as parse: `amora admin …`
//! (`main.rs`) sends these very types, so the command and the server cannot drift apart.

pub mod content;
pub mod feed;
pub mod operator;
pub mod payments;
pub mod review;

use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use amora_domain::account::{EmailAddress, Password, User, UserNo, parse_user_name};
use amora_domain::money::{Coins, TxnId};
use amora_store::{LedgerOutcome, UserChange};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::state::AppState;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/createUser", web::post().to(create_user))
        .route("/credit", web::post().to(credit))
        .route("/setVip", web::post().to(set_vip))
        .route("/suspend", web::post().to(suspend))
        .route("/unsuspend", web::post().to(unsuspend));
}

/// The token API's own routes, not the console's: operator accounts are made by
/// `amora admin create-operator` only (issue 33).
pub fn configure_operator_accounts(scope: &mut web::ServiceConfig) {
    operator::accounts::configure(scope);
}

/// Compares without an early exit, so response times say nothing about the token.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What an operator call can fail with; each maps to an HTTP status and a JSON reason.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AdminError {
    #[error("the operator API is off")]
    Off,
    #[error("bad admin token")]
    BadToken,
    /// The console without an operator session (or an expired, ended or disabled one).
    #[error("sign in as an operator")]
    SignedOut,
    /// A console route the operator's role does not allow, or a POST without the
    /// `X-Amora-Operator: 1` header.
    #[error("{0}")]
    Forbidden(String),
    #[error("too many attempts; wait and try again")]
    RateLimited,
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    /// The store or the event bus is briefly away: 503 with `Retry-After`; the call may
    /// be repeated (with the same `txnId` for a credit, which then applies once).
    #[error("temporarily unavailable (store or event bus); try again")]
    Unavailable,
    #[error("internal error; see the server log")]
    Internal,
}

impl actix_web::ResponseError for AdminError {
    fn status_code(&self) -> actix_web::http::StatusCode {
        use actix_web::http::StatusCode;
        match self {
            AdminError::Off => StatusCode::NOT_FOUND,
            AdminError::BadToken => StatusCode::UNAUTHORIZED,
            AdminError::SignedOut => StatusCode::UNAUTHORIZED,
            AdminError::Forbidden(_) => StatusCode::FORBIDDEN,
            AdminError::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            AdminError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AdminError::NotFound(_) => StatusCode::NOT_FOUND,
            AdminError::Conflict(_) => StatusCode::CONFLICT,
            AdminError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            AdminError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        if let AdminError::Unavailable = self {
            response.insert_header(("Retry-After", crate::api::error::RETRY_AFTER_SECS.to_string()));
        }
        response.json(json!({ "error": self.to_string() }))
    }
}

/// Around the whole scope: the token is checked before any extractor reads the body, so
/// someone without it cannot make the server parse anything.
pub async fn require_token(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    let verdict = match req.app_data::<web::Data<AppState>>() {
        Some(state) => authorised(req.request(), state),
        None => Err(internal("no application state")),
    };
    match verdict {
        Ok(()) => Ok(next.call(req).await?.map_into_boxed_body()),
        Err(error) => Ok(req.into_response(actix_web::ResponseError::error_response(&error))),
    }
}

/// Where Prometheus reads the node's metrics.
pub const METRICS_PATH: &str = "/metrics";

/// `/metrics` tells traffic per route and payments per state, so it is the operator's, as
/// the operator API is: the same bearer token, checked before the Prometheus middleware
/// (inside this one) answers; off while the operator API is off. Other paths pass.
pub async fn require_token_for_metrics(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    if req.path() != METRICS_PATH {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    require_token(req, next).await
}

pub(crate) fn authorised(req: &HttpRequest, state: &AppState) -> Result<(), AdminError> {
    // In the console (`/lust/operator/api`) the guard already signed an operator in and
    // checked its role; it alone puts this mark on a request, and it ignores the token.
    if req.extensions().get::<operator::SignedInOperator>().is_some() {
        return Ok(());
    }
    let expected = &state.settings.admin.token;
    if expected.is_empty() {
        return Err(AdminError::Off);
    }
    let presented = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    if same_secret(presented.as_bytes(), expected.as_bytes()) {
        Ok(())
    } else {
        tracing::warn!(target: "admin", path = req.path(), "admin call refused: bad token");
        Err(AdminError::BadToken)
    }
}

pub(crate) async fn find_user(state: &AppState, who: &str) -> Result<User, AdminError> {
    let found = if who.contains('@') {
        let email = EmailAddress::parse(who).map_err(|e| AdminError::BadRequest(e.to_string()))?;
        state.store.users.by_email(&email).await
    } else if let Ok(user_id) = amora_domain::account::UserId::parse(who)
        && UserNo::parse(who).is_err()
    {
        state.store.users.by_id(&user_id).await
    } else {
        let user_no = UserNo::parse(who).map_err(|e| AdminError::BadRequest(e.to_string()))?;
        state.store.users.by_user_no(&user_no).await
    };
    found.map_err(internal)?.ok_or_else(|| AdminError::NotFound(format!("no user {who}")))
}

/// What failed an operator call: `Unavailable` when the store (or the actor waiting on
/// it) was briefly away, a fault otherwise.
pub(crate) fn internal(error: impl Transience) -> AdminError {
    if error.is_temporary() {
        tracing::warn!(target: "admin", %error, "admin call answered 'try again'");
        return AdminError::Unavailable;
    }
    tracing::error!(target: "admin", %error, "admin call failed");
    AdminError::Internal
}

/// An error that may be temporary (a dependency briefly away) or a fault.
pub(crate) trait Transience: std::fmt::Display {
    fn is_temporary(&self) -> bool;
}

impl Transience for amora_store::StoreError {
    fn is_temporary(&self) -> bool {
        amora_store::StoreError::is_temporary(self)
    }
}

impl Transience for amora_actors::NodeError {
    fn is_temporary(&self) -> bool {
        amora_actors::NodeError::is_temporary(self)
    }
}

impl Transience for amora_actors::payments::BillingError {
    fn is_temporary(&self) -> bool {
        matches!(self, amora_actors::payments::BillingError::Store(error) if error.is_temporary())
    }
}

impl Transience for crate::api::error::ApiError {
    fn is_temporary(&self) -> bool {
        matches!(self, crate::api::error::ApiError::Unavailable(_))
    }
}

impl Transience for &str {
    fn is_temporary(&self) -> bool {
        false
    }
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateUserRequest {
    pub email: String,
    /// The display name; by default a generated one ("Sunny Otter"), never the address.
    pub user_name: Option<String>,
    /// Lets the user sign in with their `userNo` and this password (6–20 characters).
    pub password: Option<String>,
}

/// Creates an account as signing up by email would (with the new-account coins), and
/// optionally a password. 409 when the address has an account already.
async fn create_user(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<CreateUserRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let request = body.into_inner();
    let email = EmailAddress::parse(&request.email).map_err(|e| AdminError::BadRequest(e.to_string()))?;
    let user_name = request
        .user_name
        .as_deref()
        .map(parse_user_name)
        .transpose()
        .map_err(|e| AdminError::BadRequest(e.to_string()))?;
    let password = request
        .password
        .as_deref()
        .map(|raw| Password::parse_new(raw, "password"))
        .transpose()
        .map_err(|e| AdminError::BadRequest(e.to_string()))?;
    if state.store.users.by_email(&email).await.map_err(internal)?.is_some() {
        return Err(AdminError::Conflict(format!("{email} has an account already")));
    }
    let signup = crate::auth::accounts::Signup {
        email: Some(email.clone()),
        discord_email: None,
        google_subject: None,
        discord_id: None,
        user_name,
        utm_source: "admin".into(),
        language: "en".into(),
    };
    let mut user = match crate::auth::accounts::create(&state, signup).await {
        Ok(user) => user,
        // Another call created it between the look-up and the insert, or it was deleted lately.
        Err(crate::api::ApiError::ReRegisterWait) => {
            return Err(AdminError::Conflict(format!("{email} deleted its account lately and cannot register yet")));
        }
        Err(error) => match state.store.users.by_email(&email).await.map_err(internal)? {
            Some(_) => return Err(AdminError::Conflict(format!("{email} has an account already"))),
            None => return Err(internal(error)),
        },
    };
    if let Some(password) = password {
        let hash = crate::auth::password::hash(password).await.map_err(internal)?;
        user = state
            .store
            .users
            .update(&user.user_id, UserChange::PasswordHash(hash))
            .await
            .map_err(internal)?
            .ok_or_else(|| AdminError::NotFound("the new account is gone".into()))?;
    }
    // The user's id, never the address: the log outlives accounts and goes to log services.
    tracing::info!(target: "admin", user = %user.user_id, "admin create-user");
    Ok(HttpResponse::Ok().json(AccountAnswer {
        user_id: user.user_id.to_string(),
        user_no: user.user_no.as_str().to_owned(),
        coin: user.coin,
        user_vip_type: user.user_vip_type,
        outcome: "created",
    }))
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreditRequest {
    /// A `userNo` or an email address.
    pub user: String,
    /// Positive to credit, negative to debit.
    pub coins: i64,
    pub reason: Option<String>,
    /// Idempotency id; repeat it to make a retry safe. Generated when absent.
    pub txn_id: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AccountAnswer {
    user_id: String,
    user_no: String,
    coin: Coins,
    user_vip_type: i64,
    outcome: &'static str,
}

async fn credit(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<CreditRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let request = body.into_inner();
    // Bounded before any arithmetic: `-coins` of i64::MIN would overflow.
    let Ok(amount) = Coins::change(request.coins.checked_abs().unwrap_or(0)) else {
        return Err(AdminError::BadRequest(format!(
            "coins must be from 1 to {max} or from -{max} to -1",
            max = Coins::MAX_CHANGE
        )));
    };
    let user = find_user(&state, &request.user).await?;
    let reason = request.reason.unwrap_or_else(|| "admin".into());
    let txn_id = match request.txn_id {
        Some(raw) => TxnId::parse(&raw).map_err(|e| AdminError::BadRequest(e.to_string()))?,
        None => TxnId::derived("admin", &[&crate::auth::random_token()]),
    };
    tracing::info!(target: "admin", user = %user.user_id, coins = request.coins, %reason, %txn_id, "admin credit");
    let outcome = if request.coins > 0 {
        state.node.credit(&user.user_id, amount, &reason, txn_id).await
    } else {
        state.node.debit(&user.user_id, amount, &reason, txn_id).await
    };
    let (coin, label, status) = match outcome {
        Ok(LedgerOutcome::Applied { balance, .. }) => (balance, "applied", actix_web::http::StatusCode::OK),
        Ok(LedgerOutcome::Replayed { balance, .. }) => (balance, "replayed", actix_web::http::StatusCode::OK),
        Ok(LedgerOutcome::Insufficient { balance, .. }) => {
            (balance, "insufficient", actix_web::http::StatusCode::CONFLICT)
        }
        Ok(LedgerOutcome::NoAccount) => return Err(AdminError::NotFound("no such user".into())),
        Err(error) => return Err(internal(error)),
    };
    Ok(HttpResponse::build(status).json(AccountAnswer {
        user_id: user.user_id.to_string(),
        user_no: user.user_no.as_str().to_owned(),
        coin,
        user_vip_type: user.user_vip_type,
        outcome: label,
    }))
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetVipRequest {
    pub user: String,
    pub vip_type: i64,
}

async fn set_vip(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<SetVipRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let request = body.into_inner();
    if !(0..=100).contains(&request.vip_type) {
        return Err(AdminError::BadRequest("vipType must be from 0 to 100".into()));
    }
    let user = find_user(&state, &request.user).await?;
    tracing::info!(target: "admin", user = %user.user_id, vip_type = request.vip_type, "admin set-vip");
    // Through the user's actor: it tells the user's sockets (tokenCount, on which clients
    // refetch user info, spec §4) and the user's actors on other nodes.
    let updated = state
        .node
        .update_account(&user.user_id, UserChange::VipType(request.vip_type))
        .await
        .map_err(internal)?
        .ok_or_else(|| AdminError::NotFound("no such user".into()))?;
    Ok(HttpResponse::Ok().json(AccountAnswer {
        user_id: updated.user_id.to_string(),
        user_no: updated.user_no.as_str().to_owned(),
        coin: updated.coin,
        user_vip_type: updated.user_vip_type,
        outcome: "applied",
    }))
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserRequest {
    /// A `userNo` or an email address.
    pub user: String,
}

/// Suspends an account: it cannot sign in, and its sessions and sockets end everywhere.
async fn suspend(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<UserRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let user = find_user(&state, &body.user).await?;
    tracing::info!(target: "admin", user = %user.user_id, "admin suspend");
    crate::auth::accounts::suspend(&state, &user).await.map_err(internal)?;
    Ok(HttpResponse::Ok().json(answer(&user, "suspended")))
}

/// Lifts a suspension.
async fn unsuspend(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<UserRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let user = find_user(&state, &body.user).await?;
    tracing::info!(target: "admin", user = %user.user_id, "admin unsuspend");
    let lifted = crate::auth::accounts::unsuspend(&state, &user).await.map_err(internal)?;
    Ok(HttpResponse::Ok().json(answer(&user, if lifted { "unsuspended" } else { "notSuspended" })))
}

fn answer(user: &User, outcome: &'static str) -> AccountAnswer {
    AccountAnswer {
        user_id: user.user_id.to_string(),
        user_no: user.user_no.as_str().to_owned(),
        coin: user.coin,
        user_vip_type: user.user_vip_type,
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_equal_only_when_identical() {
        assert!(same_secret(b"token", b"token"));
        assert!(!same_secret(b"token", b"tokem"));
        assert!(!same_secret(b"token", b"token2"));
        assert!(!same_secret(b"", b"x"));
    }

    #[test]
    fn a_store_briefly_away_answers_503_with_retry_after_and_a_fault_500() {
        use actix_web::ResponseError;
        use amora_store::StoreError;
        let away = internal(StoreError::Unavailable("the query timed out".into()));
        let response = away.error_response();
        assert_eq!(response.status(), 503);
        assert_eq!(response.headers().get("retry-after").map(|v| v.as_bytes()), Some(&b"2"[..]));
        // The same through the user's actor, as a credit meets it.
        let user = amora_actors::user::UserError::from(StoreError::Unavailable("timed out".into()));
        assert_eq!(internal(amora_actors::NodeError::User(user)).status_code(), 503);
        assert_eq!(internal(amora_actors::NodeError::Mailbox(actix::MailboxError::Timeout)).status_code(), 503);
        assert_eq!(internal(StoreError::Corrupt("a bad row".into())).error_response().status(), 500);
    }
}
