//! The one API error type. Every layer's error converts into it here, and it renders as
//! an envelope with the code of API.md §1.3. Causes go to the log, never to the client.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use amora_store::StoreError;
use serde_json::json;

use super::ApiCode;
use crate::envelope::EnvelopeError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A payload field is missing or invalid; the text names the field.
    #[error("{0}")]
    Param(String),
    #[error("{0}")]
    Envelope(String),
    #[error("rate limited")]
    RateLimited,
    /// A limit of what an account may have was reached (10003); the text says which.
    #[error("{0}")]
    LimitReached(String),
    /// Content the community guidelines forbid (10070); the text names the field.
    #[error("{0}")]
    Refused(String),
    /// No live session where one is required.
    #[error("no valid session")]
    TokenInvalid,
    /// The email's account was deleted less than the block period ago.
    #[error("re-registration blocked")]
    ReRegisterWait,
    #[error("bot check failed")]
    BotCheckFailed,
    /// Wrong ID or password; the same answer for both so IDs cannot be enumerated.
    #[error("wrong ID or password")]
    AccountPwdError,
    #[error("not found: {0}")]
    NotFound(String),
    /// An operator suspended the account: it may not sign in (10005, `forbidden`).
    #[error("this account is suspended")]
    Suspended,
    /// The body is larger than the endpoint accepts: HTTP 413, no envelope (API.md §1.4).
    #[error("payload too large")]
    PayloadTooLarge,
    /// The body did not arrive within `http.request_timeout_secs`: HTTP 408, connection closed.
    #[error("request body too slow")]
    RequestTimeout,
    /// A plan while another is in force, until this time (seconds): 10018.
    #[error("a plan is in force")]
    CannotPurchasePlan(i64),
    /// A chat action was refused or failed; the chat error knows its code.
    #[error("chat: {0}")]
    Chat(amora_actors::chat::ChatError),
    /// An image request was refused or failed; the image error knows its code.
    #[error("image: {0}")]
    Image(amora_actors::images::ImageError),
    /// A voice play was refused or failed; the voice error knows its code.
    #[error("voice: {0}")]
    Voice(amora_actors::voice::VoiceError),
    /// The store or the event bus is briefly away: `serverError` with a "try again"
    /// text and `Retry-After`, logged as a warning (docs/api.md "Try again").
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// An internal fault; the cause is logged and the client sees only the code.
    #[error("internal: {0}")]
    Internal(String),
}

/// The text of `ApiError::Unavailable`.
pub use amora_actors::TRY_AGAIN;
/// Seconds a client waits before trying again (`Retry-After`).
pub const RETRY_AFTER_SECS: u32 = 2;

impl ApiError {
    pub fn code(&self) -> ApiCode {
        match self {
            ApiError::Param(_) => ApiCode::ParamError,
            ApiError::Envelope(_) => ApiCode::EnvelopeError,
            ApiError::RateLimited | ApiError::LimitReached(_) => ApiCode::RateLimited,
            ApiError::Refused(_) => ApiCode::InputContentIllegal,
            ApiError::TokenInvalid => ApiCode::TokenInvalid,
            ApiError::ReRegisterWait => ApiCode::ReRegisterWait,
            ApiError::BotCheckFailed => ApiCode::BotCheckFailed,
            ApiError::AccountPwdError => ApiCode::AccountPwdError,
            ApiError::NotFound(_) => ApiCode::NotFound,
            ApiError::Suspended => ApiCode::Forbidden,
            ApiError::CannotPurchasePlan(_) => ApiCode::CannotPurchasePlan,
            ApiError::PayloadTooLarge | ApiError::RequestTimeout => ApiCode::ParamError,
            ApiError::Chat(error) => error.code(),
            ApiError::Image(error) => error.code(),
            ApiError::Voice(error) => error.code(),
            ApiError::Internal(_) | ApiError::Unavailable(_) => ApiCode::ServerError,
        }
    }

    /// The text sent in `msg`: specific where it helps the caller fix the request.
    fn message(&self) -> String {
        match self {
            ApiError::Param(text)
            | ApiError::Envelope(text)
            | ApiError::LimitReached(text)
            | ApiError::Refused(text) => text.clone(),
            ApiError::Chat(error) => error.public_message(),
            ApiError::Image(error) => error.public_message(),
            ApiError::Voice(error) => error.public_message(),
            ApiError::Suspended => "This account is suspended.".to_owned(),
            ApiError::Unavailable(_) => TRY_AGAIN.to_owned(),
            ApiError::CannotPurchasePlan(until) => format!(
                "You already have a plan until {}. You can buy another once it ends, or buy tokens now.",
                crate::payments::receipts::date(*until)
            ),
            other => other.code().default_message().to_owned(),
        }
    }
}

