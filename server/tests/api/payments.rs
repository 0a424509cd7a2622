//! The whole money loop against the real server (issue 14): orders made through each
//! route's endpoint, paid at a loopback processor that follows its published protocol (or
//! at Amora's own sandbox), its signed notification taken by `/lust/pay/notify/{route}`,
//! the ledger credited once through the user's actor, plans as subscriptions deciding
//! `userVipType`, renewals, cancellations, refunds, and every bad input refused with nothing
//! changed. After each test the balance equals the sum of the ledger rows.

use std::time::Duration;

use amora_domain::account::UserId;
use amora_server::settings::Settings;
use serde_json::{Value, json};

use crate::cluster::{Socket, free_port, make_user};
use crate::fakes::hosted::HostedFake;
use crate::fakes::nowpayments::NowPaymentsFake;
use crate::fakes::paypal::{FakePaypal, Tamper};
use crate::fakes::zpay::ZPayFake;
use crate::helpers::{TestApp, spawn_app_customised};

const OPERATOR: &str = "payments-operator-token";
const WAIT: Duration = Duration::from_secs(10);

/// A server on a known port (processors call back on `public_base_url`), with `customise`
/// applied to its settings.
async fn payments_app(customise: impl FnOnce(&mut Settings)) -> TestApp {
    let port = free_port();
    let env = vec![
        ("AMORA_HTTP__PORT".to_owned(), port.to_string()),
        ("AMORA_HTTP__PUBLIC_BASE_URL".to_owned(), format!("http://127.0.0.1:{port}")),
        ("AMORA_ADMIN__TOKEN".to_owned(), OPERATOR.to_owned()),
    ];
    spawn_app_customised(env, customise).await
}

struct Buyer {
    user_id: UserId,
    user_no: String,
    voucher: String,
}

async fn buyer(app: &TestApp, name: &str) -> Buyer {
    let (user_id, user_no, voucher) = make_user(&app.store, name).await;
    Buyer { user_id, user_no, voucher }
}

async fn socket(app: &TestApp, voucher: &str) -> Socket {
    let url = format!("{}/lust/api/ws?voucher={voucher}", app.address.replacen("http", "ws", 1));
    let mut socket = Socket { stream: tokio_tungstenite::connect_async(url).await.unwrap().0 };
    socket.wait_for("hello", WAIT).await.expect("hello");
    socket
}

/// `pay/<endpoint> {productId}`: (code, data, msg).
async fn order(app: &TestApp, who: &Buyer, endpoint: &str, product: &str) -> (u64, Value, String) {
    let (envelope, _) =
        app.post_api_as(Some(&who.voucher), &format!("/user/v1/pay/{endpoint}"), json!({ "productId": product })).await;
    (envelope.code, envelope.data, envelope.msg)
}

async fn payment(app: &TestApp, who: &Buyer, order_id: &str) -> Value {
    let (envelope, _) =
        app.post_api_as(Some(&who.voucher), "/user/v1/payment/getUserLastFlowId", json!({ "orderId": order_id })).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    envelope.data
}

async fn user_info(app: &TestApp, who: &Buyer) -> Value {
    app.user_info_as(&who.voucher).await.data
}

async fn subscriptions(app: &TestApp, who: &Buyer) -> Vec<Value> {
    let envelope = app.get_api_as(Some(&who.voucher), "/user/v1/pay/getUserSubscriptionList").await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    envelope.data.as_array().cloned().unwrap_or_default()
}

/// Balance = sum of the ledger rows (ARCHITECTURE.md's audit invariant); answers the balance.
async fn ledger_balance(app: &TestApp, who: &Buyer) -> i64 {
    let rows = app.store.ledger.rows(&who.user_id).await.unwrap();
    let sum: i64 = rows.iter().map(|row| row.delta.units()).sum();
    let balance = app.store.users.by_id(&who.user_id).await.unwrap().unwrap().coin.units();
    assert_eq!(balance, sum, "balance = sum of the ledger rows");
    balance
}

/// The processor's id of an order (its checkout, invoice or order id), from the operator API.
async fn provider_ref(app: &TestApp, who: &Buyer, order_id: &str) -> String {
    let (status, answer) = admin(app, "orders", json!({ "user": who.user_no })).await;
    assert_eq!(status, 200);
    answer["orders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|order| order["orderId"] == order_id)
        .and_then(|order| order["providerRef"].as_str())
        .expect("the order has the processor's id")
        .to_owned()
}

async fn admin(app: &TestApp, path: &str, body: Value) -> (u16, Value) {
    let response = app
        .client
        .post(app.url(&format!("/lust/admin/{path}")))
        .bearer_auth(OPERATOR)
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or_default())
}

