//! A hosted OpenAI-compatible chat API on loopback (`POST /v1/chat/completions`, streamed as
//! server-sent events, as OpenAI, OpenRouter and llama-server answer it) that keeps every
//! request body it receives, so a test can read the prompt Amora sent. llama-server itself
//! runs in the chat tests; it does not tell what prompt it was given.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use futures_util::StreamExt;
use serde_json::{Value, json};

use super::loopback;

/// What marks a prompt the fake fails (HTTP 500, as a provider's outage answers), so a test
/// can make one reply fail.
pub const FAIL_MARK: &str = "[fail]";

pub struct ChatApiFake {
    /// `http://127.0.0.1:PORT/v1`, for the OpenAI provider's `base_url`.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
    reply: Arc<Mutex<Reply>>,
}

/// What the fake answers: the reply's pieces (one delta each), the pause before each piece
/// after the first, and why it ended (`stop`, or `length` as a provider reports the token
/// limit). A numbered fake answers request number n with "Reply number n." instead, so
/// every reply, version and continuation differs.
#[derive(Clone)]
struct Reply {
    pieces: Vec<String>,
    gap: Duration,
    finish_reason: String,
    numbered: bool,
    /// Answered first, one a request, before the standing reply (pieces of each).
    queued: std::collections::VecDeque<Vec<String>>,
}

impl Default for Reply {
    fn default() -> Self {
        Reply {
            pieces: vec!["The gulls ".into(), "know the way.".into()],
            gap: Duration::ZERO,
            finish_reason: "stop".into(),
            numbered: false,
            queued: Default::default(),
        }
    }
}

async fn completions(
    requests: web::Data<Arc<Mutex<Vec<Value>>>>,
    reply: web::Data<Arc<Mutex<Reply>>>,
    body: web::Json<Value>,
) -> HttpResponse {
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
        return HttpResponse::InternalServerError().json(json!({"error": {"message": "down"}}));
    }
    let (reply, queued) = {
        let mut reply = reply.lock().unwrap();
        let queued = reply.queued.pop_front();
        (reply.clone(), queued)
    };
    let pieces = match queued {
        Some(pieces) => pieces,
        None if reply.numbered => vec!["Reply number ".to_owned(), format!("{n}.")],
        None => reply.pieces,
    };
    let mut events: Vec<String> = pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| {
            let delta = if i == 0 { json!({"role": "assistant", "content": piece}) } else { json!({"content": piece}) };
            json!({"choices": [{"index": 0, "delta": delta}]}).to_string()
        })
        .collect();
    events.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}]}).to_string());
    events.push("[DONE]".into());
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
        Self::serve(Reply::default()).await
    }

    /// A fake whose reply is `pieces`, streamed `gap` apart (a reply still being written
    /// while the test looks).
    pub async fn start_with(pieces: &[&str], gap: Duration) -> ChatApiFake {
        Self::serve(Reply { pieces: pieces.iter().map(|p| (*p).to_owned()).collect(), gap, ..Reply::default() }).await
    }

    /// A fake whose replies are numbered ("Reply number 3.").
    pub async fn start_numbered() -> ChatApiFake {
        Self::serve(Reply { numbered: true, ..Reply::default() }).await
    }

    async fn serve(reply: Reply) -> ChatApiFake {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let reply = Arc::new(Mutex::new(reply));
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
        let mut reply = self.reply.lock().unwrap();
        reply.pieces = pieces.iter().map(|p| (*p).to_owned()).collect();
        reply.finish_reason = finish_reason.to_owned();
        reply.numbered = false;
    }

    /// The next requests are answered with these replies (the pieces of each), one a
    /// request in order; then the standing reply again.
    pub fn answer_next(&self, replies: &[&[&str]]) {
        let mut reply = self.reply.lock().unwrap();
        reply.queued.extend(replies.iter().map(|pieces| pieces.iter().map(|p| (*p).to_owned()).collect()));
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
