//! Orders, payment claims and subscriptions over CQL (tables in `schema.cql`).
//!
//! The rows of `orders` and `subscriptions` are written only by lightweight transactions:
//! created IF NOT EXISTS, and every change of state a compare-and-set on the stored state,
//! so of concurrent callbacks on any nodes one moves an order. Each such write also adds a
//! random stamp to the row's `stamps`, which settles a write whose answer was lost (see
//! `settle`). A provider transaction is claimed by INSERT … IF NOT EXISTS on its key.
//!
//! Lookups (`*_by_user`, `*_by_provider_ref`) are written before the row they point at,
//! and every read through them checks the row it reaches (that it exists and still
//! matches), so a crash between the two writes leaves a lookup that readers skip.

use std::time::Duration;

use amora_domain::account::UserId;
use amora_domain::payment::{
    Currency, Money, Order, OrderId, OrderState, PaymentRoute, ProductId, Subscription, SubscriptionId,
    SubscriptionState,
};
use async_trait::async_trait;
use futures_util::TryStreamExt;
use futures_util::future::try_join_all;
use rand::Rng;
use rand::distributions::Alphanumeric;
use scylla::DeserializeRow;
use scylla::serialize::row::SerializeRow;
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::{Consistency, SerialConsistency};
use scylla::value::CqlValue;

use super::{CqlStore, Kind, Preparer, applied, corrupt, unavailable};
use crate::{OrderRepo, PaymentClaim, PaymentClaimKind, StoreError, StoreResult, SubscriptionRepo};

/// How many times one conditional write whose answer was lost is settled and tried again
/// before the store reports itself unavailable.
const MAX_UNANSWERED: u32 = 12;
/// Lookup rows fetched per page when listing a user's orders or subscriptions.
const LIST_PAGE: i32 = 50;

/// The two tables this module keeps rows of, with their lookups.
#[derive(Clone, Copy)]
struct Table {
    name: &'static str,
    key: &'static str,
}

const ORDERS: Table = Table { name: "orders", key: "order_id" };
const SUBSCRIPTIONS: Table = Table { name: "subscriptions", key: "subscription_id" };

/// The provider-reference lookup of one table and the row's own `provider_ref`.
struct RefStatements {
    /// Claims `(route, provider_ref)` for a row, IF NOT EXISTS.
    claim: PreparedStatement,
    owner: PreparedStatement,
    owner_serial: PreparedStatement,
    /// Gives back a claim, only the row that holds it.
    release: PreparedStatement,
    /// Sets the row's reference once, only on an existing row.
    set: PreparedStatement,
    current_serial: PreparedStatement,
}

impl RefStatements {
    async fn prepare(p: &Preparer<'_>, table: Table) -> StoreResult<Self> {
        let Table { name, key } = table;
        let owner = format!("SELECT {key} FROM {name}_by_provider_ref WHERE route = ? AND provider_ref = ?");
        let current = format!("SELECT provider_ref FROM {name} WHERE {key} = ?");
        Ok(Self {
            claim: p
                .prepare(
                    &format!(
                        "INSERT INTO {name}_by_provider_ref (route, provider_ref, {key}) VALUES (?, ?, ?) IF NOT EXISTS"
                    ),
                    Kind::Conditional,
                )
                .await?,
            owner: p.prepare(&owner, Kind::Idempotent).await?,
            owner_serial: prepare_serial_read(p, &owner).await?,
            release: p
                .prepare(
                    &format!("DELETE FROM {name}_by_provider_ref WHERE route = ? AND provider_ref = ? IF {key} = ?"),
                    Kind::Conditional,
                )
                .await?,
            // `user_id = ?` fails on a missing row, where `provider_ref = null` alone would
            // hold and write a row with nothing else in it.
            set: p
                .prepare(
                    &format!(
                        "UPDATE {name} SET provider_ref = ? WHERE {key} = ? IF provider_ref = null AND user_id = ?"
                    ),
                    Kind::Conditional,
                )
                .await?,
            current_serial: prepare_serial_read(p, &current).await?,
        })
    }
}

/// The per-user listing of one table, clustered newest first.
struct ListStatements {
    insert: PreparedStatement,
    delete: PreparedStatement,
    list: PreparedStatement,
}

