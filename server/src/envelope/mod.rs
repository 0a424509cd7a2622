//! The encrypted envelope of API.md §1.1: AES-256-CBC with PKCS#7 padding, the key being
//! SHA-256 of the browser's `secretKey`, a fresh random IV per message, and standard
//! Base64 of `IV ‖ ciphertext` on the wire. It keeps casual scrapers off the API; TLS and
//! the session carry confidentiality and identity.

pub mod middleware;

use aes::Aes256;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cbc::cipher::block_padding::Pkcs7;
use cbc::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use rand::RngCore;
use sha2::{Digest, Sha256};

/// The header that carries the browser's secret key on every API call.
pub const SECRET_KEY_HEADER: &str = "secretKey";
/// The browser generates 32 characters of `[A-Za-z0-9]` (API.md §1.1).
pub const SECRET_KEY_LEN: usize = 32;
const IV_LEN: usize = 16;
const BLOCK_LEN: usize = 16;

type Encryptor = cbc::Encryptor<Aes256>;
type Decryptor = cbc::Decryptor<Aes256>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("secretKey must be {SECRET_KEY_LEN} letters or digits")]
    BadSecretKey,
    #[error("requestData is not valid Base64")]
    BadBase64,
    #[error("requestData is too short or not a whole number of AES blocks")]
    BadLength,
    #[error("requestData does not decrypt with this secretKey")]
    BadPadding,
}

/// The AES-256 key derived from one browser's secret key.
#[derive(Clone)]
pub struct EnvelopeKey([u8; 32]);

impl std::fmt::Debug for EnvelopeKey {
    // The key never reaches a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EnvelopeKey(..)")
    }
}

