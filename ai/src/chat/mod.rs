//! Chat models: a conversation in, a reply streamed out token by token.
//!
//! ```no_run
//! # async fn demo() -> Result<(), amora_ai::AiError> {
//! use amora_ai::chat::{self, ChatMessage, ChatRequest, ModelSettings, StreamEvent};
//! use futures_util::StreamExt;
//!
//! let model = chat::build_async(&ModelSettings::default()).await?;
//! let request = ChatRequest::new(vec![
//!     ChatMessage::system("You are Mia, a cheerful barista."),
//!     ChatMessage::user("Hi! What do you recommend?"),
//! ])
//! .max_tokens(200);
//! let cancel = request.cancel.clone(); // cancel.cancel() stops the reply in flight
//! let mut reply = model.stream(request).await?;
//! while let Some(event) = reply.next().await {
//!     match event? {
//!         StreamEvent::Delta(text) => print!("{text}"),
//!         StreamEvent::Done(done) => println!("\n[{:?}]", done.reason),
//!     }
//! }
//! # drop(cancel);
//! # Ok(())
//! # }
//! ```

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
pub use tokio_util::sync::CancellationToken;

pub use crate::AiError;

pub mod embedded;
pub mod openai;
mod settings;
mod stop;

pub use settings::{EmbeddedSettings, Engine, ModelKind, ModelSettings, OpenAiSettings, Requantize};

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    /// The role's name in chat templates and the OpenAI API.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self { role, content: content.into() }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
}

/// A request for one reply. Build it with [`ChatRequest::new`] and the setters.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    /// The conversation so far, oldest first; the reply continues it as the assistant.
    pub messages: Vec<ChatMessage>,
    /// Most tokens in the reply; `None` takes the provider's configured limit, and a
    /// larger value is lowered to it.
    pub max_tokens: Option<u32>,
    /// Sampling temperature; `None` takes the provider's default (0.7); 0 is greedy.
    pub temperature: Option<f32>,
    /// Nucleus sampling; `None` takes the provider's default (0.9).
    pub top_p: Option<f32>,
    /// The reply ends (with [`FinishReason::Stop`]) before the first of these strings,
    /// which is not part of the reply.
    pub stop: Vec<String>,
    /// Seed for sampling, for repeatable replies; `None` picks one.
    pub seed: Option<u64>,
    /// Cancelling this token stops the reply in flight: the stream ends with
    /// [`FinishReason::Cancelled`], the embedded model frees its slot at the next token
    /// and the OpenAI-compatible request is dropped.
    pub cancel: CancellationToken,
    /// The first this many messages stay the same from one turn to the next and the ones
    /// after them do not (what was recalled for this message, say): a model with a prompt
    /// cache (the embedded one) keeps its state after them, so the next turn starts from
    /// there. `None`: the whole prompt is the next one's start.
    pub cache_prefix: Option<usize>,
    /// Text the reply starts with, written by the caller (a continued reply's text so far,
    /// an answer's opening): the model writes what follows it, and the stream carries only
    /// that. The embedded model reads it as the start of its own turn; the
    /// OpenAI-compatible provider sends it as a final assistant message, which llama.cpp's
    /// server and vLLM continue.
    pub prefill: Option<String>,
    /// The language the reply is to be in (`de`, one of the ten interface languages). A
    /// model that can hold its decoding to it does (the embedded one: no token of another
    /// script, English's common words made unlikely); others read it in the prompt only.
    pub language: Option<String>,
    /// Hold the reply to [`ChatRequest::language`] harder: a model that biases against
    /// English's common words then never samples them. For a reply written again after one
    /// came in English (a small model's drift in Polish or German).
    pub strict_language: bool,
    /// Tokens the reply has at least before it may end its turn: a model that samples
    /// holds the end of turn back until then (the embedded one); others ignore it. For a
    /// continuation, which a small model otherwise often ends at once, saying nothing.
    pub min_tokens: u32,
    /// The reply may not open with a stop string, nor with a blank line: a model that
    /// samples never takes, as the first token of its own text, whitespace alone or the
    /// first token of a stop string (the embedded one, when there is no prefill); others
    /// ignore it. For a reply written again after one that said nothing because it opened
    /// with the user's label ("Alex:", "\nUser:") and was stopped at once.
    pub avoid_stop_openings: bool,
}

