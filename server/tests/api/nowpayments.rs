//! The NOWPayments provider against a loopback NOWPayments: invoices, then IPNs for each
//! status, then every way an IPN can be wrong.

use std::sync::Arc;

use amora_domain::payment::{PlanPeriod, ReversalKind};
use amora_server::payments::nowpayments::{NowPaymentsProvider, NowPaymentsSettings};
use amora_server::payments::{Checkout, CheckoutRequest, OrderRef, PaymentEvent, PaymentProvider, ProviderError};

use crate::fakes::nowpayments::{IPN_SECRET, NowPaymentsFake};
use crate::fakes::{CallbackReceiver, checkout_request, money};

struct Setup {
    fake: NowPaymentsFake,
    receiver: CallbackReceiver,
    provider: Arc<NowPaymentsProvider>,
}

async fn setup() -> Setup {
    let fake = NowPaymentsFake::start().await;
    let provider = Arc::new(NowPaymentsProvider::from_settings(&fake.settings()).unwrap().unwrap());
    let receiver = CallbackReceiver::start(provider.clone()).await;
    Setup { fake, receiver, provider }
}

impl Setup {
    async fn invoice(&self) -> (CheckoutRequest, Checkout) {
        let request = checkout_request(&self.receiver.url, money(1299, "USD"), None);
        let checkout = self.provider.create_checkout(&request).await.unwrap();
        (request, checkout)
    }
}

fn ours(request: &CheckoutRequest) -> OrderRef {
    OrderRef::Ours(request.order_id.clone())
}

#[actix_rt::test]
async fn an_invoice_is_opened_with_our_key_and_its_finished_ipn_is_a_payment_at_the_invoice_price() {
    let s = setup().await;
    let (request, checkout) = s.invoice().await;

    let invoice = s.fake.invoice(&checkout.provider_ref);
    assert_eq!(checkout.approve_url, format!("https://nowpayments.io/payment/?iid={}", invoice.id));
    assert_eq!(checkout.qr_payload, None);
    assert_eq!(invoice.price_amount, "12.99", "the price goes as the JSON number 12.99");
    assert_eq!(invoice.price_currency, "usd");
    assert_eq!(invoice.order_id, request.order_id.as_str());
    assert_eq!(
        (invoice.success_url.as_str(), invoice.cancel_url.as_str()),
        (request.return_url.as_str(), request.cancel_url.as_str())
    );

    for status in ["waiting", "confirming", "confirmed", "sending", "finished"] {
        assert_eq!(s.fake.send_ipn(&invoice.id, status).await.0, 200, "{status}");
    }
    let pending = PaymentEvent::Pending { order: ours(&request) };
    assert_eq!(
        s.receiver.events(),
        vec![
            pending.clone(),
            pending.clone(),
            pending.clone(),
            pending,
            PaymentEvent::Paid {
                order: ours(&request),
                provider_txn_id: invoice.payment_id.to_string(),
                amount: money(1299, "USD")
            },
        ]
    );
    assert!(s.receiver.refusals().is_empty());
}

