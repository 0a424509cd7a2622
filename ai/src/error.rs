//! The one error type of every provider.

/// Why a model could not answer. Cancellation is not an error: a cancelled reply ends
/// with [`crate::chat::FinishReason::Cancelled`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AiError {
    /// The embedded model's waiting queue is full; try again later (HTTP 503 / retry).
    #[error("the model is busy: its queue is full")]
    QueueFull,
    /// The remote service is overloaded or rate limited (HTTP 429 or 503).
    #[error("the model service is busy: {0}")]
    Busy(String),
    /// The model cannot be reached or loaded: connection refused, time-out, missing file,
    /// the worker thread is gone.
    #[error("the model is unavailable: {0}")]
    Unavailable(String),
    /// The request or the configuration is wrong (empty conversation, prompt longer than
    /// the context window, HTTP 4xx from the service, unknown settings).
    #[error("bad request to the model: {0}")]
    BadRequest(String),
    /// Anything else: a failed tensor operation, a malformed reply from the service.
    #[error("model error: {0}")]
    Internal(String),
}

impl AiError {
    /// True when the same request may succeed later without change.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::QueueFull | Self::Busy(_) | Self::Unavailable(_))
    }
}

#[cfg(feature = "candle")]
impl From<candle_core::Error> for AiError {
    fn from(error: candle_core::Error) -> Self {
        Self::Internal(error.to_string())
    }
}
