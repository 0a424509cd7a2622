//! The telemetry repository: browser page events and error reports, kept for operators.

use amora_domain::telemetry::{ErrorReport, PageEvent};
use async_trait::async_trait;

use crate::StoreResult;

/// Browser telemetry and error reports, kept for operators.
#[async_trait]
pub trait TelemetryRepo: Send + Sync {
    async fn record_page_event(&self, event: PageEvent) -> StoreResult<()>;
    async fn record_error_report(&self, report: ErrorReport) -> StoreResult<()>;
    /// The newest error reports first; for operators and tests.
    async fn recent_error_reports(&self, limit: u32) -> StoreResult<Vec<ErrorReport>>;
    async fn recent_page_events(&self, limit: u32) -> StoreResult<Vec<PageEvent>>;
}
