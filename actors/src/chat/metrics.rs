//! What a reply costs, phase by phase, as Prometheus histograms on `/metrics`: the time the
//! server adds around the model (accepting the message, building the prompt, storing the
//! reply) kept apart from the model's own time, so an operator can tell a slow model from a
//! slow store. Each engine owns its collectors; the server registers them in its registry
//! (several servers in one test process must not share one).

use std::time::Duration;

use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry};

/// A phase of a chat turn, the `phase` label of `amora_chat_turn_phase_seconds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Moderation, the credit, storing the user's message and telling their sockets.
    Accept,
    /// From the reply's start to its prompt's assembly: the lorebook's entries chosen for
    /// the window and the recall index searched for the user's newest message.
    Recall,
    /// From the recall found to the model's stream opening: the prompt built and counted,
    /// the model's turn taken (`fair.rs`).
    Prepare,
    /// The model's stream opening to its first text (model time, its queue included).
    FirstToken,
    /// The model's stream opening to the end of the attempt that was kept (model time,
    /// attempts written again included): one per turn that ended with a reply or a stop.
    Generate,
    /// The model's end to the reply stored.
    StoreReply,
}

impl Phase {
    fn label(self) -> &'static str {
        match self {
            Phase::Accept => "accept",
            Phase::Recall => "recall",
            Phase::Prepare => "prepare",
            Phase::FirstToken => "first_token",
            Phase::Generate => "generate",
            Phase::StoreReply => "store_reply",
        }
    }
}

/// How a reply ended, the `outcome` label of `amora_chat_replies_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Stored,
    Stopped,
    Refused,
    Failed,
}

impl Outcome {
    fn label(self) -> &'static str {
        match self {
            Outcome::Stored => "stored",
            Outcome::Stopped => "stopped",
            Outcome::Refused => "refused",
            Outcome::Failed => "failed",
        }
    }
}

#[derive(Clone)]
pub struct ChatMetrics {
    phases: HistogramVec,
    replies: IntCounterVec,
    /// The model's prompt tokens since it loaded, by `source`: `all`, and `cached` (taken
    /// from its prompt cache instead of fed again). Gauges set from the model's own totals.
    prompt_tokens: IntGaugeVec,
}

impl ChatMetrics {
    pub fn new() -> Self {
        // From a millisecond (a store write) to two minutes (a long reply on a busy CPU).
        let buckets = vec![0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0];
        let phases = HistogramVec::new(
            HistogramOpts::new("amora_chat_turn_phase_seconds", "Time spent in each phase of a chat turn")
                .buckets(buckets),
            &["phase"],
        )
        .unwrap_or_else(|e| unreachable!("static histogram options are valid: {e}"));
        let replies =
            IntCounterVec::new(Opts::new("amora_chat_replies_total", "Chat replies by how they ended"), &["outcome"])
                .unwrap_or_else(|e| unreachable!("static counter options are valid: {e}"));
        let prompt_tokens = IntGaugeVec::new(
            Opts::new(
                "amora_chat_model_prompt_tokens",
                "Prompt tokens of the chat model's replies since it loaded: all, and those its prompt cache held",
            ),
            &["source"],
        )
        .unwrap_or_else(|e| unreachable!("static gauge options are valid: {e}"));
        Self { phases, replies, prompt_tokens }
    }

    /// Adds the collectors to `registry` (the one `/metrics` serves).
    pub fn register(&self, registry: &Registry) -> prometheus::Result<()> {
        registry.register(Box::new(self.phases.clone()))?;
        registry.register(Box::new(self.replies.clone()))?;
        registry.register(Box::new(self.prompt_tokens.clone()))
    }

    /// The model's prompt cache totals (a model without a cache reports none).
    pub fn prompt_cache(&self, stats: amora_ai::chat::PromptCacheStats) {
        let set = |source: &str, value: u64| {
            self.prompt_tokens.with_label_values(&[source]).set(i64::try_from(value).unwrap_or(i64::MAX));
        };
        set("all", stats.prompt_tokens);
        set("cached", stats.reused_tokens);
    }

    pub fn observe(&self, phase: Phase, took: Duration) {
        self.phases.with_label_values(&[phase.label()]).observe(took.as_secs_f64());
    }

    pub fn reply_ended(&self, outcome: Outcome) {
        self.replies.with_label_values(&[outcome.label()]).inc();
    }
}

impl Default for ChatMetrics {
    fn default() -> Self {
        Self::new()
    }
}
