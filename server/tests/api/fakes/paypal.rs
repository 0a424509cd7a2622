//! A loopback PayPal that follows the published REST protocol closely enough to drive the
//! real provider over HTTP: OAuth 2.0 client credentials (basic auth, bearer tokens that
//! expire), Orders v2 (create honouring `PayPal-Request-Id`, the buyer's approval page,
//! capture), Payments v2 captures and refunds, v1 sale refunds, Subscriptions v1 (create,
//! the buyer's approval page, details, cancel), the webhook certificate URL, and webhooks
//! signed exactly as PayPal signs them, with an RSA key and an X.509 chain the test makes
//! (a root CA the provider is told to trust → an intermediate → the signing certificate).
//!
//! The fake serves plain HTTP: the provider's settings allow its origin explicitly
//! (`cert_hosts = ["http://127.0.0.1:PORT"]`), as no default ever does.

use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use amora_domain::payment::{Currency, Money, add_months};
use amora_server::payments::Callback;
use amora_server::payments::paypal::{PaypalPlanIds, PaypalProvider, PaypalSettings};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rand::Rng;
use rsa::RsaPrivateKey;
use rsa::pkcs8::EncodePrivateKey;
use rsa::signature::{SignatureEncoding, Signer};
use serde_json::{Value, json};
use sha2::Sha256;

/// The webhook id PayPal gave the test's webhook; it is part of every signature.
pub const WEBHOOK_ID: &str = "8PT597110X687430LKGECATA";
pub const CLIENT_ID: &str = "AmoraTestClientId-loopback-paypal";
pub const CLIENT_SECRET: &str = "AmoraTestClientSecret-loopback-not-a-real-key";

/// The signing certificate PayPal names in honest notifications.
pub const GOOD_CERT: &str = "CERT-360caa42-fca2a594-amora001";
/// Issued by the test's CA, but out of date.
pub const EXPIRED_CERT: &str = "CERT-360caa42-fca2a594-expired";
/// Valid dates, but issued by a CA nobody trusts.
pub const ROGUE_CERT: &str = "CERT-360caa42-fca2a594-rogue01";

/// The billing plans the operator made at this PayPal, at the prices of Amora's default
/// catalogue (config/default.toml): (id, months, price in USD).
pub const PLANS: [(&str, u32, &str); 3] = [
    ("P-5ML4271244454362WXNWU5NQ", 1, "12.99"),
    ("P-3RX065706M3469222L5IFM4I", 3, "29.99"),
    ("P-8ML4271244454362XNWU5NQA", 12, "71.99"),
];

/// The test's PKI, made once per test process (RSA key generation is the slow part).
struct Pki {
    /// The root the provider trusts (`cert_ca_file`).
    trusted_root_pem: String,
    /// Certificate name → (PEM chain served at its URL, the key that signs with it).
    certs: HashMap<&'static str, (String, RsaPrivateKey)>,
}

static PKI: LazyLock<Pki> = LazyLock::new(make_pki);

fn rsa_key() -> (RsaPrivateKey, rcgen::KeyPair) {
    let key = RsaPrivateKey::new(&mut rand::thread_rng(), 2048).unwrap();
    let der = key.to_pkcs8_der().unwrap();
    let pair = rcgen::KeyPair::from_pkcs8_der_and_sign_algo(
        &rustls_pki_types::PrivatePkcs8KeyDer::from(der.as_bytes()),
        &rcgen::PKCS_RSA_SHA256,
    )
    .unwrap();
    (key, pair)
}

fn ca_params(name: &str) -> rcgen::CertificateParams {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(rcgen::DnType::CommonName, name);
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::CrlSign];
    params
}

/// A signing certificate like PayPal's (`messageverificationcerts.paypal.com`).
fn leaf(
    key: &rcgen::KeyPair,
    issuer: &rcgen::Issuer<'_, rcgen::KeyPair>,
    not_before: (i32, u8, u8),
    not_after: (i32, u8, u8),
) -> String {
    let mut params = rcgen::CertificateParams::new(vec!["messageverificationcerts.paypal.com".to_owned()]).unwrap();
    params.distinguished_name.push(rcgen::DnType::CommonName, "messageverificationcerts.paypal.com");
    params.distinguished_name.push(rcgen::DnType::OrganizationName, "PayPal, Inc.");
    params.key_usages = vec![rcgen::KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages =
        vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth, rcgen::ExtendedKeyUsagePurpose::ClientAuth];
    params.not_before = rcgen::date_time_ymd(not_before.0, not_before.1, not_before.2);
    params.not_after = rcgen::date_time_ymd(not_after.0, not_after.1, not_after.2);
    params.signed_by(key, issuer).unwrap().pem()
}

fn make_pki() -> Pki {
    let root =
        rcgen::CertifiedIssuer::self_signed(ca_params("Amora Test Root CA"), rcgen::KeyPair::generate().unwrap())
            .unwrap();
    let intermediate = rcgen::CertifiedIssuer::signed_by(
        ca_params("Amora Test Message Verification CA"),
        rcgen::KeyPair::generate().unwrap(),
        &*root,
    )
    .unwrap();
    let (key, pair) = rsa_key();
    let good = leaf(&pair, &intermediate, (2020, 1, 1), (2100, 1, 1));
    let expired = leaf(&pair, &intermediate, (2019, 1, 1), (2020, 1, 1));

    let rogue_root =
        rcgen::CertifiedIssuer::self_signed(ca_params("Rogue Root CA"), rcgen::KeyPair::generate().unwrap()).unwrap();
    let (rogue_key, rogue_pair) = rsa_key();
    let rogue = leaf(&rogue_pair, &rogue_root, (2020, 1, 1), (2100, 1, 1));

    let certs = HashMap::from([
        (GOOD_CERT, (format!("{good}{}", intermediate.pem()), key.clone())),
        (EXPIRED_CERT, (format!("{expired}{}", intermediate.pem()), key)),
        (ROGUE_CERT, (format!("{rogue}{}", rogue_root.pem()), rogue_key)),
    ]);
    Pki { trusted_root_pem: root.pem(), certs }
}

