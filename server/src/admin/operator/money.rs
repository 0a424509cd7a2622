//! The console's Money desk (issue 33), admin only: orders of every user over the last
//! days counted by route and state, paid revenue per day and per product (each currency
//! apart, with what went back and the net), the refunds and chargebacks, and the
//! payment notifications that failed after verification, replayed through the same path a
//! processor's notification takes. Everything is read through `Billing`; a replay moves
//! money only as `Billing::apply` does (claimed once, one ledger row per order).

use std::collections::{BTreeMap, HashSet};

use actix_web::{HttpResponse, web};
use amora_actors::payments::RefundedOrder;
use amora_domain::payment::{Currency, Money, Order, OrderState};
use amora_store::{FailedWebhook, PaymentClaimKind, WebhookReplay};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::admin::{AdminError, internal};
use crate::payments::gateway::CallbackError;
use crate::state::AppState;

const DEFAULT_DAYS: u32 = 30;
const MAX_DAYS: u32 = 366;
/// Refunds and chargebacks arrive weeks after the sale (card chargebacks up to about
/// 120 days): the refunds of the window are looked for among orders this much older too.
const REFUND_LOOKBACK_DAYS: i64 = 180;
/// Orders read for one overview at most; `truncated` says when there were more.
const MAX_ORDERS: u32 = 20_000;
const WEBHOOKS_SHOWN: u32 = 200;
const DAY_SECS: i64 = 86_400;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/money", web::get().to(overview))
        .route("/money/webhooks", web::get().to(webhooks))
        .route("/money/webhook/replay", web::post().to(replay));
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoneyQuery {
    days: Option<u32>,
}

/// `YYYY-MM-DD` (UTC) of a time in seconds.
fn utc_day(at: i64) -> String {
    chrono::DateTime::from_timestamp(at, 0).map(|t| t.format("%Y-%m-%d").to_string()).unwrap_or_default()
}

fn amount(minor: u64, currency: &Currency) -> String {
    Money::new(minor, currency.clone()).decimal()
}

/// Counts and sums of one group of orders, in one currency.
struct Sum {
    currency: Currency,
    orders: u64,
    minor: u64,
}

/// Groups keyed by what they are of and the currency's code, in that order.
type Sums<K> = BTreeMap<(K, String), Sum>;

/// Counts one order's `money` (its price, or what went back of it) in `key`'s group.
fn add<K: Ord>(sums: &mut Sums<K>, key: K, money: &Money) {
    let sum = sums.entry((key, money.currency.to_string())).or_insert_with(|| Sum {
        currency: money.currency.clone(),
        orders: 0,
        minor: 0,
    });
    sum.orders += 1;
    sum.minor += money.minor;
}