/// What the browser does on a sandbox page: reads its token, presses `button`; answers the
/// redirect's target.
pub(crate) async fn press(app: &TestApp, page: &str, button: &str) -> String {
    let html = app.client.get(app.url(page)).send().await.unwrap().text().await.unwrap();
    assert!(html.contains("no money moves"), "the sandbox says it is a test: {html}");
    let token = html
        .split("name=\"token\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a token in the page")
        .to_owned();
    let response =
        app.client.post(app.url(&format!("{page}/{button}"))).form(&[("token", token)]).send().await.unwrap();
    assert!(response.status().is_redirection(), "{button}: {}", response.status());
    response.headers()["location"].to_str().unwrap().to_owned()
}

/// Follows our own return URL as the browser would; answers where it sends the browser.
async fn come_back(app: &TestApp, url: &str) -> String {
    let response = app.client.get(url).send().await.unwrap();
    assert_eq!(response.status(), 302);
    response.headers()["location"].to_str().unwrap().to_owned()
}

#[actix_rt::test]
async fn a_coin_package_bought_in_the_sandbox_credits_once_and_tells_every_socket() {
    let app = payments_app(|_| {}).await;
    let vip = app.post_api("/user/v1/getVipData", json!({})).await.data;
    assert_eq!(vip["paymentRoutes"], json!([{ "route": "sandbox", "endpoint": "sandboxCreateOrder", "test": true }]));
    assert_eq!(vip["coinPackages"].as_array().unwrap().iter().filter(|p| p["bestValue"] == true).count(), 1);
    let user_no =
        crate::security::create_user_with_password_token(&app, "buyer@example.com", "pass-word", OPERATOR).await;
    let voucher = app.password_login(&user_no, "pass-word").await.data["voucher"].as_str().unwrap().to_owned();
    let user_id = UserId::parse(app.user_info_as(&voucher).await.data["userId"].as_str().unwrap()).unwrap();
    let who = Buyer { user_id, user_no, voucher };
    let mut socket = socket(&app, &who.voucher).await;

    let (code, created, msg) = order(&app, &who, "sandboxCreateOrder", "coin_3").await;
    assert_eq!(code, 200, "{msg}");
    let order_id = created["orderId"].as_str().unwrap().to_owned();
    let page = created["approveUrl"].as_str().unwrap().to_owned();
    assert!(page.starts_with("/lust/pay/sandbox/"), "{page}");
    assert_eq!(payment(&app, &who, &order_id).await["status"], "pending");

    let back = press(&app, &page, "pay").await;
    assert_eq!(come_back(&app, &back).await, format!("/paymentResults/{order_id}"));
    let paid = payment(&app, &who, &order_id).await;
    assert_eq!(
        (paid["status"].clone(), paid["final"].clone(), paid["amount"].clone()),
        (json!("paid"), json!(true), json!("49.99"))
    );
    assert_eq!(user_info(&app, &who).await["coin"], 5800);
    // The ledger row's tokenCount, and the order's paymentResult.
    let (mut result, mut token_count) = (None, None);
    while result.is_none() || token_count.is_none() {
        let event = socket.next_event(WAIT).await.expect("paymentResult and tokenCount");
        match event["event"].as_str() {
            Some("paymentResult") => result = Some(event["data"].clone()),
            Some("tokenCount") => token_count = Some(event["data"]["coin"].clone()),
            _ => {}
        }
    }
    assert_eq!(result, Some(json!({ "orderId": order_id, "productId": "coin_3", "status": "paid" })));
    assert_eq!(token_count, Some(json!(5800)));
    assert_eq!(ledger_balance(&app, &who).await, 5800);

    // A receipt went to the outbox (no SMTP configured).
    let outbox = app.data_dir.join("outbox");
    let receipts: Vec<String> = std::fs::read_dir(&outbox)
        .unwrap()
        .filter_map(|entry| std::fs::read_to_string(entry.unwrap().path()).ok())
        .filter(|mail| mail.contains("receipt"))
        .collect();
    assert_eq!(receipts.len(), 1, "one receipt");
    assert!(receipts[0].contains(&order_id) && receipts[0].contains("TEST"));

    // Declined and paid later: failed, and pending until the processor says more.
    let (_, declined, _) = order(&app, &who, "sandboxCreateOrder", "coin_1").await;
    press(&app, declined["approveUrl"].as_str().unwrap(), "decline").await;
    assert_eq!(payment(&app, &who, declined["orderId"].as_str().unwrap()).await["status"], "failed");
    let (_, later, _) = order(&app, &who, "sandboxCreateOrder", "coin_1").await;
    press(&app, later["approveUrl"].as_str().unwrap(), "later").await;
    assert_eq!(payment(&app, &who, later["orderId"].as_str().unwrap()).await["final"], false);
    assert_eq!(ledger_balance(&app, &who).await, 5800, "nothing moved for either");
}

