//! The zPay provider against a loopback zPay: signed submissions (API and page form),
//! signed notifications resent until `success`, refunds, and every way a notification can
//! be wrong.

use std::sync::Arc;

use amora_server::payments::zpay::{ZPayProvider, ZPaySettings};
use amora_server::payments::{CheckoutRequest, OrderRef, PaymentEvent, PaymentProvider, ProviderError};

use crate::fakes::zpay::{KEY, MAX_ATTEMPTS, ZPayFake, sign};
use crate::fakes::{CallbackReceiver, checkout_request, money};

struct Setup {
    fake: ZPayFake,
    receiver: CallbackReceiver,
    provider: Arc<ZPayProvider>,
}

async fn setup() -> Setup {
    let fake = ZPayFake::start().await;
    let provider = Arc::new(ZPayProvider::from_settings(&fake.settings()).unwrap().unwrap());
    let receiver = CallbackReceiver::start(provider.clone()).await;
    Setup { fake, receiver, provider }
}

impl Setup {
    /// An order through `mapi.php`, as the server makes one (it knows the buyer's address).
    async fn order(&self, minor: u64) -> CheckoutRequest {
        let mut request = checkout_request(&self.receiver.url, money(minor, "CNY"), None);
        request.client_ip = Some("203.0.113.7".into());
        self.provider.create_checkout(&request).await.unwrap();
        request
    }
}

#[actix_rt::test]
async fn an_api_order_gives_a_qr_code_and_its_notification_is_a_payment_acknowledged_with_success() {
    let s = setup().await;
    let mut request = checkout_request(&s.receiver.url, money(8800, "CNY"), None);
    request.client_ip = Some("203.0.113.7".into());
    let checkout = s.provider.create_checkout(&request).await.unwrap();

    let order = s.fake.order(request.order_id.as_str());
    assert_eq!(
        (order.via.as_str(), order.money.as_str(), order.client_ip.as_deref()),
        ("mapi.php", "88.00", Some("203.0.113.7"))
    );
    assert_eq!(checkout.provider_ref, order.trade_no);
    assert_eq!(checkout.qr_payload, Some(format!("https://qr.alipay.com/bax{}", order.trade_no)));
    assert_eq!(checkout.approve_url, format!("{}/cashier/{}", s.fake.base, order.trade_no));

    let delivery = s.fake.pay(request.order_id.as_str()).await;
    assert_eq!((delivery.attempts, delivery.last_body.as_str()), (1, "success"));
    assert_eq!(
        s.receiver.events(),
        vec![PaymentEvent::Paid {
            order: OrderRef::Ours(request.order_id.clone()),
            provider_txn_id: order.trade_no,
            amount: money(8800, "CNY")
        }]
    );
}

#[actix_rt::test]
async fn zpay_resends_a_notification_until_it_hears_success() {
    let s = setup().await;
    let request = s.order(1299).await;
    s.receiver.fail_next(3);
    let delivery = s.fake.pay(request.order_id.as_str()).await;
    assert_eq!((delivery.attempts, delivery.last_body.as_str()), (4, "success"));
    assert_eq!(s.receiver.deliveries(), 4);
    assert_eq!(s.receiver.events().len(), 1, "only the delivery that was handled counts");

    // A merchant that never acknowledges is retried up to zPay's limit, then left.
    let other = s.order(1299).await;
    s.receiver.fail_next(usize::MAX);
    let delivery = s.fake.pay(other.order_id.as_str()).await;
    assert_eq!((delivery.attempts, delivery.last_status), (MAX_ATTEMPTS, 500));
}

#[actix_rt::test]
async fn without_the_buyers_address_the_checkout_is_zpays_signed_page_form() {
    let s = setup().await;
    let request = checkout_request(&s.receiver.url, money(1299, "CNY"), None);
    let checkout = s.provider.create_checkout(&request).await.unwrap();
    assert!(checkout.approve_url.starts_with(&format!("{}/submit.php?", s.fake.base)), "{}", checkout.approve_url);
    assert_eq!(checkout.qr_payload.as_deref(), Some(checkout.approve_url.as_str()), "a phone can open the cashier");

    // The buyer's browser opens it: zPay checks the signature and shows its cashier.
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let response = browser.get(&checkout.approve_url).send().await.unwrap();
    assert_eq!(response.status(), 302, "{:?}", response.text().await);
    let order = s.fake.order(request.order_id.as_str());
    assert_eq!((order.via.as_str(), order.money.as_str()), ("submit.php", "12.99"));

    // Changing the amount in that URL breaks the signature.
    let tampered = checkout.approve_url.replace("money=12.99", "money=0.01");
    let answer = browser.get(&tampered).send().await.unwrap().text().await.unwrap();
    assert!(answer.contains("\"code\":\"error\""), "{answer}");

    assert_eq!(s.fake.pay(request.order_id.as_str()).await.last_body, "success");
    assert!(matches!(s.receiver.events().as_slice(), [PaymentEvent::Paid { amount, .. }] if amount.minor == 1299));
}

#[actix_rt::test]
async fn zpay_refuses_a_submission_signed_with_another_key_or_for_another_merchant() {
    let fake = ZPayFake::start().await;
    for settings in [
        ZPaySettings { key: "not-our-key".into(), ..fake.settings() },
        ZPaySettings { pid: "20249999999999".into(), ..fake.settings() },
    ] {
        let provider = ZPayProvider::from_settings(&settings).unwrap().unwrap();
        let mut request = checkout_request("http://127.0.0.1:9/notify", money(1299, "CNY"), None);
        request.client_ip = Some("203.0.113.7".into());
        match provider.create_checkout(&request).await {
            Err(ProviderError::Refused(message)) => assert!(message.starts_with("zPay: "), "{message}"),
            other => panic!("{other:?}"),
        }
    }
}

