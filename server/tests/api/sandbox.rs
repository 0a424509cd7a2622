//! The sandbox's test checkout, its pages served on loopback as the server will serve them
//! (`sandbox::configure`), with a callback sink that runs the provider's own
//! `verify_callback` as the server's callback path does.

use std::sync::{Arc, Mutex};

use actix_web::{App, HttpServer, web};
use amora_domain::payment::{PlanPeriod, add_months};
use amora_server::payments::hosted::signature_header;
use amora_server::payments::sandbox::{
    CallbackSink, SandboxMode, SandboxPages, SandboxProvider, SandboxSettings, configure,
};
use amora_server::payments::{
    Callback, CheckoutRequest, OrderRef, PaymentEvent, PaymentProvider, ProviderError, SubscriptionRef,
};
use futures_util::FutureExt;

use crate::fakes::{CallbackReceiver, checkout_request, loopback, money};

struct Sandbox {
    base: String,
    provider: Arc<SandboxProvider>,
    pages: web::Data<SandboxPages>,
    events: Arc<Mutex<Vec<PaymentEvent>>>,
    browser: reqwest::Client,
}

fn settings(ttl: u64, max: usize) -> SandboxSettings {
    SandboxSettings { enabled: SandboxMode::Auto, checkout_ttl_secs: ttl, max_checkouts: max }
}

async fn start_with(settings: SandboxSettings) -> Sandbox {
    let provider = Arc::new(SandboxProvider::new(&settings));
    let events = Arc::new(Mutex::new(Vec::new()));
    let (sink_provider, sink_events) = (provider.clone(), events.clone());
    let sink: CallbackSink = Arc::new(move |callback: Callback| {
        let (provider, events) = (sink_provider.clone(), sink_events.clone());
        async move {
            let verified = provider.verify_callback(&callback).await.map_err(|e| e.to_string())?;
            events.lock().unwrap().extend(verified.events);
            Ok(verified.answer)
        }
        .boxed()
    });
    let pages = web::Data::new(SandboxPages::new(provider.clone(), sink));
    let data = pages.clone();
    let (listener, base) = loopback();
    let server = HttpServer::new(move || App::new().app_data(data.clone()).configure(configure))
        .workers(1)
        .listen(listener)
        .unwrap();
    actix_rt::spawn(server.run());
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    Sandbox { base, provider, pages, events, browser }
}

async fn start() -> Sandbox {
    start_with(settings(3600, 100)).await
}

/// The value of the page's hidden `token` field.
fn token_in(page: &str) -> String {
    let start = page.find("name=\"token\" value=\"").expect("no token in the page") + 20;
    page[start..].split('"').next().unwrap().to_owned()
}

impl Sandbox {
    fn events(&self) -> Vec<PaymentEvent> {
        self.events.lock().unwrap().clone()
    }

    async fn checkout(&self, plan: Option<PlanPeriod>) -> (CheckoutRequest, String) {
        let request = checkout_request("http://unused.test/notify", money(1299, "USD"), plan);
        let checkout = self.provider.create_checkout(&request).await.unwrap();
        assert!(checkout.approve_url.starts_with("/lust/pay/sandbox/sbx_"), "{}", checkout.approve_url);
        assert_eq!(checkout.approve_url, format!("/lust/pay/sandbox/{}", checkout.provider_ref));
        (request, checkout.approve_url)
    }

