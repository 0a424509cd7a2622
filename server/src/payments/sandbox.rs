//! The sandbox: Amora's own test checkout, the default when no real route is configured, so
//! a newcomer can try the whole money loop with no account anywhere. Its "processor" is a
//! page Amora serves, labelled everywhere as a TEST payment in which no money moves.
//!
//! It speaks the hosted-checkout adapter protocol (`hosted.rs`) to itself with a secret
//! made at start-up: Pay, Decline and "Pay later" on its page produce the same signed
//! callbacks a bridged processor would send, and they go through the same callback path
//! (`verify_callback` and whatever the server does with its events), so the sandbox
//! exercises everything but the processor.
//!
//! What the server wires (the handlers are below; `configure` registers all four):
//!
//! - `GET  /lust/pay/sandbox/{checkoutId}` — the checkout page (`checkout_page`);
//! - `POST /lust/pay/sandbox/{checkoutId}/{pay|decline|later}` — its buttons (`checkout_action`);
//!   then the browser goes to the order's return URL;
//! - `GET  /lust/pay/sandbox/subscriptions/{subscriptionId}` — a paid test subscription, with
//!   "Renew now" and "Cancel at the processor" (`subscription_page`);
//! - `POST /lust/pay/sandbox/subscriptions/{subscriptionId}/{renew|cancel}` (`subscription_action`).
//!
//! All four need `web::Data<SandboxPages>`: the provider and a `CallbackSink`, the function
//! that hands a signed callback to the server's callback path, as the route of `notify_url`
//! would, so no HTTP loop back into the same process is needed. `SandboxPages::over_http`
//! posts to `notify_url` instead (a sandbox and a server in different processes).
//!
//! Cross-site requests: each checkout and subscription has a random token that only its
//! page carries (another site cannot read the page), and every button posts it back. The
//! ids themselves are random and unguessable, so knowing a page's URL is the capability.
//!
//! Checkouts live in memory for `checkout_ttl_secs`, at most `max_checkouts` at once; test
//! subscriptions likewise until cancelled. A restart forgets them (they are tests), and with
//! several nodes a checkout lives on the node that made it: the sandbox is for one node.
//! `SandboxPages::sweep_expired` reports checkouts nobody finished as `payment.expired`;
//! run it now and then (every minute is plenty).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use amora_domain::payment::{Money, PaymentRoute, add_months};
use async_trait::async_trait;
use futures_util::future::BoxFuture;
use serde::Deserialize;

use super::hosted::{AdapterNotification, SIGNATURE_HEADER, signature_header, verify_notification};
use super::signing::{now_secs, random_token, same_secret};
use super::{
    Callback, CallbackAnswer, Checkout, CheckoutRequest, PaymentEvent, PaymentProvider, ProviderError, VerifiedCallback,
};

/// The merchant id the sandbox's callbacks carry.
pub const MERCHANT_ID: &str = "amora-sandbox";
const CHECKOUT_PREFIX: &str = "sbx_";

/// Whether the sandbox runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// On while no real route is configured.
    Auto,
    On,
    Off,
}

/// `[payments.sandbox]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxSettings {
    pub enabled: SandboxMode,
    /// How long a test checkout can be paid.
    pub checkout_ttl_secs: u64,
    /// Test checkouts (and, separately, test subscriptions) kept at most.
    pub max_checkouts: usize,
}

