//! A hosted OpenAI-compatible chat API on loopback (`POST /v1/chat/completions`, streamed as
//! server-sent events, as OpenAI, OpenRouter and llama-server answer it) that keeps every
//! request body it receives, so a test can read the prompt Amora sent. llama-server itself
//! runs in the chat tests; it does not tell what prompt it was given.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use futures_util::StreamExt;
use serde_json::Value;

use super::loopback;

pub struct ChatApiFake {
    /// `http://127.0.0.1:PORT/v1`, for the OpenAI provider's `base_url`.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

/// What the fake answers: the reply's pieces, and the pause before each one after the first.
#[derive(Clone)]
struct Reply {
    pieces: Vec<String>,
    gap: Duration,
}

async fn completions(
    requests: web::Data<Arc<Mutex<Vec<Value>>>>,
    reply: web::Data<Reply>,
    body: web::Json<Value>,
) -> HttpResponse {
    requests.lock().unwrap().push(body.into_inner());
    let mut events: Vec<String> = reply
        .pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| {
            let role = if i == 0 { r#""role":"assistant","# } else { "" };
            format!(r#"{{"choices":[{{"index":0,"delta":{{{role}"content":{}}}}}]}}"#, Value::from(piece.as_str()))
        })
        .collect();
    events.push(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#.to_owned());
    events.push("[DONE]".to_owned());
    let gap = reply.gap;
    // Each piece is its own chunk, sent `gap` after the one before (a reply being written).
    let chunks = futures_util::stream::iter(events.into_iter().enumerate()).then(move |(i, event)| async move {
        if i > 0 && !gap.is_zero() {
            tokio::time::sleep(gap).await;
        }
        Ok::<_, actix_web::Error>(web::Bytes::from(format!("data: {event}\n\n")))
    });
    HttpResponse::Ok().content_type("text/event-stream").streaming(chunks)
}

impl ChatApiFake {
    pub async fn start() -> ChatApiFake {
        Self::start_with(&["The gulls ", "know the way."], Duration::ZERO).await
    }

    /// A fake whose reply is `pieces`, streamed `gap` apart (a reply still being written
    /// while the test looks).
    pub async fn start_with(pieces: &[&str], gap: Duration) -> ChatApiFake {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let data = web::Data::new(requests.clone());
        let reply = web::Data::new(Reply { pieces: pieces.iter().map(|p| (*p).to_owned()).collect(), gap });
        let (listener, base) = loopback();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .app_data(reply.clone())
                .route("/v1/chat/completions", web::post().to(completions))
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
