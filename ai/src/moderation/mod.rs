//! The second layer of moderation (issue 27): a classifier service asked after the rules
//! of `domain::moderation` have let a text pass. It can only add refusals: when it is not
//! configured nothing is asked, and what it answers never lets through what the rules
//! refused (the caller asks it only for texts the rules passed).
//!
//! Two services are spoken to, both over published HTTP APIs:
//!
//! - [`OpenAiModeration`]: an OpenAI-compatible `POST {base_url}/moderations`; its
//!   `sexual/minors` category refuses.
//! - [`LlamaGuard`]: a Llama Guard 3 or 4 model behind an OpenAI-compatible
//!   `POST {base_url}/chat/completions` (llama.cpp's `llama-server --jinja`, vLLM, Ollama);
//!   its S4 (child sexual exploitation) and S3 (sex-related crimes) refuse.
//!
//! Neither refuses plain sexual content (OpenAI's `sexual`, Llama Guard's S12): this is an
//! adult platform. [`build`] makes the configured one from [`ClassifierSettings`].

mod llama_guard;
mod openai;

use std::sync::Arc;
use std::time::Duration;

use amora_domain::moderation::{Policy, Refusal};
use async_trait::async_trait;
use serde::Deserialize;

use crate::AiError;
pub use llama_guard::LlamaGuard;
pub use openai::OpenAiModeration;

/// A moderation classifier: an OpenAI-compatible `/v1/moderations` endpoint, or a Llama
/// Guard model behind an OpenAI-compatible chat server.
#[async_trait]
pub trait Classifier: Send + Sync {
    /// `Ok(None)` when the service finds nothing to refuse in `text` under `policy`,
    /// `Ok(Some(refusal))` when it flags it, `Err` when it could not be asked (the caller
    /// decides, by its settings, whether an unanswered check refuses).
    async fn classify(&self, policy: Policy, text: &str) -> Result<Option<Refusal>, AiError>;
}

/// Which service is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassifierKind {
    /// No second layer: the rules alone decide.
    #[default]
    None,
    /// An OpenAI-compatible `POST /v1/moderations`.
    Openai,
    /// A Llama Guard model behind an OpenAI-compatible `POST /v1/chat/completions`.
    LlamaGuard,
}

impl ClassifierKind {
    pub fn key(self) -> &'static str {
        match self {
            ClassifierKind::None => "none",
            ClassifierKind::Openai => "openai",
            ClassifierKind::LlamaGuard => "llama_guard",
        }
    }
}

/// What an unanswered check (time-out, refused connection, 429, 5xx, an answer that cannot
/// be read) means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// The classifier's `Err` reaches the caller, which refuses the text as unchecked (a
    /// try-again answer, not a moderation verdict). The default: an operator who turned the
    /// second layer on wants it applied, and on an adult platform an image prompt that
    /// nobody could check must not be drawn because a service was slow.
    #[default]
    Refuse,
    /// The text passes on the rules alone; the failure is logged as a warning. For
    /// operators who prefer availability (chat keeps working while the service is down).
    Allow,
}

/// The second layer's configuration, for the server to embed as
/// `[moderation.classifier]`:
///
/// ```toml
/// [moderation.classifier]
/// kind = "openai"                        # or "llama_guard", "none"
/// base_url = "https://api.openai.com/v1" # up to /v1; /moderations or /chat/completions is added
/// api_key = "sk-..."
/// model = "omni-moderation-latest"       # Llama Guard: the name the server knows it by
/// timeout_ms = 3000
/// on_error = "refuse"                    # or "allow"
/// score_threshold = 0.3                  # optional, OpenAI only
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClassifierSettings {
    pub kind: ClassifierKind,
    /// The service's API root, up to and including `/v1` (as the chat and voice models'
    /// `base_url`): `https://api.openai.com/v1`, `http://127.0.0.1:8082/v1`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …` when set (and not empty).
    pub api_key: Option<String>,
    /// `omni-moderation-latest` for OpenAI; for Llama Guard the served model's name
    /// (`llama-guard3:8b` on Ollama, `meta-llama/Llama-Guard-3-8B` on vLLM; llama-server
    /// takes any).
    pub model: String,
    /// The longest one check may take, connecting included.
    pub timeout_ms: u64,
    pub on_error: OnError,
    /// OpenAI only: also refuse when `category_scores["sexual/minors"]` is at least this,
    /// though the service did not flag it (stricter than the service's own threshold).
    /// Unset: the service's flag alone decides.
    pub score_threshold: Option<f64>,
}

impl Default for ClassifierSettings {
    fn default() -> Self {
        Self {
            kind: ClassifierKind::None,
            base_url: String::new(),
            api_key: None,
            model: String::new(),
            timeout_ms: 3_000,
            on_error: OnError::Refuse,
            score_threshold: None,
        }
    }
}

