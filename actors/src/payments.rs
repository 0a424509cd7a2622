//! `Billing`: orders, plans and what payments do to money (ARCHITECTURE.md "Payments").
//! An order is priced from the catalogue when it is made; a processor's verified event
//! moves it (created → pending → paid | failed | expired, paid → refunded) and credits the
//! ledger through the user's actor, exactly once per processor transaction: the
//! transaction is claimed in the store first (so it can never count for another order),
//! and the ledger row's id is derived from the order or the transaction (so a repeat, or a
//! capture racing its webhook, is a replay). Plans are subscriptions; the best plan in force
//! decides `userVipType`, which the user's actor reads with the account.
//!
//! The processors themselves (their protocols, signatures and HTTP) are the server's
//! `payments` module; this one never speaks to them.

mod desk;

pub use desk::RefundedOrder;

use std::collections::HashMap;
use std::sync::Arc;

use actix::Addr;
use amora_domain::account::UserId;
use amora_domain::money::{Coins, TxnId};
use amora_domain::payment::{
    Currency, Money, Order, OrderId, OrderRef, OrderState, PaymentEvent, PaymentRoute, PlanPeriod, ProductId,
    ReversalKind, Subscription, SubscriptionId, SubscriptionRef, SubscriptionState, add_months,
};
use amora_store::{LedgerOutcome, PaymentClaimKind, Reversal, Store, StoreError};
use prometheus::{IntCounterVec, Opts};

use crate::bus::{EventBus, UserNotice};
use crate::registry::Registry;
use crate::user::UserAddr;
use crate::user::{Credit, Debit};
use crate::wire::events::ServerEvent;

/// One product's price and what it gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub product: ProductId,
    pub price: Money,
    /// What a plan costs before its discount (shown struck through); a package's price.
    pub original_price: Money,
    /// A package's coins, or a plan's coins per period.
    pub coins: Coins,
    /// Percent off a plan's first period as the pricing page advertises it ("Up to 70% OFF").
    pub first_subscription_discount: u8,
}

/// Everything that can be bought, with its price: the server's `catalogue.*` settings.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    offers: HashMap<ProductId, Offer>,
}

impl Catalogue {
    pub fn new(offers: impl IntoIterator<Item = Offer>) -> Self {
        Self { offers: offers.into_iter().map(|offer| (offer.product, offer)).collect() }
    }

    pub fn offer(&self, product: ProductId) -> Option<&Offer> {
        self.offers.get(&product)
    }

    /// Every offer in the order of `ProductId::ALL`.
    pub fn offers(&self) -> Vec<&Offer> {
        ProductId::ALL.iter().filter_map(|product| self.offers.get(product)).collect()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BillingError {
    #[error("{0} is not for sale")]
    NotForSale(ProductId),
    /// A plan while another is in force (until this time, seconds).
    #[error("you already have a plan until {until}")]
    PlanInForce { until: i64 },
    #[error("no such order")]
    UnknownOrder,
    #[error("no such subscription")]
    UnknownSubscription,
    /// What a processor reported does not match the order (amount, currency, route).
    #[error("the processor's event does not match the order: {0}")]
    Mismatch(String),
    /// The subscription does not renew (already cancelled, ended, or never paid).
    #[error("this subscription does not renew")]
    NotRenewing,
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("actor: {0}")]
    Actor(String),
}

/// What a user should be told by mail after an event (receipts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receipt {
    Paid { user_id: UserId, order: Order, coins: Coins },
    Renewed { user_id: UserId, order: Order, coins: Coins, period_end: i64 },
    Cancelled { user_id: UserId, subscription: Subscription },
    Refunded { user_id: UserId, order: Order, coins: Coins },
}

/// Orders by route and the state they reached, for `/metrics`.
#[derive(Clone)]
pub struct BillingMetrics {
    orders: IntCounterVec,
}

impl BillingMetrics {
    pub fn new() -> Self {
        let orders = IntCounterVec::new(
            Opts::new("amora_payment_orders_total", "Orders by payment route and the state they reached"),
            &["route", "state"],
        )
        .unwrap_or_else(|e| unreachable!("static counter options are valid: {e}"));
        Self { orders }
    }