fn sums_view<K: Ord>(sums: Sums<K>, key: impl Fn(&K) -> (&'static str, Value)) -> Vec<Value> {
    sums.into_iter()
        .map(|((k, code), sum)| {
            let (name, value) = key(&k);
            json!({
                name: value,
                "currency": code,
                "orders": sum.orders,
                "amountMinor": sum.minor,
                "amount": amount(sum.minor, &sum.currency),
            })
        })
        .collect()
}

/// The overview of `orders` (made at or after `since`), as `GET money` answers it. Sales
/// are the orders whose money arrived: paid ones, and refunded ones that had been paid
/// (`refunded_after_payment`, by order id), so a refund does not rewrite the day it was
/// sold; what went back in the window is `givenBack`, and `net` is sales less it.
fn summarise(orders: &[Order], refunded_after_payment: &HashSet<&str>, given_back: &[Money]) -> Value {
    let mut by_route_state: BTreeMap<(&'static str, &'static str), u64> = BTreeMap::new();
    let mut per_day: Sums<String> = BTreeMap::new();
    let mut per_product: Sums<String> = BTreeMap::new();
    let mut totals: Sums<()> = BTreeMap::new();
    for order in orders {
        *by_route_state.entry((order.route.code(), order.state.code())).or_default() += 1;
        let sold = order.state == OrderState::Paid
            || (order.state == OrderState::Refunded && refunded_after_payment.contains(order.order_id.as_str()));
        if !sold {
            continue;
        }
        add(&mut per_day, utc_day(order.created_at), &order.amount);
        add(&mut per_product, order.product.to_string(), &order.amount);
        add(&mut totals, (), &order.amount);
    }
    let mut back: Sums<()> = BTreeMap::new();
    for money in given_back {
        add(&mut back, (), money);
    }
    let currencies: std::collections::BTreeSet<&String> = totals.keys().chain(back.keys()).map(|(_, c)| c).collect();
    let net: Vec<Value> = currencies
        .into_iter()
        .map(|code| {
            let key = ((), code.clone());
            let (sold, returned) = (totals.get(&key), back.get(&key));
            let minor = i128::from(sold.map_or(0, |s| s.minor)) - i128::from(returned.map_or(0, |s| s.minor));
            let currency = sold.or(returned).map(|s| &s.currency);
            let text = currency.map(|c| amount(minor.unsigned_abs() as u64, c)).unwrap_or_default();
            json!({
                "currency": code,
                "amountMinor": minor,
                "amount": if minor < 0 { format!("-{text}") } else { text },
            })
        })
        .collect();
    let counts: Vec<Value> = by_route_state
        .into_iter()
        .map(|((route, state), count)| json!({ "route": route, "state": state, "count": count }))
        .collect();
    json!({
        "orderCount": orders.len(),
        "byRouteAndState": counts,
        "revenue": {
            "perDay": sums_view(per_day, |day| ("day", json!(day))),
            "perProduct": sums_view(per_product, |product| ("productId", json!(product))),
            "totals": sums_view(totals, |_| ("scope", json!("window"))),
            "givenBack": sums_view(back, |_| ("scope", json!("window"))),
            "net": net,
        },
    })
}

/// One refunded order as the desk lists it, and when its money last went back. Its kind is
/// `chargeback` when any of its reversals was one (what the operator must answer for at
/// the processor), else `refund`.
fn refund_view(refunded: &RefundedOrder) -> (i64, Value) {
    // When the money went back: its newest reversal (an order refunded before reversals
    // were claimed has none; its last change says when).
    let at = refunded.refunds.iter().map(|claim| claim.claimed_at).max().unwrap_or(refunded.order.updated_at);
    let order = &refunded.order;
    let refunded_minor = u64::try_from(refunded.totals.refunded_minor).unwrap_or(0);
    let chargeback = refunded.refunds.iter().any(|claim| claim.kind == PaymentClaimKind::Chargeback);
    let reversals: Vec<Value> = refunded
        .refunds
        .iter()
        .map(|claim| json!({ "providerTxnId": claim.provider_txn_id, "kind": claim.kind.code(), "at": claim.claimed_at }))
        .collect();
    let view = json!({
        "orderId": order.order_id.as_str(),
        "userId": order.user_id.to_string(),
        "route": order.route.code(),
        "productId": order.product.to_string(),
        "kind": if chargeback { "chargeback" } else { "refund" },
        "currency": order.amount.currency.to_string(),
        "price": order.amount.decimal(),
        "refundedMinor": refunded_minor,
        "refunded": amount(refunded_minor, &order.amount.currency),
        "coinsTakenBack": refunded.totals.reversed.units(),
        "reversals": reversals,
        "at": at,
    });
    (at, view)
}

/// `GET money?days=N` (1 to 366, default 30): see the module's comment. Revenue counts the
/// orders sold in the window by the UTC day they were made, refunded later or not; what
/// went back in the window is apart (`givenBack`, `net`, `refunds`).
async fn overview(state: web::Data<AppState>, query: web::Query<MoneyQuery>) -> Result<HttpResponse, AdminError> {
    let days = query.days.unwrap_or(DEFAULT_DAYS);
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(AdminError::BadRequest(format!("days: 1 to {MAX_DAYS}")));
    }
    let now = crate::auth::now();
    let since = now - i64::from(days) * DAY_SECS;
    let billing = &state.node.billing;
    let scanned = billing.orders_since(since - REFUND_LOOKBACK_DAYS * DAY_SECS, MAX_ORDERS).await.map_err(internal)?;
    let truncated = scanned.len() == MAX_ORDERS as usize;
    let in_window: Vec<Order> = scanned.iter().filter(|order| order.created_at >= since).cloned().collect();
    let refunded = billing.refunds_of(&scanned).await.map_err(internal)?;
    let refunded_after_payment: HashSet<&str> =
        refunded.iter().filter(|r| r.was_paid).map(|r| r.order.order_id.as_str()).collect();
    let mut refunds = Vec::new();
    let mut given_back: Vec<Money> = Vec::new();
    for order in &refunded {
        let (at, view) = refund_view(order);
        if at >= since {
            refunds.push((at, view));
            let minor = u64::try_from(order.totals.refunded_minor).unwrap_or(0);
            given_back.push(Money::new(minor, order.order.amount.currency.clone()));
        }
    }
    refunds.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    let mut answer = summarise(&in_window, &refunded_after_payment, &given_back);
    if let Some(object) = answer.as_object_mut() {
        object.insert("days".into(), json!(days));
        object.insert("since".into(), json!(since));
        object.insert("until".into(), json!(now));
        object.insert("truncated".into(), json!(truncated));
        object.insert("refunds".into(), Value::Array(refunds.into_iter().map(|(_, view)| view).collect()));
    }
    Ok(HttpResponse::Ok().json(answer))
}

