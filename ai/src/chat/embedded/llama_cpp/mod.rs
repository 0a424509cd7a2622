//! The embedded model on llama.cpp, in-process (`chat.embedded.engine = "llama_cpp"`).
//!
//! What differs from the candle engine is below the prompt: the same tokenizer, chat
//! template, prompt trimming, sampling, stop strings and queue are used (the parent
//! module's), so both engines answer a request the same way. The difference is how tokens
//! are computed:
//!
//! - **One model, one context.** The weights are loaded once; every reply is a sequence of
//!   one KV cache shared by all (llama.cpp's unified cache), sequence `i` for slot `i`.
//! - **Continuous batching.** Each step puts the next token of every reply being written,
//!   plus as much of the waiting prompts as the batch holds, into one `llama_decode`: one
//!   pass over the weights serves them all, so eight replies at once cost little more than
//!   one. A reply joins at the next step after a slot frees, without waiting for the others.
//! - **Prefix cache.** A fed prompt is kept as a sequence of its own that shares the reply's
//!   cells (nothing is copied); a later prompt that starts with it copies those cells into
//!   its slot and feeds only the rest, as the candle engine's cache does.
//!
//! The library is `libamora_llama.so` (`ffi`), built for this machine's CPU by
//! `scripts/lib/model.sh llama-shim`; its kernels use the CPU's own instructions (AVX2,
//! AVX-512, VNNI), which is where it gains on candle's (BENCHMARKS.md, "Against the peers").

mod ffi;

use std::cell::RefCell;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use candle_transformers::generation::LogitsProcessor;

use self::ffi::{Batch, Decoded, Llama, OpenParams};
use super::prefix_cache::PrefixCache;
use super::{GgufTokenizer, Job, Output, Queue, Scheduler, WorkerGuard, drop_abandoned, job_for};
use crate::chat::{
    AiError, ChatModel, ChatRequest, FinishReason, ModelInfo, ModelSettings, PromptCacheStats, TokenStream, Usage,
};

/// Most tokens one decode takes: the replies' next tokens first, then prompt tokens. 512 is
/// llama-server's default, and large enough that a prompt's prefill runs at full speed.
const BATCH: usize = 512;
/// Sequences kept for the prefix cache, beside one per reply slot.
const CACHE_SEQUENCES: usize = 16;
/// The context window when the settings name none: the candle engine's limit, so that both
/// engines fit the same prompts.
const DEFAULT_CONTEXT: usize = 4096;

/// What the async side and the worker share.
struct Shared {
    tokenizer: GgufTokenizer,
    context_window: usize,
    repeat_penalty: f32,
    repeat_last_n: usize,
    prompt_tokens: AtomicU64,
    reused_prompt_tokens: AtomicU64,
    /// `llama_decode` calls, and the tokens they took, since loading.
    decodes: AtomicU64,
    decoded_tokens: AtomicU64,
}

/// How the replies were batched since the model was loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BatchStats {
    /// Decodes run (each one pass over the weights).
    pub decodes: u64,
    /// Tokens they took, prompts and replies.
    pub tokens: u64,
}

/// The embedded provider on llama.cpp. Cheap to share (`Arc<dyn ChatModel>`); dropping the
/// last handle lets the worker finish the replies it has and stop.
pub struct LlamaCppChatModel {
    shared: Arc<Shared>,
    scheduler: Arc<Scheduler>,
    name: String,
    path: PathBuf,
    max_tokens: u32,
    system_info: String,
    threads: usize,
}

impl std::fmt::Debug for LlamaCppChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlamaCppChatModel").field("name", &self.name).field("path", &self.path).finish_non_exhaustive()
    }
}

impl Drop for LlamaCppChatModel {
    fn drop(&mut self) {
        self.scheduler.lock().closed = true;
        self.scheduler.ready.notify_all();
    }
}

/// What the GGUF's header says, read without its tensors.
struct Header {
    tokenizer: GgufTokenizer,
    name: String,
    trained_context: Option<usize>,
}

