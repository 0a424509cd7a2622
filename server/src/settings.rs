//! Configuration: `config/default.toml`, then a file named on the command line, then
//! `AMORA_<SECTION>__<KEY>` environment variables (e.g. `AMORA_HTTP__PORT=9000`). Unknown
//! keys are an error, so a typo never silently falls back to a default.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use config::{Config, Environment, File, FileFormat};
use serde::Deserialize;

/// The embedded defaults, compiled in so the binary runs from anywhere.
const DEFAULT_TOML: &str = include_str!("../../config/default.toml");
const ENV_PREFIX: &str = "AMORA_";
/// Between sections in variable names: `AMORA_STORE__DATA_DIR` is `store.data_dir`.
const ENV_SEPARATOR: &str = "__";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub http: HttpSettings,
    pub store: StoreSettings,
    pub log: LogSettings,
    pub limits: LimitSettings,
    pub web: WebSettings,
    pub catalogue: CatalogueSettings,
    pub accounts: AccountSettings,
    pub mail: MailSettings,
    pub bot_check: BotCheckSettings,
    pub oauth: OAuthSettings,
    pub realtime: RealtimeSettings,
    pub actors: ActorSettings,
    pub redis: RedisSettings,
    pub admin: AdminSettings,
    /// Chat: free message credits, reply and prompt sizes, memories, the chat model.
    pub chat: amora_actors::chat::ChatSettings,
    /// Generated images: job limits and the image model.
    pub image: amora_actors::images::ImageJobSettings,
    /// Payment routes: each processor's keys (empty = off) and the sandbox.
    pub payments: PaymentsSettings,
    /// Spoken replies: how much of a message, in what pieces, and the voice model.
    pub voice: VoiceSettings,
    /// Voice calls (issue 32): turn-taking, the idle timeout and the speech recogniser.
    pub call: CallSettings,
    /// Trust and safety (issue 27): what reports do to the public feed, and moderation's
    /// second layer (a classifier service, or none).
    pub moderation: ModerationSettings,
}

/// `[moderation]`: what moderation needs configured (issue 27). The rules themselves need
/// nothing; the second layer is a classifier service asked after them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModerationSettings {
    /// Distinct users whose reports take a feed image out of the feed until the operator
    /// restores or removes it. At least 1.
    pub feed_hide_reports: u32,
    /// `[moderation.classifier]`: an OpenAI-compatible `/v1/moderations` endpoint, a Llama
    /// Guard model behind an OpenAI-compatible chat server, or `kind = "none"`.
    #[serde(default)]
    pub classifier: amora_actors::ai::moderation::ClassifierSettings,
}

impl ModerationSettings {
    /// The configured classifier for the moderation service, `None` when the rules alone
    /// decide. Its `Err` means an unanswered check that is to refuse (`on_error`).
    pub fn classifier(
        &self,
    ) -> Result<Option<std::sync::Arc<dyn amora_actors::ai::moderation::Classifier>>, SettingsError> {
        amora_actors::ai::moderation::build(&self.classifier).map_err(|e| SettingsError::Invalid(e.to_string()))
    }
}

/// `[voice]`: spoken character messages (docs/api.md "Voice"). The price is
/// `web.gen_voice_coin`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoiceSettings {
    /// At most this many characters of a message are spoken.
    pub max_chars: usize,
    /// Parts after the first (one sentence) hold whole sentences up to this many characters.
    pub part_chars: usize,
    /// Longest one part may take to synthesise and store.
    pub timeout_secs: u64,
    /// The voice model: the embedded synthesiser or an OpenAI-compatible service.
    #[serde(default)]
    pub model: amora_actors::voice::VoiceModelSettings,
}

impl VoiceSettings {
    /// What the actors' `Voices` is started with.
    pub fn to_actors(&self, price: amora_domain::money::Coins) -> amora_actors::voice::VoiceSettings {
        let part_timeout = std::time::Duration::from_secs(self.timeout_secs);
        amora_actors::voice::VoiceSettings {
            price,
            max_chars: self.max_chars,
            part_chars: self.part_chars,
            part_timeout,
            // Every part of the longest message in turn, and some slack.
            stalled_after: part_timeout * (self.max_chars / self.part_chars.max(1) + 2) as u32,
        }
    }
}

/// `[call]`: voice calls (docs/api.md "Voice calls"). An answer costs what a chat message
/// costs plus `web.gen_voice_coin`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSettings {
    /// A call in which nobody spoke for this long ends (`callEnded` reason `idle`).
    pub idle_timeout_secs: u64,
    /// Silence after speech that ends the user's turn.
    pub silence_ms: u64,
    /// A turn longer than this is cut and recognised.
    pub max_turn_ms: u64,
    /// The speech recogniser: PocketSphinx embedded, or an OpenAI-compatible
    /// `/v1/audio/transcriptions` service.
    #[serde(default)]
    pub transcription: amora_actors::ai::transcription::TranscriptionSettings,
}

