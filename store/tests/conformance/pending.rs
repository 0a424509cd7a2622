//! The pending-debit journal (issue 28): a row opens once, one of concurrent take-overs
//! and closes wins, and node leases read back as written.

use amora_store::{PendingDebit, Store};

use crate::{backend, user};

fn row(debit_id: &str, user_id: &amora_domain::account::UserId, owner: &str, at: i64) -> PendingDebit {
    PendingDebit {
        debit_id: debit_id.into(),
        user_id: user_id.clone(),
        kind: "images".into(),
        detail: r#"{"jobId":"1","imageIds":["2","3"]}"#.into(),
        owner: owner.into(),
        created_at: at,
    }
}

async fn ids(store: &Store) -> Vec<String> {
    let mut ids: Vec<String> =
        store.pending.pending_debits(100).await.unwrap().into_iter().map(|r| r.debit_id).collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn a_pending_debit_opens_once_is_taken_over_by_one_and_closed_by_one() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    let first = row("image:100", &ann, "run-a", 10);
    assert!(store.pending.open_debit(first.clone()).await.unwrap());
    assert!(!store.pending.open_debit(row("image:100", &ann, "run-b", 11)).await.unwrap(), "open once");
    assert_eq!(store.pending.pending_debit("image:100").await.unwrap(), Some(first.clone()), "the first stays");
    assert!(store.pending.open_debit(row("voice:ann:5", &ann, "run-a", 12)).await.unwrap());
    assert_eq!(ids(&store).await, vec!["image:100".to_owned(), "voice:ann:5".to_owned()]);
    assert_eq!(store.pending.pending_debits(1).await.unwrap().len(), 1, "at most the limit");

    // Of concurrent take-overs from the owner read, one wins; a stale one loses.
    let takes = futures_util::future::join_all(
        ["run-b", "run-c", "run-d", "run-e"].map(|to| store.pending.take_over_debit("image:100", "run-a", to)),
    )
    .await;
    assert_eq!(takes.iter().filter(|won| *won.as_ref().unwrap()).count(), 1, "one take-over wins");
    let owner = store.pending.pending_debit("image:100").await.unwrap().unwrap().owner;
    assert_ne!(owner, "run-a");
    assert!(!store.pending.take_over_debit("image:100", "run-a", "run-f").await.unwrap(), "stale owner");
    assert!(!store.pending.take_over_debit("image:404", "run-a", "run-f").await.unwrap(), "no such row");

    // Of concurrent closes, one deleted the row.
    let closes = futures_util::future::join_all((0..4).map(|_| store.pending.close_debit("image:100"))).await;
    assert_eq!(closes.iter().filter(|closed| *closed.as_ref().unwrap()).count(), 1, "one close deletes");
    assert_eq!(store.pending.pending_debit("image:100").await.unwrap(), None);
    assert_eq!(ids(&store).await, vec!["voice:ann:5".to_owned()]);
    assert!(store.pending.close_debit("voice:ann:5").await.unwrap());
    assert!(ids(&store).await.is_empty());
    // Closed, the id may open again (a later debit of the same id is a new pending one).
    assert!(store.pending.open_debit(row("image:100", &ann, "run-g", 13)).await.unwrap());
}

#[tokio::test]
async fn node_leases_read_back_as_last_renewed() {
    let (store, _guard) = backend::fresh().await;
    assert_eq!(store.pending.lease("run-a").await.unwrap(), None, "never said");
    store.pending.renew_lease("run-a", 1_000).await.unwrap();
    store.pending.renew_lease("run-b", 2_000).await.unwrap();
    assert_eq!(store.pending.lease("run-a").await.unwrap(), Some(1_000));
    store.pending.renew_lease("run-a", 1_030).await.unwrap();
    assert_eq!(store.pending.lease("run-a").await.unwrap(), Some(1_030));
    assert_eq!(store.pending.lease("run-b").await.unwrap(), Some(2_000));
}
