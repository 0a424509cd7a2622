//! PayPal (spec §7 `paypalCreateOrder`): one-off purchases through Orders v2 (create with
//! `intent: CAPTURE`, the buyer approves at PayPal, we capture), plans through the
//! Subscriptions API, refunds through Payments v2, and webhooks checked offline by PayPal's
//! published signature scheme. Every call carries an OAuth 2.0 client-credentials token,
//! fetched once and reused until shortly before it expires.
//!
//! Operator set-up, once per PayPal account (dashboard or REST API):
//! 1. Create a REST app; its client id and secret are `client_id` and `client_secret`.
//! 2. Create a catalog product (`POST /v1/catalogs/products`, type `SERVICE`), then one
//!    billing plan per period (`POST /v1/billing/plans`): one `REGULAR` cycle of 1, 3 or 12
//!    months with the catalogue's price, no trial, `auto_bill_outstanding: true`. Their `P-…`
//!    ids are `plan_ids.month`, `plan_ids.quarter` and `plan_ids.year`; a period without one
//!    cannot be bought as a PayPal subscription.
//! 3. Add a webhook pointing at Amora's PayPal notification URL for the events named in
//!    `PaypalProvider::events_of`; its id is `webhook_id` (it is part of every signature).
//!
//! Testing against PayPal's sandbox: `api_base = "https://api-m.sandbox.paypal.com"` with the
//! sandbox app's keys; the certificate hosts already include the sandbox's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use amora_domain::payment::{Currency, Money, OrderId, PaymentRoute, PlanPeriod, SubscriptionId};
use anyhow::Context;
use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::Method;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, SignatureVerificationAlgorithm, TrustAnchor, UnixTime};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use url::Url;

use super::{
    Callback, CallbackAnswer, Checkout, CheckoutRequest, OrderRef, PaymentEvent, PaymentProvider, ProviderError,
    SubscriptionRef, VerifiedCallback,
};

/// PayPal's live REST API.
pub const LIVE_API_BASE: &str = "https://api-m.paypal.com";
/// PayPal's sandbox REST API (test accounts, no money moves).
pub const SANDBOX_API_BASE: &str = "https://api-m.sandbox.paypal.com";
/// The hosts PayPal serves its webhook-signing certificates from, live and sandbox.
pub const PAYPAL_CERT_HOSTS: [&str; 4] =
    ["api.paypal.com", "api.sandbox.paypal.com", "api-m.paypal.com", "api-m.sandbox.paypal.com"];

/// Where on those hosts the certificates live (`/v1/notifications/certs/CERT-…`): any other
/// path of PayPal's API is not a certificate, so it is not fetched.
const CERT_PATH_PREFIX: &str = "/v1/notifications/certs/";
/// The only signature algorithm PayPal publishes for webhooks.
const AUTH_ALGO: &str = "SHA256withRSA";
/// Certificates kept by URL; PayPal rotates them rarely, so a handful is plenty, and the
/// bound keeps a stream of made-up URLs on an allowed host from growing the cache.
const CERT_CACHE_MAX: usize = 32;
/// A certificate chain is a few kilobytes; anything far larger is not one.
const CERT_MAX_BYTES: usize = 64 * 1024;
/// A token is refreshed this much before PayPal says it expires (a tenth of its life for
/// short-lived tokens), so a call never leaves with a token that dies on the way.
const TOKEN_EARLY_REFRESH: Duration = Duration::from_secs(300);
/// A subscription's sale this soon after the subscription started is its first payment
/// (already reported as the activation), later ones are renewals. Every plan period is at
/// least a calendar month, and PayPal retries a failed first payment within days.
const FIRST_PAYMENT_WINDOW_SECS: i64 = 14 * 86_400;

/// The algorithms a certificate chain may be signed with (PayPal's is issued by DigiCert).
static CHAIN_ALGORITHMS: &[&dyn SignatureVerificationAlgorithm] = &[
    webpki::ring::RSA_PKCS1_2048_8192_SHA256,
    webpki::ring::RSA_PKCS1_2048_8192_SHA384,
    webpki::ring::RSA_PKCS1_2048_8192_SHA512,
    webpki::ring::RSA_PKCS1_3072_8192_SHA384,
    webpki::ring::RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
    webpki::ring::RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
    webpki::ring::RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
    webpki::ring::ECDSA_P256_SHA256,
    webpki::ring::ECDSA_P256_SHA384,
    webpki::ring::ECDSA_P384_SHA256,
    webpki::ring::ECDSA_P384_SHA384,
    webpki::ring::ED25519,
];

/// `[payments.paypal]`. An empty `client_id` turns PayPal off.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PaypalSettings {
    /// The REST app's client id; empty = PayPal is off.
    pub client_id: String,
    /// The REST app's secret. Never logged, never in an error.
    pub client_secret: String,
    /// The id of the webhook registered for Amora's notification URL; PayPal signs it into
    /// every notification, so a notification meant for another webhook does not verify.
    pub webhook_id: String,
    /// `https://api-m.paypal.com` (live, the default) or `https://api-m.sandbox.paypal.com`.
    pub api_base: String,
    /// PayPal billing plan ids (`P-…`) per plan period, made by the operator (module docs).
    pub plan_ids: PaypalPlanIds,
    /// Where webhook certificates may be fetched from: a host name (https on port 443) or an
    /// origin `scheme://host[:port]`. Defaults to PayPal's four API hosts, https only; tests
    /// name their loopback origin here, which is never a default.
    pub cert_hosts: Vec<String>,
    /// A PEM file of the CAs a webhook certificate must chain to; empty = the Mozilla root
    /// set bundled in the binary (PayPal's certificates are issued by DigiCert).
    pub cert_ca_file: String,
    /// The name the buyer sees on PayPal's pages.
    pub brand_name: String,
    /// How old a notification's `paypal-transmission-time` may be, in seconds (also how far
    /// in the future, for clock skew). See `check_fresh` for why.
    pub replay_window_secs: u64,
    /// Every call to PayPal (and every certificate fetch) gives up after this long.
    pub timeout_secs: u64,
}

impl Default for PaypalSettings {
    fn default() -> Self {
        Self {
            client_id: String::new(),
            client_secret: String::new(),
            webhook_id: String::new(),
            api_base: LIVE_API_BASE.to_owned(),
            plan_ids: PaypalPlanIds::default(),
            cert_hosts: PAYPAL_CERT_HOSTS.iter().map(|host| (*host).to_owned()).collect(),
            cert_ca_file: String::new(),
            brand_name: "Amora".to_owned(),
            // PayPal retries a webhook for up to three days; a replay inside that window is
            // harmless (a payment is claimed once by its id), so only older ones are refused.
            replay_window_secs: 3 * 86_400,
            timeout_secs: 20,
        }
    }
}

impl PaypalSettings {
    pub fn is_configured(&self) -> bool {
        !self.client_id.trim().is_empty()
    }
}

/// The secret stays out of `{:?}` (settings are logged at start-up).
impl std::fmt::Debug for PaypalSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaypalSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &if self.client_secret.is_empty() { "" } else { "[redacted]" })
            .field("webhook_id", &self.webhook_id)
            .field("api_base", &self.api_base)
            .field("plan_ids", &self.plan_ids)
            .field("cert_hosts", &self.cert_hosts)
            .field("cert_ca_file", &self.cert_ca_file)
            .field("brand_name", &self.brand_name)
            .field("replay_window_secs", &self.replay_window_secs)
            .field("timeout_secs", &self.timeout_secs)
            .finish()
    }
}

