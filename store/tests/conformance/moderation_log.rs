//! The moderation log (issue 27): events kept as given and read newest first, page by page.

use amora_domain::chat::EntryId;
use amora_store::ModerationEvent;

use crate::{backend, user};

fn event(n: i64, at: i64, user_id: Option<amora_domain::account::UserId>) -> ModerationEvent {
    ModerationEvent {
        event_id: EntryId::new(at * 1_000_000 + n, 7),
        at,
        user_id,
        surface: if n % 2 == 0 { "imagePrompt".into() } else { "cardField".into() },
        policy: "image".into(),
        refusal: "minor".into(),
        layer: if n % 3 == 0 { "classifier".into() } else { "rules".into() },
        excerpt: format!("text {n}"),
    }
}

fn excerpts(events: &[ModerationEvent]) -> Vec<&str> {
    events.iter().map(|e| e.excerpt.as_str()).collect()
}

#[tokio::test]
async fn the_moderation_log_lists_newest_first_and_pages_with_before() {
    let (store, _guard) = backend::fresh().await;
    assert!(store.moderation_log.recent(None, 10).await.unwrap().is_empty());
    let someone = user(&store, 1).await;
    let now = 1_763_900_000;
    // Five events spread over three days (an hour apart, then a day and two days back),
    // recorded out of order: the log orders by id, not by arrival.
    let times = [now - 2 * 86_400, now - 86_400, now - 3_600, now - 60, now];
    let all: Vec<ModerationEvent> =
        times.iter().enumerate().map(|(n, at)| event(n as i64, *at, (n != 2).then(|| someone.clone()))).collect();
    for index in [3, 0, 4, 1, 2] {
        store.moderation_log.record(all[index].clone()).await.unwrap();
    }

    let newest = store.moderation_log.recent(None, 10).await.unwrap();
    assert_eq!(excerpts(&newest), ["text 4", "text 3", "text 2", "text 1", "text 0"]);
    // Every field comes back as recorded, the visitor's event without a user.
    assert_eq!(newest[0], all[4]);
    assert_eq!(newest[2], all[2]);
    assert_eq!(newest[2].user_id, None);
    assert_eq!(newest[4], all[0]);

    // Pages: the cursor is the last id seen, across the days' partitions.
    let first = store.moderation_log.recent(None, 2).await.unwrap();
    assert_eq!(excerpts(&first), ["text 4", "text 3"]);
    let second = store.moderation_log.recent(Some(first[1].event_id), 2).await.unwrap();
    assert_eq!(excerpts(&second), ["text 2", "text 1"]);
    let third = store.moderation_log.recent(Some(second[1].event_id), 2).await.unwrap();
    assert_eq!(excerpts(&third), ["text 0"]);
    assert!(store.moderation_log.recent(Some(third[0].event_id), 2).await.unwrap().is_empty());
    assert!(store.moderation_log.recent(None, 0).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_moderation_log_keeps_the_excerpt_as_given() {
    let (store, _guard) = backend::fresh().await;
    // The caller cuts the text (to MODERATION_EXCERPT_CHARS); the store keeps every
    // character, whatever the script, spacing or invisible characters.
    let text = "  ｌｏｌｉ l\u{200b}o\u{00ad}li — 14歳 ей 14 лет \"quoted\" 'x'; DROP TABLE\n".repeat(4);
    let cut: String = text.chars().take(amora_store::MODERATION_EXCERPT_CHARS).collect();
    let mut kept = event(1, 1_763_900_000, None);
    kept.excerpt = cut.clone();
    store.moderation_log.record(kept.clone()).await.unwrap();
    let read = store.moderation_log.recent(None, 5).await.unwrap();
    assert_eq!(read, vec![kept]);
    assert_eq!(read[0].excerpt, cut);
}
