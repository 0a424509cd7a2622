//! What the HTTP image backends (and moderation's classifiers, [`crate::moderation`])
//! share: the client with its time-outs, and one mapping of failures to [`AiError`]
//! (4xx → `BadRequest` with the service's own message, 429 and 503 → `Busy`, other 5xx
//! and connection failures and time-outs → `Unavailable`).

use std::time::Duration;

use base64::Engine;
use serde_json::Value;

use crate::AiError;

/// A client that gives up connecting after `connect` and on any one request after `total`.
pub(crate) fn client(connect: Duration, total: Duration) -> Result<reqwest::Client, AiError> {
    reqwest::Client::builder()
        .connect_timeout(connect)
        .timeout(total)
        .build()
        .map_err(|e| AiError::BadRequest(format!("cannot build the HTTP client: {e}")))
}

/// A request that never got an answer.
pub(crate) fn transport(url: &str, error: &reqwest::Error) -> AiError {
    if error.is_timeout() {
        AiError::Unavailable(format!("{url} did not answer in time"))
    } else if error.is_connect() {
        AiError::Unavailable(format!("cannot connect to {url}: {}", chain(error)))
    } else {
        AiError::Unavailable(format!("{url}: {}", chain(error)))
    }
}

fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// The service's own words from an error body: OpenAI's `{error: {message}}`, ComfyUI's
/// `{error: {message, details}}`, SD WebUI's (FastAPI's) `{detail}` or `{error, detail}`,
/// else the start of the text.
pub(crate) fn service_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let text = |v: &Value| v.as_str().map(str::to_owned).filter(|s| !s.is_empty());
        let error = &v["error"];
        let message = text(&error["message"]).map(|m| match text(&error["details"]) {
            Some(details) => format!("{m}: {details}"),
            None => m,
        });
        message
            .or_else(|| text(&v["detail"]))
            .or_else(|| v["detail"].as_array().map(|d| Value::Array(d.clone()).to_string()))
            .or_else(|| text(error))
    });
    let message = from_json.unwrap_or_else(|| body.trim().to_owned());
    let mut message: String = message.chars().take(300).collect();
    if message.is_empty() {
        message.push_str("(no message)");
    }
    message
}

/// Turns a response into its body, or the error its status means.
pub(crate) async fn checked(url: &str, response: reqwest::Response) -> Result<reqwest::Response, AiError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let body = response.text().await.unwrap_or_default();
    let message = format!("{url} answered {status}: {}", service_message(&body));
    Err(match status.as_u16() {
        429 | 503 => AiError::Busy(message),
        400..=499 => AiError::BadRequest(message),
        _ => AiError::Unavailable(message),
    })
}

/// Sends a request and checks its status.
pub(crate) async fn send(url: &str, request: reqwest::RequestBuilder) -> Result<reqwest::Response, AiError> {
    let response = request.send().await.map_err(|e| transport(url, &e))?;
    checked(url, response).await
}

/// Reads a JSON body.
pub(crate) async fn json(url: &str, response: reqwest::Response) -> Result<Value, AiError> {
    let bytes = response.bytes().await.map_err(|e| transport(url, &e))?;
    serde_json::from_slice(&bytes).map_err(|e| AiError::Internal(format!("{url} sent JSON that cannot be read: {e}")))
}

/// Decodes a base64 image (a `data:image/png;base64,` prefix allowed).
pub(super) fn decode_base64(url: &str, text: &str) -> Result<Vec<u8>, AiError> {
    let data = match text.split_once(";base64,") {
        Some((prefix, data)) if prefix.starts_with("data:") => data,
        _ => text,
    };
    base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| AiError::Internal(format!("{url} sent an image that is not base64: {e}")))
}

