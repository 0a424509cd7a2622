//! The hosted-checkout adapter (aiglo, trust, luxfin) against a loopback bridge: signed
//! orders, signed callbacks for every event type, subscriptions, refunds, and every way a
//! callback can be wrong.

use std::sync::Arc;

use amora_domain::payment::{PaymentRoute, PlanPeriod, ReversalKind};
use amora_server::payments::hosted::{HostedProvider, HostedSettings};
use amora_server::payments::{
    CheckoutRequest, OrderRef, PaymentEvent, PaymentProvider, ProviderError, SubscriptionRef,
};
use serde_json::json;

use crate::fakes::hosted::{HostedFake, SECRET, signature};
use crate::fakes::{CallbackReceiver, checkout_request, money};

struct Setup {
    fake: HostedFake,
    receiver: CallbackReceiver,
    provider: Arc<HostedProvider>,
}

async fn setup(route: PaymentRoute) -> Setup {
    let fake = HostedFake::start().await;
    let provider = Arc::new(HostedProvider::from_settings(route, &fake.settings()).unwrap().unwrap());
    let receiver = CallbackReceiver::start(provider.clone()).await;
    Setup { fake, receiver, provider }
}

impl Setup {
    async fn checkout(&self, plan: Option<PlanPeriod>) -> (CheckoutRequest, String) {
        let request = checkout_request(&self.receiver.url, money(1299, "USD"), plan);
        let checkout = self.provider.create_checkout(&request).await.unwrap();
        (request, checkout.provider_ref)
    }
}

fn ours(request: &CheckoutRequest) -> OrderRef {
    OrderRef::Ours(request.order_id.clone())
}

