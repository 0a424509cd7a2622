//! Conversations, memories and daily message credits.

use amora_domain::character::CharacterId;
use amora_domain::chat::{MemoryId, MessageId, Speaker};
use amora_store::{Memory, MemoryOrigin, MessageImage, StoredMessage};

use crate::{backend, user};

fn character(id: &str) -> CharacterId {
    CharacterId::parse(id).unwrap()
}

fn message(id: i64, speaker: Speaker, content: &str) -> StoredMessage {
    StoredMessage { message_id: MessageId::from_raw(id), speaker, content: content.into(), image: None }
}

#[tokio::test]
async fn a_message_keeps_its_picture_in_history_and_the_chat_list() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    store.conversations.append(&ann, &mia, message(1000, Speaker::User, "send me a picture")).await.unwrap();
    let image = MessageImage { image_id: amora_domain::chat::EntryId::from_raw(1_234_567), width: 512, height: 768 };
    let picture = StoredMessage { image: Some(image), ..message(2000, Speaker::Character, "") };
    store.conversations.append(&ann, &mia, picture.clone()).await.unwrap();
    let messages = store.conversations.messages(&ann, &mia, None, 10).await.unwrap();
    assert_eq!(messages[0], picture);
    assert_eq!(messages[1].image, None);
    let list = store.conversations.list(&ann).await.unwrap();
    assert_eq!(list[0].last_message, picture);
}

#[tokio::test]
async fn messages_page_newest_first_without_repeats() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    for i in 1..=25 {
        let speaker = if i % 2 == 0 { Speaker::User } else { Speaker::Character };
        store.conversations.append(&ann, &mia, message(i * 1000, speaker, &format!("m{i}"))).await.unwrap();
    }
    let first = store.conversations.messages(&ann, &mia, None, 10).await.unwrap();
    assert_eq!(
        first.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(),
        ["m25", "m24", "m23", "m22", "m21", "m20", "m19", "m18", "m17", "m16"]
    );
    let mut seen: Vec<_> = first.iter().map(|m| m.message_id).collect();
    let mut before = first.last().map(|m| m.message_id);
    loop {
        let page = store.conversations.messages(&ann, &mia, before, 10).await.unwrap();
        seen.extend(page.iter().map(|m| m.message_id));
        if page.len() < 10 {
            break;
        }
        before = page.last().map(|m| m.message_id);
    }
    let expected: Vec<_> = (1..=25).rev().map(|i| MessageId::from_raw(i * 1000)).collect();
    assert_eq!(seen, expected);
    assert_eq!(first[0].speaker, Speaker::Character);
    assert_eq!(first[1].speaker, Speaker::User);
}

#[tokio::test]
async fn conversations_are_kept_per_user_and_character_and_listed_by_latest_activity() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    let (mia, leo) = (character("gf-001"), character("bf-001"));
    store.conversations.append(&ann, &mia, message(1000, Speaker::Character, "hi Ann")).await.unwrap();
    store.conversations.append(&ann, &leo, message(2000, Speaker::Character, "hey Ann")).await.unwrap();
    store.conversations.append(&ann, &mia, message(3000, Speaker::User, "back to Mia")).await.unwrap();
    store.conversations.append(&bob, &mia, message(4000, Speaker::Character, "hi Bob")).await.unwrap();

    let list = store.conversations.list(&ann).await.unwrap();
    assert_eq!(list.iter().map(|c| c.character_id.as_str()).collect::<Vec<_>>(), ["gf-001", "bf-001"]);
    assert_eq!(list[0].last_message.content, "back to Mia");
    assert_eq!(store.conversations.messages(&bob, &mia, None, 50).await.unwrap().len(), 1);

    assert!(store.conversations.update_message(&ann, &mia, MessageId::from_raw(3000), "edited").await.unwrap());
    assert!(!store.conversations.update_message(&ann, &mia, MessageId::from_raw(3001), "nothing").await.unwrap());
    assert_eq!(store.conversations.list(&ann).await.unwrap()[0].last_message.content, "edited");
    let ids = [MessageId::from_raw(3000), MessageId::from_raw(999)];
    assert_eq!(store.conversations.delete_messages(&ann, &mia, &ids).await.unwrap(), 1);
    assert_eq!(store.conversations.list(&ann).await.unwrap()[0].character_id.as_str(), "bf-001");

    assert!(store.conversations.delete(&ann, &mia).await.unwrap());
    assert!(!store.conversations.delete(&ann, &mia).await.unwrap());
    assert_eq!(store.conversations.list(&ann).await.unwrap().len(), 1);
    assert_eq!(store.conversations.list(&bob).await.unwrap().len(), 1, "Bob's conversation with Mia stays");
}

