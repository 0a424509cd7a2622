//! The money repositories: the coin ledger, orders with the provider transactions claimed
//! for them and their reversals, and subscriptions.

use amora_domain::account::UserId;
use amora_domain::money::{Coins, TxnId};
use amora_domain::payment::{Order, OrderId, OrderState, PaymentRoute, Subscription, SubscriptionId};
use async_trait::async_trait;

use crate::{StoreError, StoreResult};

/// How far back `OrderRepo::orders_since` reads, in days (the CQL store walks one
/// partition per day).
pub const ORDERS_SINCE_MAX_DAYS: i64 = 1000;

/// The earliest `created_at` `orders_since` reads, given the caller's `since` and now
/// (seconds): never more than [`ORDERS_SINCE_MAX_DAYS`] back.
pub fn orders_since_floor(since: i64, now: i64) -> i64 {
    since.max(now - ORDERS_SINCE_MAX_DAYS * 86_400)
}

/// Seconds since the epoch, now.
pub(crate) fn now_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// One change of a balance, keyed by an idempotency id: the same `txn_id` applied twice
/// changes the balance once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub user_id: UserId,
    pub txn_id: TxnId,
    /// Positive credits, negative debits.
    pub delta: Coins,
    pub reason: String,
    pub created_at: i64,
}

/// What applying an entry did, with the balance and the ledger's sequence number (rows
/// applied so far) it saw: a balance with a higher `seq` is the newer one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LedgerOutcome {
    /// The entry is new and the balance is now `balance`.
    Applied { balance: Coins, seq: i64 },
    /// An entry with this `txn_id` exists already; nothing changed.
    Replayed { balance: Coins, seq: i64 },
    /// The debit would overdraw; nothing changed.
    Insufficient { balance: Coins, seq: i64 },
    /// No such account.
    NoAccount,
}

/// The append-only coin ledger; the account's balance changes only with a new row, by
/// compare-and-set, so the balance always equals the sum of the rows.
#[async_trait]
pub trait LedgerRepo: Send + Sync {
    async fn apply(&self, entry: LedgerEntry) -> StoreResult<LedgerOutcome>;
    /// The balance and the ledger sequence it is at (the `seq` of the last row applied, 0
    /// before any), read together; `None` when there is no such account. A node reads it
    /// again after missing news (issue 36): the sequence keeps a late notice from undoing it.
    async fn balance(&self, user_id: &UserId) -> StoreResult<Option<(Coins, i64)>>;
    /// Every row of the account, oldest first.
    async fn rows(&self, user_id: &UserId) -> StoreResult<Vec<LedgerEntry>>;
}

/// What a provider's transaction did, as a payment claim records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaymentClaimKind {
    /// The money of an order arrived (a capture, a finished invoice, a notification).
    Payment,
    /// The money of a paid order went back by a refund.
    Refund,
    /// The money of a paid order went back by a chargeback (the buyer's bank took it).
    Chargeback,
    /// A subscription's provider charged another period.
    Renewal,
}

impl PaymentClaimKind {
    pub const ALL: [PaymentClaimKind; 4] =
        [PaymentClaimKind::Payment, PaymentClaimKind::Refund, PaymentClaimKind::Chargeback, PaymentClaimKind::Renewal];

    /// How every store writes the kind.
    pub fn code(self) -> &'static str {
        match self {
            PaymentClaimKind::Payment => "payment",
            PaymentClaimKind::Refund => "refund",
            PaymentClaimKind::Chargeback => "chargeback",
            PaymentClaimKind::Renewal => "renewal",
        }
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        PaymentClaimKind::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown payment claim kind {code:?}")))
    }

    /// Which claims exclude each other. Money in (a payment, a renewal) is one space, so a
    /// sale reported once as the first payment and once as a renewal credits once; money
    /// out is another, because some providers report a refund under the payment's own id
    /// (NOWPayments' `payment_id` keeps its id through `refunded`).
    pub fn space(self) -> &'static str {
        match self {
            PaymentClaimKind::Payment | PaymentClaimKind::Renewal => "in",
            PaymentClaimKind::Refund | PaymentClaimKind::Chargeback => "out",
        }
    }
}

