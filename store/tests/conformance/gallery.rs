//! Generated images: the gallery per user and per character, the characters list, sharing
//! to the public feed and deleting (with the account too).

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_store::{GalleryRecord, MediaObject, image_media_id};

use crate::{backend, user};

const DAY_MICROS: i64 = 86_400_000_000;
/// 2026-11-20, in microseconds.
const BASE_MICROS: i64 = 1_763_600_000_000_000;

fn id(micros: i64) -> EntryId {
    EntryId::new(BASE_MICROS + micros, 7)
}

fn character(id: &str) -> CharacterId {
    CharacterId::parse(id).unwrap()
}

fn image(owner: &UserId, image_id: EntryId, character_id: Option<&str>, restricted: bool) -> GalleryRecord {
    GalleryRecord {
        image_id,
        job_id: image_id,
        user_id: owner.clone(),
        character_id: character_id.map(character),
        character_name: character_id.map(|c| format!("name of {c}")),
        prompt: format!("prompt {}", image_id.raw()),
        scene: Some("beach".into()),
        outfit: None,
        pose: Some("portrait".into()),
        style: None,
        width: 512,
        height: 768,
        nsfw: restricted,
        illustration: true,
        restricted,
        feed_id: None,
    }
}

fn ids(records: &[GalleryRecord]) -> Vec<EntryId> {
    records.iter().map(|r| r.image_id).collect()
}

#[tokio::test]
async fn the_gallery_pages_newest_first_per_user_and_per_character() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    let mut all = Vec::new();
    for i in 0..7_i64 {
        let who = if i % 2 == 0 { Some("gf-001") } else { Some("gf-002") };
        let record = image(&ann, id(i * 1000), if i == 6 { None } else { who }, false);
        store.gallery.add(record.clone()).await.unwrap();
        all.push(record);
    }
    store.gallery.add(image(&bob, id(99_000), Some("gf-001"), false)).await.unwrap();

    let first = store.gallery.list(&ann, None, None, 4).await.unwrap();
    assert_eq!(first, all.iter().rev().take(4).cloned().collect::<Vec<_>>(), "whole records, newest first");
    let rest = store.gallery.list(&ann, None, first.last().map(|r| r.image_id), 4).await.unwrap();
    assert_eq!(ids(&rest), [id(2000), id(1000), id(0)]);

    let mia = store.gallery.list(&ann, Some(&character("gf-001")), None, 10).await.unwrap();
    assert_eq!(ids(&mia), [id(4000), id(2000), id(0)]);
    let older = store.gallery.list(&ann, Some(&character("gf-001")), Some(id(4000)), 1).await.unwrap();
    assert_eq!(ids(&older), [id(2000)]);

    let characters = store.gallery.characters(&ann).await.unwrap();
    let summary: Vec<_> =
        characters.iter().map(|c| (c.character_id.as_str().to_owned(), c.count, c.newest_image_id)).collect();
    assert_eq!(summary, [("gf-002".to_owned(), 3, id(5000)), ("gf-001".to_owned(), 3, id(4000))]);

    assert_eq!(store.gallery.get(&ann, id(3000)).await.unwrap(), Some(all[3].clone()));
    assert_eq!(store.gallery.get(&bob, id(3000)).await.unwrap(), None, "another user's image is not found");
}

