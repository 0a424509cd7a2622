//! The OpenAI-compatible provider: `POST {base_url}/chat/completions` with `stream: true`,
//! read as server-sent events (`data: {json}` lines, then `data: [DONE]`). Works with
//! OpenAI, OpenRouter, vLLM, Ollama and llama.cpp's `llama-server`.
//!
//! Connection failures are retried (`connect_retries`, with doubling pauses) only while
//! nothing was sent back; once a reply has started it is never repeated. A kept-alive
//! connection that the service had closed (llama-server closes one after a few requests)
//! fails before any answer, and is retried at once on a new connection. Cancellation
//! drops the response, which closes the connection, so the service stops generating.

use std::collections::VecDeque;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};

use super::stop::StopMatcher;
use super::{
    AiError, CancellationToken, ChatModel, ChatRequest, Finish, FinishReason, ModelInfo, ModelSettings, OpenAiSettings,
    StreamEvent, TokenStream, Usage,
};

/// The OpenAI-compatible provider.
pub struct OpenAiChatModel {
    client: reqwest::Client,
    url: String,
    settings: OpenAiSettings,
    max_tokens: u32,
}

impl std::fmt::Debug for OpenAiChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiChatModel").field("url", &self.url).field("model", &self.settings.model).finish()
    }
}

impl OpenAiChatModel {
    /// Makes the client for `settings.openai`; nothing is sent until the first reply.
    pub fn new(settings: &ModelSettings) -> Result<Self, AiError> {
        let o = &settings.openai;
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_millis(o.connect_timeout_ms))
            .read_timeout(Duration::from_millis(o.request_timeout_ms))
            .user_agent(concat!("amora/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| AiError::Internal(format!("cannot build the HTTP client: {e}")))?;
        let url = format!("{}/chat/completions", o.base_url.trim_end_matches('/'));
        Ok(Self { client, url, settings: o.clone(), max_tokens: settings.max_tokens })
    }

    fn body(&self, request: &ChatRequest) -> Value {
        let mut messages: Vec<Value> =
            request.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})).collect();
        // A prefill is the start of the assistant's turn: llama.cpp's server and vLLM
        // continue a final assistant message rather than answer it.
        if let Some(prefill) = &request.prefill {
            messages.push(json!({"role": "assistant", "content": prefill}));
        }
        let max_tokens = request.max_tokens.unwrap_or(self.max_tokens).min(self.max_tokens);
        let mut body = json!({
            "model": self.settings.model,
            "messages": messages,
            "stream": true,
            "max_tokens": max_tokens,
        });
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(p) = request.top_p {
            body["top_p"] = json!(p);
        }
        if let Some(seed) = request.seed {
            body["seed"] = json!(seed);
        }
        if !request.stop.is_empty() {
            // OpenAI takes at most four; the rest are still applied here.
            body["stop"] = json!(request.stop.iter().take(4).collect::<Vec<_>>());
        }
        if self.settings.stream_usage {
            body["stream_options"] = json!({"include_usage": true});
        }
        body
    }

    /// Sends the request, retrying connection failures; returns the response once its
    /// status is known to be a success.
    async fn send(&self, body: &Value) -> Result<reqwest::Response, AiError> {
        let mut attempt = 0u32;
        let response = loop {
            let mut builder = self.client.post(&self.url).json(body).header("accept", "text/event-stream");
            if let Some(key) = &self.settings.api_key {
                builder = builder.bearer_auth(key);
            }
            match builder.send().await {
                Ok(response) => break response,
                Err(error) if closed_before_answer(&error) && attempt < self.settings.connect_retries.max(1) => {
                    attempt += 1;
                    tracing::debug!(%error, attempt, "the chat service had closed the kept-alive connection; retrying");
                }
                Err(error) if error.is_connect() && attempt < self.settings.connect_retries => {
                    let pause = self.settings.retry_backoff_ms.saturating_mul(1 << attempt.min(10));
                    attempt += 1;
                    tracing::debug!(%error, attempt, "cannot connect to the chat service; retrying");
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                }
                Err(error) if error.is_connect() => {
                    return Err(AiError::Unavailable(format!(
                        "cannot connect to {} ({} tries): {error}",
                        self.url,
                        attempt + 1
                    )));
                }
                Err(error) if error.is_timeout() => {
                    return Err(AiError::Unavailable(format!("{} did not answer in time: {error}", self.url)));
                }
                Err(error) => {
                    return Err(AiError::Unavailable(format!("request to {} failed: {}", self.url, chain(&error))));
                }
            }
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let text = response.text().await.unwrap_or_default();
        let message = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().or_else(|| v["error"].as_str()).map(str::to_owned))
            .unwrap_or_else(|| text.chars().take(300).collect());
        let message = format!("{} answered {status}: {message}", self.url);
        Err(match status.as_u16() {
            429 | 503 => AiError::Busy(message),
            401 | 403 => AiError::Unavailable(message),
            400..=499 => AiError::BadRequest(message),
            _ => AiError::Unavailable(message),
        })
    }
}