    pub fn register(&self, registry: &prometheus::Registry) -> prometheus::Result<()> {
        registry.register(Box::new(self.orders.clone()))
    }

    fn reached(&self, route: PaymentRoute, state: OrderState) {
        self.orders.with_label_values(&[route.code(), state.code()]).inc();
    }
}

impl Default for BillingMetrics {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Clone)]
pub struct Billing {
    store: Store,
    bus: EventBus,
    registry: Addr<Registry>,
    catalogue: Arc<Catalogue>,
    metrics: BillingMetrics,
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// 24 random letters and digits, for a new order or subscription id.
fn random_id_part() -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..24).map(|_| rng.sample(rand::distributions::Alphanumeric) as char).collect()
}

/// A renewal's order id, the same for every delivery of the same processor transaction.
fn renewal_order_id(route: PaymentRoute, provider_txn_id: &str) -> Result<OrderId, BillingError> {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{}:{provider_txn_id}", route.code()).as_bytes());
    let hex: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    OrderId::from_random(&hex).map_err(|e| BillingError::Mismatch(e.to_string()))
}

impl Billing {
    pub fn new(store: Store, bus: EventBus, registry: Addr<Registry>, catalogue: Catalogue) -> Self {
        Self { store, bus, registry, catalogue: Arc::new(catalogue), metrics: BillingMetrics::new() }
    }

    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    pub fn metrics(&self) -> &BillingMetrics {
        &self.metrics
    }

    /// A new order of `product` through `route`, priced from the catalogue; for a plan, its
    /// subscription too (pending until paid). A plan is refused while one is in force.
    pub async fn open_order(
        &self,
        user_id: &UserId,
        product: ProductId,
        route: PaymentRoute,
    ) -> Result<(Order, Option<Subscription>), BillingError> {
        let offer = self.catalogue.offer(product).ok_or(BillingError::NotForSale(product))?;
        let at = now();
        let subscription = match product {
            ProductId::Plan(period) => {
                let subscriptions = self.store.subscriptions.list_for_user(user_id).await?;
                if let Some(until) =
                    subscriptions.iter().filter(|s| s.grants_access(at)).map(|s| s.current_period_end).max()
                {
                    return Err(BillingError::PlanInForce { until });
                }
                let subscription = Subscription {
                    subscription_id: SubscriptionId::from_random(&random_id_part())
                        .map_err(|e| BillingError::Mismatch(e.to_string()))?,
                    user_id: user_id.clone(),
                    period,
                    route,
                    provider_ref: None,
                    state: SubscriptionState::Pending,
                    started_at: 0,
                    current_period_end: 0,
                    created_at: at,
                    updated_at: at,
                };
                self.store.subscriptions.create(subscription.clone()).await?;
                Some(subscription)
            }
            ProductId::Coins(_) => None,
        };
        let order = Order {
            order_id: OrderId::from_random(&random_id_part()).map_err(|e| BillingError::Mismatch(e.to_string()))?,
            user_id: user_id.clone(),
            product,
            route,
            amount: offer.price.clone(),
            state: OrderState::Created,
            provider_ref: None,
            subscription_id: subscription.as_ref().map(|s| s.subscription_id.clone()),
            created_at: at,
            updated_at: at,
        };
        self.store.orders.create(order.clone()).await?;
        self.metrics.reached(route, OrderState::Created);
        Ok((order, subscription))
    }

    /// The processor opened its checkout: the order is pending under the processor's id
    /// (for a plan the processor renews, the subscription carries its id too).
    pub async fn checkout_opened(
        &self,
        order: &Order,
        provider_ref: &str,
        subscription_ref: Option<&str>,
    ) -> Result<(), BillingError> {
        self.store.orders.set_provider_ref(&order.order_id, provider_ref).await?;
        if let (Some(subscription_id), Some(reference)) = (&order.subscription_id, subscription_ref) {
            self.store.subscriptions.set_provider_ref(subscription_id, reference).await?;
        }
        self.transition(order, OrderState::Pending).await?;
        Ok(())
    }

