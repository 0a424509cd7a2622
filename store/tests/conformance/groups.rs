//! Group chats (issue 31): groups per owner with their members in seating order, their
//! messages newest first, the chat list's newest message and order, and deletion of a
//! group or of its owner's account taking the messages with them.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::MessageId;
use amora_domain::group::{
    Activation, Group, GroupId, GroupMember, GroupSettings, GroupSpeaker, TalkCap, Talkativeness,
};
use amora_store::{GroupReplyVersions, GroupSummary, Store, StoredGroupMessage};

use crate::{backend, user};

fn member(id: &str, muted: bool, talkativeness: i64) -> GroupMember {
    GroupMember {
        character_id: CharacterId::parse(id).unwrap(),
        muted,
        talkativeness: Talkativeness::parse(talkativeness).unwrap(),
    }
}

fn group(owner: &UserId, id: &str, name: &str, created_at: i64) -> Group {
    let settings = GroupSettings::parse(name, "", Activation::Natural, false, TalkCap::DEFAULT).unwrap();
    let members = vec![member("gf-001", false, 50), member("bf-001", false, 50)];
    Group::new(GroupId::parse(id).unwrap(), owner.clone(), settings, members, created_at).unwrap()
}

fn said(id: i64, speaker: GroupSpeaker, content: &str) -> StoredGroupMessage {
    StoredGroupMessage::new(MessageId::from_raw(id), speaker, content.into())
}

fn by(id: &str) -> GroupSpeaker {
    GroupSpeaker::Character(CharacterId::parse(id).unwrap())
}

async fn listed(store: &Store, owner: &UserId) -> Vec<(String, Option<String>)> {
    store
        .groups
        .groups(owner)
        .await
        .unwrap()
        .into_iter()
        .map(|GroupSummary { group, last_message }| {
            (group.group_id.as_str().to_owned(), last_message.map(|m| m.content))
        })
        .collect()
}

#[tokio::test]
async fn a_group_is_kept_whole_for_its_owner_with_members_in_seating_order() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    let settings =
        GroupSettings::parse("Night shift", "At the ward.\nLate.", Activation::List, true, TalkCap::parse(5).unwrap())
            .unwrap();
    let members = vec![member("gf-003", false, 0), member("gf-001", true, 100), member("bf-002", false, 35)];
    let night = Group::new(GroupId::parse("g-night").unwrap(), ann.clone(), settings, members, 1_700_000_000).unwrap();
    store.groups.create_group(&night).await.unwrap();

    assert_eq!(store.groups.group(&ann, &night.group_id).await.unwrap(), Some(night.clone()));
    assert_eq!(store.groups.group(&bob, &night.group_id).await.unwrap(), None, "another user's group is not found");
    assert_eq!(store.groups.group(&ann, &GroupId::parse("g-none").unwrap()).await.unwrap(), None);
    let list = store.groups.groups(&ann).await.unwrap();
    assert_eq!(list, vec![GroupSummary { group: night.clone(), last_message: None }]);
    assert!(store.groups.groups(&bob).await.unwrap().is_empty());

    // An update replaces settings and members, and keeps the creation time.
    let mut changed = night.clone();
    changed.settings =
        GroupSettings::parse("Day shift", "", Activation::Manual, false, TalkCap::parse(1).unwrap()).unwrap();
    changed.members = vec![member("bf-002", true, 35), member("gf-003", false, 10)];
    changed.updated_at = 1_700_000_100;
    assert!(store.groups.update_group(&changed).await.unwrap());
    assert_eq!(store.groups.group(&ann, &night.group_id).await.unwrap(), Some(changed.clone()));

    let mut nobodys = changed.clone();
    nobodys.owner = bob.clone();
    assert!(!store.groups.update_group(&nobodys).await.unwrap(), "bob has no such group");
    assert_eq!(store.groups.group(&bob, &night.group_id).await.unwrap(), None, "and the update made none");
}

