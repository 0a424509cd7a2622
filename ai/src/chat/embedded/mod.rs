//! The embedded chat model: a llama-architecture GGUF (SmolLM2-135M-Instruct by default)
//! run in-process on the CPU, by llama.cpp (`llama_cpp`, the product's engine) or, in a
//! build with `--features candle`, by candle (`candle`).
//!
//! What both engines share lives here: the queue of replies their one worker thread takes
//! from (up to `concurrent_replies` at once, so a long reply does not hold the next
//! conversation's first token back), the prompt built from the chat template and trimmed to
//! the window, and the writing of a reply: sampling, stop strings, the events sent. The
//! async side only tokenizes the prompt and forwards the tokens as they come.

#[cfg(feature = "candle")]
mod candle;
mod counts;
mod dry;
mod gguf;
mod language;
pub mod llama_cpp;
mod sampler;
mod tokenizer;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc;

#[cfg(feature = "candle")]
pub use candle::{EmbeddedChatModel, SOURCE_SHA256_KEY, candle_threads, converted_path, prepare_model, sha256_file};
pub use dry::Dry;
pub use gguf::{GgufMetadata, GgufValue};
pub use sampler::{Sampler, Sampling, apply_repeat_penalty};
pub use tokenizer::{GgufTokenizer, Utf8Decoder};

use super::stop::StopMatcher;
use super::{
    AiError, CancellationToken, ChatMessage, ChatRequest, EmbeddedSettings, Finish, FinishReason, ModelInfo, Role,
    StreamEvent, TokenStream, Usage,
};

const DEFAULT_TEMPERATURE: f32 = 0.7;
const DEFAULT_TOP_P: f32 = 0.9;
const TOP_K: usize = 40;

/// One reply waiting for, or holding, a slot.
struct Job {
    prompt: Vec<u32>,
    /// Where the part of the prompt that the next turn starts with ends, when it ends
    /// before the prompt does (`ChatRequest::cache_prefix`): the state there is kept.
    /// (Read by the candle engine's prefix cache; llama.cpp's slots keep their own.)
    #[cfg_attr(not(feature = "candle"), allow(dead_code))]
    cache_at: Option<usize>,
    /// Where a later prompt may start from this one's kept state, ascending: prefill
    /// chunks end there, so that a prompt's state is computed in the same pieces whether
    /// or not a cached prefix was reused, and the reply is the same either way.
    #[cfg_attr(not(feature = "candle"), allow(dead_code))]
    breaks: Vec<usize>,
    max_tokens: usize,
    /// Tokens written before the end of turn may be sampled (`ChatRequest::min_tokens`).
    min_tokens: usize,
    /// Tokens the reply's first may not be besides blank ones, when it may not open with a
    /// stop string (`ChatRequest::avoid_stop_openings`); `None`: any first token.
    opening_bans: Option<Vec<u32>>,
    sampling: Sampling,
    /// Added to the logits before sampling: what holds the reply to its language
    /// (`ChatRequest::language`, `language::language_bias`).
    bias: Option<Arc<[f32]>>,
    seed: u64,
    stop: Vec<String>,
    cancel: CancellationToken,
    events: mpsc::UnboundedSender<Result<StreamEvent, AiError>>,
}

impl Job {
    fn abandoned(&self) -> bool {
        self.cancel.is_cancelled() || self.events.is_closed()
    }
    fn cancelled(&self) {
        let _ = self.events.send(Ok(StreamEvent::Done(Finish { reason: FinishReason::Cancelled, usage: None })));
    }
}

#[derive(Default)]
struct Queue {
    waiting: VecDeque<Job>,
    active: usize,
    closed: bool,
}

struct Scheduler {
    queue: Mutex<Queue>,
    ready: Condvar,
    capacity: usize,
    concurrent: usize,
}

