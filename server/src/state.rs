//! What every handler can reach: settings, the store, limiters and the sign-in services.
//! Built once at start-up.

use std::sync::Arc;

use amora_store::Store;

use crate::auth::bot_check::BotCheck;
use crate::auth::mail::Mailer;
use crate::auth::oauth::IdentityProviders;
use crate::rate_limit::Limiters;
use crate::settings::Settings;

#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub store: Store,
    pub limits: Limiters,
    pub mailer: Mailer,
    pub bot_check: BotCheck,
    pub identity: IdentityProviders,
}