fn read_header(path: &Path) -> Result<Header, AiError> {
    let mut reader =
        BufReader::new(File::open(path).map_err(|e| AiError::Unavailable(format!("{}: {e}", path.display())))?);
    let content = gguf_file::Content::read(&mut reader)
        .map_err(|e| AiError::BadRequest(format!("{} is not a GGUF file: {e}", path.display())))?;
    let text = |key: &str| content.metadata.get(key).and_then(|v| v.to_string().ok()).cloned();
    let name = text("general.name")
        .unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
    let trained_context = text("general.architecture")
        .and_then(|architecture| content.metadata.get(&format!("{architecture}.context_length")))
        .and_then(|v| v.to_u64().ok().or_else(|| v.to_u32().ok().map(u64::from)))
        .map(|n| n as usize);
    Ok(Header { tokenizer: GgufTokenizer::from_gguf(&content)?, name, trained_context })
}

impl LlamaCppChatModel {
    /// Loads the library and the model that `settings.embedded` name and starts the worker
    /// thread. Blocking. The GGUF is used as it is (llama.cpp has fast kernels for every
    /// block type, so `requantize` does not apply).
    pub fn load(settings: &ModelSettings) -> Result<Self, AiError> {
        let e = &settings.embedded;
        let path = e.resolved_model_path();
        if !path.is_file() {
            return Err(AiError::Unavailable(format!(
                "no chat model at {} (scripts/lib/model.sh fetches it)",
                path.display()
            )));
        }
        let library = e
            .llama_library
            .clone()
            .ok_or_else(|| AiError::BadRequest("the llama.cpp engine needs chat.embedded.llama_library".into()))?;
        let started = Instant::now();
        let header = read_header(&path)?;
        let window =
            [DEFAULT_CONTEXT, e.context_size.unwrap_or(usize::MAX), header.trained_context.unwrap_or(usize::MAX)]
                .into_iter()
                .min()
                .unwrap_or(DEFAULT_CONTEXT);
        let threads =
            e.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get));
        let concurrent = e.concurrent_replies;
        // Every slot may fill its window; the prefix cache's own cells come on top (cells a
        // kept prompt shares with a reply are counted once by llama.cpp, so this is a ceiling).
        let cells = window.saturating_mul(concurrent).saturating_add(e.prefix_cache_tokens);
        let llama = Llama::open(
            &library,
            &path,
            OpenParams {
                cells: u32::try_from(cells).unwrap_or(u32::MAX),
                sequences: (concurrent + CACHE_SEQUENCES) as u32,
                batch: BATCH as u32,
                threads: i32::try_from(threads).unwrap_or(i32::MAX),
            },
        )?;
        if llama.n_vocab() < header.tokenizer.vocab_size() {
            return Err(AiError::BadRequest(format!(
                "{}: llama.cpp reads {} tokens of vocabulary, the GGUF's tokenizer {}",
                path.display(),
                llama.n_vocab(),
                header.tokenizer.vocab_size()
            )));
        }
        // A GGUF without a context length in its header: the one llama.cpp read.
        let context_window = window.min(llama.n_ctx()).min(llama.n_ctx_train().max(1));
        let system_info = llama.system_info();
        tracing::info!(
            model = %header.name,
            path = %path.display(),
            context_window,
            cells = llama.n_ctx(),
            threads,
            cpu = %system_info,
            ms = started.elapsed().as_millis() as u64,
            "loaded the embedded chat model on llama.cpp"
        );
        let shared = Arc::new(Shared {
            tokenizer: header.tokenizer,
            context_window,
            repeat_penalty: e.repeat_penalty,
            repeat_last_n: e.repeat_last_n,
            prompt_tokens: AtomicU64::new(0),
            reused_prompt_tokens: AtomicU64::new(0),
            decodes: AtomicU64::new(0),
            decoded_tokens: AtomicU64::new(0),
        });
        let scheduler = Arc::new(Scheduler {
            queue: Mutex::new(Queue::default()),
            ready: Condvar::new(),
            capacity: e.queue_size,
            concurrent,
        });
        {
            let shared = shared.clone();
            let scheduler = scheduler.clone();
            let prefix_cache_tokens = e.prefix_cache_tokens;
            std::thread::Builder::new()
                .name("amora-chat-llama".into())
                .spawn(move || {
                    let batcher = Batcher::new(llama, &shared, concurrent, prefix_cache_tokens);
                    run_worker(batcher, &scheduler);
                })
                .map_err(|e| AiError::Internal(format!("cannot start the model's worker thread: {e}")))?;
        }
        Ok(Self { shared, scheduler, name: header.name, path, max_tokens: settings.max_tokens, system_info, threads })
    }

    /// The CPU features llama.cpp computes with (its `llama_print_system_info`).
    pub fn system_info(&self) -> &str {
        &self.system_info
    }

    /// The threads llama.cpp decodes with.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The model's tokenizer (built from the GGUF's metadata).
    pub fn tokenizer(&self) -> &GgufTokenizer {
        &self.shared.tokenizer
    }

    /// Decodes and their tokens so far: fewer decodes than tokens written means replies
    /// shared passes over the weights.
    pub fn batch_stats(&self) -> BatchStats {
        BatchStats {
            decodes: self.shared.decodes.load(Ordering::Relaxed),
            tokens: self.shared.decoded_tokens.load(Ordering::Relaxed),
        }
    }
}

