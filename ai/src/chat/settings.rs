//! The chat model's configuration, for the server to embed in its own settings, e.g.
//!
//! ```toml
//! [chat]
//! kind = "embedded"          # or "openai"
//! max_tokens = 512
//!
//! [chat.embedded]
//! model_path = "/root/.cache/amora/models/SmolLM2-135M-Instruct.Q4_1.gguf"
//! queue_size = 16
//!
//! [chat.openai]
//! base_url = "http://127.0.0.1:8081/v1"
//! api_key = "sk-..."
//! model = "gpt-4o-mini"
//! ```

use std::path::PathBuf;

use serde::Deserialize;

use crate::AiError;

/// The file that `scripts/lib/model.sh` fetches, in `$AMORA_CACHE/models/`.
pub const DEFAULT_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// Which provider answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    /// The GGUF model in-process on the CPU (no network at run time).
    #[default]
    Embedded,
    /// An OpenAI-compatible `/v1/chat/completions` service.
    Openai,
}

/// The chat model's settings. Both sections may be present; `kind` picks one.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelSettings {
    pub kind: ModelKind,
    /// Most tokens of one reply (requests may ask for fewer).
    pub max_tokens: u32,
    pub embedded: EmbeddedSettings,
    pub openai: OpenAiSettings,
}

impl Default for ModelSettings {
    fn default() -> Self {
        Self {
            kind: ModelKind::Embedded,
            max_tokens: 512,
            embedded: EmbeddedSettings::default(),
            openai: OpenAiSettings::default(),
        }
    }
}

impl ModelSettings {
    /// Embedded settings for the GGUF file at `path`, everything else by default.
    pub fn embedded(path: impl Into<PathBuf>) -> Self {
        let mut settings = Self::default();
        settings.embedded.model_path = Some(path.into());
        settings
    }

    /// OpenAI-compatible settings, everything else by default.
    pub fn openai(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        let mut settings = Self { kind: ModelKind::Openai, ..Self::default() };
        settings.openai.base_url = base_url.into();
        settings.openai.model = model.into();
        settings
    }

    /// Checks the values that serde cannot.
    pub fn validate(&self) -> Result<(), AiError> {
        let bad = |m: String| Err(AiError::BadRequest(m));
        if self.max_tokens == 0 {
            return bad("chat max_tokens must be at least 1".into());
        }
        match self.kind {
            ModelKind::Embedded => {
                let e = &self.embedded;
                if e.concurrent_replies == 0 {
                    return bad("chat.embedded.concurrent_replies must be at least 1".into());
                }
                if e.threads == Some(0) {
                    return bad("chat.embedded.threads must be at least 1".into());
                }
                if !(e.repeat_penalty >= 1.0 && e.repeat_penalty <= 2.0) {
                    return bad(format!("chat.embedded.repeat_penalty {} is outside 1..=2", e.repeat_penalty));
                }
                if !(0.0..=5.0).contains(&e.dry_multiplier) || !(1.0..=4.0).contains(&e.dry_base) {
                    return bad(format!(
                        "chat.embedded.dry_multiplier {} must be in 0..=5 and dry_base {} in 1..=4",
                        e.dry_multiplier, e.dry_base
                    ));
                }
                if e.context_size == Some(0) {
                    return bad("chat.embedded.context_size must be at least 1".into());
                }
                if e.engine == Engine::LlamaCpp && e.llama_library.is_none() {
                    return bad("chat.embedded.engine is llama_cpp but chat.embedded.llama_library is not set \
                                (scripts/lib/model.sh llama-shim builds it)"
                        .into());
                }
            }
            ModelKind::Openai => {
                let o = &self.openai;
                if !(o.base_url.starts_with("http://") || o.base_url.starts_with("https://")) {
                    return bad(format!("chat.openai.base_url {:?} is not an http(s) URL", o.base_url));
                }
                if o.model.trim().is_empty() {
                    return bad("chat.openai.model is required".into());
                }
                if o.connect_timeout_ms == 0 || o.request_timeout_ms == 0 {
                    return bad("chat.openai timeouts must be above 0".into());
                }
            }
        }
        Ok(())
    }
}