impl Scheduler {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Lets the worker finish the replies it has and stop (the model's last handle is gone).
    fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    fn submit(&self, job: Job) -> Result<(), AiError> {
        let mut queue = self.lock();
        if queue.closed {
            return Err(AiError::Unavailable("the model's worker has stopped".into()));
        }
        drop_abandoned(&mut queue.waiting);
        // Free slots take replies at once; past them, `capacity` may wait.
        if queue.waiting.len() >= self.capacity + self.concurrent.saturating_sub(queue.active) {
            return Err(AiError::QueueFull);
        }
        queue.waiting.push_back(job);
        drop(queue);
        self.ready.notify_one();
        Ok(())
    }
}

fn drop_abandoned(waiting: &mut VecDeque<Job>) {
    waiting.retain(|job| {
        let keep = !job.abandoned();
        if !keep {
            job.cancelled();
        }
        keep
    });
}

/// The prompt for `messages` as token ids (either engine), trimmed to leave room for the
/// reply: the oldest messages after the system prompt go first, the last message always stays.
/// Also where the first `cache_prefix` messages end in it, when they end before it does.
fn build_prompt(
    tokenizer: &GgufTokenizer,
    window: usize,
    messages: &[ChatMessage],
    max_tokens: usize,
    cache_prefix: Option<usize>,
) -> Result<FedPrompt, AiError> {
    let reserve = max_tokens.min(window / 4).max(1);
    let mut head = Vec::new();
    let mut turns = messages.iter();
    match messages.first() {
        Some(first) if first.role == Role::System => {
            head = tokenizer.encode_turn(first.role.as_str(), &first.content)?;
            turns.next();
        }
        _ => {
            if let Some(system) = tokenizer.default_system_prompt() {
                head = tokenizer.encode_turn("system", system)?;
            }
        }
    }
    let turns = turns.map(|m| tokenizer.encode_turn(m.role.as_str(), &m.content)).collect::<Result<Vec<_>, _>>()?;
    let tail = tokenizer.encode_reply_start()?;
    let mut total = head.len() + tail.len() + turns.iter().map(Vec::len).sum::<usize>();
    let mut dropped = 0;
    while total + reserve > window {
        if dropped + 1 >= turns.len() {
            return Err(AiError::BadRequest(format!(
                "the prompt takes {total} tokens; the context window is {window}"
            )));
        }
        total -= turns[dropped].len();
        dropped += 1;
    }
    if dropped > 0 {
        tracing::debug!(dropped, "dropped the oldest messages to fit the context window");
    }
    // The turns are the messages after the system one (when there is one).
    let system = usize::from(messages.first().is_some_and(|m| m.role == Role::System));
    let stable_turns = cache_prefix.map(|n| n.saturating_sub(system));
    let mut ids = Vec::with_capacity(total);
    ids.extend(head);
    // Where the next turn's prompt parts from this one: at an earlier reply's start
    // when the state is kept at `cache_at` (the end of the last user message), else
    // after that reply's opening (this prompt kept whole ends with the opening).
    let mut breaks = Vec::new();
    let mut cache_at = None;
    for (index, turn) in turns.into_iter().enumerate().skip(dropped) {
        if stable_turns == Some(index) && index > dropped {
            cache_at = Some(ids.len());
            breaks.push(ids.len());
        }
        if turn.starts_with(&tail) {
            breaks.push(ids.len() + if stable_turns.is_some() { 0 } else { tail.len() });
        }
        ids.extend(turn);
    }
    breaks.dedup();
    ids.extend(tail);
    Ok(FedPrompt { ids, cache_at, breaks })
}

/// A prompt as token ids, with the places `Job` names.
struct FedPrompt {
    ids: Vec<u32>,
    cache_at: Option<usize>,
    breaks: Vec<usize>,
}

/// The model file the settings name, when it is there.
fn existing_model_file(settings: &EmbeddedSettings) -> Result<PathBuf, AiError> {
    let path = settings.resolved_model_path();
    if !path.is_file() {
        return Err(AiError::Unavailable(format!(
            "no chat model at {} (scripts/lib/model.sh fetches it)",
            path.display()
        )));
    }
    Ok(path)
}

/// Either engine's `ChatModel::stream`: the request made into a job for its worker.
fn start_reply(
    scheduler: &Scheduler,
    request: ChatRequest,
    tokenizer: &GgufTokenizer,
    window: usize,
    limit: u32,
) -> Result<TokenStream, AiError> {
    let (job, stream) = match job_for(request, tokenizer, window, limit)? {
        Ok(job) => job,
        Err(finished) => return Ok(finished),
    };
    scheduler.submit(job)?;
    Ok(stream)
}

/// Either engine's `ChatModel::info`.
fn embedded_info(name: &str, context_window: usize, max_tokens: u32) -> ModelInfo {
    ModelInfo { provider: "embedded", model: name.to_owned(), context_window: Some(context_window), max_tokens }
}

/// A request made into a worker's job, and the caller's stream of its events; or, for a
/// request cancelled before it started, a stream that has already ended.
fn job_for(
    request: ChatRequest,
    tokenizer: &GgufTokenizer,
    window: usize,
    limit: u32,
) -> Result<Result<(Job, TokenStream), TokenStream>, AiError> {
    request.validate()?;
    if request.cancel.is_cancelled() {
        return Ok(Err(TokenStream::finished(FinishReason::Cancelled)));
    }
    let max_tokens = request.max_tokens.unwrap_or(limit).min(limit) as usize;
    let FedPrompt { ids: mut prompt, cache_at, breaks } =
        build_prompt(tokenizer, window, &request.messages, max_tokens, request.cache_prefix)?;
    // The reply's opening, written by the caller: the model goes on from it. Plain text,
    // like every message (a `<|im_end|>` in it is not the control token).
    if let Some(prefill) = &request.prefill {
        prompt.extend(tokenizer.encode(prefill, false)?);
    }
    let opening_bans = (request.avoid_stop_openings && request.prefill.is_none())
        .then(|| stop_openings(tokenizer, &request.stop))
        .transpose()?;
    let bias =
        request.language.as_deref().and_then(|language| tokenizer.language_bias(language, request.strict_language));
    let temperature = request.temperature.unwrap_or(DEFAULT_TEMPERATURE);
    let top_p = request.top_p.unwrap_or(DEFAULT_TOP_P);
    let sampling = if temperature <= 1e-4 {
        Sampling::ArgMax
    } else {
        Sampling::TopKThenTopP { k: TOP_K, p: f64::from(top_p), temperature: f64::from(temperature) }
    };
    let seed =
        request.seed.unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64));
    let (events, receiver) = mpsc::unbounded_channel();
    let cancel = request.cancel.clone();
    let job = Job {
        prompt,
        cache_at,
        breaks,
        max_tokens,
        min_tokens: request.min_tokens as usize,
        opening_bans,
        sampling,
        bias,
        seed,
        stop: request.stop,
        cancel: cancel.clone(),
        events,
    };
    Ok(Ok((job, event_stream(receiver, cancel))))
}