#[async_trait::async_trait]
impl ChatModel for LlamaCppChatModel {
    async fn stream(&self, request: ChatRequest) -> Result<TokenStream, AiError> {
        let (job, stream) = match job_for(request, &self.shared.tokenizer, self.shared.context_window, self.max_tokens)?
        {
            Ok(job) => job,
            Err(finished) => return Ok(finished),
        };
        self.scheduler.submit(job)?;
        Ok(stream)
    }

    fn info(&self) -> ModelInfo {
        ModelInfo {
            provider: "embedded",
            model: self.name.clone(),
            context_window: Some(self.shared.context_window),
            max_tokens: self.max_tokens,
        }
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.shared.tokenizer.encode(text, false).map_or_else(|_| crate::chat::estimate_tokens(text), |ids| ids.len())
    }

    fn prompt_cache(&self) -> Option<PromptCacheStats> {
        Some(PromptCacheStats {
            prompt_tokens: self.shared.prompt_tokens.load(Ordering::Relaxed),
            reused_tokens: self.shared.reused_prompt_tokens.load(Ordering::Relaxed),
        })
    }
}

fn run_worker(mut batcher: Batcher<'_>, scheduler: &Scheduler) {
    let _guard = WorkerGuard(scheduler);
    loop {
        {
            let mut queue = scheduler.lock();
            loop {
                drop_abandoned(&mut queue.waiting);
                while let Some(slot) = batcher.free_slot()
                    && let Some(job) = queue.waiting.pop_front()
                {
                    batcher.admit(slot, job);
                }
                queue.active = batcher.active();
                if queue.active > 0 {
                    break;
                }
                if queue.closed {
                    return;
                }
                queue = scheduler.ready.wait(queue).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
        }
        batcher.step();
    }
}

/// A kept prompt's sequence. When the prefix cache lets go of its last handle, the sequence
/// is queued to be emptied and used again.
struct CachedSequence {
    seq: i32,
    released: Rc<RefCell<Vec<i32>>>,
}

impl Drop for CachedSequence {
    fn drop(&mut self) {
        self.released.borrow_mut().push(self.seq);
    }
}

/// The worker's state: the context, the reply in each slot, the kept prompts.
struct Batcher<'a> {
    llama: Llama,
    shared: &'a Shared,
    /// Slot `i` writes its reply in sequence `i`.
    slots: Vec<Option<Reply>>,
    prompts: PrefixCache<Rc<CachedSequence>>,
    /// Sequences for kept prompts, not in use.
    spare: Vec<i32>,
    /// Sequences the prefix cache let go of, still holding cells.
    released: Rc<RefCell<Vec<i32>>>,
    batch: Batch,
}

/// A reply being written in a slot.
struct Reply {
    job: Job,
    seq: i32,
    sampler: LogitsProcessor,
    /// The prompt, then the reply's tokens.
    tokens: Vec<u32>,
    prompt_len: usize,
    /// Tokens in the KV cache; the next one goes at this position.
    fed: usize,
    generated: usize,
    output: Output,
    started: Instant,
    /// In the step under way: tokens fed, and where its logits are in the batch.
    feeding: usize,
    logits_at: Option<usize>,
}

impl<'a> Batcher<'a> {
    fn new(llama: Llama, shared: &'a Shared, concurrent: usize, prefix_cache_tokens: usize) -> Self {
        let first_spare = concurrent as i32;
        Self {
            llama,
            shared,
            slots: (0..concurrent).map(|_| None).collect(),
            prompts: PrefixCache::new(prefix_cache_tokens),
            spare: (first_spare..first_spare + CACHE_SEQUENCES as i32).rev().collect(),
            released: Rc::default(),
            batch: Batch::default(),
        }
    }

    fn free_slot(&self) -> Option<usize> {
        self.slots.iter().position(Option::is_none)
    }