/// One reversal of an order (a refund or a chargeback), as [`OrderRepo::reverse`] records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reversal {
    /// The provider's id of the refund or chargeback: a reversal counts once by it.
    pub provider_txn_id: String,
    /// The money it gave back, in the order's minor units.
    pub refunded_minor: i64,
    /// The order's price, in the same units.
    pub price_minor: i64,
    /// What the order credited (its ledger row; zero when it never did).
    pub credited: Coins,
    /// Seconds since the epoch.
    pub at: i64,
}

/// What an order's reversals gave back so far: money (capped at its price) and coins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReversalTotals {
    pub refunded_minor: i64,
    pub reversed: Coins,
}

/// The totals after `reversal`, given the totals `before` it (issue 28): the money given
/// back adds up to at most the price, and the coins taken back are that share of what the
/// order credited, rounded down, so that together they never pass `credited` (and the
/// whole price back takes back all of it, to the last coin). Never less than before.
pub fn reversal_totals(before: ReversalTotals, reversal: &Reversal) -> ReversalTotals {
    let price = reversal.price_minor.max(0);
    let refunded_minor = before.refunded_minor.saturating_add(reversal.refunded_minor.max(0)).clamp(0, price);
    let credited = reversal.credited.units().max(0);
    let due =
        if price == 0 { 0 } else { (i128::from(credited) * i128::from(refunded_minor) / i128::from(price)) as i64 };
    ReversalTotals { refunded_minor, reversed: Coins::stored(due.max(before.reversed.units())) }
}

/// A provider transaction, claimed once for one order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentClaim {
    pub route: PaymentRoute,
    /// The provider's id of the money movement (capture, sale, invoice payment, refund).
    pub provider_txn_id: String,
    pub order_id: OrderId,
    pub kind: PaymentClaimKind,
    /// Seconds since the epoch.
    pub claimed_at: i64,
}

/// Orders, by id, by the provider's reference and per user newest first (by `created_at`,
/// ties by the greater id), and the claims of provider transactions that make each payment
/// count once.
///
/// Orders are financial records: deleting an account leaves its orders and payment claims
/// in place (with the deleted user's id, which is never given to another account), for
/// refunds, chargebacks and the books. They hold no name, email or address, only the id.
#[async_trait]
pub trait OrderRepo: Send + Sync {
    /// Stores a new order as given; `Conflict("orderId")` when the id is taken.
    async fn create(&self, order: Order) -> StoreResult<()>;
    async fn get(&self, id: &OrderId) -> StoreResult<Option<Order>>;
    /// The order that carries the provider's reference `provider_ref` on `route`.
    async fn by_provider_ref(&self, route: PaymentRoute, provider_ref: &str) -> StoreResult<Option<Order>>;
    /// Records the provider's id of the order (set once): true when the order now carries
    /// `provider_ref` (set now, or set to it before), false when there is no such order or
    /// it carries another one. `Conflict("providerRef")` when another order of the same
    /// route carries it.
    async fn set_provider_ref(&self, id: &OrderId, provider_ref: &str) -> StoreResult<bool>;
    /// Moves the order from `from` to `to` at `at` (its `updated_at`), by compare-and-set:
    /// only when it is stored in `from` and `from.may_become(to)`. True when this call moved
    /// it; false (nothing changed) otherwise. Of any number of concurrent calls on any nodes,
    /// one moves it.
    async fn transition(&self, id: &OrderId, from: OrderState, to: OrderState, at: i64) -> StoreResult<bool>;
    /// The user's newest orders first, at most `limit` (the operator's listing too).
    async fn list_for_user(&self, user_id: &UserId, limit: u32) -> StoreResult<Vec<Order>>;
    /// Every user's orders created at or after `since` (seconds), newest first (by
    /// `created_at`, ties by the greater id), at most `limit`: the operator's Money desk.
    /// Reads at most [`ORDERS_SINCE_MAX_DAYS`] back from now (an earlier `since` is read
    /// as that), and orders stamped up to a day in the future.
    async fn orders_since(&self, since: i64, limit: u32) -> StoreResult<Vec<Order>>;
    /// The user's newest order (`getUserLastFlowId`).
    async fn latest_for_user(&self, user_id: &UserId) -> StoreResult<Option<Order>>;
    /// Claims the provider transaction `provider_txn_id` on `route` for `order_id`: true for
    /// exactly one of any number of concurrent calls, false for every other, ever. Claims
    /// are unique per route and per `kind.space()`: a payment and a renewal exclude each
    /// other, a refund is claimed apart.
    ///
    /// A caller that made the claim and then failed before finishing its work leaves the
    /// claim taken; a redelivery reads it back with `payment_claim` and, when it names the
    /// same order, may finish the work, which must itself be idempotent (a ledger row keyed
    /// by the claim).
    async fn claim_payment(
        &self,
        route: PaymentRoute,
        provider_txn_id: &str,
        order_id: &OrderId,
        kind: PaymentClaimKind,
        at: i64,
    ) -> StoreResult<bool>;
    /// The claim of `provider_txn_id` on `route` in `kind`'s space, whichever kind took it.
    async fn payment_claim(
        &self,
        route: PaymentRoute,
        kind: PaymentClaimKind,
        provider_txn_id: &str,
    ) -> StoreResult<Option<PaymentClaim>>;
    /// The claims made for an order (its payment, renewals, refunds), oldest first; what a
    /// refund names at the processor.
    async fn claims_of(&self, order_id: &OrderId) -> StoreResult<Vec<PaymentClaim>>;
    /// Records a reversal of the order and answers the coins it takes back: the growth of
    /// [`reversal_totals`] over the order's earlier reversals, so that all of them together
    /// never take back more than the order credited (issue 28). Atomic: of concurrent
    /// reversals of one order on any nodes, each sees the others'. The same
    /// `provider_txn_id` again answers what it took the first time and changes nothing.
    async fn reverse(&self, order_id: &OrderId, reversal: Reversal) -> StoreResult<Coins>;
    /// What the order's reversals gave back so far.
    async fn reversed(&self, order_id: &OrderId) -> StoreResult<ReversalTotals>;
}