/// The caller's side of a reply: the worker's events, ended at once by cancellation.
pub(crate) fn event_stream(
    receiver: mpsc::UnboundedReceiver<Result<StreamEvent, AiError>>,
    cancel: CancellationToken,
) -> TokenStream {
    TokenStream::new(futures_util::stream::unfold(Some((receiver, cancel)), |state| async move {
        let (mut receiver, cancel) = state?;
        tokio::select! {
            biased;
            () = cancel.cancelled() => {
                Some((Ok(StreamEvent::Done(Finish { reason: FinishReason::Cancelled, usage: None })), None))
            }
            event = receiver.recv() => match event {
                Some(Ok(StreamEvent::Delta(text))) => Some((Ok(StreamEvent::Delta(text)), Some((receiver, cancel)))),
                Some(last) => Some((last, None)),
                None => Some((Err(AiError::Internal("the model's worker dropped the reply".into())), None)),
            },
        }
    }))
}

/// Closes the queue when the worker ends, even by a panic, so that no reply waits forever:
/// waiting replies fail with `Unavailable`, running ones see their channel close.
struct WorkerGuard<'a>(&'a Scheduler);

impl Drop for WorkerGuard<'_> {
    fn drop(&mut self) {
        let mut queue = self.0.lock();
        queue.closed = true;
        for job in queue.waiting.drain(..) {
            let _ = job.events.send(Err(AiError::Unavailable("the model's worker has stopped".into())));
        }
        if std::thread::panicking() {
            tracing::error!("the embedded chat model's worker panicked; the model is unavailable");
        }
    }
}

