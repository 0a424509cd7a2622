//! A hosted OpenAI-compatible chat API on loopback (`POST /v1/chat/completions`, streamed as
//! server-sent events, as OpenAI, OpenRouter and llama-server answer it) that keeps every
//! request body it receives, so a test can read the prompt Amora sent. llama-server itself
//! runs in the chat tests; it does not tell what prompt it was given.

use std::sync::{Arc, Mutex};

use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::{Value, json};

use super::loopback;

pub struct ChatApiFake {
    /// `http://127.0.0.1:PORT/v1`, for the OpenAI provider's `base_url`.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
    reply: Arc<Mutex<Reply>>,
}

/// What the fake answers: the reply's pieces (one delta each) and why it ended (`stop`, or
/// `length` as a provider reports the token limit).
#[derive(Clone)]
struct Reply {
    pieces: Vec<String>,
    finish_reason: String,
}

impl Default for Reply {
    fn default() -> Self {
        Reply { pieces: vec!["The gulls ".into(), "know the way.".into()], finish_reason: "stop".into() }
    }
}

async fn completions(
    requests: web::Data<Arc<Mutex<Vec<Value>>>>,
    reply: web::Data<Arc<Mutex<Reply>>>,
    body: web::Json<Value>,
) -> HttpResponse {
    requests.lock().unwrap().push(body.into_inner());
    let reply = reply.lock().unwrap().clone();
    let mut events: Vec<String> = reply
        .pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| {
            let delta = if i == 0 { json!({"role": "assistant", "content": piece}) } else { json!({"content": piece}) };
            json!({"choices": [{"index": 0, "delta": delta}]}).to_string()
        })
        .collect();
    events.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}]}).to_string());
    events.push("[DONE]".into());
    let body: String = events.iter().map(|event| format!("data: {event}\n\n")).collect();
    HttpResponse::Ok().content_type("text/event-stream").body(body)
}

impl ChatApiFake {
    pub async fn start() -> ChatApiFake {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let reply = Arc::new(Mutex::new(Reply::default()));
        let data = web::Data::new(requests.clone());
        let reply_data = web::Data::new(reply.clone());
        let (listener, base) = loopback();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .app_data(reply_data.clone())
                .route("/v1/chat/completions", web::post().to(completions))
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        actix_rt::spawn(server);
        ChatApiFake { base_url: format!("{base}/v1"), requests, reply }
    }

    /// From now on the fake answers `pieces` (one delta each), ended with `finish_reason`
    /// (`"stop"`, or `"length"`: the token limit stopped it).
    pub fn reply_with(&self, pieces: &[&str], finish_reason: &str) {
        *self.reply.lock().unwrap() =
            Reply { pieces: pieces.iter().map(|p| (*p).to_owned()).collect(), finish_reason: finish_reason.to_owned() };
    }

    /// The `messages` of every request so far, oldest first, each joined into one text per
    /// message: `role: content`.
    pub fn prompts(&self) -> Vec<Vec<String>> {
        let requests = self.requests.lock().unwrap();
        requests
            .iter()
            .map(|request| {
                request["messages"]
                    .as_array()
                    .map(|messages| {
                        messages
                            .iter()
                            .map(|m| {
                                format!("{}: {}", m["role"].as_str().unwrap_or(""), m["content"].as_str().unwrap_or(""))
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect()
    }
}
