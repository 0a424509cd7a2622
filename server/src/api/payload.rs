//! `Payload<T>`: the decrypted, parsed body of a non-GET API call (API.md §1). The key
//! comes from the envelope middleware; every way a body can be wrong maps to a code:
//! too large → HTTP 413, undecodable or undecryptable → 10002, not the expected JSON → 10001.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload as RawPayload;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures_util::StreamExt;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::ApiError;
use crate::envelope::EnvelopeKey;

/// The largest JSON body accepted (API.md §1.4); upload endpoints set their own.
pub const JSON_BODY_LIMIT: usize = 64 * 1024;

pub struct Payload<T>(pub T);

impl<T> Payload<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// The outer body: `{"requestData": "<b64>"}`, or `{}` for endpoints without a payload.
#[derive(Deserialize)]
struct Outer {
    #[serde(rename = "requestData")]
    request_data: Option<serde_json::Value>,
}

impl<T: DeserializeOwned + 'static> FromRequest for Payload<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut RawPayload) -> Self::Future {
        let key = req.extensions().get::<EnvelopeKey>().cloned();
        let mut stream = payload.take();
        Box::pin(async move {
            let key = key.ok_or_else(|| ApiError::Internal("payload read outside the envelope scope".into()))?;
            let body = read_limited(&mut stream, JSON_BODY_LIMIT).await?;
            let plaintext = open_body(&key, &body)?;
            parse_plaintext(&plaintext).map(Payload)
        })
    }
}

async fn read_limited(stream: &mut RawPayload, limit: usize) -> Result<Bytes, ApiError> {
    let mut body = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ApiError::Param(format!("cannot read the request body: {e}")))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::PayloadTooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(body))
}

/// Turns the raw body into the plaintext payload bytes.
fn open_body(key: &EnvelopeKey, body: &[u8]) -> Result<Vec<u8>, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(b"{}".to_vec());
    }
    let outer: Outer = serde_json::from_slice(body)
        .map_err(|_| ApiError::Envelope("the body must be a JSON object {\"requestData\": \"...\"}".into()))?;
    match outer.request_data {
        None => Ok(b"{}".to_vec()),
        Some(serde_json::Value::String(wire)) => Ok(key.decrypt(&wire)?),
        Some(_) => Err(ApiError::Envelope("requestData must be a Base64 string".into())),
    }
}

fn parse_plaintext<T: DeserializeOwned>(plaintext: &[u8]) -> Result<T, ApiError> {
    let mut deserializer = serde_json::Deserializer::from_slice(plaintext);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            return ApiError::Param("the decrypted payload is not valid JSON".into());
        }
        // serde_json appends "at line 1 column 9": noise for a one-line payload.
        let text = inner.to_string();
        let reason = text.split(" at line ").next().unwrap_or(&text);
        if path == "." {
            ApiError::Param(format!("payload: {reason}"))
        } else {
            ApiError::Param(format!("{path}: {reason}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Page {
        page_no: i64,
    }

    fn key() -> EnvelopeKey {
        EnvelopeKey::from_secret("abcdefghijklmnopqrstuvwxyz012345").unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn an_empty_body_or_object_is_an_empty_payload() {
        assert_eq!(open_body(&key(), b"").ok(), Some(b"{}".to_vec()));
        assert_eq!(open_body(&key(), b"{}").ok(), Some(b"{}".to_vec()));
    }

    #[test]
    fn a_wrong_field_type_names_the_field() {
        let error = parse_plaintext::<Page>(br#"{"pageNo":"one"}"#).err().map(|e| e.to_string());
        assert!(error.is_some_and(|text| text.starts_with("pageNo: invalid type")));
    }

    #[test]
    fn a_missing_field_is_a_param_error() {
        let error = parse_plaintext::<Page>(b"{}").err().map(|e| e.to_string());
        assert_eq!(error.as_deref(), Some("payload: missing field `pageNo`"));
    }

    #[test]
    fn a_non_object_body_is_an_envelope_error() {
        assert!(matches!(open_body(&key(), b"[1,2]"), Err(ApiError::Envelope(_))));
        assert!(matches!(open_body(&key(), br#"{"requestData": 5}"#), Err(ApiError::Envelope(_))));
    }
}