#[tokio::test]
async fn group_messages_are_paged_newest_first_and_edited_and_deleted() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let g = group(&ann, "g1", "Trio", 1_700_000_000);
    store.groups.create_group(&g).await.unwrap();
    let messages = [
        said(1_700_000_001_000_000_000, GroupSpeaker::User, "Hi Mia and Leo"),
        said(1_700_000_002_000_000_000, by("gf-001"), "Hi!"),
        said(1_700_000_003_000_000_000, by("bf-001"), "Hey, what's up?"),
        said(1_700_000_004_000_000_000, by("gf-001"), "Not much."),
    ];
    for message in &messages {
        store.groups.append_group_message(&ann, &g.group_id, message.clone()).await.unwrap();
    }
    let all = store.groups.group_messages(&ann, &g.group_id, None, 10).await.unwrap();
    assert_eq!(all, messages.iter().rev().cloned().collect::<Vec<_>>(), "newest first, speakers kept");
    let page = store.groups.group_messages(&ann, &g.group_id, Some(messages[2].message_id), 1).await.unwrap();
    assert_eq!(page, vec![messages[1].clone()]);
    assert_eq!(listed(&store, &ann).await, vec![("g1".into(), Some("Not much.".into()))]);

    // One message by its id; none of another id or another owner.
    let one = store.groups.group_message(&ann, &g.group_id, messages[1].message_id).await.unwrap();
    assert_eq!(one, Some(messages[1].clone()));
    let bob = user(&store, 2).await;
    assert_eq!(store.groups.group_message(&bob, &g.group_id, messages[1].message_id).await.unwrap(), None);

    // Writing the newest reply again keeps its versions on it, the chosen one its text;
    // the chat list shows the chosen text.
    let versions = GroupReplyVersions { texts: vec!["Not much.".into(), "Lots, actually.".into()], chosen: 1 };
    let again = StoredGroupMessage { content: "Lots, actually.".into(), versions, ..messages[3].clone() };
    assert!(store.groups.update_group_message(&ann, &g.group_id, &again).await.unwrap());
    assert_eq!(store.groups.group_message(&ann, &g.group_id, again.message_id).await.unwrap(), Some(again.clone()));
    assert_eq!(store.groups.group_messages(&ann, &g.group_id, None, 1).await.unwrap(), vec![again.clone()]);
    assert_eq!(listed(&store, &ann).await, vec![("g1".into(), Some("Lots, actually.".into()))]);
    // Appended with its versions (a regenerated reply is a new message), they are kept.
    let moved = StoredGroupMessage { message_id: MessageId::from_raw(1_700_000_005_000_000_000), ..again.clone() };
    store.groups.append_group_message(&ann, &g.group_id, moved.clone()).await.unwrap();
    assert_eq!(store.groups.group_message(&ann, &g.group_id, moved.message_id).await.unwrap(), Some(moved.clone()));
    assert_eq!(store.groups.delete_group_messages(&ann, &g.group_id, &[moved.message_id]).await.unwrap(), 1);
    let unknown = StoredGroupMessage { message_id: MessageId::from_raw(5), ..again.clone() };
    assert!(!store.groups.update_group_message(&ann, &g.group_id, &unknown).await.unwrap());
    assert_eq!(store.groups.group_messages(&ann, &g.group_id, None, 10).await.unwrap().len(), 4, "made none");
    let unknown = unknown.message_id;

    // Deleting the newest two: the list shows the one before.
    let gone = [messages[3].message_id, messages[2].message_id, unknown];
    assert_eq!(store.groups.delete_group_messages(&ann, &g.group_id, &gone).await.unwrap(), 2);
    assert_eq!(
        store.groups.group_messages(&ann, &g.group_id, None, 10).await.unwrap(),
        vec![messages[1].clone(), messages[0].clone()]
    );
    assert_eq!(listed(&store, &ann).await, vec![("g1".into(), Some("Hi!".into()))]);
    let rest = [messages[1].message_id, messages[0].message_id];
    assert_eq!(store.groups.delete_group_messages(&ann, &g.group_id, &rest).await.unwrap(), 2);
    assert_eq!(listed(&store, &ann).await, vec![("g1".into(), None)], "a group without messages stays listed");
}

