//! The operator's second factor: RFC 6238 TOTP with SHA-1, 6 digits and 30-second steps,
//! as authenticator apps expect, one step of clock skew either way (`totp-rs`).

use rand::RngCore;
use totp_rs::{Algorithm, Secret, TOTP};

const ISSUER: &str = "Amora";

/// A new secret of 160 bits (RFC 4226's recommended length), base32 as apps take it.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 20];
    rand::thread_rng().fill_bytes(&mut bytes);
    Secret::Raw(bytes.to_vec()).to_encoded().to_string()
}

fn totp(secret: &str, account: &str) -> Result<TOTP, String> {
    let bytes = Secret::Encoded(secret.to_owned()).to_bytes().map_err(|e| format!("bad TOTP secret: {e:?}"))?;
    TOTP::new(Algorithm::SHA1, 6, 1, 30, bytes, Some(ISSUER.to_owned()), account.to_owned()).map_err(|e| e.to_string())
}

/// Whether `code` is the current code of `secret` (or the step before or after).
pub fn code_matches(secret: &str, account: &str, code: &str) -> bool {
    let code = code.trim();
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    totp(secret, account).and_then(|t| t.check_current(code).map_err(|e| e.to_string())).unwrap_or(false)
}

/// The `otpauth://totp/…` address an authenticator app reads (as text or a QR code).
pub fn otpauth_uri(secret: &str, account: &str) -> Result<String, String> {
    Ok(totp(secret, account)?.get_url())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_code_matches_and_others_do_not() {
        let secret = new_secret();
        let now = totp(&secret, "op@example.com").unwrap_or_else(|e| panic!("{e}"));
        let code = now.generate_current().unwrap_or_else(|e| panic!("{e}"));
        assert!(code_matches(&secret, "op@example.com", &code));
        let wrong = format!("{:06}", (code.parse::<u32>().unwrap_or(0) + 500_000) % 1_000_000);
        assert!(!code_matches(&secret, "op@example.com", &wrong));
        assert!(!code_matches(&secret, "op@example.com", "12345"));
    }

    #[test]
    fn rfc_6238_sha1_vector_at_59_seconds() {
        // RFC 6238 appendix B: the ASCII secret "12345678901234567890", T = 59 → 94287082
        // (8 digits); its last 6 digits are what a 6-digit app shows.
        let secret = Secret::Raw(b"12345678901234567890".to_vec()).to_encoded().to_string();
        let totp = totp(&secret, "op@example.com").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(totp.generate(59), "287082");
        assert!(otpauth_uri(&secret, "op@example.com").unwrap_or_default().starts_with("otpauth://totp/"));
    }
}
