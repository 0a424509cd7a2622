//! The console's Money desk (issue 33) against the real server and a loopback hosted
//! processor: orders of two users counted by route and state with paid revenue per day; an
//! operator's refund in the refunds list; a processor's signed notification that arrives
//! before its order row (as one can when the order was written through another node) is
//! refused, kept, listed, and replayed once the row is there, crediting exactly once
//! however many times it is replayed or redelivered; a moderator is refused every route.

use amora_domain::payment::{Order, OrderId, OrderState, PaymentRoute, ProductId};
use serde_json::{Value, json};

use crate::cluster::{free_port, make_user};
use crate::fakes::hosted::{HostedFake, SECRET, signature};
use crate::helpers::{TestApp, spawn_app_customised};
use crate::operator::{TOKEN, console_get, console_post, cookie_pair, create_operator, current_code, sign_in};

async fn app_with_bridge(bridge: &HostedFake) -> TestApp {
    let settings = bridge.settings();
    let port = free_port();
    let env = vec![
        ("AMORA_HTTP__PORT".to_owned(), port.to_string()),
        ("AMORA_HTTP__PUBLIC_BASE_URL".to_owned(), format!("http://127.0.0.1:{port}")),
        ("AMORA_ADMIN__TOKEN".to_owned(), TOKEN.to_owned()),
    ];
    spawn_app_customised(env, move |s| s.payments.aiglo = settings).await
}

/// `pay/aigloCreateOrder {productId}` as the user: the order's id and its checkout at the bridge.
async fn buy(app: &TestApp, voucher: &str, product: &str) -> (String, String) {
    let (envelope, _) =
        app.post_api_as(Some(voucher), "/user/v1/pay/aigloCreateOrder", json!({ "productId": product })).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    let order_id = envelope.data["orderId"].as_str().unwrap().to_owned();
    let order = app.store.orders.get(&OrderId::parse(&order_id).unwrap()).await.unwrap().unwrap();
    (order_id, order.provider_ref.unwrap())
}

/// The balance, checked equal to the sum of the ledger rows.
async fn balance(app: &TestApp, user: &amora_domain::account::UserId) -> i64 {
    let sum: i64 = app.store.ledger.rows(user).await.unwrap().iter().map(|row| row.delta.units()).sum();
    let balance = app.store.users.by_id(user).await.unwrap().unwrap().coin.units();
    assert_eq!(balance, sum, "balance = sum of the ledger rows");
    balance
}

fn count(overview: &Value, route: &str, state: &str) -> u64 {
    overview["byRouteAndState"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["route"] == route && c["state"] == state)
        .map_or(0, |c| c["count"].as_u64().unwrap())
}