/// Plans bought as subscriptions, by id, by the provider's reference and per user newest
/// first (by `created_at`, ties by the greater id). Their state changes only by the
/// compare-and-set methods below, each of which answers whether it applied; of concurrent
/// calls that would make the same change, one applies.
///
/// Like orders, subscriptions stay when the account is deleted (the service cancels a
/// renewing one at its provider first); their period end no longer grants anything to anyone.
#[async_trait]
pub trait SubscriptionRepo: Send + Sync {
    /// Stores a new subscription as given; `Conflict("subscriptionId")` when the id is taken.
    async fn create(&self, subscription: Subscription) -> StoreResult<()>;
    async fn get(&self, id: &SubscriptionId) -> StoreResult<Option<Subscription>>;
    /// The subscription that carries the provider's reference on `route` (PayPal's `I-…`).
    async fn by_provider_ref(&self, route: PaymentRoute, provider_ref: &str) -> StoreResult<Option<Subscription>>;
    /// As `OrderRepo::set_provider_ref`: set once; `Conflict("providerRef")` when another
    /// subscription of the route carries it.
    async fn set_provider_ref(&self, id: &SubscriptionId, provider_ref: &str) -> StoreResult<bool>;
    /// The user's subscriptions, newest first.
    async fn list_for_user(&self, user_id: &UserId) -> StoreResult<Vec<Subscription>>;
    /// The first payment arrived: Pending → Active, with the period it paid for.
    async fn activate(&self, id: &SubscriptionId, started_at: i64, period_end: i64, at: i64) -> StoreResult<bool>;
    /// Another period was paid: moves `current_period_end` to `period_end`, only forward
    /// (a later end than the stored one), never back, and leaves the state as it is. Applies
    /// to an Active subscription, and to a Cancelled one, since a renewal charged just before
    /// the cancellation still paid for its period; never to a Pending or Ended one.
    async fn renew(&self, id: &SubscriptionId, period_end: i64, at: i64) -> StoreResult<bool>;
    /// Stops renewal: Active → Cancelled. The period end stays, and with it the access
    /// already paid for (`Subscription::grants_access`).
    async fn cancel(&self, id: &SubscriptionId, at: i64) -> StoreResult<bool>;
    /// Ends it now, whatever it was (never paid, refunded, period over, the operator):
    /// Pending, Active or Cancelled → Ended. The period end stays as a record.
    async fn end(&self, id: &SubscriptionId, at: i64) -> StoreResult<bool>;
}
