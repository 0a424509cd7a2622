//! The envelope middleware around `/lust/api`: it derives the key from the `secretKey`
//! header before the handler runs (refusing with HTTP 400 when there is none, API.md
//! §1.4), and after it encrypts every JSON answer into `{"responseData": "<b64>"}`.

use actix_web::body::{BoxBody, MessageBody, to_bytes};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_TYPE, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpResponse};
use serde_json::json;

use super::{EnvelopeKey, SECRET_KEY_HEADER};
use crate::api::ApiCode;

pub async fn envelope(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let key = req.headers().get(SECRET_KEY_HEADER).and_then(|value| value.to_str().ok()).map(EnvelopeKey::from_secret);
    let key = match key {
        Some(Ok(key)) => key,
        Some(Err(error)) => return Ok(req.into_response(missing_key(&error.to_string()))),
        None => return Ok(req.into_response(missing_key("the secretKey header is required"))),
    };
    req.extensions_mut().insert(key.clone());

    let response = next.call(req).await?;
    // Only envelopes are encrypted: a 413, or anything not JSON, passes through as it is.
    let is_json =
        response.headers().get(CONTENT_TYPE).is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    if response.status() != StatusCode::OK || !is_json {
        return Ok(response.map_into_boxed_body());
    }
    let (request, response) = response.into_parts();
    let (head, body) = response.into_parts();
    let plaintext = to_bytes(body)
        .await
        .map_err(|_| actix_web::error::ErrorInternalServerError("cannot read the response body"))?;
    let sealed = key.seal_response(&plaintext);
    let mut response = head.set_body(BoxBody::new(sealed));
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response.headers_mut().remove(actix_web::http::header::CONTENT_LENGTH);
    Ok(ServiceResponse::new(request, response))
}

fn missing_key(reason: &str) -> HttpResponse {
    HttpResponse::BadRequest().json(json!({
        "code": ApiCode::EnvelopeError.value(),
        "msg": reason,
        "success": false,
    }))
}