/// PayPal billing plan ids per period; empty = that period is not sold through PayPal.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PaypalPlanIds {
    pub month: String,
    pub quarter: String,
    pub year: String,
}

impl PaypalPlanIds {
    pub fn for_period(&self, period: PlanPeriod) -> &str {
        match period {
            PlanPeriod::Month => &self.month,
            PlanPeriod::Quarter => &self.quarter,
            PlanPeriod::Year => &self.year,
        }
    }
}

/// One origin webhook certificates may come from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CertOrigin {
    scheme: String,
    host: String,
    port: u16,
}

impl CertOrigin {
    /// `api.paypal.com` (https, port 443) or `http://127.0.0.1:8080` (an explicit origin).
    fn parse(entry: &str) -> anyhow::Result<Self> {
        let entry = entry.trim();
        if !entry.contains("://") {
            anyhow::ensure!(
                !entry.is_empty() && entry.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'),
                "cert_hosts: {entry:?} is neither a host name nor an origin"
            );
            return Ok(Self { scheme: "https".into(), host: entry.to_ascii_lowercase(), port: 443 });
        }
        let url = Url::parse(entry).with_context(|| format!("cert_hosts: {entry:?} is not an origin"))?;
        anyhow::ensure!(
            matches!(url.scheme(), "https" | "http")
                && url.username().is_empty()
                && url.password().is_none()
                && url.path() == "/"
                && url.query().is_none()
                && url.fragment().is_none(),
            "cert_hosts: {entry:?} must be scheme://host[:port] with nothing after it"
        );
        let host = url.host_str().context("cert_hosts: an origin needs a host")?.to_ascii_lowercase();
        let port = url.port_or_known_default().context("cert_hosts: an origin needs a port")?;
        Ok(Self { scheme: url.scheme().to_owned(), host, port })
    }

    fn admits(&self, url: &Url) -> bool {
        url.scheme() == self.scheme
            && url.host_str().is_some_and(|host| host.eq_ignore_ascii_case(&self.host))
            && url.port_or_known_default() == Some(self.port)
    }
}

struct AccessToken {
    value: String,
    refresh_at: Instant,
}

/// A failed call, kept apart from `ProviderError` so callers can react to PayPal's issue
/// codes (an order already captured) before it becomes a refusal.
#[derive(Debug)]
enum CallError {
    /// PayPal answered 4xx with its error body (`name`, `message`, `details[].issue`).
    Api {
        status: u16,
        name: String,
        message: String,
        issues: Vec<String>,
        debug_id: String,
    },
    Unavailable(String),
}

impl CallError {
    fn has_issue(&self, issue: &str) -> bool {
        matches!(self, CallError::Api { issues, .. } if issues.iter().any(|i| i == issue))
    }

    fn status(&self) -> Option<u16> {
        match self {
            CallError::Api { status, .. } => Some(*status),
            CallError::Unavailable(_) => None,
        }
    }
}

impl From<CallError> for ProviderError {
    fn from(error: CallError) -> Self {
        match error {
            CallError::Api { name, message, issues, debug_id, .. } => {
                let mut text = format!("{name}: {message}");
                if !issues.is_empty() {
                    text.push_str(&format!(" ({})", issues.join(", ")));
                }
                if !debug_id.is_empty() {
                    text.push_str(&format!(" [debug id {debug_id}]"));
                }
                ProviderError::Refused(text)
            }
            CallError::Unavailable(text) => ProviderError::Unavailable(text),
        }
    }
}

/// PayPal's error body (REST APIs) or OAuth's (`/v1/oauth2/token`).
#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorBody {
    name: String,
    message: String,
    debug_id: String,
    details: Vec<ErrorDetail>,
    error: String,
    error_description: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorDetail {
    issue: String,
}

fn api_error(status: reqwest::StatusCode, body: &[u8]) -> CallError {
    let parsed: ErrorBody = serde_json::from_slice(body).unwrap_or_default();
    let (name, message) = if !parsed.name.is_empty() {
        (parsed.name, parsed.message)
    } else if !parsed.error.is_empty() {
        (parsed.error, parsed.error_description)
    } else {
        (status.canonical_reason().unwrap_or("error").to_owned(), String::new())
    };
    if status.is_server_error() || status == reqwest::StatusCode::TOO_MANY_REQUESTS {
        return CallError::Unavailable(format!("PayPal answered {}: {name} {message}", status.as_u16()));
    }
    CallError::Api {
        status: status.as_u16(),
        name,
        message,
        issues: parsed.details.into_iter().map(|d| d.issue).filter(|i| !i.is_empty()).collect(),
        debug_id: parsed.debug_id,
    }
}

fn unreachable_error(error: reqwest::Error) -> CallError {
    // Without the URL: it names nothing secret, but keeps the message short.
    CallError::Unavailable(format!("PayPal could not be reached: {}", error.without_url()))
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    token_type: String,
    expires_in: u64,
}

#[derive(Deserialize)]
struct Link {
    href: String,
    rel: String,
}

fn link<'a>(links: &'a [Link], rel: &str) -> Option<&'a str> {
    links.iter().find(|l| l.rel.eq_ignore_ascii_case(rel)).map(|l| l.href.as_str())
}

/// The last path segment of a HATEOAS link under `prefix` (`…/v2/checkout/orders/{id}`).
fn linked_id(links: &[Link], rel: &str, prefix: &str) -> Option<String> {
    let href = link(links, rel)?;
    let path = Url::parse(href).ok()?.path().to_owned();
    let id = path.split(prefix).nth(1)?.split('/').next()?;
    (!id.is_empty()).then(|| id.to_owned())
}

/// `{currency_code, value}` (v2 APIs).
#[derive(Deserialize)]
struct PaypalMoney {
    currency_code: String,
    value: String,
}

impl PaypalMoney {
    fn money(&self) -> Result<Money, String> {
        let currency = Currency::parse(&self.currency_code).map_err(|e| e.to_string())?;
        Money::parse_decimal(&self.value, currency).map_err(|e| e.to_string())
    }
}

#[derive(Deserialize)]
struct Order {
    id: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    purchase_units: Vec<PurchaseUnit>,
    #[serde(default)]
    links: Vec<Link>,
}

#[derive(Deserialize)]
struct PurchaseUnit {
    custom_id: Option<String>,
    invoice_id: Option<String>,
    payments: Option<UnitPayments>,
}

#[derive(Deserialize)]
struct UnitPayments {
    #[serde(default)]
    captures: Vec<Capture>,
}

#[derive(Deserialize)]
struct Capture {
    id: String,
    #[serde(default)]
    status: String,
    amount: Option<PaypalMoney>,
    custom_id: Option<String>,
    invoice_id: Option<String>,
    supplementary_data: Option<SupplementaryData>,
    status_details: Option<StatusDetails>,
    #[serde(default)]
    links: Vec<Link>,
}

#[derive(Deserialize)]
struct SupplementaryData {
    related_ids: Option<RelatedIds>,
}

