//! Reversals of orders (refunds, chargebacks) in SQLite (issue 28): one row per provider
//! transaction in `order_reversals`, with the money it gave back and the coins it took;
//! an order's totals are the sums of its rows. A reversal counts and writes in one
//! IMMEDIATE transaction, so no other reversal of the order lands in between.

use amora_domain::money::Coins;
use amora_domain::payment::OrderId;
use rusqlite::{OptionalExtension, params};

use super::EmbeddedStore;
use crate::{Reversal, ReversalTotals, StoreResult, reversal_totals};

fn totals(conn: &rusqlite::Connection, order_id: &str) -> StoreResult<ReversalTotals> {
    let (refunded_minor, reversed): (i64, i64) = conn
        .prepare_cached(
            "SELECT COALESCE(SUM(refunded_minor), 0), COALESCE(SUM(coins), 0) FROM order_reversals
             WHERE order_id = ?1",
        )?
        .query_row(params![order_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(ReversalTotals { refunded_minor, reversed: Coins::stored(reversed) })
}

impl EmbeddedStore {
    pub(super) async fn reverse_order(&self, order_id: &OrderId, reversal: Reversal) -> StoreResult<Coins> {
        let order_id = order_id.clone();
        self.with_conn(move |conn| {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let earlier: Option<i64> = tx
                .prepare_cached("SELECT coins FROM order_reversals WHERE order_id = ?1 AND provider_txn_id = ?2")?
                .query_row(params![order_id.as_str(), reversal.provider_txn_id], |row| row.get(0))
                .optional()?;
            if let Some(coins) = earlier {
                return Ok(Coins::stored(coins));
            }
            let before = totals(&tx, order_id.as_str())?;
            let after = reversal_totals(before, &reversal);
            let taken = after.reversed.units() - before.reversed.units();
            tx.prepare_cached(
                "INSERT INTO order_reversals (order_id, provider_txn_id, refunded_minor, coins, at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                order_id.as_str(),
                reversal.provider_txn_id,
                after.refunded_minor - before.refunded_minor,
                taken,
                reversal.at,
            ])?;
            tx.commit()?;
            Ok(Coins::stored(taken))
        })
        .await
    }

    pub(super) async fn order_reversed(&self, order_id: &OrderId) -> StoreResult<ReversalTotals> {
        let order_id = order_id.clone();
        self.with_conn(move |conn| totals(conn, order_id.as_str())).await
    }
}
