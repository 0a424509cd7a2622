//! Accounts, sessions, sign-in links and deletion blocks: uniqueness under races, TTL
//! expiry, links that work once.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use amora_domain::account::{EmailAddress, UserId, UserNo};
use amora_store::{NewUser, SessionRecord, StoreError, UserChange};

use crate::{backend, user};

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

fn email(raw: &str) -> EmailAddress {
    EmailAddress::parse(raw).unwrap()
}

fn new_user(n: u32, address: Option<&str>) -> NewUser {
    NewUser {
        user_id: UserId::parse(&format!("account{n}")).unwrap(),
        user_no: UserNo::from_random(1_000 + n),
        user_name: format!("person {n}"),
        email: address.map(email),
        discord_email: None,
        google_subject: None,
        discord_id: None,
        utm_source: "test".into(),
        language: "de".into(),
        created_at: 1_700_000_000,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_concurrent_sign_ups_with_one_email_exactly_one_wins() {
    let (store, _guard) = backend::fresh().await;
    let tasks: Vec<_> = (0..8)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move { store.users.create(new_user(n, Some("same@example.com"))).await })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok(user) => winners.push(user),
            Err(StoreError::Conflict(field)) => assert_eq!(field, "email"),
            Err(other) => panic!("unexpected {other}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one sign-up wins");
    let found = store.users.by_email(&email("same@example.com")).await.unwrap().unwrap();
    assert_eq!(found.user_id, winners[0].user_id);
    // The losers left nothing behind: their userNo values are free and they have no account.
    for n in 0..8 {
        let id = UserId::parse(&format!("account{n}")).unwrap();
        if id != winners[0].user_id {
            assert!(store.users.by_id(&id).await.unwrap().is_none());
            assert!(store.users.by_user_no(&UserNo::from_random(1_000 + n)).await.unwrap().is_none());
        }
    }
}

#[tokio::test]
async fn an_account_is_found_by_every_key_and_keeps_its_defaults() {
    let (store, _guard) = backend::fresh().await;
    let created = store.users.create(new_user(1, Some("ann@example.com"))).await.unwrap();
    assert_eq!((created.coin.units(), created.user_vip_type, created.nsfw), (0, 0, false));
    assert_eq!(created.language, "de");
    assert_eq!(created.created_at, 1_700_000_000);
    let id = created.user_id.clone();
    assert_eq!(store.users.by_id(&id).await.unwrap().unwrap(), created);
    assert_eq!(store.users.by_user_no(&created.user_no).await.unwrap().unwrap(), created);
    assert_eq!(store.users.by_email(&email("ann@example.com")).await.unwrap().unwrap(), created);
    assert!(store.users.by_email(&email("bob@example.com")).await.unwrap().is_none());

    let mut same_no = new_user(2, None);
    same_no.user_no = created.user_no.clone();
    assert!(matches!(store.users.create(same_no).await, Err(StoreError::Conflict("userNo"))));
}

#[tokio::test]
async fn changes_apply_and_provider_identities_stay_unique() {
    let (store, _guard) = backend::fresh().await;
    let ann = store.users.create(new_user(1, Some("ann@example.com"))).await.unwrap().user_id;
    let bob = store.users.create(new_user(2, None)).await.unwrap().user_id;
    let change = UserChange::Profile { user_name: Some("Annie".into()), user_avatar: None };
    let changed = store.users.update(&ann, change).await.unwrap().unwrap();
    assert_eq!(changed.user_name, "Annie");
    assert_eq!(changed.user_avatar, "", "an absent field is left as it was");
    let prefs = UserChange::Preferences {
        interested_gender: Some(amora_domain::gender::Gender::Guys),
        nsfw: Some(true),
        language: None,
    };
    let changed = store.users.update(&ann, prefs).await.unwrap().unwrap();
    assert_eq!(
        (changed.interested_gender, changed.nsfw, changed.language.as_str()),
        (amora_domain::gender::Gender::Guys, true, "de")
    );
    store.users.update(&ann, UserChange::VipType(2)).await.unwrap();
    store.users.update(&ann, UserChange::PasswordHash("hash".into())).await.unwrap();

    let link = |subject: &str| UserChange::LinkGoogle { subject: subject.into() };
    store.users.update(&ann, link("g-1")).await.unwrap();
    assert_eq!(store.users.by_google_subject("g-1").await.unwrap().unwrap().user_id, ann);
    assert!(matches!(store.users.update(&bob, link("g-1")).await, Err(StoreError::Conflict("google"))));
    let discord = UserChange::LinkDiscord { discord_id: "d-1".into(), discord_email: Some(email("d@example.com")) };
    let linked = store.users.update(&bob, discord).await.unwrap().unwrap();
    assert_eq!(linked.discord_email, Some(email("d@example.com")));
    assert_eq!(store.users.by_discord_id("d-1").await.unwrap().unwrap().user_id, bob);

    let ann_now = store.users.by_id(&ann).await.unwrap().unwrap();
    assert_eq!((ann_now.user_vip_type, ann_now.password_hash.as_deref()), (2, Some("hash")));
    let nobody = UserId::parse("nobody").unwrap();
    assert!(store.users.update(&nobody, UserChange::VipType(1)).await.unwrap().is_none());
    assert!(store.users.by_id(&nobody).await.unwrap().is_none(), "an update never creates an account");
}

#[tokio::test]
async fn deleting_an_account_frees_its_email_and_revokes_its_sessions() {
    let (store, _guard) = backend::fresh().await;
    let ann = store.users.create(new_user(1, Some("ann@example.com"))).await.unwrap();
    let session = SessionRecord {
        token_hash: "t-ann".into(),
        user_id: ann.user_id.clone(),
        created_at: now(),
        expires_at: now() + 3_600,
    };
    store.sessions.create(session).await.unwrap();
    assert!(store.users.delete(&ann.user_id).await.unwrap());
    assert!(!store.users.delete(&ann.user_id).await.unwrap(), "already gone");
    assert!(store.users.by_id(&ann.user_id).await.unwrap().is_none());
    assert!(store.users.by_email(&email("ann@example.com")).await.unwrap().is_none());
    assert!(store.sessions.find_live("t-ann", now()).await.unwrap().is_none());
    let again = store.users.create(new_user(3, Some("ann@example.com"))).await.unwrap();
    assert_eq!(store.users.by_email(&email("ann@example.com")).await.unwrap().unwrap().user_id, again.user_id);
}

#[tokio::test]
async fn sessions_expire_and_can_be_revoked_one_or_all() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let start = now();
    let session = |hash: &str, lifetime: i64| SessionRecord {
        token_hash: hash.into(),
        user_id: ann.clone(),
        created_at: start,
        expires_at: start + lifetime,
    };
    store.sessions.create(session("short", 2)).await.unwrap();
    store.sessions.create(session("a", 3_600)).await.unwrap();
    store.sessions.create(session("b", 3_600)).await.unwrap();
    assert_eq!(store.sessions.find_live("short", start).await.unwrap(), Some(session("short", 2)));
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    assert!(store.sessions.find_live("short", now()).await.unwrap().is_none(), "expired");
    assert!(store.sessions.find_live("a", now()).await.unwrap().is_some());

    store.sessions.revoke("a").await.unwrap();
    assert!(store.sessions.find_live("a", now()).await.unwrap().is_none());
    assert!(store.sessions.find_live("b", now()).await.unwrap().is_some());
    store.sessions.create(session("c", 3_600)).await.unwrap();
    store.sessions.revoke_all(&ann).await.unwrap();
    for hash in ["b", "c"] {
        assert!(store.sessions.find_live(hash, now()).await.unwrap().is_none(), "{hash}");
    }
    assert!(store.sessions.find_live("never-made", now()).await.unwrap().is_none());
}

