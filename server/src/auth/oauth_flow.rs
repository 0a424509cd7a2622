//! The state of one Google or Discord sign-in between leaving for the provider and coming
//! back (OAuth 2.0 Security BCP, RFC 9700 §2.1, §4.7): what the browser must return with.
//!
//! - `state` sent to the provider is a fresh random flow id, not the page address, so a
//!   forged callback cannot guess it;
//! - the flow rides in an HttpOnly cookie, *signed* (HS256) with a key only the nodes
//!   know, and lives `FLOW_TTL_SECS`: it cannot be forged, and binds the callback to the
//!   browser that started it;
//! - it is *single-use across nodes*: at start a row is written to the sign-in link table
//!   (whose `consume` is atomic in both stores, a lightweight transaction on CQL) and the
//!   callback consumes it, so a replayed callback finds nothing;
//! - it carries a PKCE verifier (RFC 7636, S256) and, for Google, an ID token nonce: a code
//!   issued to another flow (the attacker's own) cannot be redeemed in this one, which
//!   closes login CSRF even for someone who learnt a victim's `state`.

use amora_domain::account::EmailAddress;
use amora_store::Store;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, encode};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{now, random_token, token_hash};
use crate::api::ApiError;
use crate::settings::OAuthSettings;

/// How long a person has at the provider's consent screen.
pub const FLOW_TTL_SECS: i64 = 600;
/// Flows are rows of the sign-in link table under this address, which no mail can reach
/// (`.invalid`, RFC 2606): a mailed link can never be consumed as a flow, nor a flow as one.
const FLOW_MARKER: &str = "oauth-flow@flows.invalid";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Flow {
    /// The `state` sent to the provider; also names the single-use row.
    pub id: String,
    /// "google" or "discord": a flow is good for the provider it started with only.
    pub provider: String,
    /// The OpenID Connect nonce the ID token must carry (Google).
    pub nonce: String,
    /// The PKCE code verifier; its S256 challenge went to the provider.
    pub verifier: String,
    /// The page to return to, made safe at the callback.
    pub page: String,
    exp: i64,
}

impl Flow {
    pub fn new(provider: &str, page: &str) -> Self {
        Self {
            id: random_token(),
            provider: provider.to_owned(),
            nonce: random_token(),
            verifier: random_token(),
            page: page.to_owned(),
            exp: now() + FLOW_TTL_SECS,
        }
    }

    /// `base64url(SHA-256(verifier))`, the `code_challenge` of method S256.
    pub fn challenge(&self) -> String {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(self.verifier.as_bytes()))
    }
}

/// The signing key: derived from the provider secrets, which every node has and no
/// browser does, so no extra setting is needed and a rotated secret voids open flows.
fn key(oauth: &OAuthSettings) -> Vec<u8> {
    let mut hasher = Sha256::new();
    for part in ["amora oauth flow v1", &oauth.google.client_secret, &oauth.discord.client_secret] {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().to_vec()
}

fn marker() -> Result<EmailAddress, ApiError> {
    EmailAddress::parse(FLOW_MARKER).map_err(|e| ApiError::Internal(format!("flow marker: {e}")))
}

fn row_key(flow_id: &str) -> String {
    token_hash(&format!("oauth-flow:{flow_id}"))
}

/// Records the flow as usable once and answers the cookie value that carries it.
pub async fn begin(store: &Store, oauth: &OAuthSettings, flow: &Flow) -> Result<String, ApiError> {
    store.sign_in_links.create(&row_key(&flow.id), &marker()?, flow.exp).await?;
    encode(&Header::new(Algorithm::HS256), flow, &EncodingKey::from_secret(&key(oauth)))
        .map_err(|e| ApiError::Internal(format!("flow cookie: {e}")))
}

/// The flow of this callback: the cookie must be ours, unexpired, of this provider and name
/// the `state` that came back; and its row must still be there, which this call uses up.
pub async fn finish(
    store: &Store,
    oauth: &OAuthSettings,
    cookie: Option<&str>,
    provider: &str,
    returned_state: &str,
) -> Result<Option<Flow>, ApiError> {
    let Some(cookie) = cookie else {
        return Ok(None);
    };
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_required_spec_claims(&["exp"]);
    validation.leeway = 0;
    let Ok(data) = decode::<Flow>(cookie, &DecodingKey::from_secret(&key(oauth)), &validation) else {
        return Ok(None);
    };
    let flow = data.claims;
    if flow.provider != provider || returned_state.is_empty() || flow.id != returned_state {
        return Ok(None);
    }
    let consumed = store.sign_in_links.consume(&row_key(&flow.id), now()).await?;
    Ok(consumed.filter(|email| email.as_str() == FLOW_MARKER).map(|_| flow))
}
