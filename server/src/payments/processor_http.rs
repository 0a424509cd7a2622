//! Calls to a processor's API: a client with timeouts that follows no redirects (a
//! processor's answer is read where we asked, never wherever it points), answers read up to
//! a size limit, and errors that name neither our keys nor the URL (zPay puts its merchant
//! key in query strings).

use std::time::Duration;

use super::ProviderError;

/// How long one call to a processor may take before the checkout is reported unavailable.
const PROCESSOR_TIMEOUT: Duration = Duration::from_secs(20);
/// The largest answer read from a processor; theirs are a few hundred bytes.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

pub fn client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .timeout(PROCESSOR_TIMEOUT)
        .connect_timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("payment processor client: {e}"))
}

/// A transport error, without the URL it was about.
pub fn unavailable(error: reqwest::Error) -> ProviderError {
    ProviderError::Unavailable(error.without_url().to_string())
}

/// The status and body of an answer, the body at most `MAX_ANSWER_BYTES`.
pub async fn read_answer(response: reqwest::Response) -> Result<(u16, Vec<u8>), ProviderError> {
    let status = response.status().as_u16();
    if response.content_length().is_some_and(|length| length > MAX_ANSWER_BYTES as u64) {
        return Err(ProviderError::Unavailable(format!("answer of HTTP {status} is too large")));
    }
    let mut response = response;
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(unavailable)? {
        if body.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(ProviderError::Unavailable(format!("answer of HTTP {status} is too large")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((status, body))
}

/// The JSON of an answer, or `Unavailable` when it is not JSON.
pub async fn read_json(response: reqwest::Response) -> Result<(u16, serde_json::Value), ProviderError> {
    let (status, body) = read_answer(response).await?;
    let json = serde_json::from_slice(&body)
        .map_err(|_| ProviderError::Unavailable(format!("answer of HTTP {status} is not JSON")))?;
    Ok((status, json))
}

/// A base URL as configured, without a trailing slash, checked to be http(s).
pub fn base_url(raw: &str, what: &str) -> Result<String, String> {
    let trimmed = raw.trim().trim_end_matches('/');
    match url::Url::parse(trimmed) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(trimmed.to_owned()),
        _ => Err(format!("{what} must be an http(s) URL, got {raw:?}")),
    }
}