#[actix_rt::test]
async fn a_sandbox_plan_makes_the_user_paid_renews_and_stays_until_its_end_once_cancelled() {
    let app = payments_app(|_| {}).await;
    let who = buyer(&app, "Plan").await;
    assert_eq!(user_info(&app, &who).await["userVipType"], 0);
    let (code, created, msg) = order(&app, &who, "sandboxCreateOrder", "month_1").await;
    assert_eq!(code, 200, "{msg}");
    press(&app, created["approveUrl"].as_str().unwrap(), "pay").await;
    let info = user_info(&app, &who).await;
    assert_eq!((info["userVipType"].clone(), info["coin"].clone()), (json!(1), json!(1000)));
    let list = subscriptions(&app, &who).await;
    assert_eq!(list.len(), 1);
    let plan = &list[0];
    assert_eq!(
        (plan["productId"].clone(), plan["state"].clone(), plan["renews"].clone()),
        (json!("month_1"), json!("active"), json!(true))
    );
    let first_end = plan["currentPeriodEnd"].as_i64().unwrap();

    // A second plan while one is in force: 10018 with the date it runs until.
    let (code, _, msg) = order(&app, &who, "sandboxCreateOrder", "quarter_1").await;
    assert_eq!(code, 10018);
    assert!(msg.contains("until"), "{msg}");

    // The processor renews (the sandbox's test subscription page).
    let subscription_id = plan["subscriptionId"].as_str().unwrap().to_owned();
    press(&app, &format!("/lust/pay/sandbox/subscriptions/{subscription_id}"), "renew").await;
    let renewed = &subscriptions(&app, &who).await[0];
    assert!(renewed["currentPeriodEnd"].as_i64().unwrap() > first_end, "the period moved on");
    assert_eq!(user_info(&app, &who).await["coin"], 2000);

    // Cancelled by the member: no renewal, access until the period ends.
    let (envelope, _) = app
        .post_api_as(Some(&who.voucher), "/user/v1/pay/unSubscription", json!({ "subscriptionId": subscription_id }))
        .await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    let cancelled = &subscriptions(&app, &who).await[0];
    assert_eq!((cancelled["state"].clone(), cancelled["renews"].clone()), (json!("cancelled"), json!(false)));
    assert_eq!(user_info(&app, &who).await["userVipType"], 1, "still paid until the end");
    let (envelope, _) = app
        .post_api_as(Some(&who.voucher), "/user/v1/pay/unSubscription", json!({ "subscriptionId": subscription_id }))
        .await;
    assert_eq!(envelope.code, 10001, "not renewing any more");
    assert_eq!(ledger_balance(&app, &who).await, 2000);

    // The operator ends it: access stops at once.
    assert_eq!(admin(&app, "endPlan", json!({ "user": who.user_no })).await.1["ended"], 1);
    assert_eq!(user_info(&app, &who).await["userVipType"], 0);
}

#[actix_rt::test]
async fn paypal_pays_through_the_capture_and_a_hundred_webhook_deliveries_credit_once() {
    let paypal = FakePaypal::start().await;
    let settings = paypal.settings();
    let app = payments_app(move |s| s.payments.paypal = settings).await;
    let who = buyer(&app, "Pam").await;
    let vip = app.post_api("/user/v1/getVipData", json!({})).await.data;
    assert_eq!(
        vip["paymentRoutes"],
        json!([{ "route": "paypal", "endpoint": "paypalCreateOrder", "test": false }]),
        "no sandbox"
    );
    let (code, created, msg) = order(&app, &who, "paypalCreateOrder", "coin_1").await;
    assert_eq!(code, 200, "{msg}");
    let order_id = created["orderId"].as_str().unwrap().to_owned();
    let query = paypal.buyer_approves(created["approveUrl"].as_str().unwrap()).await;
    let back = format!("{}/lust/pay/return/paypal/{order_id}?{query}", app.address);
    assert_eq!(come_back(&app, &back).await, format!("/paymentResults/{order_id}"));
    assert_eq!(payment(&app, &who, &order_id).await["status"], "paid", "captured at the buyer's return");
    assert_eq!(ledger_balance(&app, &who).await, 1000);

    // PayPal's webhooks of the same payment, each delivered 100 times at once.
    let webhooks = paypal.take_webhooks();
    assert!(!webhooks.is_empty());
    for webhook in &webhooks {
        let deliveries = (0..100).map(|_| post_callback(&app, "paypal", webhook));
        let statuses = futures_util::future::join_all(deliveries).await;
        assert!(statuses.iter().all(|&s| s == 200), "{statuses:?}");
    }
    assert_eq!(ledger_balance(&app, &who).await, 1000, "credited once");
    assert_eq!(app.store.ledger.rows(&who.user_id).await.unwrap().len(), 1);

    // A webhook not signed by PayPal changes nothing.
    let forged = paypal.event(
        "PAYMENT.CAPTURE.COMPLETED",
        json!({ "id": "FORGED", "amount": { "currency_code": "USD", "value": "9.99" } }),
    );
    assert_eq!(post_callback(&app, "paypal", &paypal.deliver(&forged, Tamper::WrongSignature)).await, 400);

    // The operator refunds: the money goes back at PayPal, the coins come back out.
    let (status, refunded) = admin(&app, "refund", json!({ "orderId": order_id })).await;
    assert_eq!(status, 200, "{refunded}");
    assert_eq!(payment(&app, &who, &order_id).await["status"], "refunded");
    assert_eq!(ledger_balance(&app, &who).await, 0);
    assert_eq!(admin(&app, "refund", json!({ "orderId": order_id })).await.0, 409, "once");
}