#[tokio::test]
async fn the_chat_list_shows_the_most_recently_active_group_first() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    // Created in this order, seconds apart; none has a message yet.
    for (i, id) in ["g-a", "g-b", "g-c"].iter().enumerate() {
        store.groups.create_group(&group(&ann, id, id, 1_700_000_000 + i as i64)).await.unwrap();
    }
    let order = |list: Vec<(String, Option<String>)>| list.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
    assert_eq!(order(listed(&store, &ann).await), ["g-c", "g-b", "g-a"], "the newest first");
    // A message in the oldest brings it to the top.
    let a = GroupId::parse("g-a").unwrap();
    store
        .groups
        .append_group_message(&ann, &a, said(1_700_000_100_000_000_000, GroupSpeaker::User, "back"))
        .await
        .unwrap();
    assert_eq!(order(listed(&store, &ann).await), ["g-a", "g-c", "g-b"]);
}

#[tokio::test]
async fn deleting_a_group_deletes_its_messages_and_only_its_own() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    let (anns, bobs) = (group(&ann, "g1", "Ann's", 1), group(&bob, "g1", "Bob's", 1));
    store.groups.create_group(&anns).await.unwrap();
    store.groups.create_group(&bobs).await.unwrap();
    let id = GroupId::parse("g1").unwrap();
    store.groups.append_group_message(&ann, &id, said(1_000_000_000, GroupSpeaker::User, "ann's")).await.unwrap();
    store.groups.append_group_message(&bob, &id, said(1_000_000_000, GroupSpeaker::User, "bob's")).await.unwrap();

    assert!(store.groups.delete_group(&ann, &id).await.unwrap());
    assert!(!store.groups.delete_group(&ann, &id).await.unwrap(), "gone already");
    assert_eq!(store.groups.group(&ann, &id).await.unwrap(), None);
    assert!(store.groups.groups(&ann).await.unwrap().is_empty());
    assert!(store.groups.group_messages(&ann, &id, None, 10).await.unwrap().is_empty());
    // A new group by the same id starts empty.
    store.groups.create_group(&anns).await.unwrap();
    assert!(store.groups.group_messages(&ann, &id, None, 10).await.unwrap().is_empty());

    assert_eq!(store.groups.group(&bob, &id).await.unwrap(), Some(bobs), "another owner's group by that id stays");
    assert_eq!(store.groups.group_messages(&bob, &id, None, 10).await.unwrap().len(), 1);
}

#[tokio::test]
async fn deleting_the_account_deletes_its_groups_and_their_messages() {
    let (store, _guard) = backend::fresh().await;
    let (ann, bob) = (user(&store, 1).await, user(&store, 2).await);
    for owner in [&ann, &bob] {
        for id in ["g1", "g2"] {
            store.groups.create_group(&group(owner, id, id, 1)).await.unwrap();
            let gid = GroupId::parse(id).unwrap();
            store.groups.append_group_message(owner, &gid, said(1_000_000_000, by("gf-001"), "hello")).await.unwrap();
        }
    }
    assert!(store.users.delete(&ann).await.unwrap());
    assert!(store.groups.groups(&ann).await.unwrap().is_empty());
    for id in ["g1", "g2"] {
        let gid = GroupId::parse(id).unwrap();
        assert!(store.groups.group_messages(&ann, &gid, None, 10).await.unwrap().is_empty());
        assert_eq!(store.groups.group_messages(&bob, &gid, None, 10).await.unwrap().len(), 1);
    }
    assert_eq!(store.groups.groups(&bob).await.unwrap().len(), 2, "another user's stay");
}
