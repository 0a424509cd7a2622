//! The recall index: kept by the conversation and memory calls, read by `RecallRepo::recall`;
//! and pinned memories.

use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MemoryId, MessageId, Speaker};
use amora_domain::recall::{CollectionSize, query_terms};
use amora_store::{Memory, MemoryOrigin, RecallKind, RecallMatches, RecallPosting, Store, StoredMessage};

use crate::{backend, user};

fn character(id: &str) -> CharacterId {
    CharacterId::parse(id).unwrap()
}

fn message(id: i64, speaker: Speaker, content: &str) -> StoredMessage {
    StoredMessage { message_id: MessageId::from_raw(id), speaker, content: content.into(), image: None }
}

fn memory(id: i64, content: &str) -> Memory {
    Memory {
        memory_id: MemoryId::from_raw(id),
        content: content.into(),
        origin: MemoryOrigin::Extracted,
        pinned: false,
    }
}

async fn lookup(store: &Store, who: &amora_domain::account::UserId, with: &CharacterId, text: &str) -> RecallMatches {
    let mut found = store.recall.recall(who, with, &query_terms(text)).await.unwrap();
    found.postings.sort_by(|a, b| (a.kind, a.id, &a.term).cmp(&(b.kind, b.id, &b.term)));
    found
}

/// The documents (kind, id) holding any of the words of `text`.
async fn docs(
    store: &Store,
    who: &amora_domain::account::UserId,
    with: &CharacterId,
    text: &str,
) -> Vec<(RecallKind, i64)> {
    let mut docs: Vec<(RecallKind, i64)> =
        lookup(store, who, with, text).await.postings.iter().map(|p| (p.kind, p.id.raw())).collect();
    docs.dedup();
    docs
}

#[tokio::test]
async fn the_users_messages_are_indexed_as_they_are_stored_with_counts_and_lengths() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    let convo = &store.conversations;
    convo.append(&ann, &mia, message(1000, Speaker::Character, "Hello! Do you have a dog?")).await.unwrap();
    convo
        .append(&ann, &mia, message(2000, Speaker::User, "My dog is called Biscuit. Biscuit loves the beach."))
        .await
        .unwrap();
    convo.append(&ann, &mia, message(3000, Speaker::User, "I work as a nurse")).await.unwrap();
    convo.append(&ann, &mia, message(4000, Speaker::User, "ok")).await.unwrap();

    let found = lookup(&store, &ann, &mia, "What is my dog's name? Biscuit?").await;
    assert_eq!(
        found.postings,
        [
            RecallPosting {
                term: "biscuit".into(),
                kind: RecallKind::Message,
                id: EntryId::from_raw(2000),
                count: 2,
                length: 6
            },
            RecallPosting {
                term: "dog".into(),
                kind: RecallKind::Message,
                id: EntryId::from_raw(2000),
                count: 1,
                length: 6
            },
        ],
        "the character's message is not indexed"
    );
    // Two messages have terms ("ok" has none): 6 + 2 terms.
    assert_eq!(found.messages, CollectionSize { docs: 2, length: 8 });
    assert_eq!(found.memories, CollectionSize::default());
    assert_eq!(docs(&store, &ann, &mia, "nurse").await, [(RecallKind::Message, 3000)]);
    assert!(lookup(&store, &ann, &mia, "hello").await.postings.is_empty());
    assert!(store.recall.recall(&ann, &mia, &[]).await.unwrap().postings.is_empty());

    // Another pair, another index.
    let bob = user(&store, 2).await;
    assert!(docs(&store, &bob, &mia, "dog nurse").await.is_empty());
    assert!(docs(&store, &ann, &character("gf-002"), "dog nurse").await.is_empty());
    assert_eq!(lookup(&store, &bob, &mia, "dog").await.messages, CollectionSize::default());
}

