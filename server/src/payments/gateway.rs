//! The payment routes as this server runs them: the providers configured in `[payments]`,
//! the sandbox's own checkout pages, and the one path every processor's notification takes
//! (its signature checked by its provider, its events applied by the node's `Billing`, its
//! receipts mailed). The HTTP handlers (`payments::routes`, `payments::callbacks`) only
//! translate between the wire and this.

use std::sync::{Arc, Weak};

use actix_web::web;
use amora_actors::Node;
use amora_actors::payments::{Billing, BillingError, Receipt};
use amora_domain::account::{User, UserId};
use amora_domain::payment::{Order, OrderId, PaymentEvent, PaymentRoute, ProductId, SubscriptionId};
use amora_store::FailedWebhook;
use futures_util::FutureExt;

use super::hosted::HostedProvider;
use super::nowpayments::NowPaymentsProvider;
use super::paypal::PaypalProvider;
use super::sandbox::{CallbackSink, SandboxPages, SandboxProvider};
use super::zpay::ZPayProvider;
use super::{Callback, CallbackAnswer, CheckoutRequest, PaymentProvider, ProviderError, SubscriptionCheckout};
use crate::api::ApiError;
use crate::auth::mail::Mailer;
use crate::settings::Settings;

/// Why a notification was not taken.
#[derive(Debug, thiserror::Error)]
pub enum CallbackError {
    /// Not believed or not ours (signature, shape, unknown order, amount): 400, changes nothing.
    #[error("{0}")]
    Refused(String),
    /// We could not act on it now (store, processor lookup): 503, so the processor retries.
    #[error("{0}")]
    Unavailable(String),
    /// No such route here.
    #[error("no such payment route")]
    NoRoute,
}

/// A checkout opened for a user: where their browser goes next.
#[derive(Debug, Clone)]
pub struct OpenedCheckout {
    pub order_id: OrderId,
    pub approve_url: String,
    pub qr_payload: Option<String>,
}

pub struct Gateway {
    providers: Vec<(PaymentRoute, Arc<dyn PaymentProvider>)>,
    sandbox_pages: Option<web::Data<SandboxPages>>,
    billing: Billing,
    node: Node,
    mailer: Mailer,
    public_base_url: String,
}

impl Gateway {
    /// Builds every configured provider (a half-configured route is an error) and, when it
    /// runs, the sandbox, whose pages hand their callbacks straight to `callback`.
    pub fn build(settings: &Settings, node: Node, mailer: Mailer) -> anyhow::Result<Arc<Self>> {
        let payments = &settings.payments;
        let mut real: Vec<(PaymentRoute, Arc<dyn PaymentProvider>)> = Vec::new();
        if let Some(paypal) = PaypalProvider::new(payments.paypal.clone())? {
            real.push((PaymentRoute::Paypal, Arc::new(paypal)));
        }
        if let Some(provider) = NowPaymentsProvider::from_settings(&payments.nowpayments).map_err(anyhow::Error::msg)? {
            real.push((PaymentRoute::NowPayments, Arc::new(provider)));
        }
        if let Some(provider) = ZPayProvider::from_settings(&payments.zpay).map_err(anyhow::Error::msg)? {
            real.push((PaymentRoute::ZPay, Arc::new(provider)));
        }
        for (route, hosted) in [
            (PaymentRoute::Aiglo, &payments.aiglo),
            (PaymentRoute::Trust, &payments.trust),
            (PaymentRoute::Luxfin, &payments.luxfin),
        ] {
            if let Some(provider) = HostedProvider::from_settings(route, hosted).map_err(anyhow::Error::msg)? {
                real.push((route, Arc::new(provider)));
            }
        }
        let sandbox = payments.sandbox_enabled().then(|| Arc::new(SandboxProvider::new(&payments.sandbox)));
        let billing = node.billing.clone();
        let public_base_url = settings.http.public_base_url.trim_end_matches('/').to_owned();
        Ok(Arc::new_cyclic(move |me: &Weak<Gateway>| {
            let mut providers = real;
            let sandbox_pages = sandbox.map(|provider| {
                providers.push((PaymentRoute::Sandbox, provider.clone() as Arc<dyn PaymentProvider>));
                let me = me.clone();
                // The sandbox's buttons take the same path as any processor's notification.
                let sink: CallbackSink = Arc::new(move |callback: Callback| {
                    let me = me.clone();
                    async move {
                        let gateway = me.upgrade().ok_or_else(|| "the server is stopping".to_owned())?;
                        gateway.callback(PaymentRoute::Sandbox, callback).await.map_err(|e| e.to_string())
                    }
                    .boxed()
                });
                web::Data::new(SandboxPages::new(provider, sink))
            });
            Gateway { providers, sandbox_pages, billing, node, mailer, public_base_url }
        }))
    }

