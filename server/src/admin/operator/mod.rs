//! The operator console's API under `/lust/operator/api` (issue 33): operators sign in with
//! an e-mail, a password and a TOTP code and get an `amora_operator` cookie (HttpOnly,
//! SameSite=Strict, path `/lust/operator`, Secure over HTTPS); the shared admin token is
//! never accepted here. One guard wraps the whole scope and, for every route, signs the
//! operator in, checks its role against `policy`, requires `X-Amora-Operator: 1` on POST
//! (with the Strict cookie, what keeps other sites from posting), requires a `reason` on
//! acting routes, and writes the audit log entry with the outcome. The acting routes are
//! the `/lust/admin` handlers themselves (mounted again in this scope): the console and the
//! token API run the same code, through the same actors and ledger.

pub mod accounts;
pub mod content;
pub mod desks;
pub mod money;
pub mod policy;
pub mod sessions;
pub mod totp;
pub mod versions;

use actix_web::cookie::time::Duration as CookieDuration;
use actix_web::cookie::{Cookie, SameSite};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use amora_domain::account::Password;
use amora_store::{AuditEntry, Operator, OperatorSession};
use rand::Rng;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::admin::{AdminError, internal};
use crate::state::AppState;
use policy::Access;

pub const OPERATOR_COOKIE: &str = "amora_operator";
pub const OPERATOR_HEADER: &str = "x-amora-operator";
const COOKIE_PATH: &str = "/lust/operator";
pub const API_PREFIX: &str = "/lust/operator/api/";
/// An operator session lasts a working day.
const SESSION_SECS: i64 = 12 * 3600;
const REASON_MAX_CHARS: usize = 500;
const MAX_AUDIT_PAGE: u32 = 200;

/// The operator a console request was signed in as; only `guard` inserts it.
#[derive(Debug, Clone)]
pub struct SignedInOperator(pub Operator);

/// The console's own routes; the acting ones are `/lust/admin`'s, mounted beside them.
pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/signIn", web::post().to(sign_in))
        .route("/signOut", web::post().to(sign_out))
        .route("/me", web::get().to(me))
        .route("/audit", web::get().to(audit));
    desks::configure(scope);
    money::configure(scope);
    content::configure(scope);
    sessions::configure(scope);
}

/// An audit entry id: time-ordered (microseconds × 1000) with a random part so two
/// entries of one microsecond on two nodes stay apart.
fn entry_id() -> i64 {
    let micros =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_micros() as i64).unwrap_or(0);
    micros.saturating_mul(1000) + rand::thread_rng().gen_range(0..1000)
}

async fn write_audit(state: &AppState, operator_id: &str, action: &str, target: &str, reason: &str, outcome: &str) {
    let entry = AuditEntry {
        entry_id: entry_id(),
        operator_id: operator_id.to_owned(),
        action: action.to_owned(),
        target: target.to_owned(),
        reason: reason.to_owned(),
        outcome: outcome.to_owned(),
        at: crate::auth::now(),
    };
    // Also in the server log, so that a store briefly away loses no trace of the action.
    tracing::info!(target: "admin", operator = operator_id, action, target, outcome, "operator console");
    if let Err(error) = state.store.operators.record_audit(entry).await {
        tracing::error!(target: "admin", %error, operator = operator_id, action, "audit entry not stored");
    }
}

fn operator_cookie(state: &AppState, value: String, max_age: CookieDuration) -> Cookie<'static> {
    Cookie::build(OPERATOR_COOKIE, value)
        .path(COOKIE_PATH)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(state.settings.http.served_over_https())
        .max_age(max_age)
        .finish()
}

/// The operator of the request's cookie, while its session is live and it is not disabled.
async fn signed_in(state: &AppState, req: &HttpRequest) -> Result<Option<(Operator, String)>, AdminError> {
    let Some(cookie) = req.cookie(OPERATOR_COOKIE) else {
        return Ok(None);
    };
    let hash = crate::auth::token_hash(cookie.value());
    let operators = &state.store.operators;
    let Some(session) = operators.live_operator_session(&hash, crate::auth::now()).await.map_err(internal)? else {
        return Ok(None);
    };
    let operator = operators.operator_by_id(&session.operator_id).await.map_err(internal)?;
    Ok(operator.filter(|o| o.disabled_at.is_none()).map(|o| (o, hash)))
}

