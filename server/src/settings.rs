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
    /// A user actor with no sockets stops after this long without activity.
    pub idle_secs: u64,
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
    /// Use `X-Forwarded-For` for the client address; only behind a trusted proxy.
    pub trust_forwarded_for: bool,
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
    /// Password sign-in attempts per ID per hour, wherever they come from.
    pub password_login_per_account_per_hour: u32,
    /// Sign-in links requested per client address per hour.
    pub sign_in_links_per_ip_per_hour: u32,
    /// Sign-in links sent to one address per hour.
    pub sign_in_links_per_email_per_hour: u32,
    /// Reports of characters or replies one account may file per hour.
    pub content_reports_per_user_per_hour: u32,
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

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
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
        if self.web.gen_voice_coin < 0 || self.web.gen_picture_coin < 0 {
            return Err(SettingsError::Invalid("web costs must not be negative".into()));
        }
        let limits = &self.limits;
        for (name, value) in [
            ("reports_per_minute", limits.reports_per_minute),
            ("password_login_per_ip_per_minute", limits.password_login_per_ip_per_minute),
            ("password_login_per_account_per_hour", limits.password_login_per_account_per_hour),
            ("sign_in_links_per_ip_per_hour", limits.sign_in_links_per_ip_per_hour),
            ("sign_in_links_per_email_per_hour", limits.sign_in_links_per_email_per_hour),
            ("content_reports_per_user_per_hour", limits.content_reports_per_user_per_hour),
        ] {
            if value == 0 {
                return Err(SettingsError::Invalid(format!("limits.{name} must be at least 1")));
            }
        }
        let accounts = &self.accounts;
        if accounts.session_ttl_secs <= 0 || accounts.sign_in_link_ttl_secs <= 0 || accounts.deletion_block_secs < 0 {
            return Err(SettingsError::Invalid("accounts durations must be positive".into()));
        }
        if self.store.kind == StoreKind::Scylla {
            self.store.scylla.to_cql().map_err(SettingsError::Invalid)?;
        }
        url::Url::parse(&self.http.public_base_url)
            .map_err(|e| SettingsError::Invalid(format!("http.public_base_url: {e}")))?;
        self.chat.model.validate().map_err(|e| SettingsError::Invalid(e.to_string()))?;
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
}