impl CallSettings {
    /// What the actors' `Calls` is started with.
    pub fn to_actors(&self) -> amora_actors::calls::CallSettings {
        amora_actors::calls::CallSettings {
            idle_timeout: std::time::Duration::from_secs(self.idle_timeout_secs),
            silence_ms: self.silence_ms,
            max_turn_ms: self.max_turn_ms,
        }
    }

    fn validate(&self) -> Result<(), String> {
        if self.idle_timeout_secs == 0 || self.silence_ms < 100 || self.max_turn_ms < 1_000 {
            return Err(
                "call.idle_timeout_secs must be at least 1, call.silence_ms at least 100 and call.max_turn_ms at least 1000"
                    .into(),
            );
        }
        self.transcription.validate().map_err(|e| format!("call.transcription: {e}"))
    }
}

/// `[payments]`: one sub-section per route, each owned by its provider's module.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaymentsSettings {
    #[serde(default)]
    pub paypal: crate::payments::paypal::PaypalSettings,
    pub nowpayments: crate::payments::nowpayments::NowPaymentsSettings,
    pub zpay: crate::payments::zpay::ZPaySettings,
    pub aiglo: crate::payments::hosted::HostedSettings,
    pub trust: crate::payments::hosted::HostedSettings,
    pub luxfin: crate::payments::hosted::HostedSettings,
    pub sandbox: crate::payments::sandbox::SandboxSettings,
}

impl PaymentsSettings {
    /// Whether any route that moves real money is configured.
    pub fn real_route_configured(&self) -> bool {
        self.paypal.is_configured()
            || self.nowpayments.is_configured()
            || self.zpay.is_configured()
            || self.aiglo.is_configured()
            || self.trust.is_configured()
            || self.luxfin.is_configured()
    }

    /// Whether the sandbox runs: `auto` while no real route is configured.
    pub fn sandbox_enabled(&self) -> bool {
        self.sandbox.is_enabled(self.real_route_configured())
    }