#[tokio::test]
async fn an_edited_message_is_found_by_its_new_words_only_and_a_deleted_one_not_at_all() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    let convo = &store.conversations;
    convo.append(&ann, &mia, message(1000, Speaker::User, "My cat is called Pepper")).await.unwrap();
    convo.append(&ann, &mia, message(2000, Speaker::User, "I live in Lyon")).await.unwrap();
    convo.append(&ann, &mia, message(3000, Speaker::User, "I play the cello")).await.unwrap();

    assert!(convo.update_message(&ann, &mia, MessageId::from_raw(1000), "My parrot is called Kiwi").await.unwrap());
    assert!(docs(&store, &ann, &mia, "cat pepper").await.is_empty(), "the old words left the index");
    assert_eq!(docs(&store, &ann, &mia, "parrot kiwi").await, [(RecallKind::Message, 1000)]);
    assert!(!convo.update_message(&ann, &mia, MessageId::from_raw(9000), "no such message").await.unwrap());
    assert!(docs(&store, &ann, &mia, "such message").await.is_empty());

    assert_eq!(convo.delete_messages(&ann, &mia, &[MessageId::from_raw(2000)]).await.unwrap(), 1);
    assert!(docs(&store, &ann, &mia, "Lyon").await.is_empty());
    assert_eq!(lookup(&store, &ann, &mia, "cello").await.messages.docs, 2);

    // A character's message edited (a greeting chosen again) stays out of the index.
    convo.append(&ann, &mia, message(4000, Speaker::Character, "Welcome aboard")).await.unwrap();
    assert!(convo.update_message(&ann, &mia, MessageId::from_raw(4000), "Welcome to the lighthouse").await.unwrap());
    assert!(docs(&store, &ann, &mia, "lighthouse").await.is_empty());
    // A message without words gets them by an edit.
    convo.append(&ann, &mia, message(5000, Speaker::User, "ok")).await.unwrap();
    assert!(convo.update_message(&ann, &mia, MessageId::from_raw(5000), "I also play the violin").await.unwrap());
    assert_eq!(docs(&store, &ann, &mia, "violin").await, [(RecallKind::Message, 5000)]);
}

#[tokio::test]
async fn memories_are_indexed_with_their_current_text_and_outlive_a_deleted_conversation() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    store.conversations.append(&ann, &mia, message(1000, Speaker::User, "My dog is called Biscuit")).await.unwrap();
    store.memories.add(&ann, &mia, memory(2000, "Ann's dog is called Biscuit")).await.unwrap();
    store.memories.add(&ann, &mia, memory(3000, "Ann works as a nurse")).await.unwrap();
    assert_eq!(docs(&store, &ann, &mia, "biscuit").await, [(RecallKind::Message, 1000), (RecallKind::Memory, 2000)]);
    let found = lookup(&store, &ann, &mia, "nurse").await;
    assert_eq!(found.memories, CollectionSize { docs: 2, length: 7 });

    assert!(store.memories.update(&ann, &mia, MemoryId::from_raw(3000), "Ann works as a teacher").await.unwrap());
    assert!(docs(&store, &ann, &mia, "nurse").await.is_empty());
    assert_eq!(docs(&store, &ann, &mia, "teacher").await, [(RecallKind::Memory, 3000)]);

    assert!(store.conversations.delete(&ann, &mia).await.unwrap());
    assert_eq!(
        docs(&store, &ann, &mia, "biscuit teacher").await,
        [(RecallKind::Memory, 2000), (RecallKind::Memory, 3000)]
    );
    let found = lookup(&store, &ann, &mia, "biscuit").await;
    assert_eq!(found.messages, CollectionSize::default(), "no message is left in the index");
    assert_eq!(found.memories.docs, 2);

    assert!(store.memories.delete(&ann, &mia, MemoryId::from_raw(2000)).await.unwrap());
    assert!(docs(&store, &ann, &mia, "biscuit").await.is_empty());
}

#[tokio::test]
async fn deleting_an_account_empties_its_recall_index() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    store.conversations.append(&ann, &mia, message(1000, Speaker::User, "My dog is called Biscuit")).await.unwrap();
    store.memories.add(&ann, &mia, memory(2000, "Ann's dog is called Biscuit")).await.unwrap();
    assert!(store.users.delete(&ann).await.unwrap());
    let found = lookup(&store, &ann, &mia, "biscuit").await;
    assert_eq!(found, RecallMatches::default());
}

#[tokio::test]
async fn a_memory_is_pinned_and_unpinned() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    store.memories.add(&ann, &mia, memory(1000, "Ann has a cat")).await.unwrap();
    let pinned_at_birth = Memory { pinned: true, ..memory(2000, "Ann is a nurse") };
    store.memories.add(&ann, &mia, pinned_at_birth.clone()).await.unwrap();
    let list = store.memories.list(&ann, &mia).await.unwrap();
    assert_eq!(list, [pinned_at_birth, memory(1000, "Ann has a cat")]);

    assert!(store.memories.set_pinned(&ann, &mia, MemoryId::from_raw(1000), true).await.unwrap());
    assert!(store.memories.set_pinned(&ann, &mia, MemoryId::from_raw(2000), false).await.unwrap());
    let pins: Vec<bool> = store.memories.list(&ann, &mia).await.unwrap().iter().map(|m| m.pinned).collect();
    assert_eq!(pins, [false, true]);
    // An edit keeps the pin.
    assert!(store.memories.update(&ann, &mia, MemoryId::from_raw(1000), "Ann has two cats").await.unwrap());
    assert!(store.memories.list(&ann, &mia).await.unwrap()[1].pinned);
    assert!(!store.memories.set_pinned(&ann, &mia, MemoryId::from_raw(3000), true).await.unwrap(), "no such memory");
    assert!(store.memories.list(&ann, &mia).await.unwrap().len() == 2, "pinning a missing memory adds none");
}
