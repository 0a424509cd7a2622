//! The embedded chat model: a llama-architecture GGUF (SmolLM2-135M-Instruct by default)
//! run in-process on the CPU with candle.
//!
//! One worker thread owns the generation: it takes replies from a bounded queue and runs
//! up to `concurrent_replies` of them at once, one token of each in turn, so a long reply
//! does not hold the next conversation's first token back. Every reply has its own KV
//! cache over one shared copy of the weights (cloning `ModelWeights` clones `Arc`s, not
//! tensors). The async side only tokenizes the prompt and forwards the tokens as they come.

mod convert;
pub mod llama_cpp;
mod prefix_cache;
mod tokenizer;

use std::collections::VecDeque;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use candle_core::quantized::gguf_file;
use candle_core::{DType, Device, Tensor};
use candle_transformers::generation::{LogitsProcessor, Sampling};
use candle_transformers::models::quantized_llama::{MAX_SEQ_LEN, ModelWeights};
use tokio::sync::mpsc;

pub use convert::{SOURCE_SHA256_KEY, converted_path, prepare_model, sha256_file};
pub use tokenizer::{GgufTokenizer, Utf8Decoder};

use self::prefix_cache::PrefixCache;
use super::stop::StopMatcher;
use super::{
    AiError, CancellationToken, ChatMessage, ChatModel, ChatRequest, EmbeddedSettings, Finish, FinishReason, ModelInfo,
    ModelSettings, Role, StreamEvent, TokenStream, Usage,
};

/// Prompt tokens fed to the model per step; between steps other replies get a token and
/// cancellation is checked.
const PREFILL_CHUNK: usize = 64;
const DEFAULT_TEMPERATURE: f32 = 0.7;
const DEFAULT_TOP_P: f32 = 0.9;
const TOP_K: usize = 40;

/// The candle thread count in force for this process (its kernels' pool is sized once, from
/// `CANDLE_NUM_THREADS`, else `RAYON_NUM_THREADS`, else the physical cores).
pub fn candle_threads() -> usize {
    std::env::var("CANDLE_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or_else(candle_core::utils::get_num_threads)
}

/// A loaded model and its tokenizer, shared by all replies.
struct Shared {
    weights: ModelWeights,
    tokenizer: GgufTokenizer,
    context_window: usize,
    repeat_penalty: f32,
    repeat_last_n: usize,
    /// Tokens of fed prompts kept for reuse (`PrefixCache`).
    prefix_cache_tokens: usize,
    /// Prompt tokens not fed again thanks to the prefix cache, since loading.
    reused_prompt_tokens: AtomicU64,
    /// Prompt tokens of every reply started, since loading.
    prompt_tokens: AtomicU64,
}

/// One reply waiting for, or holding, a slot.
struct Job {
    prompt: Vec<u32>,
    /// Where the part of the prompt that the next turn starts with ends, when it ends
    /// before the prompt does (`ChatRequest::cache_prefix`): the state there is kept.
    cache_at: Option<usize>,
    /// Where a later prompt may start from this one's kept state, ascending: prefill
    /// chunks end there, so that a prompt's state is computed in the same pieces whether
    /// or not a cached prefix was reused, and the reply is the same either way.
    breaks: Vec<usize>,
    max_tokens: usize,
    sampling: Sampling,
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

/// The embedded provider. Cheap to share (`Arc<dyn ChatModel>`); dropping the last handle
/// lets the worker finish the replies it has and stop.
pub struct EmbeddedChatModel {
    shared: Arc<Shared>,
    scheduler: Arc<Scheduler>,
    name: String,
    path: PathBuf,
    max_tokens: u32,
}

impl std::fmt::Debug for EmbeddedChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedChatModel").field("name", &self.name).field("path", &self.path).finish_non_exhaustive()
    }
}

impl Drop for EmbeddedChatModel {
    fn drop(&mut self) {
        self.scheduler.close();
    }
}

