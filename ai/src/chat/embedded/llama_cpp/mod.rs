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
//! - **Prefix cache.** A slot keeps its cells after its reply, and a new prompt goes to the
//!   free slot whose cells start like it (the conversation's previous turn, a regenerate),
//!   feeding only what differs, as llama-server's slots do. Kept prompts live in the slots'
//!   own cells rather than in sequences of their own: attention runs over the span of used
//!   cells, and prompts kept beside the slots widened it (a 1,000-token prompt's reply ran
//!   at 0.80x llama-server's speed with 4,096 kept tokens, 0.97x without).
//!
//! The library is `libamora_llama.so` (`ffi`), built for this machine's CPU by
//! `scripts/lib/model.sh llama-shim`; its kernels use the CPU's own instructions (AVX2,
//! AVX-512, VNNI), which is where it gains on candle's (BENCHMARKS.md, "Against the peers").

mod ffi;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use self::ffi::{Batch, Decoded, Llama, OpenParams};
use super::{
    GgufMetadata, GgufTokenizer, Job, Queue, RepeatPenalty, Scheduler, WorkerGuard, Writing, drop_abandoned,
    embedded_info, existing_model_file, start_reply,
};
use crate::chat::{
    AiError, ChatModel, ChatRequest, FinishReason, ModelInfo, ModelSettings, PromptCacheStats, TokenStream,
};

/// Most tokens one decode takes: the replies' next tokens first, then prompt tokens. 512 is
/// llama-server's default, and large enough that a prompt's prefill runs at full speed.
const BATCH: usize = 512;
/// The context window when the settings name none: the candle engine's limit (its
/// `MAX_SEQ_LEN`), so that both engines fit the same prompts.
const DEFAULT_CONTEXT: usize = 4096;

/// What the async side and the worker share.
struct Shared {
    tokenizer: GgufTokenizer,
    context_window: usize,
    repeat: RepeatPenalty,
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
}

impl std::fmt::Debug for LlamaCppChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlamaCppChatModel").field("name", &self.name).field("path", &self.path).finish_non_exhaustive()
    }
}

impl Drop for LlamaCppChatModel {
    fn drop(&mut self) {
        self.scheduler.close();
    }
}

/// What the GGUF's header says, read without its tensors.
struct Header {
    tokenizer: GgufTokenizer,
    name: String,
    trained_context: Option<usize>,
}

fn read_header(path: &Path) -> Result<Header, AiError> {
    let metadata = GgufMetadata::from_file(path)?;
    Ok(Header {
        tokenizer: GgufTokenizer::from_gguf(&metadata)?,
        name: metadata.model_name(path),
        trained_context: metadata.trained_context(),
    })
}