impl ChatRequest {
    pub fn new(messages: Vec<ChatMessage>) -> Self {
        Self {
            messages,
            max_tokens: None,
            temperature: None,
            top_p: None,
            stop: Vec::new(),
            seed: None,
            cancel: CancellationToken::new(),
            cache_prefix: None,
            prefill: None,
            language: None,
            strict_language: false,
            min_tokens: 0,
            avoid_stop_openings: false,
        }
    }

    /// See [`ChatRequest::prefill`]; an empty text is none.
    pub fn prefill(mut self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.prefill = (!text.is_empty()).then_some(text);
        self
    }

    /// See [`ChatRequest::language`].
    pub fn language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }

    /// See [`ChatRequest::strict_language`].
    pub fn strict_language(mut self, strict: bool) -> Self {
        self.strict_language = strict;
        self
    }

    /// See [`ChatRequest::min_tokens`].
    pub fn min_tokens(mut self, min_tokens: u32) -> Self {
        self.min_tokens = min_tokens;
        self
    }

    /// See [`ChatRequest::avoid_stop_openings`].
    pub fn avoid_stop_openings(mut self, avoid: bool) -> Self {
        self.avoid_stop_openings = avoid;
        self
    }

    /// See [`ChatRequest::cache_prefix`].
    pub fn cache_prefix(mut self, messages: usize) -> Self {
        self.cache_prefix = Some(messages);
        self
    }
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }
    pub fn top_p(mut self, top_p: f32) -> Self {
        self.top_p = Some(top_p);
        self
    }
    pub fn stop(mut self, stop: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.stop = stop.into_iter().map(Into::into).collect();
        self
    }
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
    pub fn cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    pub(crate) fn validate(&self) -> Result<(), AiError> {
        if self.messages.is_empty() {
            return Err(AiError::BadRequest("the conversation has no message".into()));
        }
        if self.max_tokens == Some(0) {
            return Err(AiError::BadRequest("max_tokens must be at least 1".into()));
        }
        if let Some(t) = self.temperature
            && !(0.0..=2.0).contains(&t)
        {
            return Err(AiError::BadRequest(format!("temperature {t} is outside 0..=2")));
        }
        if let Some(p) = self.top_p
            && !(p > 0.0 && p <= 1.0)
        {
            return Err(AiError::BadRequest(format!("top_p {p} is outside (0, 1]")));
        }
        if self.stop.iter().any(String::is_empty) {
            return Err(AiError::BadRequest("a stop string is empty".into()));
        }
        Ok(())
    }
}

/// Why a reply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FinishReason {
    /// The model ended its turn, or a stop string came.
    Stop,
    /// The token limit (the request's, the provider's or the context window) was reached.
    Length,
    /// The request's cancellation token fired (or the stream was dropped).
    Cancelled,
}

/// Token counts of one reply, when the provider knows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

/// The end of a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finish {
    pub reason: FinishReason,
    /// Known for embedded replies that were not cancelled; for OpenAI-compatible services
    /// when they send it (`stream_usage`).
    pub usage: Option<Usage>,
}

/// One item of a streamed reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// The next piece of the reply's text: never empty, always whole UTF-8 characters.
    Delta(String),
    /// The reply is over; always the last item of a stream that did not fail.
    Done(Finish),
}

/// A whole reply, gathered by [`TokenStream::collect_reply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub finish: Finish,
    /// How many deltas carried the text.
    pub deltas: usize,
}

/// A reply being streamed: zero or more [`StreamEvent::Delta`] then one
/// [`StreamEvent::Done`], or an error as the last item. Dropping it stops generation.
pub struct TokenStream {
    inner: Pin<Box<dyn Stream<Item = Result<StreamEvent, AiError>> + Send>>,
}

impl TokenStream {
    pub fn new(stream: impl Stream<Item = Result<StreamEvent, AiError>> + Send + 'static) -> Self {
        Self { inner: Box::pin(stream) }
    }

