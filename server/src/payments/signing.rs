//! The signature primitives processors use (HMAC-SHA512, HMAC-SHA256, MD5), written out as
//! lower-case hex the way their protocols send them, and the constant-time comparison
//! every received signature goes through: a comparison that stops at the first wrong byte
//! tells an attacker, by its timing, how much of a forged signature was right.

use hmac::{Hmac, Mac};
use md5::{Digest, Md5};
use sha2::{Sha256, Sha512};
use subtle::ConstantTimeEq;

/// Bytes as lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

pub fn hmac_sha512_hex(key: &[u8], message: &[u8]) -> String {
    // HMAC takes keys of any length, so `new_from_slice` cannot fail.
    let mut mac = <Hmac<Sha512> as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    mac.update(message);
    hex(&mac.finalize().into_bytes())
}

/// HMAC-SHA256 over the concatenation of `parts` (a timestamp, a dot and a body).
pub fn hmac_sha256_hex(key: &[u8], parts: &[&[u8]]) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    for part in parts {
        mac.update(part);
    }
    hex(&mac.finalize().into_bytes())
}

pub fn md5_hex(message: &[u8]) -> String {
    hex(&Md5::digest(message))
}

/// Whether a received hex signature names `expected` (lower-case hex we computed). Case is
/// ignored, as some senders write hex in upper case; the time taken depends only on the
/// lengths, which are public.
pub fn same_hex(received: &str, expected: &str) -> bool {
    let received = received.trim().to_ascii_lowercase();
    received.len() == expected.len() && bool::from(received.as_bytes().ct_eq(expected.as_bytes()))
}

/// Whether two secrets (form tokens) are equal, in constant time for equal lengths.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// How a secret appears in `Debug` output: whether it is set, never what it is.
pub fn redacted(secret: &str) -> &'static str {
    if secret.is_empty() { "" } else { "<redacted>" }
}

/// Seconds since the epoch.
pub fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// `len` random letters and digits, for ids and form tokens.
pub fn random_token(len: usize) -> String {
    use rand::Rng;
    use rand::distributions::Alphanumeric;
    rand::thread_rng().sample_iter(&Alphanumeric).take(len).map(char::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 4231, test case 2 ("Jefe"), and RFC 1321's MD5 suite: the primitives are the
    // standard ones, so the protocol vectors in each provider test only their framing.
    #[test]
    fn the_primitives_match_their_rfc_vectors() {
        let key = b"Jefe";
        let message = b"what do ya want for nothing?";
        assert_eq!(
            hmac_sha256_hex(key, &[b"what do ya want ", b"for nothing?"]),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hmac_sha512_hex(key, message),
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        );
        assert_eq!(md5_hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
    }

    #[test]
    fn hex_signatures_compare_whole_and_ignore_case() {
        assert!(same_hex("900150983CD24FB0D6963F7D28E17F72", "900150983cd24fb0d6963f7d28e17f72"));
        assert!(!same_hex("900150983cd24fb0d6963f7d28e17f7", "900150983cd24fb0d6963f7d28e17f72"));
        assert!(!same_hex("", "900150983cd24fb0d6963f7d28e17f72"));
        assert!(!same_hex("900150983cd24fb0d6963f7d28e17f73", "900150983cd24fb0d6963f7d28e17f72"));
    }
}
