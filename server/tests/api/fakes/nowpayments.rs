//! NOWPayments on loopback: `POST /v1/invoice` behind `x-api-key` (403 with their error
//! shape otherwise), and IPNs for any status, signed as NOWPayments signs them: hex
//! HMAC-SHA512 with the IPN secret over the body's JSON with its keys sorted. The signing
//! here is written independently of the provider's (serde_json values, sorted maps), so
//! its numbers stay ones a double writes back as they came (the provider keeps number
//! texts as received; its unit test covers the texts a double would change).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use amora_server::payments::nowpayments::NowPaymentsSettings;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha512;

use super::loopback;

pub const API_KEY: &str = "NP-TEST-API-KEY-0001";
pub const IPN_SECRET: &str = "np-ipn-secret-for-tests";

#[derive(Debug, Clone)]
pub struct Invoice {
    pub id: String,
    pub payment_id: u64,
    pub order_id: String,
    pub order_description: String,
    /// `price_amount` as the JSON text we received.
    pub price_amount: String,
    pub price_currency: String,
    pub ipn_callback_url: String,
    pub success_url: String,
    pub cancel_url: String,
}

struct State {
    invoices: Mutex<HashMap<String, Invoice>>,
    next_id: AtomicU64,
}

pub struct NowPaymentsFake {
    pub base: String,
    state: web::Data<State>,
    http: reqwest::Client,
}

impl NowPaymentsFake {
    pub async fn start() -> Self {
        let state =
            web::Data::new(State { invoices: Mutex::new(HashMap::new()), next_id: AtomicU64::new(4_522_625_843) });
        let data = state.clone();
        let (listener, base) = loopback();
        let server = HttpServer::new(move || {
            App::new().app_data(data.clone()).route("/v1/invoice", web::post().to(create_invoice))
        })
        .workers(1)
        .listen(listener)
        .unwrap();
        actix_rt::spawn(server.run());
        Self { base, state, http: reqwest::Client::new() }
    }

    /// Settings pointing the provider here with the right keys.
    pub fn settings(&self) -> NowPaymentsSettings {
        NowPaymentsSettings { api_key: API_KEY.into(), ipn_secret: IPN_SECRET.into(), base_url: self.base.clone() }
    }

    pub fn invoice(&self, id: &str) -> Invoice {
        self.state.invoices.lock().unwrap().get(id).cloned().expect("no such invoice")
    }