/// Penalty on tokens seen in the last `last_n` (1: none), and DRY's on repeats (`dry`).
#[derive(Debug, Clone, Copy)]
struct RepeatPenalty {
    penalty: f32,
    last_n: usize,
    dry: Dry,
}

impl RepeatPenalty {
    fn from_settings(e: &EmbeddedSettings) -> Self {
        let dry = Dry {
            multiplier: e.dry_multiplier,
            base: e.dry_base,
            allowed_length: e.dry_allowed_length,
            last_n: e.dry_last_n,
        };
        Self { penalty: e.repeat_penalty, last_n: e.repeat_last_n, dry }
    }
}

/// A reply being written, as either engine keeps it: the job, its sampler, the prompt and
/// the reply's tokens, and the text sent so far.
struct Writing {
    job: Job,
    sampler: Sampler,
    /// The prompt, then the reply's tokens.
    tokens: Vec<u32>,
    prompt_len: usize,
    generated: usize,
    output: Output,
    started: Instant,
    /// Which engine writes it, for the logs.
    engine: &'static str,
}

impl Writing {
    fn new(job: Job, engine: &'static str) -> Self {
        Self {
            sampler: Sampler::new(job.seed, job.sampling),
            tokens: job.prompt.clone(),
            prompt_len: job.prompt.len(),
            generated: 0,
            output: Output::new(&job.stop),
            started: Instant::now(),
            engine,
            job,
        }
    }

    /// The sampling step: the next token after `logits` (one per vocabulary entry), pushed onto `tokens`
    /// and its text sent. `Some` when the reply is over: `Stop` when the token ended the
    /// turn or completed a stop string, `Length` at `max_tokens` or when `held` (the tokens
    /// the engine's cache holds once this one is in, as it counts them) reaches `window`.
    fn next_token(
        &mut self,
        mut logits: Vec<f32>,
        repeat: RepeatPenalty,
        tokenizer: &GgufTokenizer,
        held: usize,
        window: usize,
    ) -> Result<Option<FinishReason>, AiError> {
        self.generated += 1;
        if self.generated == 1 {
            tracing::debug!(
                engine = self.engine,
                prompt_tokens = self.prompt_len,
                ms = self.started.elapsed().as_millis() as u64,
                "first token of the embedded model"
            );
        }
        if let Some(bias) = &self.job.bias {
            for (logit, bias) in logits.iter_mut().zip(bias.iter()) {
                *logit += bias;
            }
        }
        if repeat.penalty != 1.0 {
            let from = self.tokens.len().saturating_sub(repeat.last_n);
            apply_repeat_penalty(&mut logits, repeat.penalty, &self.tokens[from..]);
        }
        dry::apply_dry(&mut logits, &repeat.dry, &self.tokens, |token| dry::is_breaker(tokenizer.token_bytes(token)));
        if self.generated <= self.job.min_tokens {
            hold_back_the_end(&mut logits, tokenizer);
        }
        if self.generated == 1
            && let Some(bans) = &self.job.opening_bans
        {
            hold_back_the_openings(&mut logits, tokenizer, bans);
        }
        let next = self.sampler.sample(&logits)?;
        if tokenizer.ends_turn(next) {
            return Ok(Some(FinishReason::Stop));
        }
        self.tokens.push(next);
        if self.output.token(&self.job, tokenizer.token_bytes(next)) {
            return Ok(Some(FinishReason::Stop));
        }
        if self.generated >= self.job.max_tokens || held >= window {
            return Ok(Some(FinishReason::Length));
        }
        Ok(None)
    }

