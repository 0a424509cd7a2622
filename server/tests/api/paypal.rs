//! The PayPal provider against the loopback PayPal (`fakes::paypal`), over HTTP: tokens,
//! orders and captures, subscriptions, refunds, and signed webhooks, honest and tampered.

use std::time::Duration;

use amora_domain::payment::{
    Currency, Money, OrderId, PlanPeriod, ProductId, ReversalKind, SubscriptionId, add_months,
};
use amora_server::payments::paypal::{PaypalProvider, PaypalSettings};
use amora_server::payments::{
    Callback, CallbackAnswer, CheckoutRequest, OrderRef, PaymentEvent, PaymentProvider, ProviderError,
    SubscriptionCheckout, SubscriptionRef,
};
use serde_json::json;

use crate::fakes::paypal::{CLIENT_SECRET, EXPIRED_CERT, FakePaypal, GOOD_CERT, PLANS, ROGUE_CERT, Tamper};

fn usd(decimal: &str) -> Money {
    Money::parse_decimal(decimal, Currency::parse("USD").unwrap()).unwrap()
}

fn order_id(n: u32) -> OrderId {
    OrderId::from_random(&format!("paypaltest{n:014}")).unwrap()
}

fn coins(n: u32, price: &str) -> CheckoutRequest {
    let order_id = order_id(n);
    CheckoutRequest {
        return_url: format!("https://amora.test/paymentResults/{order_id}"),
        cancel_url: format!("https://amora.test/pay/{order_id}?cancelled=1"),
        notify_url: "https://amora.test/callbacks/paypal".into(),
        order_id,
        product: ProductId::Coins(3),
        description: "Amora – 300 coins".into(),
        amount: usd(price),
        customer_email: Some("buyer@amora.test".into()),
        subscription: None,
        client_ip: None,
    }
}