    /// An invoice IPN for `status`, written as NOWPayments writes it: their key order (not
    /// sorted), a nested `fee`, amounts as JSON numbers.
    pub fn ipn_body(&self, invoice_id: &str, status: &str) -> String {
        let invoice = self.invoice(invoice_id);
        let paid_at_fiat = if status == "partially_paid" { "5.123".to_owned() } else { invoice.price_amount.clone() };
        let fields: Vec<(&str, String)> = vec![
            ("payment_id", invoice.payment_id.to_string()),
            ("invoice_id", invoice.id.clone()),
            ("payment_status", json!(status).to_string()),
            ("pay_address", json!("bc1qtestaddress0000000000000000000000000").to_string()),
            ("price_amount", invoice.price_amount.clone()),
            ("price_currency", json!(invoice.price_currency).to_string()),
            ("pay_amount", "0.00027".into()),
            ("actually_paid", if status == "waiting" { "0".into() } else { "0.00027".into() }),
            ("actually_paid_at_fiat", paid_at_fiat),
            ("pay_currency", json!("btc").to_string()),
            ("order_id", json!(invoice.order_id).to_string()),
            ("order_description", json!(invoice.order_description).to_string()),
            ("purchase_id", json!("5837122679").to_string()),
            ("outcome_amount", "0.000265".into()),
            ("outcome_currency", json!("btc").to_string()),
            ("fee", r#"{"currency":"btc","depositFee":0,"withdrawalFee":0,"serviceFee":0.0013}"#.into()),
            ("updated_at", "1700000000000".into()),
        ];
        let members: Vec<String> = fields.into_iter().map(|(key, value)| format!("{}:{value}", json!(key))).collect();
        format!("{{{}}}", members.join(","))
    }

    /// `x-nowpayments-sig` for a body, keyed by `secret`.
    pub fn sign_with(secret: &str, body: &str) -> String {
        let value: Value = serde_json::from_str(body).unwrap();
        let sorted = serde_json::to_string(&sorted(value)).unwrap();
        let mut mac = <Hmac<Sha512> as Mac>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(sorted.as_bytes());
        mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Sends the IPN of `status` for the invoice, signed; answers the status and body.
    pub async fn send_ipn(&self, invoice_id: &str, status: &str) -> (u16, String) {
        let body = self.ipn_body(invoice_id, status);
        let signature = Self::sign_with(IPN_SECRET, &body);
        let url = self.invoice(invoice_id).ipn_callback_url;
        self.post_ipn(&url, &body, Some(&signature)).await
    }

    /// Posts any body with any signature (or none) to `url`.
    pub async fn post_ipn(&self, url: &str, body: &str, signature: Option<&str>) -> (u16, String) {
        let mut request = self.http.post(url).header("content-type", "application/json").body(body.to_owned());
        if let Some(signature) = signature {
            request = request.header("x-nowpayments-sig", signature);
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }
}

/// A JSON value with every object's keys in sorted order.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let ordered: BTreeMap<String, Value> = map.into_iter().map(|(k, v)| (k, sorted(v))).collect();
            // Built in sorted order; serialised in insertion order or sorted, either way sorted.
            Value::Object(ordered.into_iter().collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn error(status: u16, code: &str, message: &str) -> HttpResponse {
    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap())
        .json(json!({"status": false, "statusCode": status, "code": code, "message": message}))
}

async fn create_invoice(state: web::Data<State>, request: HttpRequest, body: web::Bytes) -> HttpResponse {
    if request.headers().get("x-api-key").and_then(|v| v.to_str().ok()) != Some(API_KEY) {
        return error(403, "INVALID_API_KEY", "Invalid api key");
    }
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(&body) else {
        return error(400, "INVALID_REQUEST_PARAMS", "body must be a JSON object");
    };
    let text = |name: &str| fields.get(name).and_then(Value::as_str).map(str::to_owned);
    let Some(Value::Number(price)) = fields.get("price_amount") else {
        return error(400, "INVALID_REQUEST_PARAMS", "\"price_amount\" must be a number");
    };
    let (Some(currency), Some(order_id), Some(ipn), Some(success), Some(cancel)) =
        (text("price_currency"), text("order_id"), text("ipn_callback_url"), text("success_url"), text("cancel_url"))
    else {
        return error(400, "INVALID_REQUEST_PARAMS", "a required field is missing");
    };
    let id = state.next_id.fetch_add(1, Ordering::SeqCst);
    let invoice = Invoice {
        id: id.to_string(),
        payment_id: id + 600_000_000,
        order_id,
        order_description: text("order_description").unwrap_or_default(),
        price_amount: price.to_string(),
        price_currency: currency,
        ipn_callback_url: ipn,
        success_url: success,
        cancel_url: cancel,
    };
    state.invoices.lock().unwrap().insert(invoice.id.clone(), invoice.clone());
    HttpResponse::Ok().json(json!({
        "id": invoice.id,
        "token_id": "tok_test",
        "order_id": invoice.order_id,
        "order_description": invoice.order_description,
        "price_amount": invoice.price_amount,
        "price_currency": invoice.price_currency,
        "pay_currency": null,
        "ipn_callback_url": invoice.ipn_callback_url,
        "invoice_url": format!("https://nowpayments.io/payment/?iid={}", invoice.id),
        "success_url": invoice.success_url,
        "cancel_url": invoice.cancel_url,
        "created_at": "2024-01-15T12:00:00.000Z",
        "updated_at": "2024-01-15T12:00:00.000Z",
    }))
}
