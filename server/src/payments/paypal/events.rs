//! What PayPal's webhook events and answers mean for Amora: each event type mapped to the
//! payment events the gateway applies (paid, pending, failed, refunded, subscription
//! activated, renewed or cancelled).

use serde_json::Value;

use super::types::{Capture, Order, PaypalSubscription, Refund, Sale, order_ref, parse_time, subscription_ref};
use super::{PaypalProvider, bad, parse_resource};
use crate::payments::{OrderRef, PaymentEvent, ProviderError, ReversalKind};

/// A subscription's sale this soon after the subscription started is its first payment
/// (already reported as the activation), later ones are renewals. Every plan period is at
/// least a calendar month, and PayPal retries a failed first payment within days.
const FIRST_PAYMENT_WINDOW_SECS: i64 = 14 * 86_400;

/// What PayPal's order says happened to the money: a completed capture is `Paid`.
pub(super) fn events_of_order(order: &Order) -> Result<Vec<PaymentEvent>, ProviderError> {
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

fn order_ref_of_order(order: &Order) -> Option<OrderRef> {
    let unit = order.purchase_units.first();
    order_ref(unit.and_then(|u| u.custom_id.as_deref()), unit.and_then(|u| u.invoice_id.as_deref()), Some(&order.id))
}

impl PaypalProvider {
    /// The events a verified notification carries. Events not listed give none (and are
    /// still acknowledged, so PayPal stops sending them).
    pub(super) async fn events_of(
        &self,
        event_type: &str,
        resource: Value,
    ) -> Result<Vec<PaymentEvent>, ProviderError> {
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
            // A refund we (or the operator at PayPal) made, or PayPal reversing the capture
            // (its event list: "PayPal reverses a payment capture", what a chargeback or a
            // lost dispute does): both carry a refund, keyed by its own id so each partial
            // refund counts once.
            "PAYMENT.CAPTURE.REFUNDED" | "PAYMENT.CAPTURE.REVERSED" => {
                let kind = match event_type {
                    "PAYMENT.CAPTURE.REVERSED" => ReversalKind::Chargeback,
                    _ => ReversalKind::Refund,
                };
                let refund: Refund = parse_resource(event_type, resource)?;
                let amount = refund
                    .amount
                    .as_ref()
                    .ok_or_else(|| bad(format!("refund {} has no amount", refund.id)))?
                    .money()
                    .map_err(bad)?;
                let order = self.order_of_refund(&refund).await?;
                Ok(vec![PaymentEvent::Refunded { order, provider_txn_id: refund.id, amount, kind }])
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
