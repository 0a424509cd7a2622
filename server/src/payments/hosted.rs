//! The hosted-checkout adapter: one documented protocol (docs/payments-hosted-adapter.md)
//! for the routes whose processors publish no reference we could build against — aiglo,
//! trust and luxfin — configured per route with a base URL, a merchant id and a shared
//! secret. An operator bridges a real processor to it: the bridge opens checkouts when we
//! ask and reports what happened with signed callbacks.
//!
//! - We create a checkout with `POST {base}/orders` (JSON, signed) and send the buyer to
//!   the `redirectUrl` it answers.
//! - The bridge reports to our `notifyUrl` with signed JSON events (`payment.succeeded`,
//!   `payment.failed`, …); we answer `200 {"received": true}` once handled.
//! - Both directions sign the same way, Stripe-style: header
//!   `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, and a
//!   timestamp more than five minutes away from our clock is refused, so a captured
//!   callback cannot be replayed later. Inside the window a repeat is harmless: a payment's
//!   `transactionId` credits once.
//! - Stopping a subscription (`POST {base}/subscriptions/{id}/cancel`) and refunds
//!   (`POST {base}/refunds`) are signed requests too.
//!
//! The sandbox speaks this protocol to itself (`sandbox.rs`).

use amora_domain::payment::{Currency, Money, OrderId, PaymentRoute, PlanPeriod, ReversalKind, SubscriptionId};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::signing::{hmac_sha256_hex, now_secs, same_hex};
use super::{
    Callback, CallbackAnswer, Checkout, CheckoutRequest, OrderRef, PaymentEvent, PaymentProvider, ProviderError,
    SubscriptionRef, VerifiedCallback, processor_http,
};

/// The header both sides sign with.
pub const SIGNATURE_HEADER: &str = "X-Signature";
/// How far a signature's timestamp may be from our clock, either way (seconds).
pub const TOLERANCE_SECS: i64 = 300;

/// `[payments.aiglo]`, `[payments.trust]`, `[payments.luxfin]`: empty `secret` turns the
/// route off.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostedSettings {
    /// The bridge's base URL; orders go to `{base_url}/orders`.
    pub base_url: String,
    /// Our merchant id at the bridge, sent with every order and expected in every callback.
    pub merchant_id: String,
    /// The shared secret both sides sign with.
    pub secret: String,
}

impl std::fmt::Debug for HostedSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostedSettings")
            .field("base_url", &self.base_url)
            .field("merchant_id", &self.merchant_id)
            .field("secret", &super::signing::redacted(&self.secret))
            .finish()
    }
}

impl HostedSettings {
    pub fn is_configured(&self) -> bool {
        !self.secret.trim().is_empty()
    }
}

/// `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
pub fn signature_header(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let t = timestamp.to_string();
    format!("t={t},v1={}", hmac_sha256_hex(secret.as_bytes(), &[t.as_bytes(), b".", body]))
}

/// Checks an `X-Signature` header against the raw body at `now`. Several `v1` values may
/// be given (a bridge rotating its secret signs with both); one matching is enough.
pub fn check_signature(secret: &str, header: Option<&str>, body: &[u8], now: i64) -> Result<(), ProviderError> {
    let bad = |what: &str| ProviderError::BadCallback(what.to_owned());
    let header = header.filter(|h| !h.trim().is_empty()).ok_or_else(|| bad("no X-Signature header"))?;
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) if timestamp.is_none() => {
                timestamp = Some(value.parse::<i64>().map_err(|_| bad("X-Signature's t is not a number"))?);
            }
            Some(("t", _)) => return Err(bad("X-Signature names t twice")),
            Some(("v1", value)) => signatures.push(value),
            // Other schemes (v0, v2…) are not ours; they are skipped as Stripe does.
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or_else(|| bad("X-Signature has no t"))?;
    if signatures.is_empty() {
        return Err(bad("X-Signature has no v1"));
    }
    if (now - timestamp).abs() > TOLERANCE_SECS {
        return Err(bad("X-Signature's timestamp is more than five minutes away (a replay or a wrong clock)"));
    }
    let t = timestamp.to_string();
    let expected = hmac_sha256_hex(secret.as_bytes(), &[t.as_bytes(), b".", body]);
    // Every candidate is compared (no early exit), though any match suffices.
    let matched = signatures.iter().fold(false, |found, candidate| same_hex(candidate, &expected) | found);
    if !matched {
        return Err(bad("X-Signature does not match the body"));
    }
    Ok(())
}