    /// A stream that ends at once with `reason` and no text.
    pub(crate) fn finished(reason: FinishReason) -> Self {
        Self::new(futures_util::stream::iter([Ok(StreamEvent::Done(Finish { reason, usage: None }))]))
    }

    /// Reads the whole reply (for uses that need no streaming, such as memory extraction).
    pub async fn collect_reply(mut self) -> Result<Reply, AiError> {
        let mut text = String::new();
        let mut deltas = 0;
        while let Some(event) = self.next().await {
            match event? {
                StreamEvent::Delta(delta) => {
                    text.push_str(&delta);
                    deltas += 1;
                }
                StreamEvent::Done(finish) => return Ok(Reply { text, finish, deltas }),
            }
        }
        Err(AiError::Internal("the reply stream ended without a finish".into()))
    }
}

impl Stream for TokenStream {
    type Item = Result<StreamEvent, AiError>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl std::fmt::Debug for TokenStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenStream")
    }
}

/// What a model is, for logs, metrics and prompt budgets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// `"embedded"` or `"openai"`.
    pub provider: &'static str,
    /// The model's name (the GGUF's `general.name`, or the configured remote model).
    pub model: String,
    /// Most tokens of prompt and reply together, when known.
    pub context_window: Option<usize>,
    /// The reply limit applied when a request asks for none or for more.
    pub max_tokens: u32,
}

/// A chat model. Object safe: the chat feature holds an `Arc<dyn ChatModel>`.
#[async_trait::async_trait]
pub trait ChatModel: Send + Sync {
    /// Starts a reply to `request.messages`. Fails at once when the request is bad, the
    /// queue is full or the service cannot be reached; later failures come as the last
    /// item of the stream.
    async fn stream(&self, request: ChatRequest) -> Result<TokenStream, AiError>;

    /// Describes the model.
    fn info(&self) -> ModelInfo;

    /// Tokens that `text` takes in a prompt: exact for the embedded model, an estimate
    /// (about four bytes a token) for remote services. For fitting history into a budget.
    fn count_tokens(&self, text: &str) -> usize {
        estimate_tokens(text)
    }

    /// Prompt tokens of the replies so far and how many of them came from a prompt cache
    /// instead of being fed again; `None` for a model without one (a remote service).
    fn prompt_cache(&self) -> Option<PromptCacheStats> {
        None
    }
}

/// What a model's prompt cache saved since the model was loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PromptCacheStats {
    /// Prompt tokens of every reply started.
    pub prompt_tokens: u64,
    /// Of those, the tokens the cache held (not fed again).
    pub reused_tokens: u64,
}

/// About four bytes a token: what English text averages with today's BPE vocabularies.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Makes the chat model that `settings` describe: loads the embedded model (on llama.cpp,
/// or on candle in a build with `--features candle`) or checks the OpenAI settings.
///
/// Blocking: loading the embedded model reads about 100 MB and takes a second or two.
/// Call it before the server starts serving, or use [`build_async`] from async code.
pub fn build(settings: &ModelSettings) -> Result<Arc<dyn ChatModel>, AiError> {
    settings.validate()?;
    match settings.kind {
        ModelKind::Embedded => match settings.embedded.resolved_engine() {
            Engine::LlamaCpp => Ok(Arc::new(embedded::llama_cpp::LlamaCppChatModel::load(settings)?)),
            #[cfg(feature = "candle")]
            _ => Ok(Arc::new(embedded::EmbeddedChatModel::load(settings)?)),
            #[cfg(not(feature = "candle"))]
            _ => Err(AiError::Unavailable(
                "no chat engine: set chat.model.embedded.llama_library to llama.cpp's library \
                 (scripts/lib/model.sh llama-shim builds it; ./scripts/run sets it), or build the \
                 server with --features candle"
                    .into(),
            )),
        },
        ModelKind::Openai => Ok(Arc::new(openai::OpenAiChatModel::new(settings)?)),
    }
}

/// [`build`] on a blocking thread, for async callers.
pub async fn build_async(settings: &ModelSettings) -> Result<Arc<dyn ChatModel>, AiError> {
    let settings = settings.clone();
    tokio::task::spawn_blocking(move || build(&settings))
        .await
        .map_err(|e| AiError::Internal(format!("the model loader panicked: {e}")))?
}
