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
//!
//! The parts: `settings` (`[payments.paypal]`), `client` (token and REST calls), `types`
//! (PayPal's wire types), `certificates` (webhook signatures) and `events` (what a
//! notification means); this file is the provider that joins them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use amora_domain::payment::{Money, PaymentRoute};
use anyhow::Context;
use async_trait::async_trait;
use reqwest::Method;
use rustls_pki_types::{CertificateDer, TrustAnchor};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use url::Url;

use super::{
    Callback, CallbackAnswer, Checkout, CheckoutRequest, PaymentEvent, PaymentProvider, ProviderError, VerifiedCallback,
};

mod certificates;
mod client;
mod events;
mod settings;
mod types;

use certificates::{CertOrigin, read_trust_anchors};
use client::AccessToken;
pub use settings::{LIVE_API_BASE, PAYPAL_CERT_HOSTS, PaypalPlanIds, PaypalSettings, SANDBOX_API_BASE};
use types::{Refund, SaleRefund, WebhookEvent};

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
    fn ids_that_could_change_the_path_are_not_sent() {
        assert!(path_id("5O190127TN364715T").is_ok() && path_id("I-BW452GLLEP1G").is_ok());
        for bad_id in ["", "../oauth2/token", "a/b", "a?b", "a b", &"A".repeat(65)] {
            assert!(path_id(bad_id).is_err(), "{bad_id:?}");
        }
    }
}
