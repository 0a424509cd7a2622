//! Orders, payment claims and subscriptions in SQLite. Every change of state is one
//! `UPDATE … WHERE <expected state>`: SQLite runs each statement as its own transaction
//! under the file's write lock, so the compare-and-set holds across processes on one file,
//! and `changes()` says whether this call was the one that applied.

use amora_domain::account::UserId;
use amora_domain::payment::{
    Currency, Money, Order, OrderId, OrderState, PaymentRoute, ProductId, Subscription, SubscriptionId,
    SubscriptionState,
};
use async_trait::async_trait;
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::EmbeddedStore;
use crate::{OrderRepo, PaymentClaim, PaymentClaimKind, StoreError, StoreResult, SubscriptionRepo};

const ORDER_COLUMNS: &str = "order_id, user_id, product, route, amount_minor, currency, state, provider_ref,
    subscription_id, created_at, updated_at";

const SUBSCRIPTION_COLUMNS: &str = "subscription_id, user_id, plan, route, provider_ref, state, started_at,
    current_period_end, created_at, updated_at";

fn corrupt(error: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(error.to_string())
}

/// Minor units as SQLite's INTEGER (i64); no price comes near the limit.
fn minor_units(money: &Money) -> StoreResult<i64> {
    i64::try_from(money.minor).map_err(|_| StoreError::Corrupt(format!("amount {} is out of range", money.minor)))
}

/// The raw columns of an order row, turned into an `Order` outside rusqlite's callback so
/// a value that does not parse is reported as corrupt data, not as a driver error.
type OrderColumns = (String, String, String, String, i64, String, String, Option<String>, Option<String>, i64, i64);

fn order_columns(row: &Row<'_>) -> rusqlite::Result<OrderColumns> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        row.get(6)?,
        row.get(7)?,
        row.get(8)?,
        row.get(9)?,
        row.get(10)?,
    ))
}

fn into_order(columns: OrderColumns) -> StoreResult<Order> {
    let (order_id, user_id, product, route, minor, currency, state, provider_ref, subscription_id, created, updated) =
        columns;
    Ok(Order {
        order_id: OrderId::parse(&order_id).map_err(corrupt)?,
        user_id: UserId::parse(&user_id).map_err(corrupt)?,
        product: ProductId::parse(&product).map_err(corrupt)?,
        route: PaymentRoute::from_code(&route).map_err(corrupt)?,
        amount: Money::new(u64::try_from(minor).map_err(corrupt)?, Currency::parse(&currency).map_err(corrupt)?),
        state: OrderState::from_code(&state).map_err(corrupt)?,
        provider_ref,
        subscription_id: subscription_id.as_deref().map(SubscriptionId::parse).transpose().map_err(corrupt)?,
        created_at: created,
        updated_at: updated,
    })
}

fn order_where(conn: &Connection, condition: &str, values: impl rusqlite::Params) -> StoreResult<Option<Order>> {
    let sql = format!("SELECT {ORDER_COLUMNS} FROM orders WHERE {condition}");
    conn.prepare_cached(&sql)?.query_row(values, order_columns).optional()?.map(into_order).transpose()
}

type SubscriptionColumns = (String, String, String, String, Option<String>, String, i64, i64, i64, i64);

fn subscription_columns(row: &Row<'_>) -> rusqlite::Result<SubscriptionColumns> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        row.get(6)?,
        row.get(7)?,
        row.get(8)?,
        row.get(9)?,
    ))
}

fn into_subscription(columns: SubscriptionColumns) -> StoreResult<Subscription> {
    let (id, user_id, plan, route, provider_ref, state, started_at, current_period_end, created_at, updated_at) =
        columns;
    let ProductId::Plan(period) = ProductId::parse(&plan).map_err(corrupt)? else {
        return Err(StoreError::Corrupt(format!("subscription {id} is for {plan}, not a plan")));
    };
    Ok(Subscription {
        subscription_id: SubscriptionId::parse(&id).map_err(corrupt)?,
        user_id: UserId::parse(&user_id).map_err(corrupt)?,
        period,
        route: PaymentRoute::from_code(&route).map_err(corrupt)?,
        provider_ref,
        state: SubscriptionState::from_code(&state).map_err(corrupt)?,
        started_at,
        current_period_end,
        created_at,
        updated_at,
    })
}