#[derive(Deserialize)]
struct RelatedIds {
    order_id: Option<String>,
}

#[derive(Deserialize)]
struct StatusDetails {
    reason: Option<String>,
}

impl Capture {
    /// PayPal's id of the order this capture belongs to.
    fn paypal_order_id(&self) -> Option<String> {
        self.supplementary_data
            .as_ref()
            .and_then(|s| s.related_ids.as_ref())
            .and_then(|r| r.order_id.clone())
            .or_else(|| linked_id(&self.links, "up", "/v2/checkout/orders/"))
    }

    fn order_ref(&self) -> Option<OrderRef> {
        order_ref(self.custom_id.as_deref(), self.invoice_id.as_deref(), self.paypal_order_id().as_deref())
    }

    fn amount(&self) -> Result<Money, String> {
        let amount = self.amount.as_ref().ok_or_else(|| format!("capture {} has no amount", self.id))?;
        amount.money().map_err(|e| format!("capture {}: {e}", self.id))
    }

    fn failure_reason(&self) -> String {
        let reason = self.status_details.as_ref().and_then(|d| d.reason.as_deref()).unwrap_or("");
        if reason.is_empty() {
            format!("PayPal capture {}", self.status.to_ascii_lowercase())
        } else {
            format!("PayPal capture {}: {reason}", self.status.to_ascii_lowercase())
        }
    }
}

#[derive(Deserialize)]
struct Refund {
    id: String,
    #[serde(default)]
    status: String,
    amount: Option<PaypalMoney>,
    custom_id: Option<String>,
    invoice_id: Option<String>,
    supplementary_data: Option<SupplementaryData>,
    #[serde(default)]
    links: Vec<Link>,
}

#[derive(Deserialize)]
struct PaypalSubscription {
    id: String,
    #[serde(default)]
    status: String,
    custom_id: Option<String>,
    start_time: Option<String>,
    billing_info: Option<BillingInfo>,
    #[serde(default)]
    links: Vec<Link>,
}

#[derive(Deserialize)]
struct BillingInfo {
    next_billing_time: Option<String>,
}

impl PaypalSubscription {
    fn reference(&self) -> SubscriptionRef {
        subscription_ref(self.custom_id.as_deref(), &self.id)
    }

    fn period_end(&self) -> Option<i64> {
        self.billing_info.as_ref().and_then(|b| b.next_billing_time.as_deref()).and_then(parse_time)
    }
}

/// A v1 sale: a subscription's payment (`PAYMENT.SALE.*`).
#[derive(Deserialize)]
struct Sale {
    id: String,
    amount: SaleAmount,
    billing_agreement_id: Option<String>,
    custom: Option<String>,
    create_time: Option<String>,
}

/// `{total, currency}` (v1 APIs).
#[derive(Deserialize)]
struct SaleAmount {
    total: String,
    currency: String,
}

impl SaleAmount {
    fn money(&self) -> Result<Money, String> {
        let currency = Currency::parse(&self.currency).map_err(|e| e.to_string())?;
        Money::parse_decimal(&self.total, currency).map_err(|e| e.to_string())
    }
}

#[derive(Deserialize)]
struct SaleRefund {
    id: String,
    #[serde(default)]
    state: String,
}

/// A webhook notification's envelope.
#[derive(Deserialize)]
struct WebhookEvent {
    event_type: String,
    #[serde(default)]
    resource: Value,
}

/// Ours when PayPal echoes one of our order ids back (`custom_id`, `invoice_id`), else
/// PayPal's order id.
fn order_ref(custom_id: Option<&str>, invoice_id: Option<&str>, paypal_order_id: Option<&str>) -> Option<OrderRef> {
    [custom_id, invoice_id]
        .into_iter()
        .flatten()
        .find_map(|id| OrderId::parse(id).ok())
        .map(OrderRef::Ours)
        .or_else(|| paypal_order_id.filter(|id| !id.is_empty()).map(|id| OrderRef::Provider(id.to_owned())))
}

fn subscription_ref(custom_id: Option<&str>, paypal_id: &str) -> SubscriptionRef {
    custom_id
        .and_then(|id| SubscriptionId::parse(id).ok())
        .map(SubscriptionRef::Ours)
        .unwrap_or_else(|| SubscriptionRef::Provider(paypal_id.to_owned()))
}

/// Seconds since the epoch of an RFC 3339 time (`2024-05-01T10:00:00Z`, with or without
/// fractions, `Z` or an offset), as PayPal writes times.
fn parse_time(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text.trim()).ok().map(|time| time.timestamp())
}

fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// The message PayPal signs for a webhook: `<transmission id>|<transmission time>|<webhook
/// id>|<CRC-32 of the raw body as an unsigned decimal>`.
fn signed_message(transmission_id: &str, transmission_time: &str, webhook_id: &str, body: &[u8]) -> String {
    format!("{transmission_id}|{transmission_time}|{webhook_id}|{}", crc32fast::hash(body))
}

/// Refuses replays. A notification's signature covers its transmission time, so an old
/// notification sent again verifies as well as it did the first time; what gives it away is
/// the time. PayPal sends each notification at once and retries a failed one later (25 times
/// over three days), each delivery a fresh transmission signed at its own time, so an
/// honest delivery is seconds old and one older than the window (default five minutes,
/// generous for clock skew and queueing) is somebody replaying a captured request.
/// Replays inside the window are harmless: every event is keyed by PayPal's id of the
/// payment or refund, which credits once. Times in the future beyond the window are refused
/// too (a skewed or forged clock). If PayPal's retries were ever to keep their first time,
/// the only loss is the retry: on_return and PayPal's next event still arrive.
fn check_fresh(sent_at: i64, now: i64, window_secs: u64) -> Result<(), String> {
    let window = i64::try_from(window_secs).unwrap_or(i64::MAX);
    let age = now.saturating_sub(sent_at);
    if age > window {
        return Err(format!("transmission time is {age} s old (window {window} s): refused as a replay"));
    }
    if age < -window {
        return Err(format!("transmission time is {} s in the future", age.unsigned_abs()));
    }
    Ok(())
}