/// What an acting call names as its target, read from its body for the audit log.
fn target_of(body: &Value) -> String {
    const FIELDS: [&str; 12] = [
        "user",
        "orderId",
        "deliveryId",
        "characterId",
        "feedId",
        "reportId",
        "key",
        "email",
        "doc",
        "lang",
        "topic",
        "session",
    ];
    let mut parts: Vec<String> = FIELDS
        .iter()
        .filter_map(|field| body.get(*field).and_then(Value::as_str).map(|value| format!("{field} {value}")))
        .collect();
    if let Some(image) = body.get("imageId").and_then(Value::as_str) {
        parts.push(format!("imageId {image}"));
    }
    // A blog post names its key in the file's front matter.
    if let Some(key) = body.get("file").and_then(Value::as_str).and_then(|file| {
        file.lines().skip(1).take_while(|line| line.trim() != "---").find_map(|line| line.strip_prefix("key:"))
    }) {
        parts.push(format!("key {}", key.trim()));
    }
    parts.join(", ")
}

/// Around the whole console scope; see the module's comment.
pub async fn guard(
    mut req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    let refuse = |req: actix_web::dev::ServiceRequest, error: AdminError| {
        Ok(req.into_response(actix_web::ResponseError::error_response(&error)))
    };
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return refuse(req, internal("no application state"));
    };
    let path = req.path().strip_prefix(API_PREFIX).unwrap_or_default().to_owned();
    let Some(access) = policy::access(req.method(), &path) else {
        let error = AdminError::NotFound(format!("no console route {} {path}", req.method()));
        return refuse(req, error);
    };
    if req.method() == actix_web::http::Method::POST
        && req.headers().get(OPERATOR_HEADER).map(|v| v.as_bytes()) != Some(&b"1"[..])
    {
        return refuse(req, AdminError::Forbidden("console calls need the X-Amora-Operator: 1 header".into()));
    }
    if access == Access::Public {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let (operator, _) = match signed_in(&state, req.request()).await {
        Ok(Some(found)) => found,
        Ok(None) => return refuse(req, AdminError::SignedOut),
        Err(error) => return refuse(req, error),
    };
    let (needed, acting) = match access {
        Access::Read(role) => (Some(role), false),
        Access::Act(role) => (Some(role), true),
        Access::Session | Access::Public => (None, false),
    };
    // The body is read here, for the reason and the target, and handed on without the
    // reason (the handlers' request types refuse unknown fields) unless the route keeps it.
    let (reason, target) = if acting {
        let bytes = match req.extract::<web::Bytes>().await {
            Ok(bytes) => bytes,
            Err(error) => return refuse(req, AdminError::BadRequest(error.to_string())),
        };
        let mut body: Value = match serde_json::from_slice(&bytes) {
            Ok(value @ Value::Object(_)) => value,
            _ => return refuse(req, AdminError::BadRequest("the body must be a JSON object".into())),
        };
        let reason = body.get("reason").and_then(Value::as_str).map(str::trim).unwrap_or_default().to_owned();
        let target = target_of(&body);
        if reason.is_empty() || reason.chars().count() > REASON_MAX_CHARS {
            write_audit(&state, &operator.operator_id, &path, &target, &reason, "400 reason missing").await;
            return refuse(
                req,
                AdminError::BadRequest(format!("reason: required, 1 to {REASON_MAX_CHARS} characters")),
            );
        }
        if !policy::keeps_reason(&path)
            && let Some(object) = body.as_object_mut()
        {
            object.remove("reason");
        }
        let forwarded = serde_json::to_vec(&body).unwrap_or_default();
        req.set_payload(actix_web::dev::Payload::from(web::Bytes::from(forwarded)));
        (reason, target)
    } else {
        (String::new(), String::new())
    };
    if let Some(needed) = needed
        && !policy::allows(operator.role, needed)
    {
        if acting {
            write_audit(&state, &operator.operator_id, &path, &target, &reason, "403 role").await;
        }
        let message = format!("{path} needs the {} role; you are a {}", needed.as_str(), operator.role.as_str());
        return refuse(req, AdminError::Forbidden(message));
    }
    let operator_id = operator.operator_id.clone();
    req.extensions_mut().insert(SignedInOperator(operator));
    let response = next.call(req).await?.map_into_boxed_body();
    if acting {
        let status = response.status();
        let outcome = if status.is_success() { "ok".to_owned() } else { status.as_u16().to_string() };
        write_audit(&state, &operator_id, &path, &target, &reason, &outcome).await;
    }
    Ok(response)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SignInRequest {
    email: String,
    password: String,
    code: String,
}

/// `POST signIn {email, password, code}`: one answer for every wrong part, so a guesser
/// learns nothing of which; the same address and per-(operator, address) limits as users'
/// password sign-in.
async fn sign_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<SignInRequest>,
) -> Result<HttpResponse, AdminError> {
    let wrong = || AdminError::Forbidden("wrong e-mail, password or code".into());
    let request = body.into_inner();
    let address = state.limits.address(&req);
    state.limits.password_login_by_ip.check(&address).map_err(|_| AdminError::RateLimited)?;
    let email = request.email.trim().to_ascii_lowercase();
    let pair = (format!("operator:{email}"), address);
    state.limits.password_guesses.check(&pair).map_err(|_| AdminError::RateLimited)?;
    let operator = state.store.operators.operator_by_email(&email).await.map_err(internal)?;
    let stored = operator.as_ref().map(|o| o.password_hash.clone());
    let password_matches = match Password::parse_attempt(&request.password) {
        Ok(attempt) => crate::auth::password::verify(attempt, stored).await.map_err(internal)?,
        Err(_) => false,
    };
    let now_secs = u64::try_from(crate::auth::now()).unwrap_or(0);
    let matched = operator.filter(|o| password_matches && o.disabled_at.is_none()).and_then(|o| {
        let step = totp::matching_step(&o.totp_secret, &o.email, &request.code, now_secs)?;
        Some((o, i64::try_from(step).ok()?))
    });
    // A code that signed in once is refused after (someone who saw it over a shoulder, or
    // in a recorded screen, has the same 90 s it is valid): the same answer as a wrong one.
    let operator = match matched {
        Some((operator, step)) => state
            .store
            .operators
            .use_totp_step(&operator.operator_id, step)
            .await
            .map_err(internal)?
            .then_some(operator),
        None => None,
    };
    let Some(operator) = operator else {
        state.limits.password_guesses.failed(&pair);
        return Err(wrong());
    };
    state.limits.password_guesses.succeeded(&pair);
    let token = crate::auth::random_token();
    let now = crate::auth::now();
    let session = OperatorSession {
        token_hash: crate::auth::token_hash(&token),
        operator_id: operator.operator_id.clone(),
        created_at: now,
        expires_at: now + SESSION_SECS,
    };
    state.store.operators.create_operator_session(session).await.map_err(internal)?;
    write_audit(&state, &operator.operator_id, "signIn", "", "", "ok").await;
    let mut response = HttpResponse::Ok().json(operator_view(&operator));
    if let Err(error) = response.add_cookie(&operator_cookie(&state, token, CookieDuration::seconds(SESSION_SECS))) {
        tracing::error!(%error, "cannot set the operator cookie");
    }
    Ok(response)
}

