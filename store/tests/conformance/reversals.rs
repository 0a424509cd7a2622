//! Reversals of orders (issue 28): what an order's refunds and chargebacks take back
//! together never passes what it credited, under concurrency too; partial ones take their
//! share of it; the same reversal again answers its first share and changes nothing.

use amora_domain::money::Coins;
use amora_domain::payment::OrderId;
use amora_store::{Reversal, ReversalTotals};

use crate::backend;

fn order_id(n: u32) -> OrderId {
    OrderId::from_random(&format!("{n:0>24}")).unwrap()
}

fn reversal(id: &str, refunded_minor: i64, credited: i64) -> Reversal {
    Reversal { provider_txn_id: id.into(), refunded_minor, price_minor: 999, credited: Coins::stored(credited), at: 5 }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_twenty_concurrent_full_refunds_of_one_order_one_takes_back_what_it_credited() {
    let (store, _guard) = backend::fresh().await;
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                store.orders.reverse(&order_id(1), reversal(&format!("refund-{n}"), 999, 1000)).await.unwrap()
            })
        })
        .collect();
    let mut shares = Vec::new();
    for task in tasks {
        shares.push(task.await.unwrap().units());
    }
    assert_eq!(shares.iter().sum::<i64>(), 1000, "{shares:?}");
    assert_eq!(shares.iter().filter(|&&share| share == 1000).count(), 1, "{shares:?}");
    let totals = store.orders.reversed(&order_id(1)).await.unwrap();
    assert_eq!(totals, ReversalTotals { refunded_minor: 999, reversed: Coins::stored(1000) });
    // Each of them again: the share it took the first time, nothing more.
    let mut again = 0;
    for n in 0..20 {
        again += store.orders.reverse(&order_id(1), reversal(&format!("refund-{n}"), 999, 1000)).await.unwrap().units();
    }
    assert_eq!(again, 1000);
    assert_eq!(store.orders.reversed(&order_id(1)).await.unwrap().reversed, Coins::stored(1000));
}

#[tokio::test]
async fn partial_reversals_take_their_share_and_an_order_that_never_credited_takes_nothing() {
    let (store, _guard) = backend::fresh().await;
    let id = order_id(2);
    assert_eq!(store.orders.reversed(&id).await.unwrap(), ReversalTotals::default());
    assert_eq!(store.orders.reverse(&id, reversal("part-1", 333, 1000)).await.unwrap(), Coins::stored(333));
    assert_eq!(store.orders.reverse(&id, reversal("part-1", 333, 1000)).await.unwrap(), Coins::stored(333), "a repeat");
    // The rest of the price: the rest of the coins, to the last one.
    assert_eq!(store.orders.reverse(&id, reversal("chargeback", 666, 1000)).await.unwrap(), Coins::stored(667));
    assert_eq!(store.orders.reverse(&id, reversal("part-2", 999, 1000)).await.unwrap(), Coins::ZERO);
    assert_eq!(
        store.orders.reversed(&id).await.unwrap(),
        ReversalTotals { refunded_minor: 999, reversed: Coins::stored(1000) }
    );

    // Never credited: recorded, nothing taken.
    let never = order_id(3);
    assert_eq!(store.orders.reverse(&never, reversal("np-1", 999, 0)).await.unwrap(), Coins::ZERO);
    assert_eq!(
        store.orders.reversed(&never).await.unwrap(),
        ReversalTotals { refunded_minor: 999, reversed: Coins::ZERO }
    );
    // Credited late (a payment that landed as the refund did): owed in full now, once.
    assert_eq!(store.orders.reverse(&never, reversal("late", 0, 1000)).await.unwrap(), Coins::stored(1000));
    assert_eq!(store.orders.reverse(&never, reversal("late-again", 0, 1000)).await.unwrap(), Coins::ZERO);
}