/// How a test spoils a notification.
#[derive(Debug, Clone)]
pub enum Tamper {
    /// Exactly as PayPal sends it.
    None,
    /// The signature of something else.
    WrongSignature,
    /// Signed, then the amount in the body changed.
    BodyChangedAfterSigning,
    /// The `paypal-cert-url` header names this URL instead.
    CertUrl(String),
    /// Signed with this certificate's key, and its URL named.
    Cert(&'static str),
    /// Signed honestly, this many seconds ago (negative: in the future).
    SentSecondsAgo(i64),
    /// Signed for another webhook.
    WebhookId(String),
    /// `paypal-auth-algo` says this.
    AuthAlgo(String),
    /// Without this header.
    WithoutHeader(&'static str),
}

#[derive(Clone)]
struct FakeOrder {
    id: String,
    status: String,
    /// The purchase unit as the merchant sent it.
    unit: Value,
    amount: Money,
    return_url: String,
    /// `payment_source.paypal` was given (answered with `payer-action`, not `approve`).
    payment_source: bool,
    capture_id: Option<String>,
    create_time: String,
}

#[derive(Clone)]
struct FakeCapture {
    id: String,
    order_id: String,
    status: String,
    amount: Money,
    refunded_minor: u64,
    custom_id: Option<String>,
    invoice_id: Option<String>,
    create_time: String,
}

#[derive(Clone)]
struct FakeSubscription {
    id: String,
    plan_id: String,
    status: String,
    custom_id: Option<String>,
    ba_token: String,
    return_url: String,
    price: Money,
    months: u32,
    start_time: i64,
    next_billing_time: i64,
    cycles_completed: u32,
    last_payment: Option<(Money, i64)>,
    create_time: String,
}

#[derive(Clone)]
struct FakeSale {
    id: String,
    amount: Money,
    refunded: bool,
    create_time: i64,
}

struct State {
    token_lifetime_secs: u64,
    tokens: HashMap<String, Instant>,
    tokens_issued: usize,
    next_id: u64,
    orders: HashMap<String, FakeOrder>,
    captures: HashMap<String, FakeCapture>,
    subscriptions: HashMap<String, FakeSubscription>,
    sales: HashMap<String, FakeSale>,
    /// `operation:PayPal-Request-Id` → the first answer (status, body).
    idempotent: HashMap<String, (u16, Value)>,
    deny_next_capture: bool,
    cert_fetches: usize,
    /// Notifications PayPal would send, in order, not yet taken by the test.
    webhooks: Vec<Value>,
}

impl State {
    fn id(&mut self, prefix: &str, width: usize) -> String {
        self.next_id += 1;
        let digits = format!("{:0width$}", self.next_id * 7919 + 100_003, width = width);
        format!("{prefix}{digits}")
    }
}

struct Shared {
    base: String,
    state: Mutex<State>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }
}

/// The loopback PayPal, serving until the test's runtime ends.
pub struct FakePaypal {
    pub base: String,
    shared: Arc<Shared>,
    ca_file: tempfile::NamedTempFile,
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

fn rfc3339(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0).unwrap().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn usd(decimal: &str) -> Money {
    Money::parse_decimal(decimal, Currency::parse("USD").unwrap()).unwrap()
}

fn money_json(money: &Money) -> Value {
    json!({ "currency_code": money.currency.as_str(), "value": money.decimal() })
}

fn link(href: String, rel: &str, method: &str) -> Value {
    json!({ "href": href, "rel": rel, "method": method })
}

/// PayPal's error body.
fn error(status: u16, name: &str, issue: &str, description: &str) -> HttpResponse {
    let message = match name {
        "UNPROCESSABLE_ENTITY" => {
            "The requested action could not be performed, semantically incorrect, or failed business validation."
        }
        "RESOURCE_NOT_FOUND" => "The specified resource does not exist.",
        "INVALID_REQUEST" => "Request is not well-formed, syntactically incorrect, or violates schema.",
        _ => "An internal server error has occurred.",
    };
    let debug_id = format!("{:013x}", rand::thread_rng().r#gen::<u64>() >> 12);
    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap()).json(json!({
        "name": name,
        "message": message,
        "debug_id": debug_id,
        "details": [{ "issue": issue, "description": description }],
        "links": [{ "href": format!("https://developer.paypal.com/docs/api/orders/v2/#error-{issue}"), "rel": "information_link", "method": "GET" }],
    }))
}

fn not_found() -> HttpResponse {
    error(
        404,
        "RESOURCE_NOT_FOUND",
        "INVALID_RESOURCE_ID",
        "Specified resource ID does not exist. Please check the resource ID and try again.",
    )
}

/// Every REST call needs a live bearer token: the refusal when it has none.
fn unauthorised(request: &HttpRequest, shared: &Shared) -> Option<HttpResponse> {
    let token = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    let live = shared.state().tokens.get(token).is_some_and(|expires| Instant::now() < *expires);
    if live {
        return None;
    }
    Some(HttpResponse::Unauthorized().json(json!({
        "name": "AUTHENTICATION_FAILURE",
        "message": "Authentication failed due to invalid authentication credentials or a missing Authorization header.",
        "links": [{ "href": "https://developer.paypal.com/docs/api/overview/#error", "rel": "information_link" }],
    })))
}

fn request_id(request: &HttpRequest) -> Option<String> {
    request.headers().get("paypal-request-id").and_then(|v| v.to_str().ok()).map(str::to_owned)
}

fn json_body(body: &[u8]) -> Result<Value, Box<HttpResponse>> {
    if body.is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_slice(body).map_err(|_| {
        Box::new(error(400, "INVALID_REQUEST", "MALFORMED_REQUEST_JSON", "The request JSON is not well formed."))
    })
}

/// A repeated `PayPal-Request-Id` gets the first answer again (200 for a create, as PayPal
/// answers when "the resource was already created by a previous execution").
fn replay(shared: &Shared, key: &Option<String>) -> Option<HttpResponse> {
    let key = key.as_ref()?;
    let (status, body) = shared.state().idempotent.get(key).cloned()?;
    let status = if status == 201 { 200 } else { status };
    Some(HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap()).json(body))
}

fn remember(shared: &Shared, key: &Option<String>, status: u16, body: &Value) -> HttpResponse {
    if let Some(key) = key {
        shared.state().idempotent.insert(key.clone(), (status, body.clone()));
    }
    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap()).json(body)
}

