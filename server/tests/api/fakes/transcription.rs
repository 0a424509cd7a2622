//! A loopback speech-to-text service following OpenAI's published
//! `POST /v1/audio/transcriptions` (a multipart form: `file`, a WAV, and `model`, optionally
//! `language` and `response_format`; the answer `{"text": …}`), as whisper.cpp's server and
//! faster-whisper servers speak it. It hears with the embedded recogniser (PocketSphinx), so
//! what it answers is what was said, and it counts the requests and keeps the fields of the
//! last one.

use std::sync::{Arc, Mutex};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use amora_actors::ai::transcription::embedded::EmbeddedSpeechToText;
use amora_actors::ai::transcription::{EmbeddedTranscriptionSettings, SpeechToText, TranscriptionSettings, pcm};
use serde_json::json;

use super::loopback;

/// The text fields (`model`, `language`, …) of each request, in order.
pub type RequestFields = Arc<Mutex<Vec<Vec<(String, String)>>>>;

pub struct TranscriptionFake {
    pub base_url: String,
    /// The text fields (`model`, `language`, …) of each request, in order.
    pub requests: RequestFields,
}

struct State {
    recogniser: EmbeddedSpeechToText,
    requests: RequestFields,
}

/// The parts of a multipart body: (name, content) each.
fn parts(body: &[u8], boundary: &str) -> Vec<(String, Vec<u8>)> {
    let delimiter = format!("--{boundary}").into_bytes();
    let find = |haystack: &[u8], needle: &[u8], from: usize| {
        haystack.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|i| i + from)
    };
    let mut out = Vec::new();
    let mut at = match find(body, &delimiter, 0) {
        Some(at) => at + delimiter.len(),
        None => return out,
    };
    while let Some(next) = find(body, &delimiter, at) {
        let part = &body[at..next];
        if let Some(split) = find(part, b"\r\n\r\n", 0) {
            let head = String::from_utf8_lossy(&part[..split]).into_owned();
            let content = part[split + 4..].strip_suffix(b"\r\n").unwrap_or(&part[split + 4..]).to_vec();
            let name = head.split("name=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_default();
            out.push((name.to_owned(), content));
        }
        at = next + delimiter.len();
    }
    out
}

async fn transcriptions(state: web::Data<State>, request: HttpRequest, body: web::Bytes) -> HttpResponse {
    let content_type = request.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
    let Some(boundary) = content_type.split("boundary=").nth(1).map(|b| b.trim_matches('"').to_owned()) else {
        return HttpResponse::BadRequest().json(json!({"error": {"message": "a multipart form is expected"}}));
    };
    let parts = parts(&body, &boundary);
    let fields: Vec<(String, String)> = parts
        .iter()
        .filter(|(name, _)| name != "file")
        .map(|(name, content)| (name.clone(), String::from_utf8_lossy(content).into_owned()))
        .collect();
    state.requests.lock().unwrap().push(fields.clone());
    let Some((_, wav)) = parts.iter().find(|(name, _)| name == "file") else {
        return HttpResponse::BadRequest().json(json!({"error": {"message": "file is required"}}));
    };
    if !fields.iter().any(|(name, value)| name == "model" && !value.is_empty()) {
        return HttpResponse::BadRequest().json(json!({"error": {"message": "model is required"}}));
    }
    let samples = match pcm::read_wav(wav) {
        Ok((16_000, samples)) => samples,
        Ok((rate, samples)) => pcm::resample(&samples, rate, 16_000),
        Err(error) => return HttpResponse::BadRequest().json(json!({"error": {"message": error.to_string()}})),
    };
    match state.recogniser.transcribe(&samples, Some("en")).await {
        Ok(transcript) => HttpResponse::Ok().json(json!({"text": transcript.text})),
        Err(error) => HttpResponse::InternalServerError().json(json!({"error": {"message": error.to_string()}})),
    }
}

impl TranscriptionFake {
    pub async fn start() -> TranscriptionFake {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let state = web::Data::new(State {
            recogniser: EmbeddedSpeechToText::new(&EmbeddedTranscriptionSettings::default()),
            requests: requests.clone(),
        });
        let (listener, base) = loopback();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .app_data(web::PayloadConfig::new(16 * 1024 * 1024))
                .route("/v1/audio/transcriptions", web::post().to(transcriptions))
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        actix_rt::spawn(server);
        TranscriptionFake { base_url: format!("{base}/v1"), requests }
    }

    /// The server's recogniser settings for this service.
    pub fn settings(&self) -> TranscriptionSettings {
        TranscriptionSettings::openai(&self.base_url, "whisper-1")
    }
}
