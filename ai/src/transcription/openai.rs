//! The OpenAI-compatible speech-to-text backend: `POST {base_url}/audio/transcriptions`,
//! a multipart form with the utterance as a WAV `file`, the `model`, the `language` when
//! known (ISO 639-1) and `response_format=json`, answered with `{"text": "…"}`.
//!
//! OpenAI speaks it, and so do the servers a deployment runs on its own machines:
//! faster-whisper servers (speaches, faster-whisper-server) at `/v1/audio/transcriptions`,
//! and whisper.cpp's `whisper-server` when started with
//! `--inference-path /v1/audio/transcriptions` (its default path is `/inference`, which
//! takes the same form).
//!
//! Errors come as `{"error": {"message", "type", "code"}}` (OpenAI), `{"error": "…"}`
//! (whisper.cpp) or `{"detail": "…"}` (FastAPI servers); the message is kept. Statuses map
//! as the voice backend's do: 400/413/415/422 mean this audio or request is wrong
//! ([`AiError::BadRequest`]); 401/403 mean the deployment's key is wrong and 404 its URL,
//! which no retry of the user's fixes ([`AiError::Unavailable`], naming the setting);
//! 429 and 503 mean overloaded ([`AiError::Busy`]); other 5xx, time-outs and refused
//! connections are [`AiError::Unavailable`].

use std::time::{Duration, Instant};

use async_trait::async_trait;
use reqwest::multipart::{Form, Part};
use serde_json::Value;

use super::{OpenAiTranscriptionSettings, SAMPLE_RATE, SpeechToText, Transcript, check_audio, pcm, primary_language};
use crate::AiError;

pub struct OpenAiSpeechToText {
    client: reqwest::Client,
    url: String,
    settings: OpenAiTranscriptionSettings,
}

impl std::fmt::Debug for OpenAiSpeechToText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSpeechToText").field("url", &self.url).field("model", &self.settings.model).finish()
    }
}