    /// The processor could not open a checkout: nothing was charged, the order failed.
    pub async fn checkout_failed(&self, order: &Order) -> Result<(), BillingError> {
        self.transition(order, OrderState::Failed).await?;
        if let Some(subscription_id) = &order.subscription_id {
            self.store.subscriptions.end(subscription_id, now()).await?;
        }
        Ok(())
    }

    /// Acts on one verified event of `route`'s processor; answers the receipts to send.
    /// Safe to call again with the same event, or concurrently: it changes things once.
    pub async fn apply(&self, route: PaymentRoute, event: PaymentEvent) -> Result<Vec<Receipt>, BillingError> {
        match event {
            PaymentEvent::Paid { order, provider_txn_id, amount } => {
                let order = self.order(route, &order).await?;
                self.paid(route, order, &provider_txn_id, &amount).await
            }
            PaymentEvent::Pending { order } => {
                let order = self.order(route, &order).await?;
                self.transition(&order, OrderState::Pending).await?;
                Ok(Vec::new())
            }
            PaymentEvent::PartiallyPaid { order, amount } => {
                let order = self.order(route, &order).await?;
                tracing::info!(order = %order.order_id, paid = %amount.decimal(), of = %order.amount.decimal(), "partly paid");
                self.transition(&order, OrderState::Pending).await?;
                Ok(Vec::new())
            }
            PaymentEvent::Failed { order, reason } => {
                let order = self.order(route, &order).await?;
                tracing::info!(order = %order.order_id, %reason, "payment failed");
                self.closed_unpaid(order, OrderState::Failed).await
            }
            PaymentEvent::Expired { order } => {
                let order = self.order(route, &order).await?;
                self.closed_unpaid(order, OrderState::Expired).await
            }
            PaymentEvent::Refunded { order, provider_txn_id, amount, kind } => {
                let order = self.order(route, &order).await?;
                self.refunded(route, order, &provider_txn_id, &amount, kind).await
            }
            PaymentEvent::SubscriptionActivated { subscription, period_end } => {
                let subscription = self.subscription(route, &subscription).await?;
                self.activated(subscription, period_end).await
            }
            PaymentEvent::SubscriptionRenewed { subscription, provider_txn_id, amount, period_end } => {
                let subscription = self.subscription(route, &subscription).await?;
                self.renewed(route, subscription, &provider_txn_id, &amount, period_end).await
            }
            PaymentEvent::SubscriptionCancelled { subscription } => {
                let subscription = self.subscription(route, &subscription).await?;
                self.cancelled(subscription).await
            }
        }
    }

    async fn order(&self, route: PaymentRoute, reference: &OrderRef) -> Result<Order, BillingError> {
        let order = match reference {
            OrderRef::Ours(id) => self.store.orders.get(id).await?,
            OrderRef::Provider(provider_ref) => self.store.orders.by_provider_ref(route, provider_ref).await?,
        };
        let order = order.ok_or(BillingError::UnknownOrder)?;
        if order.route != route {
            return Err(BillingError::Mismatch(format!("order {} is not a {} order", order.order_id, route.code())));
        }
        Ok(order)
    }

    async fn subscription(
        &self,
        route: PaymentRoute,
        reference: &SubscriptionRef,
    ) -> Result<Subscription, BillingError> {
        let subscription = match reference {
            SubscriptionRef::Ours(id) => self.store.subscriptions.get(id).await?,
            SubscriptionRef::Provider(provider_ref) => {
                self.store.subscriptions.by_provider_ref(route, provider_ref).await?
            }
        };
        let subscription = subscription.ok_or(BillingError::UnknownSubscription)?;
        if subscription.route != route {
            return Err(BillingError::Mismatch(format!(
                "{} is not a {} subscription",
                subscription.subscription_id,
                route.code()
            )));
        }
        Ok(subscription)
    }