    fn finish(&mut self, reason: FinishReason) {
        let usage = Usage { prompt_tokens: self.prompt_len as u32, completion_tokens: self.generated as u32 };
        self.output.finish(&self.job, reason, usage);
        tracing::debug!(
            engine = self.engine,
            ?reason,
            prompt_tokens = self.prompt_len,
            completion_tokens = self.generated,
            ms = self.started.elapsed().as_millis() as u64,
            "embedded reply done"
        );
    }
}

/// Makes every token that ends the turn unsamplable (finite, so softmax stays exact).
fn hold_back_the_end(logits: &mut [f32], tokenizer: &GgufTokenizer) {
    for (id, logit) in logits.iter_mut().enumerate() {
        if tokenizer.ends_turn(id as u32) {
            *logit = -1.0e4;
        }
    }
}

/// The first tokens of `stop`'s strings (a leading newline's own token, and the first
/// token of the text after it): a reply opening with one of them is, most of the time, the
/// start of a stop string.
fn stop_openings(tokenizer: &GgufTokenizer, stop: &[String]) -> Result<Vec<u32>, AiError> {
    let mut bans = Vec::new();
    for text in stop {
        for start in [text.as_str(), text.trim_start()] {
            if let Some(&first) = tokenizer.encode(start, false)?.first() {
                bans.push(first);
            }
        }
    }
    bans.sort_unstable();
    bans.dedup();
    Ok(bans)
}

/// Makes `bans`, and every token of whitespace alone, unsamplable as a reply's first token.
fn hold_back_the_openings(logits: &mut [f32], tokenizer: &GgufTokenizer, bans: &[u32]) {
    for (id, logit) in logits.iter_mut().enumerate() {
        let id = id as u32;
        let bytes = tokenizer.token_bytes(id);
        let blank = !bytes.is_empty() && bytes.iter().all(u8::is_ascii_whitespace);
        if blank || bans.binary_search(&id).is_ok() {
            *logit = -1.0e4;
        }
    }
}

/// The text side of a reply, for either engine: token bytes to whole characters, the stop
/// strings held back until they are ruled out, and the events sent to the caller.
struct Output {
    utf8: Utf8Decoder,
    stop: StopMatcher,
}

impl Output {
    fn new(stop: &[String]) -> Self {
        Self { utf8: Utf8Decoder::default(), stop: StopMatcher::new(stop) }
    }

    /// Sends what `bytes` (one token's) complete; true when a stop string came.
    fn token(&mut self, job: &Job, bytes: &[u8]) -> bool {
        let text = self.utf8.push(bytes);
        if text.is_empty() {
            return false;
        }
        let (text, stopped) = self.stop.push(&text);
        Self::emit(job, text);
        stopped
    }

    /// Sends what is held back, then the end of the reply.
    fn finish(&mut self, job: &Job, reason: FinishReason, usage: Usage) {
        let tail = self.utf8.finish();
        let (mut text, stopped) = self.stop.push(&tail);
        if !stopped {
            text.push_str(&self.stop.flush());
        }
        Self::emit(job, text);
        let _ = job.events.send(Ok(StreamEvent::Done(Finish { reason, usage: Some(usage) })));
    }

    fn emit(job: &Job, text: String) {
        if !text.is_empty() {
            let _ = job.events.send(Ok(StreamEvent::Delta(text)));
        }
    }
}