#[async_trait::async_trait]
impl ChatModel for OpenAiChatModel {
    async fn stream(&self, request: ChatRequest) -> Result<TokenStream, AiError> {
        request.validate()?;
        let cancel = request.cancel.clone();
        if cancel.is_cancelled() {
            return Ok(TokenStream::finished(FinishReason::Cancelled));
        }
        let body = self.body(&request);
        let response = tokio::select! {
            biased;
            () = cancel.cancelled() => return Ok(TokenStream::finished(FinishReason::Cancelled)),
            response = self.send(&body) => response?,
        };
        let idle = Duration::from_millis(self.settings.request_timeout_ms);
        let state = ReadState {
            body: Box::pin(response.bytes_stream().map(|chunk| chunk.map(|bytes| bytes.to_vec()))),
            sse: SseParser::default(),
            reply: ReplyState::new(&request.stop),
            pending: VecDeque::new(),
            cancel,
            idle,
            done: false,
        };
        Ok(TokenStream::new(futures_util::stream::unfold(state, read_next)))
    }

    fn info(&self) -> ModelInfo {
        ModelInfo {
            provider: "openai",
            model: self.settings.model.clone(),
            context_window: self.settings.context_window,
            max_tokens: self.max_tokens,
        }
    }
}

/// The response body as owned chunks (a copy per chunk keeps the `bytes` crate out of the API).
type ByteStream = std::pin::Pin<Box<dyn futures_util::Stream<Item = Result<Vec<u8>, reqwest::Error>> + Send>>;

struct ReadState {
    body: ByteStream,
    sse: SseParser,
    reply: ReplyState,
    pending: VecDeque<Result<StreamEvent, AiError>>,
    cancel: CancellationToken,
    idle: Duration,
    done: bool,
}

