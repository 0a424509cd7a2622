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
/// The largest body of an upload endpoint (`character/importCard`: a file of up to 8 MiB,
/// base64 inside the encrypted, base64 envelope: 8 × 4/3 × 4/3 ≈ 14.3 MiB).
pub const UPLOAD_BODY_LIMIT: usize = 16 * 1024 * 1024;

pub struct Payload<T>(pub T);

/// A [`Payload`] of an upload endpoint: the same envelope, read up to [`UPLOAD_BODY_LIMIT`].
pub struct Upload<T>(pub T);

impl<T> Upload<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

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
        let read = read_payload::<T>(req, payload, JSON_BODY_LIMIT);
        Box::pin(async move { read.await.map(Payload) })
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Upload<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut RawPayload) -> Self::Future {
        let read = read_payload::<T>(req, payload, UPLOAD_BODY_LIMIT);
        Box::pin(async move { read.await.map(Upload) })
    }
}

/// Reads at most `limit` bytes of body, opens the envelope and parses the payload.
fn read_payload<T: DeserializeOwned + 'static>(
    req: &HttpRequest,
    payload: &mut RawPayload,
    limit: usize,
) -> impl Future<Output = Result<T, ApiError>> + 'static {
    let key = req.extensions().get::<EnvelopeKey>().cloned();
    let mut stream = payload.take();
    async move {
        let key = key.ok_or_else(|| ApiError::Internal("payload read outside the envelope scope".into()))?;
        let body = read_limited(&mut stream, limit).await?;
        let plaintext = open_body(&key, &body)?;
        parse_plaintext(&plaintext)
    }
}

async fn read_limited(stream: &mut RawPayload, limit: usize) -> Result<Bytes, ApiError> {
    let mut body = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| match &e {
            actix_web::error::PayloadError::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                ApiError::RequestTimeout
            }
            _ => ApiError::Param(format!("cannot read the request body: {e}")),
        })?;
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

/// Fuzzing the envelope decoder (issue 12): every body a client can send, however broken,
/// ends in a payload or a coded error, never a panic; and whatever is sealed opens again.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::*;

    /// Cases per property; four properties, so 4 × this many bodies per `cargo test`.
    const CASES: u32 = 2_000;

    fn key() -> EnvelopeKey {
        EnvelopeKey::from_secret("FuzzSecretKey0123456789abcdefXYZ").unwrap_or_else(|e| panic!("{e}"))
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    #[serde(rename_all = "camelCase")]
    struct AnyRequest {
        character_id: String,
        page_no: Option<i64>,
        content: Option<String>,
    }

    /// Turns a body into what a handler would get: the outcome must be a value or an error.
    fn decode(body: &[u8]) -> Result<AnyRequest, ApiError> {
        let plaintext = open_body(&key(), body)?;
        parse_plaintext::<AnyRequest>(&plaintext)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_bodies_decode_or_fail_with_a_code(body in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Err(error) = decode(&body) {
                prop_assert!(matches!(error, ApiError::Envelope(_) | ApiError::Param(_)), "{error:?}");
            }
        }

        #[test]
        fn arbitrary_request_data_strings_fail_with_a_code(wire in "[A-Za-z0-9+/=_\\-]{0,200}|\\PC{0,64}") {
            let body = serde_json::json!({ "requestData": wire }).to_string();
            if let Err(error) = decode(body.as_bytes()) {
                prop_assert!(matches!(error, ApiError::Envelope(_) | ApiError::Param(_)), "{error:?}");
            }
        }

        #[test]
        fn sealed_bytes_open_unchanged(plaintext in proptest::collection::vec(any::<u8>(), 0..1024)) {
            let wire = key().encrypt(&plaintext);
            prop_assert_eq!(key().decrypt(&wire).ok(), Some(plaintext));
        }

        #[test]
        fn tampered_ciphertexts_never_panic(
            plaintext in "\\PC{0,200}",
            position in any::<usize>(),
            replacement in any::<char>(),
        ) {
            let wire = key().encrypt(serde_json::json!({ "characterId": plaintext }).to_string().as_bytes());
            let mut chars: Vec<char> = wire.chars().collect();
            let at = position % chars.len().max(1);
            if let Some(slot) = chars.get_mut(at) {
                *slot = replacement;
            }
            let tampered: String = chars.into_iter().collect();
            let body = serde_json::json!({ "requestData": tampered }).to_string();
            if let Err(error) = decode(body.as_bytes()) {
                prop_assert!(matches!(error, ApiError::Envelope(_) | ApiError::Param(_)), "{error:?}");
            }
        }
    }
}
