//! Signing in and staying signed in: sessions, passwords, mailed links, the bot check and
//! the Google and Discord identity providers (API.md §3, spec §2 "Login modal", §6).

pub mod accounts;
pub mod bot_check;
pub mod mail;
pub mod oauth;
pub mod oauth_flow;
pub mod password;
pub mod session;

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs() as i64)
}

/// A random URL-safe token of 32 bytes (256 bits).
pub fn random_token() -> String {
    use base64::Engine;
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The stored form of a token: hex SHA-256, so a copy of the database signs nobody in.
pub fn token_hash(token: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