    /// Builds each configured provider once, so a half-configured route stops start-up
    /// with its reason instead of failing at the first payment.
    fn validate(&self) -> Result<(), String> {
        use crate::payments::{hosted::HostedProvider, nowpayments::NowPaymentsProvider, zpay::ZPayProvider};
        use amora_domain::payment::PaymentRoute;
        crate::payments::paypal::PaypalProvider::new(self.paypal.clone())
            .map_err(|e| format!("payments.paypal: {e}"))?;
        NowPaymentsProvider::from_settings(&self.nowpayments)?;
        ZPayProvider::from_settings(&self.zpay)?;
        HostedProvider::from_settings(PaymentRoute::Aiglo, &self.aiglo)?;
        HostedProvider::from_settings(PaymentRoute::Trust, &self.trust)?;
        HostedProvider::from_settings(PaymentRoute::Luxfin, &self.luxfin)?;
        if self.sandbox.checkout_ttl_secs == 0 || self.sandbox.max_checkouts == 0 {
            return Err("payments.sandbox.checkout_ttl_secs and max_checkouts must be at least 1".into());
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RealtimeSettings {
    /// The server pings every socket this often (API.md §5: 15 s).
    pub heartbeat_secs: u64,
    /// A socket that answered nothing for this long is closed (API.md §5: 45 s).
    pub client_timeout_secs: u64,
    pub max_sockets_per_user: usize,
    pub max_sockets_per_node: usize,
    /// Events queued for one socket; a socket that falls this far behind is dropped.
    pub outgoing_queue: usize,
    /// A write that cannot finish in this long means the client stopped reading.
    pub write_timeout_secs: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorSettings {
    /// User actors one node keeps at most.
    pub max_users: usize,
    /// Character actors one node keeps at most (each holds the conversations in play).
    pub max_characters: usize,
    /// A user actor with no sockets stops after this long without activity.
    pub idle_secs: u64,
    /// …and gives back what it caches (the account, plans, personas) after this long.
    pub cool_secs: u64,
    /// The process's resident memory (MiB, the model's included) past which actors give
    /// back the conversations and accounts they hold, least recently used first; 0: none.
    pub memory_budget_mib: u64,
    /// A node's lease on its pending debits (issue 28, `actors/src/pending.rs`): renewed
    /// every third of it; once it lapses another node (or the next start) settles them.
    pub lease_secs: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedisSettings {
    /// `redis://host:6379/0`; empty keeps events on this node (one-node installs).
    pub url: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminSettings {
    /// Bearer token of the operator API under `/lust/admin`; empty turns it off.
    pub token: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountSettings {
    /// How long a sign-in lasts.
    pub session_ttl_secs: i64,
    /// How long a mailed sign-in link works (once).
    pub sign_in_link_ttl_secs: i64,
    /// Accounts younger than this still do not see restricted-exposure characters.
    pub established_after_secs: i64,
    /// How long a deleted account's email may not register again.
    pub deletion_block_secs: i64,
    /// Coins every new account starts with.
    pub new_account_coins: i64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailSettings {
    /// Sender of sign-in mail.
    pub from: String,
    /// `smtp://host:port` (plain, for a local relay), `smtp://user:pass@host:587` (STARTTLS
    /// required) or `smtps://user:pass@host:465`. Empty: write `.eml` files to
    /// `<store.data_dir>/outbox/` and log the link.
    pub smtp_url: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotCheckSettings {
    /// Cloudflare Turnstile secret. Empty: a development check that accepts any token.
    pub turnstile_secret: String,
    /// Turnstile site key, handed to the browser.
    pub turnstile_site_key: String,
    pub verify_url: String,
    /// Accept the marker token sent by browsers the widget cannot run in.
    pub allow_unsupported_browsers: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthSettings {
    pub google: GoogleSettings,
    pub discord: DiscordSettings,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoogleSettings {
    /// Empty disables Google sign-in.
    pub client_id: String,
    pub client_secret: String,
    pub auth_url: String,
    pub token_url: String,
    pub jwks_url: String,
    /// Accepted `iss` values of ID tokens.
    pub issuers: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscordSettings {
    /// Empty disables Discord sign-in.
    pub client_id: String,
    pub client_secret: String,
    pub auth_url: String,
    pub token_url: String,
    pub user_url: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpSettings {
    pub host: String,
    /// 0 picks a free port (tests).
    pub port: u16,
    /// Worker threads; 0 means one per core.
    pub workers: usize,
    /// The built frontend (`frontend/dist`), relative to the working directory.
    pub static_dir: PathBuf,
    /// The address people reach the site at; links in mail are built from it.
    pub public_base_url: String,
    /// Seconds in-flight requests get to finish after SIGTERM.
    pub shutdown_timeout_secs: u64,
    /// Seconds a client has to send a request's head, and again its body (`web::request_limits`).
    pub request_timeout_secs: u64,
    /// Largest total size of a request's headers; larger ones are answered 431.
    pub max_header_bytes: usize,
    /// The proxies in front of the server (addresses or networks): `X-Forwarded-For` is
    /// read only from them, right to left, up to the first address that is not one of them.
    /// Empty: the TCP peer is the client. A TOML list, or a comma-separated string.
    #[serde(deserialize_with = "string_or_list")]
    pub trusted_proxies: Vec<String>,
    /// Origins (`https://amora.example`) whose pages may open the WebSocket; empty means
    /// the origin of `public_base_url` only. A list, or a comma-separated string.
    #[serde(deserialize_with = "string_or_list")]
    pub allowed_origins: Vec<String>,
}

/// A list given as a TOML array or as one comma-separated string (environment variables).
fn string_or_list<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(deserializer)? {
        OneOrMany::One(text) => text.split(',').map(str::trim).filter(|e| !e.is_empty()).map(str::to_owned).collect(),
        OneOrMany::Many(list) => list,
    })
}

impl HttpSettings {
    /// Whether the site is served over HTTPS, by `public_base_url`'s scheme, which URLs
    /// spell in any case (RFC 3986 §3.1: `HTTPS://` is https). Decides the cookies'
    /// `Secure` flag: a case-sensitive prefix test left it off for `HTTPS://…`.
    pub fn served_over_https(&self) -> bool {
        url::Url::parse(self.public_base_url.trim()).is_ok_and(|url| url.scheme() == "https")
    }

    /// Whether a page of `origin` (an `Origin` header) may open the WebSocket: one of
    /// `socket_origins`; and, while the site itself is on loopback (development: `localhost`
    /// or `127.0.0.1`, the Vite dev server on another port) with no list configured, any
    /// loopback origin, since only the developer's own machine can serve one.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        if self.socket_origins().unwrap_or_default().iter().any(|allowed| allowed == origin) {
            return true;
        }
        let is_loopback = |url: &url::Url| match url.host() {
            Some(url::Host::Domain(name)) => name == "localhost",
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        };
        let site_is_local = url::Url::parse(&self.public_base_url).is_ok_and(|url| is_loopback(&url));
        self.allowed_origins.is_empty()
            && site_is_local
            && url::Url::parse(origin).is_ok_and(|url| matches!(url.scheme(), "http" | "https") && is_loopback(&url))
    }

    /// The origins allowed to open sockets, serialised as browsers send them in `Origin`.
    pub fn socket_origins(&self) -> Result<Vec<String>, String> {
        let configured: Vec<&str> = if self.allowed_origins.is_empty() {
            vec![self.public_base_url.as_str()]
        } else {
            self.allowed_origins.iter().map(String::as_str).collect()
        };
        configured
            .into_iter()
            .map(|text| match url::Url::parse(text).map(|url| url.origin()) {
                Ok(origin) if origin.is_tuple() => Ok(origin.ascii_serialization()),
                _ => Err(format!("{text:?} is not an origin like https://amora.example")),
            })
            .collect()
    }

    /// `trusted_proxies`, parsed (validated at load, so this cannot fail afterwards).
    pub fn trusted_proxies(&self) -> Result<crate::client_address::TrustedProxies, String> {
        crate::client_address::TrustedProxies::parse_all(self.trusted_proxies.iter().map(String::as_str))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreKind {
    Embedded,
    /// ScyllaDB (or Apache Cassandra 5) over CQL, as `[store.scylla]` says.
    Scylla,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSettings {
    pub kind: StoreKind,
    /// The embedded store's folder; also where the outbox of sign-in mail is written.
    pub data_dir: PathBuf,
    pub scylla: ScyllaSettings,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScyllaSettings {
    /// Contact points, `host:port` separated by commas; the driver discovers the rest.
    pub nodes: String,
    pub keyspace: String,
    /// The keyspace's replication map in CQL, used when the server creates it.
    pub replication: String,
    /// ScyllaDB only: `on` or `off` sets the keyspace's tablets option, `default` leaves it.
    pub tablets: String,
    /// For reads and writes, e.g. `LOCAL_QUORUM`.
    pub consistency: String,
    /// For lightweight transactions: `SERIAL` or `LOCAL_SERIAL`.
    pub serial_consistency: String,
    pub request_timeout_ms: u64,
}

impl ScyllaSettings {
    /// The store's settings, or what is wrong with these.
    pub fn to_cql(&self) -> Result<amora_store::cql::CqlSettings, String> {
        use amora_store::cql::{parse_consistency, parse_serial_consistency};
        let nodes: Vec<String> =
            self.nodes.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned).collect();
        if nodes.is_empty() {
            return Err("store.scylla.nodes names no node".into());
        }
        let tablets = match self.tablets.as_str() {
            "default" => None,
            "on" => Some(true),
            "off" => Some(false),
            other => return Err(format!("store.scylla.tablets must be on, off or default, got {other:?}")),
        };
        let consistency = parse_consistency(&self.consistency)
            .ok_or_else(|| format!("store.scylla.consistency: unknown level {:?}", self.consistency))?;
        let serial_consistency = parse_serial_consistency(&self.serial_consistency)
            .ok_or_else(|| format!("store.scylla.serial_consistency: unknown level {:?}", self.serial_consistency))?;
        if self.request_timeout_ms == 0 {
            return Err("store.scylla.request_timeout_ms must be at least 1".into());
        }
        Ok(amora_store::cql::CqlSettings {
            nodes,
            keyspace: self.keyspace.clone(),
            replication: self.replication.clone(),
            tablets,
            consistency,
            serial_consistency,
            request_timeout: std::time::Duration::from_millis(self.request_timeout_ms),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Pretty,
    Json,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSettings {
    pub format: LogFormat,
    /// A `tracing` filter, e.g. `info,amora_server=debug`; `RUST_LOG` wins when set.
    pub filter: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitSettings {
    /// `/webError` and `/spm` calls allowed per client address per minute.
    pub reports_per_minute: u32,
    /// Password sign-in attempts per client address per minute.
    pub password_login_per_ip_per_minute: u32,
    /// Wrong passwords one address may send for one ID before it must wait.
    pub password_login_free_failures: u32,
    /// The first wait (seconds) after those; each further wrong password doubles it.
    pub password_login_first_delay_secs: u64,
    /// The longest wait (seconds) one address is made to keep for one ID.
    pub password_login_max_delay_secs: u64,
    /// Sign-in links requested per client address per hour.
    pub sign_in_links_per_ip_per_hour: u32,
    /// Sign-in links sent to one address per hour.
    pub sign_in_links_per_email_per_hour: u32,
    /// Reports of characters or replies one account may file per hour.
    pub content_reports_per_user_per_hour: u32,
    /// The character builder's portrait previews per client address per minute.
    pub portrait_previews_per_minute: u32,
    /// `importCard` calls one account may make per minute (refused ones count).
    pub card_imports_per_user_per_minute: u32,
    /// Characters one account may have (created and imported, every status).
    pub characters_per_user: u32,
    /// Chat sends (`chatSend`, `chatRegenerate`, `chatContinue`) one account may have
    /// refused (busy, model busy, no credit...) in a minute; past it, its sends are
    /// answered `rateLimited` for the rest of that minute without reaching the engine.
    pub refused_sends_per_user_per_minute: u32,
    /// The same per client address, all its accounts together.
    pub refused_sends_per_ip_per_minute: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSettings {
    /// Coins a voice generation costs (integer units; the UI divides by 10).
    pub gen_voice_coin: i64,
    /// Coins an image generation costs.
    pub gen_picture_coin: i64,
    pub android_download_url: Option<String>,
    pub social: SocialLinks,
}

/// What the node charges for a voice clip and for one image, as `web.gen_voice_coin` and
/// `web.gen_picture_coin` (config/default.toml holds the one table of prices) say.
pub struct Prices {
    pub voice_clip: amora_domain::money::Coins,
    pub image: amora_domain::money::Coins,
}

impl WebSettings {
    /// The prices, each checked by `Coins::price` (0 to `Coins::MAX_CHANGE`).
    pub fn prices(&self) -> Result<Prices, SettingsError> {
        let price = |name: &str, units: i64| {
            amora_domain::money::Coins::price(units).map_err(|e| SettingsError::Invalid(format!("web.{name}: {e}")))
        };
        Ok(Prices {
            voice_clip: price("gen_voice_coin", self.gen_voice_coin)?,
            image: price("gen_picture_coin", self.gen_picture_coin)?,
        })
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct SocialLinks {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discord: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twitter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub youtube: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiktok: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reddit: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogueSettings {
    pub currency: String,
    pub plans: Vec<PlanSettings>,
    pub coin_packages: Vec<CoinPackageSettings>,
}

impl CatalogueSettings {
    /// The price list the node's billing sells from (validated at load: every product once).
    pub fn to_catalogue(&self) -> Result<amora_actors::payments::Catalogue, SettingsError> {
        use amora_actors::payments::{Catalogue, Offer};
        use amora_domain::money::Coins;
        use amora_domain::payment::{Currency, Money, ProductId};
        let invalid = |what: String| SettingsError::Invalid(format!("catalogue: {what}"));
        let currency = Currency::parse(&self.currency).map_err(|e| invalid(e.to_string()))?;
        let money = |cents: u64| Money::new(cents, currency.clone());
        let mut offers = Vec::new();
        for plan in &self.plans {
            let product = ProductId::parse(&plan.product_id).map_err(|e| invalid(e.to_string()))?;
            offers.push(Offer {
                product,
                price: money(plan.price_cents),
                original_price: money(plan.original_price_cents),
                coins: Coins::change(plan.coins_per_period).map_err(|e| invalid(format!("{product}: {e}")))?,
                first_subscription_discount: plan.first_subscription_discount,
            });
        }
        for package in &self.coin_packages {
            let product = ProductId::parse(&package.product_id).map_err(|e| invalid(e.to_string()))?;
            offers.push(Offer {
                product,
                price: money(package.price_cents),
                original_price: money(package.price_cents),
                coins: Coins::change(package.coins).map_err(|e| invalid(format!("{product}: {e}")))?,
                first_subscription_discount: 0,
            });
        }
        Ok(Catalogue::new(offers))
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanSettings {
    pub product_id: String,
    pub price_cents: u64,
    pub original_price_cents: u64,
    pub coins_per_period: i64,
    /// Percent off the first period, e.g. 70.
    pub first_subscription_discount: u8,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoinPackageSettings {
    pub product_id: String,
    pub coins: i64,
    pub price_cents: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("configuration: {0}")]
    Invalid(String),
}

impl Settings {
    /// Loads the defaults, `file` if given, and the process environment.
    pub fn load(file: Option<&Path>) -> Result<Self, SettingsError> {
        Self::load_from(file, std::env::vars())
    }

    /// Like `load`, with the environment given (tests pass their own).
    pub fn load_from(
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self, SettingsError> {
        let mut builder = Config::builder().add_source(File::from_str(DEFAULT_TOML, FileFormat::Toml));
        if let Some(path) = file {
            builder = builder.add_source(File::from(path).format(FileFormat::Toml).required(true));
        }
        // Only `AMORA_<SECTION>__<KEY>` names are configuration; other AMORA_ variables
        // (a test harness's, say) are not ours to reject.
        let overrides: HashMap<String, String> = env
            .into_iter()
            .filter(|(name, _)| name.starts_with(ENV_PREFIX) && name[ENV_PREFIX.len()..].contains(ENV_SEPARATOR))
            .collect();
        let environment = Environment::with_prefix("AMORA")
            .prefix_separator("_")
            .separator(ENV_SEPARATOR)
            .try_parsing(true)
            .source(Some(overrides));
        let settings: Settings = builder
            .add_source(environment)
            .build()
            .and_then(Config::try_deserialize)
            .map_err(|e| SettingsError::Invalid(e.to_string()))?;
        settings.validate()?;
        Ok(settings)
    }

    fn validate(&self) -> Result<(), SettingsError> {
        let expect_ids = |found: Vec<&str>, wanted: &[&str], what: &str| {
            let mut found = found;
            found.sort_unstable();
            if found != wanted {
                return Err(SettingsError::Invalid(format!("{what} must be exactly {wanted:?}, got {found:?}")));
            }
            Ok(())
        };
        expect_ids(
            self.catalogue.plans.iter().map(|p| p.product_id.as_str()).collect(),
            &["month_1", "quarter_1", "year_1"],
            "catalogue.plans product ids",
        )?;
        expect_ids(
            self.catalogue.coin_packages.iter().map(|p| p.product_id.as_str()).collect(),
            &["coin_1", "coin_2", "coin_3", "coin_4", "coin_5", "coin_6"],
            "catalogue.coin_packages product ids",
        )?;
        self.catalogue.to_catalogue()?;
        self.web.prices()?;
        let limits = &self.limits;
        for (name, value) in [
            ("reports_per_minute", limits.reports_per_minute),
            ("password_login_per_ip_per_minute", limits.password_login_per_ip_per_minute),
            ("password_login_free_failures", limits.password_login_free_failures),
            ("sign_in_links_per_ip_per_hour", limits.sign_in_links_per_ip_per_hour),
            ("sign_in_links_per_email_per_hour", limits.sign_in_links_per_email_per_hour),
            ("content_reports_per_user_per_hour", limits.content_reports_per_user_per_hour),
            ("portrait_previews_per_minute", limits.portrait_previews_per_minute),
            ("card_imports_per_user_per_minute", limits.card_imports_per_user_per_minute),
            ("characters_per_user", limits.characters_per_user),
            ("refused_sends_per_user_per_minute", limits.refused_sends_per_user_per_minute),
            ("refused_sends_per_ip_per_minute", limits.refused_sends_per_ip_per_minute),
        ] {
            if value == 0 {
                return Err(SettingsError::Invalid(format!("limits.{name} must be at least 1")));
            }
        }
        if self.moderation.feed_hide_reports == 0 {
            // Zero would hide every image no one reported.
            return Err(SettingsError::Invalid("moderation.feed_hide_reports must be at least 1".into()));
        }
        if limits.password_login_first_delay_secs == 0
            || limits.password_login_max_delay_secs < limits.password_login_first_delay_secs
        {
            return Err(SettingsError::Invalid(
                "limits.password_login_first_delay_secs must be at least 1 and at most password_login_max_delay_secs"
                    .into(),
            ));
        }
        let accounts = &self.accounts;
        if accounts.session_ttl_secs <= 0 || accounts.sign_in_link_ttl_secs <= 0 || accounts.deletion_block_secs < 0 {
            return Err(SettingsError::Invalid("accounts durations must be positive".into()));
        }
        if self.store.kind == StoreKind::Scylla {
            self.store.scylla.to_cql().map_err(SettingsError::Invalid)?;
        }
        if self.http.request_timeout_secs == 0 || self.http.max_header_bytes < 1024 {
            return Err(SettingsError::Invalid(
                "http.request_timeout_secs must be at least 1 and http.max_header_bytes at least 1024".into(),
            ));
        }
        self.http.socket_origins().map_err(|e| SettingsError::Invalid(format!("http.allowed_origins: {e}")))?;
        self.http.trusted_proxies().map_err(|e| SettingsError::Invalid(format!("http.trusted_proxies: {e}")))?;
        url::Url::parse(&self.http.public_base_url)
            .map_err(|e| SettingsError::Invalid(format!("http.public_base_url: {e}")))?;
        self.chat.model.validate().map_err(|e| SettingsError::Invalid(e.to_string()))?;
        self.payments.validate().map_err(SettingsError::Invalid)?;
        let voice = &self.voice;
        if voice.max_chars == 0 || voice.part_chars < 40 || voice.timeout_secs == 0 {
            return Err(SettingsError::Invalid(
                "voice.max_chars and voice.timeout_secs must be at least 1 and voice.part_chars at least 40".into(),
            ));
        }
        voice.model.validate().map_err(|e| SettingsError::Invalid(e.to_string()))?;
        self.call.validate().map_err(SettingsError::Invalid)?;
        self.moderation.classifier.validate().map_err(|e| SettingsError::Invalid(e.to_string()))?;
        if self.chat.max_reply_tokens == 0 || self.chat.history_budget_tokens < 64 {
            return Err(SettingsError::Invalid(
                "chat.max_reply_tokens must be at least 1 and chat.history_budget_tokens at least 64".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn prices_are_checked_when_the_settings_are_read() {
        let settings = Settings::load_from(None, env(&[])).unwrap_or_else(|e| panic!("{e}"));
        let prices = settings.web.prices().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((prices.voice_clip.units(), prices.image.units()), (2, 20), "config/default.toml's table");
        let free =
            Settings::load_from(None, env(&[("AMORA_WEB__GEN_VOICE_COIN", "0")])).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(free.web.prices().map(|p| p.voice_clip.units()).ok(), Some(0), "a free voice is a price");
        for (key, value) in [("AMORA_WEB__GEN_VOICE_COIN", "-1"), ("AMORA_WEB__GEN_PICTURE_COIN", "1000000001")] {
            let refused = Settings::load_from(None, env(&[(key, value)])).map(|_| ()).err().map(|e| e.to_string());
            assert!(refused.as_deref().is_some_and(|e| e.contains("web.gen_")), "{key}={value}: {refused:?}");
        }
    }

    #[test]
    fn the_defaults_run_everything_embedded_on_8080() {
        let settings = Settings::load_from(None, env(&[])).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(settings.http.port, 8080);
        assert_eq!(settings.store.kind, StoreKind::Embedded);
        assert_eq!(settings.web.gen_voice_coin, 2);
        assert_eq!(settings.web.gen_picture_coin, 20);
    }

    #[test]
    fn environment_variables_override_nested_keys() {
        let settings = Settings::load_from(
            None,
            env(&[("AMORA_HTTP__PORT", "9123"), ("AMORA_STORE__DATA_DIR", "/tmp/x"), ("AMORA_BIN", "ignored")]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(settings.http.port, 9123);
        assert_eq!(settings.store.data_dir, PathBuf::from("/tmp/x"));
    }

    #[test]
    fn trusted_proxies_come_as_a_list_or_a_comma_separated_string() {
        let from_env = Settings::load_from(None, env(&[("AMORA_HTTP__TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.1")]))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(from_env.http.trusted_proxies, ["10.0.0.0/8", "192.0.2.1"]);
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("proxies.toml");
        std::fs::write(&path, "[http]\ntrusted_proxies = [\"::1\", \"172.16.0.0/12\"]\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let from_file = Settings::load_from(Some(&path), env(&[])).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(from_file.http.trusted_proxies, ["::1", "172.16.0.0/12"]);
        assert!(Settings::load_from(None, env(&[("AMORA_HTTP__TRUSTED_PROXIES", "proxy.local")])).is_err());
    }

    #[test]
    fn sockets_open_from_the_sites_origin_and_on_a_local_install_from_loopback() {
        let settings = |base: &str, allowed: &str| {
            let env = env(&[("AMORA_HTTP__PUBLIC_BASE_URL", base), ("AMORA_HTTP__ALLOWED_ORIGINS", allowed)]);
            Settings::load_from(None, env).unwrap_or_else(|e| panic!("{e}")).http
        };
        let public = settings("https://amora.example/", "");
        assert!(public.origin_allowed("https://amora.example"));
        assert!(!public.origin_allowed("http://localhost:5173"));
        assert!(!public.origin_allowed("https://amora.example.evil.example"));
        let local = settings("http://localhost:8080", "");
        assert!(local.origin_allowed("http://127.0.0.1:8080"));
        assert!(local.origin_allowed("http://localhost:5173"));
        assert!(!local.origin_allowed("http://evil.example"));
        let listed = settings("http://localhost:8080", "https://app.example");
        assert!(listed.origin_allowed("https://app.example"));
        assert!(!listed.origin_allowed("http://localhost:5173"), "a list is exact");
    }

    #[test]
    fn payment_routes_are_off_by_default_and_the_sandbox_runs_until_one_is_configured() {
        let defaults = Settings::load_from(None, env(&[])).unwrap_or_else(|e| panic!("{e}"));
        assert!(!defaults.payments.real_route_configured());
        assert!(defaults.payments.sandbox_enabled());
        let with_zpay = Settings::load_from(
            None,
            env(&[("AMORA_PAYMENTS__ZPAY__PID", "1001"), ("AMORA_PAYMENTS__ZPAY__KEY", "merchant-key")]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(with_zpay.payments.real_route_configured() && !with_zpay.payments.sandbox_enabled());
        let explicit = Settings::load_from(
            None,
            env(&[
                ("AMORA_PAYMENTS__AIGLO__SECRET", "s"),
                ("AMORA_PAYMENTS__AIGLO__MERCHANT_ID", "m"),
                ("AMORA_PAYMENTS__AIGLO__BASE_URL", "https://bridge.example"),
                ("AMORA_PAYMENTS__SANDBOX__ENABLED", "on"),
            ]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(explicit.payments.sandbox_enabled());
    }

    #[test]
    fn a_half_configured_payment_route_stops_start_up() {
        let error = Settings::load_from(None, env(&[("AMORA_PAYMENTS__NOWPAYMENTS__API_KEY", "k")])).err();
        assert!(error.is_some_and(|e| e.to_string().contains("ipn_secret")));
        let error = Settings::load_from(None, env(&[("AMORA_PAYMENTS__TRUST__SECRET", "s")])).err();
        assert!(error.is_some_and(|e| e.to_string().contains("payments.trust.merchant_id")));
    }

    #[test]
    fn the_moderation_classifier_is_off_by_default_and_configured_from_the_environment() {
        use amora_actors::ai::moderation::{ClassifierKind, OnError};
        let defaults = Settings::load_from(None, env(&[])).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(defaults.moderation.classifier.kind, ClassifierKind::None);
        assert_eq!(defaults.moderation.classifier.on_error, OnError::Refuse);
        assert_eq!(defaults.moderation.classifier.timeout_ms, 3000);
        assert!(defaults.moderation.classifier().unwrap_or_else(|e| panic!("{e}")).is_none());
        let guard = Settings::load_from(
            None,
            env(&[
                ("AMORA_MODERATION__CLASSIFIER__KIND", "llama_guard"),
                ("AMORA_MODERATION__CLASSIFIER__BASE_URL", "http://127.0.0.1:8082/v1"),
                ("AMORA_MODERATION__CLASSIFIER__MODEL", "llama-guard3:8b"),
                ("AMORA_MODERATION__CLASSIFIER__ON_ERROR", "allow"),
            ]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(guard.moderation.classifier.kind, ClassifierKind::LlamaGuard);
        assert_eq!(guard.moderation.classifier.on_error, OnError::Allow);
        assert!(guard.moderation.classifier().unwrap_or_else(|e| panic!("{e}")).is_some());
        let openai = Settings::load_from(
            None,
            env(&[
                ("AMORA_MODERATION__CLASSIFIER__KIND", "openai"),
                ("AMORA_MODERATION__CLASSIFIER__BASE_URL", "https://api.openai.com/v1"),
                ("AMORA_MODERATION__CLASSIFIER__MODEL", "omni-moderation-latest"),
                ("AMORA_MODERATION__CLASSIFIER__API_KEY", "sk-test"),
                ("AMORA_MODERATION__CLASSIFIER__SCORE_THRESHOLD", "0.3"),
            ]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(openai.moderation.classifier.score_threshold, Some(0.3));
        assert_eq!(openai.moderation.classifier.api_key.as_deref(), Some("sk-test"));
    }

    #[test]
    fn a_misconfigured_moderation_classifier_stops_start_up() {
        let error = Settings::load_from(None, env(&[("AMORA_MODERATION__CLASSIFIER__KIND", "openai")])).err();
        assert!(error.is_some_and(|e| e.to_string().contains("moderation.classifier: base_url")));
        let error = Settings::load_from(None, env(&[("AMORA_MODERATION__CLASSIFIER__KIND", "perspective")])).err();
        assert!(error.is_some_and(|e| e.to_string().contains("perspective")));
        let error = Settings::load_from(None, env(&[("AMORA_MODERATION__CLASSIFIER__URL", "http://x/v1")])).err();
        assert!(error.is_some_and(|e| e.to_string().contains("url")));
    }

    #[test]
    fn an_unknown_key_is_an_error() {
        let error = Settings::load_from(None, env(&[("AMORA_HTTP__PROT", "1")])).err();
        assert!(error.is_some_and(|e| e.to_string().contains("prot")));
    }

    #[test]
    fn an_unknown_key_in_a_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("extra.toml");
        std::fs::write(&path, "[store]\ndata_dri = \"x\"\n").unwrap_or_else(|e| panic!("{e}"));
        assert!(Settings::load_from(Some(&path), env(&[])).is_err());
    }

    #[test]
    fn https_is_recognised_in_any_case() {
        let with = |base: &str| {
            Settings::load_from(None, env(&[("AMORA_HTTP__PUBLIC_BASE_URL", base)]))
                .unwrap_or_else(|e| panic!("{e}"))
                .http
                .served_over_https()
        };
        assert!(with("https://amora.example"));
        assert!(with("HTTPS://Amora.Example"));
        assert!(with("Https://amora.example/"));
        assert!(!with("http://localhost:8080"));
        assert!(!with("HTTP://amora.example"));
        // A scheme that only starts with "https" is no origin at all: refused at start.
        assert!(Settings::load_from(None, env(&[("AMORA_HTTP__PUBLIC_BASE_URL", "httpsx://amora.example")])).is_err());
    }
}