/// What an image's bytes are, by their signature, with its size where the format says it
/// plainly (PNG's header, JPEG's frame, WebP's VP8/VP8L/VP8X chunk).
pub(super) fn sniff(bytes: &[u8]) -> Option<(&'static str, Option<(u32, u32)>)> {
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    if bytes.len() >= 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(("image/png", Some((be32(&bytes[16..20]), be32(&bytes[20..24])))));
    }
    if bytes.len() >= 4 && bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        return Some(("image/jpeg", jpeg_size(bytes)));
    }
    if bytes.len() >= 30 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        let le24 = |b: &[u8]| u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16;
        let size = match &bytes[12..16] {
            b"VP8X" => Some((le24(&bytes[24..27]) + 1, le24(&bytes[27..30]) + 1)),
            b"VP8 " => Some((
                u32::from(u16::from_le_bytes([bytes[26], bytes[27]]) & 0x3fff),
                u32::from(u16::from_le_bytes([bytes[28], bytes[29]]) & 0x3fff),
            )),
            b"VP8L" => {
                let b = u32::from_le_bytes([bytes[21], bytes[22], bytes[23], bytes[24]]);
                Some(((b & 0x3fff) + 1, ((b >> 14) & 0x3fff) + 1))
            }
            _ => None,
        };
        return Some(("image/webp", size));
    }
    None
}

/// The size in a JPEG's first start-of-frame marker.
fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut i = 2;
    while i + 9 < bytes.len() {
        if bytes[i] != 0xff {
            return None;
        }
        let marker = bytes[i + 1];
        let length = usize::from(u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]));
        // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
        if (0xc0..=0xcf).contains(&marker) && ![0xc4, 0xc8, 0xcc].contains(&marker) {
            let h = u32::from(u16::from_be_bytes([bytes[i + 5], bytes[i + 6]]));
            let w = u32::from(u16::from_be_bytes([bytes[i + 7], bytes[i + 8]]));
            return Some((w, h));
        }
        i += 2 + length;
    }
    None
}

/// A generated image from raw bytes: its type and size from the bytes themselves (the
/// requested size when the format hides it), refusing what is not an image.
pub(super) fn image_from_bytes(
    url: &str,
    bytes: Vec<u8>,
    requested: (u32, u32),
) -> Result<super::GeneratedImage, AiError> {
    let Some((content_type, size)) = sniff(&bytes) else {
        return Err(AiError::Internal(format!("{url} sent something that is not a PNG, JPEG or WebP image")));
    };
    let (width, height) = size.unwrap_or(requested);
    Ok(super::GeneratedImage { content_type: content_type.into(), bytes, width, height })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn service_messages_are_read_from_each_services_error_shape() {
        assert_eq!(
            service_message(
                r#"{"error":{"message":"Your request was rejected","type":"invalid_request_error","code":"content_policy_violation"}}"#
            ),
            "Your request was rejected"
        );
        assert_eq!(service_message(r#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(
            service_message(r#"{"error":"HTTPException","detail":"Sampler not found","body":"","errors":""}"#),
            "Sampler not found"
        );
        assert_eq!(
            service_message(
                r#"{"error":{"type":"prompt_outputs_failed_validation","message":"Prompt outputs failed validation","details":"ckpt_name not in list"},"node_errors":{}}"#
            ),
            "Prompt outputs failed validation: ckpt_name not in list"
        );
        assert_eq!(service_message("Internal Server Error"), "Internal Server Error");
        assert_eq!(service_message(""), "(no message)");
        assert_eq!(service_message(&"x".repeat(1000)).len(), 300);
    }

    #[test]
    fn base64_with_or_without_a_data_url_prefix() {
        assert_eq!(decode_base64("u", "aGk=").unwrap(), b"hi");
        assert_eq!(decode_base64("u", "data:image/png;base64,aGk=").unwrap(), b"hi");
        assert!(matches!(decode_base64("u", "not base64!"), Err(AiError::Internal(_))));
    }

    #[test]
    fn images_are_recognised_by_their_bytes() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&640u32.to_be_bytes());
        png.extend_from_slice(&480u32.to_be_bytes());
        assert_eq!(sniff(&png), Some(("image/png", Some((640, 480)))));
        // SOI, an APP0 of length 4, then SOF0 with height 300 and width 200.
        let jpeg = [0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 17, 8, 1, 44, 0, 200, 3, 0, 0, 0, 0];
        assert_eq!(sniff(&jpeg), Some(("image/jpeg", Some((200, 300)))));
        assert_eq!(sniff(b"GIF89a and more bytes than that"), None);
    }
}