#[actix_rt::test]
async fn a_paypal_plan_activates_by_webhook_renews_and_is_cancelled_at_paypal() {
    let paypal = FakePaypal::start().await;
    let settings = paypal.settings();
    let app = payments_app(move |s| s.payments.paypal = settings).await;
    let who = buyer(&app, "Sub").await;
    let (code, created, msg) = order(&app, &who, "paypalCreateOrder", "month_1").await;
    assert_eq!(code, 200, "{msg}");
    let order_id = created["orderId"].as_str().unwrap().to_owned();
    paypal.buyer_approves(created["approveUrl"].as_str().unwrap()).await;
    for webhook in paypal.take_webhooks() {
        assert_eq!(post_callback(&app, "paypal", &webhook).await, 200);
    }
    assert_eq!(payment(&app, &who, &order_id).await["status"], "paid");
    assert_eq!(user_info(&app, &who).await["userVipType"], 1);
    assert_eq!(ledger_balance(&app, &who).await, 1000);

    let subscription = provider_ref(&app, &who, &order_id).await;
    paypal.renew_subscription(&subscription);
    for webhook in paypal.take_webhooks() {
        assert_eq!(post_callback(&app, "paypal", &webhook).await, 200);
    }
    assert_eq!(ledger_balance(&app, &who).await, 2000, "the renewal's coins");

    let ours = subscriptions(&app, &who).await[0]["subscriptionId"].as_str().unwrap().to_owned();
    let (envelope, _) =
        app.post_api_as(Some(&who.voucher), "/user/v1/pay/unSubscription", json!({ "subscriptionId": ours })).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    assert_eq!(paypal.subscription_status(&subscription), "CANCELLED");
    assert_eq!(user_info(&app, &who).await["userVipType"], 1, "paid until the period ends");
}

async fn post_callback(app: &TestApp, route: &str, callback: &amora_server::payments::Callback) -> u16 {
    let mut request = app.client.post(app.url(&format!("/lust/pay/notify/{route}")));
    for (name, value) in &callback.headers {
        request = request.header(name.as_str(), value.as_str());
    }
    request.body(callback.body.clone()).send().await.unwrap().status().as_u16()
}

#[actix_rt::test]
async fn a_nowpayments_invoice_pays_when_finished_and_refuses_unsigned_notifications() {
    let nowpayments = NowPaymentsFake::start().await;
    let settings = nowpayments.settings();
    let app = payments_app(move |s| s.payments.nowpayments = settings).await;
    let who = buyer(&app, "Nia").await;
    let (code, created, msg) = order(&app, &who, "nowPaymentsInvoice", "coin_2").await;
    assert_eq!(code, 200, "{msg}");
    let order_id = created["orderId"].as_str().unwrap().to_owned();
    let invoice = provider_ref(&app, &who, &order_id).await;

    assert_eq!(nowpayments.send_ipn(&invoice, "partially_paid").await.0, 200);
    assert_eq!(payment(&app, &who, &order_id).await["status"], "pending");
    let body = nowpayments.ipn_body(&invoice, "finished");
    let url = nowpayments.invoice(&invoice).ipn_callback_url;
    assert_eq!(nowpayments.post_ipn(&url, &body, None).await.0, 400, "unsigned");
    assert_eq!(nowpayments.post_ipn(&url, &body, Some("00ff")).await.0, 400, "wrongly signed");
    assert_eq!(ledger_balance(&app, &who).await, 0);
    for _ in 0..3 {
        assert_eq!(nowpayments.send_ipn(&invoice, "finished").await.0, 200);
    }
    assert_eq!(payment(&app, &who, &order_id).await["status"], "paid");
    assert_eq!(ledger_balance(&app, &who).await, 2200);

    // A plan bought with crypto is one period that does not renew.
    let (_, plan, _) = order(&app, &who, "nowPaymentsInvoice", "month_1").await;
    let plan_invoice = provider_ref(&app, &who, plan["orderId"].as_str().unwrap()).await;
    assert_eq!(nowpayments.send_ipn(&plan_invoice, "finished").await.0, 200);
    let list = subscriptions(&app, &who).await;
    assert_eq!((list[0]["state"].clone(), list[0]["renews"].clone()), (json!("cancelled"), json!(false)));
    assert_eq!(user_info(&app, &who).await["userVipType"], 1);

    let (_, late, _) = order(&app, &who, "nowPaymentsInvoice", "coin_1").await;
    let late_invoice = provider_ref(&app, &who, late["orderId"].as_str().unwrap()).await;
    assert_eq!(nowpayments.send_ipn(&late_invoice, "expired").await.0, 200);
    assert_eq!(payment(&app, &who, late["orderId"].as_str().unwrap()).await["status"], "expired");
    assert_eq!(ledger_balance(&app, &who).await, 2200 + 1000);
}

