//! The room a creator has for characters (issue 28): `save_new` saves only below the
//! limit, atomically under concurrency, counts characters saved before it existed, and
//! gets its room back when a character (or the creator's every character) is deleted.

use amora_domain::character::{CharacterId, CharacterStatus};
use amora_domain::paging::PageRequest;

use crate::backend;
use crate::created::created;

fn id(raw: &str) -> CharacterId {
    CharacterId::parse(raw).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_twenty_concurrent_new_characters_with_room_for_three_exactly_three_are_saved() {
    let (store, _guard) = backend::fresh().await;
    let alice = crate::user(&store, 1).await;
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let (store, alice) = (store.clone(), alice.clone());
            tokio::spawn(async move {
                let character = created(&format!("room-{n}"), &alice, 1_000 + n, CharacterStatus::Private);
                store.created.save_new(character, 3).await.unwrap()
            })
        })
        .collect();
    let mut saved = 0;
    for task in tasks {
        saved += u32::from(task.await.unwrap());
    }
    assert_eq!(saved, 3, "exactly as many as there was room for");
    assert_eq!(store.created.count_by_creator(&alice).await.unwrap(), 3);
    let listed = store.created.list_by_creator(&alice, PageRequest::parse(1, 50).unwrap()).await.unwrap();
    assert_eq!(listed.len(), 3);

    // Another creator's room is their own.
    let bob = crate::user(&store, 2).await;
    assert!(store.created.save_new(created("room-bob", &bob, 5, CharacterStatus::Private), 3).await.unwrap());

    // Deleting one gives its room back, once.
    let gone = listed[0].character.card.character_id.clone();
    assert!(store.created.delete(&gone).await.unwrap().is_some());
    assert!(store.created.save_new(created("room-new", &alice, 9_000, CharacterStatus::Private), 3).await.unwrap());
    assert!(!store.created.save_new(created("room-over", &alice, 9_001, CharacterStatus::Private), 3).await.unwrap());
    assert!(store.created.get(&id("room-over")).await.unwrap().is_none(), "a refused one is not stored");
    assert_eq!(store.created.count_by_creator(&alice).await.unwrap(), 3);

    // Saving one of the three again (an edit through `save_new`) needs no more room.
    let again = created("room-new", &alice, 9_000, CharacterStatus::Private);
    assert!(store.created.save_new(again, 3).await.unwrap());
    assert_eq!(store.created.count_by_creator(&alice).await.unwrap(), 3);

    // The account's deletion frees all of it.
    assert_eq!(store.created.delete_all_of(&alice).await.unwrap().len(), 3);
    for n in 0..3 {
        let character = created(&format!("room-after-{n}"), &alice, 20_000 + n, CharacterStatus::Private);
        assert!(store.created.save_new(character, 3).await.unwrap());
    }
    assert!(
        !store.created.save_new(created("room-after-3", &alice, 20_003, CharacterStatus::Private), 3).await.unwrap()
    );
}

#[tokio::test]
async fn characters_saved_before_the_room_was_kept_count_against_it() {
    let (store, _guard) = backend::fresh().await;
    let carol = crate::user(&store, 3).await;
    // What an older version stored: plain saves, no reservation.
    for n in 0..2 {
        store.created.save(created(&format!("old-{n}"), &carol, 100 + n, CharacterStatus::Private)).await.unwrap();
    }
    assert!(store.created.save_new(created("new-0", &carol, 200, CharacterStatus::Private), 3).await.unwrap());
    assert!(!store.created.save_new(created("new-1", &carol, 201, CharacterStatus::Private), 3).await.unwrap());
    // A deleted old one frees its room.
    assert!(store.created.delete(&id("old-0")).await.unwrap().is_some());
    assert!(store.created.save_new(created("new-1", &carol, 202, CharacterStatus::Private), 3).await.unwrap());
    assert_eq!(store.created.count_by_creator(&carol).await.unwrap(), 3);
}
