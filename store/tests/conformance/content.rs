//! Blog posts, reports and hidden characters.

use amora_domain::blog::{BlogDate, BlogKey, BlogPost};
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::report::{Report, ReportReason};
use amora_domain::viewer::Viewer;

use crate::{backend, catalogue, user};

fn post(key: &str, date: &str) -> BlogPost {
    BlogPost {
        key: BlogKey::parse(key).unwrap(),
        title: format!("Title of {key}"),
        description: format!("About {key}"),
        date: BlogDate::parse(date).unwrap(),
        cover: format!("/blog/covers/{key}.svg"),
        markdown: format!("# {key}\n\nBody of *{key}*."),
        html: format!("<h1>{key}</h1>\n<p>Body of <em>{key}</em>.</p>\n"),
        publish_at: Some(0),
    }
}

/// A time well after every post above was published, for the readers' lists.
const NOW: i64 = 1_800_000_000;

fn keys(list: &[amora_store::BlogSummary]) -> Vec<&str> {
    list.iter().map(|p| p.key.as_str()).collect()
}

#[tokio::test]
async fn blog_posts_list_newest_first_and_republishing_replaces() {
    let (store, _guard) = backend::fresh().await;
    let page = |no, size| PageRequest::parse(no, size).unwrap();
    assert!(store.blog.list(page(1, 10), NOW).await.unwrap().is_empty());
    for (key, date) in
        [("b-older", "2024-05-01"), ("a-newest", "2024-09-30"), ("c-middle", "2024-07-15"), ("d-middle", "2024-07-15")]
    {
        store.blog.put(post(key, date)).await.unwrap();
    }
    assert_eq!(store.blog.count(NOW).await.unwrap(), 4);
    let all = store.blog.list(page(1, 10), NOW).await.unwrap();
    assert_eq!(keys(&all), ["a-newest", "c-middle", "d-middle", "b-older"]);
    assert_eq!(keys(&store.blog.list(page(2, 3), NOW).await.unwrap()), ["b-older"]);
    assert_eq!(all[0].title, "Title of a-newest");
    assert_eq!(all[0].cover, "/blog/covers/a-newest.svg");

    let key = BlogKey::parse("b-older").unwrap();
    assert_eq!(store.blog.get(&key).await.unwrap().unwrap(), post("b-older", "2024-05-01"));
    // Republished with a new date and text: one post, moved to its new place.
    let mut changed = post("b-older", "2024-12-24");
    changed.title = "A new title".into();
    changed.html = "<p>new</p>".into();
    store.blog.put(changed.clone()).await.unwrap();
    assert_eq!(store.blog.get(&key).await.unwrap().unwrap(), changed);
    assert_eq!(store.blog.count(NOW).await.unwrap(), 4);
    assert_eq!(
        keys(&store.blog.list(page(1, 10), NOW).await.unwrap()),
        ["b-older", "a-newest", "c-middle", "d-middle"]
    );

    assert!(store.blog.delete(&key).await.unwrap());
    assert!(!store.blog.delete(&key).await.unwrap());
    assert!(store.blog.get(&key).await.unwrap().is_none());
    assert_eq!(keys(&store.blog.list(page(1, 10), NOW).await.unwrap()), ["a-newest", "c-middle", "d-middle"]);
}

#[tokio::test]
async fn a_scheduled_post_shows_from_its_time_and_an_unpublished_one_is_kept_unseen() {
    let (store, _guard) = backend::fresh().await;
    let page = PageRequest::parse(1, 10).unwrap();
    store.blog.put(post("live", "2024-05-01")).await.unwrap();
    let mut scheduled = post("scheduled", "2024-06-01");
    scheduled.publish_at = Some(NOW + 60);
    store.blog.put(scheduled.clone()).await.unwrap();
    let mut held = post("held", "2024-07-01");
    held.publish_at = None;
    store.blog.put(held.clone()).await.unwrap();

    // Readers see only what is live at the time they read.
    assert_eq!(keys(&store.blog.list(page, NOW).await.unwrap()), ["live"]);
    assert_eq!(store.blog.count(NOW).await.unwrap(), 1);
    assert_eq!(keys(&store.blog.list(page, NOW + 60).await.unwrap()), ["scheduled", "live"]);
    assert_eq!(store.blog.count(NOW + 60).await.unwrap(), 2);
    // The operator sees every post with its state; each reads back as it was stored.
    let all = store.blog.list_all(10).await.unwrap();
    assert_eq!(keys(&all), ["held", "scheduled", "live"]);
    assert_eq!(all.iter().map(|p| p.publish_at).collect::<Vec<_>>(), [None, Some(NOW + 60), Some(0)]);
    assert_eq!(keys(&store.blog.list_all(2).await.unwrap()), ["held", "scheduled"]);
    assert_eq!(store.blog.get(&scheduled.key).await.unwrap().unwrap(), scheduled);
    assert_eq!(store.blog.get(&held.key).await.unwrap().unwrap(), held);

    // Unpublished: off the list, kept; published again: back.
    let live = BlogKey::parse("live").unwrap();
    assert!(store.blog.set_publish_at(&live, None).await.unwrap());
    assert!(store.blog.list(page, NOW).await.unwrap().is_empty());
    assert_eq!(store.blog.count(NOW).await.unwrap(), 0);
    assert_eq!(store.blog.get(&live).await.unwrap().unwrap().publish_at, None);
    assert!(store.blog.set_publish_at(&held.key, Some(NOW)).await.unwrap());
    assert_eq!(keys(&store.blog.list(page, NOW).await.unwrap()), ["held"]);
    assert_eq!(store.blog.get(&held.key).await.unwrap().unwrap().markdown, held.markdown);
    assert!(!store.blog.set_publish_at(&BlogKey::parse("never").unwrap(), None).await.unwrap());
    assert!(store.blog.get(&BlogKey::parse("never").unwrap()).await.unwrap().is_none(), "no post made");
    // A post moved to another date keeps its state in the list.
    let mut moved = post("live", "2025-01-01");
    moved.publish_at = None;
    store.blog.put(moved).await.unwrap();
    assert_eq!(keys(&store.blog.list(page, NOW).await.unwrap()), ["held"]);
    assert_eq!(keys(&store.blog.list_all(10).await.unwrap()), ["live", "held", "scheduled"]);
}

