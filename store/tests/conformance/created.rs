//! Created characters (issue 17): saved and read back whole, listed per creator newest
//! first, in the catalogue only while approved, the review queue oldest first, deletion
//! with their media (one, all of a creator, with the account).

use amora_domain::account::UserId;
use amora_domain::character::{CardExtras, CharacterCard, CharacterId, CharacterStatus, Exposure};
use amora_domain::creation::{Draft, Looks, PresetText, Style, Visibility};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::tag::TagFilter;
use amora_domain::viewer::Viewer;
use amora_store::{CreatedCharacter, DeletedCharacter, MediaObject, StatusChange, Store};

use crate::backend;
use crate::catalogue::entry;

fn draft(name: &str) -> Draft {
    Draft {
        gender: Gender::Girls,
        style: Style::Anime,
        looks: Looks {
            age: 27,
            ethnicity: "asian".into(),
            eyes: "hazel".into(),
            hair_color: "black".into(),
            hair_style: "bob".into(),
            body: "athletic".into(),
            outfit: "leather".into(),
        },
        personality: PresetText { preset: "confident".into(), text: "Races motorbikes.".into() },
        relationship: PresetText { preset: "crush".into(), text: String::new() },
        voice_id: String::new(),
        character_name: name.into(),
        introduction: format!("{name}, a rider"),
        greeting: "Want a ride?".into(),
        scenario: "A garage at night.".into(),
        tags: vec!["Rider".into(), "kind".into()],
        nsfw: false,
        visibility: Visibility::Private,
    }
}

