//! PayPal's wire types as Amora reads them (Orders v2, Payments v2, Subscriptions, v1
//! sales, webhook envelopes), and how their ids and times map to ours.

use amora_domain::payment::{Currency, Money, OrderId, SubscriptionId};
use serde::Deserialize;
use serde_json::Value;
use url::Url;

use crate::payments::{OrderRef, SubscriptionRef};

#[derive(Deserialize)]
pub(super) struct Link {
    pub(super) href: String,
    pub(super) rel: String,
}

pub(super) fn link<'a>(links: &'a [Link], rel: &str) -> Option<&'a str> {
    links.iter().find(|l| l.rel.eq_ignore_ascii_case(rel)).map(|l| l.href.as_str())
}

/// The last path segment of a HATEOAS link under `prefix` (`…/v2/checkout/orders/{id}`).
pub(super) fn linked_id(links: &[Link], rel: &str, prefix: &str) -> Option<String> {
    let href = link(links, rel)?;
    let path = Url::parse(href).ok()?.path().to_owned();
    let id = path.split(prefix).nth(1)?.split('/').next()?;
    (!id.is_empty()).then(|| id.to_owned())
}

/// `{currency_code, value}` (v2 APIs).
#[derive(Deserialize)]
pub(super) struct PaypalMoney {
    pub(super) currency_code: String,
    pub(super) value: String,
}

impl PaypalMoney {
    pub(super) fn money(&self) -> Result<Money, String> {
        let currency = Currency::parse(&self.currency_code).map_err(|e| e.to_string())?;
        Money::parse_decimal(&self.value, currency).map_err(|e| e.to_string())
    }
}

#[derive(Deserialize)]
pub(super) struct Order {
    pub(super) id: String,
    #[serde(default)]
    pub(super) status: String,
    #[serde(default)]
    pub(super) purchase_units: Vec<PurchaseUnit>,
    #[serde(default)]
    pub(super) links: Vec<Link>,
}

#[derive(Deserialize)]
pub(super) struct PurchaseUnit {
    pub(super) custom_id: Option<String>,
    pub(super) invoice_id: Option<String>,
    pub(super) payments: Option<UnitPayments>,
}

#[derive(Deserialize)]
pub(super) struct UnitPayments {
    #[serde(default)]
    pub(super) captures: Vec<Capture>,
}

#[derive(Deserialize)]
pub(super) struct Capture {
    pub(super) id: String,
    #[serde(default)]
    pub(super) status: String,
    pub(super) amount: Option<PaypalMoney>,
    pub(super) custom_id: Option<String>,
    pub(super) invoice_id: Option<String>,
    pub(super) supplementary_data: Option<SupplementaryData>,
    pub(super) status_details: Option<StatusDetails>,
    #[serde(default)]
    pub(super) links: Vec<Link>,
}

#[derive(Deserialize)]
pub(super) struct SupplementaryData {
    pub(super) related_ids: Option<RelatedIds>,
}

#[derive(Deserialize)]
pub(super) struct RelatedIds {
    pub(super) order_id: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct StatusDetails {
    pub(super) reason: Option<String>,
}

impl Capture {
    /// PayPal's id of the order this capture belongs to.
    pub(super) fn paypal_order_id(&self) -> Option<String> {
        self.supplementary_data
            .as_ref()
            .and_then(|s| s.related_ids.as_ref())
            .and_then(|r| r.order_id.clone())
            .or_else(|| linked_id(&self.links, "up", "/v2/checkout/orders/"))
    }

    pub(super) fn order_ref(&self) -> Option<OrderRef> {
        order_ref(self.custom_id.as_deref(), self.invoice_id.as_deref(), self.paypal_order_id().as_deref())
    }

    pub(super) fn amount(&self) -> Result<Money, String> {
        let amount = self.amount.as_ref().ok_or_else(|| format!("capture {} has no amount", self.id))?;
        amount.money().map_err(|e| format!("capture {}: {e}", self.id))
    }