fn capture_json(base: &str, capture: &FakeCapture) -> Value {
    let mut json = json!({
        "id": capture.id,
        "status": capture.status,
        "amount": money_json(&capture.amount),
        "final_capture": true,
        "seller_protection": { "status": "ELIGIBLE", "dispute_categories": ["ITEM_NOT_RECEIVED", "UNAUTHORIZED_TRANSACTION"] },
        "supplementary_data": { "related_ids": { "order_id": capture.order_id } },
        "create_time": capture.create_time,
        "update_time": capture.create_time,
        "links": [
            link(format!("{base}/v2/payments/captures/{}", capture.id), "self", "GET"),
            link(format!("{base}/v2/payments/captures/{}/refund", capture.id), "refund", "POST"),
            link(format!("{base}/v2/checkout/orders/{}", capture.order_id), "up", "GET"),
        ],
    });
    if let Some(custom_id) = &capture.custom_id {
        json["custom_id"] = json!(custom_id);
    }
    if let Some(invoice_id) = &capture.invoice_id {
        json["invoice_id"] = json!(invoice_id);
    }
    if capture.status == "DECLINED" {
        json["status_details"] = json!({ "reason": "DECLINED_BY_RISK_FRAUD_FILTERS" });
    }
    json
}

fn order_json(base: &str, state: &State, order: &FakeOrder) -> Value {
    let mut unit = order.unit.clone();
    unit["reference_id"] = unit.get("reference_id").cloned().unwrap_or(json!("default"));
    unit["payee"] = json!({ "email_address": "merchant@amora.test", "merchant_id": "C7CYMKZDG8D6E" });
    if let Some(capture) = order.capture_id.as_ref().and_then(|id| state.captures.get(id)) {
        unit["payments"] = json!({ "captures": [capture_json(base, capture)] });
    }
    let mut links = vec![link(format!("{base}/v2/checkout/orders/{}", order.id), "self", "GET")];
    match order.status.as_str() {
        "PAYER_ACTION_REQUIRED" => {
            links.push(link(format!("{base}/checkoutnow?token={}", order.id), "payer-action", "GET"))
        }
        "CREATED" => {
            links.push(link(format!("{base}/checkoutnow?token={}", order.id), "approve", "GET"));
            links.push(link(format!("{base}/v2/checkout/orders/{}/capture", order.id), "capture", "POST"));
        }
        "APPROVED" => links.push(link(format!("{base}/v2/checkout/orders/{}/capture", order.id), "capture", "POST")),
        _ => {}
    }
    let mut json = json!({
        "id": order.id,
        "intent": "CAPTURE",
        "status": order.status,
        "purchase_units": [unit],
        "create_time": order.create_time,
        "links": links,
    });
    if order.payment_source {
        json["payment_source"] = json!({ "paypal": {} });
    }
    if order.status == "APPROVED" || order.status == "COMPLETED" {
        json["payer"] = json!({ "payer_id": "QYR5Z8XDVJNXQ", "email_address": "buyer@amora.test" });
    }
    json
}

fn subscription_json(base: &str, subscription: &FakeSubscription) -> Value {
    let mut json = json!({
        "id": subscription.id,
        "plan_id": subscription.plan_id,
        "status": subscription.status,
        "status_update_time": rfc3339(now()),
        "quantity": "1",
        "plan_overridden": false,
        "create_time": subscription.create_time,
        "links": [link(format!("{base}/v1/billing/subscriptions/{}", subscription.id), "self", "GET")],
    });
    if let Some(custom_id) = &subscription.custom_id {
        json["custom_id"] = json!(custom_id);
    }
    if subscription.status == "APPROVAL_PENDING" {
        json["links"].as_array_mut().unwrap().insert(
            0,
            link(format!("{base}/webapps/billing/subscriptions?ba_token={}", subscription.ba_token), "approve", "GET"),
        );
        return json;
    }
    json["start_time"] = json!(rfc3339(subscription.start_time));
    let mut billing = json!({
        "outstanding_balance": { "currency_code": "USD", "value": "0.00" },
        "cycle_executions": [{
            "tenure_type": "REGULAR", "sequence": 1, "cycles_completed": subscription.cycles_completed,
            "cycles_remaining": 0, "current_pricing_scheme_version": 1, "total_cycles": 0,
        }],
        "failed_payments_count": 0,
    });
    if let Some((amount, time)) = &subscription.last_payment {
        billing["last_payment"] = json!({ "amount": money_json(amount), "time": rfc3339(*time) });
    }
    if subscription.status == "ACTIVE" {
        billing["next_billing_time"] = json!(rfc3339(subscription.next_billing_time));
    }
    json["billing_info"] = billing;
    json
}

fn sale_json(base: &str, sale: &FakeSale, subscription: &FakeSubscription) -> Value {
    json!({
        "id": sale.id,
        "state": if sale.refunded { "refunded" } else { "completed" },
        "amount": { "total": sale.amount.decimal(), "currency": sale.amount.currency.as_str(), "details": { "subtotal": sale.amount.decimal() } },
        "payment_mode": "INSTANT_TRANSFER",
        "protection_eligibility": "ELIGIBLE",
        "transaction_fee": { "value": "0.59", "currency": "USD" },
        "billing_agreement_id": subscription.id,
        "custom": subscription.custom_id.clone().unwrap_or_default(),
        "create_time": rfc3339(sale.create_time),
        "update_time": rfc3339(sale.create_time),
        "links": [
            link(format!("{base}/v1/payments/sale/{}", sale.id), "self", "GET"),
            link(format!("{base}/v1/payments/sale/{}/refund", sale.id), "refund", "POST"),
        ],
    })
}

/// A notification as PayPal wraps it, queued for the test to take.
fn queue(state: &mut State, base: &str, event_type: &str, resource_type: &str, resource: Value) {
    let id = format!("WH-{}", state.id("", 17));
    state.webhooks.push(json!({
        "id": id,
        "event_version": "1.0",
        "create_time": rfc3339(now()),
        "resource_type": resource_type,
        "resource_version": if resource_type == "sale" || event_type.starts_with("BILLING.") { "1.0" } else { "2.0" },
        "event_type": event_type,
        "summary": format!("{event_type} (loopback PayPal)"),
        "resource": resource,
        "links": [
            link(format!("{base}/v1/notifications/webhooks-events/{id}"), "self", "GET"),
            link(format!("{base}/v1/notifications/webhooks-events/{id}/resend"), "resend", "POST"),
        ],
    }));
}