#[tokio::test]
async fn shared_images_make_the_feed_newest_share_first_across_days() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    for i in 0..6_i64 {
        let owner = if i < 3 { &ann } else { &bob };
        store.gallery.add(image(owner, id(i), Some("gf-001"), i == 4)).await.unwrap();
    }
    // Shared over three days, not in the order they were made; one share per shard and more.
    let shares = [(0_i64, 0_i64), (3, DAY_MICROS), (1, DAY_MICROS + 5), (4, 2 * DAY_MICROS), (5, 2 * DAY_MICROS + 9)];
    for (image_index, at) in shares {
        let owner = if image_index < 3 { &ann } else { &bob };
        let shared = store.gallery.set_shared(owner, id(image_index), Some(id(at + 10_000))).await.unwrap();
        assert_eq!(shared.map(|r| r.feed_id), Some(Some(id(at + 10_000))));
    }
    let shared_again = store.gallery.set_shared(&ann, id(0), Some(id(3 * DAY_MICROS))).await.unwrap();
    assert_eq!(shared_again.and_then(|r| r.feed_id), Some(id(10_000)), "sharing again keeps the first entry");
    assert_eq!(store.gallery.set_shared(&bob, id(0), Some(id(4 * DAY_MICROS))).await.unwrap(), None, "not Bob's");

    let everyone = store.gallery.feed(None, 10, true).await.unwrap();
    let images: Vec<_> = everyone.iter().map(|e| e.image_id).collect();
    assert_eq!(images, [id(5), id(4), id(1), id(3), id(0)]);
    assert!(everyone[1].restricted);
    assert_eq!(everyone[0].character_name.as_deref(), Some("name of gf-001"));
    assert_eq!(everyone[0].prompt, format!("prompt {}", id(5).raw()));

    let safe = store.gallery.feed(None, 10, false).await.unwrap();
    assert_eq!(safe.iter().map(|e| e.image_id).collect::<Vec<_>>(), [id(5), id(1), id(3), id(0)]);

    // Paging by feed id walks back over days without repeats.
    let first = store.gallery.feed(None, 2, false).await.unwrap();
    let second = store.gallery.feed(first.last().map(|e| e.feed_id), 2, false).await.unwrap();
    let third = store.gallery.feed(second.last().map(|e| e.feed_id), 2, false).await.unwrap();
    let paged: Vec<_> = first.iter().chain(&second).chain(&third).map(|e| e.image_id).collect();
    assert_eq!(paged, [id(5), id(1), id(3), id(0)]);

    // The operator finds an entry (restricted or not) and its owner by the feed id alone.
    let restricted = store.gallery.feed_entry(everyone[1].feed_id).await.unwrap();
    assert_eq!(restricted.as_ref().map(|e| (e.image_id, &e.owner)), Some((id(4), &bob)));
    let oldest = store.gallery.feed_entry(id(10_000)).await.unwrap();
    assert_eq!(oldest.map(|e| (e.image_id, e.owner)), Some((id(0), ann.clone())));
    assert_eq!(store.gallery.feed_entry(id(10_001)).await.unwrap(), None);

    // Unsharing takes it out; the gallery row stays.
    let unshared = store.gallery.set_shared(&ann, id(1), None).await.unwrap();
    assert_eq!(unshared.map(|r| r.feed_id), Some(None));
    let after: Vec<_> = store.gallery.feed(None, 10, true).await.unwrap().iter().map(|e| e.image_id).collect();
    assert_eq!(after, [id(5), id(4), id(3), id(0)]);
    assert!(store.gallery.get(&ann, id(1)).await.unwrap().is_some());
    assert_eq!(store.gallery.feed_entry(id(DAY_MICROS + 5 + 10_000)).await.unwrap(), None, "unshared");
}

#[tokio::test]
async fn deleting_an_image_takes_it_out_of_the_gallery_the_feed_and_the_counts() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    for i in 0..3_i64 {
        store.gallery.add(image(&ann, id(i), Some("gf-001"), false)).await.unwrap();
    }
    store.gallery.set_shared(&ann, id(2), Some(id(500))).await.unwrap();
    let bytes = MediaObject { content_type: "image/png".into(), bytes: vec![1; 8] };
    store.media.put(&image_media_id(id(2)), bytes.clone()).await.unwrap();
    store.media.put(&image_media_id(id(1)), bytes).await.unwrap();
    assert!(store.gallery.delete(&ann, id(2)).await.unwrap());
    assert_eq!(store.media.get(&image_media_id(id(2))).await.unwrap(), None, "its bytes are gone");
    assert!(store.media.get(&image_media_id(id(1))).await.unwrap().is_some(), "not another's");
    assert!(!store.gallery.delete(&ann, id(2)).await.unwrap(), "gone already");
    assert_eq!(ids(&store.gallery.list(&ann, None, None, 10).await.unwrap()), [id(1), id(0)]);
    assert_eq!(ids(&store.gallery.list(&ann, Some(&character("gf-001")), None, 10).await.unwrap()), [id(1), id(0)]);
    assert!(store.gallery.feed(None, 10, true).await.unwrap().is_empty());
    let characters = store.gallery.characters(&ann).await.unwrap();
    assert_eq!(characters.iter().map(|c| (c.count, c.newest_image_id)).collect::<Vec<_>>(), [(2, id(1))]);

    store.gallery.delete(&ann, id(1)).await.unwrap();
    store.gallery.delete(&ann, id(0)).await.unwrap();
    assert!(store.gallery.characters(&ann).await.unwrap().is_empty(), "no images of the character left");
}

#[tokio::test]
async fn deleting_the_account_deletes_its_images_feed_entries_and_bytes() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    for (owner, i) in [(&ann, 0_i64), (&ann, 1), (&bob, 2)] {
        store.gallery.add(image(owner, id(i), Some("gf-001"), false)).await.unwrap();
        let bytes = MediaObject { content_type: "image/png".into(), bytes: vec![i as u8; 16] };
        store.media.put(&image_media_id(id(i)), bytes).await.unwrap();
        store.gallery.set_shared(owner, id(i), Some(id(100 + i))).await.unwrap();
    }
    assert!(store.users.delete(&ann).await.unwrap());
    assert!(store.gallery.list(&ann, None, None, 10).await.unwrap().is_empty());
    assert!(store.gallery.characters(&ann).await.unwrap().is_empty());
    assert_eq!(
        store.gallery.feed(None, 10, true).await.unwrap().iter().map(|e| e.image_id).collect::<Vec<_>>(),
        [id(2)]
    );
    assert_eq!(store.media.get(&image_media_id(id(0))).await.unwrap(), None);
    assert_eq!(store.media.get(&image_media_id(id(1))).await.unwrap(), None);
    assert!(store.media.get(&image_media_id(id(2))).await.unwrap().is_some(), "Bob's stays");
    assert_eq!(ids(&store.gallery.list(&bob, None, None, 10).await.unwrap()), [id(2)]);
}