fn delivery_view(delivery: &FailedWebhook) -> Value {
    json!({
        "deliveryId": delivery.delivery_id.to_string(),
        "route": delivery.route.code(),
        "error": delivery.error,
        "receivedAt": delivery.received_at,
        "bytes": delivery.body.len(),
        // What the processor said, readable: the operator sees which order it names.
        "body": String::from_utf8_lossy(&delivery.body),
        "replay": delivery.replay.as_ref().map(|r| json!({ "at": r.at, "applied": r.applied, "outcome": r.outcome })),
    })
}

/// `GET money/webhooks`: kept notifications, those not yet replayed with success first,
/// each group newest first.
async fn webhooks(state: web::Data<AppState>) -> Result<HttpResponse, AdminError> {
    let mut deliveries = state.node.billing.failed_webhooks(WEBHOOKS_SHOWN).await.map_err(internal)?;
    deliveries.sort_by_key(|d| (d.replay.as_ref().is_some_and(|r| r.applied), std::cmp::Reverse(d.delivery_id)));
    let views: Vec<Value> = deliveries.iter().map(delivery_view).collect();
    Ok(HttpResponse::Ok().json(json!({ "deliveries": views })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReplayRequest {
    delivery_id: String,
}

/// `POST money/webhook/replay {deliveryId, reason}`: the kept notification through its
/// provider's check (as of when it arrived) and `Billing` again; the outcome is recorded
/// on it. Replaying one whose payment was already applied applies nothing twice. 409 when
/// it fails again, with why.
async fn replay(state: web::Data<AppState>, body: web::Json<ReplayRequest>) -> Result<HttpResponse, AdminError> {
    let delivery_id: i64 =
        body.delivery_id.trim().parse().map_err(|_| AdminError::BadRequest("deliveryId: not a delivery id".into()))?;
    let billing = &state.node.billing;
    let delivery = billing
        .failed_webhook(delivery_id)
        .await
        .map_err(internal)?
        .ok_or_else(|| AdminError::NotFound(format!("no failed notification {delivery_id}")))?;
    let result = state.payments.replay(&delivery).await;
    let (applied, outcome) = match &result {
        Ok(()) => (true, "applied".to_owned()),
        Err(error @ (CallbackError::Refused(_) | CallbackError::NoRoute)) => (false, format!("refused: {error}")),
        Err(error @ CallbackError::Unavailable(_)) => (false, format!("unavailable: {error}")),
    };
    let record = WebhookReplay { at: crate::auth::now(), applied, outcome: outcome.clone() };
    billing.record_webhook_replay(delivery_id, record).await.map_err(internal)?;
    if !applied {
        return Err(AdminError::Conflict(outcome));
    }
    let stored = billing.failed_webhook(delivery_id).await.map_err(internal)?;
    Ok(HttpResponse::Ok().json(json!({
        "deliveryId": delivery_id.to_string(),
        "outcome": outcome,
        "delivery": stored.as_ref().map(delivery_view),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use amora_domain::account::UserId;
    use amora_domain::payment::{OrderId, PaymentRoute, ProductId};

    fn order(n: u32, route: PaymentRoute, state: OrderState, minor: u64, currency: &str, at: i64) -> Order {
        Order {
            order_id: OrderId::from_random(&format!("{n:0>24}")).unwrap_or_else(|e| panic!("{e}")),
            user_id: UserId::parse("u1").unwrap_or_else(|e| panic!("{e}")),
            product: ProductId::Coins(3),
            route,
            amount: Money::new(minor, Currency::parse(currency).unwrap_or_else(|e| panic!("{e}"))),
            state,
            provider_ref: None,
            subscription_id: None,
            created_at: at,
            updated_at: at,
        }
    }

    #[test]
    fn paid_orders_sum_per_day_and_currency_and_every_order_counts_by_route_and_state() {
        let day = 1_764_460_800; // 2025-11-30 00:00 UTC
        let orders = [
            order(1, PaymentRoute::Paypal, OrderState::Paid, 1299, "usd", day + 10),
            order(2, PaymentRoute::Paypal, OrderState::Paid, 1299, "usd", day + 20),
            order(3, PaymentRoute::Paypal, OrderState::Paid, 999, "eur", day + 30),
            order(4, PaymentRoute::Paypal, OrderState::Failed, 1299, "usd", day - 10),
            order(5, PaymentRoute::Aiglo, OrderState::Refunded, 1299, "usd", day - 20),
        ];
        // Order 5 was paid and then refunded: a sale of its day; 4.00 of it went back.
        let refunded_after_payment: HashSet<&str> = HashSet::from([orders[4].order_id.as_str()]);
        let usd = Currency::parse("usd").unwrap_or_else(|e| panic!("{e}"));
        let summary = summarise(&orders, &refunded_after_payment, &[Money::new(400, usd)]);
        assert_eq!(summary["orderCount"], 5);
        assert_eq!(
            summary["byRouteAndState"],
            json!([
                {"route": "aiglo", "state": "refunded", "count": 1},
                {"route": "paypal", "state": "failed", "count": 1},
                {"route": "paypal", "state": "paid", "count": 3},
            ])
        );
        let per_day = &summary["revenue"]["perDay"];
        assert_eq!(per_day.as_array().map(Vec::len), Some(3), "{per_day}");
        assert_eq!(
            per_day[0],
            json!({"day": "2025-11-29", "currency": "USD", "orders": 1, "amountMinor": 1299, "amount": "12.99"})
        );
        let per_day = &json!(per_day.as_array().map(|days| days[1..].to_vec()));
        assert_eq!(
            per_day[0],
            json!({"day": "2025-11-30", "currency": "EUR", "orders": 1, "amountMinor": 999, "amount": "9.99"})
        );
        assert_eq!(
            per_day[1],
            json!({"day": "2025-11-30", "currency": "USD", "orders": 2, "amountMinor": 2598, "amount": "25.98"})
        );
        assert_eq!(summary["revenue"]["totals"][1]["amountMinor"], 2598 + 1299);
        assert_eq!(summary["revenue"]["givenBack"][0]["amountMinor"], 400);
        assert_eq!(
            summary["revenue"]["net"],
            json!([
                {"currency": "EUR", "amountMinor": 999, "amount": "9.99"},
                {"currency": "USD", "amountMinor": 2598 + 1299 - 400, "amount": "34.97"},
            ])
        );
        // An order refunded unpaid (a partial crypto payment sent back) was never a sale.
        let unpaid = summarise(&orders, &HashSet::new(), &[]);
        assert_eq!(unpaid["revenue"]["totals"][1]["amountMinor"], 2598);
    }
}
