//! The candle engine (`--features candle`): the GGUF's weights run by candle, compiled into
//! the server, needing nothing else; one sequence per forward pass. llama.cpp is the
//! product's engine (`llama_cpp`, several replies decoded in one batch, this CPU's kernels);
//! this one stays for builds without llama.cpp and as the benchmarks' second opinion.
//!
//! Every reply has its own KV cache over one shared copy of the weights (cloning
//! `ModelWeights` clones `Arc`s, not tensors).

mod convert;
mod prefix_cache;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use candle_core::quantized::gguf_file;
use candle_core::{DType, Device, Tensor};
use candle_transformers::models::quantized_llama::{MAX_SEQ_LEN, ModelWeights};

pub use convert::{SOURCE_SHA256_KEY, converted_path, prepare_model, sha256_file};

use self::prefix_cache::PrefixCache;
use super::{
    GgufMetadata, GgufTokenizer, Job, Queue, RepeatPenalty, Scheduler, WorkerGuard, Writing, drop_abandoned,
    embedded_info, existing_model_file, start_reply,
};
use crate::chat::{
    AiError, ChatModel, ChatRequest, FinishReason, ModelInfo, ModelSettings, PromptCacheStats, TokenStream,
};

/// Prompt tokens fed to the model per step; between steps other replies get a token and
/// cancellation is checked.
const PREFILL_CHUNK: usize = 64;

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
    repeat: RepeatPenalty,
    /// Tokens of fed prompts kept for reuse (`PrefixCache`).
    prefix_cache_tokens: usize,
    /// Prompt tokens not fed again thanks to the prefix cache, since loading.
    reused_prompt_tokens: AtomicU64,
    /// Prompt tokens of every reply started, since loading.
    prompt_tokens: AtomicU64,
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
            repeat: RepeatPenalty::from_settings(e),
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

/// The weights, the tokenizer, the model's name and its trained context.
fn load_gguf(path: &Path) -> Result<(ModelWeights, GgufTokenizer, String, usize), AiError> {
    let metadata = GgufMetadata::from_file(path)?;
    let architecture = metadata.string("general.architecture");
    if architecture != Some("llama") {
        return Err(AiError::BadRequest(format!(
            "the embedded provider runs llama-architecture models; {} is {architecture:?}",
            path.display()
        )));
    }
    let name = metadata.model_name(path);
    let trained_context = metadata.trained_context().unwrap_or(MAX_SEQ_LEN);
    let tokenizer = GgufTokenizer::from_gguf(&metadata)?;
    let mut reader = std::io::BufReader::new(
        std::fs::File::open(path).map_err(|e| AiError::Unavailable(format!("{}: {e}", path.display())))?,
    );
    let content = gguf_file::Content::read(&mut reader)
        .map_err(|e| AiError::BadRequest(format!("{} is not a GGUF file: {e}", path.display())))?;
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
        self.shared.tokenizer.count(text)
    }

    fn prompt_cache(&self) -> Option<PromptCacheStats> {
        Some(PromptCacheStats {
            prompt_tokens: self.shared.prompt_tokens.load(Ordering::Relaxed),
            reused_tokens: self.reused_prompt_tokens(),
        })
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

        let logits = logits.squeeze(0)?.to_dtype(DType::F32)?.to_vec1::<f32>()?;
        let penalty = shared.repeat;
        self.writing.next_token(logits, penalty, &shared.tokenizer, self.fed, shared.context_window)
    }
}