fn subscription_where(
    conn: &Connection,
    condition: &str,
    values: impl rusqlite::Params,
) -> StoreResult<Option<Subscription>> {
    let sql = format!("SELECT {SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE {condition}");
    conn.prepare_cached(&sql)?.query_row(values, subscription_columns).optional()?.map(into_subscription).transpose()
}

/// Sets a provider reference once on the row `id` of `table`; see `OrderRepo::set_provider_ref`.
fn set_provider_ref_once(conn: &Connection, table: &str, id: &str, provider_ref: &str) -> StoreResult<bool> {
    let key = if table == "orders" { "order_id" } else { "subscription_id" };
    let set = format!("UPDATE {table} SET provider_ref = ?2 WHERE {key} = ?1 AND provider_ref IS NULL");
    if conn.prepare_cached(&set)?.execute(params![id, provider_ref])? == 1 {
        return Ok(true);
    }
    let current = format!("SELECT provider_ref FROM {table} WHERE {key} = ?1");
    let stored: Option<Option<String>> =
        conn.prepare_cached(&current)?.query_row(params![id], |row| row.get(0)).optional()?;
    Ok(stored.flatten().as_deref() == Some(provider_ref))
}

#[async_trait]
impl OrderRepo for EmbeddedStore {
    async fn create(&self, order: Order) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(&format!(
                "INSERT INTO orders ({ORDER_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
            ))?
            .execute(params![
                order.order_id.as_str(),
                order.user_id.as_str(),
                order.product.as_str(),
                order.route.code(),
                minor_units(&order.amount)?,
                order.amount.currency.as_str(),
                order.state.code(),
                order.provider_ref,
                order.subscription_id.as_ref().map(SubscriptionId::as_str),
                order.created_at,
                order.updated_at,
            ])?;
            Ok(())
        })
        .await
    }

    async fn get(&self, id: &OrderId) -> StoreResult<Option<Order>> {
        let id = id.clone();
        self.with_conn(move |conn| order_where(conn, "order_id = ?1", params![id.as_str()])).await
    }

    async fn by_provider_ref(&self, route: PaymentRoute, provider_ref: &str) -> StoreResult<Option<Order>> {
        let provider_ref = provider_ref.to_owned();
        self.with_conn(move |conn| {
            order_where(conn, "route = ?1 AND provider_ref = ?2", params![route.code(), provider_ref])
        })
        .await
    }

    async fn set_provider_ref(&self, id: &OrderId, provider_ref: &str) -> StoreResult<bool> {
        let (id, provider_ref) = (id.clone(), provider_ref.to_owned());
        self.with_conn(move |conn| set_provider_ref_once(conn, "orders", id.as_str(), &provider_ref)).await
    }

    async fn transition(&self, id: &OrderId, from: OrderState, to: OrderState, at: i64) -> StoreResult<bool> {
        if !from.may_become(to) {
            return Ok(false);
        }
        let id = id.clone();
        self.with_conn(move |conn| {
            let moved = conn
                .prepare_cached("UPDATE orders SET state = ?3, updated_at = ?4 WHERE order_id = ?1 AND state = ?2")?
                .execute(params![id.as_str(), from.code(), to.code(), at])?;
            Ok(moved == 1)
        })
        .await
    }

    async fn list_for_user(&self, user_id: &UserId, limit: u32) -> StoreResult<Vec<Order>> {
        let user_id = user_id.clone();
        self.with_conn(move |conn| {
            let sql = format!(
                "SELECT {ORDER_COLUMNS} FROM orders WHERE user_id = ?1 ORDER BY created_at DESC, order_id DESC LIMIT ?2"
            );
            let mut statement = conn.prepare_cached(&sql)?;
            let rows = statement.query_map(params![user_id.as_str(), limit], order_columns)?;
            rows.map(|row| into_order(row?)).collect()
        })
        .await
    }

    async fn orders_since(&self, since: i64, limit: u32) -> StoreResult<Vec<Order>> {
        let now = crate::repo::payments::now_secs();
        let (since, until) = (crate::orders_since_floor(since, now), now + 86_400);
        self.with_conn(move |conn| {
            let sql = format!(
                "SELECT {ORDER_COLUMNS} FROM orders WHERE created_at >= ?1 AND created_at < ?2
                 ORDER BY created_at DESC, order_id DESC LIMIT ?3"
            );
            let mut statement = conn.prepare_cached(&sql)?;
            let rows = statement.query_map(params![since, until, limit], order_columns)?;
            rows.map(|row| into_order(row?)).collect()
        })
        .await
    }

    async fn latest_for_user(&self, user_id: &UserId) -> StoreResult<Option<Order>> {
        Ok(OrderRepo::list_for_user(self, user_id, 1).await?.into_iter().next())
    }

    async fn claim_payment(
        &self,
        route: PaymentRoute,
        provider_txn_id: &str,
        order_id: &OrderId,
        kind: PaymentClaimKind,
        at: i64,
    ) -> StoreResult<bool> {
        let (provider_txn_id, order_id) = (provider_txn_id.to_owned(), order_id.clone());
        self.with_conn(move |conn| {
            let inserted = conn
                .prepare_cached(
                    "INSERT INTO payment_claims (route, space, provider_txn_id, kind, order_id, claimed_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
                )?
                .execute(params![route.code(), kind.space(), provider_txn_id, kind.code(), order_id.as_str(), at])?;
            Ok(inserted == 1)
        })
        .await
    }

    async fn payment_claim(
        &self,
        route: PaymentRoute,
        kind: PaymentClaimKind,
        provider_txn_id: &str,
    ) -> StoreResult<Option<PaymentClaim>> {
        let provider_txn_id = provider_txn_id.to_owned();
        self.with_conn(move |conn| {
            let row: Option<(String, String, i64)> = conn
                .prepare_cached(
                    "SELECT kind, order_id, claimed_at FROM payment_claims
                     WHERE route = ?1 AND space = ?2 AND provider_txn_id = ?3",
                )?
                .query_row(params![route.code(), kind.space(), provider_txn_id], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                })
                .optional()?;
            row.map(|(kind, order_id, claimed_at)| {
                Ok(PaymentClaim {
                    route,
                    provider_txn_id: provider_txn_id.clone(),
                    order_id: OrderId::parse(&order_id).map_err(corrupt)?,
                    kind: PaymentClaimKind::from_code(&kind)?,
                    claimed_at,
                })
            })
            .transpose()
        })
        .await
    }

    async fn reverse(&self, order_id: &OrderId, reversal: crate::Reversal) -> StoreResult<amora_domain::money::Coins> {
        self.reverse_order(order_id, reversal).await
    }

    async fn reversed(&self, order_id: &OrderId) -> StoreResult<crate::ReversalTotals> {
        self.order_reversed(order_id).await
    }

    async fn claims_of(&self, order_id: &OrderId) -> StoreResult<Vec<PaymentClaim>> {
        let order_id = order_id.clone();
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT route, provider_txn_id, kind, claimed_at FROM payment_claims
                 WHERE order_id = ?1 ORDER BY claimed_at, provider_txn_id",
            )?;
            let rows = statement.query_map(params![order_id.as_str()], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, i64>(3)?,
                ))
            })?;
            let mut claims = Vec::new();
            for row in rows {
                let (route, provider_txn_id, kind, claimed_at) = row?;
                claims.push(PaymentClaim {
                    route: PaymentRoute::from_code(&route).map_err(corrupt)?,
                    provider_txn_id,
                    order_id: order_id.clone(),
                    kind: PaymentClaimKind::from_code(&kind)?,
                    claimed_at,
                });
            }
            Ok(claims)
        })
        .await
    }
}

