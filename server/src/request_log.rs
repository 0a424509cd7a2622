//! What the request log records, and what it never does. Each request runs in a span of
//! method, route, *redacted* target, client address and status: query strings carry
//! one-time sign-in tokens (`emailLoginBack?token=`), vouchers (`/lust/api/ws?voucher=`)
//! and OAuth codes, so every query value is replaced by `REDACTED` unless its key is on a
//! short list of harmless ones. A refused request is logged by its API code: client
//! mistakes (10001–10070, HTTP 4xx) at INFO, faults (50000, HTTP 5xx) at ERROR, so an alert
//! on ERROR means the server is at fault, not that someone mistyped a password.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{Error, web};
use tracing::Span;
use tracing_actix_web::RootSpanBuilder;

use crate::api::{ApiCode, ApiError};
use crate::state::AppState;

/// Query keys whose values are kept in the log: tracking and page context, never secrets.
const HARMLESS_QUERY_KEYS: [&str; 12] = [
    "utm_source",
    "utm_medium",
    "via",
    "ref",
    "md",
    "location",
    "screen",
    "version",
    "client",
    "system",
    "time",
    "error",
];

/// `path?key=value&…` with every value not known to be harmless replaced by `REDACTED`.
pub fn redact_target(path_and_query: &str) -> String {
    let Some((path, query)) = path_and_query.split_once('?') else {
        return path_and_query.to_owned();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if HARMLESS_QUERY_KEYS.contains(&key) => pair.to_owned(),
            Some((key, _)) => format!("{key}=REDACTED"),
            // A bare word could be a token itself (`?abc123`).
            None if pair.is_empty() => String::new(),
            None => "REDACTED".to_owned(),
        })
        .collect();
    format!("{path}?{}", pairs.join("&"))
}

/// The root span builder of `TracingLogger` (in place of the default, which logs the raw
/// target and the left-most `X-Forwarded-For` entry as the client).
pub struct RedactingRootSpan;

impl RootSpanBuilder for RedactingRootSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let target =
            request.uri().path_and_query().map_or_else(|| request.path().to_owned(), |p| redact_target(p.as_str()));
        let route = request.match_pattern().unwrap_or_else(|| "default".into());
        let client = request
            .app_data::<web::Data<AppState>>()
            .map(|state| state.limits.address(request.request()).to_string())
            .unwrap_or_default();
        tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.route = %route,
            http.target = %target,
            http.client_ip = %client,
            http.status_code = tracing::field::Empty,
            api.code = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let (status, error) = match outcome {
            Ok(response) => (response.status(), response.response().error()),
            Err(error) => (error.as_response_error().status_code(), Some(error)),
        };
        span.record("http.status_code", status.as_u16());
        let Some(error) = error else {
            return;
        };
        let api_error = error.as_error::<ApiError>();
        let code = api_error.map(|e| e.code());
        if let Some(code) = code {
            span.record("api.code", code.value());
        }
        let _entered = span.enter();
        if status.is_server_error() || code == Some(ApiCode::ServerError) {
            // ApiError faults log their cause where they are rendered (api::error); others here.
            if api_error.is_none() {
                tracing::error!(status = status.as_u16(), %error, "request failed");
            }
        } else {
            // The code says what was wrong; the text is left out, as it may echo the input.
            tracing::info!(status = status.as_u16(), code = ?code.map(ApiCode::value), "request refused");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_query_strings_are_redacted() {
        assert_eq!(
            redact_target("/lust/api/login/v1/emailLoginBack?token=abc.def"),
            "/lust/api/login/v1/emailLoginBack?token=REDACTED"
        );
        assert_eq!(redact_target("/lust/api/ws?voucher=v0uch3r"), "/lust/api/ws?voucher=REDACTED");
        assert_eq!(
            redact_target("/lust/api/googleLoginBack?code=c0de&state=s7&error=access_denied"),
            "/lust/api/googleLoginBack?code=REDACTED&state=REDACTED&error=access_denied"
        );
        assert_eq!(
            redact_target("/lust/api/spm?location=%2Fchat&utm_source=x"),
            "/lust/api/spm?location=%2Fchat&utm_source=x"
        );
        assert_eq!(redact_target("/x?s3cr3t"), "/x?REDACTED");
        assert_eq!(redact_target("/plain/path"), "/plain/path");
    }
}