    /// The routes a buyer may choose, in the order the checkout offers them.
    pub fn routes(&self) -> Vec<PaymentRoute> {
        self.providers.iter().map(|(route, _)| *route).collect()
    }

    pub fn provider(&self, route: PaymentRoute) -> Option<&Arc<dyn PaymentProvider>> {
        self.providers.iter().find(|(candidate, _)| *candidate == route).map(|(_, provider)| provider)
    }

    /// The sandbox's pages, when the sandbox runs.
    pub fn sandbox_pages(&self) -> Option<web::Data<SandboxPages>> {
        self.sandbox_pages.clone()
    }

    pub fn billing(&self) -> &Billing {
        &self.billing
    }

    /// Opens an order of `product` for `user` through `route`: priced from the catalogue,
    /// then a checkout at the processor. A processor that cannot be reached fails the
    /// order (nothing is charged) and answers 50000.
    pub async fn open_checkout(
        &self,
        user: &User,
        product: ProductId,
        route: PaymentRoute,
        client_ip: Option<String>,
    ) -> Result<OpenedCheckout, ApiError> {
        let provider =
            self.provider(route).ok_or_else(|| ApiError::NotFound(format!("{} is not offered here", route.code())))?;
        let (order, subscription) = self.billing.open_order(&user.user_id, product, route).await?;
        let base = &self.public_base_url;
        let id = &order.order_id;
        let request = CheckoutRequest {
            order_id: id.clone(),
            product,
            description: describe(product, &self.billing),
            amount: order.amount.clone(),
            return_url: format!("{base}/lust/pay/return/{}/{id}", route.code()),
            cancel_url: format!("{base}/lust/pay/cancel/{}/{id}", route.code()),
            notify_url: format!("{base}/lust/pay/notify/{}", route.code()),
            customer_email: user.email.as_ref().map(ToString::to_string),
            subscription: subscription
                .filter(|_| route.renews_plans())
                .map(|s| SubscriptionCheckout { subscription_id: s.subscription_id, period: s.period }),
            client_ip,
        };
        let renewing = request.subscription.is_some();
        match provider.create_checkout(&request).await {
            Ok(checkout) => {
                // PayPal names a subscription itself; the adapter and the sandbox use ours.
                let subscription_ref =
                    (renewing && route == PaymentRoute::Paypal).then_some(checkout.provider_ref.as_str());
                self.billing.checkout_opened(&order, &checkout.provider_ref, subscription_ref).await?;
                tracing::info!(order = %id, route = route.code(), %product, "checkout opened");
                Ok(OpenedCheckout {
                    order_id: order.order_id,
                    approve_url: checkout.approve_url,
                    qr_payload: checkout.qr_payload,
                })
            }
            Err(error) => {
                tracing::warn!(%error, order = %id, route = route.code(), "the processor did not open a checkout");
                self.billing.checkout_failed(&order).await?;
                Err(ApiError::Internal(format!("{}: {error}", route.code())))
            }
        }
    }

    /// One notification of `route`'s processor: checked, applied, receipts sent. One that
    /// was verified and then could not be applied is kept for the operator to replay.
    pub async fn callback(&self, route: PaymentRoute, callback: Callback) -> Result<CallbackAnswer, CallbackError> {
        let provider = self.provider(route).ok_or(CallbackError::NoRoute)?;
        let verified = provider.verify_callback(&callback).await.map_err(refusal)?;
        match self.apply_verified(route, verified.events).await {
            Ok(()) => Ok(verified.answer),
            Err(error) => {
                self.keep_failed(route, callback, &error).await;
                Err(error)
            }
        }
    }

