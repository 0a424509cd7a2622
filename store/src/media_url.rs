//! Capability addresses of generated images (issue 28). An image's URL carries a tag only
//! the server can compute, so the address of one image (a shared one, in the public feed)
//! says nothing about any other. Image ids are time-ordered (`EntryId`): with the bare
//! `/media/img-<id>` of before, anyone could step from a feed image to its owner's
//! unshared ones by trying the ids around it.
//!
//! The URL is `/media/img-<id>-<tag>`, the tag HMAC-SHA256(key, `img-<id>`) cut to 128
//! bits, in hex. The media object itself stays `img-<id>` ([`crate::image_media_id`]), so
//! nothing stored changes. The key is 256 random bits kept in the store as the media object
//! [`KEY_ID`], which `/media/` never serves (its id has a `:`, which media URLs cannot):
//! made by the first node that starts on a store and read by every later one, so addresses
//! hold across restarts and nodes. Two nodes starting together on a new store could each
//! make one; start the first node alone.

use std::sync::OnceLock;

use amora_domain::chat::EntryId;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::{MediaObject, MediaRepo, StoreResult};

/// The media object holding the key; not a valid media URL id.
pub const KEY_ID: &str = "amora:media-url-key";
const KEY_BYTES: usize = 32;
/// 128 bits of tag: as hard to guess as a random capability of that size.
const TAG_BYTES: usize = 16;

/// One key per process: every store a process opens in production is the same store. A
/// process that mints an address before the store's key is loaded (a unit test) uses a
/// random key of its own.
static KEY: OnceLock<[u8; KEY_BYTES]> = OnceLock::new();

/// Reads the key from the store, making and keeping one if it has none; call once at
/// start-up, before any address is made.
pub async fn load_media_url_key(media: &dyn MediaRepo) -> StoreResult<()> {
    let key = match media.get(KEY_ID).await? {
        Some(object) if object.bytes.len() == KEY_BYTES => object.bytes,
        _ => {
            let fresh: [u8; KEY_BYTES] = rand::random();
            let object = MediaObject { content_type: "application/octet-stream".into(), bytes: fresh.to_vec() };
            media.put(KEY_ID, object).await?;
            // Read back: what the store holds is the key, whoever wrote it last.
            media.get(KEY_ID).await?.map(|object| object.bytes).unwrap_or_else(|| fresh.to_vec())
        }
    };
    let mut bytes = [0u8; KEY_BYTES];
    if key.len() == KEY_BYTES {
        bytes.copy_from_slice(&key);
        // Already set in this process (tests run many servers in one): the first one holds.
        let _ = KEY.set(bytes);
    }
    Ok(())
}

fn key() -> &'static [u8; KEY_BYTES] {
    KEY.get_or_init(rand::random)
}

fn tag(media_id: &str) -> Hmac<Sha256> {
    // HMAC takes a key of any length; this one cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key()).unwrap_or_else(|_| unreachable!("HMAC takes any key"));
    mac.update(media_id.as_bytes());
    mac
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// Where a generated image's bytes are served: `/media/img-<id>-<tag>`.
pub fn image_media_url(image_id: EntryId) -> String {
    let media_id = crate::image_media_id(image_id);
    let tag = tag(&media_id).finalize().into_bytes();
    format!("/media/{media_id}-{}", hex(&tag[..TAG_BYTES]))
}

/// The media object a `/media/{id}` address names: a generated image's only with its tag
/// (`None` for `img-<id>` alone or a wrong tag); any other id as it is.
pub fn media_id_for_url(url_id: &str) -> Option<String> {
    if !url_id.starts_with("img-") {
        return Some(url_id.to_owned());
    }
    let (media_id, tag_hex) = url_id.rsplit_once('-')?;
    let digits = media_id.strip_prefix("img-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || tag_hex.len() != TAG_BYTES * 2 {
        return None;
    }
    let presented = unhex(tag_hex)?;
    // Constant time: the comparison says nothing about how much of a guess was right.
    tag(media_id).verify_truncated_left(&presented).ok()?;
    Some(media_id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_names_its_image_only_with_its_tag() {
        let id = EntryId::from_raw(1_234_567);
        let url = image_media_url(id);
        let url_id = url.strip_prefix("/media/").unwrap_or_default();
        assert_eq!(media_id_for_url(url_id), Some("img-1234567".to_owned()));
        assert_eq!(media_id_for_url("img-1234567"), None, "the bare id");
        let neighbour = url_id.replace("1234567", "1234568");
        assert_eq!(media_id_for_url(&neighbour), None, "another id with this tag");
        let mut forged = url_id.to_owned();
        let last = if forged.ends_with('0') { "1" } else { "0" };
        forged.replace_range(forged.len() - 1.., last);
        assert_eq!(media_id_for_url(&forged), None, "a wrong tag");
        assert_eq!(media_id_for_url("img-1234567-abc"), None, "a short tag");
        assert_eq!(media_id_for_url("voice-0a1b"), Some("voice-0a1b".to_owned()), "other media as they are");
        assert_eq!(media_id_for_url("cp-gf-1-x"), Some("cp-gf-1-x".to_owned()));
    }
}
