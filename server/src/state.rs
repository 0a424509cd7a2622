//! What every handler can reach: settings, the store, limiters and the sign-in services.
//! Built once at start-up.

use std::sync::Arc;

use amora_actors::Node;
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
    /// This node's actors and event bus.
    pub node: Node,
    /// Spoken character messages.
    pub voices: amora_actors::voice::Voices,
    /// Voice calls: each socket opens its call through it (issue 32).
    pub calls: amora_actors::calls::Calls,
    /// Caps open sockets on this node; each socket holds a permit.
    pub socket_permits: Arc<tokio::sync::Semaphore>,
    /// The payment routes: providers, the sandbox, the path of processors' notifications.
    pub payments: Arc<crate::payments::gateway::Gateway>,
    /// The pages the server renders for crawlers (and everyone): shell, texts, sitemap.
    pub site: Arc<crate::content::seo::Site>,
    /// The character builder's portrait previews, cached by looks.
    pub portraits: Arc<crate::creation::portrait::Previews>,
}