/// What `POST {base}/orders` carries.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterOrder {
    pub merchant_id: String,
    pub order_id: String,
    /// Decimal text, two decimals: `"12.99"`.
    pub amount: String,
    pub currency: String,
    pub description: String,
    pub return_url: String,
    pub cancel_url: String,
    pub notify_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscription: Option<AdapterSubscription>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterSubscription {
    /// Our subscription id, echoed in `subscription.*` callbacks.
    pub id: String,
    /// `month`, `quarter` or `year`.
    pub period: PlanPeriod,
    /// The same as a number of calendar months (1, 3, 12).
    pub interval_months: u32,
}

/// One callback of the adapter protocol. Which fields are required depends on `type`
/// (docs/payments-hosted-adapter.md); unknown fields are ignored, so a bridge may send more.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterNotification {
    pub event_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub merchant_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_id: Option<String>,
    /// Decimal text, as in orders; a JSON number is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscription_id: Option<String>,
    /// When the paid period ends (unix seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_end: Option<i64>,
    /// Why a payment failed, in the processor's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The answer a handled callback gets.
pub fn received() -> CallbackAnswer {
    CallbackAnswer { status: 200, content_type: "application/json", body: r#"{"received":true}"#.to_owned() }
}

/// Checks a callback's signature, freshness and merchant id, and reads its events.
pub fn verify_notification(
    secret: &str,
    merchant_id: &str,
    callback: &Callback,
    now: i64,
) -> Result<VerifiedCallback, ProviderError> {
    check_signature(secret, callback.header(SIGNATURE_HEADER), &callback.body, now)?;
    let notification: AdapterNotification = serde_json::from_slice(&callback.body)
        .map_err(|e| ProviderError::BadCallback(format!("the callback is not an adapter event: {e}")))?;
    if notification.merchant_id != merchant_id {
        return Err(ProviderError::BadCallback("merchantId is not ours".into()));
    }
    let events = notification_events(&notification)?;
    Ok(VerifiedCallback { events, answer: received() })
}

fn notification_events(n: &AdapterNotification) -> Result<Vec<PaymentEvent>, ProviderError> {
    let bad = |what: &str| ProviderError::BadCallback(what.to_owned());
    if n.event_id.trim().is_empty() {
        return Err(bad("eventId is missing"));
    }
    let order = || -> Result<OrderRef, ProviderError> {
        let id = n.order_id.as_deref().ok_or_else(|| bad("orderId is missing"))?;
        Ok(OrderRef::Ours(OrderId::parse(id).map_err(|_| bad("orderId is not an order of ours"))?))
    };
    let subscription = || -> Result<SubscriptionRef, ProviderError> {
        let id = n.subscription_id.as_deref().ok_or_else(|| bad("subscriptionId is missing"))?;
        Ok(SubscriptionRef::Ours(SubscriptionId::parse(id).map_err(|_| bad("subscriptionId is not ours"))?))
    };
    let transaction =
        || n.transaction_id.clone().filter(|id| !id.is_empty()).ok_or_else(|| bad("transactionId is missing"));
    let amount = || -> Result<Money, ProviderError> {
        let currency = n
            .currency
            .as_deref()
            .and_then(|code| Currency::parse(code).ok())
            .ok_or_else(|| bad("currency is missing or not a currency"))?;
        let text = n.amount.as_deref().ok_or_else(|| bad("amount is missing"))?;
        Money::parse_decimal(text, currency).map_err(|_| bad("amount is not an exact amount in cents"))
    };
    let events = match n.kind.as_str() {
        "payment.succeeded" => {
            let mut events =
                vec![PaymentEvent::Paid { order: order()?, provider_txn_id: transaction()?, amount: amount()? }];
            if n.subscription_id.is_some() {
                events.push(PaymentEvent::SubscriptionActivated {
                    subscription: subscription()?,
                    period_end: n.period_end,
                });
            }
            events
        }
        "payment.pending" => vec![PaymentEvent::Pending { order: order()? }],
        "payment.failed" => vec![PaymentEvent::Failed {
            order: order()?,
            reason: n.reason.clone().filter(|r| !r.is_empty()).unwrap_or_else(|| "declined".into()),
        }],
        "payment.expired" => vec![PaymentEvent::Expired { order: order()? }],
        "payment.refunded" | "payment.chargeback" => vec![PaymentEvent::Refunded {
            order: order()?,
            provider_txn_id: transaction()?,
            amount: amount()?,
            kind: if n.kind == "payment.chargeback" { ReversalKind::Chargeback } else { ReversalKind::Refund },
        }],
        "subscription.renewed" => vec![PaymentEvent::SubscriptionRenewed {
            subscription: subscription()?,
            provider_txn_id: transaction()?,
            amount: amount()?,
            period_end: n.period_end,
        }],
        "subscription.cancelled" => vec![PaymentEvent::SubscriptionCancelled { subscription: subscription()? }],
        other => {
            // A type added to a bridge later: acknowledged (resending would not help) and
            // logged, but it changes nothing.
            tracing::warn!(kind = other, "hosted-checkout callback of an unknown type; ignored");
            Vec::new()
        }
    };
    Ok(events)
}

/// One route (aiglo, trust or luxfin) through a bridge speaking the adapter protocol.
pub struct HostedProvider {
    route: PaymentRoute,
    base_url: String,
    merchant_id: String,
    secret: String,
    http: reqwest::Client,
}

impl HostedProvider {
    /// The provider for `route`, `None` when it is off, or what is wrong with the settings.
    pub fn from_settings(route: PaymentRoute, settings: &HostedSettings) -> Result<Option<Self>, String> {
        if !settings.is_configured() {
            return Ok(None);
        }
        let section = format!("payments.{}", route.code());
        if settings.merchant_id.trim().is_empty() {
            return Err(format!("{section}.merchant_id is required with a secret"));
        }
        Ok(Some(Self {
            route,
            base_url: processor_http::base_url(&settings.base_url, &format!("{section}.base_url"))?,
            merchant_id: settings.merchant_id.trim().to_owned(),
            secret: settings.secret.trim().to_owned(),
            http: processor_http::client()?,
        }))
    }

    /// Checks a callback as `verify_callback` does, at the given time (tests).
    pub fn verify_at(&self, callback: &Callback, now: i64) -> Result<VerifiedCallback, ProviderError> {
        verify_notification(&self.secret, &self.merchant_id, callback, now)
    }

    /// A signed JSON call to the bridge; its JSON answer on success.
    async fn call(&self, path: &str, body: &impl Serialize) -> Result<serde_json::Value, ProviderError> {
        let body = serde_json::to_vec(body).map_err(|e| ProviderError::Refused(e.to_string()))?;
        let response = self
            .http
            .post(format!("{}{path}", self.base_url))
            .header("content-type", "application/json")
            .header(SIGNATURE_HEADER, signature_header(&self.secret, now_secs(), &body))
            .body(body)
            .send()
            .await
            .map_err(processor_http::unavailable)?;
        let (status, answer) = processor_http::read_json(response).await?;
        if !(200..300).contains(&status) {
            let field = |name: &str| answer.get(name).and_then(serde_json::Value::as_str).unwrap_or("").to_owned();
            let what = format!("HTTP {status} {} {}", field("error"), field("message")).trim().to_owned();
            return Err(if status >= 500 { ProviderError::Unavailable(what) } else { ProviderError::Refused(what) });
        }
        Ok(answer)
    }
}

/// Ids we put into paths: letters, digits, `_` and `-` only.
fn path_safe(id: &str) -> Result<&str, ProviderError> {
    if id.is_empty() || id.len() > 100 || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return Err(ProviderError::Refused(format!("{id:?} is not an id the adapter protocol allows")));
    }
    Ok(id)
}