/// How the embedded model's weights are converted once for speed (candle's Q4_1 kernel is
/// scalar; Q8_0 and Q4_0 have SIMD kernels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Requantize {
    /// Convert slow block types to Q8_0 (lossless from Q4_1's 4-bit values; the default).
    #[default]
    Q8_0,
    /// Convert slow block types to Q4_0 (smaller, slightly lossy).
    Q4_0,
    /// Use the file as it is.
    None,
}

/// Which code runs the embedded model's GGUF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// llama.cpp when `llama_library` is set, candle otherwise.
    #[default]
    Auto,
    /// candle, compiled into a server built with `--features candle`: needs nothing else, one
    /// sequence per forward pass. A build without it says so when this is chosen.
    Candle,
    /// llama.cpp in-process (`llama_library`): this CPU's own kernels, and the replies
    /// written at once decode together in one batch (BENCHMARKS.md, "Against the peers").
    LlamaCpp,
}

/// The embedded provider's settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EmbeddedSettings {
    /// candle, llama.cpp, or llama.cpp when its library is there (`auto`).
    pub engine: Engine,
    /// llama.cpp's engine: `libamora_llama.so`, which `scripts/lib/model.sh llama-shim`
    /// builds for this machine's CPU (`scripts/run` sets it).
    pub llama_library: Option<PathBuf>,
    /// The GGUF file; by default `$AMORA_CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf`
    /// (`$AMORA_CACHE` defaults to `~/.cache/amora`), where `scripts/lib/model.sh` puts it.
    pub model_path: Option<PathBuf>,
    /// CPU threads for the matrix kernels. candle sizes its thread pool once per process
    /// from `CANDLE_NUM_THREADS` (or `RAYON_NUM_THREADS`, else the physical cores); when
    /// set, this must match it, and loading fails with a message saying so otherwise.
    pub threads: Option<usize>,
    /// Replies waiting for a slot; one more is refused with [`AiError::QueueFull`].
    pub queue_size: usize,
    /// Replies generated at once, interleaved token by token on the one worker thread, each
    /// with its own KV cache over the shared weights.
    pub concurrent_replies: usize,
    /// The weights' one-time conversion (cached next to the file).
    pub requantize: Requantize,
    /// Penalty on tokens seen in the last `repeat_last_n` tokens (1 = none).
    pub repeat_penalty: f32,
    pub repeat_last_n: usize,
    /// DRY, the penalty on extending a sequence already in the context (`embedded::dry`):
    /// `dry_multiplier` 0 turns it off; a repeat longer than `dry_allowed_length` tokens
    /// costs `dry_multiplier · dry_base^(length − dry_allowed_length)`, searched over the
    /// newest `dry_last_n` tokens. llama.cpp's and koboldcpp's usual values by default.
    pub dry_multiplier: f32,
    pub dry_base: f32,
    pub dry_allowed_length: usize,
    pub dry_last_n: usize,
    /// Caps the context window (prompt and reply), by default the model's (at most 4096).
    pub context_size: Option<usize>,
    /// Prompt tokens kept, with their KV cache, for the next turn or a regenerate to start
    /// from (0: off). Each costs the model's KV size, 46 KB for SmolLM2-135M: 4096 ≈ 190 MB.
    pub prefix_cache_tokens: usize,
}

impl Default for EmbeddedSettings {
    fn default() -> Self {
        Self {
            engine: Engine::Auto,
            llama_library: None,
            model_path: None,
            threads: None,
            queue_size: 16,
            concurrent_replies: 4,
            requantize: Requantize::Q8_0,
            repeat_penalty: 1.1,
            repeat_last_n: 64,
            dry_multiplier: 0.8,
            dry_base: 1.75,
            dry_allowed_length: 2,
            dry_last_n: 1024,
            context_size: None,
            prefix_cache_tokens: 4096,
        }
    }
}

