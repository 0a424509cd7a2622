//! The pending-debit journal in SQLite (issue 28): `pending_debits`, one row per debit
//! whose outcome is not stored yet, and `node_leases`, until when each node run said it is
//! alive. Every change is one statement, so of concurrent callers on one file (nodes
//! sharing it included) one opens, takes over or closes a row.

use amora_domain::account::UserId;
use async_trait::async_trait;
use rusqlite::{OptionalExtension, Row, params};

use super::EmbeddedStore;
use crate::{PendingDebit, PendingDebitRepo, StoreError, StoreResult};

/// How long a lapsed lease is kept, so a late reader still sees that it lapsed.
const FORGET_LEASES_AFTER: i64 = 86_400;

const COLUMNS: &str = "debit_id, user_id, kind, detail, owner, created_at";

fn read_row(row: &Row<'_>) -> rusqlite::Result<(String, String, String, String, String, i64)> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?))
}

fn to_debit(raw: (String, String, String, String, String, i64)) -> StoreResult<PendingDebit> {
    let (debit_id, user_id, kind, detail, owner, created_at) = raw;
    let user_id = UserId::parse(&user_id).map_err(|e| StoreError::Corrupt(format!("pending debit user: {e}")))?;
    Ok(PendingDebit { debit_id, user_id, kind, detail, owner, created_at })
}

#[async_trait]
impl PendingDebitRepo for EmbeddedStore {
    async fn open_debit(&self, row: PendingDebit) -> StoreResult<bool> {
        self.with_conn(move |conn| {
            let written = conn
                .prepare_cached(&format!(
                    "INSERT INTO pending_debits ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT (debit_id) DO NOTHING"
                ))?
                .execute(params![
                    row.debit_id,
                    row.user_id.as_str(),
                    row.kind,
                    row.detail,
                    row.owner,
                    row.created_at
                ])?;
            Ok(written == 1)
        })
        .await
    }

    async fn pending_debit(&self, debit_id: &str) -> StoreResult<Option<PendingDebit>> {
        let debit_id = debit_id.to_owned();
        self.with_conn(move |conn| {
            let raw = conn
                .prepare_cached(&format!("SELECT {COLUMNS} FROM pending_debits WHERE debit_id = ?1"))?
                .query_row(params![debit_id], read_row)
                .optional()?;
            raw.map(to_debit).transpose()
        })
        .await
    }

    async fn pending_debits(&self, limit: u32) -> StoreResult<Vec<PendingDebit>> {
        self.with_conn(move |conn| {
            let mut statement =
                conn.prepare_cached(&format!("SELECT {COLUMNS} FROM pending_debits ORDER BY created_at LIMIT ?1"))?;
            let raw =
                statement.query_map(params![i64::from(limit)], read_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
            raw.into_iter().map(to_debit).collect()
        })
        .await
    }

    async fn take_over_debit(&self, debit_id: &str, from: &str, to: &str) -> StoreResult<bool> {
        let (debit_id, from, to) = (debit_id.to_owned(), from.to_owned(), to.to_owned());
        self.with_conn(move |conn| {
            let changed = conn
                .prepare_cached("UPDATE pending_debits SET owner = ?3 WHERE debit_id = ?1 AND owner = ?2")?
                .execute(params![debit_id, from, to])?;
            Ok(changed == 1)
        })
        .await
    }

    async fn close_debit(&self, debit_id: &str) -> StoreResult<bool> {
        let debit_id = debit_id.to_owned();
        self.with_conn(move |conn| {
            let deleted =
                conn.prepare_cached("DELETE FROM pending_debits WHERE debit_id = ?1")?.execute(params![debit_id])?;
            Ok(deleted == 1)
        })
        .await
    }

    async fn renew_lease(&self, owner: &str, until: i64) -> StoreResult<()> {
        let owner = owner.to_owned();
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO node_leases (owner, until) VALUES (?1, ?2)
                 ON CONFLICT (owner) DO UPDATE SET until = MAX(until, excluded.until)",
            )?
            .execute(params![owner, until])?;
            // Runs long gone need no lease: one per run would pile up otherwise.
            conn.prepare_cached("DELETE FROM node_leases WHERE until < ?1")?
                .execute(params![until - FORGET_LEASES_AFTER])?;
            Ok(())
        })
        .await
    }

    async fn lease(&self, owner: &str) -> StoreResult<Option<i64>> {
        let owner = owner.to_owned();
        self.with_conn(move |conn| {
            Ok(conn
                .prepare_cached("SELECT until FROM node_leases WHERE owner = ?1")?
                .query_row(params![owner], |row| row.get(0))
                .optional()?)
        })
        .await
    }
}
