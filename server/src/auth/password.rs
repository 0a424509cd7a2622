//! Argon2id password hashes. Hashing is deliberately slow, so it runs on the blocking pool.

use std::sync::LazyLock;

use amora_domain::account::Password;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString, rand_core::OsRng};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::api::ApiError;

/// OWASP's minimum for Argon2id: 19 MiB, 2 passes, 1 lane.
fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// A hash of nothing anyone knows, verified against when the ID does not exist so that a
/// wrong ID costs the same time as a wrong password.
static DECOY_HASH: LazyLock<String> = LazyLock::new(|| {
    let salt = SaltString::generate(&mut OsRng);
    argon2().hash_password(b"decoy password never used", &salt).map(|h| h.to_string()).unwrap_or_default()
});

pub async fn hash(password: Password) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        argon2()
            .hash_password(password.expose().as_bytes(), &salt)
            .map(|hash| hash.to_string())
            .map_err(|e| ApiError::Internal(format!("password hashing failed: {e}")))
    })
    .await
    .map_err(|e| ApiError::Internal(format!("hashing task failed: {e}")))?
}

/// True when `password` matches `stored`; with no stored hash, spends the same time and
/// answers false.
pub async fn verify(password: Password, stored: Option<String>) -> Result<bool, ApiError> {
    tokio::task::spawn_blocking(move || {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| DECOY_HASH.clone());
        let parsed =
            PasswordHash::new(&stored).map_err(|e| ApiError::Internal(format!("stored hash unreadable: {e}")))?;
        // The comparison inside verify_password is constant-time.
        let matches = argon2().verify_password(password.expose().as_bytes(), &parsed).is_ok();
        Ok(known && matches)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("verification task failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn password(text: &str) -> Password {
        Password::parse_attempt(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[tokio::test]
    async fn a_hash_verifies_its_password_only() {
        let stored = hash(password("correct horse")).await.unwrap_or_default();
        assert!(stored.starts_with("$argon2id$"));
        assert!(verify(password("correct horse"), Some(stored.clone())).await.unwrap_or(false));
        assert!(!verify(password("wrong horse"), Some(stored)).await.unwrap_or(true));
    }

    #[tokio::test]
    async fn no_stored_hash_never_verifies() {
        assert!(!verify(password("any password"), None).await.unwrap_or(true));
    }
}