impl EmbeddedSettings {
    /// The engine `engine` names, `auto` resolved.
    pub fn resolved_engine(&self) -> Engine {
        match self.engine {
            Engine::Auto if self.llama_library.is_some() => Engine::LlamaCpp,
            Engine::Auto => Engine::Candle,
            engine => engine,
        }
    }

    /// The configured model path, or the cache's default.
    pub fn resolved_model_path(&self) -> PathBuf {
        if let Some(path) = &self.model_path {
            return path.clone();
        }
        let cache = std::env::var_os("AMORA_CACHE").map(PathBuf::from).unwrap_or_else(|| {
            let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
            home.join(".cache").join("amora")
        });
        cache.join("models").join(DEFAULT_MODEL_FILE)
    }
}

/// The OpenAI-compatible provider's settings.
#[derive(Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenAiSettings {
    /// The API's base, ending before `/chat/completions`: `https://api.openai.com/v1`,
    /// `http://127.0.0.1:8081/v1` (llama.cpp, vLLM), `http://127.0.0.1:11434/v1` (Ollama).
    pub base_url: String,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<String>,
    /// The `model` field of requests.
    pub model: String,
    /// Time to open the TCP (and TLS) connection.
    pub connect_timeout_ms: u64,
    /// Time to wait for the response to start, and for each next chunk of the stream.
    pub request_timeout_ms: u64,
    /// Extra tries when the connection cannot be opened (never once a reply has started).
    pub connect_retries: u32,
    /// Pause before the first retry, doubled for each next one.
    pub retry_backoff_ms: u64,
    /// The remote model's context window, if known (reported by `info()`).
    pub context_window: Option<usize>,
    /// Ask for token counts in the stream (`stream_options.include_usage`); turn off for
    /// services that reject the field.
    pub stream_usage: bool,
}

impl Default for OpenAiSettings {
    fn default() -> Self {
        Self {
            base_url: "http://127.0.0.1:8081/v1".into(),
            api_key: None,
            model: String::new(),
            connect_timeout_ms: 5_000,
            request_timeout_ms: 120_000,
            connect_retries: 2,
            retry_backoff_ms: 200,
            context_window: None,
            stream_usage: true,
        }
    }
}

impl std::fmt::Debug for OpenAiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("request_timeout_ms", &self.request_timeout_ms)
            .field("connect_retries", &self.connect_retries)
            .field("retry_backoff_ms", &self.retry_backoff_ms)
            .field("context_window", &self.context_window)
            .field("stream_usage", &self.stream_usage)
            .finish()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_embedded_and_valid() {
        let settings = ModelSettings::default();
        assert_eq!(settings.kind, ModelKind::Embedded);
        assert!(settings.validate().is_ok());
        assert!(settings.embedded.resolved_model_path().ends_with(format!("models/{DEFAULT_MODEL_FILE}")));
    }

    #[test]
    fn parses_both_sections_and_rejects_unknown_fields() {
        let json = r#"{"kind":"openai","max_tokens":64,
            "embedded":{"queue_size":2,"requantize":"q4_0"},
            "openai":{"base_url":"http://127.0.0.1:9/v1","model":"m","api_key":"k"}}"#;
        let settings: ModelSettings = serde_json::from_str(json).unwrap();
        assert_eq!(settings.kind, ModelKind::Openai);
        assert_eq!(settings.embedded.queue_size, 2);
        assert_eq!(settings.embedded.requantize, Requantize::Q4_0);
        assert!(settings.validate().is_ok());
        assert!(!format!("{settings:?}").contains("\"k\""));

        assert!(serde_json::from_str::<ModelSettings>(r#"{"kind":"embedded","bogus":1}"#).is_err());
        assert!(serde_json::from_str::<ModelSettings>(r#"{"openai":{"modle":"x"}}"#).is_err());
    }

    #[test]
    fn validation_names_the_bad_key() {
        let settings = ModelSettings::openai("ftp://x", "m");
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("base_url")));
        let settings = ModelSettings::openai("http://x/v1", " ");
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("model")));
    }
}