impl ClassifierSettings {
    /// Checks what serde cannot, when a service is configured.
    pub fn validate(&self) -> Result<(), AiError> {
        let bad = |m: String| Err(AiError::BadRequest(format!("moderation.classifier: {m}")));
        if self.kind == ClassifierKind::None {
            return Ok(());
        }
        if !(self.base_url.starts_with("http://") || self.base_url.starts_with("https://")) {
            return bad(format!("base_url must start with http:// or https://, got {:?}", self.base_url));
        }
        if self.model.trim().is_empty() {
            return bad(format!("model is required when kind = {:?}", self.kind.key()));
        }
        if self.timeout_ms == 0 {
            return bad("timeout_ms must be at least 1".into());
        }
        if let Some(threshold) = self.score_threshold {
            if self.kind != ClassifierKind::Openai {
                return bad("score_threshold applies to kind = \"openai\" only (Llama Guard gives no scores)".into());
            }
            if !(threshold > 0.0 && threshold <= 1.0) {
                return bad(format!("score_threshold must be above 0 and at most 1, got {threshold}"));
            }
        }
        Ok(())
    }

    /// The time limit of one check.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// The bearer key, when one is set.
    fn key(&self) -> Option<&str> {
        self.api_key.as_deref().map(str::trim).filter(|key| !key.is_empty())
    }

    /// `{base_url}/{path}`, whether or not the base ends with a slash.
    fn endpoint(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url.trim_end_matches('/'))
    }
}

/// The classifier the settings choose, checked; `None` when `kind = "none"`. With
/// `on_error = "allow"` it answers an unanswered check with `Ok(None)` (and a warning),
/// so the caller sees `Err` only when an unanswered check is to refuse.
pub fn build(settings: &ClassifierSettings) -> Result<Option<Arc<dyn Classifier>>, AiError> {
    settings.validate()?;
    let classifier: Arc<dyn Classifier> = match settings.kind {
        ClassifierKind::None => return Ok(None),
        ClassifierKind::Openai => Arc::new(OpenAiModeration::new(settings)?),
        ClassifierKind::LlamaGuard => Arc::new(LlamaGuard::new(settings)?),
    };
    Ok(Some(match settings.on_error {
        OnError::Refuse => classifier,
        OnError::Allow => Arc::new(FailOpen { inner: classifier, kind: settings.kind }),
    }))
}

/// `on_error = "allow"`: a check that got no answer lets the text pass on the rules alone.
struct FailOpen {
    inner: Arc<dyn Classifier>,
    kind: ClassifierKind,
}

#[async_trait]
impl Classifier for FailOpen {
    async fn classify(&self, policy: Policy, text: &str) -> Result<Option<Refusal>, AiError> {
        match self.inner.classify(policy, text).await {
            Ok(verdict) => Ok(verdict),
            Err(error) => {
                tracing::warn!(
                    classifier = self.kind.key(),
                    policy = policy.code(),
                    %error,
                    "the moderation classifier did not answer; the text passes on the rules alone (on_error = allow)"
                );
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn configured(kind: ClassifierKind) -> ClassifierSettings {
        ClassifierSettings {
            kind,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            ..ClassifierSettings::default()
        }
    }

    #[test]
    fn nothing_is_built_or_checked_when_no_classifier_is_configured() {
        let settings = ClassifierSettings { base_url: "not a url".into(), ..ClassifierSettings::default() };
        assert!(settings.validate().is_ok());
        assert!(build(&settings).unwrap().is_none());
    }

    #[test]
    fn a_configured_classifier_needs_a_url_a_model_a_time_limit_and_a_sane_threshold() {
        assert!(configured(ClassifierKind::Openai).validate().is_ok());
        assert!(configured(ClassifierKind::LlamaGuard).validate().is_ok());
        let wrong = [
            ClassifierSettings { base_url: "api.openai.com/v1".into(), ..configured(ClassifierKind::Openai) },
            ClassifierSettings { model: " ".into(), ..configured(ClassifierKind::LlamaGuard) },
            ClassifierSettings { timeout_ms: 0, ..configured(ClassifierKind::Openai) },
            ClassifierSettings { score_threshold: Some(0.0), ..configured(ClassifierKind::Openai) },
            ClassifierSettings { score_threshold: Some(1.5), ..configured(ClassifierKind::Openai) },
            ClassifierSettings { score_threshold: Some(f64::NAN), ..configured(ClassifierKind::Openai) },
            ClassifierSettings { score_threshold: Some(0.5), ..configured(ClassifierKind::LlamaGuard) },
        ];
        for settings in wrong {
            assert!(matches!(build(&settings), Err(AiError::BadRequest(m)) if m.starts_with("moderation.classifier")));
        }
        assert!(
            build(&ClassifierSettings { score_threshold: Some(1.0), ..configured(ClassifierKind::Openai) })
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn endpoints_are_joined_to_the_base_with_one_slash_and_blank_keys_are_not_sent() {
        let mut settings = configured(ClassifierKind::Openai);
        settings.base_url = "https://api.openai.com/v1/".into();
        assert_eq!(settings.endpoint("moderations"), "https://api.openai.com/v1/moderations");
        settings.api_key = Some("  ".into());
        assert_eq!(settings.key(), None);
        settings.api_key = Some("sk-1".into());
        assert_eq!(settings.key(), Some("sk-1"));
    }
}