#[async_trait]
impl PaymentProvider for HostedProvider {
    fn route(&self) -> PaymentRoute {
        self.route
    }

    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        let order = AdapterOrder {
            merchant_id: self.merchant_id.clone(),
            order_id: request.order_id.to_string(),
            amount: request.amount.decimal(),
            currency: request.amount.currency.to_string(),
            description: request.description.clone(),
            return_url: request.return_url.clone(),
            cancel_url: request.cancel_url.clone(),
            notify_url: request.notify_url.clone(),
            subscription: request.subscription.as_ref().map(|s| AdapterSubscription {
                id: s.subscription_id.to_string(),
                period: s.period,
                interval_months: s.period.months(),
            }),
        };
        let answer = self.call("/orders", &order).await?;
        let field = |name: &str| answer.get(name).and_then(serde_json::Value::as_str).filter(|v| !v.is_empty());
        match (field("checkoutId"), field("redirectUrl")) {
            (Some(checkout), Some(redirect)) => {
                Ok(Checkout { provider_ref: checkout.to_owned(), approve_url: redirect.to_owned(), qr_payload: None })
            }
            _ => Err(ProviderError::Unavailable("the bridge's answer has no checkoutId or redirectUrl".into())),
        }
    }

    /// The buyer's return proves nothing; the signed callback decides.
    async fn on_return(&self, _provider_ref: &str, _query: &str) -> Result<Vec<PaymentEvent>, ProviderError> {
        Ok(Vec::new())
    }

    async fn verify_callback(&self, callback: &Callback) -> Result<VerifiedCallback, ProviderError> {
        self.verify_at(callback, now_secs())
    }

    async fn verify_received(&self, callback: &Callback, received_at: i64) -> Result<VerifiedCallback, ProviderError> {
        self.verify_at(callback, received_at)
    }

    /// `provider_ref` is our subscription id, which the bridge was given at checkout.
    async fn cancel_subscription(&self, provider_ref: &str, reason: &str) -> Result<(), ProviderError> {
        let id = path_safe(provider_ref)?;
        let body = serde_json::json!({ "merchantId": self.merchant_id, "subscriptionId": id, "reason": reason });
        self.call(&format!("/subscriptions/{id}/cancel"), &body).await.map(|_| ())
    }

    async fn refund(&self, provider_txn_id: &str, amount: &Money) -> Result<String, ProviderError> {
        let body = serde_json::json!({
            "merchantId": self.merchant_id,
            "transactionId": provider_txn_id,
            "amount": amount.decimal(),
            "currency": amount.currency.as_str(),
        });
        let answer = self.call("/refunds", &body).await?;
        answer
            .get("refundId")
            .and_then(serde_json::Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| ProviderError::Unavailable("the bridge's refund answer has no refundId".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of docs/payments-hosted-adapter.md. The signature was computed
    /// outside Rust: `printf '%s' "1700000000.$BODY" | openssl dgst -sha256 -hmac
    /// whsec_test_0123456789`.
    const SECRET: &str = "whsec_test_0123456789";
    const T: i64 = 1_700_000_000;
    const BODY: &str = r#"{"eventId":"evt_0001","type":"payment.succeeded","merchantId":"amora-test","orderId":"ord_0123456789abcdefghijklmn","checkoutId":"chk_42","transactionId":"txn_9001","amount":"12.99","currency":"USD"}"#;
    const HEADER: &str = "t=1700000000,v1=42bfb7c283636963b4d88c8b2abb79bc8c35061af3a5978dc0ac540214d00260";

    fn callback(header: &str, body: &str) -> Callback {
        Callback {
            headers: vec![("x-signature".into(), header.into())],
            query: String::new(),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn the_documented_example_signs_as_the_document_says() {
        assert_eq!(signature_header(SECRET, T, BODY.as_bytes()), HEADER);
        let doc = include_str!("../../../docs/payments-hosted-adapter.md");
        assert!(doc.contains(HEADER) && doc.contains(BODY), "the document shows this very example");
    }

    #[test]
    fn the_documented_example_is_a_payment_within_five_minutes_only() {
        let verified = verify_notification(SECRET, "amora-test", &callback(HEADER, BODY), T + 299)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(verified.events.as_slice(), [PaymentEvent::Paid { amount, .. }] if amount.minor == 1299));
        assert_eq!(verified.answer.body, r#"{"received":true}"#);
        assert!(verify_notification(SECRET, "amora-test", &callback(HEADER, BODY), T + 301).is_err());
        assert!(verify_notification(SECRET, "amora-test", &callback(HEADER, BODY), T - 301).is_err());
        assert!(verify_notification(SECRET, "someone-else", &callback(HEADER, BODY), T).is_err());
    }

    #[test]
    fn a_rotated_secret_may_sign_twice_and_one_match_is_enough() {
        let other = signature_header("old-secret", T, BODY.as_bytes());
        let (_, old_v1) = other.split_once(",v1=").unwrap_or_default();
        let header = format!("{HEADER},v1={old_v1}");
        assert!(check_signature(SECRET, Some(&header), BODY.as_bytes(), T).is_ok());
        assert!(check_signature("old-secret", Some(&header), BODY.as_bytes(), T).is_ok());
        assert!(check_signature("third", Some(&header), BODY.as_bytes(), T).is_err());
        assert!(check_signature(SECRET, Some("t=1700000000"), BODY.as_bytes(), T).is_err());
        assert!(check_signature(SECRET, Some("t=1700000000,t=1700000001,v1=00"), BODY.as_bytes(), T).is_err());
    }
}