impl EmbeddedChatModel {
    /// Loads the model that `settings.embedded` names (converting its weights once, see
    /// [`prepare_model`]) and starts its worker thread. Blocking.
    pub fn load(settings: &ModelSettings) -> Result<Self, AiError> {
        let e = &settings.embedded;
        let original = existing_model_file(e)?;
        if let Some(threads) = e.threads
            && threads != candle_threads()
        {
            return Err(AiError::BadRequest(format!(
                "chat.embedded.threads is {threads} but candle runs {} threads in this process: \
                 candle reads its thread count once, from the environment, so start the server \
                 with CANDLE_NUM_THREADS={threads}",
                candle_threads()
            )));
        }
        let path = match prepare_model(&original, e.requantize) {
            Ok(path) => path,
            Err(error) => {
                tracing::warn!(%error, "could not convert the chat model; loading it as it is (slower)");
                original.clone()
            }
        };
        let started = Instant::now();
        let (weights, tokenizer, name, trained_context) = load_gguf(&path)?;
        let context_window = [MAX_SEQ_LEN, trained_context, e.context_size.unwrap_or(usize::MAX)]
            .into_iter()
            .min()
            .unwrap_or(MAX_SEQ_LEN);
        tracing::info!(
            model = %name,
            path = %path.display(),
            context_window,
            threads = candle_threads(),
            ms = started.elapsed().as_millis() as u64,
            "loaded the embedded chat model"
        );
        let shared = Arc::new(Shared {
            weights,
            tokenizer,
            context_window,
            repeat_penalty: e.repeat_penalty,
            repeat_last_n: e.repeat_last_n,
            prefix_cache_tokens: e.prefix_cache_tokens,
            reused_prompt_tokens: AtomicU64::new(0),
            prompt_tokens: AtomicU64::new(0),
        });
        let scheduler = Arc::new(Scheduler {
            queue: Mutex::new(Queue::default()),
            ready: Condvar::new(),
            capacity: e.queue_size,
            concurrent: e.concurrent_replies,
        });
        {
            let shared = shared.clone();
            let scheduler = scheduler.clone();
            std::thread::Builder::new()
                .name("amora-chat-model".into())
                .spawn(move || run_worker(&shared, &scheduler))
                .map_err(|e| AiError::Internal(format!("cannot start the model's worker thread: {e}")))?;
        }
        Ok(Self { shared, scheduler, name, path, max_tokens: settings.max_tokens })
    }

    /// The model's tokenizer (built from the GGUF's metadata).
    pub fn tokenizer(&self) -> &GgufTokenizer {
        &self.shared.tokenizer
    }

    /// Prompt tokens that replies took from the prefix cache instead of feeding them again.
    pub fn reused_prompt_tokens(&self) -> u64 {
        self.shared.reused_prompt_tokens.load(Ordering::Relaxed)
    }

    /// The GGUF file loaded (the converted copy when there is one).
    pub fn path(&self) -> &Path {
        &self.path
    }
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

/// The GGUF at `path`, its header read (metadata and tensor index), the reader left at the
/// tensors. For either engine.
fn open_gguf(path: &Path) -> Result<(BufReader<File>, gguf_file::Content), AiError> {
    let mut reader =
        BufReader::new(File::open(path).map_err(|e| AiError::Unavailable(format!("{}: {e}", path.display())))?);
    let content = gguf_file::Content::read(&mut reader)
        .map_err(|e| AiError::BadRequest(format!("{} is not a GGUF file: {e}", path.display())))?;
    Ok((reader, content))
}

/// The model's name: the GGUF's `general.name`, else the file's.
fn model_name(content: &gguf_file::Content, path: &Path) -> String {
    content
        .metadata
        .get("general.name")
        .and_then(|v| v.to_string().ok())
        .cloned()
        .unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default())
}

