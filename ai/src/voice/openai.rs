//! The OpenAI-compatible voice backend: `POST {base_url}/audio/speech` with
//! `{model, input, voice, response_format: "mp3"}`, answered with the audio's bytes.
//! OpenAI, Kokoro-FastAPI, openedai-speech and others speak it. The API cannot list
//! voices, so they come from the settings with their gender.

use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use serde_json::{Value, json};

use super::audio::identify;
use super::{OpenAiVoiceSettings, Speech, Voice, VoiceModel};
use crate::AiError;

pub struct OpenAiVoiceModel {
    client: reqwest::Client,
    url: String,
    settings: OpenAiVoiceSettings,
}

impl std::fmt::Debug for OpenAiVoiceModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiVoiceModel").field("url", &self.url).field("model", &self.settings.model).finish()
    }
}

impl OpenAiVoiceModel {
    /// Makes the client; nothing is sent until the first call.
    pub fn new(settings: &OpenAiVoiceSettings) -> Result<Self, AiError> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_millis(settings.connect_timeout_ms))
            .timeout(Duration::from_millis(settings.request_timeout_ms))
            .user_agent(concat!("amora/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| AiError::Internal(format!("cannot build the HTTP client: {e}")))?;
        let url = format!("{}/audio/speech", settings.base_url.trim_end_matches('/'));
        Ok(Self { client, url, settings: settings.clone() })
    }

    fn failed(&self, error: &reqwest::Error) -> AiError {
        if error.is_connect() {
            AiError::Unavailable(format!("cannot connect to {}: {error}", self.url))
        } else if error.is_timeout() {
            AiError::Unavailable(format!("{} did not answer in time", self.url))
        } else {
            AiError::Unavailable(format!("request to {} failed: {error}", self.url))
        }
    }
}

#[async_trait]
impl VoiceModel for OpenAiVoiceModel {
    fn voices(&self) -> Vec<Voice> {
        self.settings.voices.iter().map(Voice::from).collect()
    }

    async fn speak(&self, text: &str, voice_id: &str) -> Result<Speech, AiError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(AiError::BadRequest("nothing to say".into()));
        }
        let chars = text.chars().count();
        if chars > self.settings.max_chars {
            return Err(AiError::BadRequest(format!(
                "{chars} characters is over the limit of {}",
                self.settings.max_chars
            )));
        }
        if !self.settings.voices.iter().any(|v| v.id == voice_id) {
            return Err(AiError::BadRequest(format!("no voice {voice_id:?}")));
        }
        let body = json!({
            "model": self.settings.model,
            "input": text,
            "voice": voice_id,
            "response_format": "mp3",
        });
        let mut request = self.client.post(&self.url).json(&body);
        if let Some(key) = &self.settings.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| self.failed(&e))?;
        let status = response.status();
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            let message = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| {
                    v["error"]["message"]
                        .as_str()
                        .or_else(|| v["error"].as_str())
                        .or_else(|| v["detail"].as_str())
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| text.chars().take(300).collect());
            let message = format!("{} answered {status}: {message}", self.url);
            return Err(match status.as_u16() {
                429 | 503 => AiError::Busy(message),
                401 | 403 => AiError::Unavailable(message),
                400..=499 => AiError::BadRequest(message),
                _ => AiError::Unavailable(message),
            });
        }
        // Read at most `max_bytes`: a service that streams without end is cut off.
        let mut bytes = Vec::new();
        let mut body = response.bytes_stream();
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| self.failed(&e))?;
            if bytes.len() + chunk.len() > self.settings.max_bytes {
                return Err(AiError::Internal(format!(
                    "{} sent more than {} bytes",
                    self.url, self.settings.max_bytes
                )));
            }
            bytes.extend_from_slice(&chunk);
        }
        let (content_type, duration_ms) =
            identify(&bytes).map_err(|e| AiError::Internal(format!("{} answered: {e}", self.url)))?;
        Ok(Speech { content_type: content_type.into(), bytes, duration_ms })
    }
}