/// Checks the certificate chain (to a trusted CA, every certificate inside its validity
/// dates at `now`) and the signature of `message` by the end certificate's key.
fn verify_with_chain(
    chain: &[CertificateDer<'static>],
    anchors: &[TrustAnchor<'static>],
    now: UnixTime,
    message: &[u8],
    signature: &[u8],
) -> Result<(), String> {
    let (leaf, intermediates) = chain.split_first().ok_or("the certificate URL served no certificate")?;
    let certificate =
        webpki::EndEntityCert::try_from(leaf).map_err(|e| format!("the certificate cannot be read: {e}"))?;
    certificate
        .verify_for_usage(CHAIN_ALGORITHMS, anchors, intermediates, now, webpki::KeyUsage::server_auth(), None, None)
        .map_err(|e| format!("the certificate is not trusted: {e}"))?;
    certificate
        .verify_signature(webpki::ring::RSA_PKCS1_2048_8192_SHA256, message, signature)
        .map_err(|_| "the signature does not match".to_owned())
}

/// A PayPal id used in a path: letters, digits and dashes only, so a stored value can never
/// steer a call elsewhere.
fn path_id(id: &str) -> Result<&str, ProviderError> {
    let ok = !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if ok { Ok(id) } else { Err(ProviderError::Unsupported(format!("{id:?} is not a PayPal id"))) }
}

/// At most `max` characters, as PayPal's fields are bounded.
fn clip(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

fn bad(reason: impl Into<String>) -> ProviderError {
    ProviderError::BadCallback(reason.into())
}

fn parse_resource<T: DeserializeOwned>(event_type: &str, resource: Value) -> Result<T, ProviderError> {
    serde_json::from_value(resource).map_err(|e| bad(format!("{event_type}: unexpected resource: {e}")))
}

fn parse_answer<T: DeserializeOwned>(what: &str, answer: Value) -> Result<T, ProviderError> {
    serde_json::from_value(answer).map_err(|e| ProviderError::Unavailable(format!("PayPal's {what} answer: {e}")))
}

/// What PayPal's order says happened to the money: a completed capture is `Paid`.
fn events_of_order(order: &Order) -> Result<Vec<PaymentEvent>, ProviderError> {
    let mut events = Vec::new();
    for unit in &order.purchase_units {
        let Some(reference) = order_ref(unit.custom_id.as_deref(), unit.invoice_id.as_deref(), Some(&order.id)) else {
            continue;
        };
        for capture in unit.payments.iter().flat_map(|p| &p.captures) {
            events.push(match capture.status.as_str() {
                // Refunds are reported on their own; the money did arrive first.
                "COMPLETED" | "PARTIALLY_REFUNDED" | "REFUNDED" => PaymentEvent::Paid {
                    order: reference.clone(),
                    provider_txn_id: capture.id.clone(),
                    amount: capture.amount().map_err(ProviderError::Unavailable)?,
                },
                "DECLINED" | "FAILED" => {
                    PaymentEvent::Failed { order: reference.clone(), reason: capture.failure_reason() }
                }
                _ => PaymentEvent::Pending { order: reference.clone() },
            });
        }
    }
    Ok(events)
}

/// The PayPal route.
pub struct PaypalProvider {
    settings: PaypalSettings,
    api_base: String,
    http: reqwest::Client,
    /// Held across a token fetch, so concurrent calls wait for one fetch instead of each
    /// asking PayPal for a token of its own.
    token: tokio::sync::Mutex<Option<AccessToken>>,
    cert_origins: Vec<CertOrigin>,
    trust_anchors: Vec<TrustAnchor<'static>>,
    certificates: Mutex<HashMap<String, Arc<Vec<CertificateDer<'static>>>>>,
}

impl PaypalProvider {
    /// `Ok(None)` when PayPal is off (no client id); an error when settings are incomplete
    /// or malformed, so a half-configured route fails at start-up, not at a buyer's click.
    pub fn new(settings: PaypalSettings) -> anyhow::Result<Option<Self>> {
        if !settings.is_configured() {
            return Ok(None);
        }
        anyhow::ensure!(!settings.client_secret.is_empty(), "payments.paypal: client_secret is empty");
        anyhow::ensure!(
            !settings.webhook_id.trim().is_empty(),
            "payments.paypal: webhook_id is empty (notifications could not be verified)"
        );
        let api_base = settings.api_base.trim().trim_end_matches('/').to_owned();
        let base = Url::parse(&api_base).with_context(|| format!("payments.paypal: api_base {api_base:?}"))?;
        anyhow::ensure!(matches!(base.scheme(), "https" | "http"), "payments.paypal: api_base must be an http(s) URL");
        anyhow::ensure!(settings.timeout_secs > 0, "payments.paypal: timeout_secs must be above 0");
        let cert_origins =
            settings.cert_hosts.iter().map(|entry| CertOrigin::parse(entry)).collect::<anyhow::Result<Vec<_>>>()?;
        anyhow::ensure!(!cert_origins.is_empty(), "payments.paypal: cert_hosts is empty");
        let trust_anchors = if settings.cert_ca_file.trim().is_empty() {
            webpki_roots::TLS_SERVER_ROOTS.to_vec()
        } else {
            read_trust_anchors(&settings.cert_ca_file)?
        };
        let timeout = Duration::from_secs(settings.timeout_secs);
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            // PayPal does not redirect API calls, and a redirected certificate fetch would
            // leave the allowed hosts.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("amora/", env!("CARGO_PKG_VERSION")))
            .build()
            .context("payments.paypal: HTTP client")?;
        Ok(Some(Self {
            settings,
            api_base,
            http,
            token: tokio::sync::Mutex::new(None),
            cert_origins,
            trust_anchors,
            certificates: Mutex::new(HashMap::new()),
        }))
    }

    /// A valid access token: the cached one, or a new one from `/v1/oauth2/token`.
    async fn access_token(&self) -> Result<String, CallError> {
        let mut slot = self.token.lock().await;
        if let Some(token) = slot.as_ref()
            && Instant::now() < token.refresh_at
        {
            return Ok(token.value.clone());
        }
        let response = self
            .http
            .post(format!("{}/v1/oauth2/token", self.api_base))
            .basic_auth(&self.settings.client_id, Some(&self.settings.client_secret))
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .map_err(unreachable_error)?;
        let status = response.status();
        let body = response.bytes().await.map_err(unreachable_error)?;
        if !status.is_success() {
            return Err(api_error(status, &body));
        }
        let answer: TokenAnswer = serde_json::from_slice(&body)
            .map_err(|e| CallError::Unavailable(format!("PayPal's token answer cannot be read: {e}")))?;
        if !answer.token_type.eq_ignore_ascii_case("bearer") || answer.access_token.is_empty() {
            return Err(CallError::Unavailable(format!("PayPal issued a {:?} token", answer.token_type)));
        }
        let lifetime = Duration::from_secs(answer.expires_in);
        let refresh_at = Instant::now() + lifetime - (lifetime / 10).min(TOKEN_EARLY_REFRESH);
        *slot = Some(AccessToken { value: answer.access_token.clone(), refresh_at });
        Ok(answer.access_token)
    }

    /// Drops `token` if it is still the cached one (PayPal no longer takes it).
    async fn forget_token(&self, token: &str) {
        let mut slot = self.token.lock().await;
        if slot.as_ref().is_some_and(|cached| cached.value == token) {
            *slot = None;
        }
    }

    /// One REST call with the bearer token. A 401 means PayPal dropped the token before its
    /// time (revoked, or a new secret): the call is made once more with a fresh one.
    async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        request_id: Option<&str>,
    ) -> Result<Value, CallError> {
        let mut retried = false;
        loop {
            let token = self.access_token().await?;
            let mut request = self
                .http
                .request(method.clone(), format!("{}{path}", self.api_base))
                .bearer_auth(&token)
                .header(reqwest::header::ACCEPT, "application/json");
            if let Some(request_id) = request_id {
                // PayPal's idempotency key: the same id gets the first call's result back.
                request = request.header("PayPal-Request-Id", request_id);
            }
            if let Some(body) = body {
                request = request.header("Prefer", "return=representation").json(body);
            }
            let response = request.send().await.map_err(unreachable_error)?;
            let status = response.status();
            if status == reqwest::StatusCode::UNAUTHORIZED && !retried {
                self.forget_token(&token).await;
                retried = true;
                continue;
            }
            let bytes = response.bytes().await.map_err(unreachable_error)?;
            if !status.is_success() {
                return Err(api_error(status, &bytes));
            }
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok(Value::Null);
            }
            return serde_json::from_slice(&bytes).map_err(|_| {
                CallError::Unavailable(format!(
                    "PayPal answered {} to {path} with a body that is not JSON",
                    status.as_u16()
                ))
            });
        }
    }

    async fn create_order(&self, request: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        let mut paypal = json!({
            "experience_context": {
                "brand_name": clip(&self.settings.brand_name, 127),
                "shipping_preference": "NO_SHIPPING",
                "user_action": "PAY_NOW",
                "return_url": request.return_url,
                "cancel_url": request.cancel_url,
            }
        });
        if let Some(email) = request.customer_email.as_deref().filter(|e| !e.is_empty()) {
            paypal["email_address"] = json!(email);
        }
        // Our order id goes out twice: `custom_id` comes back on captures and refunds, and
        // `invoice_id` makes PayPal refuse to take money for the same order twice.
        let body = json!({
            "intent": "CAPTURE",
            "purchase_units": [{
                "reference_id": request.product.as_str(),
                "custom_id": request.order_id.as_str(),
                "invoice_id": request.order_id.as_str(),
                "description": clip(&request.description, 127),
                "amount": {
                    "currency_code": request.amount.currency.as_str(),
                    "value": request.amount.decimal(),
                },
            }],
            "payment_source": { "paypal": paypal },
        });
        // Our order id as the idempotency key: a retried create returns the same order.
        let answer =
            self.call(Method::POST, "/v2/checkout/orders", Some(&body), Some(request.order_id.as_str())).await?;
        let order: Order = parse_answer("create order", answer)?;
        // `payer-action` when the request names `payment_source.paypal`, `approve` otherwise.
        let approve_url = link(&order.links, "payer-action")
            .or_else(|| link(&order.links, "approve"))
            .ok_or_else(|| ProviderError::Unavailable(format!("PayPal order {} has no approval link", order.id)))?;
        Ok(Checkout { provider_ref: order.id.clone(), approve_url: approve_url.to_owned(), qr_payload: None })
    }

    async fn create_subscription(
        &self,
        request: &CheckoutRequest,
        subscription_id: &SubscriptionId,
        period: PlanPeriod,
    ) -> Result<Checkout, ProviderError> {
        let plan_id = self.settings.plan_ids.for_period(period).trim();
        if plan_id.is_empty() {
            return Err(ProviderError::Unsupported(format!(
                "no PayPal plan is configured for the {} plan (payments.paypal.plan_ids)",
                request.product
            )));
        }
        let mut body = json!({
            "plan_id": plan_id,
            "custom_id": subscription_id.as_str(),
            "application_context": {
                "brand_name": clip(&self.settings.brand_name, 127),
                "shipping_preference": "NO_SHIPPING",
                "user_action": "SUBSCRIBE_NOW",
                "return_url": request.return_url,
                "cancel_url": request.cancel_url,
            },
        });
        if let Some(email) = request.customer_email.as_deref().filter(|e| !e.is_empty()) {
            body["subscriber"] = json!({ "email_address": email });
        }
        let answer =
            self.call(Method::POST, "/v1/billing/subscriptions", Some(&body), Some(subscription_id.as_str())).await?;
        let subscription: PaypalSubscription = parse_answer("create subscription", answer)?;
        let approve_url = link(&subscription.links, "approve").ok_or_else(|| {
            ProviderError::Unavailable(format!("PayPal subscription {} has no approval link", subscription.id))
        })?;
        Ok(Checkout { provider_ref: subscription.id.clone(), approve_url: approve_url.to_owned(), qr_payload: None })
    }

    async fn get_subscription(&self, id: &str) -> Result<PaypalSubscription, ProviderError> {
        let answer = self.call(Method::GET, &format!("/v1/billing/subscriptions/{}", path_id(id)?), None, None).await?;
        parse_answer("subscription", answer)
    }

    /// Captures an approved order, idempotently: the capture's `PayPal-Request-Id` is derived
    /// from the order, so a repeated capture (the buyer's return and the approval webhook, or
    /// a reload) gets PayPal's first answer back; and an order PayPal reports captured
    /// already is read instead. Either way the one capture is reported, never a second.
    async fn capture(&self, paypal_order_id: &str) -> Result<Vec<PaymentEvent>, ProviderError> {
        let id = path_id(paypal_order_id)?;
        let request_id = format!("capture-{id}");
        let result = self
            .call(Method::POST, &format!("/v2/checkout/orders/{id}/capture"), Some(&json!({})), Some(&request_id))
            .await;
        let order = match result {
            Ok(answer) => answer,
            Err(error) if error.has_issue("ORDER_ALREADY_CAPTURED") => {
                self.call(Method::GET, &format!("/v2/checkout/orders/{id}"), None, None).await?
            }
            // The buyer came back without approving (or not yet): nothing happened.
            Err(error) if error.has_issue("ORDER_NOT_APPROVED") => return Ok(Vec::new()),
            Err(error) => return Err(error.into()),
        };
        events_of_order(&parse_answer("capture", order)?)
    }

    /// The order a refund or reversal belongs to: named on it, else on its capture.
    async fn order_of_refund(&self, refund: &Refund) -> Result<OrderRef, ProviderError> {
        let paypal_order = refund.supplementary_data.as_ref().and_then(|s| s.related_ids.as_ref());
        let paypal_order = paypal_order.and_then(|r| r.order_id.as_deref());
        if let Some(reference) = order_ref(refund.custom_id.as_deref(), refund.invoice_id.as_deref(), paypal_order) {
            return Ok(reference);
        }
        let capture_id = linked_id(&refund.links, "up", "/v2/payments/captures/")
            .ok_or_else(|| bad(format!("refund {} names neither an order nor a capture", refund.id)))?;
        let answer =
            self.call(Method::GET, &format!("/v2/payments/captures/{}", path_id(&capture_id)?), None, None).await?;
        let capture: Capture = parse_answer("capture", answer)?;
        capture.order_ref().ok_or_else(|| bad(format!("capture {capture_id} names no order")))
    }

    /// Only `https` (or an origin the settings name) on an allowed host, at PayPal's
    /// certificate path: the URL arrives in the request, so it is the attacker's choice.
    fn allowed_cert_url(&self, raw: &str) -> Result<Url, ProviderError> {
        let url = Url::parse(raw).map_err(|_| bad("paypal-cert-url is not a URL"))?;
        if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
            return Err(bad("paypal-cert-url carries credentials or a fragment"));
        }
        if !self.cert_origins.iter().any(|origin| origin.admits(&url)) {
            return Err(bad(format!(
                "paypal-cert-url {}://{} is not an allowed certificate host",
                url.scheme(),
                url.host_str().unwrap_or("")
            )));
        }
        if !url.path().starts_with(CERT_PATH_PREFIX) || url.query().is_some() {
            return Err(bad("paypal-cert-url is not a PayPal certificate path"));
        }
        Ok(url)
    }

    /// The certificate chain at `url`, fetched once and kept (it is re-checked at every use).
    async fn certificate_chain(&self, url: &Url) -> Result<Arc<Vec<CertificateDer<'static>>>, ProviderError> {
        if let Some(chain) = self.cached_chain(url.as_str()) {
            return Ok(chain);
        }
        let mut response = self
            .http
            .get(url.clone())
            .send()
            .await
            .map_err(|e| ProviderError::Unavailable(format!("the webhook certificate cannot be fetched: {e}")))?;
        let status = response.status();
        if status.is_server_error() {
            // PayPal's trouble, not the notification's: answered with an error, so PayPal
            // sends it again later.
            return Err(ProviderError::Unavailable(format!("the certificate URL answered {}", status.as_u16())));
        }
        if !status.is_success() {
            return Err(bad(format!("the certificate URL answered {}", status.as_u16())));
        }
        let mut pem = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| ProviderError::Unavailable(format!("the webhook certificate cannot be fetched: {e}")))?
        {
            pem.extend_from_slice(&chunk);
            if pem.len() > CERT_MAX_BYTES {
                return Err(bad("the certificate URL served more than a certificate chain"));
            }
        }
        let chain = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(format!("the certificate URL served no PEM certificate: {e}")))?;
        if chain.is_empty() {
            return Err(bad("the certificate URL served no certificate"));
        }
        let chain = Arc::new(chain);
        if let Ok(mut cache) = self.certificates.lock() {
            if cache.len() >= CERT_CACHE_MAX {
                cache.clear();
            }
            cache.insert(url.as_str().to_owned(), chain.clone());
        }
        Ok(chain)
    }

    fn cached_chain(&self, url: &str) -> Option<Arc<Vec<CertificateDer<'static>>>> {
        self.certificates.lock().ok()?.get(url).cloned()
    }

    /// PayPal's published scheme: the headers name the transmission, its time, the
    /// certificate and the algorithm; the signature covers `signed_message`.
    async fn verify_signature(&self, callback: &Callback) -> Result<(), ProviderError> {
        let header = |name: &str| {
            callback
                .header(name)
                .map(str::trim)
                .filter(|value| !value.is_empty())
                .ok_or_else(|| bad(format!("the {name} header is missing")))
        };
        let transmission_id = header("paypal-transmission-id")?;
        let transmission_time = header("paypal-transmission-time")?;
        let signature = header("paypal-transmission-sig")?;
        let cert_url = header("paypal-cert-url")?;
        let algorithm = header("paypal-auth-algo")?;
        if algorithm != AUTH_ALGO {
            return Err(bad(format!("paypal-auth-algo {algorithm:?} is not {AUTH_ALGO}")));
        }
        let sent_at = parse_time(transmission_time).ok_or_else(|| bad("paypal-transmission-time is not a time"))?;
        check_fresh(sent_at, now_secs(), self.settings.replay_window_secs).map_err(bad)?;
        let url = self.allowed_cert_url(cert_url)?;
        let signature = BASE64.decode(signature).map_err(|_| bad("paypal-transmission-sig is not Base64"))?;
        let chain = self.certificate_chain(&url).await?;
        let message = signed_message(transmission_id, transmission_time, &self.settings.webhook_id, &callback.body);
        verify_with_chain(&chain, &self.trust_anchors, UnixTime::now(), message.as_bytes(), &signature).map_err(bad)
    }

    /// The events a verified notification carries. Events not listed give none (and are
    /// still acknowledged, so PayPal stops sending them).
    async fn events_of(&self, event_type: &str, resource: Value) -> Result<Vec<PaymentEvent>, ProviderError> {
        match event_type {
            // The buyer approved; the money moves only when we capture. Capturing here too
            // covers a buyer who closes the tab before returning; the capture is idempotent.
            "CHECKOUT.ORDER.APPROVED" => {
                let order: Order = parse_resource(event_type, resource)?;
                if order.status != "APPROVED" {
                    return events_of_order(&order);
                }
                match self.capture(&order.id).await {
                    Ok(events) => Ok(events),
                    Err(ProviderError::Refused(reason)) => {
                        tracing::warn!(paypal_order = %order.id, %reason, "PayPal refused to capture an approved order");
                        let pending = order_ref_of_order(&order).map(|order| PaymentEvent::Pending { order });
                        Ok(pending.into_iter().collect())
                    }
                    Err(other) => Err(other),
                }
            }
            "CHECKOUT.ORDER.COMPLETED" => events_of_order(&parse_resource(event_type, resource)?),
            "PAYMENT.CAPTURE.COMPLETED" => {
                let capture: Capture = parse_resource(event_type, resource)?;
                let order = capture.order_ref().ok_or_else(|| bad(format!("capture {} names no order", capture.id)))?;
                let amount = capture.amount().map_err(bad)?;
                Ok(vec![PaymentEvent::Paid { order, provider_txn_id: capture.id, amount }])
            }
            "PAYMENT.CAPTURE.PENDING" => {
                let capture: Capture = parse_resource(event_type, resource)?;
                let order = capture.order_ref().ok_or_else(|| bad(format!("capture {} names no order", capture.id)))?;
                Ok(vec![PaymentEvent::Pending { order }])
            }
            // PayPal's event list names it DENIED; its v2 reference also DECLINED.
            "PAYMENT.CAPTURE.DENIED" | "PAYMENT.CAPTURE.DECLINED" => {
                let capture: Capture = parse_resource(event_type, resource)?;
                let order = capture.order_ref().ok_or_else(|| bad(format!("capture {} names no order", capture.id)))?;
                let reason = capture.failure_reason();
                Ok(vec![PaymentEvent::Failed { order, reason }])
            }
            // A refund we (or the operator at PayPal) made, or a reversal (chargeback): both
            // carry a refund, keyed by its own id so each partial refund counts once.
            "PAYMENT.CAPTURE.REFUNDED" | "PAYMENT.CAPTURE.REVERSED" => {
                let refund: Refund = parse_resource(event_type, resource)?;
                let amount = refund
                    .amount
                    .as_ref()
                    .ok_or_else(|| bad(format!("refund {} has no amount", refund.id)))?
                    .money()
                    .map_err(bad)?;
                let order = self.order_of_refund(&refund).await?;
                Ok(vec![PaymentEvent::Refunded { order, provider_txn_id: refund.id, amount }])
            }
            "BILLING.SUBSCRIPTION.ACTIVATED" => {
                let subscription: PaypalSubscription = parse_resource(event_type, resource)?;
                Ok(vec![PaymentEvent::SubscriptionActivated {
                    subscription: subscription.reference(),
                    period_end: subscription.period_end(),
                }])
            }
            "BILLING.SUBSCRIPTION.CANCELLED" | "BILLING.SUBSCRIPTION.SUSPENDED" | "BILLING.SUBSCRIPTION.EXPIRED" => {
                let subscription: PaypalSubscription = parse_resource(event_type, resource)?;
                Ok(vec![PaymentEvent::SubscriptionCancelled { subscription: subscription.reference() }])
            }
            "PAYMENT.SALE.COMPLETED" => self.events_of_sale(parse_resource(event_type, resource)?).await,
            _ => Ok(Vec::new()),
        }
    }

    /// A subscription's payment. Its first one is the activation (reported again, which is
    /// harmless: activation is idempotent); later ones are renewals. Which it is, and the
    /// new period end, come from PayPal's subscription, read now.
    async fn events_of_sale(&self, sale: Sale) -> Result<Vec<PaymentEvent>, ProviderError> {
        let Some(agreement) = sale.billing_agreement_id.as_deref().filter(|id| !id.is_empty()) else {
            // A v1 payment that is not a subscription's: not one Amora makes.
            return Ok(Vec::new());
        };
        let amount = sale.amount.money().map_err(bad)?;
        let subscription = self.get_subscription(agreement).await?;
        let reference = match subscription.custom_id.as_deref() {
            Some(_) => subscription.reference(),
            None => subscription_ref(sale.custom.as_deref(), agreement),
        };
        let started = subscription.start_time.as_deref().and_then(parse_time);
        let paid = sale.create_time.as_deref().and_then(parse_time);
        let first = match (started, paid) {
            (Some(started), Some(paid)) => paid < started + FIRST_PAYMENT_WINDOW_SECS,
            _ => false,
        };
        if first {
            return Ok(vec![PaymentEvent::SubscriptionActivated {
                subscription: reference,
                period_end: subscription.period_end(),
            }]);
        }
        Ok(vec![PaymentEvent::SubscriptionRenewed {
            subscription: reference,
            provider_txn_id: sale.id,
            amount,
            period_end: subscription.period_end(),
        }])
    }
}