/// The context length the model was trained for, as its GGUF header gives it
/// (`{architecture}.context_length`).
fn trained_context(content: &gguf_file::Content) -> Option<usize> {
    let architecture = content.metadata.get("general.architecture").and_then(|v| v.to_string().ok())?;
    let length = content.metadata.get(&format!("{architecture}.context_length"))?;
    length.to_u64().ok().or_else(|| length.to_u32().ok().map(u64::from)).map(|n| n as usize)
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

fn load_gguf(path: &Path) -> Result<(ModelWeights, GgufTokenizer, String, usize), AiError> {
    let (mut reader, content) = open_gguf(path)?;
    let architecture = content.metadata.get("general.architecture").and_then(|v| v.to_string().ok()).cloned();
    if architecture.as_deref() != Some("llama") {
        return Err(AiError::BadRequest(format!(
            "the embedded provider runs llama-architecture models; {} is {architecture:?}",
            path.display()
        )));
    }
    let name = model_name(&content, path);
    let trained_context = trained_context(&content).unwrap_or(MAX_SEQ_LEN);
    let tokenizer = GgufTokenizer::from_gguf(&content)?;
    let weights = ModelWeights::from_gguf(content, &mut reader, &Device::Cpu)?;
    Ok((weights, tokenizer, name, trained_context))
}

#[async_trait::async_trait]
impl ChatModel for EmbeddedChatModel {
    async fn stream(&self, request: ChatRequest) -> Result<TokenStream, AiError> {
        start_reply(&self.scheduler, request, &self.shared.tokenizer, self.shared.context_window, self.max_tokens)
    }

    fn info(&self) -> ModelInfo {
        embedded_info(&self.name, self.shared.context_window, self.max_tokens)
    }

    fn count_tokens(&self, text: &str) -> usize {
        count_tokens_with(&self.shared.tokenizer, text)
    }

    fn prompt_cache(&self) -> Option<super::PromptCacheStats> {
        Some(super::PromptCacheStats {
            prompt_tokens: self.shared.prompt_tokens.load(Ordering::Relaxed),
            reused_tokens: self.reused_prompt_tokens(),
        })
    }
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

/// Either engine's `ChatModel::count_tokens`: exact, by the GGUF's tokenizer.
fn count_tokens_with(tokenizer: &GgufTokenizer, text: &str) -> usize {
    tokenizer.encode(text, false).map_or_else(|_| super::estimate_tokens(text), |ids| ids.len())
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
    let FedPrompt { ids: prompt, cache_at, breaks } =
        build_prompt(tokenizer, window, &request.messages, max_tokens, request.cache_prefix)?;
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
        sampling,
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

fn run_worker(shared: &Shared, scheduler: &Scheduler) {
    let _guard = WorkerGuard(scheduler);
    let mut active: Vec<Session> = Vec::new();
    let mut prompts = PrefixCache::new(shared.prefix_cache_tokens);
    loop {
        {
            let mut queue = scheduler.lock();
            loop {
                drop_abandoned(&mut queue.waiting);
                while active.len() < scheduler.concurrent
                    && let Some(job) = queue.waiting.pop_front()
                {
                    active.push(Session::new(job, shared, &mut prompts));
                }
                queue.active = active.len();
                if !active.is_empty() {
                    break;
                }
                if queue.closed {
                    return;
                }
                queue = scheduler.ready.wait(queue).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
        }
        // One step of each reply in turn.
        active.retain_mut(|session| !session.step(shared, &mut prompts));
    }
}

/// Fed prompts with the model state and the logits after them.
type Prompts = PrefixCache<(ModelWeights, Tensor)>;

/// A reply being generated.
struct Session {
    writing: Writing,
    model: ModelWeights,
    /// Tokens already in the KV cache (the next position).
    fed: usize,
    /// The logits after the prompt, when the prefix cache held all of it.
    cached_logits: Option<Tensor>,
}

impl Session {
    fn new(job: Job, shared: &Shared, prompts: &mut Prompts) -> Self {
        shared.prompt_tokens.fetch_add(job.prompt.len() as u64, Ordering::Relaxed);
        let (model, fed, cached_logits) = match prompts.reuse(&job.prompt) {
            Some(reuse) => {
                let (model, logits) = reuse.state;
                shared.reused_prompt_tokens.fetch_add(reuse.fed as u64, Ordering::Relaxed);
                tracing::debug!(cached = reuse.fed, prompt_tokens = job.prompt.len(), "prompt prefix from the cache");
                (model, reuse.fed, (reuse.fed == job.prompt.len()).then_some(logits))
            }
            None => (shared.weights.clone(), 0, None),
        };
        Self { writing: Writing::new(job, "candle"), model, fed, cached_logits }
    }

    /// Runs one step; true when the reply is over.
    fn step(&mut self, shared: &Shared, prompts: &mut Prompts) -> bool {
        if self.writing.job.abandoned() {
            self.writing.job.cancelled();
            return true;
        }
        match self.advance(shared, prompts) {
            Ok(None) => false,
            Ok(Some(reason)) => {
                self.writing.finish(reason);
                true
            }
            Err(error) => {
                tracing::error!(%error, "the embedded chat model failed");
                let _ = self.writing.job.events.send(Err(error));
                true
            }
        }
    }

    fn advance(&mut self, shared: &Shared, prompts: &mut Prompts) -> Result<Option<FinishReason>, AiError> {
        let logits = match self.cached_logits.take() {
            Some(logits) => logits,
            None => {
                // A chunk ends at the next of `Job::breaks` at the latest, `cache_at` among them.
                let cache_at = self.writing.job.cache_at.filter(|&at| at > self.fed && at < self.writing.prompt_len);
                let (start, end) = if self.fed < self.writing.prompt_len {
                    let next_break = self.writing.job.breaks.iter().copied().find(|&at| at > self.fed);
                    let end = (self.fed + PREFILL_CHUNK).min(self.writing.prompt_len);
                    (self.fed, next_break.map_or(end, |at| end.min(at)))
                } else {
                    (self.fed, self.fed + 1)
                };
                let input = Tensor::new(&self.writing.tokens[start..end], &Device::Cpu)?.unsqueeze(0)?;
                let logits = self.model.forward(&input, start)?;
                self.fed = end;
                if cache_at == Some(end) {
                    // The next turn starts here; what follows (recalled facts) changes.
                    prompts.keep(&self.writing.tokens[..end], (self.model.clone(), logits.clone()));
                }
                if self.fed < self.writing.prompt_len {
                    return Ok(None);
                }
                if start < self.writing.prompt_len
                    && self.writing.job.cache_at.is_none_or(|at| at >= self.writing.prompt_len)
                {
                    // The prompt is in: the next turn or a regenerate starts from here.
                    prompts.keep(&self.writing.tokens[..self.writing.prompt_len], (self.model.clone(), logits.clone()));
                }
                logits
            }
        };

        let logits = logits.squeeze(0)?.to_dtype(DType::F32)?;
        let penalty = RepeatPenalty { penalty: shared.repeat_penalty, last_n: shared.repeat_last_n };
        self.writing.next_token(logits, penalty, &shared.tokenizer, self.fed, shared.context_window)
    }
}

/// Penalty on tokens seen in the last `last_n` (1: none).
#[derive(Debug, Clone, Copy)]
struct RepeatPenalty {
    penalty: f32,
    last_n: usize,
}

/// A reply being written, as either engine keeps it: the job, its sampler, the prompt and
/// the reply's tokens, and the text sent so far.
struct Writing {
    job: Job,
    sampler: LogitsProcessor,
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
            sampler: LogitsProcessor::from_sampling(job.seed, job.sampling.clone()),
            tokens: job.prompt.clone(),
            prompt_len: job.prompt.len(),
            generated: 0,
            output: Output::new(&job.stop),
            started: Instant::now(),
            engine,
            job,
        }
    }

    /// The sampling step: the next token after `logits` (1-D, f32), pushed onto `tokens`
    /// and its text sent. `Some` when the reply is over: `Stop` when the token ended the
    /// turn or completed a stop string, `Length` at `max_tokens` or when `held` (the tokens
    /// the engine's cache holds once this one is in, as it counts them) reaches `window`.
    fn next_token(
        &mut self,
        mut logits: Tensor,
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
        if repeat.penalty != 1.0 {
            let from = self.tokens.len().saturating_sub(repeat.last_n);
            logits = candle_transformers::utils::apply_repeat_penalty(&logits, repeat.penalty, &self.tokens[from..])?;
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
