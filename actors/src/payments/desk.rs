//! What the operator's Money desk reads through `Billing` (issue 33): every user's orders
//! since a time, the refunds of refunded orders (their claims and what they gave back),
//! and the payment notifications that failed after verification, with their replays.

use amora_domain::payment::{Order, OrderState};
use amora_store::{FailedWebhook, PaymentClaim, PaymentClaimKind, ReversalTotals, WebhookReplay};

use super::{Billing, BillingError};

/// A refunded order, with what its reversals gave back and the provider transactions that
/// did (refunds and chargebacks, each claim saying which), oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundedOrder {
    pub order: Order,
    pub totals: ReversalTotals,
    pub refunds: Vec<PaymentClaim>,
    /// Its money had arrived before it went back (a sale to count in revenue); false for
    /// an order refunded unpaid, such as a partial crypto payment sent back.
    pub was_paid: bool,
}

impl Billing {
    /// Every user's orders made at or after `since` (seconds), newest first, at most `limit`.
    pub async fn orders_since(&self, since: i64, limit: u32) -> Result<Vec<Order>, BillingError> {
        Ok(self.store.orders.orders_since(since, limit).await?)
    }

    /// The refunded ones of `orders` with their reversals (any reversal moves an order to
    /// refunded, so the others have none).
    pub async fn refunds_of(&self, orders: &[Order]) -> Result<Vec<RefundedOrder>, BillingError> {
        let mut refunded = Vec::new();
        for order in orders.iter().filter(|order| order.state == OrderState::Refunded) {
            let totals = self.store.orders.reversed(&order.order_id).await?;
            let (refunds, payments): (Vec<PaymentClaim>, Vec<PaymentClaim>) = self
                .store
                .orders
                .claims_of(&order.order_id)
                .await?
                .into_iter()
                .partition(|claim| claim.kind.space() == PaymentClaimKind::Refund.space());
            let was_paid = !payments.is_empty() || totals.reversed.units() > 0;
            refunded.push(RefundedOrder { order: order.clone(), totals, refunds, was_paid });
        }
        Ok(refunded)
    }

    /// Keeps a notification that was verified and then could not be applied.
    pub async fn record_failed_webhook(&self, delivery: FailedWebhook) -> Result<(), BillingError> {
        Ok(self.store.webhooks.record_failed_webhook(delivery).await?)
    }

    pub async fn failed_webhook(&self, delivery_id: i64) -> Result<Option<FailedWebhook>, BillingError> {
        Ok(self.store.webhooks.failed_webhook(delivery_id).await?)
    }

    /// The newest failed notifications first, at most `limit`.
    pub async fn failed_webhooks(&self, limit: u32) -> Result<Vec<FailedWebhook>, BillingError> {
        Ok(self.store.webhooks.failed_webhooks(limit).await?)
    }

    pub async fn record_webhook_replay(&self, delivery_id: i64, replay: WebhookReplay) -> Result<bool, BillingError> {
        Ok(self.store.webhooks.record_webhook_replay(delivery_id, replay).await?)
    }
}
