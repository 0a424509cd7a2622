//! The coin ledger in SQLite: a row and the balance change in one IMMEDIATE transaction,
//! so concurrent debits from any number of processes on the same file serialise and the
//! balance never goes below zero.

use amora_domain::account::UserId;
use amora_domain::money::{Coins, TxnId};
use async_trait::async_trait;
use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::EmbeddedStore;
use crate::{LedgerEntry, LedgerOutcome, LedgerRepo, StoreError, StoreResult};

#[async_trait]
impl LedgerRepo for EmbeddedStore {
    async fn apply(&self, entry: LedgerEntry) -> StoreResult<LedgerOutcome> {
        self.with_conn(move |conn| {
            // IMMEDIATE takes the write lock up front: two writers never both read a
            // balance and then race to change it.
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let user = entry.user_id.as_str();
            let balance: Option<i64> = tx
                .query_row("SELECT coin FROM users WHERE user_id = ?1", params![user], |row| row.get(0))
                .optional()?;
            let Some(balance) = balance else {
                return Ok(LedgerOutcome::NoAccount);
            };
            // Rows applied so far: the sequence the balance is at.
            let current: i64 =
                tx.query_row("SELECT COALESCE(MAX(seq), 0) FROM ledger WHERE user_id = ?1", params![user], |row| {
                    row.get(0)
                })?;
            let replayed: Option<i64> = tx
                .query_row(
                    "SELECT 1 FROM ledger WHERE user_id = ?1 AND txn_id = ?2",
                    params![user, entry.txn_id.as_str()],
                    |row| row.get(0),
                )
                .optional()?;
            if replayed.is_some() {
                return Ok(LedgerOutcome::Replayed { balance: Coins::stored(balance), seq: current });
            }
            let after = balance
                .checked_add(entry.delta.units())
                .ok_or_else(|| StoreError::Corrupt("balance overflow".into()))?;
            if after < 0 {
                return Ok(LedgerOutcome::Insufficient { balance: Coins::stored(balance), seq: current });
            }
            let seq = current + 1;
            tx.execute(
                "INSERT INTO ledger (user_id, txn_id, delta, reason, balance_after, created_at, seq)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![user, entry.txn_id.as_str(), entry.delta.units(), entry.reason, after, entry.created_at, seq],
            )?;
            tx.execute("UPDATE users SET coin = ?2 WHERE user_id = ?1 AND coin = ?3", params![user, after, balance])?;
            tx.commit()?;
            Ok(LedgerOutcome::Applied { balance: Coins::stored(after), seq })
        })
        .await
    }

    async fn balance(&self, user_id: &UserId) -> StoreResult<Option<(Coins, i64)>> {
        let user = user_id.clone();
        self.with_conn(move |conn| {
            // One statement reads both from one snapshot of the file.
            let read = conn
                .prepare_cached(
                    "SELECT coin, (SELECT COALESCE(MAX(seq), 0) FROM ledger WHERE user_id = ?1)
                     FROM users WHERE user_id = ?1",
                )?
                .query_row(params![user.as_str()], |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)))
                .optional()?;
            Ok(read.map(|(coin, seq)| (Coins::stored(coin), seq)))
        })
        .await
    }

    async fn rows(&self, user_id: &UserId) -> StoreResult<Vec<LedgerEntry>> {
        let user = user_id.clone();
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT txn_id, delta, reason, created_at FROM ledger WHERE user_id = ?1 ORDER BY seq",
            )?;
            let rows = statement.query_map(params![user.as_str()], |row| {
                let txn_id: String = row.get(0)?;
                Ok(LedgerEntry {
                    user_id: user.clone(),
                    txn_id: TxnId::parse(&txn_id).map_err(|e| {
                        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
                    })?,
                    delta: Coins::stored(row.get(1)?),
                    reason: row.get(2)?,
                    created_at: row.get(3)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }
}