#[actix_rt::test]
async fn zpay_notifies_until_it_hears_success_and_credits_once() {
    let zpay = ZPayFake::start().await;
    let settings = zpay.settings();
    // zPay's money is yuan: this deployment's catalogue is priced in CNY.
    let app = payments_app(move |s| {
        s.payments.zpay = settings;
        s.catalogue.currency = "CNY".into();
    })
    .await;
    let who = buyer(&app, "Zed").await;
    let (code, created, msg) = order(&app, &who, "zPayCreateOrder", "coin_1").await;
    assert_eq!(code, 200, "{msg}");
    assert!(created["qrPayload"].as_str().is_some_and(|qr| !qr.is_empty()), "{created}");
    let order_id = created["orderId"].as_str().unwrap().to_owned();
    let delivery = zpay.pay(&order_id).await;
    assert_eq!((delivery.last_status, delivery.last_body.as_str(), delivery.attempts), (200, "success", 1));
    assert_eq!(zpay.pay(&order_id).await.last_body, "success", "a repeat is acknowledged");
    assert_eq!(payment(&app, &who, &order_id).await["status"], "paid");
    assert_eq!(ledger_balance(&app, &who).await, 1000);
}

#[actix_rt::test]
async fn the_hosted_adapter_pays_renews_and_cancels_and_refuses_a_wrong_amount() {
    let bridge = HostedFake::start().await;
    let settings = bridge.settings();
    let app = payments_app(move |s| s.payments.aiglo = settings).await;
    let who = buyer(&app, "Ada").await;
    let (code, created, msg) = order(&app, &who, "aigloCreateOrder", "coin_4").await;
    assert_eq!(code, 200, "{msg}");
    let order_id = created["orderId"].as_str().unwrap().to_owned();
    let checkout = provider_ref(&app, &who, &order_id).await;

    // The amount the bridge reports differs from the order: refused, nothing changes.
    let mut wrong = bridge.event(&checkout, "payment.succeeded");
    wrong["amount"] = json!("0.99");
    let body = wrong.to_string();
    let signature = crate::fakes::hosted::signature(crate::fakes::hosted::SECRET, HostedFake::now(), &body);
    assert_eq!(bridge.post(&bridge.notify_url(&checkout), &body, Some(signature)).await.0, 400);
    assert_eq!(ledger_balance(&app, &who).await, 0);

    assert_eq!(bridge.send(&checkout, "payment.succeeded").await.0, 200);
    assert_eq!(payment(&app, &who, &order_id).await["status"], "paid");
    assert_eq!(ledger_balance(&app, &who).await, 12000);

    let (_, plan, _) = order(&app, &who, "aigloCreateOrder", "year_1").await;
    let plan_checkout = provider_ref(&app, &who, plan["orderId"].as_str().unwrap()).await;
    assert_eq!(bridge.send(&plan_checkout, "payment.succeeded").await.0, 200);
    assert_eq!(user_info(&app, &who).await["userVipType"], 3);
    assert_eq!(bridge.send(&plan_checkout, "subscription.renewed").await.0, 200);
    assert_eq!(ledger_balance(&app, &who).await, 12000 + 2 * 15000);
    assert_eq!(bridge.send(&plan_checkout, "subscription.cancelled").await.0, 200);
    let list = subscriptions(&app, &who).await;
    assert_eq!((list[0]["state"].clone(), list[0]["renews"].clone()), (json!("cancelled"), json!(false)));
}

#[actix_rt::test]
async fn bad_orders_and_bad_callbacks_are_refused_and_change_nothing() {
    let app = payments_app(|_| {}).await;
    let who = buyer(&app, "Bad").await;
    assert_eq!(order(&app, &who, "sandboxCreateOrder", "coin_9").await.0, 10001, "unknown product");
    assert_eq!(order(&app, &who, "sandboxCreateOrder", "").await.0, 10001);
    assert_eq!(order(&app, &who, "paypalCreateOrder", "coin_1").await.0, 10006, "route not configured");
    let anonymous = app.post_api("/user/v1/pay/sandboxCreateOrder", json!({ "productId": "coin_1" })).await;
    assert_eq!(anonymous.code, 10004);
    let foreign = app
        .post_api_as(
            Some(&who.voucher),
            "/user/v1/pay/unSubscription",
            json!({ "subscriptionId": format!("sub_{}", "x".repeat(24)) }),
        )
        .await
        .0;
    assert_eq!(foreign.code, 10006);

    // Callbacks: an unknown route, garbage, no signature.
    let post = |path: &str, body: &str| app.client.post(app.url(path)).body(body.to_owned()).send();
    assert_eq!(post("/lust/pay/notify/nosuchroute", "{}").await.unwrap().status(), 404);
    assert_eq!(post("/lust/pay/notify/paypal", "{}").await.unwrap().status(), 404, "paypal is not configured here");
    assert_eq!(post("/lust/pay/notify/sandbox", "not json").await.unwrap().status(), 400);
    assert_eq!(post("/lust/pay/notify/sandbox", "{\"type\":\"payment.succeeded\"}").await.unwrap().status(), 400);
    // Somebody else's order is not visible, and a bad id is a param error.
    let (_, created, _) = order(&app, &who, "sandboxCreateOrder", "coin_1").await;
    let other = buyer(&app, "Other").await;
    let (envelope, _) = app
        .post_api_as(
            Some(&other.voucher),
            "/user/v1/payment/getUserLastFlowId",
            json!({ "orderId": created["orderId"] }),
        )
        .await;
    assert_eq!((envelope.code, envelope.data.clone()), (200, Value::Null));
    let (envelope, _) =
        app.post_api_as(Some(&other.voucher), "/user/v1/payment/getUserLastFlowId", json!({ "orderId": "nope" })).await;
    assert_eq!(envelope.code, 10001);
    assert_eq!(ledger_balance(&app, &who).await, 0);
    assert_eq!(ledger_balance(&app, &other).await, 0);
}