fn order_ref_of_order(order: &Order) -> Option<OrderRef> {
    let unit = order.purchase_units.first();
    order_ref(unit.and_then(|u| u.custom_id.as_deref()), unit.and_then(|u| u.invoice_id.as_deref()), Some(&order.id))
}

fn read_trust_anchors(path: &str) -> anyhow::Result<Vec<TrustAnchor<'static>>> {
    let pem = std::fs::read(path).with_context(|| format!("payments.paypal: cert_ca_file {path}"))?;
    let certificates = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("payments.paypal: cert_ca_file {path} is not PEM"))?;
    anyhow::ensure!(!certificates.is_empty(), "payments.paypal: cert_ca_file {path} holds no certificate");
    certificates
        .iter()
        .map(|der| {
            webpki::anchor_from_trusted_cert(der)
                .map(|anchor| anchor.to_owned())
                .map_err(|e| anyhow::anyhow!("payments.paypal: cert_ca_file {path}: {e}"))
        })
        .collect()
}

#[async_trait]
impl PaymentProvider for PaypalProvider {
    fn route(&self) -> PaymentRoute {
        PaymentRoute::Paypal
    }

    /// An Orders v2 order, or for a plan a subscription to the period's PayPal plan. PayPal
    /// notifies the webhook registered for the app, so `notify_url` is not sent.
    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        match &request.subscription {
            Some(subscription) => {
                self.create_subscription(request, &subscription.subscription_id, subscription.period).await
            }
            None => self.create_order(request).await,
        }
    }

    /// The buyer is back: an order is captured (the query, `token` and `PayerID`, is not
    /// trusted; PayPal is asked); a subscription (`I-…`) is read and reported once active.
    async fn on_return(&self, provider_ref: &str, _query: &str) -> Result<Vec<PaymentEvent>, ProviderError> {
        if !provider_ref.starts_with("I-") {
            return self.capture(provider_ref).await;
        }
        let subscription = self.get_subscription(provider_ref).await?;
        Ok(match subscription.status.as_str() {
            "ACTIVE" => vec![PaymentEvent::SubscriptionActivated {
                subscription: subscription.reference(),
                period_end: subscription.period_end(),
            }],
            "CANCELLED" | "EXPIRED" | "SUSPENDED" => {
                vec![PaymentEvent::SubscriptionCancelled { subscription: subscription.reference() }]
            }
            // APPROVAL_PENDING, APPROVED: the first payment has not gone through yet.
            _ => Vec::new(),
        })
    }

    async fn verify_callback(&self, callback: &Callback) -> Result<VerifiedCallback, ProviderError> {
        self.verify_signature(callback).await?;
        let event: WebhookEvent = serde_json::from_slice(&callback.body)
            .map_err(|e| bad(format!("the notification is not a PayPal event: {e}")))?;
        let events = self.events_of(&event.event_type, event.resource).await?;
        Ok(VerifiedCallback { events, answer: CallbackAnswer::ok_empty() })
    }

    /// Cancelling twice is not an error: a subscription PayPal already shows as cancelled or
    /// expired is what was asked for.
    async fn cancel_subscription(&self, provider_ref: &str, reason: &str) -> Result<(), ProviderError> {
        let id = path_id(provider_ref)?;
        let reason = match reason.trim() {
            "" => "Cancelled by the subscriber".to_owned(),
            reason => clip(reason, 127),
        };
        let path = format!("/v1/billing/subscriptions/{id}/cancel");
        match self.call(Method::POST, &path, Some(&json!({ "reason": reason })), None).await {
            Ok(_) => Ok(()),
            Err(error) if error.has_issue("SUBSCRIPTION_STATUS_INVALID") => {
                let subscription = self.get_subscription(id).await?;
                if matches!(subscription.status.as_str(), "CANCELLED" | "EXPIRED") { Ok(()) } else { Err(error.into()) }
            }
            Err(error) => Err(error.into()),
        }
    }

    /// Refunds a capture (Payments v2); a subscription's payment is a v1 sale, refunded
    /// through the sale API when PayPal knows no capture of that id. The idempotency key is
    /// the payment and amount, so an operator's double click refunds once.
    async fn refund(&self, provider_txn_id: &str, amount: &Money) -> Result<String, ProviderError> {
        let id = path_id(provider_txn_id)?;
        let request_id = format!("refund-{id}-{}-{}", amount.minor, amount.currency);
        let body = json!({ "amount": { "value": amount.decimal(), "currency_code": amount.currency.as_str() } });
        let answer = match self
            .call(Method::POST, &format!("/v2/payments/captures/{id}/refund"), Some(&body), Some(&request_id))
            .await
        {
            Ok(answer) => answer,
            Err(error) if error.status() == Some(404) => {
                let body = json!({ "amount": { "total": amount.decimal(), "currency": amount.currency.as_str() } });
                let answer = self
                    .call(Method::POST, &format!("/v1/payments/sale/{id}/refund"), Some(&body), Some(&request_id))
                    .await?;
                let refund: SaleRefund = parse_answer("sale refund", answer)?;
                if refund.state.eq_ignore_ascii_case("failed") {
                    return Err(ProviderError::Refused(format!("PayPal refund {} failed", refund.id)));
                }
                return Ok(refund.id);
            }
            Err(error) => return Err(error.into()),
        };
        let refund: Refund = parse_answer("refund", answer)?;
        if matches!(refund.status.as_str(), "FAILED" | "CANCELLED") {
            return Err(ProviderError::Refused(format!("PayPal refund {} is {}", refund.id, refund.status)));
        }
        Ok(refund.id)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_signed_message_joins_the_headers_the_webhook_id_and_the_body_crc32() {
        // CRC-32 (IEEE) of "123456789" is the published check value 0xCBF43926.
        assert_eq!(
            signed_message(
                "69cd13f0-d67a-11e5-baa3-778b53f4ae55",
                "2016-02-18T20:01:35Z",
                "1JE4291016473214C",
                b"123456789"
            ),
            "69cd13f0-d67a-11e5-baa3-778b53f4ae55|2016-02-18T20:01:35Z|1JE4291016473214C|3421780262"
        );
        // Unsigned decimal, even when the top bit is set; and the empty body's CRC is 0.
        assert_eq!(signed_message("a", "t", "w", b"{}"), "a|t|w|2745614147");
        assert_eq!(signed_message("a", "t", "w", b""), "a|t|w|0");
        // One byte more changes the message (the body is covered).
        assert_ne!(signed_message("a", "t", "w", b"{} "), signed_message("a", "t", "w", b"{}"));
    }

    #[test]
    fn paypal_times_are_read_with_fractions_and_offsets() {
        assert_eq!(parse_time("2016-02-18T20:01:35Z"), Some(1_455_825_695));
        assert_eq!(parse_time("2016-02-18T20:01:35.123Z"), Some(1_455_825_695));
        assert_eq!(parse_time("2016-02-18T12:01:35-08:00"), Some(1_455_825_695));
        assert_eq!(parse_time("18 Feb 2016"), None);
        assert_eq!(parse_time(""), None);
    }

    #[test]
    fn a_transmission_outside_the_window_is_a_replay() {
        assert!(check_fresh(1_000, 1_000, 300).is_ok());
        assert!(check_fresh(700, 1_000, 300).is_ok());
        assert!(check_fresh(699, 1_000, 300).is_err(), "older than five minutes");
        assert!(check_fresh(1_300, 1_000, 300).is_ok());
        assert!(check_fresh(1_301, 1_000, 300).is_err(), "too far in the future");
        assert!(check_fresh(i64::MIN, 1_000, 300).is_err() && check_fresh(i64::MAX, 1_000, 300).is_err());
        assert!(check_fresh(0, 1_000, u64::MAX).is_ok(), "a window too large for i64 is all of time");
    }

    fn provider(cert_hosts: &[&str]) -> PaypalProvider {
        let settings = PaypalSettings {
            client_id: "id".into(),
            client_secret: "secret".into(),
            webhook_id: "WH1".into(),
            cert_hosts: cert_hosts.iter().map(|h| (*h).to_owned()).collect(),
            ..PaypalSettings::default()
        };
        PaypalProvider::new(settings).unwrap().unwrap()
    }

    #[test]
    fn certificates_come_only_from_allowed_hosts_over_https_at_the_certificate_path() {
        let paypal = provider(&PAYPAL_CERT_HOSTS);
        let good = "https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77";
        assert!(paypal.allowed_cert_url(good).is_ok());
        assert!(paypal.allowed_cert_url("https://api.sandbox.paypal.com/v1/notifications/certs/CERT-1").is_ok());
        assert!(paypal.allowed_cert_url("https://API.PayPal.com:443/v1/notifications/certs/CERT-1").is_ok());
        for refused in [
            "http://api.paypal.com/v1/notifications/certs/CERT-1",
            "https://api.paypal.com:8443/v1/notifications/certs/CERT-1",
            "https://api.paypal.com.evil.example/v1/notifications/certs/CERT-1",
            "https://evil.example/v1/notifications/certs/CERT-1",
            "https://user:pw@api.paypal.com/v1/notifications/certs/CERT-1",
            "https://api.paypal.com/v1/oauth2/token",
            "https://api.paypal.com/v1/notifications/certs/../../oauth2/token",
            "https://api.paypal.com/v1/notifications/certs/CERT-1?x=1",
            "https://127.0.0.1/v1/notifications/certs/CERT-1",
            "not a url",
        ] {
            assert!(matches!(paypal.allowed_cert_url(refused), Err(ProviderError::BadCallback(_))), "{refused}");
        }
    }

    #[test]
    fn a_loopback_origin_is_allowed_only_when_named_with_its_scheme_and_port() {
        let paypal = provider(&["http://127.0.0.1:8123"]);
        assert!(paypal.allowed_cert_url("http://127.0.0.1:8123/v1/notifications/certs/CERT-1").is_ok());
        assert!(paypal.allowed_cert_url("http://127.0.0.1:8124/v1/notifications/certs/CERT-1").is_err());
        assert!(paypal.allowed_cert_url("https://127.0.0.1:8123/v1/notifications/certs/CERT-1").is_err());
        assert!(paypal.allowed_cert_url("https://api.paypal.com/v1/notifications/certs/CERT-1").is_err());
        for bad_entry in ["", "ftp://x", "http://h/path", "host/path", "http://u@h"] {
            assert!(CertOrigin::parse(bad_entry).is_err(), "{bad_entry:?}");
        }
    }

    #[test]
    fn settings_default_to_live_paypal_and_refuse_unknown_keys() {
        let settings: PaypalSettings = serde_json::from_value(json!({})).unwrap();
        assert!(!settings.is_configured());
        assert_eq!(settings.api_base, LIVE_API_BASE);
        assert_eq!(settings.cert_hosts, PAYPAL_CERT_HOSTS.to_vec());
        assert_eq!(settings.replay_window_secs, 3 * 86_400, "PayPal retries for three days");
        assert!(PaypalProvider::new(settings).unwrap().is_none(), "no client id: off");
        assert!(serde_json::from_value::<PaypalSettings>(json!({ "client_idd": "x" })).is_err());
        assert!(serde_json::from_value::<PaypalSettings>(json!({ "plan_ids": { "week": "P-1" } })).is_err());
        let half = PaypalSettings { client_id: "id".into(), ..PaypalSettings::default() };
        assert!(PaypalProvider::new(half).is_err(), "a client id without a secret is a mistake, not off");
    }

    #[test]
    fn the_secret_stays_out_of_debug_output() {
        let settings = PaypalSettings { client_secret: "EKm-very-secret".into(), ..PaypalSettings::default() };
        let shown = format!("{settings:?}");
        assert!(!shown.contains("EKm-very-secret") && shown.contains("[redacted]"), "{shown}");
    }

    #[test]
    fn events_name_our_order_when_paypal_echoes_it_back() {
        let ours = "ord_abcdefghijklmnopqrstuvwx";
        assert_eq!(
            order_ref(Some(ours), None, Some("5O190127TN364715T")),
            Some(OrderRef::Ours(OrderId::parse(ours).unwrap()))
        );
        assert_eq!(order_ref(None, Some(ours), None), Some(OrderRef::Ours(OrderId::parse(ours).unwrap())));
        assert_eq!(
            order_ref(Some("someone-else"), None, Some("5O190127TN364715T")),
            Some(OrderRef::Provider("5O190127TN364715T".into()))
        );
        assert_eq!(order_ref(None, None, None), None);
        assert_eq!(subscription_ref(Some("x"), "I-1"), SubscriptionRef::Provider("I-1".into()));
    }

    #[test]
    fn ids_that_could_change_the_path_are_not_sent() {
        assert!(path_id("5O190127TN364715T").is_ok() && path_id("I-BW452GLLEP1G").is_ok());
        for bad_id in ["", "../oauth2/token", "a/b", "a?b", "a b", &"A".repeat(65)] {
            assert!(path_id(bad_id).is_err(), "{bad_id:?}");
        }
    }
}