fn monthly_plan(n: u32) -> (CheckoutRequest, SubscriptionId) {
    let subscription_id = SubscriptionId::from_random(&format!("paypalsub{n:015}")).unwrap();
    let request = CheckoutRequest {
        product: ProductId::Plan(PlanPeriod::Month),
        description: "Amora – 1 month plan".into(),
        amount: usd(PLANS[0].2),
        subscription: Some(SubscriptionCheckout {
            subscription_id: subscription_id.clone(),
            period: PlanPeriod::Month,
        }),
        ..coins(n, PLANS[0].2)
    };
    (request, subscription_id)
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

async fn verify(provider: &PaypalProvider, callback: &Callback) -> Vec<PaymentEvent> {
    let verified = provider.verify_callback(callback).await.unwrap_or_else(|e| panic!("refused: {e}"));
    assert_eq!(verified.answer, CallbackAnswer::ok_empty(), "PayPal expects a plain 200");
    verified.events
}

fn refused_as_bad(result: Result<impl std::fmt::Debug, ProviderError>, case: &str) -> String {
    match result {
        Err(ProviderError::BadCallback(reason)) => reason,
        other => panic!("{case}: expected BadCallback, got {other:?}"),
    }
}

fn refusal(result: Result<impl std::fmt::Debug, ProviderError>) -> String {
    match result {
        Err(ProviderError::Refused(reason)) => {
            assert!(!reason.contains(CLIENT_SECRET) && !reason.contains("A21AA"), "a secret leaked: {reason}");
            reason
        }
        other => panic!("expected Refused, got {other:?}"),
    }
}

/// An order the buyer approved and we captured: (our order, PayPal's capture id).
async fn paid_order(paypal: &FakePaypal, provider: &PaypalProvider, n: u32, price: &str) -> (OrderId, String) {
    let request = coins(n, price);
    let checkout = provider.create_checkout(&request).await.unwrap();
    let query = paypal.buyer_approves(&checkout.approve_url).await;
    let events = provider.on_return(&checkout.provider_ref, &query).await.unwrap();
    let [PaymentEvent::Paid { provider_txn_id, .. }] = events.as_slice() else { panic!("{events:?}") };
    (request.order_id, provider_txn_id.clone())
}

#[actix_rt::test]
async fn a_token_is_fetched_once_shared_reused_and_fetched_again_when_it_expires() {
    let paypal = FakePaypal::start().await;
    paypal.set_token_lifetime(2);
    let provider = paypal.provider();

    // Five calls at once, then one more: one token, fetched once.
    let requests: Vec<_> = (1..=5).map(|n| coins(n, "4.99")).collect();
    let created = futures_util::future::join_all(requests.iter().map(|r| provider.create_checkout(r))).await;
    assert!(created.iter().all(Result::is_ok), "{created:?}");
    provider.create_checkout(&coins(6, "4.99")).await.unwrap();
    assert_eq!(paypal.tokens_issued(), 1);

    // PayPal said `expires_in: 2`: a call after that comes with a new token.
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    provider.create_checkout(&coins(7, "4.99")).await.unwrap();
    assert_eq!(paypal.tokens_issued(), 2);

    // A token PayPal dropped early (401) is replaced once and the call goes through.
    paypal.set_token_lifetime(32_400);
    paypal.revoke_tokens();
    provider.create_checkout(&coins(8, "4.99")).await.unwrap();
    assert_eq!(paypal.tokens_issued(), 3);
    assert_eq!(paypal.orders_created(), 8);
}

#[actix_rt::test]
async fn an_approved_order_is_captured_once_and_reported_paid_with_the_exact_amount() {
    let paypal = FakePaypal::start().await;
    let provider = paypal.provider();
    let request = coins(1, "12.99");

    let checkout = provider.create_checkout(&request).await.unwrap();
    assert!(
        checkout.approve_url.starts_with(&format!("{}/checkoutnow?token={}", paypal.base, checkout.provider_ref)),
        "{checkout:?}"
    );
    assert_eq!(checkout.qr_payload, None);
    // A retried create is the same PayPal order (PayPal-Request-Id is our order id).
    assert_eq!(provider.create_checkout(&request).await.unwrap(), checkout);
    assert_eq!(paypal.orders_created(), 1);

    // Back before approving (or from elsewhere): nothing has happened.
    assert_eq!(provider.on_return(&checkout.provider_ref, "").await.unwrap(), vec![]);
    assert_eq!(paypal.captures_made(), 0);

    let query = paypal.buyer_approves(&checkout.approve_url).await;
    assert!(query.contains(&format!("token={}", checkout.provider_ref)) && query.contains("PayerID="), "{query}");
    let events = provider.on_return(&checkout.provider_ref, &query).await.unwrap();
    let [PaymentEvent::Paid { order, provider_txn_id, amount }] = events.as_slice() else { panic!("{events:?}") };
    assert_eq!(order, &OrderRef::Ours(request.order_id.clone()));
    assert!(!provider_txn_id.is_empty() && provider_txn_id != &checkout.provider_ref);
    assert_eq!((amount.minor, amount.currency.as_str()), (1299, "USD"));

    // Reloading the return page: PayPal answers the repeated capture with the first one.
    assert_eq!(provider.on_return(&checkout.provider_ref, &query).await.unwrap(), events);
    // Hours later PayPal has forgotten the request id and says ORDER_ALREADY_CAPTURED: the
    // order is read and the same capture reported.
    paypal.forget_request_ids();
    assert_eq!(provider.on_return(&checkout.provider_ref, &query).await.unwrap(), events);
    assert_eq!(paypal.captures_made(), 1, "one capture, never a second payment");
}

#[actix_rt::test]
async fn the_approval_webhook_captures_for_a_buyer_who_never_comes_back() {
    let paypal = FakePaypal::start().await;
    let provider = paypal.provider();
    let request = coins(2, "49.99");
    let checkout = provider.create_checkout(&request).await.unwrap();
    paypal.buyer_approves(&checkout.approve_url).await;

    let approved = paypal.deliver(&paypal.take_event("CHECKOUT.ORDER.APPROVED"), Tamper::None);
    let events = verify(&provider, &approved).await;
    let [PaymentEvent::Paid { order, provider_txn_id, amount }] = events.as_slice() else { panic!("{events:?}") };
    assert_eq!((order, amount), (&OrderRef::Ours(request.order_id.clone()), &usd("49.99")));

    // PayPal then reports the capture; the buyer's late return reports the same one.
    let completed = paypal.deliver(&paypal.take_event("PAYMENT.CAPTURE.COMPLETED"), Tamper::None);
    assert_eq!(verify(&provider, &completed).await, events);
    assert_eq!(provider.on_return(&checkout.provider_ref, "token=x").await.unwrap(), events);
    // The same notification delivered twice maps to the same payment (credited once upstream).
    assert_eq!(verify(&provider, &approved).await, events);
    assert_eq!(paypal.captures_made(), 1);
    assert_eq!(paypal.cert_fetches(), 1, "the certificate is fetched once and kept by URL");
    assert!(!provider_txn_id.is_empty());
}

#[actix_rt::test]
async fn a_denied_capture_is_reported_failed_on_return_and_by_webhook() {
    let paypal = FakePaypal::start().await;
    let provider = paypal.provider();
    let request = coins(3, "12.99");
    let checkout = provider.create_checkout(&request).await.unwrap();
    let query = paypal.buyer_approves(&checkout.approve_url).await;
    paypal.deny_next_capture();

    let events = provider.on_return(&checkout.provider_ref, &query).await.unwrap();
    let [PaymentEvent::Failed { order, reason }] = events.as_slice() else { panic!("{events:?}") };
    assert_eq!(order, &OrderRef::Ours(request.order_id.clone()));
    assert!(reason.contains("declined") && reason.contains("DECLINED_BY_RISK_FRAUD_FILTERS"), "{reason}");

    let denied = paypal.deliver(&paypal.take_event("PAYMENT.CAPTURE.DENIED"), Tamper::None);
    let events = verify(&provider, &denied).await;
    assert!(
        matches!(events.as_slice(), [PaymentEvent::Failed { order, .. }] if order == &OrderRef::Ours(request.order_id.clone())),
        "{events:?}"
    );
}

#[actix_rt::test]
async fn refunds_and_chargebacks_are_made_and_reported_against_our_order() {
    let paypal = FakePaypal::start().await;
    let provider = paypal.provider();
    let (order, capture_id) = paid_order(&paypal, &provider, 4, "12.99").await;
    paypal.take_webhooks();

    // A partial refund; the operator's double click refunds once (same PayPal-Request-Id).
    let refund_id = provider.refund(&capture_id, &usd("5.00")).await.unwrap();
    assert_eq!(provider.refund(&capture_id, &usd("5.00")).await.unwrap(), refund_id);
    assert_eq!(paypal.queued_event_types(), ["PAYMENT.CAPTURE.REFUNDED"]);
    let refunded = paypal.take_webhooks();
    assert_eq!(
        verify(&provider, &refunded[0]).await,
        vec![PaymentEvent::Refunded {
            order: OrderRef::Ours(order.clone()),
            provider_txn_id: refund_id.clone(),
            amount: usd("5.00"),
            kind: ReversalKind::Refund,
        }]
    );

    // More than is left is PayPal's refusal, with its reason.
    let reason = refusal(provider.refund(&capture_id, &usd("12.99")).await);
    assert!(reason.contains("UNPROCESSABLE_ENTITY") && reason.contains("REFUND_AMOUNT_EXCEEDED"), "{reason}");

    // The buyer's bank takes the rest back: the reversal names only the capture, and the
    // provider finds our order through it.
    let reversal_id = paypal.reverse_capture(&capture_id);
    let reversed = paypal.deliver(&paypal.take_event("PAYMENT.CAPTURE.REVERSED"), Tamper::None);
    assert_eq!(
        verify(&provider, &reversed).await,
        vec![PaymentEvent::Refunded {
            order: OrderRef::Ours(order),
            provider_txn_id: reversal_id,
            amount: usd("7.99"),
            kind: ReversalKind::Chargeback,
        }]
    );
    assert_ne!(refund_id, capture_id);
}

#[actix_rt::test]
async fn a_subscription_is_approved_activated_renewed_refunded_and_cancelled() {
    let paypal = FakePaypal::start().await;
    let provider = paypal.provider();
    let (request, subscription_id) = monthly_plan(5);
    let ours = SubscriptionRef::Ours(subscription_id.clone());

    let checkout = provider.create_checkout(&request).await.unwrap();
    assert!(checkout.provider_ref.starts_with("I-"), "{checkout:?}");
    assert!(checkout.approve_url.starts_with(&format!("{}/webapps/billing/subscriptions?ba_token=", paypal.base)));
    assert_eq!(provider.create_checkout(&request).await.unwrap(), checkout, "PayPal-Request-Id");
    assert_eq!(paypal.subscriptions_created(), 1);
    assert_eq!(provider.on_return(&checkout.provider_ref, "").await.unwrap(), vec![], "not approved yet");

    let query = paypal.buyer_approves(&checkout.approve_url).await;
    assert!(query.contains(&format!("subscription_id={}", checkout.provider_ref)), "{query}");
    let started = now();
    let events = provider.on_return(&checkout.provider_ref, &query).await.unwrap();
    let [PaymentEvent::SubscriptionActivated { subscription, period_end: Some(period_end) }] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!(subscription, &ours);
    assert!((period_end - add_months(started, 1)).abs() <= 5, "a calendar month from now");

    // PayPal's notifications: the activation, and the first payment (the same activation,
    // not a renewal: nothing is credited twice).
    assert_eq!(paypal.queued_event_types(), ["BILLING.SUBSCRIPTION.ACTIVATED", "PAYMENT.SALE.COMPLETED"]);
    for webhook in paypal.take_webhooks() {
        assert_eq!(verify(&provider, &webhook).await, events);
    }

    // A month later PayPal takes the renewal.
    let sale_id = paypal.renew_subscription(&checkout.provider_ref);
    let renewal = paypal.deliver(&paypal.take_event("PAYMENT.SALE.COMPLETED"), Tamper::None);
    assert_eq!(
        verify(&provider, &renewal).await,
        vec![PaymentEvent::SubscriptionRenewed {
            subscription: ours.clone(),
            provider_txn_id: sale_id.clone(),
            amount: usd(PLANS[0].2),
            period_end: Some(add_months(*period_end, 1)),
        }]
    );
    // A renewal is a v1 sale: refunded through the sale API.
    let refund_id = provider.refund(&sale_id, &usd(PLANS[0].2)).await.unwrap();
    assert!(!refund_id.is_empty() && refund_id != sale_id);
    assert_eq!(paypal.queued_event_types(), ["PAYMENT.SALE.REFUNDED"]);
    paypal.take_webhooks();

    // Cancelling stops renewal at PayPal; cancelling again is not an error.
    provider.cancel_subscription(&checkout.provider_ref, "The subscriber cancelled in Amora").await.unwrap();
    assert_eq!(paypal.subscription_status(&checkout.provider_ref), "CANCELLED");
    provider.cancel_subscription(&checkout.provider_ref, "").await.unwrap();
    let cancelled = paypal.deliver(&paypal.take_event("BILLING.SUBSCRIPTION.CANCELLED"), Tamper::None);
    assert_eq!(
        verify(&provider, &cancelled).await,
        vec![PaymentEvent::SubscriptionCancelled { subscription: ours.clone() }]
    );
    assert_eq!(
        provider.on_return(&checkout.provider_ref, "").await.unwrap(),
        vec![PaymentEvent::SubscriptionCancelled { subscription: ours }]
    );
}

#[actix_rt::test]
async fn suspended_and_expired_subscriptions_are_reported_as_stopped() {
    let paypal = FakePaypal::start().await;
    let provider = paypal.provider();
    let mut stopped = Vec::new();
    for (n, status, event_type) in
        [(6, "SUSPENDED", "BILLING.SUBSCRIPTION.SUSPENDED"), (7, "EXPIRED", "BILLING.SUBSCRIPTION.EXPIRED")]
    {
        let (request, subscription_id) = monthly_plan(n);
        let checkout = provider.create_checkout(&request).await.unwrap();
        paypal.buyer_approves(&checkout.approve_url).await;
        paypal.take_webhooks();
        paypal.end_subscription(&checkout.provider_ref, status, event_type);
        let webhook = paypal.deliver(&paypal.take_event(event_type), Tamper::None);
        assert_eq!(
            verify(&provider, &webhook).await,
            vec![PaymentEvent::SubscriptionCancelled { subscription: SubscriptionRef::Ours(subscription_id) }],
            "{event_type}"
        );
        stopped.push(checkout.provider_ref);
    }
    // A suspended subscription can still be cancelled; an expired one needs no cancelling,
    // and asking is not an error.
    provider.cancel_subscription(&stopped[0], "The subscriber cancelled in Amora").await.unwrap();
    assert_eq!(paypal.subscription_status(&stopped[0]), "CANCELLED");
    provider.cancel_subscription(&stopped[1], "The subscriber cancelled in Amora").await.unwrap();
    assert_eq!(paypal.subscription_status(&stopped[1]), "EXPIRED");
}

#[actix_rt::test]
async fn tampered_replayed_or_foreign_notifications_are_refused() {
    let paypal = FakePaypal::start().await;
    let provider = paypal.provider();
    paid_order(&paypal, &provider, 8, "12.99").await;
    let event = paypal.take_event("PAYMENT.CAPTURE.COMPLETED");
    assert_eq!(verify(&provider, &paypal.deliver(&event, Tamper::None)).await.len(), 1, "the honest one passes");

    let port = paypal.base.rsplit(':').next().unwrap().to_owned();
    let cases = [
        ("wrong signature", Tamper::WrongSignature, "signature does not match"),
        ("body changed after signing", Tamper::BodyChangedAfterSigning, "signature does not match"),
        ("signed for another webhook", Tamper::WebhookId("1JE4291016473214C".into()), "signature does not match"),
        (
            "certificate from a host not allowed",
            Tamper::CertUrl(format!("http://127.0.0.2:{port}/v1/notifications/certs/{GOOD_CERT}")),
            "not an allowed certificate host",
        ),
        (
            "certificate from elsewhere",
            Tamper::CertUrl(format!("https://certs.evil.example/v1/notifications/certs/{GOOD_CERT}")),
            "not an allowed certificate host",
        ),
        (
            "not a certificate path",
            Tamper::CertUrl(format!("{}/v1/oauth2/token", paypal.base)),
            "not a PayPal certificate path",
        ),
        ("no certificate there", Tamper::CertUrl(paypal.cert_url("CERT-00000000-00000000-missing")), "answered 404"),
        ("expired certificate", Tamper::Cert(EXPIRED_CERT), "not trusted"),
        ("certificate of an untrusted CA", Tamper::Cert(ROGUE_CERT), "not trusted"),
        ("replayed ten minutes later", Tamper::SentSecondsAgo(600), "replay"),
        ("sent from the future", Tamper::SentSecondsAgo(-600), "future"),
        ("another algorithm", Tamper::AuthAlgo("SHA1withRSA".into()), "paypal-auth-algo"),
        ("no signature", Tamper::WithoutHeader("paypal-transmission-sig"), "paypal-transmission-sig"),
        ("no transmission id", Tamper::WithoutHeader("paypal-transmission-id"), "paypal-transmission-id"),
        ("no transmission time", Tamper::WithoutHeader("paypal-transmission-time"), "paypal-transmission-time"),
        ("no certificate URL", Tamper::WithoutHeader("paypal-cert-url"), "paypal-cert-url"),
        ("no algorithm", Tamper::WithoutHeader("paypal-auth-algo"), "paypal-auth-algo"),
    ];
    for (case, tamper, expected) in cases {
        let reason = refused_as_bad(provider.verify_callback(&paypal.deliver(&event, tamper)).await, case);
        assert!(reason.contains(expected), "{case}: {reason}");
    }

    // A signature that is not Base64, and a signed body that is not a PayPal event.
    let mut callback = paypal.deliver(&event, Tamper::None);
    for (name, value) in &mut callback.headers {
        if name == "paypal-transmission-sig" {
            *value = "not base64!".into();
        }
    }
    refused_as_bad(provider.verify_callback(&callback).await, "signature not Base64");
    refused_as_bad(
        provider.verify_callback(&paypal.deliver(&json!("not an event"), Tamper::None)).await,
        "not an event",
    );

    // PayPal's defaults never allow the loopback: the same honest notification is refused
    // by a provider with the default certificate hosts...
    let defaults = PaypalSettings { cert_hosts: PaypalSettings::default().cert_hosts, ..paypal.settings() };
    let strict = PaypalProvider::new(defaults).unwrap().unwrap();
    let reason = refused_as_bad(strict.verify_callback(&paypal.deliver(&event, Tamper::None)).await, "default hosts");
    assert!(reason.contains("not an allowed certificate host"), "{reason}");
    // ...and by one trusting only the public roots, not the test's CA.
    let public_roots = PaypalSettings { cert_ca_file: String::new(), ..paypal.settings() };
    let public = PaypalProvider::new(public_roots).unwrap().unwrap();
    let reason = refused_as_bad(public.verify_callback(&paypal.deliver(&event, Tamper::None)).await, "public roots");
    assert!(reason.contains("not trusted"), "{reason}");
}

#[actix_rt::test]
async fn events_nobody_acts_on_are_acknowledged_with_no_events() {
    let paypal = FakePaypal::start().await;
    let provider = paypal.provider();
    let dispute = paypal.event(
        "CUSTOMER.DISPUTE.CREATED",
        json!({ "dispute_id": "PP-D-27803", "reason": "MERCHANDISE_OR_SERVICE_NOT_RECEIVED" }),
    );
    assert_eq!(verify(&provider, &paypal.deliver(&dispute, Tamper::None)).await, vec![]);
    let not_a_subscription = paypal.event(
        "PAYMENT.SALE.COMPLETED",
        json!({ "id": "80F85758S3080410K", "state": "completed", "amount": { "total": "21.00", "currency": "USD" } }),
    );
    assert_eq!(verify(&provider, &paypal.deliver(&not_a_subscription, Tamper::None)).await, vec![]);
    // A known event whose resource makes no sense is refused, signature or not.
    let nonsense = paypal.event(
        "PAYMENT.CAPTURE.COMPLETED",
        json!({ "id": "3C1", "amount": { "currency_code": "USD", "value": "12.999" } }),
    );
    refused_as_bad(provider.verify_callback(&paypal.deliver(&nonsense, Tamper::None)).await, "nonsense");
}

#[actix_rt::test]
async fn paypal_errors_become_refusals_that_name_paypal_reason_and_no_secret() {
    let paypal = FakePaypal::start().await;
    let provider = paypal.provider();

    let wrong_secret = PaypalSettings { client_secret: "EWrongSecretValue-123".into(), ..paypal.settings() };
    let reason = refusal(PaypalProvider::new(wrong_secret).unwrap().unwrap().create_checkout(&coins(9, "1.00")).await);
    assert!(reason.contains("invalid_client") && !reason.contains("EWrongSecretValue-123"), "{reason}");

    let reason = refusal(provider.create_checkout(&coins(10, "0.00")).await);
    assert!(reason.starts_with("UNPROCESSABLE_ENTITY: ") && reason.contains("CANNOT_BE_ZERO_OR_NEGATIVE"), "{reason}");
    assert!(reason.contains("debug id"), "PayPal's debug id helps its support: {reason}");
    let yen = CheckoutRequest { amount: Money::new(1200, Currency::parse("JPY").unwrap()), ..coins(11, "1.00") };
    assert!(refusal(provider.create_checkout(&yen).await).contains("CURRENCY_NOT_SUPPORTED"));

    let unknown_plan = PaypalSettings {
        plan_ids: amora_server::payments::paypal::PaypalPlanIds {
            month: "P-0NJ10521L3680291SOAQIVTQ".into(),
            quarter: String::new(),
            year: String::new(),
        },
        ..paypal.settings()
    };
    let unknown_plan = PaypalProvider::new(unknown_plan).unwrap().unwrap();
    assert!(refusal(unknown_plan.create_checkout(&monthly_plan(12).0).await).contains("RESOURCE_NOT_FOUND"));
    let yearly = CheckoutRequest {
        subscription: Some(SubscriptionCheckout { subscription_id: monthly_plan(13).1, period: PlanPeriod::Year }),
        ..monthly_plan(13).0
    };
    assert!(matches!(unknown_plan.create_checkout(&yearly).await, Err(ProviderError::Unsupported(_))), "no plan id");

    assert!(refusal(provider.refund("9XJ12345AB1234567", &usd("1.00")).await).contains("INVALID_RESOURCE_ID"));
    assert!(refusal(provider.cancel_subscription("I-NOSUCHTHING1", "bye").await).contains("RESOURCE_NOT_FOUND"));
    assert!(refusal(provider.on_return("NOSUCHORDER12345", "").await).contains("RESOURCE_NOT_FOUND"));

    let nowhere = PaypalSettings { api_base: "http://127.0.0.1:9".into(), ..paypal.settings() };
    let nowhere = PaypalProvider::new(nowhere).unwrap().unwrap();
    assert!(matches!(nowhere.create_checkout(&coins(14, "1.00")).await, Err(ProviderError::Unavailable(_))));
}
