//! The second layer of moderation (issue 27): a classifier service asked after the rules
//! of `domain::moderation` have let a text pass. It can only add refusals: when it is not
//! configured nothing is asked, and what it answers never lets through what the rules
//! refused (the caller asks it only for texts the rules passed).

use amora_domain::moderation::{Policy, Refusal};
use async_trait::async_trait;

use crate::AiError;

/// A moderation classifier: an OpenAI-compatible `/v1/moderations` endpoint, or a Llama
/// Guard model behind an OpenAI-compatible chat server.
#[async_trait]
pub trait Classifier: Send + Sync {
    /// `Ok(None)` when the service finds nothing to refuse in `text` under `policy`,
    /// `Ok(Some(refusal))` when it flags it, `Err` when it could not be asked (the caller
    /// decides, by its settings, whether an unanswered check refuses).
    async fn classify(&self, policy: Policy, text: &str) -> Result<Option<Refusal>, AiError>;
}