#[actix_rt::test]
async fn partial_failed_expired_and_refunded_ipns_say_so() {
    let s = setup().await;
    let (request, checkout) = s.invoice().await;
    let invoice = s.fake.invoice(&checkout.provider_ref);
    for status in ["partially_paid", "failed", "expired", "finished", "refunded"] {
        assert_eq!(s.fake.send_ipn(&invoice.id, status).await.0, 200, "{status}");
    }
    let txn = invoice.payment_id.to_string();
    assert_eq!(
        s.receiver.events(),
        vec![
            PaymentEvent::PartiallyPaid { order: ours(&request), amount: money(512, "USD") },
            PaymentEvent::Failed { order: ours(&request), reason: "the crypto payment failed".into() },
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
async fn a_plan_is_one_invoice_for_one_period_and_nothing_renews() {
    let s = setup().await;
    let request = checkout_request(&s.receiver.url, money(2999, "USD"), Some(PlanPeriod::Quarter));
    let checkout = s.provider.create_checkout(&request).await.unwrap();
    assert_eq!(s.fake.invoice(&checkout.provider_ref).price_amount, "29.99");
    assert!(s.provider.cancel_subscription(&checkout.provider_ref, "user").await.is_ok(), "nothing to stop");
    assert!(matches!(s.provider.refund("1", &money(2999, "USD")).await, Err(ProviderError::Unsupported(_))));
}

#[actix_rt::test]
async fn a_wrong_api_key_is_refused_by_nowpayments_and_reported_without_the_key() {
    let fake = NowPaymentsFake::start().await;
    let settings = NowPaymentsSettings { api_key: "NP-WRONG-KEY".into(), ..fake.settings() };
    let provider = NowPaymentsProvider::from_settings(&settings).unwrap().unwrap();
    let request = checkout_request("http://127.0.0.1:9/notify", money(999, "USD"), None);
    match provider.create_checkout(&request).await {
        Err(ProviderError::Refused(message)) => {
            assert!(message.contains("403") && message.contains("INVALID_API_KEY"), "{message}");
            assert!(!message.contains("NP-WRONG-KEY"));
        }
        other => panic!("{other:?}"),
    }
}

#[actix_rt::test]
async fn an_unreachable_nowpayments_is_unavailable() {
    let settings =
        NowPaymentsSettings { api_key: "k".into(), ipn_secret: "s".into(), base_url: "http://127.0.0.1:9".into() };
    let provider = NowPaymentsProvider::from_settings(&settings).unwrap().unwrap();
    let request = checkout_request("http://127.0.0.1:9/notify", money(999, "USD"), None);
    assert!(matches!(provider.create_checkout(&request).await, Err(ProviderError::Unavailable(_))));
}

#[actix_rt::test]
async fn forged_altered_unsigned_and_inexact_ipns_are_refused_and_change_nothing() {
    let s = setup().await;
    let (_, checkout) = s.invoice().await;
    let id = checkout.provider_ref;
    let url = s.receiver.url.clone();
    let finished = s.fake.ipn_body(&id, "finished");

    // Signed with another secret.
    let forged = NowPaymentsFake::sign_with("not-the-ipn-secret", &finished);
    assert_eq!(s.fake.post_ipn(&url, &finished, Some(&forged)).await.0, 400);
    // Signed, then changed: a failure turned into a payment.
    let failed = s.fake.ipn_body(&id, "failed");
    let signature = NowPaymentsFake::sign_with(IPN_SECRET, &failed);
    assert_eq!(s.fake.post_ipn(&url, &failed.replace("\"failed\"", "\"finished\""), Some(&signature)).await.0, 400);
    // No signature, and an empty one.
    assert_eq!(s.fake.post_ipn(&url, &finished, None).await.0, 400);
    assert_eq!(s.fake.post_ipn(&url, &finished, Some("")).await.0, 400);
    // Properly signed, but the price is not an amount in cents.
    let inexact = finished.replace("\"price_amount\":12.99", "\"price_amount\":12.990000001");
    assert_ne!(inexact, finished);
    let signature = NowPaymentsFake::sign_with(IPN_SECRET, &inexact);
    assert_eq!(s.fake.post_ipn(&url, &inexact, Some(&signature)).await.0, 400);
    // Properly signed, for an order id we never made.
    let stranger = finished.replace("\"order_id\":\"ord_", "\"order_id\":\"x_ord_");
    let signature = NowPaymentsFake::sign_with(IPN_SECRET, &stranger);
    assert_eq!(s.fake.post_ipn(&url, &stranger, Some(&signature)).await.0, 400);
    // Not JSON, and a key twice.
    assert_eq!(s.fake.post_ipn(&url, "payment_status=finished", Some(&forged)).await.0, 400);
    let twice = finished.replacen('{', "{\"payment_status\":\"failed\",", 1);
    assert_eq!(s.fake.post_ipn(&url, &twice, Some(&forged)).await.0, 400);

    assert!(s.receiver.events().is_empty(), "{:?}", s.receiver.events());
    assert_eq!(s.receiver.refusals().len(), 8, "{:?}", s.receiver.refusals());
}

#[actix_rt::test]
async fn an_ipn_of_an_unknown_status_is_acknowledged_and_changes_nothing() {
    let s = setup().await;
    let (_, checkout) = s.invoice().await;
    let (status, _) = s.fake.send_ipn(&checkout.provider_ref, "wrong_asset_confirmed").await;
    assert_eq!(status, 200, "acknowledged, so NOWPayments does not resend it");
    assert!(s.receiver.events().is_empty() && s.receiver.refusals().is_empty());
}

#[actix_rt::test]
async fn an_ipn_without_our_order_id_names_the_invoice() {
    let s = setup().await;
    let (_, checkout) = s.invoice().await;
    let body = s.fake.ipn_body(&checkout.provider_ref, "expired");
    let invoice = s.fake.invoice(&checkout.provider_ref);
    let body = body.replace(&format!("\"order_id\":\"{}\"", invoice.order_id), "\"order_id\":null");
    let signature = NowPaymentsFake::sign_with(IPN_SECRET, &body);
    assert_eq!(s.fake.post_ipn(&s.receiver.url, &body, Some(&signature)).await.0, 200);
    assert_eq!(s.receiver.events(), vec![PaymentEvent::Expired { order: OrderRef::Provider(invoice.id) }]);
}