#[actix_rt::test]
async fn each_adapter_route_pays_through_its_own_bridge_and_an_unknown_order_is_refused() {
    let (trust, luxfin) = (HostedFake::start().await, HostedFake::start().await);
    let (trust_settings, luxfin_settings) = (trust.settings(), luxfin.settings());
    let app = payments_app(move |s| {
        s.payments.trust = trust_settings;
        s.payments.luxfin = luxfin_settings;
    })
    .await;
    let vip = app.post_api("/user/v1/getVipData", json!({})).await.data;
    let routes: Vec<&str> =
        vip["paymentRoutes"].as_array().unwrap().iter().filter_map(|r| r["route"].as_str()).collect();
    assert_eq!(routes, ["trust", "luxfin"]);
    let who = buyer(&app, "Tru").await;
    let mut expected = 0;
    let mut checkouts = Vec::new();
    for (bridge, endpoint, product, coins) in
        [(&trust, "trustCreateOrder", "coin_1", 1000), (&luxfin, "luxfinCreateOrder", "coin_5", 25000)]
    {
        let (code, created, msg) = order(&app, &who, endpoint, product).await;
        assert_eq!(code, 200, "{endpoint}: {msg}");
        let order_id = created["orderId"].as_str().unwrap().to_owned();
        let checkout = provider_ref(&app, &who, &order_id).await;
        assert_eq!(bridge.send(&checkout, "payment.succeeded").await.0, 200);
        checkouts.push(checkout);
        expected += coins;
        assert_eq!(payment(&app, &who, &order_id).await["status"], "paid", "{endpoint}");
        assert_eq!(ledger_balance(&app, &who).await, expected);
    }

    // Signed by the bridge, but naming an order that does not exist: refused, nothing moves.
    let (_, created, _) = order(&app, &who, "trustCreateOrder", "coin_2").await;
    let checkout = provider_ref(&app, &who, created["orderId"].as_str().unwrap()).await;
    let mut unknown = trust.event(&checkout, "payment.succeeded");
    unknown["orderId"] = json!(format!("ord_{}", "z".repeat(24)));
    let body = unknown.to_string();
    let signature = crate::fakes::hosted::signature(crate::fakes::hosted::SECRET, HostedFake::now(), &body);
    assert_eq!(trust.post(&trust.notify_url(&checkout), &body, Some(signature)).await.0, 400);
    // The other bridge's secret does not sign for this one's route.
    let luxfin_event = luxfin.event(&checkouts[1], "payment.refunded").to_string();
    let forged = crate::fakes::hosted::signature("not-trusts-secret", HostedFake::now(), &luxfin_event);
    assert_eq!(trust.post(&trust.notify_url(&checkout), &luxfin_event, Some(forged)).await.0, 400);
    assert_eq!(ledger_balance(&app, &who).await, expected);
}

/// Buys `coin_1` (1,000 coins for 9.99) through PayPal as `who`; answers the order id and
/// PayPal's capture id.
async fn paypal_coins(app: &TestApp, paypal: &FakePaypal, who: &Buyer) -> (String, String) {
    let (code, created, msg) = order(app, who, "paypalCreateOrder", "coin_1").await;
    assert_eq!(code, 200, "{msg}");
    let order_id = created["orderId"].as_str().unwrap().to_owned();
    let query = paypal.buyer_approves(created["approveUrl"].as_str().unwrap()).await;
    come_back(app, &format!("{}/lust/pay/return/paypal/{order_id}?{query}", app.address)).await;
    assert_eq!(payment(app, who, &order_id).await["status"], "paid");
    let id = amora_domain::payment::OrderId::parse(&order_id).unwrap();
    let claims = app.store.orders.claims_of(&id).await.unwrap();
    (order_id, claims[0].provider_txn_id.clone())
}