impl ListStatements {
    async fn prepare(p: &Preparer<'_>, table: Table) -> StoreResult<Self> {
        let Table { name, key } = table;
        let mut list = p
            .prepare(&format!("SELECT created_at, {key} FROM {name}_by_user WHERE user_id = ?"), Kind::Idempotent)
            .await?;
        list.set_page_size(LIST_PAGE);
        Ok(Self {
            insert: p
                .prepare(
                    &format!("INSERT INTO {name}_by_user (user_id, created_at, {key}) VALUES (?, ?, ?)"),
                    Kind::Idempotent,
                )
                .await?,
            delete: p
                .prepare(
                    &format!("DELETE FROM {name}_by_user WHERE user_id = ? AND created_at = ? AND {key} = ?"),
                    Kind::Idempotent,
                )
                .await?,
            list,
        })
    }
}

pub(super) struct Statements {
    insert_order: PreparedStatement,
    order: PreparedStatement,
    order_stamps: PreparedStatement,
    transition: PreparedStatement,
    order_refs: RefStatements,
    orders_listed: ListStatements,
    claim: PreparedStatement,
    claim_read: PreparedStatement,
    claim_stamp: PreparedStatement,
    claim_by_order: PreparedStatement,
    claims_of: PreparedStatement,
    insert_subscription: PreparedStatement,
    subscription: PreparedStatement,
    subscription_stamps: PreparedStatement,
    activate: PreparedStatement,
    renew: PreparedStatement,
    cancel: PreparedStatement,
    end: PreparedStatement,
    subscription_refs: RefStatements,
    subscriptions_listed: ListStatements,
}

const ORDER_COLUMNS: &str = "order_id, user_id, product, route, amount_minor, currency, state, provider_ref,
    subscription_id, created_at, updated_at";