#[actix_rt::test]
async fn the_money_desk_counts_orders_lists_refunds_and_replays_a_failed_notification_once() {
    let bridge = HostedFake::start().await;
    let app = app_with_bridge(&bridge).await;
    let admin = create_operator(&app, "money@example.com", "admin").await;
    let moderator = create_operator(&app, "mod@example.com", "moderator").await;
    let cookie = cookie_pair(&sign_in(&app, &admin, &current_code(&admin.secret)).await.1.unwrap());
    let moderator_cookie = cookie_pair(&sign_in(&app, &moderator, &current_code(&moderator.secret)).await.1.unwrap());

    // Ann buys twice and pays both; Bob opens an order and leaves it pending.
    let (ann, _, ann_voucher) = make_user(&app.store, "Ann").await;
    let (bob, _, bob_voucher) = make_user(&app.store, "Bob").await;
    let (first, first_checkout) = buy(&app, &ann_voucher, "coin_4").await;
    let (second, second_checkout) = buy(&app, &ann_voucher, "coin_4").await;
    let (_, _) = buy(&app, &bob_voucher, "coin_4").await;
    assert_eq!(bridge.send(&first_checkout, "payment.succeeded").await.0, 200);
    assert_eq!(bridge.send(&second_checkout, "payment.succeeded").await.0, 200);
    let paid_coins = balance(&app, &ann).await;
    assert!(paid_coins > 0);
    let price = app.store.orders.get(&OrderId::parse(&first).unwrap()).await.unwrap().unwrap().amount;

    let (status, overview) = console_get(&app, &cookie, "money?days=7").await;
    assert_eq!(status, 200, "{overview}");
    assert_eq!(overview["orderCount"], 3, "both users' orders: {overview}");
    assert_eq!((count(&overview, "aiglo", "paid"), count(&overview, "aiglo", "pending")), (2, 1), "{overview}");
    let per_day = overview["revenue"]["perDay"].as_array().unwrap();
    assert_eq!(per_day.len(), 1, "{overview}");
    assert_eq!(per_day[0]["orders"], 2);
    assert_eq!(per_day[0]["amountMinor"].as_u64(), Some(2 * price.minor));
    assert_eq!(per_day[0]["currency"], price.currency.to_string());
    assert_eq!(overview["revenue"]["perProduct"][0]["productId"], "coin_4");
    assert_eq!(overview["refunds"], json!([]));
    assert_eq!(console_get(&app, &cookie, "money?days=0").await.0, 400);
    assert_eq!(console_get(&app, &cookie, "money?days=367").await.0, 400);

    // The operator refunds Ann's second order: still a sale of its day, and what went back.
    let (status, answer) =
        console_post(&app, &cookie, "refund", json!({ "orderId": second, "reason": "asked for it back" })).await;
    assert_eq!(status, 200, "{answer}");
    let (_, overview) = console_get(&app, &cookie, "money").await;
    assert_eq!(overview["days"], 30);
    assert_eq!(count(&overview, "aiglo", "refunded"), 1, "{overview}");
    assert_eq!(overview["revenue"]["perDay"][0]["orders"], 2, "a refund does not unsell: {overview}");
    assert_eq!(overview["revenue"]["givenBack"][0]["amountMinor"].as_u64(), Some(price.minor));
    assert_eq!(overview["revenue"]["net"][0]["amountMinor"].as_u64(), Some(price.minor));
    let refunds = overview["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{overview}");
    assert_eq!(refunds[0]["orderId"], second.as_str());
    assert_eq!(refunds[0]["userId"], ann.to_string());
    assert_eq!(refunds[0]["kind"], "refund");
    assert_eq!(refunds[0]["refundedMinor"].as_u64(), Some(price.minor));
    assert_eq!(refunds[0]["coinsTakenBack"].as_i64(), Some(paid_coins / 2));
    assert_eq!(refunds[0]["reversals"].as_array().unwrap().len(), 1);
    assert_eq!(refunds[0]["reversals"][0]["kind"], "refund");
    assert_eq!(balance(&app, &ann).await, paid_coins / 2);

    // Ann's bank takes the first payment back: a chargeback, told apart from the refund in
    // the list and in her ledger, and it takes back that order's coins.
    assert_eq!(bridge.send(&first_checkout, "payment.chargeback").await.0, 200);
    let (_, overview) = console_get(&app, &cookie, "money").await;
    let refunds = overview["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 2, "{overview}");
    let chargeback = refunds.iter().find(|r| r["orderId"] == first.as_str()).unwrap();
    assert_eq!(chargeback["kind"], "chargeback", "{chargeback}");
    assert_eq!(chargeback["reversals"][0]["kind"], "chargeback");
    assert_eq!(chargeback["coinsTakenBack"].as_i64(), Some(paid_coins / 2));
    assert_eq!(overview["revenue"]["givenBack"][0]["orders"], 2);
    assert_eq!(overview["revenue"]["net"][0]["amountMinor"].as_i64(), Some(0));
    assert_eq!(balance(&app, &ann).await, 0);
    let reasons: Vec<String> = app.store.ledger.rows(&ann).await.unwrap().into_iter().map(|row| row.reason).collect();
    assert!(reasons.iter().any(|r| r.starts_with(&format!("chargeback of {first}"))), "{reasons:?}");
    assert!(reasons.iter().any(|r| r.starts_with(&format!("refund of {second}"))), "{reasons:?}");

    // The processor tells of Bob's payment before his order's row is here: the signature
    // holds, the order is unknown, so it is refused (400, the processor retries) and kept.
    let late_id = OrderId::from_random("late0000000000000000000a").unwrap();
    let mut event = bridge.event(&first_checkout, "payment.succeeded");
    event["orderId"] = json!(late_id.as_str());
    event["transactionId"] = json!("txn_late_bob_0001");
    let body = event.to_string();
    let url = bridge.notify_url(&first_checkout);
    assert_eq!(bridge.post(&url, &body, Some(signature(SECRET, HostedFake::now(), &body))).await.0, 400);
    // One that is not believed is not kept.
    assert_eq!(bridge.post(&url, &body, Some(signature("not-the-secret", HostedFake::now(), &body))).await.0, 400);
    let (status, listed) = console_get(&app, &cookie, "money/webhooks").await;
    assert_eq!(status, 200, "{listed}");
    let deliveries = listed["deliveries"].as_array().unwrap();
    assert_eq!(deliveries.len(), 1, "only the verified one: {listed}");
    let kept = &deliveries[0];
    assert_eq!((kept["route"].as_str(), kept["replay"].is_null()), (Some("aiglo"), true));
    assert_eq!(kept["error"], "no such order");
    assert!(kept["body"].as_str().unwrap().contains(late_id.as_str()));
    let delivery_id = kept["deliveryId"].as_str().unwrap().to_owned();

    // Replayed while the order is still missing: refused again, recorded, nothing moves.
    let replay = json!({ "deliveryId": delivery_id, "reason": "processor says paid" });
    let (status, answer) = console_post(&app, &cookie, "money/webhook/replay", replay.clone()).await;
    assert_eq!(status, 409, "{answer}");
    let (_, listed) = console_get(&app, &cookie, "money/webhooks").await;
    assert_eq!(listed["deliveries"][0]["replay"]["applied"], false);

    // Bob's order row lands, as the node that made it wrote it.
    let now = HostedFake::now();
    let late = Order {
        order_id: late_id.clone(),
        user_id: bob.clone(),
        product: ProductId::parse("coin_4").unwrap(),
        route: PaymentRoute::Aiglo,
        amount: price.clone(),
        state: OrderState::Pending,
        provider_ref: None,
        subscription_id: None,
        created_at: now,
        updated_at: now,
    };
    app.store.orders.create(late).await.unwrap();
    assert_eq!(balance(&app, &bob).await, 0);

    // Replayed now: applied, Bob credited once; a second replay, and the processor's own
    // redelivery, credit nothing more (the payment is claimed, the ledger row is the order's).
    let (status, answer) = console_post(&app, &cookie, "money/webhook/replay", replay.clone()).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["outcome"], "applied");
    assert_eq!(answer["delivery"]["replay"]["applied"], true);
    let credited = balance(&app, &bob).await;
    assert_eq!(credited, paid_coins / 2, "one order's coins");
    assert_eq!(console_post(&app, &cookie, "money/webhook/replay", replay.clone()).await.0, 200);
    assert_eq!(bridge.post(&url, &body, Some(signature(SECRET, HostedFake::now(), &body))).await.0, 200);
    assert_eq!(balance(&app, &bob).await, credited, "credited exactly once");
    assert_eq!(app.store.ledger.rows(&bob).await.unwrap().len(), 1);
    let bob_order = app.store.orders.get(&late_id).await.unwrap().unwrap();
    assert_eq!(bob_order.state, OrderState::Paid);

    // The replays are in the audit log with their reason and target.
    let (_, log) = console_get(&app, &cookie, "audit?limit=50").await;
    let replays: Vec<&Value> =
        log["entries"].as_array().unwrap().iter().filter(|e| e["action"] == "money/webhook/replay").collect();
    assert_eq!(replays.len(), 3, "{log}");
    assert!(replays.iter().all(|e| e["reason"] == "processor says paid"));
    assert!(replays.iter().all(|e| e["target"] == format!("deliveryId {delivery_id}")));
    assert_eq!(replays.iter().filter(|e| e["outcome"] == "409").count(), 1);

    // A moderator is refused all of it.
    assert_eq!(console_get(&app, &moderator_cookie, "money").await.0, 403);
    assert_eq!(console_get(&app, &moderator_cookie, "money/webhooks").await.0, 403);
    let (status, answer) = console_post(&app, &moderator_cookie, "money/webhook/replay", replay).await;
    assert_eq!(status, 403, "{answer}");
}