impl OpenAiSpeechToText {
    /// Makes the client; nothing is sent until the first call.
    pub fn new(settings: &OpenAiTranscriptionSettings) -> Result<Self, AiError> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_millis(settings.connect_timeout_ms))
            .timeout(Duration::from_millis(settings.request_timeout_ms))
            .user_agent(concat!("amora/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| AiError::Internal(format!("cannot build the HTTP client: {e}")))?;
        let url = format!("{}/audio/transcriptions", settings.base_url.trim_end_matches('/'));
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

    /// The error for a status other than success, with the service's own message.
    fn refused(&self, status: reqwest::StatusCode, body: &str) -> AiError {
        let message = serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|v| {
                v["error"]["message"]
                    .as_str()
                    .or_else(|| v["error"].as_str())
                    .or_else(|| v["detail"].as_str())
                    .or_else(|| v["message"].as_str())
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| body.chars().take(300).collect());
        let message = format!("{} answered {status}: {message}", self.url);
        match status.as_u16() {
            401 | 403 => AiError::Unavailable(format!(
                "{message} (the service refused the credentials: check transcription.openai.api_key)"
            )),
            404 => AiError::Unavailable(format!("{message} (no such endpoint: check transcription.openai.base_url)")),
            408 => AiError::Unavailable(message),
            429 | 503 => AiError::Busy(message),
            400..=499 => AiError::BadRequest(message),
            _ => AiError::Unavailable(message),
        }
    }
}

#[async_trait]
impl SpeechToText for OpenAiSpeechToText {
    fn understands(&self, language: &str) -> bool {
        primary_language(language).is_ok_and(|l| {
            self.settings.languages.is_empty()
                || self.settings.languages.iter().any(|known| primary_language(known).is_ok_and(|k| k == l))
        })
    }

    async fn transcribe(&self, samples: &[i16], language: Option<&str>) -> Result<Transcript, AiError> {
        let started = Instant::now();
        let language = language.map(primary_language).transpose()?;
        if let Some(language) = &language
            && !self.understands(language)
        {
            return Err(AiError::BadRequest(format!(
                "the speech recogniser is set up for {} only, not {language:?}",
                self.settings.languages.join(", ")
            )));
        }
        let duration_ms = check_audio(samples, self.settings.max_audio_ms)?;
        let file = Part::bytes(pcm::wav_bytes(samples, SAMPLE_RATE))
            .file_name("speech.wav")
            .mime_str("audio/wav")
            .map_err(|e| AiError::Internal(format!("multipart: {e}")))?;
        let mut form =
            Form::new().part("file", file).text("model", self.settings.model.clone()).text("response_format", "json");
        if let Some(language) = &language {
            form = form.text("language", language.clone());
        }
        let mut request = self.client.post(&self.url).multipart(form);
        if let Some(key) = &self.settings.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| self.failed(&e))?;
        let status = response.status();
        // A transcript is a few hundred bytes; reqwest's time-out bounds the read.
        let body = response.text().await.map_err(|e| self.failed(&e))?;
        if !status.is_success() {
            return Err(self.refused(status, &body));
        }
        let json: Value = serde_json::from_str(&body).map_err(|_| {
            AiError::Internal(format!(
                "{} answered what is not JSON: {}",
                self.url,
                body.chars().take(200).collect::<String>()
            ))
        })?;
        let text =
            json["text"].as_str().ok_or_else(|| AiError::Internal(format!("{} answered without a text", self.url)))?;
        // verbose_json answers name the language ("english"); json ones do not, so the
        // hint, when given, is what the service was told to hear.
        Ok(Transcript {
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
            duration_ms,
            language,
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::transcription::TranscriptionSettings;

    /// How the loopback service answers a well-formed request.
    #[derive(Clone, Copy)]
    enum Mode {
        /// As OpenAI does: `{"text": …}` naming what it received.
        Transcribe,
        /// This status with an error in OpenAI's shape.
        Refuse(u16),
        /// This status with whisper.cpp's `{"error": "…"}`.
        RefuseFlat(u16),
        /// Never answers.
        Hang,
        /// 200 with HTML.
        Garbage,
    }

    /// One part of a multipart form: its name, file name, content type and bytes.
    #[derive(Debug, Clone)]
    struct FormPart {
        name: String,
        file_name: Option<String>,
        content_type: Option<String>,
        body: Vec<u8>,
    }

    /// What a request carried.
    #[derive(Debug, Clone)]
    struct Seen {
        method_and_path: String,
        authorization: Option<String>,
        parts: Vec<FormPart>,
    }

    impl Seen {
        fn text(&self, name: &str) -> Option<String> {
            self.parts
                .iter()
                .find(|p| p.name == name && p.file_name.is_none())
                .map(|p| String::from_utf8_lossy(&p.body).into_owned())
        }
    }

    fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        haystack.windows(needle.len()).position(|w| w == needle)
    }

    /// A multipart/form-data body split as RFC 7578 lays it out: parts between
    /// `--boundary` lines, each with its headers, a blank line and its bytes.
    fn parse_form(body: &[u8], boundary: &str) -> Vec<FormPart> {
        let delimiter = format!("--{boundary}");
        let mut parts = Vec::new();
        let mut rest = body;
        while let Some(at) = find(rest, delimiter.as_bytes()) {
            rest = &rest[at + delimiter.len()..];
            if rest.starts_with(b"--") {
                break; // the closing delimiter
            }
            let Some(next) = find(rest, delimiter.as_bytes()) else { break };
            let part = rest[..next].strip_prefix(b"\r\n").unwrap_or(&rest[..next]);
            let part = part.strip_suffix(b"\r\n").unwrap_or(part);
            let Some(split) = find(part, b"\r\n\r\n") else { continue };
            let head = String::from_utf8_lossy(&part[..split]).to_string();
            let param = |key: &str| {
                let marker = format!("{key}=\"");
                head.find(&marker).map(|at| {
                    let value = &head[at + marker.len()..];
                    value[..value.find('"').unwrap_or(value.len())].to_owned()
                })
            };
            let content_type = head
                .lines()
                .find(|l| l.to_ascii_lowercase().starts_with("content-type:"))
                .map(|l| l["content-type:".len()..].trim().to_owned());
            parts.push(FormPart {
                name: param(" name").unwrap_or_default(),
                file_name: param("filename"),
                content_type,
                body: part[split + 4..].to_vec(),
            });
            rest = &rest[next..];
        }
        parts
    }

    async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<(Seen, Option<String>)> {
        let mut buffer = Vec::new();
        let mut chunk = [0u8; 16_384];
        let head_end = loop {
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            buffer.extend_from_slice(&chunk[..n]);
            if let Some(at) = find(&buffer, b"\r\n\r\n") {
                break at + 4;
            }
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
        let header = |name: &str| {
            head.lines()
                .find(|l| l.to_ascii_lowercase().starts_with(&format!("{name}:")))
                .map(|l| l[name.len() + 1..].trim().to_owned())
        };
        let length: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
        while buffer.len() < head_end + length {
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            buffer.extend_from_slice(&chunk[..n]);
        }
        let content_type = header("content-type");
        let boundary = content_type
            .as_deref()
            .filter(|t| t.starts_with("multipart/form-data"))
            .and_then(|t| t.split("boundary=").nth(1))
            .map(|b| b.trim_matches('"').to_owned());
        let parts =
            boundary.as_deref().map(|b| parse_form(&buffer[head_end..head_end + length], b)).unwrap_or_default();
        let method_and_path = head.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        Some((Seen { method_and_path, authorization: header("authorization"), parts }, content_type))
    }

    /// What the service checks, as OpenAI's API reference lays down: a multipart form with
    /// a `file` (here a 16 kHz mono WAV) and a `model`; `response_format` json. A request
    /// missing them is answered 400 in OpenAI's error shape.
    fn check(seen: &Seen, content_type: Option<&str>) -> Result<Vec<i16>, String> {
        if seen.method_and_path != "POST /v1/audio/transcriptions" {
            return Err(format!("unexpected {}", seen.method_and_path));
        }
        if !content_type.is_some_and(|t| t.starts_with("multipart/form-data")) {
            return Err("the body must be multipart/form-data".into());
        }
        let file = seen.parts.iter().find(|p| p.name == "file").ok_or("the file field is required")?;
        if !file.file_name.as_deref().is_some_and(|n| n.ends_with(".wav")) {
            return Err("the file needs a name telling its format".into());
        }
        if file.content_type.as_deref() != Some("audio/wav") {
            return Err(format!("file content type {:?}", file.content_type));
        }
        let (rate, samples) = pcm::read_wav(&file.body).map_err(|e| e.to_string())?;
        if rate != 16_000 {
            return Err(format!("rate {rate}"));
        }
        if seen.text("model").is_none_or(|m| m.is_empty()) {
            return Err("you must provide a model parameter".into());
        }
        if seen.text("response_format").as_deref() != Some("json") {
            return Err("response_format should be json".into());
        }
        Ok(samples)
    }

    struct Service {
        base_url: String,
        requests: Arc<Mutex<Vec<Seen>>>,
    }

    async fn service(mode: Mode) -> Service {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("{e}"));
        let port = listener.local_addr().unwrap_or_else(|e| panic!("{e}")).port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen_all = requests.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let seen_all = seen_all.clone();
                tokio::spawn(async move {
                    let Some((seen, content_type)) = read_request(&mut stream).await else { return };
                    seen_all.lock().unwrap_or_else(|e| e.into_inner()).push(seen.clone());
                    let openai_error = |message: &str, kind: &str, code: Value| {
                        json!({"error": {"message": message, "type": kind, "param": null, "code": code}}).to_string()
                    };
                    let (status, content_type, body) = match (mode, check(&seen, content_type.as_deref())) {
                        (Mode::Hang, _) => {
                            tokio::time::sleep(Duration::from_secs(30)).await;
                            return;
                        }
                        (_, Err(problem)) => {
                            (400, "application/json", openai_error(&problem, "invalid_request_error", Value::Null))
                        }
                        (Mode::Transcribe, Ok(samples)) => {
                            let language = seen.text("language").unwrap_or_else(|| "unset".into());
                            let text = format!(" Heard {} samples in {language}. ", samples.len());
                            (200, "application/json", json!({ "text": text }).to_string())
                        }
                        (Mode::Refuse(status), Ok(_)) => {
                            let (message, kind, code) = match status {
                                400 => (
                                    "Audio file might be corrupted or unsupported",
                                    "invalid_request_error",
                                    json!("invalid_value"),
                                ),
                                401 => (
                                    "Incorrect API key provided: sk-wrong.",
                                    "invalid_request_error",
                                    json!("invalid_api_key"),
                                ),
                                413 => (
                                    "Maximum content size limit (26214400) exceeded",
                                    "invalid_request_error",
                                    Value::Null,
                                ),
                                429 => ("Rate limit reached for whisper-1", "requests", json!("rate_limit_exceeded")),
                                _ => (
                                    "The server had an error while processing your request.",
                                    "server_error",
                                    Value::Null,
                                ),
                            };
                            (status, "application/json", openai_error(message, kind, code))
                        }
                        (Mode::RefuseFlat(status), Ok(_)) => {
                            (status, "application/json", json!({"error": "failed to read WAV file"}).to_string())
                        }
                        (Mode::Garbage, Ok(_)) => (200, "text/html", "<html>proxy login</html>".to_owned()),
                    };
                    let head = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(head.as_bytes()).await;
                    let _ = stream.write_all(body.as_bytes()).await;
                });
            }
        });
        Service { base_url: format!("http://127.0.0.1:{port}/v1"), requests }
    }

    fn model(service: &Service, key: Option<&str>) -> OpenAiSpeechToText {
        let mut settings = TranscriptionSettings::openai(&service.base_url, "whisper-1");
        settings.openai.api_key = key.map(str::to_owned);
        settings.openai.request_timeout_ms = 1_500;
        OpenAiSpeechToText::new(&settings.openai).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Half a second of a 300 Hz hum: the service checks the file, not what it says.
    fn audio() -> Vec<i16> {
        (0..8_000).map(|i| (3000.0 * (i as f64 * 300.0 * std::f64::consts::TAU / 16_000.0).sin()) as i16).collect()
    }

    #[tokio::test]
    async fn sends_the_form_the_api_lays_down_and_reads_the_text() {
        let service = service(Mode::Transcribe).await;
        let model = model(&service, Some("sk-test"));
        let transcript = model.transcribe(&audio(), Some("fr-CA")).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(transcript.text, "Heard 8000 samples in fr.");
        assert_eq!((transcript.duration_ms, transcript.language.as_deref()), (500, Some("fr")));
        let transcript = model.transcribe(&audio(), None).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((transcript.text.as_str(), transcript.language), ("Heard 8000 samples in unset.", None));

        let requests = service.requests.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(requests.len(), 2);
        let first = &requests[0];
        assert_eq!(first.authorization.as_deref(), Some("Bearer sk-test"));
        assert_eq!(first.text("model").as_deref(), Some("whisper-1"));
        assert_eq!(first.text("language").as_deref(), Some("fr"));
        let file = first.parts.iter().find(|p| p.name == "file").unwrap_or_else(|| panic!("no file part"));
        assert_eq!(pcm::read_wav(&file.body).unwrap_or_else(|e| panic!("{e}")), (16_000, audio()));
        assert_eq!(requests[1].text("language"), None, "no hint, no language field");
    }

    #[tokio::test]
    async fn errors_map_to_what_the_caller_can_do() {
        for (mode, expect) in [
            (Mode::Refuse(400), "bad request"),
            (Mode::Refuse(413), "bad request"),
            (Mode::RefuseFlat(400), "bad request"),
            (Mode::Refuse(401), "unavailable"),
            (Mode::Refuse(429), "busy"),
            (Mode::Refuse(503), "busy"),
            (Mode::Refuse(500), "unavailable"),
            (Mode::Garbage, "internal"),
        ] {
            let service = service(mode).await;
            let error = model(&service, None).transcribe(&audio(), Some("en")).await.err();
            let (kind, message) = match &error {
                Some(AiError::BadRequest(m)) => ("bad request", m),
                Some(AiError::Unavailable(m)) => ("unavailable", m),
                Some(AiError::Busy(m)) => ("busy", m),
                Some(AiError::Internal(m)) => ("internal", m),
                other => panic!("{other:?}"),
            };
            assert_eq!(kind, expect, "{message}");
            // The service's own words are kept for the log.
            let words = match mode {
                Mode::Refuse(400) => "corrupted",
                Mode::Refuse(401) => "api_key",
                Mode::Refuse(413) => "content size",
                Mode::Refuse(429) => "Rate limit",
                Mode::RefuseFlat(_) => "failed to read WAV",
                Mode::Garbage => "not JSON",
                _ => "answered",
            };
            assert!(message.contains(words), "{message}");
        }
    }

    #[tokio::test]
    async fn a_service_that_does_not_answer_or_listen_is_unavailable() {
        let service = service(Mode::Hang).await;
        let started = Instant::now();
        let result = model(&service, None).transcribe(&audio(), None).await;
        assert!(matches!(result, Err(AiError::Unavailable(m)) if m.contains("in time")), "{:?}", started.elapsed());
        assert!(started.elapsed() < Duration::from_secs(5));

        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let port = closed.local_addr().unwrap_or_else(|e| panic!("{e}")).port();
        drop(closed);
        let settings = TranscriptionSettings::openai(format!("http://127.0.0.1:{port}/v1"), "whisper-1");
        let result = OpenAiSpeechToText::new(&settings.openai)
            .unwrap_or_else(|e| panic!("{e}"))
            .transcribe(&audio(), None)
            .await;
        assert!(matches!(result, Err(AiError::Unavailable(m)) if m.contains("cannot connect")));
    }

    #[tokio::test]
    async fn refuses_before_sending_what_the_service_would_refuse() {
        let service = service(Mode::Transcribe).await;
        let mut settings = TranscriptionSettings::openai(&service.base_url, "whisper-1");
        settings.openai.languages = vec!["en".into(), "de".into()];
        settings.openai.max_audio_ms = 400;
        let model = OpenAiSpeechToText::new(&settings.openai).unwrap_or_else(|e| panic!("{e}"));
        assert!(model.understands("de-AT") && !model.understands("ja"));
        assert!(
            matches!(model.transcribe(&audio()[..1600], Some("ja")).await, Err(AiError::BadRequest(m)) if m.contains("en, de"))
        );
        assert!(
            matches!(model.transcribe(&audio(), Some("en")).await, Err(AiError::BadRequest(m)) if m.contains("limit"))
        );
        assert!(matches!(model.transcribe(&[], None).await, Err(AiError::BadRequest(_))));
        assert!(matches!(model.transcribe(&audio()[..1600], Some("english")).await, Err(AiError::BadRequest(_))));
        assert!(service.requests.lock().unwrap_or_else(|e| e.into_inner()).is_empty());
        assert!(model.transcribe(&audio()[..1600], Some("de")).await.is_ok());
    }
}