const SUBSCRIPTION_COLUMNS: &str = "subscription_id, user_id, plan, route, provider_ref, state, started_at,
    current_period_end, created_at, updated_at";

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let change = |set: &str, condition: &str| {
            format!("UPDATE subscriptions SET {set}, stamps = stamps + ? WHERE subscription_id = ? IF {condition}")
        };
        Ok(Self {
            insert_order: p
                .prepare(
                    &format!(
                        "INSERT INTO orders ({ORDER_COLUMNS}, stamps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                         IF NOT EXISTS"
                    ),
                    Kind::Conditional,
                )
                .await?,
            order: p.prepare(&format!("SELECT {ORDER_COLUMNS} FROM orders WHERE order_id = ?"), Kind::Idempotent).await?,
            order_stamps: prepare_serial_read(p, "SELECT stamps FROM orders WHERE order_id = ?").await?,
            transition: p
                .prepare(
                    "UPDATE orders SET state = ?, updated_at = ?, stamps = stamps + ? WHERE order_id = ? IF state = ?",
                    Kind::Conditional,
                )
                .await?,
            order_refs: RefStatements::prepare(p, ORDERS).await?,
            orders_listed: ListStatements::prepare(p, ORDERS).await?,
            claim: p
                .prepare(
                    "INSERT INTO payment_claims (route, space, provider_txn_id, kind, order_id, claimed_at, stamp)
                     VALUES (?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS",
                    Kind::Conditional,
                )
                .await?,
            claim_by_order: p
                .prepare(
                    "INSERT INTO payment_claims_by_order (order_id, claimed_at, route, provider_txn_id, kind)
                     VALUES (?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            claims_of: p
                .prepare(
                    "SELECT claimed_at, route, provider_txn_id, kind FROM payment_claims_by_order WHERE order_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            claim_read: p
                .prepare(
                    "SELECT kind, order_id, claimed_at FROM payment_claims
                     WHERE route = ? AND space = ? AND provider_txn_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            claim_stamp: prepare_serial_read(
                p,
                "SELECT stamp FROM payment_claims WHERE route = ? AND space = ? AND provider_txn_id = ?",
            )
            .await?,
            insert_subscription: p
                .prepare(
                    &format!(
                        "INSERT INTO subscriptions ({SUBSCRIPTION_COLUMNS}, stamps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                         IF NOT EXISTS"
                    ),
                    Kind::Conditional,
                )
                .await?,
            subscription: p
                .prepare(
                    &format!("SELECT {SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE subscription_id = ?"),
                    Kind::Idempotent,
                )
                .await?,
            subscription_stamps: prepare_serial_read(p, "SELECT stamps FROM subscriptions WHERE subscription_id = ?")
                .await?,
            activate: p
                .prepare(
                    &change(
                        "state = 'active', started_at = ?, current_period_end = ?, updated_at = ?",
                        "state = 'pending'",
                    ),
                    Kind::Conditional,
                )
                .await?,
            renew: p
                .prepare(
                    &change(
                        "current_period_end = ?, updated_at = ?",
                        "state IN ('active', 'cancelled') AND current_period_end < ?",
                    ),
                    Kind::Conditional,
                )
                .await?,
            cancel: p
                .prepare(&change("state = 'cancelled', updated_at = ?", "state = 'active'"), Kind::Conditional)
                .await?,
            end: p
                .prepare(
                    &change("state = 'ended', updated_at = ?", "state IN ('pending', 'active', 'cancelled')"),
                    Kind::Conditional,
                )
                .await?,
            subscription_refs: RefStatements::prepare(p, SUBSCRIPTIONS).await?,
            subscriptions_listed: ListStatements::prepare(p, SUBSCRIPTIONS).await?,
        })
    }
}

/// A read at SERIAL (or LOCAL_SERIAL, following the configured serial consistency): the
/// server first finishes any lightweight transaction in flight on the row, so what it
/// answers is final.
async fn prepare_serial_read(p: &Preparer<'_>, cql: &str) -> StoreResult<PreparedStatement> {
    let mut statement = p.prepare(cql, Kind::Idempotent).await?;
    statement.set_consistency(match p.settings.serial_consistency {
        SerialConsistency::LocalSerial => Consistency::LocalSerial,
        _ => Consistency::Serial,
    });
    Ok(statement)
}

/// A random mark for one conditional write, to recognise it in the row afterwards.
fn new_stamp() -> String {
    rand::thread_rng().sample_iter(&Alphanumeric).take(20).map(char::from).collect()
}

/// A short random pause before settling or retrying, longer with each attempt, so that
/// writers contending for one row do not collide in step.
async fn pause(attempt: u32) {
    let millis = rand::thread_rng().gen_range(5..=25 * u64::from(attempt.min(16)));
    tokio::time::sleep(Duration::from_millis(millis)).await;
}

/// Minor units as CQL's bigint; no price comes near the limit.
fn minor_units(money: &Money) -> StoreResult<i64> {
    i64::try_from(money.minor).map_err(|_| StoreError::Corrupt(format!("amount {} is out of range", money.minor)))
}

#[derive(DeserializeRow)]
struct OrderRow {
    order_id: String,
    user_id: String,
    product: String,
    route: String,
    amount_minor: i64,
    currency: String,
    state: String,
    provider_ref: Option<String>,
    subscription_id: Option<String>,
    created_at: i64,
    updated_at: i64,
}

impl OrderRow {
    fn into_order(self) -> StoreResult<Order> {
        Ok(Order {
            order_id: OrderId::parse(&self.order_id).map_err(corrupt)?,
            user_id: UserId::parse(&self.user_id).map_err(corrupt)?,
            product: ProductId::parse(&self.product).map_err(corrupt)?,
            route: PaymentRoute::from_code(&self.route).map_err(corrupt)?,
            amount: Money::new(
                u64::try_from(self.amount_minor).map_err(corrupt)?,
                Currency::parse(&self.currency).map_err(corrupt)?,
            ),
            state: OrderState::from_code(&self.state).map_err(corrupt)?,
            provider_ref: self.provider_ref,
            subscription_id: self.subscription_id.as_deref().map(SubscriptionId::parse).transpose().map_err(corrupt)?,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

#[derive(DeserializeRow)]
struct SubscriptionRow {
    subscription_id: String,
    user_id: String,
    plan: String,
    route: String,
    provider_ref: Option<String>,
    state: String,
    started_at: i64,
    current_period_end: i64,
    created_at: i64,
    updated_at: i64,
}

impl SubscriptionRow {
    fn into_subscription(self) -> StoreResult<Subscription> {
        let ProductId::Plan(period) = ProductId::parse(&self.plan).map_err(corrupt)? else {
            return Err(StoreError::Corrupt(format!(
                "subscription {} is for {}, not a plan",
                self.subscription_id, self.plan
            )));
        };
        Ok(Subscription {
            subscription_id: SubscriptionId::parse(&self.subscription_id).map_err(corrupt)?,
            user_id: UserId::parse(&self.user_id).map_err(corrupt)?,
            period,
            route: PaymentRoute::from_code(&self.route).map_err(corrupt)?,
            provider_ref: self.provider_ref,
            state: SubscriptionState::from_code(&self.state).map_err(corrupt)?,
            started_at: self.started_at,
            current_period_end: self.current_period_end,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

/// A row that lookups point at: what a lookup must agree with, and how to read it by id.
trait PaymentRow: Sized {
    fn id(&self) -> &str;
    fn route(&self) -> PaymentRoute;
    fn provider_ref(&self) -> Option<&str>;
    fn user_id(&self) -> &UserId;
    fn created_at(&self) -> i64;
    fn read(store: &CqlStore, id: &str) -> impl Future<Output = StoreResult<Option<Self>>> + Send;
}

impl PaymentRow for Order {
    fn id(&self) -> &str {
        self.order_id.as_str()
    }
    fn route(&self) -> PaymentRoute {
        self.route
    }
    fn provider_ref(&self) -> Option<&str> {
        self.provider_ref.as_deref()
    }
    fn user_id(&self) -> &UserId {
        &self.user_id
    }
    fn created_at(&self) -> i64 {
        self.created_at
    }
    async fn read(store: &CqlStore, id: &str) -> StoreResult<Option<Self>> {
        let row: Option<OrderRow> = store.first(&store.statements.payments.order, (id,)).await?;
        row.map(OrderRow::into_order).transpose()
    }
}

impl PaymentRow for Subscription {
    fn id(&self) -> &str {
        self.subscription_id.as_str()
    }
    fn route(&self) -> PaymentRoute {
        self.route
    }
    fn provider_ref(&self) -> Option<&str> {
        self.provider_ref.as_deref()
    }
    fn user_id(&self) -> &UserId {
        &self.user_id
    }
    fn created_at(&self) -> i64 {
        self.created_at
    }
    async fn read(store: &CqlStore, id: &str) -> StoreResult<Option<Self>> {
        let row: Option<SubscriptionRow> = store.first(&store.statements.payments.subscription, (id,)).await?;
        row.map(SubscriptionRow::into_subscription).transpose()
    }
}

/// How to tell, by a SERIAL read, whether a conditional write of this call landed: the
/// first column that `read` answers for `key` is `value` (a text column) or holds it (a
/// set of stamps).
struct Landed<'a> {
    read: &'a PreparedStatement,
    key: &'a [&'a str],
    value: &'a str,
    /// The column is written once (a claim's owner, a new row's first stamp, a reference
    /// set once): another value there means this write lost for good. Otherwise (a change
    /// of state) a write not found is tried again, its condition checking the row afresh.
    once: bool,
}

/// What a SERIAL read says of a write whose answer was lost.
enum Settled {
    Landed,
    Lost,
    /// Not there, and it can no longer land: the write may be tried again.
    Open,
}

impl CqlStore {
    /// Runs a conditional write and answers whether it applied, also when its answer was
    /// lost: a timeout (the server gives up on a contended Paxos round) or a dropped
    /// connection leaves the write maybe landed. `landed` then reads the row at SERIAL,
    /// which finishes any round in flight first, so what it sees is final: this call's
    /// stamp is there; or another's is where only one can be, and this write lost; or the
    /// write can no longer land and is tried again (its condition checks the row afresh).
    /// Without this, a lost answer would make a paid order count
    /// twice (retried blindly) or never (reported as refused).
    async fn settle(
        &self,
        write: &PreparedStatement,
        values: impl SerializeRow,
        landed: Landed<'_>,
    ) -> StoreResult<bool> {
        // Whether an earlier attempt of this call may have landed without our knowing.
        let mut unsettled = false;
        for attempt in 1..=MAX_UNANSWERED {
            match self.session.execute_unpaged(write, &values).await {
                Ok(result) => {
                    let applied = applied(result)?;
                    if applied || !unsettled {
                        return Ok(applied);
                    }
                    // Refused, perhaps because an unanswered attempt of this call landed.
                    return self.read_settled(&landed).await;
                }
                Err(error) => {
                    tracing::warn!(%error, attempt, "a conditional payment write went unanswered; settling it");
                    pause(attempt).await;
                    match self.landed(&landed).await {
                        Ok(Settled::Landed) => return Ok(true),
                        Ok(Settled::Lost) => return Ok(false),
                        Ok(Settled::Open) => unsettled = false,
                        Err(error) => {
                            tracing::warn!(%error, attempt, "settling a conditional payment write failed");
                            unsettled = true;
                        }
                    }
                }
            }
        }
        Err(StoreError::Unavailable(format!("a conditional payment write went unanswered {MAX_UNANSWERED} times")))
    }

    /// `landed`, retried while the read itself fails.
    async fn read_settled(&self, landed: &Landed<'_>) -> StoreResult<bool> {
        let mut attempt = 1;
        loop {
            match self.landed(landed).await {
                Ok(settled) => return Ok(matches!(settled, Settled::Landed)),
                Err(error) if attempt >= MAX_UNANSWERED => return Err(error),
                Err(error) => {
                    tracing::warn!(%error, attempt, "settling a conditional payment write failed");
                    pause(attempt).await;
                    attempt += 1;
                }
            }
        }
    }

    async fn landed(&self, check: &Landed<'_>) -> StoreResult<Settled> {
        let row: Option<(Option<CqlValue>,)> = self.first(check.read, check.key).await?;
        let wanted = |value: &CqlValue| matches!(value, CqlValue::Text(text) if text == check.value);
        Ok(match row.and_then(|(value,)| value) {
            Some(CqlValue::Set(items)) if items.iter().any(wanted) => Settled::Landed,
            Some(value) if wanted(&value) => Settled::Landed,
            Some(_) if check.once => Settled::Lost,
            _ => Settled::Open,
        })
    }

    /// The text in the first column that `read` answers for `key`.
    async fn text_at(&self, read: &PreparedStatement, key: &[&str]) -> StoreResult<Option<String>> {
        let row: Option<(Option<String>,)> = self.first(read, key).await?;
        Ok(row.and_then(|(text,)| text))
    }

    /// Claims `(route, provider_ref)` for the row `id`; answers who holds the claim after.
    async fn claim_ref(
        &self,
        refs: &RefStatements,
        route: PaymentRoute,
        provider_ref: &str,
        id: &str,
    ) -> StoreResult<Option<String>> {
        let key = [route.code(), provider_ref];
        let landed = Landed { read: &refs.owner_serial, key: &key, value: id, once: true };
        if self.settle(&refs.claim, (route.code(), provider_ref, id), landed).await? {
            return Ok(Some(id.to_owned()));
        }
        self.text_at(&refs.owner_serial, &key).await
    }

    /// Sets the provider reference of `row` once; see `OrderRepo::set_provider_ref`.
    async fn set_ref_once<T: PaymentRow>(
        &self,
        refs: &RefStatements,
        row: &T,
        provider_ref: &str,
    ) -> StoreResult<bool> {
        if let Some(current) = row.provider_ref() {
            return Ok(current == provider_ref);
        }
        let (route, id) = (row.route(), row.id());
        // The lookup first: once it names this row, no other row of the route can take the
        // reference, and a crash before the row is written leaves a lookup readers skip.
        if self.claim_ref(refs, route, provider_ref, id).await?.as_deref() != Some(id) {
            return Err(StoreError::Conflict("providerRef"));
        }
        let key = [id];
        let carries = Landed { read: &refs.current_serial, key: &key, value: provider_ref, once: true };
        if self.settle(&refs.set, (provider_ref, id, row.user_id().as_str()), carries).await? {
            return Ok(true);
        }
        // Refused: set to the same reference by a concurrent call, to another one, or gone.
        if self.text_at(&refs.current_serial, &key).await?.as_deref() == Some(provider_ref) {
            return Ok(true);
        }
        self.conditional(&refs.release, (route.code(), provider_ref, id)).await?;
        Ok(false)
    }

    /// The row a lookup of `(route, provider_ref)` names, if it still carries that reference.
    async fn by_ref<T: PaymentRow>(
        &self,
        refs: &RefStatements,
        route: PaymentRoute,
        provider_ref: &str,
    ) -> StoreResult<Option<T>> {
        let Some(id) = self.text_at(&refs.owner, &[route.code(), provider_ref]).await? else { return Ok(None) };
        let row = T::read(self, &id).await?;
        Ok(row.filter(|row| row.route() == route && row.provider_ref() == Some(provider_ref)))
    }

    /// The user's rows through the lookup `list`, newest first, at most `limit` (all when
    /// `None`); lookup rows whose row is missing or belongs elsewhere are skipped.
    async fn listed<T: PaymentRow>(
        &self,
        list: &ListStatements,
        user_id: &UserId,
        limit: Option<usize>,
    ) -> StoreResult<Vec<T>> {
        let limit = limit.unwrap_or(usize::MAX);
        let pager = self.session.execute_iter(list.list.clone(), (user_id.as_str(),)).await.map_err(unavailable)?;
        let mut lookups = pager.rows_stream::<(i64, String)>().map_err(corrupt)?;
        let mut found = Vec::new();
        while found.len() < limit {
            let mut batch = Vec::new();
            while batch.len() < (limit - found.len()).min(LIST_PAGE as usize) {
                match lookups.try_next().await.map_err(unavailable)? {
                    Some(lookup) => batch.push(lookup),
                    None => break,
                }
            }
            if batch.is_empty() {
                break;
            }
            let rows = try_join_all(batch.iter().map(|(_, id)| T::read(self, id))).await?;
            for ((created_at, _), row) in batch.iter().zip(rows) {
                if let Some(row) = row.filter(|row| row.user_id() == user_id && row.created_at() == *created_at) {
                    found.push(row);
                }
            }
        }
        Ok(found)
    }

    /// Writes a new row: the lookups first, then the row IF NOT EXISTS with a stamp.
    /// `insert` binds `values`, which end with the stamp as a one-element set.
    async fn create_row<T: PaymentRow>(
        &self,
        statements: (&PreparedStatement, &PreparedStatement, &ListStatements, &RefStatements),
        row: &T,
        values: impl SerializeRow,
        stamp: &str,
    ) -> StoreResult<bool> {
        let (insert, stamps, listed, refs) = statements;
        let (id, user_id, created_at) = (row.id(), row.user_id().as_str(), row.created_at());
        if let Some(provider_ref) = row.provider_ref()
            && self.claim_ref(refs, row.route(), provider_ref, id).await?.as_deref() != Some(id)
        {
            return Err(StoreError::Conflict("providerRef"));
        }
        self.run(&listed.insert, (user_id, created_at, id)).await?;
        if self.settle(insert, values, Landed { read: stamps, key: &[id], value: stamp, once: true }).await? {
            return Ok(true);
        }
        // The id is taken. Unless the row there is this very one (a retried create), the
        // lookups just written name a row that is not theirs: take them back.
        let existing = T::read(self, id).await?;
        let same = existing.as_ref().is_some_and(|e| e.user_id() == row.user_id() && e.created_at() == created_at);
        if !same {
            self.run(&listed.delete, (user_id, created_at, id)).await?;
        }
        if let Some(provider_ref) = row.provider_ref()
            && existing.as_ref().and_then(PaymentRow::provider_ref) != Some(provider_ref)
        {
            self.conditional(&refs.release, (row.route().code(), provider_ref, id)).await?;
        }
        Ok(false)
    }

    /// A conditional change of a subscription: `values`, then the stamp and the id, then
    /// `condition` (the bind markers after `IF`).
    async fn change_subscription(
        &self,
        write: &PreparedStatement,
        id: &SubscriptionId,
        values: &[i64],
        condition: &[i64],
    ) -> StoreResult<bool> {
        let (id, stamp) = (id.as_str(), new_stamp());
        let mut row: Vec<CqlValue> = values.iter().map(|v| CqlValue::BigInt(*v)).collect();
        row.push(CqlValue::Set(vec![CqlValue::Text(stamp.clone())]));
        row.push(CqlValue::Text(id.to_owned()));
        row.extend(condition.iter().map(|v| CqlValue::BigInt(*v)));
        let landed =
            Landed { read: &self.statements.payments.subscription_stamps, key: &[id], value: &stamp, once: false };
        self.settle(write, row, landed).await
    }
}

#[async_trait]
impl OrderRepo for CqlStore {
    async fn create(&self, order: Order) -> StoreResult<()> {
        let s = &self.statements.payments;
        let stamp = new_stamp();
        let values = (
            order.order_id.as_str(),
            order.user_id.as_str(),
            order.product.as_str(),
            order.route.code(),
            minor_units(&order.amount)?,
            order.amount.currency.as_str(),
            order.state.code(),
            order.provider_ref.as_deref(),
            order.subscription_id.as_ref().map(SubscriptionId::as_str),
            order.created_at,
            order.updated_at,
            vec![stamp.as_str()],
        );
        self.index_order_day(&order).await?;
        let statements = (&s.insert_order, &s.order_stamps, &s.orders_listed, &s.order_refs);
        if self.create_row(statements, &order, values, &stamp).await? {
            Ok(())
        } else {
            Err(StoreError::Conflict("orderId"))
        }
    }

    async fn get(&self, id: &OrderId) -> StoreResult<Option<Order>> {
        Order::read(self, id.as_str()).await
    }

    async fn by_provider_ref(&self, route: PaymentRoute, provider_ref: &str) -> StoreResult<Option<Order>> {
        self.by_ref(&self.statements.payments.order_refs, route, provider_ref).await
    }

    async fn set_provider_ref(&self, id: &OrderId, provider_ref: &str) -> StoreResult<bool> {
        let Some(order) = Order::read(self, id.as_str()).await? else { return Ok(false) };
        self.set_ref_once(&self.statements.payments.order_refs, &order, provider_ref).await
    }

    async fn transition(&self, id: &OrderId, from: OrderState, to: OrderState, at: i64) -> StoreResult<bool> {
        if !from.may_become(to) {
            return Ok(false);
        }
        let s = &self.statements.payments;
        let (id, stamp) = (id.as_str(), new_stamp());
        let values = (to.code(), at, vec![stamp.as_str()], id, from.code());
        self.settle(&s.transition, values, Landed { read: &s.order_stamps, key: &[id], value: &stamp, once: false })
            .await
    }

    async fn list_for_user(&self, user_id: &UserId, limit: u32) -> StoreResult<Vec<Order>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        self.listed(&self.statements.payments.orders_listed, user_id, Some(limit)).await
    }

    async fn orders_since(&self, since: i64, limit: u32) -> StoreResult<Vec<Order>> {
        self.orders_by_day_since(since, limit).await
    }

    async fn latest_for_user(&self, user_id: &UserId) -> StoreResult<Option<Order>> {
        Ok(self.listed(&self.statements.payments.orders_listed, user_id, Some(1)).await?.into_iter().next())
    }

    async fn claim_payment(
        &self,
        route: PaymentRoute,
        provider_txn_id: &str,
        order_id: &OrderId,
        kind: PaymentClaimKind,
        at: i64,
    ) -> StoreResult<bool> {
        let s = &self.statements.payments;
        let stamp = new_stamp();
        let key = [route.code(), kind.space(), provider_txn_id];
        let values = (route.code(), kind.space(), provider_txn_id, kind.code(), order_id.as_str(), at, stamp.as_str());
        let claimed = self
            .settle(&s.claim, values, Landed { read: &s.claim_stamp, key: &key, value: &stamp, once: true })
            .await?;
        if claimed {
            let copy = (order_id.as_str(), at, route.code(), provider_txn_id, kind.code());
            self.run(&s.claim_by_order, copy).await?;
        }
        Ok(claimed)
    }

    async fn reverse(&self, order_id: &OrderId, reversal: crate::Reversal) -> StoreResult<amora_domain::money::Coins> {
        self.reverse_order(order_id, reversal).await
    }

    async fn reversed(&self, order_id: &OrderId) -> StoreResult<crate::ReversalTotals> {
        self.order_reversed(order_id).await
    }

    async fn claims_of(&self, order_id: &OrderId) -> StoreResult<Vec<PaymentClaim>> {
        let rows: Vec<(i64, String, String, String)> =
            self.rows(&self.statements.payments.claims_of, (order_id.as_str(),)).await?;
        rows.into_iter()
            .map(|(claimed_at, route, provider_txn_id, kind)| {
                Ok(PaymentClaim {
                    route: PaymentRoute::from_code(&route).map_err(corrupt)?,
                    provider_txn_id,
                    order_id: order_id.clone(),
                    kind: PaymentClaimKind::from_code(&kind)?,
                    claimed_at,
                })
            })
            .collect()
    }

    async fn payment_claim(
        &self,
        route: PaymentRoute,
        kind: PaymentClaimKind,
        provider_txn_id: &str,
    ) -> StoreResult<Option<PaymentClaim>> {
        let key = (route.code(), kind.space(), provider_txn_id);
        let row: Option<(String, String, i64)> = self.first(&self.statements.payments.claim_read, key).await?;
        row.map(|(kind, order_id, claimed_at)| {
            Ok(PaymentClaim {
                route,
                provider_txn_id: provider_txn_id.to_owned(),
                order_id: OrderId::parse(&order_id).map_err(corrupt)?,
                kind: PaymentClaimKind::from_code(&kind)?,
                claimed_at,
            })
        })
        .transpose()
    }
}

#[async_trait]
impl SubscriptionRepo for CqlStore {
    async fn create(&self, subscription: Subscription) -> StoreResult<()> {
        let s = &self.statements.payments;
        let stamp = new_stamp();
        let values = (
            subscription.subscription_id.as_str(),
            subscription.user_id.as_str(),
            ProductId::Plan(subscription.period).as_str(),
            subscription.route.code(),
            subscription.provider_ref.as_deref(),
            subscription.state.code(),
            subscription.started_at,
            subscription.current_period_end,
            subscription.created_at,
            subscription.updated_at,
            vec![stamp.as_str()],
        );
        let statements =
            (&s.insert_subscription, &s.subscription_stamps, &s.subscriptions_listed, &s.subscription_refs);
        if self.create_row(statements, &subscription, values, &stamp).await? {
            Ok(())
        } else {
            Err(StoreError::Conflict("subscriptionId"))
        }
    }

    async fn get(&self, id: &SubscriptionId) -> StoreResult<Option<Subscription>> {
        Subscription::read(self, id.as_str()).await
    }

    async fn by_provider_ref(&self, route: PaymentRoute, provider_ref: &str) -> StoreResult<Option<Subscription>> {
        self.by_ref(&self.statements.payments.subscription_refs, route, provider_ref).await
    }

    async fn set_provider_ref(&self, id: &SubscriptionId, provider_ref: &str) -> StoreResult<bool> {
        let Some(subscription) = Subscription::read(self, id.as_str()).await? else { return Ok(false) };
        self.set_ref_once(&self.statements.payments.subscription_refs, &subscription, provider_ref).await
    }

    async fn list_for_user(&self, user_id: &UserId) -> StoreResult<Vec<Subscription>> {
        self.listed(&self.statements.payments.subscriptions_listed, user_id, None).await
    }

    async fn activate(&self, id: &SubscriptionId, started_at: i64, period_end: i64, at: i64) -> StoreResult<bool> {
        self.change_subscription(&self.statements.payments.activate, id, &[started_at, period_end, at], &[]).await
    }

    async fn renew(&self, id: &SubscriptionId, period_end: i64, at: i64) -> StoreResult<bool> {
        self.change_subscription(&self.statements.payments.renew, id, &[period_end, at], &[period_end]).await
    }

    async fn cancel(&self, id: &SubscriptionId, at: i64) -> StoreResult<bool> {
        self.change_subscription(&self.statements.payments.cancel, id, &[at], &[]).await
    }

    async fn end(&self, id: &SubscriptionId, at: i64) -> StoreResult<bool> {
        self.change_subscription(&self.statements.payments.end, id, &[at], &[]).await
    }
}