impl EnvelopeKey {
    /// Derives the key from a `secretKey` header value.
    pub fn from_secret(secret: &str) -> Result<Self, EnvelopeError> {
        if secret.len() != SECRET_KEY_LEN || !secret.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(EnvelopeError::BadSecretKey);
        }
        Ok(Self(Sha256::digest(secret.as_bytes()).into()))
    }

    /// Encrypts `plaintext` under a fresh random IV and returns the wire text.
    pub fn encrypt(&self, plaintext: &[u8]) -> String {
        let mut iv = [0u8; IV_LEN];
        rand::thread_rng().fill_bytes(&mut iv);
        self.encrypt_with_iv(plaintext, iv)
    }

    /// Encrypts with a chosen IV; only test vectors want a fixed one.
    pub fn encrypt_with_iv(&self, plaintext: &[u8], iv: [u8; IV_LEN]) -> String {
        STANDARD.encode(self.wire_bytes(plaintext, iv))
    }

    /// A whole sealed answer, `{"responseData":"<wire text>"}`, under a fresh random IV.
    /// Written into one buffer: the Base64 alphabet needs no escaping in a JSON string, so
    /// the wire text goes between the quotes as it is (no `serde_json::Value` around it and
    /// no second copy when serialising it).
    pub fn seal_response(&self, plaintext: &[u8]) -> Vec<u8> {
        const OPEN: &str = r#"{"responseData":""#;
        const CLOSE: &str = r#""}"#;
        let mut iv = [0u8; IV_LEN];
        rand::thread_rng().fill_bytes(&mut iv);
        let wire = self.wire_bytes(plaintext, iv);
        let mut sealed = String::with_capacity(OPEN.len() + wire.len().div_ceil(3) * 4 + CLOSE.len());
        sealed.push_str(OPEN);
        STANDARD.encode_string(&wire, &mut sealed);
        sealed.push_str(CLOSE);
        sealed.into_bytes()
    }

    /// `IV ‖ ciphertext`, encrypted in place in the one buffer that is returned (the padded
    /// ciphertext is always 1 to 16 bytes longer than the plaintext).
    fn wire_bytes(&self, plaintext: &[u8], iv: [u8; IV_LEN]) -> Vec<u8> {
        let padded = (plaintext.len() / BLOCK_LEN + 1) * BLOCK_LEN;
        let mut wire = Vec::with_capacity(IV_LEN + padded);
        wire.extend_from_slice(&iv);
        wire.extend_from_slice(plaintext);
        wire.resize(IV_LEN + padded, 0);
        let encrypted = Encryptor::new(&self.0.into(), &iv.into())
            .encrypt_padded_mut::<Pkcs7>(&mut wire[IV_LEN..], plaintext.len())
            .map(<[u8]>::len);
        // The buffer was sized for the padding above, so this cannot fail; checked anyway.
        debug_assert_eq!(encrypted.ok(), Some(padded));
        wire
    }

    /// Decodes and decrypts wire text back to the plaintext bytes.
    pub fn decrypt(&self, wire: &str) -> Result<Vec<u8>, EnvelopeError> {
        let bytes = STANDARD.decode(wire.trim()).map_err(|_| EnvelopeError::BadBase64)?;
        // At least the IV and one block; CBC works on whole blocks only.
        if bytes.len() < IV_LEN + BLOCK_LEN || !(bytes.len() - IV_LEN).is_multiple_of(BLOCK_LEN) {
            return Err(EnvelopeError::BadLength);
        }
        let (iv, ciphertext) = bytes.split_at(IV_LEN);
        let iv: [u8; IV_LEN] = iv.try_into().map_err(|_| EnvelopeError::BadLength)?;
        Decryptor::new(&self.0.into(), &iv.into())
            .decrypt_padded_vec_mut::<Pkcs7>(ciphertext)
            .map_err(|_| EnvelopeError::BadPadding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "abcdefghijklmnopqrstuvwxyz012345";

    fn key() -> EnvelopeKey {
        EnvelopeKey::from_secret(SECRET).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn what_is_encrypted_decrypts_to_the_same_bytes() {
        for text in ["", "{}", "{\"pageNo\":1}", &"é".repeat(1000)] {
            let wire = key().encrypt(text.as_bytes());
            assert_eq!(key().decrypt(&wire).ok().as_deref(), Some(text.as_bytes()));
        }
    }

    #[test]
    fn every_message_gets_a_fresh_iv() {
        assert_ne!(key().encrypt(b"{}"), key().encrypt(b"{}"));
    }

    #[test]
    fn a_fixed_iv_gives_the_known_answer() {
        // Computed independently with Python's `cryptography` from API.md alone.
        let wire = key().encrypt_with_iv(b"{\"code\":200}", [7u8; 16]);
        assert_eq!(wire, "BwcHBwcHBwcHBwcHBwcHB2uUP9aBbV9ntgo105Av7JM=");
    }

    #[test]
    fn a_sealed_answer_is_the_response_data_object_and_opens() {
        for text in ["", "{\"code\":200}", &"x".repeat(4096)] {
            let sealed = key().seal_response(text.as_bytes());
            let outer: serde_json::Value = serde_json::from_slice(&sealed).unwrap_or_else(|e| panic!("{e}"));
            let wire = outer["responseData"].as_str().unwrap_or_else(|| panic!("no responseData"));
            assert_eq!(serde_json::to_vec(&serde_json::json!({ "responseData": wire })).ok(), Some(sealed.clone()));
            assert_eq!(key().decrypt(wire).ok().as_deref(), Some(text.as_bytes()));
        }
    }

    #[test]
    fn secret_keys_must_be_32_letters_or_digits() {
        assert!(EnvelopeKey::from_secret("short").is_err());
        assert!(EnvelopeKey::from_secret(&"a".repeat(33)).is_err());
        assert!(EnvelopeKey::from_secret("abcdefghijklmnopqrstuvwxyz01234!").is_err());
    }

    #[test]
    fn bad_wire_text_is_named_not_panicked_on() {
        let other = EnvelopeKey::from_secret("ZYXWVUTSRQPONMLKJIHGFEDCBA987654").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(key().decrypt("%%%not base64%%%"), Err(EnvelopeError::BadBase64));
        assert_eq!(key().decrypt("AAAA"), Err(EnvelopeError::BadLength));
        // A fixed IV keeps this deterministic: under the wrong key the padding is garbage.
        let wire = other.encrypt_with_iv(b"{\"pageNo\":1,\"pageSize\":30,\"gender\":0}", [1u8; 16]);
        assert_eq!(key().decrypt(&wire), Err(EnvelopeError::BadPadding));
    }
}