fn operator_view(operator: &Operator) -> Value {
    json!({ "operatorId": operator.operator_id, "email": operator.email, "role": operator.role.as_str() })
}

async fn sign_out(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, AdminError> {
    if let Some((operator, hash)) = signed_in(&state, &req).await? {
        state.store.operators.revoke_operator_session(&hash).await.map_err(internal)?;
        write_audit(&state, &operator.operator_id, "signOut", "", "", "ok").await;
    }
    let mut response = HttpResponse::Ok().json(json!({ "outcome": "signedOut" }));
    if let Err(error) = response.add_cookie(&operator_cookie(&state, String::new(), CookieDuration::ZERO)) {
        tracing::error!(%error, "cannot clear the operator cookie");
    }
    Ok(response)
}

fn operator_of(req: &HttpRequest) -> Result<Operator, AdminError> {
    req.extensions().get::<SignedInOperator>().map(|s| s.0.clone()).ok_or(AdminError::SignedOut)
}

async fn me(req: HttpRequest) -> Result<HttpResponse, AdminError> {
    Ok(HttpResponse::Ok().json(operator_view(&operator_of(&req)?)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditQuery {
    /// The oldest `entryId` of the previous page.
    before: Option<String>,
    limit: Option<u32>,
}

/// `GET audit?before=&limit=`: the audit log, newest first.
async fn audit(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<AuditQuery>,
) -> Result<HttpResponse, AdminError> {
    operator_of(&req)?;
    let query = query.into_inner();
    let before = query
        .before
        .as_deref()
        .map(|raw| raw.parse::<i64>().map_err(|_| AdminError::BadRequest("before: must be an entryId".into())))
        .transpose()?;
    let limit = query.limit.unwrap_or(50).clamp(1, MAX_AUDIT_PAGE);
    let entries = state.store.operators.audit_log(before, limit).await.map_err(internal)?;
    let has_more = entries.len() == limit as usize;
    // Operators are few: their addresses, so the log reads by person rather than by id.
    let emails: std::collections::HashMap<String, String> = state
        .store
        .operators
        .operators()
        .await
        .map_err(internal)?
        .into_iter()
        .map(|operator| (operator.operator_id, operator.email))
        .collect();
    let entries: Vec<Value> = entries
        .into_iter()
        .map(|e| {
            json!({
                "entryId": e.entry_id.to_string(),
                "operatorEmail": emails.get(&e.operator_id),
                "operatorId": e.operator_id,
                "action": e.action,
                "target": e.target,
                "reason": e.reason,
                "outcome": e.outcome,
                "at": e.at,
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "entries": entries, "hasMore": has_more })))
}