    /// Moves the order if it may move; true when this call moved it (it is told once).
    async fn transition(&self, order: &Order, to: OrderState) -> Result<bool, BillingError> {
        let current = self.store.orders.get(&order.order_id).await?.ok_or(BillingError::UnknownOrder)?;
        if !current.state.may_become(to) {
            return Ok(false);
        }
        let moved = self.store.orders.transition(&order.order_id, current.state, to, now()).await?;
        if moved {
            self.metrics.reached(order.route, to);
            if to.is_final() {
                let event = ServerEvent::PaymentResult {
                    order_id: order.order_id.clone(),
                    product_id: order.product,
                    status: to,
                };
                self.bus.publish(&order.user_id, event).await;
            }
        }
        Ok(moved)
    }

    fn expect_amount(order_amount: &Money, reported: &Money) -> Result<(), BillingError> {
        if order_amount != reported {
            return Err(BillingError::Mismatch(format!(
                "paid {} {} for an order of {} {}",
                reported.decimal(),
                reported.currency,
                order_amount.decimal(),
                order_amount.currency
            )));
        }
        Ok(())
    }

    /// Claims the processor's transaction for this order; a transaction already claimed for
    /// another order is refused (it can never pay for two).
    async fn claim(
        &self,
        route: PaymentRoute,
        provider_txn_id: &str,
        order_id: &OrderId,
        kind: PaymentClaimKind,
    ) -> Result<(), BillingError> {
        if self.store.orders.claim_payment(route, provider_txn_id, order_id, kind, now()).await? {
            return Ok(());
        }
        match self.store.orders.payment_claim(route, kind, provider_txn_id).await? {
            Some(claim) if &claim.order_id == order_id => Ok(()),
            Some(claim) => Err(BillingError::Mismatch(format!(
                "transaction {provider_txn_id} already paid for order {}",
                claim.order_id
            ))),
            // Claimed in the other space of money (a refund id reused as a payment's): refused.
            None => Err(BillingError::Mismatch(format!("transaction {provider_txn_id} is already claimed"))),
        }
    }

    async fn credit(
        &self,
        user_id: &UserId,
        coins: Coins,
        reason: &str,
        txn_id: TxnId,
    ) -> Result<LedgerOutcome, BillingError> {
        self.through_actor(user_id, Credit { amount: coins, reason: reason.to_owned(), txn_id }).await
    }

    async fn debit(
        &self,
        user_id: &UserId,
        coins: Coins,
        reason: &str,
        txn_id: TxnId,
    ) -> Result<LedgerOutcome, BillingError> {
        self.through_actor(user_id, Debit { amount: coins, reason: reason.to_owned(), txn_id }).await
    }

    /// A balance change through the user's actor, which orders it and tells every node.
    async fn through_actor<M>(&self, user_id: &UserId, change: M) -> Result<LedgerOutcome, BillingError>
    where
        M: actix::Message<Result = Result<LedgerOutcome, crate::user::UserError>> + Send + 'static,
        crate::user::UserActor: actix::Handler<M>,
    {
        let actor =
            self.registry.send(UserAddr(user_id.clone())).await.map_err(|e| BillingError::Actor(e.to_string()))?;
        actor
            .send(change)
            .await
            .map_err(|e| BillingError::Actor(e.to_string()))?
            .map_err(|e| BillingError::Actor(e.to_string()))
    }

    fn coins_of(&self, product: ProductId) -> Coins {
        self.catalogue.offer(product).map_or(Coins::ZERO, |offer| offer.coins)
    }

    /// The user's plan changed: every node's actor of theirs reads the account again (and
    /// with it `userVipType`), and the user's sockets hear `tokenCount`.
    async fn plan_changed(&self, user_id: &UserId) {
        self.bus.notify(user_id, UserNotice::AccountChanged).await;
    }

