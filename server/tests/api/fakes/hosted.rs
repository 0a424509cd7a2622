//! A bridge speaking the hosted-checkout adapter protocol (docs/payments-hosted-adapter.md)
//! on loopback: it checks our signature, timestamp and merchant id on `POST /orders`,
//! `/subscriptions/{id}/cancel` and `/refunds`, and sends signed callbacks. Signing and
//! checking here are written from the document, independently of the provider's code.

use std::collections::HashMap;
use std::sync::Mutex;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use amora_server::payments::hosted::HostedSettings;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use super::{loopback, random_letters};

pub const MERCHANT_ID: &str = "amora-test-merchant";
pub const SECRET: &str = "whsec_bridge_secret_for_tests_0001";

#[derive(Debug, Clone)]
pub struct FakeCheckout {
    pub checkout_id: String,
    /// The order exactly as Amora posted it.
    pub order: Value,
    pub transaction_id: String,
}

struct State {
    checkouts: Mutex<HashMap<String, FakeCheckout>>,
    cancelled: Mutex<Vec<(String, String)>>,
    refunds: Mutex<Vec<Value>>,
    refused: Mutex<Vec<String>>,
}

pub struct HostedFake {
    pub base: String,
    state: web::Data<State>,
    http: reqwest::Client,
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

/// `t=<t>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
pub fn signature(secret: &str, t: i64, body: &str) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{body}").as_bytes());
    let hex: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    format!("t={t},v1={hex}")
}

/// The bridge's side of the check: the header parses, is fresh and matches the body.
fn verified(request: &HttpRequest, body: &[u8]) -> Result<Value, (u16, &'static str)> {
    let header =
        request.headers().get("x-signature").and_then(|v| v.to_str().ok()).ok_or((401, "missing_signature"))?;
    let mut t = None;
    let mut v1 = Vec::new();
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", value)) => t = value.parse::<i64>().ok(),
            Some(("v1", value)) => v1.push(value.to_owned()),
            _ => {}
        }
    }
    let t = t.ok_or((401, "bad_signature"))?;
    if (now() - t).abs() > 300 {
        return Err((401, "stale_signature"));
    }
    let body_text = std::str::from_utf8(body).map_err(|_| (400, "bad_body"))?;
    let expected = signature(SECRET, t, body_text);
    if !v1.iter().any(|candidate| expected.ends_with(&format!("v1={candidate}"))) {
        return Err((401, "bad_signature"));
    }
    let json: Value = serde_json::from_slice(body).map_err(|_| (400, "bad_body"))?;
    if json.get("merchantId").and_then(Value::as_str) != Some(MERCHANT_ID) {
        return Err((403, "unknown_merchant"));
    }
    Ok(json)
}

fn refusal(state: &State, (status, code): (u16, &'static str)) -> HttpResponse {
    state.refused.lock().unwrap().push(code.to_owned());
    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap())
        .json(json!({"error": code, "message": format!("refused: {code}")}))
}

/// Decimal text with exactly two decimals.
fn two_decimals(text: &str) -> bool {
    text.split_once('.').is_some_and(|(whole, cents)| {
        !whole.is_empty() && cents.len() == 2 && whole.bytes().chain(cents.bytes()).all(|b| b.is_ascii_digit())
    })
}

async fn create_order(state: web::Data<State>, request: HttpRequest, body: web::Bytes) -> HttpResponse {
    let order = match verified(&request, &body) {
        Ok(order) => order,
        Err(refused) => return refusal(&state, refused),
    };
    let field = |name: &str| order.get(name).and_then(Value::as_str).unwrap_or("");
    if !two_decimals(field("amount")) {
        return refusal(&state, (400, "bad_amount"));
    }
    if ["orderId", "currency", "returnUrl", "cancelUrl", "notifyUrl"].iter().any(|name| field(name).is_empty()) {
        return refusal(&state, (400, "missing_field"));
    }
    let checkout_id = format!("chk_{}", random_letters(16));
    let checkout = FakeCheckout {
        checkout_id: checkout_id.clone(),
        order: order.clone(),
        transaction_id: format!("txn_{}", random_letters(16)),
    };
    state.checkouts.lock().unwrap().insert(checkout_id.clone(), checkout);
    HttpResponse::Ok().json(json!({
        "checkoutId": checkout_id,
        "redirectUrl": format!("https://pay.processor.test/c/{checkout_id}"),
    }))
}