#[async_trait]
impl SubscriptionRepo for EmbeddedStore {
    async fn create(&self, subscription: Subscription) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(&format!(
                "INSERT INTO subscriptions ({SUBSCRIPTION_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
            ))?
            .execute(params![
                subscription.subscription_id.as_str(),
                subscription.user_id.as_str(),
                ProductId::Plan(subscription.period).as_str(),
                subscription.route.code(),
                subscription.provider_ref,
                subscription.state.code(),
                subscription.started_at,
                subscription.current_period_end,
                subscription.created_at,
                subscription.updated_at,
            ])?;
            Ok(())
        })
        .await
    }

    async fn get(&self, id: &SubscriptionId) -> StoreResult<Option<Subscription>> {
        let id = id.clone();
        self.with_conn(move |conn| subscription_where(conn, "subscription_id = ?1", params![id.as_str()])).await
    }

    async fn by_provider_ref(&self, route: PaymentRoute, provider_ref: &str) -> StoreResult<Option<Subscription>> {
        let provider_ref = provider_ref.to_owned();
        self.with_conn(move |conn| {
            subscription_where(conn, "route = ?1 AND provider_ref = ?2", params![route.code(), provider_ref])
        })
        .await
    }

    async fn set_provider_ref(&self, id: &SubscriptionId, provider_ref: &str) -> StoreResult<bool> {
        let (id, provider_ref) = (id.clone(), provider_ref.to_owned());
        self.with_conn(move |conn| set_provider_ref_once(conn, "subscriptions", id.as_str(), &provider_ref)).await
    }

    async fn list_for_user(&self, user_id: &UserId) -> StoreResult<Vec<Subscription>> {
        let user_id = user_id.clone();
        self.with_conn(move |conn| {
            let sql = format!(
                "SELECT {SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE user_id = ?1
                 ORDER BY created_at DESC, subscription_id DESC"
            );
            let mut statement = conn.prepare_cached(&sql)?;
            let rows = statement.query_map(params![user_id.as_str()], subscription_columns)?;
            rows.map(|row| into_subscription(row?)).collect()
        })
        .await
    }

    async fn activate(&self, id: &SubscriptionId, started_at: i64, period_end: i64, at: i64) -> StoreResult<bool> {
        self.change_subscription(
            id,
            "state = 'active', started_at = ?2, current_period_end = ?3, updated_at = ?4",
            "state = 'pending'",
            [started_at, period_end, at],
        )
        .await
    }

    async fn renew(&self, id: &SubscriptionId, period_end: i64, at: i64) -> StoreResult<bool> {
        self.change_subscription(
            id,
            "current_period_end = ?2, updated_at = ?3",
            "state IN ('active', 'cancelled') AND current_period_end < ?2",
            [period_end, at],
        )
        .await
    }

    async fn cancel(&self, id: &SubscriptionId, at: i64) -> StoreResult<bool> {
        self.change_subscription(id, "state = 'cancelled', updated_at = ?2", "state = 'active'", [at]).await
    }

    async fn end(&self, id: &SubscriptionId, at: i64) -> StoreResult<bool> {
        self.change_subscription(
            id,
            "state = 'ended', updated_at = ?2",
            "state IN ('pending', 'active', 'cancelled')",
            [at],
        )
        .await
    }
}