    /// The events of a verified notification, in order; the first that fails stops it (the
    /// ones before stay applied: a replay applies them again as the replays they are).
    async fn apply_verified(&self, route: PaymentRoute, events: Vec<PaymentEvent>) -> Result<(), CallbackError> {
        for event in events {
            let receipts = self.billing.apply(route, event).await.map_err(|error| match error {
                BillingError::Store(_) | BillingError::Actor(_) => CallbackError::Unavailable(error.to_string()),
                other => CallbackError::Refused(other.to_string()),
            })?;
            self.send_receipts(receipts).await;
        }
        Ok(())
    }

    async fn keep_failed(&self, route: PaymentRoute, callback: Callback, error: &CallbackError) {
        let delivery = FailedWebhook {
            delivery_id: delivery_id(),
            route,
            // Never signed by a processor; not worth keeping.
            headers: callback
                .headers
                .into_iter()
                .filter(|(name, _)| !matches!(name.as_str(), "cookie" | "authorization"))
                .collect(),
            query: callback.query,
            body: callback.body,
            error: error.to_string(),
            received_at: crate::auth::now(),
            replay: None,
        };
        let id = delivery.delivery_id;
        match self.billing.record_failed_webhook(delivery).await {
            Ok(()) => {
                tracing::warn!(route = route.code(), delivery = id, %error, "a verified notification failed; kept for replay")
            }
            Err(store_error) => {
                tracing::error!(route = route.code(), %error, %store_error, "a verified notification failed and could not be kept")
            }
        }
    }

    /// Feeds a kept notification through the same path again: its provider checks the
    /// signature as of when it arrived, then its events are applied as `callback` applies
    /// them (each one idempotent: a payment claimed and credited once).
    pub async fn replay(&self, delivery: &FailedWebhook) -> Result<(), CallbackError> {
        let provider = self.provider(delivery.route).ok_or(CallbackError::NoRoute)?;
        let callback =
            Callback { headers: delivery.headers.clone(), query: delivery.query.clone(), body: delivery.body.clone() };
        let verified = provider.verify_received(&callback, delivery.received_at).await.map_err(refusal)?;
        self.apply_verified(delivery.route, verified.events).await
    }

    /// The buyer came back from the processor's page: routes that act then (PayPal's
    /// capture) do so now, so the result page sees it at once.
    pub async fn returned(&self, route: PaymentRoute, order_id: &OrderId, query: &str) {
        let Some(provider) = self.provider(route) else { return };
        let order = match self.billing.order_by_id(order_id).await {
            Ok(Some(order)) if order.route == route => order,
            _ => return,
        };
        let Some(provider_ref) = order.provider_ref.clone() else { return };
        match provider.on_return(&provider_ref, query).await {
            Ok(events) => {
                for event in events {
                    match self.billing.apply(route, event).await {
                        Ok(receipts) => self.send_receipts(receipts).await,
                        Err(error) => tracing::warn!(%error, order = %order_id, "a return's event was not applied"),
                    }
                }
            }
            // The processor's notification will tell; the result page keeps polling.
            Err(error) => tracing::info!(%error, order = %order_id, "nothing to act on at the buyer's return"),
        }
    }

    /// Stops renewal of the user's subscription at its processor, then here.
    pub async fn unsubscribe(&self, user_id: &UserId, subscription_id: &SubscriptionId) -> Result<(), ApiError> {
        let subscription = self.billing.user_subscription(user_id, subscription_id).await?;
        if let Some(provider) = self.provider(subscription.route) {
            let reference = subscription.provider_ref.clone().unwrap_or_else(|| subscription_id.to_string());
            provider
                .cancel_subscription(&reference, "cancelled by the member in Amora")
                .await
                .map_err(|e| ApiError::Internal(format!("{}: {e}", subscription.route.code())))?;
        }
        let receipts = self.billing.cancel_by_user(user_id, subscription_id).await?;
        self.send_receipts(receipts).await;
        Ok(())
    }