    async fn paid(
        &self,
        route: PaymentRoute,
        order: Order,
        provider_txn_id: &str,
        amount: &Money,
    ) -> Result<Vec<Receipt>, BillingError> {
        Self::expect_amount(&order.amount, amount)?;
        self.claim(route, provider_txn_id, &order.order_id, PaymentClaimKind::Payment).await?;
        // The money of a refunded order went back: a payment reported after its refund
        // credits nothing (issue 28).
        let stored = self.store.orders.get(&order.order_id).await?.ok_or(BillingError::UnknownOrder)?;
        if stored.state == OrderState::Refunded {
            tracing::warn!(order = %order.order_id, "a payment reported after the order's refund; nothing credited");
            return Ok(Vec::new());
        }
        let coins = self.coins_of(order.product);
        let mut receipts = Vec::new();
        // Keyed by the order: one order pays once, whichever event (capture, webhook,
        // activation) says so first.
        let reason = format!("{} bought through {}", order.product, route.code());
        let txn_id = TxnId::derived("order", &[order.order_id.as_str()]);
        if coins > Coins::ZERO {
            self.credit(&order.user_id, coins, &reason, txn_id).await?;
        }
        if self.transition(&order, OrderState::Paid).await? {
            receipts.push(Receipt::Paid { user_id: order.user_id.clone(), order: order.clone(), coins });
        } else if self.store.orders.get(&order.order_id).await?.map(|o| o.state) == Some(OrderState::Refunded) {
            // Refunded between the check above and the credit: the refund saw no credit
            // and took nothing, so this takes back what the whole refund is owed now.
            let reversal = format!("late-credit:{}", order.order_id);
            // The ledger row is worded as the reversal that came first was.
            let claims = self.store.orders.claims_of(&order.order_id).await?;
            let kind = if claims.iter().any(|claim| claim.kind == PaymentClaimKind::Chargeback) {
                ReversalKind::Chargeback
            } else {
                ReversalKind::Refund
            };
            self.take_back(route, &order, &reversal, 0, kind).await?;
            return Ok(Vec::new());
        }
        if let Some(subscription_id) = &order.subscription_id
            && let Some(subscription) = self.store.subscriptions.get(subscription_id).await?
        {
            self.start_period(&subscription, None).await?;
            // On a route whose processor does not renew, the plan is this one period: it
            // shows "ends on", and the member buys the next period when they want it.
            if !route.renews_plans() && self.store.subscriptions.cancel(subscription_id, now()).await? {
                self.plan_changed(&order.user_id).await;
            }
        }
        Ok(receipts)
    }

    /// A paid plan starts its first period (idempotent: a started one stays as it is).
    async fn start_period(&self, subscription: &Subscription, period_end: Option<i64>) -> Result<(), BillingError> {
        let at = now();
        let end = period_end.filter(|end| *end > at).unwrap_or_else(|| add_months(at, subscription.period.months()));
        if self.store.subscriptions.activate(&subscription.subscription_id, at, end, at).await? {
            self.plan_changed(&subscription.user_id).await;
        }
        Ok(())
    }

    /// The subscription's first payment went through at a processor that reports
    /// subscriptions, not orders (PayPal): its order is paid and the first period starts.
    async fn activated(
        &self,
        subscription: Subscription,
        period_end: Option<i64>,
    ) -> Result<Vec<Receipt>, BillingError> {
        let mut receipts = Vec::new();
        let first_order = self
            .store
            .orders
            .list_for_user(&subscription.user_id, 50)
            .await?
            .into_iter()
            .find(|order| order.subscription_id.as_ref() == Some(&subscription.subscription_id));
        if let Some(order) = first_order {
            let coins = self.coins_of(order.product);
            let txn_id = TxnId::derived("order", &[order.order_id.as_str()]);
            if coins > Coins::ZERO {
                let reason = format!("{} bought through {}", order.product, order.route.code());
                self.credit(&order.user_id, coins, &reason, txn_id).await?;
            }
            if self.transition(&order, OrderState::Paid).await? {
                receipts.push(Receipt::Paid { user_id: order.user_id.clone(), order: order.clone(), coins });
            }
        }
        self.start_period(&subscription, period_end).await?;
        Ok(receipts)
    }