/// The plaintext envelope of an error; the envelope middleware encrypts it.
pub fn error_envelope(code: ApiCode, msg: &str) -> serde_json::Value {
    json!({ "code": code.value(), "msg": msg, "success": false, "data": null })
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            _ => StatusCode::OK,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Internal(cause) = self {
            tracing::error!(%cause, "request failed");
        }
        if let ApiError::Unavailable(cause) = self {
            tracing::warn!(%cause, "request answered 'try again'");
        }
        if let ApiError::Chat(error) = self
            && error.is_temporary()
        {
            tracing::warn!(%error, "chat request answered 'try again'");
        }
        if let ApiError::Voice(error) = self
            && error.is_temporary()
        {
            tracing::warn!(%error, "voice request answered 'try again'");
        }
        let temporary = match self {
            ApiError::Unavailable(_) => true,
            ApiError::Image(error) => error.is_temporary(),
            ApiError::Chat(error) => error.is_temporary(),
            ApiError::Voice(error) => error.is_temporary(),
            _ => false,
        };
        if temporary {
            return HttpResponse::Ok()
                .insert_header(("Retry-After", RETRY_AFTER_SECS.to_string()))
                .json(error_envelope(self.code(), &self.message()));
        }
        if let ApiError::Chat(error) = self
            && error.code() == ApiCode::ServerError
        {
            tracing::error!(%error, "chat request failed");
        }
        if let ApiError::Image(error) = self
            && error.code() == ApiCode::ServerError
        {
            tracing::error!(%error, "image request failed");
        }
        if let ApiError::Voice(error) = self
            && error.code() == ApiCode::ServerError
            && !error.is_temporary()
        {
            tracing::error!(%error, "voice request failed");
        }
        if let ApiError::PayloadTooLarge = self {
            return HttpResponse::PayloadTooLarge().json(
                json!({ "code": ApiCode::ParamError.value(), "msg": "Request body too large.", "success": false }),
            );
        }
        if let ApiError::RequestTimeout = self {
            return HttpResponse::RequestTimeout().force_close().json(
                json!({ "code": ApiCode::ParamError.value(), "msg": "The request body did not arrive in time.", "success": false }),
            );
        }
        HttpResponse::Ok().json(error_envelope(self.code(), &self.message()))
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        if error.is_temporary() {
            ApiError::Unavailable(error.to_string())
        } else {
            ApiError::Internal(error.to_string())
        }
    }
}

impl From<EnvelopeError> for ApiError {
    fn from(error: EnvelopeError) -> Self {
        ApiError::Envelope(error.to_string())
    }
}

impl From<amora_domain::Invalid> for ApiError {
    fn from(error: amora_domain::Invalid) -> Self {
        ApiError::Param(error.to_string())
    }
}

impl From<amora_actors::chat::ChatError> for ApiError {
    fn from(error: amora_actors::chat::ChatError) -> Self {
        ApiError::Chat(error)
    }
}

impl From<amora_actors::images::ImageError> for ApiError {
    fn from(error: amora_actors::images::ImageError) -> Self {
        ApiError::Image(error)
    }
}

impl From<amora_actors::voice::VoiceError> for ApiError {
    fn from(error: amora_actors::voice::VoiceError) -> Self {
        ApiError::Voice(error)
    }
}

impl From<amora_actors::NodeError> for ApiError {
    fn from(error: amora_actors::NodeError) -> Self {
        if error.is_temporary() {
            ApiError::Unavailable(error.to_string())
        } else {
            ApiError::Internal(error.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The HTTP status, the `Retry-After` header and the (plaintext) envelope of an error.
    async fn answer(error: ApiError) -> (u16, Option<String>, serde_json::Value) {
        let response = error.error_response();
        let status = response.status().as_u16();
        let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = actix_web::body::to_bytes(response.into_body()).await.unwrap_or_else(|e| panic!("{e}"));
        (status, retry_after, serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{e}")))
    }

    #[actix_rt::test]
    async fn a_store_briefly_away_answers_try_again_and_a_fault_does_not() {
        let (status, retry_after, body) = answer(ApiError::from(StoreError::Unavailable("timed out".into()))).await;
        assert_eq!(status, 200, "the envelope answers, as for every API error");
        assert_eq!(retry_after.as_deref(), Some("2"));
        assert_eq!((body["code"].clone(), body["msg"].clone()), (json!(50000), json!(TRY_AGAIN)));

        let user = amora_actors::user::UserError::from(StoreError::Unavailable("timed out".into()));
        let (_, retry_after, body) = answer(ApiError::from(amora_actors::NodeError::User(user))).await;
        assert_eq!((retry_after.as_deref(), body["msg"].clone()), (Some("2"), json!(TRY_AGAIN)));

        let image = amora_actors::images::ImageError::from(StoreError::Unavailable("timed out".into()));
        let (_, retry_after, body) = answer(ApiError::from(image)).await;
        assert_eq!((retry_after.as_deref(), body["msg"].clone()), (Some("2"), json!(TRY_AGAIN)));

        let voice = amora_actors::voice::VoiceError::from(StoreError::Unavailable("timed out".into()));
        let (_, retry_after, body) = answer(ApiError::from(voice)).await;
        assert_eq!((retry_after.as_deref(), body["msg"].clone()), (Some("2"), json!(TRY_AGAIN)), "voice too");

        let (_, retry_after, body) = answer(ApiError::from(StoreError::Corrupt("a bad row".into()))).await;
        assert_eq!(retry_after, None);
        assert_eq!(body["msg"], ApiCode::ServerError.default_message());
    }
}