impl SandboxSettings {
    pub fn is_enabled(&self, real_route_configured: bool) -> bool {
        match self.enabled {
            SandboxMode::On => true,
            SandboxMode::Off => false,
            SandboxMode::Auto => !real_route_configured,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CheckoutState {
    Open,
    /// "Pay later" was pressed: the order is pending and can still be paid here.
    Later,
    /// A callback for a button is being delivered; other presses wait for its outcome.
    Delivering,
    Paid,
    Declined,
}

struct Session {
    token: String,
    /// One transaction id per checkout, so a Pay delivered twice credits once.
    transaction_id: String,
    request: CheckoutRequest,
    created: Instant,
    state: CheckoutState,
}

struct TestSubscription {
    token: String,
    request: CheckoutRequest,
    period_end: i64,
    cancelled: bool,
    renewing: bool,
    renewals: u32,
}

#[derive(Default)]
struct Book {
    checkouts: HashMap<String, Session>,
    subscriptions: HashMap<String, TestSubscription>,
}

/// The sandbox's provider: checkouts kept in memory, callbacks signed with a secret made
/// at start-up.
pub struct SandboxProvider {
    secret: String,
    ttl: Duration,
    max_checkouts: usize,
    book: Mutex<Book>,
}

impl SandboxProvider {
    pub fn new(settings: &SandboxSettings) -> Self {
        Self {
            secret: random_token(48),
            ttl: Duration::from_secs(settings.checkout_ttl_secs),
            max_checkouts: settings.max_checkouts.max(1),
            book: Mutex::new(Book::default()),
        }
    }

    fn book(&self) -> MutexGuard<'_, Book> {
        // The book holds no invariant a panicking holder could break halfway.
        self.book.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn expired(&self, session: &Session) -> bool {
        session.created.elapsed() >= self.ttl
    }

    /// A signed adapter callback, as a bridged processor would send it.
    fn signed(&self, notification: &AdapterNotification) -> Callback {
        // Serialising a struct of strings and integers cannot fail.
        let body = serde_json::to_vec(notification).unwrap_or_default();
        Callback {
            headers: vec![
                (SIGNATURE_HEADER.to_ascii_lowercase(), signature_header(&self.secret, now_secs(), &body)),
                ("content-type".into(), "application/json".into()),
            ],
            query: String::new(),
            body,
        }
    }
}

fn notification(kind: &str, request: &CheckoutRequest) -> AdapterNotification {
    AdapterNotification {
        event_id: format!("evt_{}", random_token(24)),
        kind: kind.to_owned(),
        merchant_id: MERCHANT_ID.to_owned(),
        order_id: Some(request.order_id.to_string()),
        currency: Some(request.amount.currency.to_string()),
        ..AdapterNotification::default()
    }
}

#[async_trait]
impl PaymentProvider for SandboxProvider {
    fn route(&self) -> PaymentRoute {
        PaymentRoute::Sandbox
    }

    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, ProviderError> {
        let checkout_id = format!("{CHECKOUT_PREFIX}{}", random_token(24));
        let mut book = self.book();
        if book.checkouts.len() >= self.max_checkouts {
            // Full: forget the expired ones (their orders stay pending) before refusing.
            let ttl = self.ttl;
            book.checkouts.retain(|_, session| session.created.elapsed() < ttl);
        }
        if book.checkouts.len() >= self.max_checkouts {
            return Err(ProviderError::Unavailable("too many open test checkouts; try again later".into()));
        }
        book.checkouts.insert(
            checkout_id.clone(),
            Session {
                token: random_token(32),
                transaction_id: format!("sbx_txn_{}", random_token(24)),
                request: request.clone(),
                created: Instant::now(),
                state: CheckoutState::Open,
            },
        );
        Ok(Checkout {
            approve_url: format!("/lust/pay/sandbox/{checkout_id}"),
            provider_ref: checkout_id,
            qr_payload: None,
        })
    }

    async fn on_return(&self, _provider_ref: &str, _query: &str) -> Result<Vec<PaymentEvent>, ProviderError> {
        Ok(Vec::new())
    }

    async fn verify_callback(&self, callback: &Callback) -> Result<VerifiedCallback, ProviderError> {
        verify_notification(&self.secret, MERCHANT_ID, callback, now_secs())
    }

    async fn verify_received(&self, callback: &Callback, received_at: i64) -> Result<VerifiedCallback, ProviderError> {
        verify_notification(&self.secret, MERCHANT_ID, callback, received_at)
    }

    /// Stops the test subscription's renewals (`provider_ref` is our subscription id). One
    /// the sandbox no longer knows (a restart forgot it) has nothing left to stop.
    async fn cancel_subscription(&self, provider_ref: &str, _reason: &str) -> Result<(), ProviderError> {
        if let Some(subscription) = self.book().subscriptions.get_mut(provider_ref) {
            subscription.cancelled = true;
        }
        Ok(())
    }

    /// A test refund: no money moved, so none goes back; the refund id is made up.
    async fn refund(&self, _provider_txn_id: &str, _amount: &Money) -> Result<String, ProviderError> {
        Ok(format!("sbx_rf_{}", random_token(24)))
    }
}

/// Hands a signed callback to the server's callback path and answers what it answered.
pub type CallbackSink = Arc<dyn Fn(Callback) -> BoxFuture<'static, Result<CallbackAnswer, String>> + Send + Sync>;

/// Where the sandbox's callbacks go.
enum Delivery {
    /// The server's callback path, called in-process.
    Sink(CallbackSink),
    /// A POST to each order's `notify_url`.
    Http(reqwest::Client),
}

/// What the sandbox's pages need: the provider and where its callbacks go.
pub struct SandboxPages {
    provider: Arc<SandboxProvider>,
    delivery: Delivery,
}

impl SandboxPages {
    /// Callbacks go to `sink`, the server's own callback path (one process, no HTTP).
    pub fn new(provider: Arc<SandboxProvider>, sink: CallbackSink) -> Self {
        Self { provider, delivery: Delivery::Sink(sink) }
    }

    /// Callbacks are POSTed to each order's `notify_url`, as a processor would.
    pub fn over_http(provider: Arc<SandboxProvider>) -> Result<Self, String> {
        Ok(Self { provider, delivery: Delivery::Http(super::processor_http::client()?) })
    }

    pub fn provider(&self) -> &Arc<SandboxProvider> {
        &self.provider
    }

    /// Delivers a callback; `Err` unless the callback path accepted it (2xx).
    async fn deliver(&self, notify_url: &str, callback: Callback) -> Result<(), String> {
        let answer = match &self.delivery {
            Delivery::Sink(sink) => sink(callback).await?,
            Delivery::Http(http) => {
                let mut post = http.post(notify_url).body(callback.body.clone());
                for (name, value) in &callback.headers {
                    post = post.header(name.as_str(), value.as_str());
                }
                let response = post.send().await.map_err(|e| e.without_url().to_string())?;
                CallbackAnswer {
                    status: response.status().as_u16(),
                    content_type: "text/plain; charset=utf-8",
                    body: String::new(),
                }
            }
        };
        if (200..300).contains(&answer.status) {
            Ok(())
        } else {
            Err(format!("the callback was answered with HTTP {}", answer.status))
        }
    }

    /// Forgets expired checkouts and reports those nobody paid or declined as
    /// `payment.expired`; answers how many were reported.
    pub async fn sweep_expired(&self) -> usize {
        let expired: Vec<Session> = {
            let mut book = self.provider.book();
            let ids: Vec<String> = book
                .checkouts
                .iter()
                .filter(|(_, session)| self.provider.expired(session) && session.state != CheckoutState::Delivering)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| book.checkouts.remove(id)).collect()
        };
        let mut reported = 0;
        for session in expired {
            if matches!(session.state, CheckoutState::Open | CheckoutState::Later) {
                let callback = self.provider.signed(&notification("payment.expired", &session.request));
                match self.deliver(&session.request.notify_url, callback).await {
                    Ok(()) => reported += 1,
                    Err(error) => tracing::warn!(%error, "the sandbox could not report an expired test checkout"),
                }
            }
        }
        reported
    }
}

/// Registers the sandbox's four routes; the app must hold `web::Data<SandboxPages>`.
pub fn configure(config: &mut web::ServiceConfig) {
    config
        .route("/lust/pay/sandbox/subscriptions/{subscription_id}", web::get().to(subscription_page))
        .route("/lust/pay/sandbox/subscriptions/{subscription_id}/{action}", web::post().to(subscription_action))
        .route("/lust/pay/sandbox/{checkout_id}", web::get().to(checkout_page))
        .route("/lust/pay/sandbox/{checkout_id}/{action}", web::post().to(checkout_action));
}

/// The form every button posts.
#[derive(Deserialize)]
pub struct TokenForm {
    pub token: String,
}

/// `GET /lust/pay/sandbox/{checkoutId}`.
pub async fn checkout_page(pages: web::Data<SandboxPages>, path: web::Path<String>) -> HttpResponse {
    let checkout_id = path.into_inner();
    let book = pages.provider.book();
    let Some(session) = book.checkouts.get(&checkout_id).filter(|s| !pages.provider.expired(s)) else {
        return gone_page();
    };
    let request = &session.request;
    let mut body = summary(request);
    match session.state {
        CheckoutState::Open | CheckoutState::Later => {
            if session.state == CheckoutState::Later {
                body.push_str("<p class=\"note\">You chose to pay later: the order is pending. You can still pay or decline it here.</p>");
            }
            let action = |name: &str, label: &str, class: &str| {
                format!(
                    "<form method=\"post\" action=\"/lust/pay/sandbox/{}/{name}\"><input type=\"hidden\" name=\"token\" value=\"{}\"><button class=\"{class}\" type=\"submit\">{label}</button></form>",
                    escape(&checkout_id),
                    escape(&session.token),
                )
            };
            body.push_str("<div class=\"actions\">");
            body.push_str(&action("pay", "Pay (test — no money moves)", "pay"));
            body.push_str(&action("decline", "Decline", "decline"));
            body.push_str(&action("later", "Pay later (leave pending)", "later"));
            body.push_str("</div>");
            body.push_str(&format!(
                "<p><a href=\"{}\">Back to the shop without choosing</a></p>",
                escape(&request.cancel_url)
            ));
        }
        CheckoutState::Delivering => {
            body.push_str("<p class=\"note\">This test payment is being reported to Amora…</p>")
        }
        CheckoutState::Paid => {
            body.push_str("<p class=\"note\">This test payment was paid (no money moved).</p>");
            if let Some(subscription) = &request.subscription {
                body.push_str(&format!(
                    "<p><a href=\"/lust/pay/sandbox/subscriptions/{}\">Manage this test subscription (renew, cancel)</a></p>",
                    escape(subscription.subscription_id.as_str())
                ));
            }
        }
        CheckoutState::Declined => body.push_str("<p class=\"note\">This test payment was declined.</p>"),
    }
    if matches!(session.state, CheckoutState::Paid | CheckoutState::Declined) {
        body.push_str(&format!("<p><a href=\"{}\">Back to Amora</a></p>", escape(&request.return_url)));
    }
    html(StatusCode::OK, "Test checkout", &body)
}

/// `POST /lust/pay/sandbox/{checkoutId}/{pay|decline|later}` with the page's token.
pub async fn checkout_action(
    pages: web::Data<SandboxPages>,
    path: web::Path<(String, String)>,
    form: web::Form<TokenForm>,
) -> HttpResponse {
    let (checkout_id, action) = path.into_inner();
    let kind = match action.as_str() {
        "pay" => "payment.succeeded",
        "decline" => "payment.failed",
        "later" => "payment.pending",
        _ => return message_page(StatusCode::NOT_FOUND, "No such button", "This test checkout has no such button."),
    };
    // Claim the checkout under the lock, so two presses cannot both deliver.
    let (request, callback, previous, period_end) = {
        let mut book = pages.provider.book();
        let provider = &pages.provider;
        let Some(session) = book.checkouts.get_mut(&checkout_id).filter(|s| !provider.expired(s)) else {
            return gone_page();
        };
        if !same_secret(&form.token, &session.token) {
            return message_page(StatusCode::FORBIDDEN, "Refused", "This form is not from this test checkout's page.");
        }
        match session.state {
            CheckoutState::Paid | CheckoutState::Declined => return see_other(&session.request.return_url),
            CheckoutState::Delivering => {
                return message_page(
                    StatusCode::CONFLICT,
                    "Busy",
                    "This test payment is already being reported; reload the page.",
                );
            }
            CheckoutState::Open | CheckoutState::Later => {}
        }
        let request = session.request.clone();
        let mut event = notification(kind, &request);
        event.checkout_id = Some(checkout_id.clone());
        let mut period_end = None;
        match kind {
            "payment.succeeded" => {
                event.transaction_id = Some(session.transaction_id.clone());
                event.amount = Some(request.amount.decimal());
                if let Some(subscription) = &request.subscription {
                    let end = add_months(now_secs(), subscription.period.months());
                    event.subscription_id = Some(subscription.subscription_id.to_string());
                    event.period_end = Some(end);
                    period_end = Some(end);
                }
            }
            "payment.failed" => event.reason = Some("declined on the sandbox's test checkout".into()),
            _ => {}
        }
        let previous = session.state;
        session.state = CheckoutState::Delivering;
        (request, provider.signed(&event), previous, period_end)
    };

    let delivered = pages.deliver(&request.notify_url, callback).await;
    let mut book = pages.provider.book();
    if let Err(error) = delivered {
        if let Some(session) = book.checkouts.get_mut(&checkout_id) {
            session.state = previous;
        }
        tracing::warn!(%error, "Amora did not accept a sandbox callback");
        return message_page(
            StatusCode::BAD_GATEWAY,
            "Not reported",
            "Amora did not accept this test callback, so nothing changed. Go back and try again.",
        );
    }
    let next = match kind {
        "payment.succeeded" => CheckoutState::Paid,
        "payment.failed" => CheckoutState::Declined,
        _ => CheckoutState::Later,
    };
    if let Some(session) = book.checkouts.get_mut(&checkout_id) {
        session.state = next;
    }
    if let (Some(subscription), Some(period_end)) = (&request.subscription, period_end) {
        let id = subscription.subscription_id.to_string();
        make_room_for_subscription(&mut book.subscriptions, pages.provider.max_checkouts);
        book.subscriptions.insert(
            id,
            TestSubscription {
                token: random_token(32),
                request: request.clone(),
                period_end,
                cancelled: false,
                renewing: false,
                renewals: 0,
            },
        );
    }
    see_other(&request.return_url)
}

/// Keeps the test subscriptions under the bound: cancelled ones go first, then the one whose
/// period ends soonest.
fn make_room_for_subscription(subscriptions: &mut HashMap<String, TestSubscription>, max: usize) {
    if subscriptions.len() < max {
        return;
    }
    subscriptions.retain(|_, subscription| !subscription.cancelled);
    while subscriptions.len() >= max {
        let Some(oldest) = subscriptions.iter().min_by_key(|(_, s)| s.period_end).map(|(id, _)| id.clone()) else {
            return;
        };
        subscriptions.remove(&oldest);
    }
}

/// `GET /lust/pay/sandbox/subscriptions/{subscriptionId}`.
pub async fn subscription_page(pages: web::Data<SandboxPages>, path: web::Path<String>) -> HttpResponse {
    let id = path.into_inner();
    let book = pages.provider.book();
    let Some(subscription) = book.subscriptions.get(&id) else {
        return message_page(
            StatusCode::NOT_FOUND,
            "Unknown test subscription",
            "The sandbox does not know this subscription (it forgets them when Amora restarts).",
        );
    };
    let request = &subscription.request;
    let mut body = summary(request);
    body.push_str(&format!(
        "<dl><dt>Subscription</dt><dd>{}</dd><dt>Paid until</dt><dd>{} (unix time)</dd><dt>Renewals so far</dt><dd>{}</dd><dt>Status</dt><dd>{}</dd></dl>",
        escape(&id),
        subscription.period_end,
        subscription.renewals,
        if subscription.cancelled { "cancelled at the processor: no more renewals" } else { "renewing" },
    ));
    if !subscription.cancelled {
        let action = |name: &str, label: &str, class: &str| {
            format!(
                "<form method=\"post\" action=\"/lust/pay/sandbox/subscriptions/{}/{name}\"><input type=\"hidden\" name=\"token\" value=\"{}\"><button class=\"{class}\" type=\"submit\">{label}</button></form>",
                escape(&id),
                escape(&subscription.token),
            )
        };
        body.push_str("<div class=\"actions\">");
        body.push_str(&action("renew", "Renew now (next period, test — no money moves)", "pay"));
        body.push_str(&action("cancel", "Cancel at the processor", "decline"));
        body.push_str("</div>");
    }
    body.push_str(&format!("<p><a href=\"{}\">Back to Amora</a></p>", escape(&request.return_url)));
    html(StatusCode::OK, "Test subscription", &body)
}

/// `POST /lust/pay/sandbox/subscriptions/{subscriptionId}/{renew|cancel}` with the page's token:
/// a renewal is `subscription.renewed` for one more period (a new transaction), a
/// cancellation `subscription.cancelled`, as a processor reports them.
pub async fn subscription_action(
    pages: web::Data<SandboxPages>,
    path: web::Path<(String, String)>,
    form: web::Form<TokenForm>,
) -> HttpResponse {
    let (id, action) = path.into_inner();
    if action != "renew" && action != "cancel" {
        return message_page(StatusCode::NOT_FOUND, "No such button", "This test subscription has no such button.");
    }
    let (request, callback, new_end) = {
        let mut book = pages.provider.book();
        let Some(subscription) = book.subscriptions.get_mut(&id) else {
            return message_page(
                StatusCode::NOT_FOUND,
                "Unknown test subscription",
                "The sandbox does not know this subscription.",
            );
        };
        if !same_secret(&form.token, &subscription.token) {
            return message_page(
                StatusCode::FORBIDDEN,
                "Refused",
                "This form is not from this test subscription's page.",
            );
        }
        if subscription.cancelled {
            return message_page(
                StatusCode::CONFLICT,
                "Cancelled",
                "This test subscription is cancelled: it no longer renews.",
            );
        }
        if subscription.renewing {
            return message_page(StatusCode::CONFLICT, "Busy", "A renewal is already being reported; reload the page.");
        }
        let request = subscription.request.clone();
        let Some(plan) = request.subscription.as_ref() else {
            return message_page(
                StatusCode::NOT_FOUND,
                "Unknown test subscription",
                "This checkout was not a subscription.",
            );
        };
        let mut event =
            notification(if action == "renew" { "subscription.renewed" } else { "subscription.cancelled" }, &request);
        event.order_id = None;
        event.subscription_id = Some(plan.subscription_id.to_string());
        let mut new_end = None;
        if action == "renew" {
            let end = add_months(subscription.period_end, plan.period.months());
            event.transaction_id = Some(format!("sbx_txn_{}", random_token(24)));
            event.amount = Some(request.amount.decimal());
            event.period_end = Some(end);
            new_end = Some(end);
            subscription.renewing = true;
        } else {
            event.currency = None;
        }
        (request, pages.provider.signed(&event), new_end)
    };

    let delivered = pages.deliver(&request.notify_url, callback).await;
    let mut book = pages.provider.book();
    let Some(subscription) = book.subscriptions.get_mut(&id) else {
        return see_other(&format!("/lust/pay/sandbox/subscriptions/{id}"));
    };
    subscription.renewing = false;
    if let Err(error) = delivered {
        tracing::warn!(%error, "Amora did not accept a sandbox subscription callback");
        return message_page(
            StatusCode::BAD_GATEWAY,
            "Not reported",
            "Amora did not accept this test callback, so nothing changed. Go back and try again.",
        );
    }
    match new_end {
        Some(end) => {
            subscription.period_end = end;
            subscription.renewals += 1;
        }
        None => subscription.cancelled = true,
    }
    // `id` named a subscription the sandbox made, so it is one of our plain ids.
    see_other(&format!("/lust/pay/sandbox/subscriptions/{id}"))
}

/// The order as the buyer sees it.
fn summary(request: &CheckoutRequest) -> String {
    let mut rows = format!(
        "<dl><dt>Order</dt><dd>{}</dd><dt>What</dt><dd>{}</dd><dt>Product</dt><dd>{}</dd><dt>Amount</dt><dd>{} {} <em>(test — not charged)</em></dd>",
        escape(request.order_id.as_str()),
        escape(&request.description),
        escape(request.product.as_str()),
        escape(&request.amount.decimal()),
        escape(request.amount.currency.as_str()),
    );
    if let Some(subscription) = &request.subscription {
        rows.push_str(&format!(
            "<dt>Renews</dt><dd>every {} month(s) until cancelled (test renewals are started by hand)</dd>",
            subscription.period.months()
        ));
    }
    rows.push_str("</dl>");
    rows
}

/// Text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:40rem;margin:0 auto;padding:1rem;color:#222}\
.banner{background:#b00020;color:#fff;font-size:1.6rem;font-weight:700;text-align:center;padding:1rem;border-radius:.5rem}\
.banner small{display:block;font-size:1rem;font-weight:400}\
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}\
.actions{display:flex;flex-wrap:wrap;gap:.6rem;margin:1.2rem 0}.actions form{margin:0}\
button{font-size:1rem;padding:.7rem 1.2rem;border-radius:.4rem;border:1px solid #555;cursor:pointer}\
.pay{background:#1b5e20;color:#fff}.decline{background:#fff;color:#b00020;border-color:#b00020}.later{background:#eee}\
.note{background:#fff3cd;padding:.6rem;border-radius:.4rem}";

/// A whole page: self-contained (no script, no outside asset), the test banner first.
fn html(status: StatusCode, title: &str, body: &str) -> HttpResponse {
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<meta name=\"robots\" content=\"noindex\"><title>TEST payment — {title} — Amora sandbox</title><style>{STYLE}</style></head><body>\
<div class=\"banner\" role=\"alert\">Test payment — no money moves<small>Amora's sandbox checkout: nothing is charged, nothing is paid out.</small></div>\
<h1>{title}</h1>{body}</body></html>",
        title = escape(title),
    );
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        // Inline style only; no script, no frames, no outside anything.
        .insert_header((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
        ))
        .insert_header(("X-Frame-Options", "DENY"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .body(page)
}

fn message_page(status: StatusCode, title: &str, message: &str) -> HttpResponse {
    html(status, title, &format!("<p>{}</p>", escape(message)))
}

fn gone_page() -> HttpResponse {
    message_page(
        StatusCode::NOT_FOUND,
        "No such test checkout",
        "This test checkout does not exist or has expired. Start again from Amora.",
    )
}

/// After a POST, the browser goes on with a GET.
fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther().insert_header(("Location", location)).insert_header(("Cache-Control", "no-store")).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_text_and_attributes() {
        assert_eq!(escape(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }

    #[test]
    fn auto_runs_only_without_a_real_route() {
        let settings = |enabled| SandboxSettings { enabled, checkout_ttl_secs: 60, max_checkouts: 10 };
        assert!(settings(SandboxMode::Auto).is_enabled(false));
        assert!(!settings(SandboxMode::Auto).is_enabled(true));
        assert!(settings(SandboxMode::On).is_enabled(true));
        assert!(!settings(SandboxMode::Off).is_enabled(false));
    }
}
