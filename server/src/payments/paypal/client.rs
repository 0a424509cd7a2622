//! PayPal's REST client: the OAuth 2.0 client-credentials token (fetched once, reused until
//! shortly before it expires), one authenticated call with PayPal's error bodies read, and
//! the calls Amora makes (orders, captures, subscriptions).

use std::time::{Duration, Instant};

use amora_domain::payment::{PlanPeriod, SubscriptionId};
use reqwest::Method;
use serde::Deserialize;
use serde_json::{Value, json};

use super::events::events_of_order;
use super::types::{Capture, Order, PaypalSubscription, Refund, link, linked_id, order_ref};
use super::{PaypalProvider, bad, clip, parse_answer, path_id};
use crate::payments::{Checkout, CheckoutRequest, OrderRef, PaymentEvent, ProviderError};

/// A token is refreshed this much before PayPal says it expires (a tenth of its life for
/// short-lived tokens), so a call never leaves with a token that dies on the way.
const TOKEN_EARLY_REFRESH: Duration = Duration::from_secs(300);

pub(super) struct AccessToken {
    value: String,
    refresh_at: Instant,
}

/// A failed call, kept apart from `ProviderError` so callers can react to PayPal's issue
/// codes (an order already captured) before it becomes a refusal.
#[derive(Debug)]
pub(super) enum CallError {
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
    pub(super) fn has_issue(&self, issue: &str) -> bool {
        matches!(self, CallError::Api { issues, .. } if issues.iter().any(|i| i == issue))
    }

    pub(super) fn status(&self) -> Option<u16> {
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

impl PaypalProvider {
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
    pub(super) async fn call(
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

    pub(super) async fn create_order(&self, request: &CheckoutRequest) -> Result<Checkout, ProviderError> {
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

    pub(super) async fn create_subscription(
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

    pub(super) async fn get_subscription(&self, id: &str) -> Result<PaypalSubscription, ProviderError> {
        let answer = self.call(Method::GET, &format!("/v1/billing/subscriptions/{}", path_id(id)?), None, None).await?;
        parse_answer("subscription", answer)
    }

    /// Captures an approved order, idempotently: the capture's `PayPal-Request-Id` is derived
    /// from the order, so a repeated capture (the buyer's return and the approval webhook, or
    /// a reload) gets PayPal's first answer back; and an order PayPal reports captured
    /// already is read instead. Either way the one capture is reported, never a second.
    pub(super) async fn capture(&self, paypal_order_id: &str) -> Result<Vec<PaymentEvent>, ProviderError> {
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
    pub(super) async fn order_of_refund(&self, refund: &Refund) -> Result<OrderRef, ProviderError> {
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
}
