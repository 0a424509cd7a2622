//! What every handler can reach: settings, the store, limiters. Built once at start-up.

use std::sync::Arc;

use amora_store::Store;

use crate::rate_limit::AddressLimiter;
use crate::settings::Settings;

#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub store: Store,
    /// Shared by `/webError` and `/spm`.
    pub report_limiter: AddressLimiter,
}