    async fn renewed(
        &self,
        route: PaymentRoute,
        subscription: Subscription,
        provider_txn_id: &str,
        amount: &Money,
        period_end: Option<i64>,
    ) -> Result<Vec<Receipt>, BillingError> {
        let product = ProductId::Plan(subscription.period);
        let offer = self.catalogue.offer(product).ok_or(BillingError::NotForSale(product))?;
        Self::expect_amount(&offer.price, amount)?;
        // Each renewal is an order of its own (a receipt, a line in the user's payments),
        // named after the transaction so that a repeat finds the same one.
        let order_id = renewal_order_id(route, provider_txn_id)?;
        self.claim(route, provider_txn_id, &order_id, PaymentClaimKind::Renewal).await?;
        let at = now();
        let order = Order {
            order_id: order_id.clone(),
            user_id: subscription.user_id.clone(),
            product,
            route,
            amount: amount.clone(),
            state: OrderState::Created,
            provider_ref: None,
            subscription_id: Some(subscription.subscription_id.clone()),
            created_at: at,
            updated_at: at,
        };
        match self.store.orders.create(order.clone()).await {
            Ok(()) | Err(StoreError::Conflict(_)) => {}
            Err(error) => return Err(error.into()),
        }
        let txn_id = TxnId::derived("order", &[order_id.as_str()]);
        self.credit(&subscription.user_id, offer.coins, &format!("{product} renewed through {}", route.code()), txn_id)
            .await?;
        let base = subscription.current_period_end.max(at);
        let end = period_end.filter(|end| *end > at).unwrap_or_else(|| add_months(base, subscription.period.months()));
        let moved = self.transition(&order, OrderState::Paid).await?;
        if self.store.subscriptions.renew(&subscription.subscription_id, end, at).await? {
            self.plan_changed(&subscription.user_id).await;
        }
        if moved {
            let receipt =
                Receipt::Renewed { user_id: subscription.user_id.clone(), order, coins: offer.coins, period_end: end };
            return Ok(vec![receipt]);
        }
        Ok(Vec::new())
    }

    async fn cancelled(&self, subscription: Subscription) -> Result<Vec<Receipt>, BillingError> {
        if self.store.subscriptions.cancel(&subscription.subscription_id, now()).await? {
            self.plan_changed(&subscription.user_id).await;
            let subscription =
                self.store.subscriptions.get(&subscription.subscription_id).await?.unwrap_or(subscription);
            return Ok(vec![Receipt::Cancelled { user_id: subscription.user_id.clone(), subscription }]);
        }
        Ok(Vec::new())
    }

    async fn closed_unpaid(&self, order: Order, state: OrderState) -> Result<Vec<Receipt>, BillingError> {
        self.transition(&order, state).await?;
        if let Some(subscription_id) = &order.subscription_id
            && let Some(subscription) = self.store.subscriptions.get(subscription_id).await?
            && subscription.state == SubscriptionState::Pending
        {
            self.store.subscriptions.end(subscription_id, now()).await?;
        }
        Ok(Vec::new())
    }

    /// What the order credited: its ledger row (`order:<id>`), which every path that pays
    /// an order writes; zero when it never paid. Read from the ledger itself, so orders paid
    /// before reversals were recorded count the same.
    async fn credited(&self, order: &Order) -> Result<Coins, BillingError> {
        let txn_id = TxnId::derived("order", &[order.order_id.as_str()]);
        let rows = self.store.ledger.rows(&order.user_id).await?;
        Ok(rows.into_iter().find(|row| row.txn_id == txn_id).map_or(Coins::ZERO, |row| row.delta.max(Coins::ZERO)))
    }

