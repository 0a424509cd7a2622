//! Media: large objects round-trip whole (chunked on CQL), variants sit beside their
//! object, deleting removes both, and the size limit holds.

use amora_store::{MAX_MEDIA_BYTES, MEDIA_VARIANT_WIDTHS, MediaObject, StoreError};

use crate::backend;

/// Bytes that differ from chunk to chunk, so a chunk out of order or missing shows.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| ((i * 31 + i / 4099) % 251) as u8).collect()
}

fn png(bytes: Vec<u8>) -> MediaObject {
    MediaObject { content_type: "image/png".into(), bytes }
}

#[tokio::test]
async fn objects_of_every_size_round_trip_whole() {
    let (store, _guard) = backend::fresh().await;
    // Empty, small, exactly one 256 KiB chunk, one byte more, and several chunks.
    for (n, len) in [0, 1_000, 256 * 1024, 256 * 1024 + 1, 1_300_000].into_iter().enumerate() {
        let id = format!("img-{n}");
        let object = png(pattern(len));
        store.media.put(&id, object.clone()).await.unwrap();
        let back = store.media.get(&id).await.unwrap().unwrap_or_else(|| panic!("{id} is gone"));
        assert_eq!(back.content_type, "image/png");
        assert_eq!(back.bytes.len(), len, "{id}");
        assert!(back.bytes == object.bytes, "{id}: the bytes come back in order");
    }
    // Replacing a large object by a small one leaves nothing of the old one behind.
    store.media.put("img-4", png(b"small".to_vec())).await.unwrap();
    assert_eq!(store.media.get("img-4").await.unwrap(), Some(png(b"small".to_vec())));
    store.media.put("img-1", png(pattern(700_000))).await.unwrap();
    assert_eq!(store.media.get("img-1").await.unwrap().unwrap().bytes, pattern(700_000));
}

#[tokio::test]
async fn objects_over_the_limit_are_refused_and_nothing_is_kept() {
    let (store, _guard) = backend::fresh().await;
    let too_big = png(vec![7; MAX_MEDIA_BYTES + 1]);
    let refused = store.media.put("huge", too_big).await;
    assert!(matches!(refused, Err(StoreError::TooLarge(n)) if n == MAX_MEDIA_BYTES + 1), "{refused:?}");
    assert_eq!(store.media.get("huge").await.unwrap(), None);
    assert!(matches!(
        store.media.put_variant("huge", 750, png(vec![0; MAX_MEDIA_BYTES + 1])).await,
        Err(StoreError::TooLarge(_))
    ));
}

#[tokio::test]
async fn variants_are_kept_beside_their_object_and_deleted_with_it() {
    let (store, _guard) = backend::fresh().await;
    let original = png(pattern(600_000));
    store.media.put("img-1", original.clone()).await.unwrap();
    // A neighbour whose id starts the same must survive the deletion.
    store.media.put("img-10", png(b"neighbour".to_vec())).await.unwrap();
    store.media.put_variant("img-10", 320, png(b"neighbour 320".to_vec())).await.unwrap();
    for width in MEDIA_VARIANT_WIDTHS {
        assert_eq!(store.media.get_variant("img-1", width).await.unwrap(), None, "none made yet");
        let len = if width == 1080 { 300_000 } else { width as usize * 10 };
        store.media.put_variant("img-1", width, png(pattern(len))).await.unwrap();
    }
    assert_eq!(store.media.get_variant("img-1", 750).await.unwrap(), Some(png(pattern(7_500))));
    assert_eq!(store.media.get_variant("img-1", 1080).await.unwrap(), Some(png(pattern(300_000))));
    assert_eq!(store.media.get("img-1").await.unwrap(), Some(original), "the original is untouched");
    // A variant is not an object of its own under any public id.
    assert_eq!(store.media.get("img-1-w750").await.unwrap(), None);

    assert!(store.media.delete("img-1").await.unwrap());
    assert_eq!(store.media.get("img-1").await.unwrap(), None);
    for width in MEDIA_VARIANT_WIDTHS {
        assert_eq!(store.media.get_variant("img-1", width).await.unwrap(), None, "variant {width} is gone");
    }
    assert_eq!(store.media.get("img-10").await.unwrap(), Some(png(b"neighbour".to_vec())));
    assert_eq!(store.media.get_variant("img-10", 320).await.unwrap(), Some(png(b"neighbour 320".to_vec())));
    assert!(!store.media.delete("img-1").await.unwrap(), "deleting twice finds nothing");
    assert!(!store.media.delete("never-was").await.unwrap());
}