impl LlamaCppChatModel {
    /// Loads the library and the model that `settings.embedded` name and starts the worker
    /// thread. Blocking. The GGUF is used as it is (llama.cpp has fast kernels for every
    /// block type, so `requantize` does not apply).
    pub fn load(settings: &ModelSettings) -> Result<Self, AiError> {
        let e = &settings.embedded;
        let path = existing_model_file(e)?;
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
        // Every slot may fill its window. What a slot keeps after its reply stays within it.
        let cells = window.saturating_mul(concurrent);
        let llama = Llama::open(
            &library,
            &path,
            OpenParams {
                cells: u32::try_from(cells).unwrap_or(u32::MAX),
                sequences: concurrent as u32,
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
        tracing::info!(
            model = %header.name,
            path = %path.display(),
            context_window,
            cells = llama.n_ctx(),
            threads,
            cpu = %llama.system_info(),
            ms = started.elapsed().as_millis() as u64,
            "loaded the embedded chat model on llama.cpp"
        );
        let shared = Arc::new(Shared {
            tokenizer: header.tokenizer,
            context_window,
            repeat: RepeatPenalty::from_settings(e),
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
        Ok(Self { shared, scheduler, name: header.name, path, max_tokens: settings.max_tokens })
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
                while batcher.has_free_slot()
                    && let Some(job) = queue.waiting.pop_front()
                {
                    batcher.admit(job);
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

/// One sequence of the context, and what it holds.
#[derive(Default)]
struct Slot {
    /// The tokens in this sequence's cells, positions 0, 1, …: the last reply's prompt and
    /// what of the reply was fed, kept after it ends for the next prompt that starts the same.
    held: Vec<u32>,
    reply: Option<Reply>,
    /// When a reply last started here, for choosing the least recently used.
    used: u64,
}

/// The worker's state: the context and its slots.
struct Batcher<'a> {
    llama: Llama,
    shared: &'a Shared,
    /// Slot `i` is sequence `i`.
    slots: Vec<Slot>,
    /// Whether a slot keeps its cells after its reply (`prefix_cache_tokens` > 0).
    keep_prompts: bool,
    starts: u64,
    batch: Batch,
}

/// A reply being written in a slot.
struct Reply {
    writing: Writing,
    seq: i32,
    /// Tokens in the KV cache; the next one goes at this position.
    fed: usize,
    /// In the step under way: tokens fed, and where its logits are in the batch.
    feeding: usize,
    logits_at: Option<usize>,
}

/// How many leading tokens `a` and `b` share.
fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl<'a> Batcher<'a> {
    fn new(llama: Llama, shared: &'a Shared, concurrent: usize, prefix_cache_tokens: usize) -> Self {
        Self {
            llama,
            shared,
            slots: (0..concurrent).map(|_| Slot::default()).collect(),
            keep_prompts: prefix_cache_tokens > 0,
            starts: 0,
            batch: Batch::default(),
        }
    }

    fn has_free_slot(&self) -> bool {
        self.slots.iter().any(|slot| slot.reply.is_none())
    }

    fn active(&self) -> usize {
        self.slots.iter().filter(|slot| slot.reply.is_some()).count()
    }

    /// Starts `job` in the free slot whose cells start like its prompt (the conversation's
    /// previous turn, or the same prompt again for a regenerate), else in the one least
    /// recently used, as llama-server picks its slots; only what differs is fed.
    fn admit(&mut self, job: Job) {
        let Some(index) = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.reply.is_none())
            .max_by_key(|(_, slot)| (common_prefix(&slot.held, &job.prompt), std::cmp::Reverse(slot.used)))
            .map(|(index, _)| index)
        else {
            return;
        };
        self.starts += 1;
        let seq = index as i32;
        let slot = &mut self.slots[index];
        slot.used = self.starts;
        self.shared.prompt_tokens.fetch_add(job.prompt.len() as u64, Ordering::Relaxed);
        // The prompt's last token is fed again even when all of it is held: its logits start
        // the reply.
        let mut fed = common_prefix(&slot.held, &job.prompt).min(job.prompt.len().saturating_sub(1));
        if !self.llama.seq_rm(seq, Some(fed)) || (fed > 0 && self.llama.seq_pos_max(seq) != Some(fed - 1)) {
            // The cells do not hold what was kept (or cannot be cut there): start afresh.
            tracing::warn!(held = fed, "a slot's kept cells could not be reused; feeding the prompt anew");
            self.llama.seq_rm(seq, None);
            fed = 0;
        }
        slot.held.truncate(fed);
        if fed > 0 {
            self.shared.reused_prompt_tokens.fetch_add(fed as u64, Ordering::Relaxed);
            tracing::debug!(cached = fed, prompt_tokens = job.prompt.len(), "prompt prefix from the slot's cells");
        }
        slot.reply = Some(Reply { writing: Writing::new(job, "llama.cpp"), seq, fed, feeding: 0, logits_at: None });
    }

    /// Ends the reply in `slot`. Its cells stay for a next prompt that starts the same, unless
    /// the prefix cache is off or they may be wrong (`forget`).
    fn vacate(&mut self, index: usize, forget: bool) {
        let slot = &mut self.slots[index];
        let Some(reply) = slot.reply.take() else { return };
        if forget || !self.keep_prompts {
            self.llama.seq_rm(reply.seq, None);
            slot.held.clear();
        } else {
            slot.held = reply.writing.tokens;
            slot.held.truncate(reply.fed);
        }
    }

    /// One decode for every reply: each written reply's last token, then prompt tokens as
    /// far as the batch holds; then each reply whose logits came samples its next token.
    fn step(&mut self) {
        for index in 0..self.slots.len() {
            if let Some(reply) = &self.slots[index].reply
                && reply.writing.job.abandoned()
            {
                reply.writing.job.cancelled();
                self.vacate(index, false);
            }
        }
        self.batch.clear();
        for reply in self.slots.iter_mut().filter_map(|slot| slot.reply.as_mut()) {
            reply.feeding = 0;
            reply.logits_at = None;
            if reply.fed >= reply.writing.prompt_len {
                reply.logits_at = Some(self.batch.push(reply.writing.tokens[reply.fed], reply.fed, reply.seq, true));
                reply.feeding = 1;
            }
        }
        for reply in self.slots.iter_mut().filter_map(|slot| slot.reply.as_mut()) {
            let room = BATCH - self.batch.len();
            if reply.fed >= reply.writing.prompt_len || room == 0 {
                continue;
            }
            let end = reply.writing.prompt_len.min(reply.fed + room);
            for position in reply.fed..end {
                let last = position + 1 == reply.writing.prompt_len;
                let index = self.batch.push(reply.writing.tokens[position], position, reply.seq, last);
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
                for index in 0..self.slots.len() {
                    if let Some(reply) = &self.slots[index].reply
                        && reply.feeding > 0
                    {
                        let _ = reply.writing.job.events.send(Err(error.clone()));
                        self.vacate(index, true);
                    }
                }
                return;
            }
        }
        for index in 0..self.slots.len() {
            let Some(reply) = self.slots[index].reply.as_mut() else { continue };
            reply.fed += reply.feeding;
            let Some(at) = reply.logits_at else { continue };
            let outcome = match self.llama.logits(at) {
                Some(logits) => reply.next_token(logits, self.shared),
                None => Err(AiError::Internal("llama.cpp gave no logits for a reply".into())),
            };
            match outcome {
                Ok(None) => {}
                Ok(Some(reason)) => {
                    reply.writing.finish(reason);
                    self.vacate(index, false);
                }
                Err(error) => {
                    tracing::error!(%error, "the embedded chat model failed");
                    let _ = reply.writing.job.events.send(Err(error));
                    self.vacate(index, false);
                }
            }
        }
    }

    /// The KV cache had no room for the step: the cells idle slots kept go first; when there
    /// are none, the longest reply fails (the others go on).
    fn make_room(&mut self) {
        let mut freed = false;
        for (index, slot) in self.slots.iter_mut().enumerate() {
            if slot.reply.is_none() && !slot.held.is_empty() {
                self.llama.seq_rm(index as i32, None);
                slot.held.clear();
                freed = true;
            }
        }
        if freed {
            tracing::warn!("the model's KV cache was full: idle slots let go of their kept prompts");
            return;
        }
        let longest = (0..self.slots.len())
            .max_by_key(|&index| self.slots[index].reply.as_ref().map_or(0, |reply| reply.writing.tokens.len()));
        if let Some(index) = longest
            && let Some(reply) = &self.slots[index].reply
        {
            tracing::warn!(tokens = reply.writing.tokens.len(), "the model's KV cache is full: a reply fails");
            let _ = reply
                .writing
                .job
                .events
                .send(Err(AiError::Unavailable("the model's context is full; try again".into())));
            self.vacate(index, true);
        }
    }
}

impl Reply {
    /// Samples the next token from `logits` and sends its text; `Some` when the reply is over.
    fn next_token(&mut self, logits: &[f32], shared: &Shared) -> Result<Option<FinishReason>, AiError> {
        let logits = logits.to_vec();
        let penalty = shared.repeat;
        // Held once the token is in: the prompt, the reply so far and this token.
        let held = self.writing.tokens.len() + 1;
        self.writing.next_token(logits, penalty, &shared.tokenizer, held, shared.context_window)
    }
}
