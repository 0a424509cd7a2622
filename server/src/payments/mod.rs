//! Payment providers (ARCHITECTURE.md "Payments"): each route of spec §7 speaks its
//! processor's own protocol behind one `PaymentProvider` trait. A provider only translates:
//! it opens a checkout for an order the server priced, and it turns the processor's signed
//! callbacks into `PaymentEvent`s after checking their signatures. What an event does to an
//! order, a subscription or a balance is decided elsewhere (the billing service in
//! `actors`, through the user's actor and the ledger), never here.
//!
//! HTTP is kept at arm's length: a callback arrives as a `Callback` (headers, query, body
//! as received) and is answered with a `CallbackAnswer`, so each provider is tested
//! against a loopback server of its processor without the web framework in between.

pub mod callbacks;
pub mod gateway;
pub mod hosted;
pub mod nowpayments;
pub mod paypal;
pub mod plans;
mod processor_http;
pub mod receipts;
pub mod routes;
pub mod sandbox;
pub mod signing;
pub mod zpay;

use amora_domain::payment::{Money, OrderId, PaymentRoute, PlanPeriod, ProductId, SubscriptionId};
pub use amora_domain::payment::{OrderRef, PaymentEvent, ReversalKind, SubscriptionRef};
use async_trait::async_trait;

/// What the server asks a processor to collect: one order, priced from the catalogue.
#[derive(Debug, Clone)]
pub struct CheckoutRequest {
    pub order_id: OrderId,
    pub product: ProductId,
    /// A line the buyer sees at the processor ("Amora – 1 month plan").
    pub description: String,
    pub amount: Money,
    /// Where the buyer's browser returns after paying (our `/paymentResults/{orderId}`).
    pub return_url: String,
    /// Where the buyer's browser returns after giving up.
    pub cancel_url: String,
    /// Where the processor sends its asynchronous notifications for this route.
    pub notify_url: String,
    pub customer_email: Option<String>,
    /// The buyer's address as the server saw it (`client_address`): zPay's API checkout
    /// (`mapi.php`) requires it; other routes ignore it.
    pub client_ip: Option<String>,
    /// Set for a plan bought as a subscription the processor renews on its own.
    pub subscription: Option<SubscriptionCheckout>,
}

#[derive(Debug, Clone)]
pub struct SubscriptionCheckout {
    pub subscription_id: SubscriptionId,
    pub period: PlanPeriod,
}

/// The processor's answer to a checkout: where to send the buyer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The processor's id of the order, invoice or subscription.
    pub provider_ref: String,
    /// The page the buyer approves or pays on.
    pub approve_url: String,
    /// What a QR code shows for routes paid from a wallet (zPay), if any.
    pub qr_payload: Option<String>,
}

/// One asynchronous notification exactly as it arrived: signatures are computed over the
/// raw bytes, so nothing may be parsed and re-serialised before checking them.
#[derive(Debug, Clone, Default)]
pub struct Callback {
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    /// The raw query string, without `?`.
    pub query: String,
    pub body: Vec<u8>,
}

impl Callback {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
    }
}

/// How to answer a processor's notification: what its protocol expects to hear once the
/// events are safely handled (PayPal: 200; zPay: the text `success`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallbackAnswer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl CallbackAnswer {
    pub fn ok_empty() -> Self {
        Self { status: 200, content_type: "text/plain; charset=utf-8", body: String::new() }
    }

    pub fn text(body: &str) -> Self {
        Self { status: 200, content_type: "text/plain; charset=utf-8", body: body.to_owned() }
    }
}

/// A verified notification: the events it carries and the answer its processor expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedCallback {
    pub events: Vec<PaymentEvent>,
    pub answer: CallbackAnswer,
}

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The route has no keys configured: it is off.
    #[error("{0} is not configured")]
    NotConfigured(&'static str),
    /// A callback whose signature, certificate or shape does not check out. Nothing it
    /// says is believed; it is answered 400 and logged without its secrets.
    #[error("callback refused: {0}")]
    BadCallback(String),
    /// The processor refused a call (its error name and message, never our keys).
    #[error("the processor refused: {0}")]
    Refused(String),
    /// The processor could not be reached or answered nonsense.
    #[error("the processor is unavailable: {0}")]
    Unavailable(String),
    /// The route cannot do this (e.g. refunds on a route without a refund API).
    #[error("{0}")]
    Unsupported(String),
}

/// One payment route's processor.
#[async_trait]
pub trait PaymentProvider: Send + Sync {
    fn route(&self) -> PaymentRoute;

    /// Opens a checkout at the processor for the order (or, with `subscription`, a
    /// subscription the processor renews).
    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, ProviderError>;

    /// The buyer came back from the processor's page (`return_url`) with the processor's
    /// query parameters: routes that must act then (PayPal captures an approved order)
    /// do so and report what happened; others report nothing and wait for their callback.
    async fn on_return(&self, provider_ref: &str, query: &str) -> Result<Vec<PaymentEvent>, ProviderError>;

    /// Checks a notification's signature and reads its events.
    async fn verify_callback(&self, callback: &Callback) -> Result<VerifiedCallback, ProviderError>;

    /// The same check of a notification kept since it arrived at `received_at` (seconds),
    /// for the operator's replay: a signature that is only good for minutes after it was
    /// made (the hosted bridge's, the sandbox's) is judged at that time, not now.
    async fn verify_received(&self, callback: &Callback, received_at: i64) -> Result<VerifiedCallback, ProviderError> {
        let _ = received_at;
        self.verify_callback(callback).await
    }

    /// Stops a subscription's renewal at the processor.
    async fn cancel_subscription(&self, provider_ref: &str, reason: &str) -> Result<(), ProviderError>;

    /// Gives a payment back (operator refunds); answers the processor's refund id.
    async fn refund(&self, provider_txn_id: &str, amount: &Money) -> Result<String, ProviderError>;
}
