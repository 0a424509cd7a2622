//! Google (OpenID Connect) and Discord (OAuth 2) sign-in by redirect (spec §6): the
//! authorisation URLs, the code exchange, and verification of who came back. Google ID
//! tokens are checked against Google's published keys: signature, audience, issuer,
//! expiry and, in the redirect flow, the nonce this browser was given.

use std::sync::Arc;
use std::time::{Duration, Instant};

use amora_domain::account::EmailAddress;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;
use tokio::sync::RwLock;
use url::Url;

use crate::api::ApiError;
use crate::auth::oauth_flow::Flow;
use crate::settings::{DiscordSettings, GoogleSettings, OAuthSettings};

/// Google rotates keys about daily; an hour keeps us current without a fetch per sign-in.
const JWKS_TTL: Duration = Duration::from_secs(3600);
const PROVIDER_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone, Default)]
pub struct IdentityProviders {
    pub google: Option<Google>,
    pub discord: Option<Discord>,
}

impl IdentityProviders {
    pub fn from_settings(settings: &OAuthSettings) -> anyhow::Result<Self> {
        let client = reqwest::Client::builder().timeout(PROVIDER_TIMEOUT).build()?;
        let google = (!settings.google.client_id.is_empty()).then(|| Google {
            settings: settings.google.clone(),
            client: client.clone(),
            keys: Arc::new(RwLock::new(None)),
        });
        let discord = (!settings.discord.client_id.is_empty())
            .then(|| Discord { settings: settings.discord.clone(), client: client.clone() });
        Ok(Self { google, discord })
    }
}

/// Who a provider says signed in.
#[derive(Debug, Clone)]
pub struct ProvenIdentity {
    pub subject: String,
    /// Present only when the provider vouches the address is verified.
    pub verified_email: Option<EmailAddress>,
    pub name: Option<String>,
}

/// A code the provider refuses (400 `invalid_grant`: used, expired, or issued to another
/// flow, as a forged callback's is) is the caller's mistake, not a fault of ours.
fn exchange_failed(provider: &str, error: reqwest::Error) -> ApiError {
    if error.status() == Some(reqwest::StatusCode::BAD_REQUEST) {
        tracing::info!(provider, "the provider refused the authorisation code");
        return ApiError::TokenInvalid;
    }
    unreachable_provider(&format!("{provider} token exchange"), error)
}

fn unreachable_provider(what: &str, error: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(format!("{what}: {error}"))
}

#[derive(Clone)]
pub struct Google {
    settings: GoogleSettings,
    client: reqwest::Client,
    keys: Arc<RwLock<Option<(Instant, JwkSet)>>>,
}

#[derive(Deserialize)]
struct GoogleClaims {
    sub: String,
    email: Option<String>,
    #[serde(default)]
    email_verified: bool,
    name: Option<String>,
    nonce: Option<String>,
}

#[derive(Deserialize)]
struct TokenAnswer {
    id_token: Option<String>,
    access_token: Option<String>,
}

impl Google {
    /// Where the browser goes: the flow's id as `state`, its nonce and its PKCE challenge.
    pub fn authorize_url(&self, redirect_uri: &str, flow: &Flow) -> Result<String, ApiError> {
        let mut url = Url::parse(&self.settings.auth_url).map_err(|e| unreachable_provider("google auth_url", e))?;
        url.query_pairs_mut()
            .append_pair("client_id", &self.settings.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("response_type", "code")
            .append_pair("scope", "openid profile email")
            .append_pair("nonce", &flow.nonce)
            .append_pair("code_challenge", &flow.challenge())
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &flow.id);
        Ok(url.into())
    }