#[actix_rt::test]
async fn an_order_in_another_currency_is_not_sent_to_zpay() {
    let s = setup().await;
    let request = checkout_request(&s.receiver.url, money(1299, "USD"), None);
    assert!(matches!(s.provider.create_checkout(&request).await, Err(ProviderError::Unsupported(_))));
}

#[actix_rt::test]
async fn forged_altered_unsigned_foreign_and_inexact_notifications_are_refused() {
    let s = setup().await;
    let request = s.order(1299).await;
    let id = request.order_id.as_str();
    let url = s.receiver.url.clone();
    let good = s.fake.notification(id, "TRADE_SUCCESS", KEY);

    // Signed with another key.
    let (status, body) = s.fake.get(&url, &s.fake.notification(id, "TRADE_SUCCESS", "another-key")).await;
    assert_eq!((status, body.as_str()), (400, "refused"), "not `success`: zPay will resend, and may");
    // Signed, then the amount changed.
    let mut altered = good.clone();
    altered.insert("money".into(), "1299.00".into());
    assert_eq!(s.fake.get(&url, &altered).await.0, 400);
    // A parameter added after signing is signed like the others, so it breaks the signature.
    let mut added = good.clone();
    added.insert("buyer".into(), "someone".into());
    assert_eq!(s.fake.get(&url, &added).await.0, 400);
    // No signature, an empty one, and another sign_type.
    let mut unsigned = good.clone();
    unsigned.remove("sign");
    assert_eq!(s.fake.get(&url, &unsigned).await.0, 400);
    unsigned.insert("sign".into(), String::new());
    assert_eq!(s.fake.get(&url, &unsigned).await.0, 400);
    let mut rsa = good.clone();
    rsa.insert("sign_type".into(), "RSA".into());
    assert_eq!(s.fake.get(&url, &rsa).await.0, 400);
    // Correctly signed, for another merchant.
    let mut foreign = good.clone();
    foreign.insert("pid".into(), "20249999999999".into());
    let signature = sign(&foreign, KEY);
    foreign.insert("sign".into(), signature);
    assert_eq!(s.fake.get(&url, &foreign).await.0, 400);
    // Correctly signed, an amount that is not exact cents.
    let mut inexact = good.clone();
    inexact.insert("money".into(), "12.990000001".into());
    let signature = sign(&inexact, KEY);
    inexact.insert("sign".into(), signature);
    assert_eq!(s.fake.get(&url, &inexact).await.0, 400);
    // A parameter twice.
    let query: String = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(good.iter()).finish();
    let twice = reqwest::get(format!("{url}?{query}&money=0.01")).await.unwrap();
    assert_eq!(twice.status(), 400);

    assert!(s.receiver.events().is_empty(), "{:?}", s.receiver.events());
    assert_eq!(s.receiver.refusals().len(), 9, "{:?}", s.receiver.refusals());

    // The genuine one still goes through, also when POSTed as a form.
    let (status, body) = s.fake.post(&url, &good).await;
    assert_eq!((status, body.as_str()), (200, "success"));
    assert_eq!(s.receiver.events().len(), 1);
}

#[actix_rt::test]
async fn a_status_other_than_trade_success_is_acknowledged_and_changes_nothing() {
    let s = setup().await;
    let request = s.order(1299).await;
    let waiting = s.fake.notification(request.order_id.as_str(), "WAIT_BUYER_PAY", KEY);
    let (status, body) = s.fake.get(&s.receiver.url, &waiting).await;
    assert_eq!((status, body.as_str()), (200, "success"));
    assert!(s.receiver.events().is_empty() && s.receiver.refusals().is_empty());
}

#[actix_rt::test]
async fn a_paid_order_is_refunded_through_zpays_refund_api() {
    let s = setup().await;
    let request = s.order(1299).await;
    s.fake.pay(request.order_id.as_str()).await;
    let trade_no = s.fake.order(request.order_id.as_str()).trade_no;
    let refund = s.provider.refund(&trade_no, &money(1299, "CNY")).await.unwrap();
    assert_eq!(refund, trade_no);
    assert_eq!(s.fake.refunds(), vec![(request.order_id.to_string(), "12.99".to_owned())]);
    // zPay refuses to refund what was never paid.
    let unpaid = s.order(500).await;
    let unpaid_trade = s.fake.order(unpaid.order_id.as_str()).trade_no;
    assert!(matches!(s.provider.refund(&unpaid_trade, &money(500, "CNY")).await, Err(ProviderError::Refused(_))));
}

#[actix_rt::test]
async fn the_buyers_signed_return_is_believed_and_a_forged_one_is_not() {
    let s = setup().await;
    let request = s.order(1299).await;
    let id = request.order_id.as_str();
    let query = |params: &std::collections::BTreeMap<String, String>| -> String {
        url::form_urlencoded::Serializer::new(String::new()).extend_pairs(params.iter()).finish()
    };
    let events = s.provider.on_return(id, &query(&s.fake.notification(id, "TRADE_SUCCESS", KEY))).await.unwrap();
    assert!(matches!(events.as_slice(), [PaymentEvent::Paid { .. }]));
    assert!(s.provider.on_return(id, "").await.unwrap().is_empty());
    let forged = query(&s.fake.notification(id, "TRADE_SUCCESS", "guess"));
    assert!(matches!(s.provider.on_return(id, &forged).await, Err(ProviderError::BadCallback(_))));
}