    /// Gives a paid order's money back at its processor (the operator), then takes its
    /// coins back through the same path a processor's refund notification takes.
    pub async fn refund(&self, order: &Order) -> Result<String, ApiError> {
        let provider = self
            .provider(order.route)
            .ok_or_else(|| ApiError::NotFound(format!("{} is not configured here", order.route.code())))?;
        let capture = self.capture_of(order).await?;
        let refund_id = provider
            .refund(&capture, &order.amount)
            .await
            .map_err(|e| ApiError::Internal(format!("{}: {e}", order.route.code())))?;
        let event = amora_domain::payment::PaymentEvent::Refunded {
            order: amora_domain::payment::OrderRef::Ours(order.order_id.clone()),
            provider_txn_id: refund_id.clone(),
            amount: order.amount.clone(),
            kind: amora_domain::payment::ReversalKind::Refund,
        };
        let receipts = self.billing.apply(order.route, event).await?;
        self.send_receipts(receipts).await;
        Ok(refund_id)
    }

    /// The processor's id of the payment of an order (what a refund names).
    async fn capture_of(&self, order: &Order) -> Result<String, ApiError> {
        self.billing
            .payment_of(order)
            .await?
            .ok_or_else(|| ApiError::Param(format!("order {} has no payment to refund", order.order_id)))
    }

    /// Mails each receipt to the account's address, if it has one; a failure is logged.
    async fn send_receipts(&self, receipts: Vec<Receipt>) {
        for receipt in receipts {
            let user_id = match &receipt {
                Receipt::Paid { user_id, .. }
                | Receipt::Renewed { user_id, .. }
                | Receipt::Cancelled { user_id, .. }
                | Receipt::Refunded { user_id, .. } => user_id.clone(),
            };
            let Ok(Some(account)) = self.node.account(&user_id).await else { continue };
            let Some(email) = account.email.or(account.discord_email).or(account.apple_email) else { continue };
            let (subject, text) = super::receipts::render(&receipt, &self.billing);
            let html = format!("<pre style=\"font-family:inherit\">{}</pre>", super::sandbox::escape(&text));
            if let Err(error) = self.mailer.send(&email, &subject, text, html).await {
                tracing::warn!(%error, user = %user_id, "a receipt was not sent");
            }
        }
    }
}

fn refusal(error: ProviderError) -> CallbackError {
    match error {
        ProviderError::Unavailable(reason) => CallbackError::Unavailable(reason),
        other => CallbackError::Refused(other.to_string()),
    }
}

/// A kept notification's id: time-ordered (microseconds × 1000) with a random part.
fn delivery_id() -> i64 {
    use rand::Rng;
    let micros =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_micros() as i64).unwrap_or(0);
    micros.saturating_mul(1000) + rand::thread_rng().gen_range(0..1000)
}

/// The line a buyer sees at the processor.
fn describe(product: ProductId, billing: &Billing) -> String {
    match product {
        ProductId::Plan(period) => format!("Amora – {} plan", super::receipts::period_name(period)),
        ProductId::Coins(_) => {
            let coins = billing.catalogue().offer(product).map_or(0, |offer| offer.coins.units());
            format!("Amora – {} tokens", super::receipts::tokens(coins))
        }
    }
}

impl From<BillingError> for ApiError {
    fn from(error: BillingError) -> Self {
        match error {
            BillingError::NotForSale(product) => ApiError::Param(format!("productId: {product} is not for sale")),
            BillingError::PlanInForce { until } => ApiError::CannotPurchasePlan(until),
            BillingError::UnknownOrder | BillingError::UnknownSubscription => ApiError::NotFound(error.to_string()),
            BillingError::NotRenewing => ApiError::Param(error.to_string()),
            BillingError::Mismatch(_) | BillingError::Store(_) | BillingError::Actor(_) => {
                ApiError::Internal(error.to_string())
            }
        }
    }
}