#[tokio::test]
async fn reports_are_kept_and_listed_newest_first() {
    let (store, _guard) = backend::fresh().await;
    let reporter = user(&store, 1).await;
    let now = 1_763_900_000;
    for n in 0..5i64 {
        store
            .reports
            .add(Report {
                report_id: EntryId::new((now + n) * 1_000_000, 0),
                reporter_id: reporter.clone(),
                character_id: CharacterId::parse("c-001").unwrap(),
                message_id: (n % 2 == 1).then(|| EntryId::from_raw(1_700_000_000_000_000_000 + n)),
                reason: ReportReason::ALL[n as usize],
                note: format!("note {n}"),
                created_at: now + n,
            })
            .await
            .unwrap();
    }
    let recent = store.reports.recent(3).await.unwrap();
    assert_eq!(recent.iter().map(|r| r.note.as_str()).collect::<Vec<_>>(), ["note 4", "note 3", "note 2"]);
    assert_eq!(recent[1].message_id, Some(EntryId::from_raw(1_700_000_000_000_000_003)));
    assert_eq!(recent[0].message_id, None);
    assert_eq!(recent[0].reason, ReportReason::ALL[4]);
    assert_eq!(recent[0].reporter_id, reporter);
    assert_eq!(store.reports.recent(50).await.unwrap().len(), 5);
}

#[tokio::test]
async fn a_hidden_character_leaves_the_catalogue_until_shown_again() {
    let (store, _guard) = backend::fresh().await;
    store
        .characters
        .upsert(
            (0..4)
                .map(|n| {
                    let mut entry = catalogue::entry(n, Gender::Girls, amora_domain::character::Exposure::Everyone);
                    entry.character.tags = vec!["Shy".to_owned()];
                    entry
                })
                .collect(),
        )
        .await
        .unwrap();
    let page = PageRequest::parse(1, 30).unwrap();
    let listed = |cards: Vec<amora_domain::character::CharacterCard>| {
        cards.into_iter().map(|c| c.character_id.as_str().to_owned()).collect::<Vec<_>>()
    };
    let id = CharacterId::parse("c-002").unwrap();
    assert!(!store.characters.is_hidden(&id).await.unwrap());
    assert!(store.characters.set_hidden(&id, true).await.unwrap());
    assert!(store.characters.set_hidden(&id, true).await.unwrap(), "hiding twice is fine");
    assert!(store.characters.is_hidden(&id).await.unwrap());
    assert_eq!(store.characters.hidden().await.unwrap(), vec![id.clone()]);
    for viewer in [Viewer::SignedOut, Viewer::Member] {
        let cards = listed(store.characters.list_cards(Gender::Girls, viewer, page).await.unwrap());
        assert_eq!(cards, ["c-000", "c-001", "c-003"]);
        // The landing pages' tag filter reads another index: the hidden one leaves it too.
        let shy = amora_domain::tag::TagFilter::parse(&["shy".to_owned()]).unwrap();
        let tagged = listed(store.characters.list_cards_tagged(Gender::Girls, &shy, viewer, page).await.unwrap());
        assert_eq!(tagged, ["c-000", "c-001", "c-003"], "hidden characters leave the tagged list");
    }
    assert!(store.characters.get(&id).await.unwrap().is_some(), "the record itself stays");

    assert!(!store.characters.set_hidden(&CharacterId::parse("missing").unwrap(), true).await.unwrap());
    assert!(store.characters.set_hidden(&id, false).await.unwrap());
    assert!(!store.characters.is_hidden(&id).await.unwrap());
    assert!(store.characters.hidden().await.unwrap().is_empty());
    let cards = listed(store.characters.list_cards(Gender::Girls, Viewer::SignedOut, page).await.unwrap());
    assert_eq!(cards, ["c-000", "c-001", "c-002", "c-003"]);
}