/// A copy of a signed PayPal refund notification as PayPal would send another one: of
/// `event_type`, for the refund `refund_id`, of `value` dollars.
fn another_refund(template: &Value, event_type: &str, refund_id: &str, value: &str) -> Value {
    let mut event = template.clone();
    event["id"] = json!(format!("WH-{refund_id}"));
    event["event_type"] = json!(event_type);
    event["resource"]["id"] = json!(refund_id);
    event["resource"]["amount"]["value"] = json!(value);
    event
}

/// Issue 28: a refund, a chargeback and a second refund of one order took 3,000 coins for
/// an order that credited 1,000. What an order's reversals take back together never passes
/// what it credited; later ones are recorded (200, the order refunded) and move nothing.
#[actix_rt::test]
async fn refunds_and_chargebacks_of_one_order_never_take_back_more_than_it_credited() {
    let paypal = FakePaypal::start().await;
    let settings = paypal.settings();
    let app = payments_app(move |s| s.payments.paypal = settings).await;
    let who = buyer(&app, "Rae").await;
    let (order_id, _) = paypal_coins(&app, &paypal, &who).await;
    paypal_coins(&app, &paypal, &who).await;
    paypal_coins(&app, &paypal, &who).await;
    paypal.take_webhooks();
    assert_eq!(ledger_balance(&app, &who).await, 3000);

    let (status, refunded) = admin(&app, "refund", json!({ "orderId": order_id })).await;
    assert_eq!(status, 200, "{refunded}");
    assert_eq!(ledger_balance(&app, &who).await, 2000);
    let template = paypal.take_event("PAYMENT.CAPTURE.REFUNDED");
    assert_eq!(post_callback(&app, "paypal", &paypal.deliver(&template, Tamper::None)).await, 200);
    assert_eq!(ledger_balance(&app, &who).await, 2000, "the same refund again");

    let chargeback = another_refund(&template, "PAYMENT.CAPTURE.REVERSED", "9VCHARGEBACK0001", "9.99");
    assert_eq!(post_callback(&app, "paypal", &paypal.deliver(&chargeback, Tamper::None)).await, 200);
    assert_eq!(ledger_balance(&app, &who).await, 2000, "a chargeback of a refunded order takes nothing more");
    let second = another_refund(&template, "PAYMENT.CAPTURE.REFUNDED", "9VSECONDREFUND01", "9.99");
    assert_eq!(post_callback(&app, "paypal", &paypal.deliver(&second, Tamper::None)).await, 200);
    assert_eq!(ledger_balance(&app, &who).await, 2000, "nor does a second refund");
    assert_eq!(payment(&app, &who, &order_id).await["status"], "refunded");
    let rows = app.store.ledger.rows(&who.user_id).await.unwrap();
    assert_eq!(rows.iter().filter(|row| row.delta.units() < 0).map(|row| row.delta.units()).sum::<i64>(), -1000);
}

/// Partial refunds take back their share of what the order credited, and what is left
/// once the whole price has gone back, never more.
#[actix_rt::test]
async fn partial_refunds_take_back_their_share_and_a_chargeback_the_rest() {
    use amora_server::payments::PaymentProvider as _;
    let paypal = FakePaypal::start().await;
    let settings = paypal.settings();
    let app = payments_app(move |s| s.payments.paypal = settings).await;
    let provider = paypal.provider();
    let who = buyer(&app, "Pia").await;
    let (order_id, capture) = paypal_coins(&app, &paypal, &who).await;
    paypal_coins(&app, &paypal, &who).await;
    paypal.take_webhooks();
    assert_eq!(ledger_balance(&app, &who).await, 2000);

    // 3.33 of 9.99 back: a third of 1,000 coins.
    let money = amora_domain::payment::Money::new(333, amora_domain::payment::Currency::parse("USD").unwrap());
    provider.refund(&capture, &money).await.unwrap();
    for webhook in paypal.take_webhooks() {
        assert_eq!(post_callback(&app, "paypal", &webhook).await, 200);
    }
    assert_eq!(ledger_balance(&app, &who).await, 2000 - 333);
    assert_eq!(payment(&app, &who, &order_id).await["status"], "refunded");
    // The bank takes back the other 6.66: the rest of the coins, to the last one.
    paypal.reverse_capture(&capture);
    for webhook in paypal.take_webhooks() {
        assert_eq!(post_callback(&app, "paypal", &webhook).await, 200);
    }
    assert_eq!(ledger_balance(&app, &who).await, 1000);
}