#[tokio::test]
async fn a_users_live_sessions_are_listed_oldest_first() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let bo = user(&store, 2).await;
    let start = now();
    let session = |user: &amora_domain::account::UserId, hash: &str, created: i64, lifetime: i64| SessionRecord {
        token_hash: hash.into(),
        user_id: user.clone(),
        created_at: start + created,
        expires_at: start + lifetime,
    };
    assert!(store.sessions.live_sessions(&ann, start).await.unwrap().is_empty());
    store.sessions.create(session(&ann, "later", 5, 3_600)).await.unwrap();
    store.sessions.create(session(&ann, "first", 0, 3_600)).await.unwrap();
    store.sessions.create(session(&ann, "ending", 1, 30)).await.unwrap();
    store.sessions.create(session(&bo, "bos", 0, 3_600)).await.unwrap();
    let listed = store.sessions.live_sessions(&ann, start).await.unwrap();
    assert_eq!(
        listed,
        vec![session(&ann, "first", 0, 3_600), session(&ann, "ending", 1, 30), session(&ann, "later", 5, 3_600)]
    );
    // Past its expiry a session is not listed; a revoked one neither.
    let hashes = |list: Vec<SessionRecord>| list.into_iter().map(|s| s.token_hash).collect::<Vec<_>>();
    assert_eq!(hashes(store.sessions.live_sessions(&ann, start + 60).await.unwrap()), ["first", "later"]);
    store.sessions.revoke("first").await.unwrap();
    assert_eq!(hashes(store.sessions.live_sessions(&ann, start).await.unwrap()), ["ending", "later"]);
    assert_eq!(hashes(store.sessions.live_sessions(&bo, start).await.unwrap()), ["bos"]);
}

