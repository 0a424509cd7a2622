//! The bot check on sign-in links: Cloudflare Turnstile when a secret is configured, else
//! a development-only check that accepts any non-empty token (and says so at start-up and
//! in getWebConfig, so the sign-in screen can label it).

use std::net::IpAddr;

use serde::Deserialize;

use crate::api::ApiError;
use crate::settings::BotCheckSettings;

/// The token browsers send when the widget cannot run in them (spec §5).
pub const UNSUPPORTED_BROWSER_MARKER: &str = "unsupported-browser";
const MAX_TOKEN_LEN: usize = 2048;

#[derive(Clone)]
pub enum BotCheck {
    Turnstile { secret: String, verify_url: String, allow_unsupported: bool, client: reqwest::Client },
    Development,
}

#[derive(Deserialize)]
struct SiteVerify {
    success: bool,
    #[serde(default, rename = "error-codes")]
    error_codes: Vec<String>,
}

impl BotCheck {
    pub fn from_settings(settings: &BotCheckSettings) -> anyhow::Result<Self> {
        if settings.turnstile_secret.is_empty() {
            tracing::warn!("bot_check.turnstile_secret is empty: the development bot check accepts any token");
            return Ok(BotCheck::Development);
        }
        let client = reqwest::Client::builder().timeout(std::time::Duration::from_secs(10)).build()?;
        Ok(BotCheck::Turnstile {
            secret: settings.turnstile_secret.clone(),
            verify_url: settings.verify_url.clone(),
            allow_unsupported: settings.allow_unsupported_browsers,
            client,
        })
    }

    /// "turnstile" or "development", for the browser.
    pub fn mode(&self) -> &'static str {
        match self {
            BotCheck::Turnstile { .. } => "turnstile",
            BotCheck::Development => "development",
        }
    }

    pub async fn verify(&self, token: &str, client_ip: IpAddr) -> Result<(), ApiError> {
        let token = token.trim();
        if token.is_empty() || token.len() > MAX_TOKEN_LEN {
            return Err(ApiError::BotCheckFailed);
        }
        match self {
            BotCheck::Development => Ok(()),
            BotCheck::Turnstile { allow_unsupported: true, .. } if token == UNSUPPORTED_BROWSER_MARKER => Ok(()),
            BotCheck::Turnstile { secret, verify_url, client, .. } => {
                let form = [("secret", secret.as_str()), ("response", token), ("remoteip", &client_ip.to_string())];
                let answer: SiteVerify = client
                    .post(verify_url)
                    .form(&form)
                    .send()
                    .await
                    .and_then(reqwest::Response::error_for_status)
                    .map_err(|e| ApiError::Internal(format!("Turnstile unreachable: {e}")))?
                    .json()
                    .await
                    .map_err(|e| ApiError::Internal(format!("Turnstile answer unreadable: {e}")))?;
                if answer.success {
                    Ok(())
                } else {
                    tracing::info!(errors = ?answer.error_codes, "bot check refused");
                    Err(ApiError::BotCheckFailed)
                }
            }
        }
    }
}
