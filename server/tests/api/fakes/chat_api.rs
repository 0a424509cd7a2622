//! A hosted OpenAI-compatible chat API on loopback (`POST /v1/chat/completions`, streamed as
//! server-sent events, as OpenAI, OpenRouter and llama-server answer it) that keeps every
//! request body it receives, so a test can read the prompt Amora sent. llama-server itself
//! runs in the chat tests; it does not tell what prompt it was given.

use std::sync::{Arc, Mutex};

use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::Value;

use super::loopback;

pub struct ChatApiFake {
    /// `http://127.0.0.1:PORT/v1`, for the OpenAI provider's `base_url`.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

async fn completions(requests: web::Data<Arc<Mutex<Vec<Value>>>>, body: web::Json<Value>) -> HttpResponse {
    requests.lock().unwrap().push(body.into_inner());
    let events = [
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"The gulls "}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"know the way."}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ];
    let body: String = events.iter().map(|event| format!("data: {event}\n\n")).collect();
    HttpResponse::Ok().content_type("text/event-stream").body(body)
}

/// What marks a prompt the numbered fake fails (HTTP 500), so a test can make one reply fail.
pub const FAIL_MARK: &str = "[fail]";

/// Answers request number `n` (from 1) with "Reply number n.", so every reply, version and
/// continuation differs; fails a prompt holding `FAIL_MARK`, as a provider's outage would.
async fn numbered(requests: web::Data<Arc<Mutex<Vec<Value>>>>, body: web::Json<Value>) -> HttpResponse {
    let body = body.into_inner();
    let fail = body["messages"]
        .as_array()
        .is_some_and(|messages| messages.iter().any(|m| m["content"].as_str().is_some_and(|c| c.contains(FAIL_MARK))));
    let n = {
        let mut requests = requests.lock().unwrap();
        requests.push(body);
        requests.len()
    };
    if fail {
        return HttpResponse::InternalServerError().json(serde_json::json!({"error": {"message": "down"}}));
    }
    let first = serde_json::json!({"choices":[{"index":0,"delta":{"role":"assistant","content":"Reply number "}}]});
    let second = serde_json::json!({"choices":[{"index":0,"delta":{"content":format!("{n}.")}}]});
    let events = [
        first.to_string(),
        second.to_string(),
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#.to_owned(),
        "[DONE]".to_owned(),
    ];
    let body: String = events.iter().map(|event| format!("data: {event}\n\n")).collect();
    HttpResponse::Ok().content_type("text/event-stream").body(body)
}

impl ChatApiFake {
    pub async fn start() -> ChatApiFake {
        Self::serve(false).await
    }

    /// A fake whose replies are numbered ("Reply number 3."), see `numbered`.
    pub async fn start_numbered() -> ChatApiFake {
        Self::serve(true).await
    }

    async fn serve(numbered_replies: bool) -> ChatApiFake {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let data = web::Data::new(requests.clone());
        let (listener, base) = loopback();
        let server = HttpServer::new(move || {
            let answer = if numbered_replies { web::post().to(numbered) } else { web::post().to(completions) };
            App::new().app_data(data.clone()).route("/v1/chat/completions", answer)
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        actix_rt::spawn(server);
        ChatApiFake { base_url: format!("{base}/v1"), requests }
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