/// A created character `id` of `creator`, made at `created_at` (ms), in `status`.
pub(crate) fn created(id: &str, creator: &UserId, created_at: i64, status: CharacterStatus) -> CreatedCharacter {
    let valid = draft(&format!("Name {id}")).validate().unwrap();
    let character_id = CharacterId::parse(id).unwrap();
    let extras = CardExtras {
        system_prompt: format!("You are {{{{char}}}} ({id})."),
        post_history_instructions: "Stay in character.".into(),
        example_dialogue: "<START>\n{{user}}: hi\n{{char}}: hey".into(),
        alternate_greetings: vec!["Hi again.".into(), "Long time!".into()],
        has_lorebook: true,
        card_json: Some(format!(r#"{{"spec":"chara_card_v3","data":{{"name":"{id}","extensions":{{"x":1}}}}}}"#)),
    };
    let mut character = valid.character(character_id, creator, format!("/media/portrait-{id}"), extras);
    character.status = status;
    CreatedCharacter {
        character,
        draft: valid.into_draft(),
        imported: id.ends_with('i'),
        review_reason: (status == CharacterStatus::Rejected).then(|| "A real person's name.".to_owned()),
        media_ids: vec![format!("portrait-{id}"), format!("extra-{id}")],
        created_at,
        updated_at: created_at + 5,
        status_at: created_at,
    }
}

fn ids(cards: &[CharacterCard]) -> Vec<String> {
    cards.iter().map(|c| c.character_id.as_str().to_owned()).collect()
}

fn created_ids(list: &[CreatedCharacter]) -> Vec<String> {
    list.iter().map(|c| c.character.card.character_id.as_str().to_owned()).collect()
}

fn page(no: i64, size: i64) -> PageRequest {
    PageRequest::parse(no, size).unwrap()
}

fn id(raw: &str) -> CharacterId {
    CharacterId::parse(raw).unwrap()
}

async fn listed(store: &Store, viewer: Viewer) -> Vec<String> {
    ids(&store.characters.list_cards(Gender::Girls, viewer, page(1, 60)).await.unwrap())
}

async fn listed_tagged(store: &Store, tag: &str, viewer: Viewer) -> Vec<String> {
    let filter = TagFilter::parse(&[tag.to_owned()]).unwrap();
    ids(&store.characters.list_cards_tagged(Gender::Girls, &filter, viewer, page(1, 60)).await.unwrap())
}

async fn put_media(store: &Store, media_id: &str) {
    let object = MediaObject { content_type: "image/png".into(), bytes: media_id.as_bytes().to_vec() };
    store.media.put(media_id, object.clone()).await.unwrap();
    store.media.put_variant(media_id, 320, object).await.unwrap();
}

#[tokio::test]
async fn a_created_character_reads_back_whole_and_an_edit_replaces_it() {
    let (store, _guard) = backend::fresh().await;
    let alice = crate::user(&store, 1).await;
    let original = created("cc-1i", &alice, 1_000, CharacterStatus::Private);
    store.created.save(original.clone()).await.unwrap();

    assert_eq!(store.created.get(&id("cc-1i")).await.unwrap(), Some(original.clone()));
    // The catalogue's `get` finds it too, in its status and with its card extras.
    let character = store.characters.get(&id("cc-1i")).await.unwrap().unwrap();
    assert_eq!(character, original.character);
    assert_eq!(character.status, CharacterStatus::Private);
    assert!(character.extras.card_json.as_deref().unwrap().contains(r#""extensions":{"x":1}"#));

    let mut edited = original.clone();
    edited.character.card.character_name = "Renamed".into();
    edited.character.tags = vec!["Night".into()];
    edited.character.extras = CardExtras::default();
    edited.character.exposure = Exposure::Restricted;
    edited.draft.character_name = "Renamed".into();
    edited.draft.nsfw = true;
    edited.media_ids = vec!["portrait-2".into()];
    edited.updated_at = 9_000;
    store.created.save(edited.clone()).await.unwrap();
    assert_eq!(store.created.get(&id("cc-1i")).await.unwrap(), Some(edited.clone()));
    assert_eq!(store.created.count_by_creator(&alice).await.unwrap(), 1, "replaced, not added");
    let view = edited.into_view();
    assert!(view.nsfw && view.imported);
    assert_eq!(view.visibility, Visibility::Private);

    assert_eq!(store.created.get(&id("nobody")).await.unwrap(), None);
    // A seeded character is no created character.
    store.characters.upsert(vec![entry(1, Gender::Girls, Exposure::Everyone)]).await.unwrap();
    assert_eq!(store.created.get(&id("c-001")).await.unwrap(), None);
    assert!(store.created.delete(&id("c-001")).await.unwrap().is_none());
    assert!(store.characters.get(&id("c-001")).await.unwrap().is_some(), "a seeded character stays");
}

#[tokio::test]
async fn card_extras_are_kept_for_every_character() {
    let (store, _guard) = backend::fresh().await;
    let mut seeded = entry(7, Gender::Guys, Exposure::Everyone);
    seeded.character.extras = CardExtras {
        system_prompt: "sys".into(),
        post_history_instructions: "post".into(),
        example_dialogue: "<START>".into(),
        alternate_greetings: vec!["one".into(), "two".into(), "three".into()],
        has_lorebook: true,
        card_json: Some("{\"spec\":\"chara_card_v3\"}".into()),
    };
    store.characters.upsert(vec![seeded.clone()]).await.unwrap();
    assert_eq!(store.characters.get(&id("c-007")).await.unwrap().unwrap(), seeded.character);
    seeded.character.extras = CardExtras::default();
    store.characters.upsert(vec![seeded.clone()]).await.unwrap();
    assert_eq!(store.characters.get(&id("c-007")).await.unwrap().unwrap().extras, CardExtras::default());
}

#[tokio::test]
async fn only_approved_characters_enter_the_catalogue_after_the_seeded_newest_approval_first() {
    let (store, _guard) = backend::fresh().await;
    let alice = crate::user(&store, 1).await;
    store.characters.upsert((0..3).map(|n| entry(n, Gender::Girls, Exposure::Everyone)).collect()).await.unwrap();
    let seeded = ["c-000", "c-001", "c-002"];
    for (n, status) in
        [CharacterStatus::Private, CharacterStatus::Review, CharacterStatus::Rejected].into_iter().enumerate()
    {
        store.created.save(created(&format!("cc-{n}"), &alice, 100 + n as i64, status)).await.unwrap();
    }
    // Two in review, approved in turn; a third saved public directly (an operator's import).
    for n in [3, 4] {
        store.created.save(created(&format!("cc-{n}"), &alice, 100 + n, CharacterStatus::Review)).await.unwrap();
    }
    let approve = |raw: &'static str, at: i64| {
        let store = store.clone();
        async move {
            store
                .created
                .set_status(&id(raw), CharacterStatus::Review, CharacterStatus::Public, None, at)
                .await
                .unwrap()
        }
    };
    assert!(matches!(approve("cc-3", 1_000).await, StatusChange::Changed(_)));
    assert!(matches!(approve("cc-4", 2_000).await, StatusChange::Changed(_)));
    let mut direct = created("cc-5", &alice, 105, CharacterStatus::Public);
    direct.status_at = 1_500;
    store.created.save(direct).await.unwrap();

    let expected: Vec<String> =
        seeded.iter().map(|s| s.to_string()).chain(["cc-4", "cc-5", "cc-3"].map(String::from)).collect();
    assert_eq!(listed(&store, Viewer::SignedOut).await, expected, "after the seeded, newest approval first");
    // Every created one carries the tag "kind" (as the seeded do) and "rider".
    assert_eq!(listed_tagged(&store, "KIND", Viewer::SignedOut).await, expected);
    assert_eq!(listed_tagged(&store, "rider", Viewer::Member).await, vec!["cc-4", "cc-5", "cc-3"]);
    // Private, in review and rejected ones are found by id only.
    for raw in ["cc-0", "cc-1", "cc-2"] {
        assert!(store.characters.get(&id(raw)).await.unwrap().is_some());
    }

    // Editing an approved character sends it back to review: out of both listings at once.
    let mut edit = store.created.get(&id("cc-4")).await.unwrap().unwrap();
    edit.character.status = CharacterStatus::Review;
    edit.status_at = 3_000;
    store.created.save(edit).await.unwrap();
    // Made private: out too.
    let change = store
        .created
        .set_status(&id("cc-5"), CharacterStatus::Public, CharacterStatus::Private, None, 3_100)
        .await
        .unwrap();
    assert!(matches!(change, StatusChange::Changed(c) if c.character.status == CharacterStatus::Private));
    let now: Vec<String> = seeded.iter().map(|s| s.to_string()).chain(["cc-3".to_owned()]).collect();
    assert_eq!(listed(&store, Viewer::Member).await, now);
    assert_eq!(listed_tagged(&store, "rider", Viewer::Member).await, vec!["cc-3"]);

    // An approved explicit character has restricted exposure: members only.
    let mut explicit = created("cc-6", &alice, 106, CharacterStatus::Review);
    explicit.character.exposure = Exposure::Restricted;
    store.created.save(explicit).await.unwrap();
    assert!(matches!(approve("cc-6", 4_000).await, StatusChange::Changed(_)));
    assert_eq!(listed_tagged(&store, "rider", Viewer::Member).await, vec!["cc-6", "cc-3"]);
    assert_eq!(listed_tagged(&store, "rider", Viewer::NewUser).await, vec!["cc-3"]);
    assert_eq!(listed(&store, Viewer::SignedOut).await, now);
}

#[tokio::test]
async fn my_characters_page_newest_first_per_creator() {
    let (store, _guard) = backend::fresh().await;
    let alice = crate::user(&store, 1).await;
    let bob = crate::user(&store, 2).await;
    // Saved out of order: the order is the creation time.
    for n in [3, 7, 1, 5, 2, 6, 4] {
        store.created.save(created(&format!("a-{n}"), &alice, n * 1_000, CharacterStatus::Private)).await.unwrap();
    }
    store.created.save(created("b-1", &bob, 10_000, CharacterStatus::Review)).await.unwrap();
    store.created.save(created("b-2", &bob, 10_000, CharacterStatus::Private)).await.unwrap();

    let alices = |no, size| {
        let store = store.clone();
        let alice = alice.clone();
        async move { created_ids(&store.created.list_by_creator(&alice, page(no, size)).await.unwrap()) }
    };
    assert_eq!(alices(1, 3).await, vec!["a-7", "a-6", "a-5"]);
    assert_eq!(alices(2, 3).await, vec!["a-4", "a-3", "a-2"]);
    assert_eq!(alices(3, 3).await, vec!["a-1"], "short last page");
    assert!(alices(4, 3).await.is_empty());
    assert_eq!(alices(1, 60).await.len(), 7);
    assert_eq!(store.created.count_by_creator(&alice).await.unwrap(), 7);
    let bobs = store.created.list_by_creator(&bob, page(1, 10)).await.unwrap();
    assert_eq!(created_ids(&bobs), vec!["b-1", "b-2"], "same time: by id");
    assert_eq!(bobs[0], created("b-1", &bob, 10_000, CharacterStatus::Review), "whole records");
    assert_eq!(store.created.count_by_creator(&crate::user(&store, 3).await).await.unwrap(), 0);
}

#[tokio::test]
async fn deleting_takes_the_character_its_listings_and_its_media() {
    let (store, _guard) = backend::fresh().await;
    let alice = crate::user(&store, 1).await;
    let bob = crate::user(&store, 2).await;
    for (raw, creator) in [("a-1", &alice), ("a-2", &alice), ("a-3", &alice), ("b-1", &bob)] {
        store.created.save(created(raw, creator, 100, CharacterStatus::Review)).await.unwrap();
        put_media(&store, &format!("portrait-{raw}")).await;
        put_media(&store, &format!("extra-{raw}")).await;
    }
    for raw in ["a-1", "b-1"] {
        store.created.set_status(&id(raw), CharacterStatus::Review, CharacterStatus::Public, None, 500).await.unwrap();
    }
    assert_eq!(listed(&store, Viewer::Member).await, vec!["a-1", "b-1"]);

    let deleted = store.created.delete(&id("a-1")).await.unwrap();
    assert_eq!(
        deleted,
        Some(DeletedCharacter {
            character_id: id("a-1"),
            creator_id: alice.clone(),
            media_ids: vec!["portrait-a-1".into(), "extra-a-1".into()],
        })
    );
    assert_eq!(store.created.get(&id("a-1")).await.unwrap(), None);
    assert_eq!(store.characters.get(&id("a-1")).await.unwrap(), None);
    assert_eq!(store.media.get("portrait-a-1").await.unwrap(), None);
    assert_eq!(store.media.get_variant("extra-a-1", 320).await.unwrap(), None, "variants go too");
    assert_eq!(listed(&store, Viewer::Member).await, vec!["b-1"]);
    assert_eq!(listed_tagged(&store, "rider", Viewer::Member).await, vec!["b-1"]);
    assert_eq!(store.created.count_by_creator(&alice).await.unwrap(), 2);
    assert_eq!(store.created.delete(&id("a-1")).await.unwrap(), None, "once");
    assert_eq!(created_ids(&store.created.review_queue(10).await.unwrap()), vec!["a-2", "a-3"]);

    // All of a creator: what account deletion asks for.
    let mut all = store.created.delete_all_of(&alice).await.unwrap();
    all.sort_by(|a, b| a.character_id.cmp(&b.character_id));
    assert_eq!(all.iter().map(|d| d.character_id.as_str()).collect::<Vec<_>>(), vec!["a-2", "a-3"]);
    assert!(all.iter().all(|d| d.creator_id == alice && d.media_ids.len() == 2));
    assert_eq!(store.created.count_by_creator(&alice).await.unwrap(), 0);
    assert!(store.created.list_by_creator(&alice, page(1, 10)).await.unwrap().is_empty());
    assert!(store.created.review_queue(10).await.unwrap().is_empty());
    assert_eq!(store.media.get("portrait-a-3").await.unwrap(), None);
    assert!(store.created.delete_all_of(&alice).await.unwrap().is_empty());
    // Bob's are untouched.
    assert!(store.created.get(&id("b-1")).await.unwrap().is_some());
    assert!(store.media.get("portrait-b-1").await.unwrap().is_some());

    // Deleting Bob's account deletes his characters and their media with it.
    assert!(store.users.delete(&bob).await.unwrap());
    assert_eq!(store.created.get(&id("b-1")).await.unwrap(), None);
    assert_eq!(store.characters.get(&id("b-1")).await.unwrap(), None);
    assert_eq!(store.media.get("portrait-b-1").await.unwrap(), None);
    assert!(listed(&store, Viewer::Member).await.is_empty());
    assert_eq!(store.created.count_by_creator(&bob).await.unwrap(), 0);
}

#[tokio::test]
async fn the_review_queue_is_oldest_first_and_decisions_are_checked() {
    let (store, _guard) = backend::fresh().await;
    let alice = crate::user(&store, 1).await;
    for (raw, submitted) in [("r-3", 300), ("r-1", 100), ("r-2", 200)] {
        store.created.save(created(raw, &alice, submitted, CharacterStatus::Review)).await.unwrap();
    }
    store.created.save(created("p-1", &alice, 50, CharacterStatus::Private)).await.unwrap();
    let queue = |limit| {
        let store = store.clone();
        async move { created_ids(&store.created.review_queue(limit).await.unwrap()) }
    };
    assert_eq!(queue(10).await, vec!["r-1", "r-2", "r-3"]);
    assert_eq!(queue(2).await, vec!["r-1", "r-2"]);

    let set = |raw: &'static str, from, to, reason: Option<&str>, at| {
        let store = store.clone();
        let reason = reason.map(str::to_owned);
        async move { store.created.set_status(&id(raw), from, to, reason, at).await.unwrap() }
    };
    use CharacterStatus::{Private, Public, Rejected, Review};
    let StatusChange::Changed(rejected) = set("r-1", Review, Rejected, Some("Looks like a real person."), 400).await
    else {
        panic!("r-1 was in review")
    };
    assert_eq!(rejected.review_reason.as_deref(), Some("Looks like a real person."));
    assert_eq!((rejected.character.status, rejected.status_at, rejected.updated_at), (Rejected, 400, 105));
    assert_eq!(store.created.get(&id("r-1")).await.unwrap(), Some(*rejected), "as stored");
    assert_eq!(set("r-1", Review, Public, None, 401).await, StatusChange::Other(Rejected), "decided already");
    assert_eq!(set("p-1", Review, Public, None, 402).await, StatusChange::Other(Private));
    assert_eq!(set("none", Review, Public, None, 403).await, StatusChange::NotFound);
    assert!(matches!(set("r-3", Review, Public, None, 404).await, StatusChange::Changed(_)));
    assert_eq!(queue(10).await, vec!["r-2"]);

    // The rejected one edited and sent again joins the queue at its new submission time.
    let mut again = store.created.get(&id("r-1")).await.unwrap().unwrap();
    again.character.status = Review;
    again.review_reason = None;
    again.status_at = 500;
    store.created.save(again).await.unwrap();
    assert_eq!(queue(10).await, vec!["r-2", "r-1"]);
    // Resubmitted while waiting: one entry, at the later time.
    let mut resubmitted = store.created.get(&id("r-2")).await.unwrap().unwrap();
    resubmitted.status_at = 600;
    store.created.save(resubmitted).await.unwrap();
    assert_eq!(queue(10).await, vec!["r-1", "r-2"]);
    // Approving clears any earlier reason.
    let StatusChange::Changed(approved) = set("r-1", Review, Public, Some("ignored"), 700).await else {
        panic!("r-1 was in review")
    };
    assert_eq!(approved.review_reason, None);
    assert_eq!(queue(10).await, vec!["r-2"]);
}