    /// Trades the authorisation code (with the flow's PKCE verifier) for an ID token.
    pub async fn exchange_code(&self, code: &str, redirect_uri: &str, verifier: &str) -> Result<String, ApiError> {
        let form = [
            ("code", code),
            ("code_verifier", verifier),
            ("client_id", self.settings.client_id.as_str()),
            ("client_secret", self.settings.client_secret.as_str()),
            ("redirect_uri", redirect_uri),
            ("grant_type", "authorization_code"),
        ];
        let answer: TokenAnswer = self
            .client
            .post(&self.settings.token_url)
            .form(&form)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| exchange_failed("google", e))?
            .json()
            .await
            .map_err(|e| unreachable_provider("google token answer", e))?;
        answer.id_token.ok_or_else(|| ApiError::Internal("google answered without an id_token".into()))
    }

    /// Checks an ID token and returns who it names. `nonce` is required in the redirect flow.
    pub async fn verify(&self, id_token: &str, nonce: Option<&str>) -> Result<ProvenIdentity, ApiError> {
        let header = decode_header(id_token).map_err(|_| ApiError::Param("credential: not a JWT".into()))?;
        let kid = header.kid.ok_or_else(|| ApiError::Param("credential: no key id".into()))?;
        let jwk = match self.cached_key(&kid).await {
            Some(jwk) => jwk,
            None => self.refresh_keys().await?.find(&kid).cloned().ok_or(ApiError::TokenInvalid)?,
        };
        let key = DecodingKey::from_jwk(&jwk).map_err(|e| unreachable_provider("google key", e))?;
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_audience(&[&self.settings.client_id]);
        validation.set_issuer(&self.settings.issuers);
        let claims = decode::<GoogleClaims>(id_token, &key, &validation)
            .map_err(|e| {
                tracing::info!(error = %e, "google ID token refused");
                ApiError::TokenInvalid
            })?
            .claims;
        if let Some(expected) = nonce
            && claims.nonce.as_deref() != Some(expected)
        {
            tracing::info!("google ID token nonce does not match this browser's");
            return Err(ApiError::TokenInvalid);
        }
        let verified_email =
            claims.email.filter(|_| claims.email_verified).and_then(|email| EmailAddress::parse(&email).ok());
        Ok(ProvenIdentity { subject: claims.sub, verified_email, name: claims.name })
    }

    async fn cached_key(&self, kid: &str) -> Option<jsonwebtoken::jwk::Jwk> {
        let keys = self.keys.read().await;
        keys.as_ref().filter(|(fetched, _)| fetched.elapsed() < JWKS_TTL).and_then(|(_, set)| set.find(kid).cloned())
    }

    async fn refresh_keys(&self) -> Result<JwkSet, ApiError> {
        let set: JwkSet = self
            .client
            .get(&self.settings.jwks_url)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| unreachable_provider("google keys", e))?
            .json()
            .await
            .map_err(|e| unreachable_provider("google keys answer", e))?;
        *self.keys.write().await = Some((Instant::now(), set.clone()));
        Ok(set)
    }
}

#[derive(Clone)]
pub struct Discord {
    settings: DiscordSettings,
    client: reqwest::Client,
}

#[derive(Deserialize)]
struct DiscordUser {
    id: String,
    username: Option<String>,
    global_name: Option<String>,
    email: Option<String>,
    #[serde(default)]
    verified: bool,
}

impl Discord {
    /// Where the browser goes: the flow's id as `state` and its PKCE challenge (Discord
    /// supports S256), so a code minted for another flow cannot be redeemed in this one.
    pub fn authorize_url(&self, redirect_uri: &str, flow: &Flow) -> Result<String, ApiError> {
        let mut url = Url::parse(&self.settings.auth_url).map_err(|e| unreachable_provider("discord auth_url", e))?;
        url.query_pairs_mut()
            .append_pair("client_id", &self.settings.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("response_type", "code")
            .append_pair("scope", "identify email")
            .append_pair("code_challenge", &flow.challenge())
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &flow.id);
        Ok(url.into())
    }

    /// Trades the code (with the flow's PKCE verifier) for an access token and asks Discord
    /// who it belongs to.
    pub async fn identify(&self, code: &str, redirect_uri: &str, verifier: &str) -> Result<ProvenIdentity, ApiError> {
        let form = [
            ("code", code),
            ("code_verifier", verifier),
            ("client_id", self.settings.client_id.as_str()),
            ("client_secret", self.settings.client_secret.as_str()),
            ("redirect_uri", redirect_uri),
            ("grant_type", "authorization_code"),
        ];
        let answer: TokenAnswer = self
            .client
            .post(&self.settings.token_url)
            .form(&form)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| exchange_failed("discord", e))?
            .json()
            .await
            .map_err(|e| unreachable_provider("discord token answer", e))?;
        let access_token =
            answer.access_token.ok_or_else(|| ApiError::Internal("discord answered without an access_token".into()))?;
        let user: DiscordUser = self
            .client
            .get(&self.settings.user_url)
            .bearer_auth(access_token)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| unreachable_provider("discord user", e))?
            .json()
            .await
            .map_err(|e| unreachable_provider("discord user answer", e))?;
        let verified_email = user.email.filter(|_| user.verified).and_then(|email| EmailAddress::parse(&email).ok());
        Ok(ProvenIdentity { subject: user.id, verified_email, name: user.global_name.or(user.username) })
    }
}