async fn read_next(mut state: ReadState) -> Option<(Result<StreamEvent, AiError>, ReadState)> {
    loop {
        if let Some(event) = state.pending.pop_front() {
            return Some((event, state));
        }
        if state.done {
            return None;
        }
        let chunk = tokio::select! {
            biased;
            () = state.cancel.cancelled() => {
                state.done = true;
                // Dropping the body (with the state, after this item) closes the connection.
                state.body = Box::pin(futures_util::stream::empty());
                state.pending.push_back(Ok(StreamEvent::Done(Finish { reason: FinishReason::Cancelled, usage: state.reply.usage })));
                continue;
            }
            chunk = tokio::time::timeout(state.idle, state.body.next()) => chunk,
        };
        let events = match chunk {
            Err(_) => {
                Err(AiError::Unavailable(format!("the chat service sent nothing for {} ms", state.idle.as_millis())))
            }
            Ok(Some(Err(error))) => {
                Err(AiError::Unavailable(format!("the chat service's stream broke: {}", chain(&error))))
            }
            Ok(Some(Ok(bytes))) => {
                let mut events = Vec::new();
                let mut result = Ok(());
                for data in state.sse.push(&bytes) {
                    match state.reply.on_data(&data) {
                        Ok(more) => events.extend(more),
                        Err(error) => {
                            result = Err(error);
                            break;
                        }
                    }
                    if state.reply.finished {
                        break;
                    }
                }
                result.map(|()| events)
            }
            Ok(None) => {
                let mut events = Vec::new();
                if let Some(data) = state.sse.finish() {
                    events = match state.reply.on_data(&data) {
                        Ok(events) => events,
                        Err(error) => {
                            state.done = true;
                            state.pending.push_back(Err(error));
                            continue;
                        }
                    };
                }
                if !state.reply.finished {
                    match state.reply.end_of_body() {
                        Ok(more) => events.extend(more),
                        Err(error) => {
                            state.pending.extend(events.into_iter().map(Ok));
                            state.pending.push_back(Err(error));
                            state.done = true;
                            continue;
                        }
                    }
                }
                Ok(events)
            }
        };
        match events {
            Ok(events) => state.pending.extend(events.into_iter().map(Ok)),
            Err(error) => {
                state.pending.push_back(Err(error));
                state.done = true;
            }
        }
        if state.reply.finished {
            state.done = true;
            state.body = Box::pin(futures_util::stream::empty());
        }
    }
}

/// An error with its causes ("error sending request: connection closed before …").
/// Whether the connection closed before any answer came: a pooled connection the service
/// had already closed. No answer came, so nothing reached the user; sending again at worst
/// repeats work the service dropped.
fn closed_before_answer(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(hyper_error) = cause.downcast_ref::<hyper::Error>() {
            return hyper_error.is_incomplete_message();
        }
        source = cause.source();
    }
    false
}

fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Splits a byte stream into server-sent events, returning each event's `data`.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    data: Option<String>,
}

impl SseParser {
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                let line = std::mem::take(&mut self.line);
                let line = line.strip_suffix(b"\r").unwrap_or(&line);
                self.on_line(&String::from_utf8_lossy(line), &mut events);
            } else {
                self.line.push(b);
            }
        }
        events
    }

    /// The event still open when the body ends.
    pub(crate) fn finish(&mut self) -> Option<String> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.on_line(&String::from_utf8_lossy(&line), &mut events);
        }
        events.pop().or_else(|| self.data.take())
    }

    fn on_line(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                events.push(data);
            }
            return;
        }
        if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            }
        }
        // Comments (":"), "event:", "id:" and "retry:" lines carry nothing for us.
    }
}

/// What the chunks of one reply add up to.
pub(crate) struct ReplyState {
    stop: StopMatcher,
    reason: Option<FinishReason>,
    usage: Option<Usage>,
    finished: bool,
}

impl ReplyState {
    pub(crate) fn new(stop: &[String]) -> Self {
        Self { stop: StopMatcher::new(stop), reason: None, usage: None, finished: false }
    }

