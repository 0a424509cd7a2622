//! The operator's second factor: RFC 6238 TOTP with SHA-1, 6 digits and 30-second steps,
//! as authenticator apps expect, one step of clock skew either way (`totp-rs`); the step a
//! code matched is returned so that the caller can refuse the same code a second time.

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

/// The 30-second time step whose code `code` is at `now` (Unix seconds): the current step,
/// or the step before or after it (one step of clock skew either way), as `check` accepts.
/// The caller takes the step as used, so the same code cannot sign in twice.
pub fn matching_step(secret: &str, account: &str, code: &str, now: u64) -> Option<u64> {
    let code = code.trim();
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let totp = totp(secret, account).ok()?;
    let current = now / totp.step;
    [current.saturating_sub(1), current, current + 1]
        .into_iter()
        .find(|step| constant_time_eq(totp.generate(step * totp.step).as_bytes(), code.as_bytes()))
}

/// Compares without leaving early, so the time taken says nothing of how many digits matched.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
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
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matching_step(&secret, "op@example.com", &code, at).is_some());
        let wrong = format!("{:06}", (code.parse::<u32>().unwrap_or(0) + 500_000) % 1_000_000);
        assert!(matching_step(&secret, "op@example.com", &wrong, at).is_none());
        assert!(matching_step(&secret, "op@example.com", "12345", at).is_none());
    }

    #[test]
    fn a_code_matches_its_own_step_and_the_steps_either_side_only() {
        let secret = new_secret();
        let totp = totp(&secret, "op@example.com").unwrap_or_else(|e| panic!("{e}"));
        let now = 1_700_000_015; // step 56,666,667 begins at 1,700,000,010
        let code = totp.generate(now);
        assert_eq!(matching_step(&secret, "op@example.com", &code, now), Some(now / 30));
        // Seen 30 s later (the clock of the app behind), it is the step before.
        assert_eq!(matching_step(&secret, "op@example.com", &code, now + 30), Some(now / 30));
        assert_eq!(matching_step(&secret, "op@example.com", &code, now - 30), Some(now / 30));
        assert_eq!(matching_step(&secret, "op@example.com", &code, now + 60), None);
        assert_eq!(matching_step(&secret, "op@example.com", &code[..5], now), None);
        assert_eq!(matching_step(&secret, "op@example.com", "12345a", now), None);
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
