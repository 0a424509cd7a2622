//! Operator accounts through the token API (`/lust/admin/operators…`), which only
//! `amora admin create-operator | operators | disable-operator` calls: the console itself
//! never creates an operator, so the first admin is made on the server's shell.

use actix_web::{HttpRequest, HttpResponse, web};
use amora_domain::account::{EmailAddress, Password};
use amora_store::{Operator, OperatorRole, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::totp;
use crate::admin::{AdminError, authorised, internal};
use crate::state::AppState;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/operators", web::get().to(list))
        .route("/operators/create", web::post().to(create))
        .route("/operators/disable", web::post().to(disable));
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateOperatorRequest {
    pub email: String,
    /// `admin` or `moderator`.
    pub role: String,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OperatorEmailRequest {
    pub email: String,
}

/// An address as operators are keyed: validated, lower-cased.
fn operator_email(raw: &str) -> Result<String, AdminError> {
    let email = EmailAddress::parse(raw).map_err(|e| AdminError::BadRequest(e.to_string()))?;
    Ok(email.as_str().to_ascii_lowercase())
}

/// Creates an operator with a one-time password and a TOTP secret, both answered once
/// (as the password and the `otpauth://` address to scan); the store keeps the hash.
async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<CreateOperatorRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let request = body.into_inner();
    let email = operator_email(&request.email)?;
    let role = OperatorRole::parse(&request.role)
        .ok_or_else(|| AdminError::BadRequest("role: must be admin or moderator".into()))?;
    // 20 characters of a 256-bit random token: the longest a password may be here.
    let one_time: String = crate::auth::random_token().chars().take(20).collect();
    let password = Password::parse_new(&one_time, "password").map_err(|e| AdminError::BadRequest(e.to_string()))?;
    let password_hash = crate::auth::password::hash(password).await.map_err(internal)?;
    let secret = totp::new_secret();
    let uri = totp::otpauth_uri(&secret, &email).map_err(|e| internal(e.as_str()))?;
    let operator = Operator {
        operator_id: format!("op_{}", crate::auth::random_token().chars().take(16).collect::<String>()),
        email: email.clone(),
        password_hash,
        role,
        totp_secret: secret.clone(),
        created_at: crate::auth::now(),
        disabled_at: None,
    };
    let operator_id = operator.operator_id.clone();
    match state.store.operators.create_operator(operator).await {
        Ok(()) => {}
        Err(StoreError::Conflict(_)) => return Err(AdminError::Conflict(format!("{email} is an operator already"))),
        Err(error) => return Err(internal(error)),
    }
    tracing::info!(target: "admin", operator = %operator_id, role = role.as_str(), "admin create-operator");
    Ok(HttpResponse::Ok().json(json!({
        "operatorId": operator_id,
        "email": email,
        "role": role.as_str(),
        "password": one_time,
        "totpSecret": secret,
        "otpauthUri": uri,
    })))
}

async fn list(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let operators = state.store.operators.operators().await.map_err(internal)?;
    let views: Vec<_> = operators
        .into_iter()
        .map(|o| {
            json!({
                "operatorId": o.operator_id,
                "email": o.email,
                "role": o.role.as_str(),
                "createdAt": o.created_at,
                "disabledAt": o.disabled_at,
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "operators": views })))
}

/// Disables an operator: it cannot sign in again, and its sessions are refused at once.
async fn disable(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<OperatorEmailRequest>,
) -> Result<HttpResponse, AdminError> {
    authorised(&req, &state)?;
    let email = operator_email(&body.email)?;
    let operator = state
        .store
        .operators
        .operator_by_email(&email)
        .await
        .map_err(internal)?
        .ok_or_else(|| AdminError::NotFound(format!("no operator {email}")))?;
    state.store.operators.disable_operator(&operator.operator_id, crate::auth::now()).await.map_err(internal)?;
    tracing::info!(target: "admin", operator = %operator.operator_id, "admin disable-operator");
    Ok(HttpResponse::Ok().json(json!({ "operatorId": operator.operator_id, "outcome": "disabled" })))
}