impl EmbeddedStore {
    /// `UPDATE subscriptions SET {set} WHERE subscription_id = ?1 AND {only_if}`, with the
    /// integers `values` bound from `?2` on: true when it changed the row.
    async fn change_subscription<const N: usize>(
        &self,
        id: &SubscriptionId,
        set: &str,
        only_if: &str,
        values: [i64; N],
    ) -> StoreResult<bool> {
        let sql = format!("UPDATE subscriptions SET {set} WHERE subscription_id = ?1 AND {only_if}");
        let id = Value::Text(id.as_str().to_owned());
        self.with_conn(move |conn| {
            let values = std::iter::once(id).chain(values.into_iter().map(Value::Integer));
            Ok(conn.prepare_cached(&sql)?.execute(params_from_iter(values))? == 1)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every query of this module, as SQLite plans it: each must search an index, never
    /// scan a table.
    #[test]
    fn every_payment_query_searches_an_index() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = EmbeddedStore::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let conn = store.pool.get().unwrap_or_else(|e| panic!("{e}"));
        let queries = [
            format!("SELECT {ORDER_COLUMNS} FROM orders WHERE order_id = 'x'"),
            format!("SELECT {ORDER_COLUMNS} FROM orders WHERE route = 'paypal' AND provider_ref = 'x'"),
            format!(
                "SELECT {ORDER_COLUMNS} FROM orders WHERE user_id = 'u' ORDER BY created_at DESC, order_id DESC LIMIT 5"
            ),
            "UPDATE orders SET state = 'paid' WHERE order_id = 'x' AND state = 'pending'".into(),
            "SELECT kind FROM payment_claims WHERE route = 'paypal' AND space = 'in' AND provider_txn_id = 'x'".into(),
            format!("SELECT {SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE route = 'paypal' AND provider_ref = 'x'"),
            format!(
                "SELECT {SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE user_id = 'u'
                 ORDER BY created_at DESC, subscription_id DESC"
            ),
            "UPDATE subscriptions SET state = 'ended' WHERE subscription_id = 'x' AND state = 'active'".into(),
        ];
        for query in queries {
            let mut statement =
                conn.prepare(&format!("EXPLAIN QUERY PLAN {query}")).unwrap_or_else(|e| panic!("{e}: {query}"));
            let plan: Vec<String> = statement
                .query_map([], |row| row.get::<_, String>(3))
                .and_then(Iterator::collect)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(plan.iter().all(|step| step.starts_with("SEARCH")), "{query}\n{plan:?}");
        }
    }
}
