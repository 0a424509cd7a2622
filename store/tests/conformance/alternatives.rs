//! Reply versions (swipes): kept per pair and parent, in order, with the chosen one.

use amora_domain::character::CharacterId;
use amora_domain::chat::{MessageId, Speaker};
use amora_store::{ReplyAlternatives, StoredMessage};

use crate::{backend, user};

fn character(id: &str) -> CharacterId {
    CharacterId::parse(id).unwrap()
}

#[tokio::test]
async fn versions_of_a_reply_are_kept_in_order_and_the_newest_is_chosen() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    let (mia, leo) = (character("gf-001"), character("bf-001"));
    let parent = MessageId::from_raw(5000);
    let versions = &store.alternatives;
    assert_eq!(versions.alternatives(&ann, &mia, parent).await.unwrap(), None);

    assert_eq!(versions.add_alternative(&ann, &mia, parent, "first").await.unwrap(), 0);
    assert_eq!(versions.add_alternative(&ann, &mia, parent, "second").await.unwrap(), 1);
    assert_eq!(versions.add_alternative(&ann, &mia, parent, "third").await.unwrap(), 2);
    let expected = ReplyAlternatives {
        parent_id: parent,
        chosen: 2,
        texts: vec!["first".into(), "second".into(), "third".into()],
    };
    assert_eq!(versions.alternatives(&ann, &mia, parent).await.unwrap(), Some(expected));

    // Other pairs and other parents hold nothing of these.
    assert_eq!(versions.alternatives(&bob, &mia, parent).await.unwrap(), None);
    assert_eq!(versions.alternatives(&ann, &leo, parent).await.unwrap(), None);
    assert_eq!(versions.alternatives(&ann, &mia, MessageId::from_raw(5001)).await.unwrap(), None);
    assert_eq!(versions.add_alternative(&ann, &mia, MessageId::from_raw(7000), "later").await.unwrap(), 0);
}

#[tokio::test]
async fn choosing_and_continuing_a_version_change_only_that_version() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    let parent = MessageId::from_raw(5000);
    let versions = &store.alternatives;
    for text in ["a", "b", "c"] {
        versions.add_alternative(&ann, &mia, parent, text).await.unwrap();
    }
    assert!(versions.choose_alternative(&ann, &mia, parent, 0).await.unwrap());
    assert_eq!(versions.alternatives(&ann, &mia, parent).await.unwrap().unwrap().chosen, 0);
    assert!(!versions.choose_alternative(&ann, &mia, parent, 3).await.unwrap(), "no such version");
    assert!(!versions.choose_alternative(&ann, &mia, MessageId::from_raw(1), 0).await.unwrap(), "no such parent");
    assert_eq!(
        versions.alternatives(&ann, &mia, parent).await.unwrap().unwrap().chosen,
        0,
        "a refused choice changes nothing"
    );

    assert!(versions.set_alternative(&ann, &mia, parent, 1, "b, continued").await.unwrap());
    assert!(!versions.set_alternative(&ann, &mia, parent, 9, "nothing").await.unwrap());
    let held = versions.alternatives(&ann, &mia, parent).await.unwrap().unwrap();
    assert_eq!(held.texts, ["a", "b, continued", "c"]);
    assert_eq!(held.chosen, 0);
    assert_eq!(versions.alternatives(&ann, &mia, MessageId::from_raw(9)).await.unwrap(), None, "no row was made");

    // A new version after a choice is chosen in turn.
    assert_eq!(versions.add_alternative(&ann, &mia, parent, "d").await.unwrap(), 3);
    assert_eq!(versions.alternatives(&ann, &mia, parent).await.unwrap().unwrap().chosen, 3);
}

#[tokio::test]
async fn versions_leave_with_their_parent_their_conversation_and_their_account() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    let (mia, leo) = (character("gf-001"), character("bf-001"));
    let versions = &store.alternatives;
    let (p1, p2) = (MessageId::from_raw(1000), MessageId::from_raw(3000));
    for (who, with) in [(&ann, &mia), (&ann, &leo), (&bob, &mia)] {
        for parent in [p1, p2] {
            versions.add_alternative(who, with, parent, "old").await.unwrap();
            versions.add_alternative(who, with, parent, "new").await.unwrap();
        }
    }
    versions.delete_alternatives(&ann, &mia, &[p1]).await.unwrap();
    assert_eq!(versions.alternatives(&ann, &mia, p1).await.unwrap(), None);
    assert!(versions.alternatives(&ann, &mia, p2).await.unwrap().is_some());
    // A parent made again after a delete starts over.
    assert_eq!(versions.add_alternative(&ann, &mia, p1, "again").await.unwrap(), 0);

    versions.delete_pair_alternatives(&ann, &mia).await.unwrap();
    assert_eq!(versions.alternatives(&ann, &mia, p1).await.unwrap(), None);
    assert_eq!(versions.alternatives(&ann, &mia, p2).await.unwrap(), None);
    assert!(versions.alternatives(&ann, &leo, p2).await.unwrap().is_some(), "another character's stay");
    assert!(versions.alternatives(&bob, &mia, p2).await.unwrap().is_some(), "another user's stay");

    // Deleting the account finds its pairs through its conversations.
    let message = StoredMessage { message_id: p1, speaker: Speaker::User, content: "hi".into(), image: None };
    store.conversations.append(&bob, &mia, message).await.unwrap();
    assert!(store.users.delete(&bob).await.unwrap());
    assert_eq!(versions.alternatives(&bob, &mia, p1).await.unwrap(), None);
    assert_eq!(versions.alternatives(&bob, &mia, p2).await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_versions_of_one_reply_each_get_their_own_index() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let mia = character("gf-001");
    let parent = MessageId::from_raw(5000);
    let writes = (0..6).map(|i| {
        let (store, ann, mia) = (store.clone(), ann.clone(), mia.clone());
        tokio::spawn(
            async move { store.alternatives.add_alternative(&ann, &mia, parent, &format!("v{i}")).await.unwrap() },
        )
    });
    let mut indexes: Vec<u32> = Vec::new();
    for write in writes {
        indexes.push(write.await.unwrap());
    }
    indexes.sort_unstable();
    assert_eq!(indexes, [0, 1, 2, 3, 4, 5]);
    let held = store.alternatives.alternatives(&ann, &mia, parent).await.unwrap().unwrap();
    let mut texts = held.texts.clone();
    texts.sort();
    assert_eq!(texts, ["v0", "v1", "v2", "v3", "v4", "v5"]);
}
