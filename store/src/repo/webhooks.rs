//! Payment notifications that failed after their signature was verified (issue 33's
//! Money desk): kept whole (route, the headers and query their provider checks, the body)
//! so that the operator can feed them back through the same path once the cause is gone.
//! A notification that was never believed is not kept.

use amora_domain::payment::PaymentRoute;
use async_trait::async_trait;

use crate::StoreResult;

/// One delivery that was verified and then could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedWebhook {
    /// Time-ordered and unique (microseconds × 1000 plus a random part), newest highest.
    pub delivery_id: i64,
    pub route: PaymentRoute,
    /// Header names in lower case, as the notification arrived (less cookies and
    /// authorization, which no processor signs).
    pub headers: Vec<(String, String)>,
    /// The raw query string, without `?`.
    pub query: String,
    pub body: Vec<u8>,
    /// Why applying it failed.
    pub error: String,
    /// Seconds since the epoch.
    pub received_at: i64,
    /// The last replay: when, whether it applied, and what it answered.
    pub replay: Option<WebhookReplay>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookReplay {
    /// Seconds since the epoch.
    pub at: i64,
    pub applied: bool,
    pub outcome: String,
}

#[async_trait]
pub trait WebhookRepo: Send + Sync {
    async fn record_failed_webhook(&self, delivery: FailedWebhook) -> StoreResult<()>;
    async fn failed_webhook(&self, delivery_id: i64) -> StoreResult<Option<FailedWebhook>>;
    /// The newest deliveries first, at most `limit`.
    async fn failed_webhooks(&self, limit: u32) -> StoreResult<Vec<FailedWebhook>>;
    /// Records a replay of the delivery (the last one stands); false when there is no such
    /// delivery.
    async fn record_webhook_replay(&self, delivery_id: i64, replay: WebhookReplay) -> StoreResult<bool>;
}