async fn token(request: HttpRequest, body: web::Bytes, shared: web::Data<Shared>) -> HttpResponse {
    let expected = format!("Basic {}", STANDARD.encode(format!("{CLIENT_ID}:{CLIENT_SECRET}")));
    let given = request.headers().get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("");
    if given != expected {
        return HttpResponse::Unauthorized()
            .json(json!({ "error": "invalid_client", "error_description": "Client Authentication failed" }));
    }
    let grant = url::form_urlencoded::parse(&body).find(|(k, _)| k == "grant_type").map(|(_, v)| v.into_owned());
    if grant.as_deref() != Some("client_credentials") {
        return HttpResponse::BadRequest()
            .json(json!({ "error": "unsupported_grant_type", "error_description": "Grant Type is NULL" }));
    }
    let token = format!("A21AA{:032x}", rand::thread_rng().r#gen::<u128>());
    let mut state = shared.state();
    let lifetime = state.token_lifetime_secs;
    state.tokens.insert(token.clone(), Instant::now() + Duration::from_secs(lifetime));
    state.tokens_issued += 1;
    HttpResponse::Ok().json(json!({
        "scope": "https://uri.paypal.com/services/payments/payment https://uri.paypal.com/services/subscriptions https://uri.paypal.com/services/payments/refund",
        "access_token": token,
        "token_type": "Bearer",
        "app_id": "APP-80W284485P519543T",
        "expires_in": lifetime,
        "nonce": format!("{}Z{:x}", rfc3339(now()).trim_end_matches('Z'), rand::thread_rng().r#gen::<u64>()),
    }))
}

async fn create_order(request: HttpRequest, body: web::Bytes, shared: web::Data<Shared>) -> HttpResponse {
    if let Some(refused) = unauthorised(&request, &shared) {
        return refused;
    }
    let key = request_id(&request).map(|id| format!("create-order:{id}"));
    if let Some(answer) = replay(&shared, &key) {
        return answer;
    }
    let body = match json_body(&body) {
        Ok(body) => body,
        Err(refused) => return *refused,
    };
    if body["intent"] != "CAPTURE" && body["intent"] != "AUTHORIZE" {
        return error(400, "INVALID_REQUEST", "INVALID_PARAMETER_VALUE", "intent is CAPTURE or AUTHORIZE");
    }
    let Some([unit]) = body["purchase_units"].as_array().map(Vec::as_slice) else {
        return error(400, "INVALID_REQUEST", "INVALID_ARRAY_MAX_ITEMS", "one purchase unit");
    };
    let amount = &unit["amount"];
    let Ok(currency) = Currency::parse(amount["currency_code"].as_str().unwrap_or("")) else {
        return error(400, "INVALID_REQUEST", "INVALID_PARAMETER_SYNTAX", "currency_code");
    };
    if !["USD", "EUR", "GBP", "CAD", "AUD"].contains(&currency.as_str()) {
        return error(422, "UNPROCESSABLE_ENTITY", "CURRENCY_NOT_SUPPORTED", "Currency code is not supported.");
    }
    let Ok(money) = Money::parse_decimal(amount["value"].as_str().unwrap_or(""), currency) else {
        return error(400, "INVALID_REQUEST", "DECIMAL_PRECISION", "value");
    };
    if money.minor == 0 {
        return error(422, "UNPROCESSABLE_ENTITY", "CANNOT_BE_ZERO_OR_NEGATIVE", "Must be greater than zero.");
    }
    let context = if body["payment_source"]["paypal"].is_object() {
        &body["payment_source"]["paypal"]["experience_context"]
    } else {
        &body["application_context"]
    };
    let (Some(return_url), Some(_cancel_url)) = (context["return_url"].as_str(), context["cancel_url"].as_str()) else {
        return error(
            422,
            "UNPROCESSABLE_ENTITY",
            "MISSING_RETURN_URL",
            "return_url and cancel_url are needed to redirect the payer",
        );
    };
    let mut state = shared.state();
    let id = state.id("5O", 15);
    let order = FakeOrder {
        id: id.clone(),
        status: if body["payment_source"]["paypal"].is_object() { "PAYER_ACTION_REQUIRED" } else { "CREATED" }.into(),
        unit: unit.clone(),
        amount: money,
        return_url: return_url.to_owned(),
        payment_source: body["payment_source"]["paypal"].is_object(),
        capture_id: None,
        create_time: rfc3339(now()),
    };
    state.orders.insert(id, order.clone());
    let answer = order_json(&shared.base, &state, &order);
    drop(state);
    remember(&shared, &key, 201, &answer)
}

async fn show_order(request: HttpRequest, path: web::Path<String>, shared: web::Data<Shared>) -> HttpResponse {
    if let Some(refused) = unauthorised(&request, &shared) {
        return refused;
    }
    let state = shared.state();
    match state.orders.get(path.as_str()) {
        Some(order) => HttpResponse::Ok().json(order_json(&shared.base, &state, order)),
        None => not_found(),
    }
}

/// The buyer's page at PayPal: the test's "buyer approves" is a visit, as a browser's.
async fn buyer_checkout(query: web::Query<HashMap<String, String>>, shared: web::Data<Shared>) -> HttpResponse {
    let id = query.get("token").cloned().unwrap_or_default();
    let mut state = shared.state();
    let Some(order) = state.orders.get_mut(&id) else {
        return HttpResponse::NotFound().body("This checkout session has expired.");
    };
    if matches!(order.status.as_str(), "CREATED" | "PAYER_ACTION_REQUIRED") {
        order.status = "APPROVED".into();
        let order = order.clone();
        let resource = order_json(&shared.base, &state, &order);
        queue(&mut state, &shared.base, "CHECKOUT.ORDER.APPROVED", "checkout-order", resource);
    }
    let order = &state.orders[&id];
    let separator = if order.return_url.contains('?') { '&' } else { '?' };
    HttpResponse::Found()
        .insert_header(("location", format!("{}{separator}token={id}&PayerID=QYR5Z8XDVJNXQ", order.return_url)))
        .finish()
}

async fn capture_order(request: HttpRequest, path: web::Path<String>, shared: web::Data<Shared>) -> HttpResponse {
    if let Some(refused) = unauthorised(&request, &shared) {
        return refused;
    }
    let key = request_id(&request).map(|id| format!("capture:{id}"));
    if let Some(answer) = replay(&shared, &key) {
        return answer;
    }
    let mut state = shared.state();
    let Some(order) = state.orders.get(path.as_str()).cloned() else {
        return not_found();
    };
    match order.status.as_str() {
        "COMPLETED" => {
            return error(
                422,
                "UNPROCESSABLE_ENTITY",
                "ORDER_ALREADY_CAPTURED",
                "Order already captured. If 'intent=CAPTURE' only one capture per order is allowed.",
            );
        }
        "APPROVED" => {}
        _ => {
            return error(
                422,
                "UNPROCESSABLE_ENTITY",
                "ORDER_NOT_APPROVED",
                "Payer has not yet approved the Order for payment. Please redirect the payer to the 'rel':'approve' url returned as part of the HATEOAS links within the Create Order call or provide a valid payment_source in the request.",
            );
        }
    }
    let declined = std::mem::take(&mut state.deny_next_capture);
    let capture = FakeCapture {
        id: state.id("3C", 15),
        order_id: order.id.clone(),
        status: if declined { "DECLINED" } else { "COMPLETED" }.into(),
        amount: order.amount.clone(),
        refunded_minor: 0,
        custom_id: order.unit["custom_id"].as_str().map(str::to_owned),
        invoice_id: order.unit["invoice_id"].as_str().map(str::to_owned),
        create_time: rfc3339(now()),
    };
    let resource = capture_json(&shared.base, &capture);
    let event = if declined { "PAYMENT.CAPTURE.DENIED" } else { "PAYMENT.CAPTURE.COMPLETED" };
    state.captures.insert(capture.id.clone(), capture.clone());
    let order = state.orders.get_mut(&order.id).unwrap();
    order.status = "COMPLETED".into();
    order.capture_id = Some(capture.id.clone());
    let order = order.clone();
    queue(&mut state, &shared.base, event, "capture", resource);
    let answer = order_json(&shared.base, &state, &order);
    drop(state);
    remember(&shared, &key, 201, &answer)
}

async fn show_capture(request: HttpRequest, path: web::Path<String>, shared: web::Data<Shared>) -> HttpResponse {
    if let Some(refused) = unauthorised(&request, &shared) {
        return refused;
    }
    match shared.state().captures.get(path.as_str()) {
        Some(capture) => HttpResponse::Ok().json(capture_json(&shared.base, capture)),
        None => not_found(),
    }
}

fn refund_json(base: &str, id: &str, amount: &Money, capture: &FakeCapture, with_ids: bool) -> Value {
    let mut json = json!({
        "id": id,
        "status": "COMPLETED",
        "amount": money_json(amount),
        "seller_payable_breakdown": { "gross_amount": money_json(amount), "net_amount": money_json(amount) },
        "create_time": rfc3339(now()),
        "update_time": rfc3339(now()),
        "links": [
            link(format!("{base}/v2/payments/refunds/{id}"), "self", "GET"),
            link(format!("{base}/v2/payments/captures/{}", capture.id), "up", "GET"),
        ],
    });
    if with_ids {
        if let Some(custom_id) = &capture.custom_id {
            json["custom_id"] = json!(custom_id);
        }
        if let Some(invoice_id) = &capture.invoice_id {
            json["invoice_id"] = json!(invoice_id);
        }
    }
    json
}

async fn refund_capture(
    request: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
    shared: web::Data<Shared>,
) -> HttpResponse {
    if let Some(refused) = unauthorised(&request, &shared) {
        return refused;
    }
    let key = request_id(&request).map(|id| format!("refund:{id}"));
    if let Some(answer) = replay(&shared, &key) {
        return answer;
    }
    let body = match json_body(&body) {
        Ok(body) => body,
        Err(refused) => return *refused,
    };
    let mut state = shared.state();
    let Some(capture) = state.captures.get(path.as_str()).cloned() else {
        return not_found();
    };
    if capture.status != "COMPLETED" && capture.status != "PARTIALLY_REFUNDED" {
        return error(
            422,
            "UNPROCESSABLE_ENTITY",
            "CAPTURE_FULLY_REFUNDED",
            "The capture has already been fully refunded.",
        );
    }
    let remaining = capture.amount.minor - capture.refunded_minor;
    let amount = if body["amount"].is_object() {
        let currency = body["amount"]["currency_code"].as_str().unwrap_or("");
        if currency != capture.amount.currency.as_str() {
            return error(
                422,
                "UNPROCESSABLE_ENTITY",
                "REFUND_CAPTURE_CURRENCY_MISMATCH",
                "Refund must be in the same currency as the capture.",
            );
        }
        match Money::parse_decimal(body["amount"]["value"].as_str().unwrap_or(""), capture.amount.currency.clone()) {
            Ok(money) => money,
            Err(_) => return error(400, "INVALID_REQUEST", "DECIMAL_PRECISION", "amount.value"),
        }
    } else {
        Money::new(remaining, capture.amount.currency.clone())
    };
    if amount.minor == 0 || amount.minor > remaining {
        return error(
            422,
            "UNPROCESSABLE_ENTITY",
            "REFUND_AMOUNT_EXCEEDED",
            "The refund amount must be less than or equal to the capture amount that has not yet been refunded.",
        );
    }
    let id = state.id("1R", 15);
    let capture = state.captures.get_mut(&capture.id).unwrap();
    capture.refunded_minor += amount.minor;
    capture.status =
        if capture.refunded_minor == capture.amount.minor { "REFUNDED" } else { "PARTIALLY_REFUNDED" }.into();
    let capture = capture.clone();
    let refund = refund_json(&shared.base, &id, &amount, &capture, true);
    queue(&mut state, &shared.base, "PAYMENT.CAPTURE.REFUNDED", "refund", refund.clone());
    drop(state);
    remember(
        &shared,
        &key,
        201,
        &json!({
            "id": id, "status": "COMPLETED",
            "links": refund["links"],
        }),
    )
}

async fn refund_sale(
    request: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
    shared: web::Data<Shared>,
) -> HttpResponse {
    if let Some(refused) = unauthorised(&request, &shared) {
        return refused;
    }
    let key = request_id(&request).map(|id| format!("sale-refund:{id}"));
    if let Some(answer) = replay(&shared, &key) {
        return answer;
    }
    let body = match json_body(&body) {
        Ok(body) => body,
        Err(refused) => return *refused,
    };
    let mut state = shared.state();
    let Some(sale) = state.sales.get(path.as_str()).cloned() else {
        return HttpResponse::NotFound().json(json!({
            "name": "INVALID_RESOURCE_ID", "message": "Requested resource ID was not found.",
            "debug_id": "8c7d324f49712", "information_link": "https://developer.paypal.com/docs/api/payments/v1/#error-INVALID_RESOURCE_ID",
        }));
    };
    if sale.refunded {
        return HttpResponse::BadRequest().json(json!({
            "name": "TRANSACTION_REFUSED", "message": "The request was refused.", "debug_id": "8c7d324f49713",
        }));
    }
    let total = body["amount"]["total"].as_str().unwrap_or("");
    if total != sale.amount.decimal() || body["amount"]["currency"] != sale.amount.currency.as_str() {
        return HttpResponse::BadRequest().json(json!({
            "name": "VALIDATION_ERROR", "message": "Invalid request - see details",
            "details": [{ "field": "amount", "issue": "This test PayPal refunds sales in full only" }], "debug_id": "8c7d324f49714",
        }));
    }
    let id = state.id("4S", 15);
    state.sales.get_mut(&sale.id).unwrap().refunded = true;
    let refund = json!({
        "id": id, "state": "completed", "sale_id": sale.id,
        "amount": { "total": sale.amount.decimal(), "currency": sale.amount.currency.as_str() },
        "create_time": rfc3339(now()),
        "links": [link(format!("{}/v1/payments/refund/{id}", shared.base), "self", "GET")],
    });
    queue(&mut state, &shared.base, "PAYMENT.SALE.REFUNDED", "refund", refund.clone());
    drop(state);
    remember(&shared, &key, 201, &refund)
}

async fn create_subscription(request: HttpRequest, body: web::Bytes, shared: web::Data<Shared>) -> HttpResponse {
    if let Some(refused) = unauthorised(&request, &shared) {
        return refused;
    }
    let key = request_id(&request).map(|id| format!("create-subscription:{id}"));
    if let Some(answer) = replay(&shared, &key) {
        return answer;
    }
    let body = match json_body(&body) {
        Ok(body) => body,
        Err(refused) => return *refused,
    };
    let plan_id = body["plan_id"].as_str().unwrap_or("");
    let Some((_, months, price)) = PLANS.iter().find(|(id, _, _)| *id == plan_id) else {
        return error(404, "RESOURCE_NOT_FOUND", "INVALID_RESOURCE_ID", "Requested resource ID was not found.");
    };
    let context = &body["application_context"];
    let Some(return_url) = context["return_url"].as_str() else {
        return error(400, "INVALID_REQUEST", "MISSING_REQUIRED_PARAMETER", "application_context.return_url");
    };
    let mut state = shared.state();
    let suffix = state.id("", 12);
    let subscription = FakeSubscription {
        id: format!("I-BW{suffix}"),
        plan_id: plan_id.to_owned(),
        status: "APPROVAL_PENDING".into(),
        custom_id: body["custom_id"].as_str().map(str::to_owned),
        ba_token: format!("BA-{suffix}"),
        return_url: return_url.to_owned(),
        price: usd(price),
        months: *months,
        start_time: 0,
        next_billing_time: 0,
        cycles_completed: 0,
        last_payment: None,
        create_time: rfc3339(now()),
    };
    state.subscriptions.insert(subscription.id.clone(), subscription.clone());
    drop(state);
    remember(&shared, &key, 201, &subscription_json(&shared.base, &subscription))
}

fn new_sale(state: &mut State, subscription_id: &str, at: i64) -> FakeSale {
    let id = state.id("8S", 15);
    let subscription = state.subscriptions.get_mut(subscription_id).unwrap();
    subscription.cycles_completed += 1;
    subscription.last_payment = Some((subscription.price.clone(), at));
    let sale = FakeSale { id, amount: subscription.price.clone(), refunded: false, create_time: at };
    state.sales.insert(sale.id.clone(), sale.clone());
    sale
}

/// The buyer's subscription approval page: approving activates the subscription and takes
/// its first payment, as PayPal does for a plan without a trial.
async fn buyer_subscribes(query: web::Query<HashMap<String, String>>, shared: web::Data<Shared>) -> HttpResponse {
    let ba_token = query.get("ba_token").cloned().unwrap_or_default();
    let mut state = shared.state();
    let Some(id) = state.subscriptions.values().find(|s| s.ba_token == ba_token).map(|s| s.id.clone()) else {
        return HttpResponse::NotFound().body("This subscription request has expired.");
    };
    if state.subscriptions[&id].status == "APPROVAL_PENDING" {
        let start = now();
        let subscription = state.subscriptions.get_mut(&id).unwrap();
        subscription.status = "ACTIVE".into();
        subscription.start_time = start;
        subscription.next_billing_time = add_months(start, subscription.months);
        let sale = new_sale(&mut state, &id, start);
        let subscription = state.subscriptions[&id].clone();
        let activated = subscription_json(&shared.base, &subscription);
        queue(&mut state, &shared.base, "BILLING.SUBSCRIPTION.ACTIVATED", "subscription", activated);
        let sale = sale_json(&shared.base, &sale, &subscription);
        queue(&mut state, &shared.base, "PAYMENT.SALE.COMPLETED", "sale", sale);
    }
    let subscription = &state.subscriptions[&id];
    let separator = if subscription.return_url.contains('?') { '&' } else { '?' };
    HttpResponse::Found()
        .insert_header((
            "location",
            format!(
                "{}{separator}subscription_id={id}&ba_token={ba_token}&token=EC-{}",
                subscription.return_url,
                &id[4..]
            ),
        ))
        .finish()
}

async fn show_subscription(request: HttpRequest, path: web::Path<String>, shared: web::Data<Shared>) -> HttpResponse {
    if let Some(refused) = unauthorised(&request, &shared) {
        return refused;
    }
    match shared.state().subscriptions.get(path.as_str()) {
        Some(subscription) => HttpResponse::Ok().json(subscription_json(&shared.base, subscription)),
        None => not_found(),
    }
}

async fn cancel_subscription(
    request: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
    shared: web::Data<Shared>,
) -> HttpResponse {
    if let Some(refused) = unauthorised(&request, &shared) {
        return refused;
    }
    let body = match json_body(&body) {
        Ok(body) => body,
        Err(refused) => return *refused,
    };
    if body["reason"].as_str().is_none_or(str::is_empty) {
        return error(400, "INVALID_REQUEST", "MISSING_REQUIRED_PARAMETER", "reason");
    }
    let mut state = shared.state();
    let Some(subscription) = state.subscriptions.get_mut(path.as_str()) else {
        return not_found();
    };
    if !matches!(subscription.status.as_str(), "ACTIVE" | "SUSPENDED") {
        return error(
            422,
            "UNPROCESSABLE_ENTITY",
            "SUBSCRIPTION_STATUS_INVALID",
            "Invalid subscription status for cancel action; subscription status should be active or suspended.",
        );
    }
    subscription.status = "CANCELLED".into();
    let resource = subscription_json(&shared.base, subscription);
    queue(&mut state, &shared.base, "BILLING.SUBSCRIPTION.CANCELLED", "subscription", resource);
    HttpResponse::NoContent().finish()
}

async fn certificate(path: web::Path<String>, shared: web::Data<Shared>) -> HttpResponse {
    shared.state().cert_fetches += 1;
    match PKI.certs.get(path.as_str()) {
        Some((chain, _)) => HttpResponse::Ok().content_type("application/x-pem-file").body(chain.clone()),
        None => HttpResponse::NotFound().finish(),
    }
}

impl FakePaypal {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let shared = Arc::new(Shared {
            base: base.clone(),
            state: Mutex::new(State {
                token_lifetime_secs: 32_400,
                tokens: HashMap::new(),
                tokens_issued: 0,
                next_id: 0,
                orders: HashMap::new(),
                captures: HashMap::new(),
                subscriptions: HashMap::new(),
                sales: HashMap::new(),
                idempotent: HashMap::new(),
                deny_next_capture: false,
                cert_fetches: 0,
                webhooks: Vec::new(),
            }),
        });
        let data = web::Data::from(shared.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .route("/v1/oauth2/token", web::post().to(token))
                .route("/v2/checkout/orders", web::post().to(create_order))
                .route("/v2/checkout/orders/{id}", web::get().to(show_order))
                .route("/v2/checkout/orders/{id}/capture", web::post().to(capture_order))
                .route("/v2/payments/captures/{id}", web::get().to(show_capture))
                .route("/v2/payments/captures/{id}/refund", web::post().to(refund_capture))
                .route("/v1/payments/sale/{id}/refund", web::post().to(refund_sale))
                .route("/v1/billing/subscriptions", web::post().to(create_subscription))
                .route("/v1/billing/subscriptions/{id}", web::get().to(show_subscription))
                .route("/v1/billing/subscriptions/{id}/cancel", web::post().to(cancel_subscription))
                .route("/v1/notifications/certs/{name}", web::get().to(certificate))
                .route("/checkoutnow", web::get().to(buyer_checkout))
                .route("/webapps/billing/subscriptions", web::get().to(buyer_subscribes))
        })
        .workers(1)
        .listen(listener)
        .unwrap();
        actix_rt::spawn(server.run());
        let mut ca_file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut ca_file, PKI.trusted_root_pem.as_bytes()).unwrap();
        Self { base, shared, ca_file }
    }

    /// Provider settings pointing at this PayPal: its keys, its plans, its certificate
    /// origin allowed, its test root trusted.
    pub fn settings(&self) -> PaypalSettings {
        PaypalSettings {
            client_id: CLIENT_ID.into(),
            client_secret: CLIENT_SECRET.into(),
            webhook_id: WEBHOOK_ID.into(),
            api_base: self.base.clone(),
            plan_ids: PaypalPlanIds { month: PLANS[0].0.into(), quarter: PLANS[1].0.into(), year: PLANS[2].0.into() },
            cert_hosts: vec![self.base.clone()],
            cert_ca_file: self.ca_file.path().display().to_string(),
            brand_name: "Amora".into(),
            replay_window_secs: 300,
            timeout_secs: 5,
        }
    }

    pub fn provider(&self) -> PaypalProvider {
        PaypalProvider::new(self.settings()).unwrap().expect("configured")
    }

    /// The buyer opens the approval URL and approves; answers the query PayPal puts on the
    /// return URL it sends the browser back to.
    pub async fn buyer_approves(&self, approve_url: &str) -> String {
        let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let response = client.get(approve_url).send().await.unwrap();
        assert_eq!(response.status(), 302, "the approval page sends the buyer back");
        let location = response.headers()["location"].to_str().unwrap().to_owned();
        location.split_once('?').map(|(_, query)| query.to_owned()).unwrap_or_default()
    }

    pub fn set_token_lifetime(&self, secs: u64) {
        self.shared.state().token_lifetime_secs = secs;
    }

    pub fn tokens_issued(&self) -> usize {
        self.shared.state().tokens_issued
    }

    /// PayPal forgets every token it issued (as when the app's secret is rotated).
    pub fn revoke_tokens(&self) {
        self.shared.state().tokens.clear();
    }

    pub fn orders_created(&self) -> usize {
        self.shared.state().orders.len()
    }

    pub fn captures_made(&self) -> usize {
        self.shared.state().captures.len()
    }

    pub fn subscriptions_created(&self) -> usize {
        self.shared.state().subscriptions.len()
    }

    pub fn subscription_status(&self, id: &str) -> String {
        self.shared.state().subscriptions[id].status.clone()
    }

    /// How often the certificate URL was fetched.
    pub fn cert_fetches(&self) -> usize {
        self.shared.state().cert_fetches
    }

    /// PayPal keeps `PayPal-Request-Id` keys for six hours; after that a repeated call is a
    /// new call.
    pub fn forget_request_ids(&self) {
        self.shared.state().idempotent.clear();
    }

    /// The next capture is declined by PayPal's risk checks.
    pub fn deny_next_capture(&self) {
        self.shared.state().deny_next_capture = true;
    }

    /// A billing period passes: PayPal takes the next payment at the period's end.
    pub fn renew_subscription(&self, id: &str) -> String {
        let mut state = self.shared.state();
        let at = state.subscriptions[id].next_billing_time;
        let sale = new_sale(&mut state, id, at);
        let subscription = state.subscriptions.get_mut(id).unwrap();
        subscription.next_billing_time = add_months(at, subscription.months);
        let subscription = subscription.clone();
        let resource = sale_json(&self.base, &sale, &subscription);
        queue(&mut state, &self.base, "PAYMENT.SALE.COMPLETED", "sale", resource);
        sale.id
    }

    /// PayPal suspends (payments failed) or expires a subscription.
    pub fn end_subscription(&self, id: &str, status: &str, event_type: &str) {
        let mut state = self.shared.state();
        let subscription = state.subscriptions.get_mut(id).unwrap();
        subscription.status = status.into();
        let resource = subscription_json(&self.base, subscription);
        queue(&mut state, &self.base, event_type, "subscription", resource);
    }

    /// The buyer's bank takes the money back (a chargeback): PayPal reverses the capture
    /// and notifies with a refund that names only the capture, as its samples show.
    pub fn reverse_capture(&self, capture_id: &str) -> String {
        let mut state = self.shared.state();
        let id = state.id("9V", 15);
        let capture = state.captures.get_mut(capture_id).unwrap();
        let amount = Money::new(capture.amount.minor - capture.refunded_minor, capture.amount.currency.clone());
        capture.refunded_minor = capture.amount.minor;
        capture.status = "REVERSED".into();
        let capture = capture.clone();
        let mut refund = refund_json(&self.base, &id, &amount, &capture, false);
        refund["note_to_payer"] = json!("Payment reversed");
        queue(&mut state, &self.base, "PAYMENT.CAPTURE.REVERSED", "refund", refund);
        id
    }

    /// Every notification PayPal would have sent so far, signed now.
    pub fn take_webhooks(&self) -> Vec<Callback> {
        let events = std::mem::take(&mut self.shared.state().webhooks);
        events.iter().map(|event| self.deliver(event, Tamper::None)).collect()
    }

    /// The queued notifications' event types, in order, without taking them.
    pub fn queued_event_types(&self) -> Vec<String> {
        self.shared.state().webhooks.iter().map(|e| e["event_type"].as_str().unwrap().to_owned()).collect()
    }

    /// Takes the first queued notification of this type, unsigned (see `deliver`).
    pub fn take_event(&self, event_type: &str) -> Value {
        let mut state = self.shared.state();
        let index = state
            .webhooks
            .iter()
            .position(|e| e["event_type"] == event_type)
            .unwrap_or_else(|| panic!("PayPal sent no {event_type}"));
        state.webhooks.remove(index)
    }

    /// A notification of any type, wrapped as PayPal wraps them.
    pub fn event(&self, event_type: &str, resource: Value) -> Value {
        let mut state = self.shared.state();
        queue(&mut state, &self.base, event_type, "unknown", resource);
        state.webhooks.pop().unwrap()
    }

    pub fn cert_url(&self, name: &str) -> String {
        format!("{}/v1/notifications/certs/{name}", self.base)
    }

    /// The notification as PayPal POSTs it: the body as raw bytes (pretty-printed, so a
    /// verifier that re-serialised the JSON would fail), the five signature headers, and
    /// the signature over `id|time|webhook id|crc32(body)`, spoiled as `tamper` says.
    pub fn deliver(&self, event: &Value, tamper: Tamper) -> Callback {
        let mut body = serde_json::to_vec_pretty(event).unwrap();
        let ago = match tamper {
            Tamper::SentSecondsAgo(secs) => secs,
            _ => 0,
        };
        let transmission_time = rfc3339(now() - ago);
        let transmission_id = {
            let n: u128 = rand::thread_rng().r#gen();
            let hex = format!("{n:032x}");
            format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
        };
        let cert = match tamper {
            Tamper::Cert(name) => name,
            _ => GOOD_CERT,
        };
        let webhook_id = match &tamper {
            Tamper::WebhookId(other) => other.clone(),
            _ => WEBHOOK_ID.to_owned(),
        };
        let message = format!("{transmission_id}|{transmission_time}|{webhook_id}|{}", crc32fast::hash(&body));
        let key = PKI.certs[cert].1.clone();
        let mut signature = rsa::pkcs1v15::SigningKey::<Sha256>::new(key).sign(message.as_bytes()).to_vec();
        match &tamper {
            Tamper::WrongSignature => signature[17] ^= 0x01,
            Tamper::BodyChangedAfterSigning => {
                let mut changed = event.clone();
                if changed["resource"]["amount"]["value"].is_string() {
                    changed["resource"]["amount"]["value"] = json!("1000.00");
                } else {
                    changed["resource"]["id"] = json!("SOMETHING-ELSE");
                }
                body = serde_json::to_vec_pretty(&changed).unwrap();
            }
            _ => {}
        }
        let cert_url = match &tamper {
            Tamper::CertUrl(url) => url.clone(),
            _ => self.cert_url(cert),
        };
        let algorithm = match &tamper {
            Tamper::AuthAlgo(algorithm) => algorithm.clone(),
            _ => "SHA256withRSA".to_owned(),
        };
        let mut headers = vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            ("user-agent".to_owned(), "PayPal/AUHD-214.0-58843058".to_owned()),
            ("paypal-transmission-id".to_owned(), transmission_id),
            ("paypal-transmission-time".to_owned(), transmission_time),
            ("paypal-transmission-sig".to_owned(), STANDARD.encode(signature)),
            ("paypal-cert-url".to_owned(), cert_url),
            ("paypal-auth-algo".to_owned(), algorithm),
        ];
        if let Tamper::WithoutHeader(name) = tamper {
            headers.retain(|(key, _)| key != name);
        }
        Callback { headers, query: String::new(), body }
    }
}