    async fn get(&self, path: &str) -> (u16, String) {
        let response = self.browser.get(format!("{}{path}", self.base)).send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    /// Presses a button: posts the form with `token`; answers the status and `Location`.
    async fn press(&self, path: &str, token: &str) -> (u16, Option<String>) {
        let response =
            self.browser.post(format!("{}{path}", self.base)).form(&[("token", token)]).send().await.unwrap();
        let location = response.headers().get("location").map(|v| v.to_str().unwrap().to_owned());
        (response.status().as_u16(), location)
    }
}

#[actix_rt::test]
async fn the_test_checkout_page_says_no_money_moves_and_pay_reports_a_payment_then_returns() {
    let s = start().await;
    let (request, page_path) = s.checkout(None).await;

    let response = s.browser.get(format!("{}{page_path}", s.base)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let csp = response.headers().get("content-security-policy").unwrap().to_str().unwrap().to_owned();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    let page = response.text().await.unwrap();
    assert!(page.contains("Test payment — no money moves"));
    assert!(page.contains("<title>TEST payment"));
    assert!(page.contains("12.99 USD") && page.contains(request.order_id.as_str()));
    assert!(!page.contains("<script") && !page.contains("src=\"http"), "self-contained");
    for button in ["/pay\"", "/decline\"", "/later\""] {
        assert!(page.contains(button), "{button}");
    }

    let (status, location) = s.press(&format!("{page_path}/pay"), &token_in(&page)).await;
    assert_eq!((status, location.as_deref()), (303, Some(request.return_url.as_str())));
    let events = s.events();
    match events.as_slice() {
        [PaymentEvent::Paid { order, provider_txn_id, amount }] => {
            assert_eq!(order, &OrderRef::Ours(request.order_id.clone()));
            assert!(provider_txn_id.starts_with("sbx_txn_"));
            assert_eq!(amount, &money(1299, "USD"));
        }
        other => panic!("{other:?}"),
    }

    // Pressing Pay again (a double click, the back button) reports nothing more.
    let (status, _) = s.press(&format!("{page_path}/pay"), &token_in(&page)).await;
    assert_eq!(status, 303);
    assert_eq!(s.events().len(), 1);
    assert!(s.get(&page_path).await.1.contains("was paid"));
}

#[actix_rt::test]
async fn decline_reports_a_failure_and_pay_later_leaves_the_order_pending_until_paid() {
    let s = start().await;
    let (declined, path) = s.checkout(None).await;
    let token = token_in(&s.get(&path).await.1);
    assert_eq!(s.press(&format!("{path}/decline"), &token).await, (303, Some(declined.return_url.clone())));

    let (later, path) = s.checkout(None).await;
    let token = token_in(&s.get(&path).await.1);
    assert_eq!(s.press(&format!("{path}/later"), &token).await.0, 303);
    let page = s.get(&path).await.1;
    assert!(page.contains("pay later") && page.contains("/pay\""), "still payable");
    assert_eq!(s.press(&format!("{path}/pay"), &token).await.0, 303);

    let events = s.events();
    assert_eq!(events.len(), 3, "{events:?}");
    assert!(
        matches!(&events[0], PaymentEvent::Failed { order, .. } if *order == OrderRef::Ours(declined.order_id.clone()))
    );
    assert_eq!(events[1], PaymentEvent::Pending { order: OrderRef::Ours(later.order_id.clone()) });
    assert!(matches!(&events[2], PaymentEvent::Paid { order, .. } if *order == OrderRef::Ours(later.order_id.clone())));
}

#[actix_rt::test]
async fn buttons_without_the_pages_token_or_on_unknown_checkouts_do_nothing() {
    let s = start().await;
    let (_, path) = s.checkout(None).await;
    assert_eq!(s.press(&format!("{path}/pay"), "forged-token").await.0, 403);
    assert_eq!(s.press(&format!("{path}/pay"), "").await.0, 403);
    let no_form = s.browser.post(format!("{}{path}/pay", s.base)).send().await.unwrap();
    assert!(no_form.status().is_client_error());
    let token = token_in(&s.get(&path).await.1);
    assert_eq!(s.press(&format!("{path}/refund"), &token).await.0, 404);
    assert_eq!(s.press("/lust/pay/sandbox/sbx_unknown/pay", &token).await.0, 404);
    assert_eq!(s.get("/lust/pay/sandbox/sbx_unknown").await.0, 404);
    assert!(s.events().is_empty());
}

#[actix_rt::test]
async fn a_test_plan_starts_renews_by_hand_and_is_cancelled() {
    let s = start().await;
    let (request, path) = s.checkout(Some(PlanPeriod::Month)).await;
    let subscription = request.subscription.clone().unwrap().subscription_id;
    let page = s.get(&path).await.1;
    assert!(page.contains("every 1 month(s)"));
    assert_eq!(s.press(&format!("{path}/pay"), &token_in(&page)).await.0, 303);

    let events = s.events();
    let ours = SubscriptionRef::Ours(subscription.clone());
    let first_end = match events.as_slice() {
        [PaymentEvent::Paid { .. }, PaymentEvent::SubscriptionActivated { subscription, period_end: Some(end) }] => {
            assert_eq!(subscription, &ours);
            *end
        }
        other => panic!("{other:?}"),
    };
    assert!(s.get(&path).await.1.contains(&format!("/lust/pay/sandbox/subscriptions/{subscription}")));

    let sub_path = format!("/lust/pay/sandbox/subscriptions/{subscription}");
    let (status, page) = s.get(&sub_path).await;
    assert_eq!(status, 200);
    assert!(page.contains("Test payment — no money moves") && page.contains("renewing"));
    let token = token_in(&page);
    assert_eq!(s.press(&format!("{sub_path}/renew"), "forged").await.0, 403);
    assert_eq!(s.press(&format!("{sub_path}/renew"), &token).await, (303, Some(sub_path.clone())));
    assert_eq!(s.press(&format!("{sub_path}/renew"), &token).await.0, 303);
    assert_eq!(s.press(&format!("{sub_path}/cancel"), &token).await.0, 303);
    assert_eq!(s.press(&format!("{sub_path}/renew"), &token).await.0, 409, "a cancelled plan does not renew");
    assert!(s.get(&sub_path).await.1.contains("cancelled at the processor"));

    let events = s.events();
    assert_eq!(events.len(), 5, "{events:?}");
    let mut txns = Vec::new();
    for (event, end) in events[2..4].iter().zip([add_months(first_end, 1), add_months(first_end, 2)]) {
        match event {
            PaymentEvent::SubscriptionRenewed { subscription, provider_txn_id, amount, period_end } => {
                assert_eq!((subscription, amount, *period_end), (&ours, &money(1299, "USD"), Some(end)));
                txns.push(provider_txn_id.clone());
            }
            other => panic!("{other:?}"),
        }
    }
    assert_ne!(txns[0], txns[1], "each renewal is its own payment");
    assert_eq!(events[4], PaymentEvent::SubscriptionCancelled { subscription: ours });

    // The server's own cancellation (the user's, from /subscriptionmanage) is accepted even
    // for a subscription the sandbox has forgotten.
    assert!(s.provider.cancel_subscription(subscription.as_str(), "user").await.is_ok());
    assert!(s.provider.cancel_subscription("sub_forgotten", "user").await.is_ok());
    assert!(s.provider.refund("sbx_txn_x", &money(1299, "USD")).await.unwrap().starts_with("sbx_rf_"));
}

#[actix_rt::test]
async fn unpaid_test_checkouts_expire_and_are_reported_expired_once() {
    let s = start_with(settings(0, 100)).await;
    let (request, path) = s.checkout(None).await;
    assert_eq!(s.get(&path).await.0, 404, "expired at once with a TTL of 0");
    assert_eq!(s.press(&format!("{path}/pay"), "whatever").await.0, 404);
    assert_eq!(s.pages.sweep_expired().await, 1);
    assert_eq!(s.pages.sweep_expired().await, 0);
    assert_eq!(s.events(), vec![PaymentEvent::Expired { order: OrderRef::Ours(request.order_id) }]);
}

#[actix_rt::test]
async fn test_checkouts_are_bounded_in_number() {
    let s = start_with(settings(3600, 2)).await;
    s.checkout(None).await;
    s.checkout(None).await;
    let request = checkout_request("http://unused.test/notify", money(999, "USD"), None);
    assert!(matches!(s.provider.create_checkout(&request).await, Err(ProviderError::Unavailable(_))));
}

#[actix_rt::test]
async fn what_the_order_says_is_escaped_on_the_page() {
    let s = start().await;
    let mut request = checkout_request("http://unused.test/notify", money(999, "USD"), None);
    request.description = "<script>alert('x')</script> & \"more\"".into();
    let checkout = s.provider.create_checkout(&request).await.unwrap();
    let page = s.get(&checkout.approve_url).await.1;
    assert!(!page.contains("<script>"));
    assert!(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"));
}

#[actix_rt::test]
async fn a_callback_not_signed_by_this_sandbox_is_refused() {
    let s = start().await;
    let body = br#"{"eventId":"evt_1","type":"payment.succeeded","merchantId":"amora-sandbox","orderId":"ord_0123456789abcdefghijklmn","transactionId":"t","amount":"12.99","currency":"USD"}"#;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let callback = Callback {
        headers: vec![("x-signature".into(), signature_header("a guessed secret", now, body))],
        query: String::new(),
        body: body.to_vec(),
    };
    assert!(matches!(s.provider.verify_callback(&callback).await, Err(ProviderError::BadCallback(_))));
}

#[actix_rt::test]
async fn over_http_the_sandbox_posts_its_callbacks_to_the_notify_url() {
    let provider = Arc::new(SandboxProvider::new(&settings(3600, 10)));
    let receiver = CallbackReceiver::start(provider.clone()).await;
    let pages = web::Data::new(SandboxPages::over_http(provider.clone()).unwrap());
    let data = pages.clone();
    let (listener, base) = loopback();
    let server = HttpServer::new(move || App::new().app_data(data.clone()).configure(configure))
        .workers(1)
        .listen(listener)
        .unwrap();
    actix_rt::spawn(server.run());
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();

    let request = checkout_request(&receiver.url, money(1299, "USD"), None);
    let checkout = provider.create_checkout(&request).await.unwrap();
    let page = browser.get(format!("{base}{}", checkout.approve_url)).send().await.unwrap().text().await.unwrap();

    // Amora is down for the first press: nothing changes and the page says so.
    receiver.fail_next(1);
    let pay = format!("{base}{}/pay", checkout.approve_url);
    let failed = browser.post(&pay).form(&[("token", token_in(&page))]).send().await.unwrap();
    assert_eq!(failed.status(), 502);
    assert!(receiver.events().is_empty());

    let paid = browser.post(&pay).form(&[("token", token_in(&page))]).send().await.unwrap();
    assert_eq!(paid.status(), 303);
    assert!(matches!(receiver.events().as_slice(), [PaymentEvent::Paid { amount, .. }] if amount.minor == 1299));
}
