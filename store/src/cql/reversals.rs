//! Reversals of orders (refunds, chargebacks) over CQL (issue 28): one row per order in
//! `order_reversals` with the money given back, the coins taken back and each provider
//! transaction's share, changed only by a lightweight transaction on its `version`, so of
//! concurrent reversals on any nodes each sees the ones before it. A write whose answer was
//! lost is settled by the next delivery of the same reversal, which finds its share in
//! the row (or, when it never landed, takes it then).

use std::collections::HashMap;
use std::time::Duration;

use amora_domain::money::Coins;
use amora_domain::payment::OrderId;
use rand::Rng;
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::{Consistency, SerialConsistency};

use super::{CqlStore, Kind, Preparer};
use crate::{Reversal, ReversalTotals, StoreError, StoreResult, reversal_totals};

/// Attempts against concurrent reversals of the same order before giving up.
const MAX_ATTEMPTS: u32 = 64;

pub(super) struct Statements {
    /// Read at SERIAL, so that it sees every transaction that applied.
    read: PreparedStatement,
    create: PreparedStatement,
    add: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let mut read = p
            .prepare(
                "SELECT version, refunded_minor, reversed, shares FROM order_reversals WHERE order_id = ?",
                Kind::Idempotent,
            )
            .await?;
        read.set_consistency(match p.settings.serial_consistency {
            SerialConsistency::LocalSerial => Consistency::LocalSerial,
            _ => Consistency::Serial,
        });
        Ok(Self {
            read,
            create: p
                .prepare(
                    "INSERT INTO order_reversals (order_id, version, refunded_minor, reversed, shares)
                     VALUES (?, 1, ?, ?, ?) IF NOT EXISTS",
                    Kind::Conditional,
                )
                .await?,
            add: p
                .prepare(
                    "UPDATE order_reversals SET version = ?, refunded_minor = ?, reversed = ?, shares = shares + ?
                     WHERE order_id = ? IF version = ?",
                    Kind::Conditional,
                )
                .await?,
        })
    }
}

type ReversalRow = (i64, i64, i64, Option<HashMap<String, i64>>);

async fn pause(attempt: u32) {
    let millis = rand::thread_rng().gen_range(2..=10 * u64::from(attempt.min(20)));
    tokio::time::sleep(Duration::from_millis(millis)).await;
}

impl CqlStore {
    async fn reversal_row(&self, order_id: &OrderId) -> StoreResult<Option<ReversalRow>> {
        self.first(&self.statements.reversals.read, (order_id.as_str(),)).await
    }

    pub(super) async fn reverse_order(&self, order_id: &OrderId, reversal: Reversal) -> StoreResult<Coins> {
        let s = &self.statements.reversals;
        for attempt in 1..=MAX_ATTEMPTS {
            let row = self.reversal_row(order_id).await?;
            if let Some((_, _, _, Some(shares))) = &row
                && let Some(coins) = shares.get(&reversal.provider_txn_id)
            {
                return Ok(Coins::stored(*coins));
            }
            let before = row.as_ref().map_or(ReversalTotals::default(), |(_, refunded_minor, reversed, _)| {
                ReversalTotals { refunded_minor: *refunded_minor, reversed: Coins::stored(*reversed) }
            });
            let after = reversal_totals(before, &reversal);
            let taken = after.reversed.units() - before.reversed.units();
            let share = HashMap::from([(reversal.provider_txn_id.clone(), taken)]);
            let applied = match &row {
                None => {
                    let values = (order_id.as_str(), after.refunded_minor, after.reversed.units(), share);
                    self.conditional(&s.create, values).await?
                }
                Some((version, ..)) => {
                    let values =
                        (version + 1, after.refunded_minor, after.reversed.units(), share, order_id.as_str(), *version);
                    self.conditional(&s.add, values).await?
                }
            };
            if applied {
                return Ok(Coins::stored(taken));
            }
            pause(attempt).await;
        }
        Err(StoreError::Unavailable(format!("the reversals of {order_id} stayed contended")))
    }

    pub(super) async fn order_reversed(&self, order_id: &OrderId) -> StoreResult<ReversalTotals> {
        Ok(self.reversal_row(order_id).await?.map_or(ReversalTotals::default(), |(_, refunded_minor, reversed, _)| {
            ReversalTotals { refunded_minor, reversed: Coins::stored(reversed) }
        }))
    }
}
