//! Reports of feed images and holds (issue 27): distinct reporters counted once each, a
//! held image out of every feed page until restored (shared again or not), the operator's
//! listing with its filters, and reports and holds gone with the image or its owner.

use amora_domain::account::UserId;
use amora_domain::chat::EntryId;
use amora_domain::report::ReportReason;
use amora_store::{FeedFilter, FeedReport, GalleryRecord};

use crate::{backend, user};

/// 2026-11-20, in microseconds.
const BASE_MICROS: i64 = 1_763_600_000_000_000;
const DAY_MICROS: i64 = 86_400_000_000;

fn id(micros: i64) -> EntryId {
    EntryId::new(BASE_MICROS + micros, 3)
}

fn image(owner: &UserId, image_id: EntryId, restricted: bool) -> GalleryRecord {
    GalleryRecord {
        image_id,
        job_id: image_id,
        user_id: owner.clone(),
        character_id: None,
        character_name: None,
        prompt: format!("prompt {}", image_id.raw()),
        scene: None,
        outfit: None,
        pose: None,
        style: None,
        width: 512,
        height: 768,
        nsfw: restricted,
        illustration: true,
        restricted,
        feed_id: None,
    }
}

fn report(owner: &UserId, image_id: EntryId, reporter: &UserId, note: &str) -> FeedReport {
    FeedReport {
        report_id: EntryId::new(BASE_MICROS + 500, 1),
        owner: owner.clone(),
        image_id,
        reporter_id: reporter.clone(),
        reason: ReportReason::Minor,
        note: note.to_owned(),
        created_at: 1_763_600_000,
    }
}

/// The image ids of a public feed page (restricted ones included).
async fn feed(store: &amora_store::Store) -> Vec<EntryId> {
    store.gallery.feed(None, 50, true).await.unwrap().iter().map(|e| e.image_id).collect()
}