    fn done(&mut self, reason: FinishReason, flush: bool) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        if flush {
            let rest = self.stop.flush();
            if !rest.is_empty() {
                events.push(StreamEvent::Delta(rest));
            }
        }
        self.finished = true;
        events.push(StreamEvent::Done(Finish { reason, usage: self.usage }));
        events
    }

    /// Handles one event's data: a JSON chunk, or `[DONE]`.
    pub(crate) fn on_data(&mut self, data: &str) -> Result<Vec<StreamEvent>, AiError> {
        if self.finished {
            return Ok(Vec::new());
        }
        let data = data.trim();
        if data == "[DONE]" {
            return Ok(self.done(self.reason.unwrap_or(FinishReason::Stop), true));
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            AiError::Internal(format!("the chat service sent a chunk that is not JSON ({e}): {data:.200}"))
        })?;
        if let Some(error) = chunk.get("error") {
            let message = error["message"].as_str().map(str::to_owned).unwrap_or_else(|| error.to_string());
            return Err(AiError::Internal(format!("the chat service failed mid-reply: {message}")));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(Usage {
                prompt_tokens: usage["prompt_tokens"].as_u64().unwrap_or(0) as u32,
                completion_tokens: usage["completion_tokens"].as_u64().unwrap_or(0) as u32,
            });
        }
        let mut events = Vec::new();
        let Some(choice) = chunk["choices"].as_array().and_then(|c| c.first()) else {
            return Ok(events);
        };
        if let Some(text) = choice["delta"]["content"].as_str().filter(|t| !t.is_empty()) {
            let (text, stopped) = self.stop.push(text);
            if !text.is_empty() {
                events.push(StreamEvent::Delta(text));
            }
            if stopped {
                events.extend(self.done(FinishReason::Stop, false));
                return Ok(events);
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.reason = Some(match reason {
                "length" => FinishReason::Length,
                _ => FinishReason::Stop,
            });
        }
        Ok(events)
    }

    /// The body ended without `[DONE]`: fine after a finish reason, else the reply was cut.
    pub(crate) fn end_of_body(&mut self) -> Result<Vec<StreamEvent>, AiError> {
        match self.reason {
            Some(reason) => Ok(self.done(reason, true)),
            None => Err(AiError::Unavailable("the chat service closed the stream before the reply ended".into())),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn sse_parser_joins_split_lines_and_skips_comments() {
        let mut p = SseParser::default();
        assert!(p.push(b": keep-alive\n\ndata: {\"a\"").is_empty());
        assert_eq!(p.push(b":1}\r\n\r\ndata: [DONE]\n"), vec!["{\"a\":1}".to_string()]);
        assert_eq!(p.push(b"\n"), vec!["[DONE]".to_string()]);
        assert_eq!(p.finish(), None);
        assert!(p.push(b"data: x").is_empty());
        assert_eq!(p.finish().as_deref(), Some("x"));
    }

    #[test]
    fn reply_state_reads_openai_chunks() {
        let mut r = ReplyState::new(&[]);
        let chunk = |content: &str| format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"{content}"}}}}]}}"#);
        assert_eq!(r.on_data(r#"{"choices":[{"delta":{"role":"assistant"}}]}"#).unwrap(), vec![]);
        assert_eq!(r.on_data(&chunk("Hel")).unwrap(), vec![StreamEvent::Delta("Hel".into())]);
        assert_eq!(r.on_data(&chunk("lo")).unwrap(), vec![StreamEvent::Delta("lo".into())]);
        assert_eq!(r.on_data(r#"{"choices":[{"delta":{},"finish_reason":"length"}]}"#).unwrap(), vec![]);
        assert_eq!(r.on_data(r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#).unwrap(), vec![]);
        let usage = Some(Usage { prompt_tokens: 5, completion_tokens: 2 });
        assert_eq!(
            r.on_data("[DONE]").unwrap(),
            vec![StreamEvent::Done(Finish { reason: FinishReason::Length, usage })]
        );
        assert!(r.finished);
    }

    #[test]
    fn reply_state_applies_stop_strings_and_reports_errors() {
        let mut r = ReplyState::new(&["\nUser".to_string()]);
        let chunk = |content: &str| format!(r#"{{"choices":[{{"delta":{{"content":{}}}}}]}}"#, json!(content));
        assert_eq!(r.on_data(&chunk("Sure.\nUs")).unwrap(), vec![StreamEvent::Delta("Sure.".into())]);
        assert_eq!(
            r.on_data(&chunk("er: hi")).unwrap(),
            vec![StreamEvent::Done(Finish { reason: FinishReason::Stop, usage: None })]
        );
        let mut r = ReplyState::new(&[]);
        assert!(
            matches!(r.on_data(r#"{"error":{"message":"boom"}}"#), Err(AiError::Internal(m)) if m.contains("boom"))
        );
        let mut r = ReplyState::new(&[]);
        assert!(matches!(r.end_of_body(), Err(AiError::Unavailable(_))));
    }
}