/// Issue 28: a NOWPayments `partially_paid` then `refunded` took 1,000 coins from a user
/// whose order never credited. An order that never credited takes nothing back; its state
/// still records the refund, and a `finished` after it credits nothing.
#[actix_rt::test]
async fn a_refund_of_an_order_that_never_credited_takes_nothing() {
    let nowpayments = NowPaymentsFake::start().await;
    let settings = nowpayments.settings();
    let app = payments_app(move |s| s.payments.nowpayments = settings).await;
    let who = buyer(&app, "Ned").await;
    let (_, paid, _) = order(&app, &who, "nowPaymentsInvoice", "coin_1").await;
    let paid_invoice = provider_ref(&app, &who, paid["orderId"].as_str().unwrap()).await;
    assert_eq!(nowpayments.send_ipn(&paid_invoice, "finished").await.0, 200);
    assert_eq!(ledger_balance(&app, &who).await, 1000);

    let (code, created, msg) = order(&app, &who, "nowPaymentsInvoice", "coin_2").await;
    assert_eq!(code, 200, "{msg}");
    let order_id = created["orderId"].as_str().unwrap().to_owned();
    let invoice = provider_ref(&app, &who, &order_id).await;
    assert_eq!(nowpayments.send_ipn(&invoice, "partially_paid").await.0, 200);
    assert_eq!(ledger_balance(&app, &who).await, 1000);
    assert_eq!(nowpayments.send_ipn(&invoice, "refunded").await.0, 200);
    assert_eq!(ledger_balance(&app, &who).await, 1000, "nothing was credited, nothing is taken");
    assert_eq!(payment(&app, &who, &order_id).await["status"], "refunded");
    assert_eq!(nowpayments.send_ipn(&invoice, "refunded").await.0, 200);
    assert_eq!(nowpayments.send_ipn(&invoice, "finished").await.0, 200);
    assert_eq!(ledger_balance(&app, &who).await, 1000, "the money went back: a late finish credits nothing");
    assert_eq!(payment(&app, &who, &order_id).await["status"], "refunded");
}

/// `payment/getUserOrderList {}` (as `who`).
async fn order_list(app: &TestApp, who: &Buyer) -> Vec<Value> {
    let (envelope, _) = app.post_api_as(Some(&who.voucher), "/user/v1/payment/getUserOrderList", json!({})).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    envelope.data.as_array().unwrap().clone()
}

/// Issue 30: the app had no order history. A user's orders, newest first, each with its
/// date, product, amount, route and state, and what refunds gave back; nobody else's.
#[actix_rt::test]
async fn the_order_history_lists_a_users_orders_newest_first_with_their_refunds() {
    use amora_server::payments::PaymentProvider as _;
    let paypal = FakePaypal::start().await;
    let settings = paypal.settings();
    let app = payments_app(move |s| s.payments.paypal = settings).await;
    let provider = paypal.provider();
    let who = buyer(&app, "Ola").await;
    let other = buyer(&app, "Ivo").await;
    assert!(order_list(&app, &who).await.is_empty());

    let (first, capture) = paypal_coins(&app, &paypal, &who).await;
    let (second, _) = paypal_coins(&app, &paypal, &who).await;
    // One the buyer never approved: still waiting at PayPal.
    let (code, unpaid, msg) = order(&app, &who, "paypalCreateOrder", "coin_3").await;
    assert_eq!(code, 200, "{msg}");
    paypal.take_webhooks();
    // 3.33 of the first order's 9.99 back.
    let money = amora_domain::payment::Money::new(333, amora_domain::payment::Currency::parse("USD").unwrap());
    provider.refund(&capture, &money).await.unwrap();
    for webhook in paypal.take_webhooks() {
        assert_eq!(post_callback(&app, "paypal", &webhook).await, 200);
    }

    let orders = order_list(&app, &who).await;
    let ids: Vec<&str> = orders.iter().map(|o| o["flowId"].as_str().unwrap()).collect();
    // Orders made in the same second keep no order among themselves; the set and each's
    // fields are what matters.
    assert_eq!(ids.len(), 3, "{orders:?}");
    let find = |id: &str| orders.iter().find(|o| o["flowId"] == id).unwrap_or_else(|| panic!("{id} listed"));
    let refunded = find(&first);
    assert_eq!(
        (&refunded["productId"], &refunded["route"], &refunded["amount"], &refunded["currency"]),
        (&json!("coin_1"), &json!("paypal"), &json!("9.99"), &json!("USD"))
    );
    assert_eq!((&refunded["status"], &refunded["refunded"]), (&json!("refunded"), &json!("3.33")));
    assert!(refunded["createdAt"].as_i64().unwrap() > 0);
    assert_eq!((&find(&second)["status"], &find(&second)["refunded"]), (&json!("paid"), &json!("0.00")));
    let waiting = find(unpaid["orderId"].as_str().unwrap());
    assert_eq!(
        (&waiting["productId"], &waiting["amount"], &waiting["final"]),
        (&json!("coin_3"), &json!("49.99"), &json!(false))
    );
    assert!(["created", "pending"].contains(&waiting["status"].as_str().unwrap()), "{waiting}");
    assert_eq!(waiting["refunded"], "0.00");
    let created: Vec<i64> = orders.iter().map(|o| o["createdAt"].as_i64().unwrap()).collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "newest first: {created:?}");

    assert!(order_list(&app, &other).await.is_empty(), "another user's orders are not listed");
    let (signed_out, _) = app.post_api_as(None, "/user/v1/payment/getUserOrderList", json!({})).await;
    assert_eq!(signed_out.code, 10004);
}