#[tokio::test]
async fn distinct_reporters_are_counted_and_a_held_image_leaves_the_feed_until_restored() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let reporters = [user(&store, 2).await, user(&store, 3).await, user(&store, 4).await];
    // Three shared images on two days, one of them restricted.
    let (a, b, c) = (id(0), id(1_000), id(DAY_MICROS));
    for (n, image_id) in [a, b, c].into_iter().enumerate() {
        store.gallery.add(image(&ann, image_id, n == 1)).await.unwrap();
        store.gallery.set_shared(&ann, image_id, Some(id(2 * DAY_MICROS + n as i64 * 10))).await.unwrap();
    }
    assert_eq!(feed(&store).await, [c, b, a]);

    let reports = &store.feed_moderation;
    assert_eq!(reports.report(report(&ann, b, &reporters[0], "first")).await.unwrap(), 1);
    assert_eq!(reports.report(report(&ann, b, &reporters[0], "again")).await.unwrap(), 1, "the same reporter once");
    assert_eq!(reports.report(report(&ann, b, &reporters[1], "")).await.unwrap(), 2);
    assert_eq!(reports.report(report(&ann, a, &reporters[2], "")).await.unwrap(), 1, "per image");
    assert_eq!(feed(&store).await, [c, b, a], "reports alone hide nothing");
    assert!(!reports.is_hidden(&ann, b).await.unwrap());

    reports.hide(&ann, b, 1_763_700_000).await.unwrap();
    reports.hide(&ann, b, 1_763_800_000).await.unwrap();
    assert!(reports.is_hidden(&ann, b).await.unwrap());
    assert_eq!(feed(&store).await, [c, a], "held: out of the feed");
    assert_eq!(
        store.gallery.feed(None, 1, true).await.unwrap().iter().map(|e| e.image_id).collect::<Vec<_>>(),
        [c],
        "and of every page"
    );
    let second = store.gallery.feed(Some(store.gallery.feed(None, 1, true).await.unwrap()[0].feed_id), 1, true);
    assert_eq!(second.await.unwrap().iter().map(|e| e.image_id).collect::<Vec<_>>(), [a]);
    // The operator still finds its entry by id.
    let shared_b = store.gallery.get(&ann, b).await.unwrap().unwrap().feed_id.unwrap();
    assert_eq!(store.gallery.feed_entry(shared_b).await.unwrap().unwrap().image_id, b);

    // Taking it out of the feed and sharing it again does not shed the hold.
    store.gallery.set_shared(&ann, b, None).await.unwrap();
    store.gallery.set_shared(&ann, b, Some(id(3 * DAY_MICROS))).await.unwrap();
    assert_eq!(feed(&store).await, [c, a], "shared again, still held");
    assert!(reports.is_hidden(&ann, b).await.unwrap());

    // The operator's listing: everything, the flagged ones, the hidden ones.
    let all = reports.list(None, 10, FeedFilter::All).await.unwrap();
    let summary: Vec<_> = all.iter().map(|m| (m.entry.image_id, m.reports, m.hidden_at)).collect();
    assert_eq!(summary, [(b, 2, Some(1_763_700_000)), (c, 0, None), (a, 1, None)], "newest share first");
    assert_eq!(all[0].entry.owner, ann);
    assert_eq!(all[0].entry.prompt, format!("prompt {}", b.raw()));
    let flagged = reports.list(None, 10, FeedFilter::Flagged).await.unwrap();
    assert_eq!(flagged.iter().map(|m| m.entry.image_id).collect::<Vec<_>>(), [b, a]);
    let hidden = reports.list(None, 10, FeedFilter::Hidden).await.unwrap();
    assert_eq!(hidden.iter().map(|m| m.entry.image_id).collect::<Vec<_>>(), [b]);
    // Paged by feed id.
    let first = reports.list(None, 1, FeedFilter::All).await.unwrap();
    let next = reports.list(Some(first[0].entry.feed_id), 2, FeedFilter::All).await.unwrap();
    assert_eq!(next.iter().map(|m| m.entry.image_id).collect::<Vec<_>>(), [c, a]);
    let next = reports.list(Some(flagged[0].entry.feed_id), 5, FeedFilter::Flagged).await.unwrap();
    assert_eq!(next.iter().map(|m| m.entry.image_id).collect::<Vec<_>>(), [a]);

    // Restored: back in the feed, its reports cleared, so hiding it again takes new ones.
    reports.restore(&ann, b).await.unwrap();
    assert!(!reports.is_hidden(&ann, b).await.unwrap());
    assert_eq!(feed(&store).await, [b, c, a]);
    let all = reports.list(None, 10, FeedFilter::All).await.unwrap();
    assert_eq!((all[0].entry.image_id, all[0].reports, all[0].hidden_at), (b, 0, None));
    assert!(reports.list(None, 10, FeedFilter::Hidden).await.unwrap().is_empty());
    assert_eq!(reports.report(report(&ann, b, &reporters[0], "")).await.unwrap(), 1, "counted from zero");
}

#[tokio::test]
async fn reports_and_holds_go_with_the_image_and_with_its_owner() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    let reporter = user(&store, 3).await;
    let (a, b) = (id(0), id(1_000));
    for (owner, image_id) in [(&ann, a), (&bob, b)] {
        store.gallery.add(image(owner, image_id, false)).await.unwrap();
        store.gallery.set_shared(owner, image_id, Some(image_id)).await.unwrap();
        store.feed_moderation.report(report(owner, image_id, &reporter, "")).await.unwrap();
        store.feed_moderation.hide(owner, image_id, 1_763_700_000).await.unwrap();
    }
    assert_eq!(store.feed_moderation.list(None, 10, FeedFilter::Hidden).await.unwrap().len(), 2);

    // Deleted by its owner (or the operator): no report or hold is left over, and an
    // image stored again under the same id starts clean.
    assert!(store.gallery.delete(&ann, a).await.unwrap());
    assert!(!store.feed_moderation.is_hidden(&ann, a).await.unwrap());
    store.gallery.add(image(&ann, a, false)).await.unwrap();
    store.gallery.set_shared(&ann, a, Some(id(5_000))).await.unwrap();
    assert_eq!(feed(&store).await, [a]);
    assert_eq!(store.feed_moderation.report(report(&ann, a, &reporter, "")).await.unwrap(), 1);

    // Bob's account goes, and with it his image's reports and hold.
    store.users.delete(&bob).await.unwrap();
    assert!(!store.feed_moderation.is_hidden(&bob, b).await.unwrap());
    let left = store.feed_moderation.list(None, 10, FeedFilter::Flagged).await.unwrap();
    assert_eq!(left.iter().map(|m| (m.entry.image_id, m.reports)).collect::<Vec<_>>(), [(a, 1)]);
}