    pub(super) fn failure_reason(&self) -> String {
        let reason = self.status_details.as_ref().and_then(|d| d.reason.as_deref()).unwrap_or("");
        if reason.is_empty() {
            format!("PayPal capture {}", self.status.to_ascii_lowercase())
        } else {
            format!("PayPal capture {}: {reason}", self.status.to_ascii_lowercase())
        }
    }
}

#[derive(Deserialize)]
pub(super) struct Refund {
    pub(super) id: String,
    #[serde(default)]
    pub(super) status: String,
    pub(super) amount: Option<PaypalMoney>,
    pub(super) custom_id: Option<String>,
    pub(super) invoice_id: Option<String>,
    pub(super) supplementary_data: Option<SupplementaryData>,
    #[serde(default)]
    pub(super) links: Vec<Link>,
}

#[derive(Deserialize)]
pub(super) struct PaypalSubscription {
    pub(super) id: String,
    #[serde(default)]
    pub(super) status: String,
    pub(super) custom_id: Option<String>,
    pub(super) start_time: Option<String>,
    pub(super) billing_info: Option<BillingInfo>,
    #[serde(default)]
    pub(super) links: Vec<Link>,
}

#[derive(Deserialize)]
pub(super) struct BillingInfo {
    pub(super) next_billing_time: Option<String>,
}

impl PaypalSubscription {
    pub(super) fn reference(&self) -> SubscriptionRef {
        subscription_ref(self.custom_id.as_deref(), &self.id)
    }

    pub(super) fn period_end(&self) -> Option<i64> {
        self.billing_info.as_ref().and_then(|b| b.next_billing_time.as_deref()).and_then(parse_time)
    }
}

/// A v1 sale: a subscription's payment (`PAYMENT.SALE.*`).
#[derive(Deserialize)]
pub(super) struct Sale {
    pub(super) id: String,
    pub(super) amount: SaleAmount,
    pub(super) billing_agreement_id: Option<String>,
    pub(super) custom: Option<String>,
    pub(super) create_time: Option<String>,
}

/// `{total, currency}` (v1 APIs).
#[derive(Deserialize)]
pub(super) struct SaleAmount {
    pub(super) total: String,
    pub(super) currency: String,
}

impl SaleAmount {
    pub(super) fn money(&self) -> Result<Money, String> {
        let currency = Currency::parse(&self.currency).map_err(|e| e.to_string())?;
        Money::parse_decimal(&self.total, currency).map_err(|e| e.to_string())
    }
}

#[derive(Deserialize)]
pub(super) struct SaleRefund {
    pub(super) id: String,
    #[serde(default)]
    pub(super) state: String,
}

/// A webhook notification's envelope.
#[derive(Deserialize)]
pub(super) struct WebhookEvent {
    pub(super) event_type: String,
    #[serde(default)]
    pub(super) resource: Value,
}

/// Ours when PayPal echoes one of our order ids back (`custom_id`, `invoice_id`), else
/// PayPal's order id.
pub(super) fn order_ref(
    custom_id: Option<&str>,
    invoice_id: Option<&str>,
    paypal_order_id: Option<&str>,
) -> Option<OrderRef> {
    [custom_id, invoice_id]
        .into_iter()
        .flatten()
        .find_map(|id| OrderId::parse(id).ok())
        .map(OrderRef::Ours)
        .or_else(|| paypal_order_id.filter(|id| !id.is_empty()).map(|id| OrderRef::Provider(id.to_owned())))
}

pub(super) fn subscription_ref(custom_id: Option<&str>, paypal_id: &str) -> SubscriptionRef {
    custom_id
        .and_then(|id| SubscriptionId::parse(id).ok())
        .map(SubscriptionRef::Ours)
        .unwrap_or_else(|| SubscriptionRef::Provider(paypal_id.to_owned()))
}

/// Seconds since the epoch of an RFC 3339 time (`2024-05-01T10:00:00Z`, with or without
/// fractions, `Z` or an offset), as PayPal writes times.
pub(super) fn parse_time(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text.trim()).ok().map(|time| time.timestamp())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn paypal_times_are_read_with_fractions_and_offsets() {
        assert_eq!(parse_time("2016-02-18T20:01:35Z"), Some(1_455_825_695));
        assert_eq!(parse_time("2016-02-18T20:01:35.123Z"), Some(1_455_825_695));
        assert_eq!(parse_time("2016-02-18T12:01:35-08:00"), Some(1_455_825_695));
        assert_eq!(parse_time("18 Feb 2016"), None);
        assert_eq!(parse_time(""), None);
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
}