async fn cancel_subscription(
    state: web::Data<State>,
    request: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> HttpResponse {
    let call = match verified(&request, &body) {
        Ok(call) => call,
        Err(refused) => return refusal(&state, refused),
    };
    let reason = call.get("reason").and_then(Value::as_str).unwrap_or("").to_owned();
    state.cancelled.lock().unwrap().push((path.into_inner(), reason));
    HttpResponse::Ok().json(json!({}))
}

async fn refund(state: web::Data<State>, request: HttpRequest, body: web::Bytes) -> HttpResponse {
    let call = match verified(&request, &body) {
        Ok(call) => call,
        Err(refused) => return refusal(&state, refused),
    };
    state.refunds.lock().unwrap().push(call);
    HttpResponse::Ok().json(json!({"refundId": format!("rf_{}", random_letters(12))}))
}

impl HostedFake {
    pub async fn start() -> Self {
        let state = web::Data::new(State {
            checkouts: Mutex::new(HashMap::new()),
            cancelled: Mutex::new(Vec::new()),
            refunds: Mutex::new(Vec::new()),
            refused: Mutex::new(Vec::new()),
        });
        let data = state.clone();
        let (listener, base) = loopback();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .route("/orders", web::post().to(create_order))
                .route("/subscriptions/{id}/cancel", web::post().to(cancel_subscription))
                .route("/refunds", web::post().to(refund))
        })
        .workers(1)
        .listen(listener)
        .unwrap();
        actix_rt::spawn(server.run());
        Self { base, state, http: reqwest::Client::new() }
    }

    pub fn settings(&self) -> HostedSettings {
        HostedSettings { base_url: self.base.clone(), merchant_id: MERCHANT_ID.into(), secret: SECRET.into() }
    }

    pub fn checkout(&self, checkout_id: &str) -> FakeCheckout {
        self.state.checkouts.lock().unwrap().get(checkout_id).cloned().expect("no such checkout")
    }

    pub fn cancelled(&self) -> Vec<(String, String)> {
        self.state.cancelled.lock().unwrap().clone()
    }

    pub fn refunds(&self) -> Vec<Value> {
        self.state.refunds.lock().unwrap().clone()
    }

    /// Why the bridge refused Amora's calls, in order.
    pub fn refused(&self) -> Vec<String> {
        self.state.refused.lock().unwrap().clone()
    }

    /// The callback the processor's news becomes, for a checkout: `payment.*` events carry
    /// the order; on a subscription's checkout `payment.succeeded` also starts it, and
    /// `subscription.*` events name it.
    pub fn event(&self, checkout_id: &str, kind: &str) -> Value {
        let checkout = self.checkout(checkout_id);
        let order = &checkout.order;
        let mut event = json!({
            "eventId": format!("evt_{}", random_letters(16)),
            "type": kind,
            "merchantId": MERCHANT_ID,
        });
        let subscription_id = order.pointer("/subscription/id").cloned();
        let months = order.pointer("/subscription/intervalMonths").and_then(Value::as_i64).unwrap_or(1);
        let set = |event: &mut Value, key: &str, value: Value| {
            event.as_object_mut().unwrap().insert(key.to_owned(), value);
        };
        if kind.starts_with("payment.") {
            set(&mut event, "orderId", order["orderId"].clone());
            set(&mut event, "checkoutId", json!(checkout.checkout_id));
        }
        if matches!(kind, "payment.succeeded" | "payment.refunded" | "payment.chargeback" | "subscription.renewed") {
            let transaction = if kind == "subscription.renewed" {
                format!("txn_{}", random_letters(16))
            } else {
                checkout.transaction_id
            };
            set(&mut event, "transactionId", json!(transaction));
            set(&mut event, "amount", order["amount"].clone());
            set(&mut event, "currency", order["currency"].clone());
        }
        if let Some(id) = subscription_id.filter(|_| kind == "payment.succeeded" || kind.starts_with("subscription.")) {
            set(&mut event, "subscriptionId", id);
            if kind != "subscription.cancelled" {
                set(&mut event, "periodEnd", json!(now() + months * 30 * 86_400));
            }
        }
        if kind == "payment.failed" {
            set(&mut event, "reason", json!("card declined"));
        }
        event
    }

    /// Sends a callback body to the checkout's `notifyUrl`, signed now with the right secret.
    pub async fn send(&self, checkout_id: &str, kind: &str) -> (u16, String) {
        let body = self.event(checkout_id, kind).to_string();
        let url = self.notify_url(checkout_id);
        self.post(&url, &body, Some(signature(SECRET, now(), &body))).await
    }

    pub fn notify_url(&self, checkout_id: &str) -> String {
        self.checkout(checkout_id).order["notifyUrl"].as_str().unwrap().to_owned()
    }

    /// Posts any body with any `X-Signature` (or none).
    pub async fn post(&self, url: &str, body: &str, signature: Option<String>) -> (u16, String) {
        let mut request = self.http.post(url).header("content-type", "application/json").body(body.to_owned());
        if let Some(signature) = signature {
            request = request.header("X-Signature", signature);
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    pub fn now() -> i64 {
        now()
    }
}
