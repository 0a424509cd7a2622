//! The operator's Money desk (issue 33): every user's orders since a time, newest first,
//! and payment notifications that failed after verification, kept whole with their replay.

use amora_domain::account::UserId;
use amora_domain::payment::{Currency, Money, Order, OrderId, OrderState, PaymentRoute, ProductId};
use amora_store::{FailedWebhook, WebhookReplay};

use crate::backend;

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

fn order(n: u32, user: &str, created_at: i64) -> Order {
    Order {
        order_id: OrderId::from_random(&format!("{n:0>24}")).unwrap(),
        user_id: UserId::parse(user).unwrap(),
        product: ProductId::Coins(3),
        route: PaymentRoute::Paypal,
        amount: Money::new(1299, Currency::parse("usd").unwrap()),
        state: OrderState::Created,
        provider_ref: None,
        subscription_id: None,
        created_at,
        updated_at: created_at,
    }
}

#[tokio::test]
async fn orders_of_every_user_since_a_time_come_newest_first_across_days() {
    let (store, _guard) = backend::fresh().await;
    let now = now();
    let day = 86_400;
    // Two users, orders spread over today, yesterday and three days ago, one too old.
    let made = [
        order(1, "ann", now - 3 * day),
        order(2, "bob", now - day - 5),
        order(3, "ann", now - 10),
        order(4, "bob", now - 10),
        order(5, "ann", now - 20 * day),
    ];
    for order in &made {
        store.orders.create(order.clone()).await.unwrap();
    }
    let ids = |orders: Vec<Order>| orders.into_iter().map(|o| o.order_id.as_str().to_owned()).collect::<Vec<_>>();
    let want = |ns: &[usize]| ns.iter().map(|n| made[*n - 1].order_id.as_str().to_owned()).collect::<Vec<_>>();

    let since = store.orders.orders_since(now - 4 * day, 100).await.unwrap();
    // Equal times: the greater id first.
    assert_eq!(ids(since), want(&[4, 3, 2, 1]));
    assert_eq!(ids(store.orders.orders_since(now - 4 * day, 3).await.unwrap()), want(&[4, 3, 2]));
    assert_eq!(ids(store.orders.orders_since(now - day - 5, 100).await.unwrap()), want(&[4, 3, 2]));
    assert_eq!(ids(store.orders.orders_since(now - 30 * day, 100).await.unwrap()), want(&[4, 3, 2, 1, 5]));
    assert!(store.orders.orders_since(now + 10, 100).await.unwrap().is_empty());

    // What it returns is the order as it stands now, after a change of state.
    let paid = &made[2];
    assert!(store.orders.transition(&paid.order_id, OrderState::Created, OrderState::Paid, now).await.unwrap());
    let found = store.orders.orders_since(now - 60, 100).await.unwrap();
    let states: Vec<_> = found.iter().map(|o| (o.user_id.as_str().to_owned(), o.state)).collect();
    assert_eq!(states, [("bob".to_owned(), OrderState::Created), ("ann".to_owned(), OrderState::Paid)]);
}

fn delivery(id: i64, error: &str) -> FailedWebhook {
    FailedWebhook {
        delivery_id: id,
        route: PaymentRoute::Aiglo,
        headers: vec![("content-type".into(), "application/json".into()), ("x-signature".into(), "abc=".into())],
        query: "a=1".into(),
        body: b"{\"event\":\"payment.succeeded\"}\xff".to_vec(),
        error: error.into(),
        received_at: id / 1_000_000_000,
        replay: None,
    }
}

#[tokio::test]
async fn a_failed_webhook_is_kept_whole_listed_newest_first_and_its_replay_recorded() {
    let (store, _guard) = backend::fresh().await;
    let base = now() * 1_000_000_000;
    let first = delivery(base - 5_000_000_000, "no such order");
    let second = delivery(base - 1_000_000_000, "store: unavailable");
    store.webhooks.record_failed_webhook(first.clone()).await.unwrap();
    store.webhooks.record_failed_webhook(second.clone()).await.unwrap();

    assert_eq!(store.webhooks.failed_webhook(first.delivery_id).await.unwrap(), Some(first.clone()));
    assert_eq!(store.webhooks.failed_webhook(first.delivery_id + 1).await.unwrap(), None);
    assert_eq!(store.webhooks.failed_webhooks(10).await.unwrap(), vec![second.clone(), first.clone()]);
    assert_eq!(store.webhooks.failed_webhooks(1).await.unwrap(), vec![second.clone()]);

    let failed = WebhookReplay { at: 100, applied: false, outcome: "no such order".into() };
    assert!(store.webhooks.record_webhook_replay(first.delivery_id, failed).await.unwrap());
    let applied = WebhookReplay { at: 200, applied: true, outcome: "applied".into() };
    assert!(store.webhooks.record_webhook_replay(first.delivery_id, applied.clone()).await.unwrap());
    assert!(!store.webhooks.record_webhook_replay(first.delivery_id + 1, applied.clone()).await.unwrap());
    let stored = store.webhooks.failed_webhook(first.delivery_id).await.unwrap().unwrap();
    assert_eq!(stored.replay, Some(applied), "the last replay stands");
    assert_eq!(stored.body, first.body);
    assert_eq!(store.webhooks.failed_webhook(second.delivery_id).await.unwrap().unwrap().replay, None);
}
