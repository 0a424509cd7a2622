//! A loopback text-to-speech service following OpenAI's published `POST /v1/audio/speech`
//! (`{model, input, voice, response_format}` in, the audio's bytes out), as Kokoro-FastAPI
//! and other servers speak it. It answers real MP3 made by the embedded synthesiser, or,
//! while `failing` is set, HTTP 500 as a broken service would.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use actix_web::{App, HttpResponse, HttpServer, web};
use amora_actors::voice::{ModelVoice, VoiceModel, VoiceModelSettings, build_model};
use serde_json::Value;

use super::loopback;

pub struct SpeechFake {
    pub base_url: String,
    pub failing: Arc<AtomicBool>,
    pub requests: Arc<AtomicUsize>,
}

struct State {
    synthesiser: Arc<dyn VoiceModel>,
    failing: Arc<AtomicBool>,
    requests: Arc<AtomicUsize>,
}

async fn speech(state: web::Data<State>, body: web::Json<Value>) -> HttpResponse {
    state.requests.fetch_add(1, Ordering::SeqCst);
    if state.failing.load(Ordering::SeqCst) {
        return HttpResponse::InternalServerError().json(serde_json::json!({"error": {"message": "engine crashed"}}));
    }
    let (Some(input), Some(voice), Some(_model)) =
        (body["input"].as_str(), body["voice"].as_str(), body["model"].as_str())
    else {
        return HttpResponse::BadRequest()
            .json(serde_json::json!({"error": {"message": "model, input and voice are required"}}));
    };
    if body["response_format"] != "mp3" {
        return HttpResponse::BadRequest().json(serde_json::json!({"error": {"message": "only mp3 here"}}));
    }
    let flite_voice = if voice.starts_with('m') { "rms" } else { "slt" };
    match state.synthesiser.speak(input, flite_voice).await {
        Ok(speech) => HttpResponse::Ok().content_type("audio/mpeg").body(speech.bytes),
        Err(error) => HttpResponse::InternalServerError().body(error.to_string()),
    }
}

impl SpeechFake {
    pub fn start() -> Self {
        let (listener, base) = loopback();
        let failing = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(AtomicUsize::new(0));
        let synthesiser = build_model(&VoiceModelSettings::default()).unwrap();
        let state = web::Data::new(State { synthesiser, failing: failing.clone(), requests: requests.clone() });
        let server = HttpServer::new(move || {
            App::new().app_data(state.clone()).route("/v1/audio/speech", web::post().to(speech))
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        actix_rt::spawn(server);
        Self { base_url: format!("{base}/v1"), failing, requests }
    }

    /// The server's voice model settings for this service, with one voice of each gender.
    pub fn settings(&self) -> VoiceModelSettings {
        let voice = |id: &str, gender: u8| ModelVoice { voice_id: id.into(), gender, label: id.into() };
        VoiceModelSettings::openai(&self.base_url, "tts-1", vec![voice("fable-f", 0), voice("male-m", 1)])
    }
}