    /// Records the reversal `reversal_id` of `order` (which gave back `refunded_minor` of its
    /// price) and takes back the coins it is owed: its share of what the order credited,
    /// so that all of an order's reversals together take back at most that (issue 28).
    /// Each taking is a ledger row keyed by the reversal; a repeat is a replay. Answers the
    /// coins taken.
    async fn take_back(
        &self,
        route: PaymentRoute,
        order: &Order,
        reversal_id: &str,
        refunded_minor: i64,
        kind: ReversalKind,
    ) -> Result<Coins, BillingError> {
        let credited = self.credited(order).await?;
        let reversal = Reversal {
            provider_txn_id: reversal_id.to_owned(),
            refunded_minor,
            price_minor: i64::try_from(order.amount.minor).unwrap_or(i64::MAX),
            credited,
            at: now(),
        };
        let share = self.store.orders.reverse(&order.order_id, reversal).await?;
        if share <= Coins::ZERO {
            tracing::info!(order = %order.order_id, reversal = reversal_id, %credited, "a reversal with nothing left to take back");
            return Ok(Coins::ZERO);
        }
        let txn_id = TxnId::derived("refund", &[route.code(), reversal_id]);
        // The transaction ids stay "refund…" for both kinds: they are the reversal's
        // idempotency key, and a chargeback is a reversal like any other.
        let reason = format!("{} of {} ({})", kind.code(), order.order_id, route.code());
        Ok(match self.debit(&order.user_id, share, &reason, txn_id).await? {
            LedgerOutcome::Applied { .. } | LedgerOutcome::Replayed { .. } => share,
            // Spent already: take what is left, in a row of its own.
            LedgerOutcome::Insufficient { balance, .. } if balance > Coins::ZERO => {
                let rest = TxnId::derived("refund-rest", &[route.code(), reversal_id]);
                let took = balance.min(share);
                self.debit(&order.user_id, took, &reason, rest).await?;
                tracing::warn!(order = %order.order_id, wanted = %share, %took, "a refund took back only what was left");
                took
            }
            LedgerOutcome::Insufficient { .. } | LedgerOutcome::NoAccount => Coins::ZERO,
        })
    }

    /// Money went back (a refund or a chargeback): the order is refunded whatever state it
    /// was in, and takes back its share of what it credited, never more in all (an order
    /// that never credited takes nothing; a second reversal of a fully reversed one is
    /// recorded and takes nothing); a refunded plan ends.
    async fn refunded(
        &self,
        route: PaymentRoute,
        order: Order,
        provider_txn_id: &str,
        amount: &Money,
        kind: ReversalKind,
    ) -> Result<Vec<Receipt>, BillingError> {
        if amount.currency != order.amount.currency || amount.minor > order.amount.minor || amount.minor == 0 {
            return Err(BillingError::Mismatch(format!(
                "refund of {} {} on an order of {} {}",
                amount.decimal(),
                amount.currency,
                order.amount.decimal(),
                order.amount.currency
            )));
        }
        let claim_kind = match kind {
            ReversalKind::Refund => PaymentClaimKind::Refund,
            ReversalKind::Chargeback => PaymentClaimKind::Chargeback,
        };
        self.claim(route, provider_txn_id, &order.order_id, claim_kind).await?;
        let refunded_minor = i64::try_from(amount.minor).unwrap_or(i64::MAX);
        let taken = self.take_back(route, &order, provider_txn_id, refunded_minor, kind).await?;
        let moved = self.transition(&order, OrderState::Refunded).await?;
        if let Some(subscription_id) = &order.subscription_id
            && self.store.subscriptions.end(subscription_id, now()).await?
        {
            self.plan_changed(&order.user_id).await;
        }
        if moved {
            return Ok(vec![Receipt::Refunded { user_id: order.user_id.clone(), order, coins: taken }]);
        }
        Ok(Vec::new())
    }

    /// The user asks to stop renewal (after the processor was told): access stays until
    /// the period ends.
    pub async fn cancel_by_user(
        &self,
        user_id: &UserId,
        subscription_id: &SubscriptionId,
    ) -> Result<Vec<Receipt>, BillingError> {
        let subscription = self.user_subscription(user_id, subscription_id).await?;
        if subscription.state != SubscriptionState::Active {
            return Err(BillingError::NotRenewing);
        }
        self.cancelled(subscription).await
    }