#[tokio::test]
async fn revoking_the_others_keeps_one_session_and_touches_no_other_user() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let bo = user(&store, 2).await;
    let start = now();
    let session = |hash: &str, user_id: &UserId| SessionRecord {
        token_hash: hash.into(),
        user_id: user_id.clone(),
        created_at: start,
        expires_at: start + 3_600,
    };
    for hash in ["keep", "other-1", "other-2"] {
        store.sessions.create(session(hash, &ann)).await.unwrap();
    }
    store.sessions.create(session("bo", &bo)).await.unwrap();
    store.sessions.revoke_others(&ann, "keep").await.unwrap();
    assert!(store.sessions.find_live("keep", now()).await.unwrap().is_some());
    for hash in ["other-1", "other-2"] {
        assert!(store.sessions.find_live(hash, now()).await.unwrap().is_none(), "{hash}");
    }
    assert!(store.sessions.find_live("bo", now()).await.unwrap().is_some());
    // The kept session still ends with all the others.
    store.sessions.revoke_all(&ann).await.unwrap();
    assert!(store.sessions.find_live("keep", now()).await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sign_in_link_works_once_even_when_clicked_twice_at_once() {
    let (store, _guard) = backend::fresh().await;
    let ann = email("ann@example.com");
    store.sign_in_links.create("link", &ann, now() + 900).await.unwrap();
    let clicks: Vec<_> = (0..4)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.sign_in_links.consume("link", now()).await.unwrap() })
        })
        .collect();
    let mut used = Vec::new();
    for click in clicks {
        used.extend(click.await.unwrap());
    }
    assert_eq!(used, vec![ann.clone()], "exactly one click signs in");
    assert!(store.sign_in_links.consume("link", now()).await.unwrap().is_none());

    store.sign_in_links.create("late", &ann, now() + 900).await.unwrap();
    assert!(store.sign_in_links.consume("late", now() + 901).await.unwrap().is_none(), "expired");
    assert!(store.sign_in_links.consume("unknown", now()).await.unwrap().is_none());
}

#[tokio::test]
async fn a_deletion_block_holds_until_its_time() {
    let (store, _guard) = backend::fresh().await;
    let ann = email("ann@example.com");
    let until = now() + 7 * 86_400;
    store.deletion_blocks.block(&ann, until).await.unwrap();
    assert_eq!(store.deletion_blocks.blocked_until(&ann, now()).await.unwrap(), Some(until));
    assert_eq!(store.deletion_blocks.blocked_until(&ann, until).await.unwrap(), None);
    assert_eq!(store.deletion_blocks.blocked_until(&email("bob@example.com"), now()).await.unwrap(), None);
}

#[tokio::test]
async fn a_suspension_holds_until_lifted_and_keeps_its_first_time() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let bo = user(&store, 2).await;
    assert_eq!(store.suspensions.suspended_since(&ann).await.unwrap(), None);
    store.suspensions.suspend(&ann, 1_000).await.unwrap();
    store.suspensions.suspend(&ann, 2_000).await.unwrap();
    assert_eq!(store.suspensions.suspended_since(&ann).await.unwrap(), Some(1_000));
    assert_eq!(store.suspensions.suspended_since(&bo).await.unwrap(), None);
    assert!(store.suspensions.lift(&ann).await.unwrap());
    assert!(!store.suspensions.lift(&ann).await.unwrap(), "nothing left to lift");
    assert_eq!(store.suspensions.suspended_since(&ann).await.unwrap(), None);
}
