//! The coin ledger: compare-and-set under concurrency, idempotency, the audit invariant.

use amora_domain::money::{Coins, TxnId};
use amora_store::{LedgerEntry, LedgerOutcome};

use crate::{backend, user};

fn entry(user_id: &amora_domain::account::UserId, txn_id: &str, delta: i64) -> LedgerEntry {
    let txn_id = TxnId::parse(txn_id).unwrap();
    LedgerEntry { user_id: user_id.clone(), txn_id, delta: Coins::stored(delta), reason: "test".into(), created_at: 0 }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_debits_never_overdraw_and_the_balance_is_the_sum_of_the_rows() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    assert_eq!(
        store.ledger.apply(entry(&ann, "grant", 100)).await.unwrap(),
        LedgerOutcome::Applied { balance: Coins::stored(100), seq: 1 }
    );
    let tasks: Vec<_> = (0..60)
        .map(|i| {
            let (store, ann) = (store.clone(), ann.clone());
            tokio::spawn(async move { store.ledger.apply(entry(&ann, &format!("debit-{i}"), -3)).await.unwrap() })
        })
        .collect();
    let mut applied = 0;
    for task in tasks {
        match task.await.unwrap() {
            LedgerOutcome::Applied { .. } => applied += 1,
            LedgerOutcome::Insufficient { balance, .. } => assert!(balance < Coins::stored(3)),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(applied, 33, "100 coins pay for 33 debits of 3");
    let rows = store.ledger.rows(&ann).await.unwrap();
    let balance = store.users.by_id(&ann).await.unwrap().unwrap().coin;
    assert_eq!(balance, Coins::stored(1));
    assert_eq!(rows.iter().map(|r| r.delta.units()).sum::<i64>(), balance.units());
}

#[tokio::test]
async fn the_balance_is_read_with_the_sequence_it_is_at() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    assert_eq!(store.ledger.balance(&ann).await.unwrap(), Some((Coins::ZERO, 0)), "no row yet");
    store.ledger.apply(entry(&ann, "t1", 50)).await.unwrap();
    store.ledger.apply(entry(&ann, "t2", -20)).await.unwrap();
    store.ledger.apply(entry(&ann, "t1", 50)).await.unwrap();
    store.ledger.apply(entry(&ann, "t3", -90)).await.unwrap();
    assert_eq!(
        store.ledger.balance(&ann).await.unwrap(),
        Some((Coins::stored(30), 2)),
        "a replay and a refused debit add no row"
    );
    let nobody = amora_domain::account::UserId::parse("nobody").unwrap();
    assert_eq!(store.ledger.balance(&nobody).await.unwrap(), None);
}

#[tokio::test]
async fn replaying_a_txn_id_changes_nothing() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    assert_eq!(
        store.ledger.apply(entry(&ann, "t1", 50)).await.unwrap(),
        LedgerOutcome::Applied { balance: Coins::stored(50), seq: 1 }
    );
    assert_eq!(
        store.ledger.apply(entry(&ann, "t1", 50)).await.unwrap(),
        LedgerOutcome::Replayed { balance: Coins::stored(50), seq: 1 }
    );
    assert_eq!(
        store.ledger.apply(entry(&ann, "t2", -80)).await.unwrap(),
        LedgerOutcome::Insufficient { balance: Coins::stored(50), seq: 1 }
    );
    assert_eq!(store.ledger.rows(&ann).await.unwrap().len(), 1);
    let nobody = amora_domain::account::UserId::parse("nobody").unwrap();
    assert_eq!(store.ledger.apply(entry(&nobody, "t3", 5)).await.unwrap(), LedgerOutcome::NoAccount);
}