    /// One of the user's own subscriptions.
    pub async fn user_subscription(
        &self,
        user_id: &UserId,
        subscription_id: &SubscriptionId,
    ) -> Result<Subscription, BillingError> {
        self.store
            .subscriptions
            .get(subscription_id)
            .await?
            .filter(|s| &s.user_id == user_id)
            .ok_or(BillingError::UnknownSubscription)
    }

    pub async fn subscriptions(&self, user_id: &UserId) -> Result<Vec<Subscription>, BillingError> {
        Ok(self.store.subscriptions.list_for_user(user_id).await?)
    }

    /// The user's newest order, or the one named (only the user's own).
    pub async fn payment(&self, user_id: &UserId, order_id: Option<&OrderId>) -> Result<Option<Order>, BillingError> {
        let order = match order_id {
            Some(id) => self.store.orders.get(id).await?,
            None => self.store.orders.latest_for_user(user_id).await?,
        };
        Ok(order.filter(|order| &order.user_id == user_id))
    }

    /// The processor's id of the payment that paid `order` (what a refund names), if paid.
    pub async fn payment_of(&self, order: &Order) -> Result<Option<String>, BillingError> {
        let claims = self.store.orders.claims_of(&order.order_id).await?;
        Ok(claims
            .into_iter()
            .find(|claim| matches!(claim.kind, PaymentClaimKind::Payment | PaymentClaimKind::Renewal))
            .map(|claim| claim.provider_txn_id))
    }

    /// An order by id, whoever's it is (operators; callbacks).
    pub async fn order_by_id(&self, order_id: &OrderId) -> Result<Option<Order>, BillingError> {
        Ok(self.store.orders.get(order_id).await?)
    }

    pub async fn orders(&self, user_id: &UserId, limit: u32) -> Result<Vec<Order>, BillingError> {
        Ok(self.store.orders.list_for_user(user_id, limit).await?)
    }

    /// The user's ledger rows, newest first, at most `limit` (the operator console's view
    /// of a balance; the balance is their sum).
    pub async fn ledger(&self, user_id: &UserId, limit: usize) -> Result<Vec<amora_store::LedgerEntry>, BillingError> {
        let mut rows = self.store.ledger.rows(user_id).await?;
        rows.sort_by_key(|row| std::cmp::Reverse(row.created_at));
        rows.truncate(limit);
        Ok(rows)
    }

    /// The user's orders, newest first, at most `limit`, each with what refunds and
    /// chargebacks gave back of it so far, in minor units (the order history).
    pub async fn order_history(&self, user_id: &UserId, limit: u32) -> Result<Vec<(Order, i64)>, BillingError> {
        let orders = self.store.orders.list_for_user(user_id, limit).await?;
        let mut history = Vec::with_capacity(orders.len());
        for order in orders {
            // Only an order that was paid can have been given back.
            let refunded_minor = match order.state {
                OrderState::Paid | OrderState::Refunded => {
                    self.store.orders.reversed(&order.order_id).await?.refunded_minor
                }
                _ => 0,
            };
            history.push((order, refunded_minor));
        }
        Ok(history)
    }

    /// Ends the user's plans now (the operator): access stops at once.
    pub async fn end_plans(&self, user_id: &UserId) -> Result<usize, BillingError> {
        let mut ended = 0;
        for subscription in self.store.subscriptions.list_for_user(user_id).await? {
            if subscription.state != SubscriptionState::Ended
                && self.store.subscriptions.end(&subscription.subscription_id, now()).await?
            {
                ended += 1;
            }
        }
        if ended > 0 {
            self.plan_changed(user_id).await;
        }
        Ok(ended)
    }

    /// The currency of the catalogue.
    pub fn currency(&self) -> Option<Currency> {
        self.catalogue.offers().first().map(|offer| offer.price.currency.clone())
    }

    /// The period a plan product runs for.
    pub fn period_of(product: ProductId) -> Option<PlanPeriod> {
        match product {
            ProductId::Plan(period) => Some(period),
            ProductId::Coins(_) => None,
        }
    }
}