#[actix_rt::test]
async fn each_route_opens_a_signed_checkout_and_its_paid_callback_is_a_payment() {
    for route in [PaymentRoute::Aiglo, PaymentRoute::Trust, PaymentRoute::Luxfin] {
        let s = setup(route).await;
        assert_eq!(s.provider.route(), route);
        let request = checkout_request(&s.receiver.url, money(1299, "USD"), None);
        let checkout = s.provider.create_checkout(&request).await.unwrap();
        assert_eq!(checkout.approve_url, format!("https://pay.processor.test/c/{}", checkout.provider_ref));

        let order = s.fake.checkout(&checkout.provider_ref).order;
        assert_eq!(order["amount"], "12.99");
        assert_eq!(order["currency"], "USD");
        assert_eq!(order["orderId"], request.order_id.as_str());
        assert_eq!(order["notifyUrl"], s.receiver.url.as_str());
        assert!(order.get("subscription").is_none());

        let (status, body) = s.fake.send(&checkout.provider_ref, "payment.succeeded").await;
        assert_eq!((status, body.as_str()), (200, r#"{"received":true}"#));
        let txn = s.fake.checkout(&checkout.provider_ref).transaction_id;
        assert_eq!(
            s.receiver.events(),
            vec![PaymentEvent::Paid { order: ours(&request), provider_txn_id: txn, amount: money(1299, "USD") }]
        );
    }
}

#[actix_rt::test]
async fn pending_declined_expired_and_refunded_callbacks_say_so() {
    let s = setup(PaymentRoute::Trust).await;
    let (request, checkout) = s.checkout(None).await;
    for kind in ["payment.pending", "payment.failed", "payment.expired", "payment.succeeded", "payment.refunded"] {
        assert_eq!(s.fake.send(&checkout, kind).await.0, 200, "{kind}");
    }
    let txn = s.fake.checkout(&checkout).transaction_id;
    assert_eq!(
        s.receiver.events(),
        vec![
            PaymentEvent::Pending { order: ours(&request) },
            PaymentEvent::Failed { order: ours(&request), reason: "card declined".into() },
            PaymentEvent::Expired { order: ours(&request) },
            PaymentEvent::Paid { order: ours(&request), provider_txn_id: txn.clone(), amount: money(1299, "USD") },
            PaymentEvent::Refunded {
                order: ours(&request),
                provider_txn_id: txn,
                amount: money(1299, "USD"),
                kind: ReversalKind::Refund,
            },
        ]
    );
}

#[actix_rt::test]
async fn a_plan_starts_renews_and_is_cancelled_through_the_bridge() {
    let s = setup(PaymentRoute::Luxfin).await;
    let (request, checkout) = s.checkout(Some(PlanPeriod::Quarter)).await;
    let subscription = request.subscription.clone().unwrap().subscription_id;
    let order = s.fake.checkout(&checkout).order;
    assert_eq!(order["subscription"], json!({"id": subscription.as_str(), "period": "quarter", "intervalMonths": 3}));

    s.fake.send(&checkout, "payment.succeeded").await;
    s.fake.send(&checkout, "subscription.renewed").await;
    s.provider.cancel_subscription(subscription.as_str(), "cancelled by the user").await.unwrap();
    assert_eq!(s.fake.cancelled(), vec![(subscription.to_string(), "cancelled by the user".to_owned())]);
    s.fake.send(&checkout, "subscription.cancelled").await;

    let events = s.receiver.events();
    let ours_sub = SubscriptionRef::Ours(subscription);
    assert_eq!(events.len(), 4, "{events:?}");
    assert!(matches!(&events[0], PaymentEvent::Paid { amount, .. } if amount.minor == 1299));
    assert!(
        matches!(&events[1], PaymentEvent::SubscriptionActivated { subscription, period_end: Some(_) } if *subscription == ours_sub)
    );
    match &events[2] {
        PaymentEvent::SubscriptionRenewed { subscription, provider_txn_id, amount, period_end: Some(_) } => {
            assert_eq!(subscription, &ours_sub);
            assert_ne!(provider_txn_id, &s.fake.checkout(&checkout).transaction_id, "a renewal is its own payment");
            assert_eq!(amount, &money(1299, "USD"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(events[3], PaymentEvent::SubscriptionCancelled { subscription: ours_sub });
}

#[actix_rt::test]
async fn an_operator_refund_goes_to_the_bridge_signed() {
    let s = setup(PaymentRoute::Aiglo).await;
    let (_, checkout) = s.checkout(None).await;
    let txn = s.fake.checkout(&checkout).transaction_id;
    let refund_id = s.provider.refund(&txn, &money(1299, "USD")).await.unwrap();
    assert!(refund_id.starts_with("rf_"));
    let refunds = s.fake.refunds();
    assert_eq!(refunds.len(), 1);
    assert_eq!(
        (refunds[0]["transactionId"].as_str(), refunds[0]["amount"].as_str()),
        (Some(txn.as_str()), Some("12.99"))
    );
}

#[actix_rt::test]
async fn the_bridge_refuses_orders_signed_with_another_secret_or_for_another_merchant() {
    let fake = HostedFake::start().await;
    let cases = [
        (HostedSettings { secret: "not-the-secret".into(), ..fake.settings() }, "bad_signature"),
        (HostedSettings { merchant_id: "someone-else".into(), ..fake.settings() }, "unknown_merchant"),
    ];
    for (settings, code) in cases {
        let provider = HostedProvider::from_settings(PaymentRoute::Aiglo, &settings).unwrap().unwrap();
        let request = checkout_request("http://127.0.0.1:9/notify", money(1299, "USD"), None);
        match provider.create_checkout(&request).await {
            Err(ProviderError::Refused(message)) => assert!(message.contains(code), "{message}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(provider.cancel_subscription("sub_x", "r").await, Err(ProviderError::Refused(_))));
    }
    assert_eq!(fake.refused(), ["bad_signature", "bad_signature", "unknown_merchant", "unknown_merchant"]);
}

#[actix_rt::test]
async fn forged_altered_unsigned_stale_foreign_and_inexact_callbacks_are_refused() {
    let s = setup(PaymentRoute::Trust).await;
    let (_, checkout) = s.checkout(None).await;
    let url = s.fake.notify_url(&checkout);
    let now = HostedFake::now();
    let paid = s.fake.event(&checkout, "payment.succeeded");
    let body = paid.to_string();

    let signed = |body: &str, t: i64| Some(signature(SECRET, t, body));
    let with = |key: &str, value: serde_json::Value| {
        let mut event = paid.clone();
        event[key] = value;
        event.to_string()
    };
    let cases: Vec<(&str, String, Option<String>)> = vec![
        ("another secret", body.clone(), Some(signature("guess", now, &body))),
        ("body changed after signing", with("amount", json!("0.01")), signed(&body, now)),
        ("no signature", body.clone(), None),
        ("no v1", body.clone(), Some(format!("t={now}"))),
        ("not a signature", body.clone(), Some("sha256=abc".into())),
        ("replayed six minutes later", body.clone(), signed(&body, now - 360)),
        ("from the future", body.clone(), signed(&body, now + 360)),
        (
            "another merchant",
            with("merchantId", json!("someone-else")),
            signed(&with("merchantId", json!("someone-else")), now),
        ),
        ("inexact amount", with("amount", json!("12.990000001")), signed(&with("amount", json!("12.990000001")), now)),
        ("amount as a number", with("amount", json!(12.99)), signed(&with("amount", json!(12.99)), now)),
        ("not our order", with("orderId", json!("order-17")), signed(&with("orderId", json!("order-17")), now)),
        ("no transaction", with("transactionId", json!(null)), signed(&with("transactionId", json!(null)), now)),
        ("not JSON", "type=payment.succeeded".into(), signed("type=payment.succeeded", now)),
    ];
    let count = cases.len();
    for (what, body, header) in cases {
        let (status, _) = s.fake.post(&url, &body, header).await;
        assert_eq!(status, 400, "{what}");
    }
    assert!(s.receiver.events().is_empty(), "{:?}", s.receiver.events());
    assert_eq!(s.receiver.refusals().len(), count);

    // The same event, signed properly and fresh, is believed.
    assert_eq!(s.fake.post(&url, &body, signed(&body, now)).await.0, 200);
    assert_eq!(s.receiver.events().len(), 1);
}

#[actix_rt::test]
async fn a_callback_of_an_unknown_type_is_acknowledged_and_changes_nothing() {
    let s = setup(PaymentRoute::Aiglo).await;
    let (_, checkout) = s.checkout(None).await;
    let (status, body) = s.fake.send(&checkout, "payment.disputed").await;
    assert_eq!((status, body.as_str()), (200, r#"{"received":true}"#));
    assert!(s.receiver.events().is_empty() && s.receiver.refusals().is_empty());
}

#[actix_rt::test]
async fn half_configured_routes_are_refused_at_start_and_an_empty_secret_is_off() {
    let off = HostedSettings { base_url: String::new(), merchant_id: String::new(), secret: String::new() };
    assert!(HostedProvider::from_settings(PaymentRoute::Aiglo, &off).unwrap().is_none());
    let no_merchant =
        HostedSettings { secret: "s".into(), base_url: "https://bridge.test".into(), merchant_id: String::new() };
    assert!(HostedProvider::from_settings(PaymentRoute::Aiglo, &no_merchant).is_err());
    let bad_url = HostedSettings { secret: "s".into(), base_url: "bridge.test".into(), merchant_id: "m".into() };
    assert!(
        HostedProvider::from_settings(PaymentRoute::Trust, &bad_url)
            .is_err_and(|e| e.contains("payments.trust.base_url"))
    );
}
