//! Orders, payment claims and subscriptions: lookups, compare-and-set state changes under
//! concurrency, claims that count a provider transaction once, and list order.

use amora_domain::account::UserId;
use amora_domain::payment::{
    Currency, Money, Order, OrderId, OrderState, PaymentRoute, PlanPeriod, ProductId, Subscription, SubscriptionId,
    SubscriptionState,
};
use amora_store::{PaymentClaimKind, Store, StoreError};

use crate::{backend, user};

fn order_id(n: u32) -> OrderId {
    OrderId::from_random(&format!("{n:0>24}")).unwrap()
}

fn subscription_id(n: u32) -> SubscriptionId {
    SubscriptionId::from_random(&format!("{n:0>24}")).unwrap()
}

fn order(n: u32, user_id: &UserId, state: OrderState, created_at: i64) -> Order {
    Order {
        order_id: order_id(n),
        user_id: user_id.clone(),
        product: ProductId::Coins(3),
        route: PaymentRoute::Paypal,
        amount: Money::new(1299, Currency::parse("usd").unwrap()),
        state,
        provider_ref: None,
        subscription_id: None,
        created_at,
        updated_at: created_at,
    }
}

fn subscription(n: u32, user_id: &UserId, created_at: i64) -> Subscription {
    Subscription {
        subscription_id: subscription_id(n),
        user_id: user_id.clone(),
        period: PlanPeriod::Month,
        route: PaymentRoute::Paypal,
        provider_ref: None,
        state: SubscriptionState::Pending,
        started_at: 0,
        current_period_end: 0,
        created_at,
        updated_at: created_at,
    }
}

async fn state_of(store: &Store, id: &OrderId) -> OrderState {
    store.orders.get(id).await.unwrap().unwrap().state
}

#[tokio::test]
async fn an_order_is_stored_as_given_and_found_by_its_provider_reference() {
    let (store, _guard) = backend::fresh().await;
    let ann = UserId::parse("ann").unwrap();
    let mut plan = order(1, &ann, OrderState::Created, 100);
    plan.product = ProductId::Plan(PlanPeriod::Year);
    plan.route = PaymentRoute::NowPayments;
    plan.amount = Money::new(9_999, Currency::parse("EUR").unwrap());
    plan.subscription_id = Some(subscription_id(7));
    store.orders.create(plan.clone()).await.unwrap();
    assert_eq!(store.orders.get(&plan.order_id).await.unwrap(), Some(plan.clone()));
    assert!(store.orders.get(&order_id(2)).await.unwrap().is_none());

    let mut again = order(1, &UserId::parse("bob").unwrap(), OrderState::Pending, 200);
    assert!(matches!(store.orders.create(again.clone()).await, Err(StoreError::Conflict("orderId"))));
    assert_eq!(store.orders.get(&plan.order_id).await.unwrap(), Some(plan.clone()), "the first order stays");
    assert!(store.orders.list_for_user(&UserId::parse("bob").unwrap(), 10).await.unwrap().is_empty());

    let route = PaymentRoute::NowPayments;
    assert!(store.orders.by_provider_ref(route, "inv-1").await.unwrap().is_none());
    assert!(store.orders.set_provider_ref(&plan.order_id, "inv-1").await.unwrap());
    assert!(store.orders.set_provider_ref(&plan.order_id, "inv-1").await.unwrap(), "the same again is fine");
    assert!(!store.orders.set_provider_ref(&plan.order_id, "inv-2").await.unwrap(), "set once");
    assert!(!store.orders.set_provider_ref(&order_id(2), "inv-3").await.unwrap(), "no such order");
    let found = store.orders.by_provider_ref(route, "inv-1").await.unwrap().unwrap();
    assert_eq!(found.provider_ref.as_deref(), Some("inv-1"));
    assert_eq!(found.order_id, plan.order_id);
    assert!(store.orders.by_provider_ref(route, "inv-2").await.unwrap().is_none());
    assert!(store.orders.by_provider_ref(PaymentRoute::Paypal, "inv-1").await.unwrap().is_none(), "per route");

    // Another order of the route cannot carry the reference; one of another route can.
    again.order_id = order_id(3);
    again.route = route;
    store.orders.create(again.clone()).await.unwrap();
    assert!(matches!(
        store.orders.set_provider_ref(&again.order_id, "inv-1").await,
        Err(StoreError::Conflict("providerRef"))
    ));
    assert_eq!(store.orders.get(&again.order_id).await.unwrap().unwrap().provider_ref, None);
    let mut other_route = order(4, &ann, OrderState::Created, 300);
    other_route.provider_ref = Some("inv-1".into());
    store.orders.create(other_route.clone()).await.unwrap();
    assert_eq!(store.orders.by_provider_ref(PaymentRoute::Paypal, "inv-1").await.unwrap(), Some(other_route));
    let mut taken = order(5, &ann, OrderState::Created, 400);
    taken.route = route;
    taken.provider_ref = Some("inv-1".into());
    assert!(matches!(store.orders.create(taken).await, Err(StoreError::Conflict("providerRef"))));
    assert!(store.orders.get(&order_id(5)).await.unwrap().is_none());
    assert_eq!(store.orders.by_provider_ref(route, "inv-1").await.unwrap().unwrap().order_id, plan.order_id);
}