    fn active(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Starts `job` in `slot`, from the longest kept prompt it starts with.
    fn admit(&mut self, slot: usize, job: Job) {
        let seq = slot as i32;
        self.llama.seq_rm(seq, None);
        self.shared.prompt_tokens.fetch_add(job.prompt.len() as u64, Ordering::Relaxed);
        let mut fed = 0;
        if let Some(reuse) = self.prompts.reuse(&job.prompt) {
            // The prompt's last token is fed again even when all of it is kept: its logits
            // start the reply.
            fed = reuse.fed.min(job.prompt.len().saturating_sub(1));
            if fed > 0 {
                self.llama.seq_cp(reuse.state.seq, seq, fed);
                if self.llama.seq_pos_max(seq) == Some(fed - 1) {
                    self.shared.reused_prompt_tokens.fetch_add(fed as u64, Ordering::Relaxed);
                    tracing::debug!(cached = fed, prompt_tokens = job.prompt.len(), "prompt prefix from the cache");
                } else {
                    // The kept cells are not all there: feed the whole prompt instead.
                    tracing::warn!(cached = fed, "a kept prompt's cells were missing; feeding the prompt anew");
                    self.llama.seq_rm(seq, None);
                    fed = 0;
                }
            }
        }
        self.slots[slot] = Some(Reply {
            seq,
            sampler: LogitsProcessor::from_sampling(job.seed, job.sampling.clone()),
            tokens: job.prompt.clone(),
            prompt_len: job.prompt.len(),
            fed,
            generated: 0,
            output: Output::new(&job.stop),
            started: Instant::now(),
            feeding: 0,
            logits_at: None,
            job,
        });
    }

    /// Empties the sequences the prefix cache let go of, for reuse.
    fn reclaim(&mut self) {
        let released = std::mem::take(&mut *self.released.borrow_mut());
        for seq in released {
            self.llama.seq_rm(seq, None);
            self.spare.push(seq);
        }
    }

    /// Ends the reply in `slot` and frees its cells.
    fn vacate(&mut self, slot: usize) {
        if let Some(reply) = self.slots[slot].take() {
            self.llama.seq_rm(reply.seq, None);
        }
    }

    /// One decode for every reply: each written reply's last token, then prompt tokens as
    /// far as the batch holds; then each reply whose logits came samples its next token.
    fn step(&mut self) {
        self.reclaim();
        for slot in 0..self.slots.len() {
            if let Some(reply) = &self.slots[slot]
                && reply.job.abandoned()
            {
                reply.job.cancelled();
                self.vacate(slot);
            }
        }
        self.batch.clear();
        for reply in self.slots.iter_mut().flatten() {
            reply.feeding = 0;
            reply.logits_at = None;
            if reply.fed >= reply.prompt_len {
                reply.logits_at = Some(self.batch.push(reply.tokens[reply.fed], reply.fed, reply.seq, true));
                reply.feeding = 1;
            }
        }
        for reply in self.slots.iter_mut().flatten() {
            let room = BATCH - self.batch.len();
            if reply.fed >= reply.prompt_len || room == 0 {
                continue;
            }
            let end = reply.prompt_len.min(reply.fed + room);
            for position in reply.fed..end {
                let last = position + 1 == reply.prompt_len;
                let index = self.batch.push(reply.tokens[position], position, reply.seq, last);
                if last {
                    reply.logits_at = Some(index);
                }
            }
            reply.feeding = end - reply.fed;
        }
        if self.batch.is_empty() {
            return;
        }
        match self.llama.decode(&self.batch) {
            Ok(Decoded::Done) => {
                self.shared.decodes.fetch_add(1, Ordering::Relaxed);
                self.shared.decoded_tokens.fetch_add(self.batch.len() as u64, Ordering::Relaxed);
            }
            Ok(Decoded::NoRoom) => return self.make_room(),
            Err(error) => {
                tracing::error!(%error, "the embedded chat model failed");
                for slot in 0..self.slots.len() {
                    if let Some(reply) = &self.slots[slot]
                        && reply.feeding > 0
                    {
                        let _ = reply.job.events.send(Err(error.clone()));
                        self.vacate(slot);
                    }
                }
                return;
            }
        }
        for slot in 0..self.slots.len() {
            let Some(reply) = self.slots[slot].as_mut() else { continue };
            let before = reply.fed;
            reply.fed += reply.feeding;
            let keep_at = match reply.job.cache_at {
                Some(at) if at < reply.prompt_len => Some(at),
                _ => Some(reply.prompt_len),
            }
            .filter(|&at| before < at && at <= reply.fed);
            if let Some(at) = keep_at {
                // The next turn (or a regenerate) starts here.
                let (seq, tokens) = (reply.seq, reply.tokens[..at].to_vec());
                self.keep(seq, &tokens);
            }
            let Some(reply) = self.slots[slot].as_mut() else { continue };
            let Some(index) = reply.logits_at else { continue };
            let outcome = match self.llama.logits(index) {
                Some(logits) => reply.next_token(logits, self.shared),
                None => Err(AiError::Internal("llama.cpp gave no logits for a reply".into())),
            };
            match outcome {
                Ok(None) => {}
                Ok(Some(reason)) => {
                    reply.finish(reason);
                    self.vacate(slot);
                }
                Err(error) => {
                    tracing::error!(%error, "the embedded chat model failed");
                    let _ = reply.job.events.send(Err(error));
                    self.vacate(slot);
                }
            }
        }
    }

    /// Keeps `tokens`, which sequence `seq` holds, as a prompt later ones may start from.
    fn keep(&mut self, seq: i32, tokens: &[u32]) {
        if tokens.is_empty() || tokens.len() > self.prompts_budget() {
            return;
        }
        if self.spare.is_empty() {
            self.prompts.evict_oldest();
            self.reclaim();
        }
        let Some(kept) = self.spare.pop() else { return };
        self.llama.seq_cp(seq, kept, tokens.len());
        self.prompts.keep(tokens, Rc::new(CachedSequence { seq: kept, released: self.released.clone() }));
        self.reclaim();
    }

    fn prompts_budget(&self) -> usize {
        self.prompts.budget()
    }

    /// The KV cache had no room for the step: the kept prompts go first; when there are none,
    /// the longest reply fails (the others go on).
    fn make_room(&mut self) {
        if self.prompts.evict_oldest() {
            while self.prompts.evict_oldest() {}
            self.reclaim();
            tracing::warn!("the model's KV cache was full: emptied the prefix cache");
            return;
        }
        let longest = (0..self.slots.len()).max_by_key(|&slot| self.slots[slot].as_ref().map_or(0, |r| r.tokens.len()));
        if let Some(slot) = longest
            && let Some(reply) = &self.slots[slot]
        {
            tracing::warn!(tokens = reply.tokens.len(), "the model's KV cache is full: a reply fails");
            let _ = reply.job.events.send(Err(AiError::Unavailable("the model's context is full; try again".into())));
            self.vacate(slot);
        }
    }
}

impl Reply {
    /// Samples the next token from `logits` and sends its text; `Some` when the reply is over.
    fn next_token(&mut self, logits: &[f32], shared: &Shared) -> Result<Option<FinishReason>, AiError> {
        let mut logits = Tensor::from_slice(logits, logits.len(), &Device::Cpu)?;
        if shared.repeat_penalty != 1.0 {
            let from = self.tokens.len().saturating_sub(shared.repeat_last_n);
            logits =
                candle_transformers::utils::apply_repeat_penalty(&logits, shared.repeat_penalty, &self.tokens[from..])?;
        }
        let next = self.sampler.sample(&logits)?;
        self.generated += 1;
        if self.generated == 1 {
            tracing::debug!(
                prompt_tokens = self.prompt_len,
                ms = self.started.elapsed().as_millis() as u64,
                "first token of the embedded model (llama.cpp)"
            );
        }
        let tokenizer = &shared.tokenizer;
        if tokenizer.ends_turn(next) {
            return Ok(Some(FinishReason::Stop));
        }
        self.tokens.push(next);
        if self.output.token(&self.job, tokenizer.token_bytes(next)) {
            return Ok(Some(FinishReason::Stop));
        }
        if self.generated >= self.job.max_tokens || self.tokens.len() >= shared.context_window {
            return Ok(Some(FinishReason::Length));
        }
        Ok(None)
    }

    fn finish(&mut self, reason: FinishReason) {
        let usage = Usage { prompt_tokens: self.prompt_len as u32, completion_tokens: self.generated as u32 };
        self.output.finish(&self.job, reason, usage);
        tracing::debug!(
            ?reason,
            prompt_tokens = self.prompt_len,
            completion_tokens = self.generated,
            ms = self.started.elapsed().as_millis() as u64,
            "embedded reply done (llama.cpp)"
        );
    }
}