#[tokio::test]
async fn memories_are_listed_newest_first_and_edits_make_them_the_users() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    for (id, text) in [(1000, "Ann has a cat"), (2000, "Ann is a nurse")] {
        let memory = Memory {
            memory_id: MemoryId::from_raw(id),
            content: text.into(),
            origin: MemoryOrigin::Extracted,
            pinned: false,
        };
        store.memories.add(&ann, &mia, memory).await.unwrap();
    }
    let list = store.memories.list(&ann, &mia).await.unwrap();
    assert_eq!(list.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(), ["Ann is a nurse", "Ann has a cat"]);
    assert!(store.memories.update(&ann, &mia, MemoryId::from_raw(1000), "Ann has two cats").await.unwrap());
    let edited = store.memories.list(&ann, &mia).await.unwrap().pop().unwrap();
    assert_eq!((edited.content.as_str(), edited.origin), ("Ann has two cats", MemoryOrigin::User));
    assert!(store.memories.delete(&ann, &mia, MemoryId::from_raw(2000)).await.unwrap());
    assert!(!store.memories.delete(&ann, &mia, MemoryId::from_raw(2000)).await.unwrap());
    assert!(store.memories.list(&ann, &character("gf-002")).await.unwrap().is_empty());
}

#[tokio::test]
async fn deleting_an_account_deletes_its_conversations_and_memories() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    store.conversations.append(&ann, &mia, message(1000, Speaker::User, "hello")).await.unwrap();
    let memory =
        Memory { memory_id: MemoryId::from_raw(1000), content: "x".into(), origin: MemoryOrigin::User, pinned: false };
    store.memories.add(&ann, &mia, memory).await.unwrap();
    store.message_credits.take(&ann, 1, 5).await.unwrap();
    assert!(store.users.delete(&ann).await.unwrap());
    assert!(store.conversations.list(&ann).await.unwrap().is_empty());
    assert!(store.memories.list(&ann, &mia).await.unwrap().is_empty());
    assert_eq!(store.message_credits.used(&ann, 1).await.unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_sends_never_take_more_credits_than_the_day_has() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let tasks: Vec<_> = (0..40)
        .map(|_| {
            let (store, ann) = (store.clone(), ann.clone());
            tokio::spawn(async move { store.message_credits.take(&ann, 20_000, 25).await.unwrap() })
        })
        .collect();
    let mut granted = 0;
    for task in tasks {
        if task.await.unwrap().is_some() {
            granted += 1;
        }
    }
    assert_eq!(granted, 25);
    assert_eq!(store.message_credits.used(&ann, 20_000).await.unwrap(), 25);
    store.message_credits.give_back(&ann, 20_000).await.unwrap();
    assert_eq!(store.message_credits.take(&ann, 20_000, 25).await.unwrap(), Some(25));
    assert_eq!(store.message_credits.take(&ann, 20_001, 25).await.unwrap(), Some(1), "a new day starts afresh");
}

/// An edit racing a delete of the same message (or memory) never brings it back: once a
/// delete says it removed the row, the row is gone, and what is left reads whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_edit_racing_a_delete_never_brings_the_row_back() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    let ids: Vec<i64> = (1..=30).map(|i| i * 1000).collect();
    for &id in &ids {
        store.conversations.append(&ann, &mia, message(id, Speaker::User, "first")).await.unwrap();
        let memory = Memory {
            memory_id: MemoryId::from_raw(id),
            content: "first".into(),
            origin: MemoryOrigin::User,
            pinned: false,
        };
        store.memories.add(&ann, &mia, memory).await.unwrap();
    }
    let races: Vec<_> = ids
        .iter()
        .map(|&id| {
            let (store, ann, mia) = (store.clone(), ann.clone(), mia.clone());
            tokio::spawn(async move {
                let (message_id, memory_id) = (MessageId::from_raw(id), MemoryId::from_raw(id));
                let to_delete = [message_id];
                let (edited, deleted, memory_edited, memory_deleted) = tokio::join!(
                    store.conversations.update_message(&ann, &mia, message_id, "edited"),
                    store.conversations.delete_messages(&ann, &mia, &to_delete),
                    store.memories.update(&ann, &mia, memory_id, "edited"),
                    store.memories.delete(&ann, &mia, memory_id),
                );
                let _ = (edited.unwrap(), memory_edited.unwrap());
                (deleted.unwrap(), memory_deleted.unwrap())
            })
        })
        .collect();
    for race in races {
        assert_eq!(race.await.unwrap(), (1, true), "each delete found its row");
    }
    assert!(store.conversations.messages(&ann, &mia, None, 100).await.unwrap().is_empty(), "no message came back");
    assert!(store.memories.list(&ann, &mia).await.unwrap().is_empty(), "no memory came back");
}