#[tokio::test]
async fn an_order_moves_only_as_may_become_allows_and_only_from_its_stored_state() {
    let (store, _guard) = backend::fresh().await;
    let ann = UserId::parse("ann").unwrap();
    let mut n = 0;
    for from in OrderState::ALL {
        for to in OrderState::ALL {
            n += 1;
            let id = order_id(n);
            store.orders.create(order(n, &ann, from, 10)).await.unwrap();
            let moved = store.orders.transition(&id, from, to, 20).await.unwrap();
            assert_eq!(moved, from.may_become(to), "{from:?} → {to:?}");
            let stored = store.orders.get(&id).await.unwrap().unwrap();
            if moved {
                assert_eq!((stored.state, stored.updated_at), (to, 20));
            } else {
                assert_eq!((stored.state, stored.updated_at), (from, 10), "nothing changed: {from:?} → {to:?}");
            }
        }
    }

    // The stored state decides, not the caller's belief.
    let id = order_id(100);
    store.orders.create(order(100, &ann, OrderState::Created, 10)).await.unwrap();
    assert!(!store.orders.transition(&id, OrderState::Pending, OrderState::Paid, 20).await.unwrap());
    assert_eq!(state_of(&store, &id).await, OrderState::Created);
    assert!(store.orders.transition(&id, OrderState::Created, OrderState::Pending, 20).await.unwrap());
    assert!(!store.orders.transition(&id, OrderState::Created, OrderState::Pending, 21).await.unwrap(), "once");
    assert!(store.orders.transition(&id, OrderState::Pending, OrderState::Expired, 30).await.unwrap());
    assert!(store.orders.transition(&id, OrderState::Expired, OrderState::Paid, 40).await.unwrap(), "paid late");
    assert!(store.orders.transition(&id, OrderState::Paid, OrderState::Refunded, 50).await.unwrap());
    assert!(!store.orders.transition(&id, OrderState::Refunded, OrderState::Paid, 60).await.unwrap());
    let stored = store.orders.get(&id).await.unwrap().unwrap();
    assert_eq!((stored.state, stored.created_at, stored.updated_at), (OrderState::Refunded, 10, 50));
    assert!(!store.orders.transition(&order_id(101), OrderState::Created, OrderState::Pending, 1).await.unwrap());
    assert!(store.orders.get(&order_id(101)).await.unwrap().is_none(), "a refused move creates nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_fifty_concurrent_payments_of_one_order_exactly_one_moves_it() {
    let (store, _guard) = backend::fresh().await;
    let ann = UserId::parse("ann").unwrap();
    store.orders.create(order(1, &ann, OrderState::Pending, 10)).await.unwrap();
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                store.orders.transition(&order_id(1), OrderState::Pending, OrderState::Paid, 100 + i).await.unwrap()
            })
        })
        .collect();
    let mut winners = 0;
    for task in tasks {
        winners += u32::from(task.await.unwrap());
    }
    assert_eq!(winners, 1);
    assert_eq!(state_of(&store, &order_id(1)).await, OrderState::Paid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_provider_transaction_is_claimed_once_per_route_however_many_ask() {
    let (store, _guard) = backend::fresh().await;
    let route = PaymentRoute::Paypal;
    let tasks: Vec<_> = (0..100)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                // Racing deliveries may even name different orders: still one claim.
                let order = order_id(1 + i % 2);
                store.orders.claim_payment(route, "CAPTURE-7", &order, PaymentClaimKind::Payment, 50).await.unwrap()
            })
        })
        .collect();
    let mut winners = 0;
    for task in tasks {
        winners += u32::from(task.await.unwrap());
    }
    assert_eq!(winners, 1);
    let claim = store.orders.payment_claim(route, PaymentClaimKind::Payment, "CAPTURE-7").await.unwrap().unwrap();
    assert!(claim.order_id == order_id(1) || claim.order_id == order_id(2));
    assert_eq!(
        (claim.route, claim.provider_txn_id.as_str(), claim.kind, claim.claimed_at),
        (route, "CAPTURE-7", PaymentClaimKind::Payment, 50)
    );

    // The same id on another route is another transaction.
    let other = PaymentRoute::ZPay;
    assert!(store.orders.payment_claim(other, PaymentClaimKind::Payment, "CAPTURE-7").await.unwrap().is_none());
    assert!(store.orders.claim_payment(other, "CAPTURE-7", &order_id(3), PaymentClaimKind::Payment, 60).await.unwrap());
    assert!(
        !store.orders.claim_payment(other, "CAPTURE-7", &order_id(3), PaymentClaimKind::Payment, 61).await.unwrap()
    );
    assert_eq!(
        store.orders.payment_claim(other, PaymentClaimKind::Payment, "CAPTURE-7").await.unwrap().unwrap().order_id,
        order_id(3)
    );

    // A payment and a renewal exclude each other; a refund under the payment's id is its own claim.
    assert!(
        !store.orders.claim_payment(route, "CAPTURE-7", &claim.order_id, PaymentClaimKind::Renewal, 70).await.unwrap()
    );
    let as_renewal = store.orders.payment_claim(route, PaymentClaimKind::Renewal, "CAPTURE-7").await.unwrap();
    assert_eq!(as_renewal.map(|c| c.kind), Some(PaymentClaimKind::Payment), "read back whichever kind took it");
    assert!(store.orders.payment_claim(route, PaymentClaimKind::Refund, "CAPTURE-7").await.unwrap().is_none());
    assert!(
        store.orders.claim_payment(route, "CAPTURE-7", &claim.order_id, PaymentClaimKind::Refund, 80).await.unwrap()
    );
    assert!(
        !store.orders.claim_payment(route, "CAPTURE-7", &claim.order_id, PaymentClaimKind::Refund, 81).await.unwrap()
    );
    let refund = store.orders.payment_claim(route, PaymentClaimKind::Refund, "CAPTURE-7").await.unwrap().unwrap();
    assert_eq!((refund.kind, refund.claimed_at), (PaymentClaimKind::Refund, 80));
    assert!(store.orders.claim_payment(route, "SALE-8", &order_id(4), PaymentClaimKind::Renewal, 90).await.unwrap());
    assert!(!store.orders.claim_payment(route, "SALE-8", &order_id(4), PaymentClaimKind::Payment, 91).await.unwrap());

    // An order's claims, oldest first: what a refund names at the processor.
    let of_the_winner: Vec<_> = store
        .orders
        .claims_of(&claim.order_id)
        .await
        .unwrap()
        .into_iter()
        .map(|c| (c.route, c.provider_txn_id, c.kind, c.claimed_at))
        .collect();
    assert_eq!(
        of_the_winner,
        [
            (route, "CAPTURE-7".to_owned(), PaymentClaimKind::Payment, 50),
            (route, "CAPTURE-7".to_owned(), PaymentClaimKind::Refund, 80)
        ]
    );
    let of_four: Vec<_> =
        store.orders.claims_of(&order_id(4)).await.unwrap().into_iter().map(|c| c.provider_txn_id).collect();
    assert_eq!(of_four, ["SALE-8"]);
    assert!(store.orders.claims_of(&order_id(99)).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_users_orders_list_newest_first() {
    let (store, _guard) = backend::fresh().await;
    let ann = UserId::parse("ann").unwrap();
    let bob = UserId::parse("bob").unwrap();
    assert!(store.orders.list_for_user(&ann, 10).await.unwrap().is_empty());
    assert!(store.orders.latest_for_user(&ann).await.unwrap().is_none());
    for (n, at) in [(1, 300), (2, 100), (3, 500), (4, 200)] {
        store.orders.create(order(n, &ann, OrderState::Created, at)).await.unwrap();
    }
    store.orders.create(order(5, &bob, OrderState::Created, 900)).await.unwrap();
    let ids = |orders: Vec<Order>| orders.into_iter().map(|o| o.order_id).collect::<Vec<_>>();
    assert_eq!(ids(store.orders.list_for_user(&ann, 10).await.unwrap()), [3, 1, 4, 2].map(order_id));
    assert_eq!(ids(store.orders.list_for_user(&ann, 2).await.unwrap()), [3, 1].map(order_id));
    assert!(store.orders.list_for_user(&ann, 0).await.unwrap().is_empty());
    assert_eq!(store.orders.latest_for_user(&ann).await.unwrap().unwrap().order_id, order_id(3));
    assert_eq!(ids(store.orders.list_for_user(&bob, 10).await.unwrap()), [order_id(5)]);

    // A listed order shows its current state.
    assert!(store.orders.transition(&order_id(3), OrderState::Created, OrderState::Pending, 600).await.unwrap());
    let latest = store.orders.latest_for_user(&ann).await.unwrap().unwrap();
    assert_eq!((latest.state, latest.updated_at), (OrderState::Pending, 600));

    // Orders made in the same second list by id, the greater first.
    store.orders.create(order(7, &bob, OrderState::Created, 900)).await.unwrap();
    store.orders.create(order(6, &bob, OrderState::Created, 900)).await.unwrap();
    assert_eq!(ids(store.orders.list_for_user(&bob, 10).await.unwrap()), [7, 6, 5].map(order_id));
}

#[tokio::test]
async fn a_subscription_is_stored_found_and_listed_newest_first() {
    let (store, _guard) = backend::fresh().await;
    let ann = UserId::parse("ann").unwrap();
    let mut first = subscription(1, &ann, 100);
    first.period = PlanPeriod::Quarter;
    store.subscriptions.create(first.clone()).await.unwrap();
    assert_eq!(store.subscriptions.get(&first.subscription_id).await.unwrap(), Some(first.clone()));
    assert!(store.subscriptions.get(&subscription_id(9)).await.unwrap().is_none());
    assert!(matches!(
        store.subscriptions.create(subscription(1, &ann, 150)).await,
        Err(StoreError::Conflict("subscriptionId"))
    ));
    let mut second = subscription(2, &ann, 200);
    second.route = PaymentRoute::Sandbox;
    second.provider_ref = Some("sbx-2".into());
    store.subscriptions.create(second.clone()).await.unwrap();
    store.subscriptions.create(subscription(3, &UserId::parse("bob").unwrap(), 300)).await.unwrap();

    let listed = store.subscriptions.list_for_user(&ann).await.unwrap();
    assert_eq!(listed, [second.clone(), first.clone()]);
    assert!(store.subscriptions.list_for_user(&UserId::parse("cat").unwrap()).await.unwrap().is_empty());

    assert_eq!(store.subscriptions.by_provider_ref(PaymentRoute::Sandbox, "sbx-2").await.unwrap(), Some(second));
    assert!(store.subscriptions.by_provider_ref(PaymentRoute::Paypal, "sbx-2").await.unwrap().is_none());
    assert!(store.subscriptions.set_provider_ref(&first.subscription_id, "I-FIRST").await.unwrap());
    assert!(!store.subscriptions.set_provider_ref(&first.subscription_id, "I-OTHER").await.unwrap(), "set once");
    assert!(!store.subscriptions.set_provider_ref(&subscription_id(9), "I-NINE").await.unwrap());
    let found = store.subscriptions.by_provider_ref(PaymentRoute::Paypal, "I-FIRST").await.unwrap().unwrap();
    assert_eq!((found.subscription_id, found.provider_ref.as_deref()), (first.subscription_id, Some("I-FIRST")));
    assert!(matches!(
        store.subscriptions.set_provider_ref(&subscription_id(3), "I-FIRST").await,
        Err(StoreError::Conflict("providerRef"))
    ));
}

#[tokio::test]
async fn a_subscription_activates_renews_forward_cancels_and_ends_by_the_rules() {
    let (store, _guard) = backend::fresh().await;
    let ann = UserId::parse("ann").unwrap();
    let id = subscription_id(1);
    let subs = &store.subscriptions;
    subs.create(subscription(1, &ann, 100)).await.unwrap();
    let get = async || subs.get(&id).await.unwrap().unwrap();

    // Pending: nothing but activation (or ending) applies.
    assert!(!subs.renew(&id, 5_000, 110).await.unwrap());
    assert!(!subs.cancel(&id, 110).await.unwrap());
    assert!(subs.activate(&id, 1_000, 2_000, 120).await.unwrap());
    assert!(!subs.activate(&id, 1_500, 9_000, 130).await.unwrap(), "active already");
    let active = get().await;
    assert_eq!(
        (active.state, active.started_at, active.current_period_end, active.updated_at),
        (SubscriptionState::Active, 1_000, 2_000, 120)
    );
    assert!(active.grants_access(1_999) && !active.grants_access(2_000));

    // Renewal moves the end forward only.
    assert!(subs.renew(&id, 3_000, 140).await.unwrap());
    assert!(!subs.renew(&id, 3_000, 150).await.unwrap(), "the same end again: a duplicate");
    assert!(!subs.renew(&id, 2_500, 160).await.unwrap(), "never backwards");
    let renewed = get().await;
    assert_eq!(
        (renewed.state, renewed.current_period_end, renewed.updated_at),
        (SubscriptionState::Active, 3_000, 140)
    );

    // Cancelling keeps the access paid for until the end.
    assert!(subs.cancel(&id, 170).await.unwrap());
    assert!(!subs.cancel(&id, 180).await.unwrap());
    let cancelled = get().await;
    assert_eq!((cancelled.state, cancelled.current_period_end), (SubscriptionState::Cancelled, 3_000));
    assert!(cancelled.grants_access(2_999) && !cancelled.grants_access(3_000));
    assert!(!subs.activate(&id, 1_000, 9_000, 185).await.unwrap());
    // A renewal charged before the cancellation still extends what it paid for.
    assert!(subs.renew(&id, 4_000, 190).await.unwrap());
    let late = get().await;
    assert_eq!((late.state, late.current_period_end), (SubscriptionState::Cancelled, 4_000));

    assert!(subs.end(&id, 200).await.unwrap());
    assert!(!subs.end(&id, 210).await.unwrap(), "ended already");
    assert!(!subs.renew(&id, 9_000, 220).await.unwrap());
    assert!(!subs.activate(&id, 1, 9_000, 220).await.unwrap());
    assert!(!subs.cancel(&id, 220).await.unwrap());
    let ended = get().await;
    assert_eq!((ended.state, ended.current_period_end, ended.updated_at), (SubscriptionState::Ended, 4_000, 200));
    assert!(!ended.grants_access(3_500));

    // Ending applies to a pending or an active one too; nothing applies to a missing one.
    for (n, activate) in [(2, false), (3, true)] {
        let other = subscription_id(n);
        subs.create(subscription(n, &ann, 300)).await.unwrap();
        if activate {
            assert!(subs.activate(&other, 300, 400, 300).await.unwrap());
        }
        assert!(subs.end(&other, 350).await.unwrap());
        assert_eq!(subs.get(&other).await.unwrap().unwrap().state, SubscriptionState::Ended);
    }
    let missing = subscription_id(9);
    assert!(!subs.activate(&missing, 1, 2, 3).await.unwrap());
    assert!(!subs.renew(&missing, 2, 3).await.unwrap());
    assert!(!subs.cancel(&missing, 3).await.unwrap());
    assert!(!subs.end(&missing, 3).await.unwrap());
    assert!(subs.get(&missing).await.unwrap().is_none(), "a refused change creates nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_changes_of_one_subscription_apply_once() {
    let (store, _guard) = backend::fresh().await;
    let ann = UserId::parse("ann").unwrap();
    store.subscriptions.create(subscription(1, &ann, 100)).await.unwrap();
    let race = async |change: u8| {
        let tasks: Vec<_> = (0..20)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let (subs, id) = (&store.subscriptions, subscription_id(1));
                    match change {
                        0 => subs.activate(&id, 1_000 + i, 2_000, 200).await.unwrap(),
                        1 => subs.renew(&id, 3_000, 300 + i).await.unwrap(),
                        _ => subs.cancel(&id, 400 + i).await.unwrap(),
                    }
                })
            })
            .collect();
        let mut applied = 0;
        for task in tasks {
            applied += u32::from(task.await.unwrap());
        }
        applied
    };
    assert_eq!(race(0).await, 1, "activated once");
    assert_eq!(race(1).await, 1, "renewed once to the same end");
    assert_eq!(race(2).await, 1, "cancelled once");
    let sub = store.subscriptions.get(&subscription_id(1)).await.unwrap().unwrap();
    assert_eq!((sub.state, sub.current_period_end), (SubscriptionState::Cancelled, 3_000));
}

/// Orders and subscriptions are financial records: deleting the account leaves them.
#[tokio::test]
async fn deleting_an_account_keeps_its_orders_claims_and_subscriptions() {
    let (store, _guard) = backend::fresh().await;
    let ann = user(&store, 1).await;
    store.orders.create(order(1, &ann, OrderState::Paid, 100)).await.unwrap();
    assert!(
        store
            .orders
            .claim_payment(PaymentRoute::Paypal, "CAP-1", &order_id(1), PaymentClaimKind::Payment, 100)
            .await
            .unwrap()
    );
    store.subscriptions.create(subscription(1, &ann, 100)).await.unwrap();
    assert!(store.users.delete(&ann).await.unwrap());
    assert_eq!(store.orders.get(&order_id(1)).await.unwrap().unwrap().state, OrderState::Paid);
    assert_eq!(store.orders.list_for_user(&ann, 10).await.unwrap().len(), 1);
    assert!(
        store.orders.payment_claim(PaymentRoute::Paypal, PaymentClaimKind::Payment, "CAP-1").await.unwrap().is_some()
    );
    assert_eq!(store.subscriptions.list_for_user(&ann).await.unwrap().len(), 1);
}
