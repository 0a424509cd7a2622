//! The pending-debit journal over CQL (issue 28): `pending_debits`, one partition per
//! debit, written only by lightweight transactions (open if absent, take over if the owner
//! is still the one read, delete if present) so that of concurrent recoveries on several
//! nodes one settles a row; and `node_leases`, each node run's lease, kept a day by TTL.

use amora_domain::account::UserId;
use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::{PendingDebit, PendingDebitRepo, StoreError, StoreResult};

pub(super) struct Statements {
    open: PreparedStatement,
    get: PreparedStatement,
    list: PreparedStatement,
    take_over: PreparedStatement,
    close: PreparedStatement,
    renew: PreparedStatement,
    lease: PreparedStatement,
}

const COLUMNS: &str = "debit_id, user_id, kind, detail, owner, created_at";

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            open: p
                .prepare(
                    &format!("INSERT INTO pending_debits ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS"),
                    Kind::Conditional,
                )
                .await?,
            get: p
                .prepare(&format!("SELECT {COLUMNS} FROM pending_debits WHERE debit_id = ?"), Kind::Idempotent)
                .await?,
            list: p.prepare(&format!("SELECT {COLUMNS} FROM pending_debits LIMIT ?"), Kind::Idempotent).await?,
            take_over: p
                .prepare("UPDATE pending_debits SET owner = ? WHERE debit_id = ? IF owner = ?", Kind::Conditional)
                .await?,
            close: p.prepare("DELETE FROM pending_debits WHERE debit_id = ? IF EXISTS", Kind::Conditional).await?,
            // Only the run itself writes its lease, one renewal after another.
            renew: p
                .prepare("INSERT INTO node_leases (owner, until) VALUES (?, ?) USING TTL 86400", Kind::Idempotent)
                .await?,
            lease: p.prepare("SELECT until FROM node_leases WHERE owner = ?", Kind::Idempotent).await?,
        })
    }
}

type RawRow = (String, String, String, String, String, i64);

fn to_debit(raw: RawRow) -> StoreResult<PendingDebit> {
    let (debit_id, user_id, kind, detail, owner, created_at) = raw;
    let user_id = UserId::parse(&user_id).map_err(|e| StoreError::Corrupt(format!("pending debit user: {e}")))?;
    Ok(PendingDebit { debit_id, user_id, kind, detail, owner, created_at })
}

#[async_trait]
impl PendingDebitRepo for CqlStore {
    async fn open_debit(&self, row: PendingDebit) -> StoreResult<bool> {
        let s = &self.statements.pending;
        self.conditional(
            &s.open,
            (&row.debit_id, row.user_id.as_str(), &row.kind, &row.detail, &row.owner, row.created_at),
        )
        .await
    }

    async fn pending_debit(&self, debit_id: &str) -> StoreResult<Option<PendingDebit>> {
        let raw: Option<RawRow> = self.first(&self.statements.pending.get, (debit_id,)).await?;
        raw.map(to_debit).transpose()
    }

    async fn pending_debits(&self, limit: u32) -> StoreResult<Vec<PendingDebit>> {
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        let raw: Vec<RawRow> = self.paged(&self.statements.pending.list, (limit,)).await?;
        raw.into_iter().map(to_debit).collect()
    }

    async fn take_over_debit(&self, debit_id: &str, from: &str, to: &str) -> StoreResult<bool> {
        self.conditional(&self.statements.pending.take_over, (to, debit_id, from)).await
    }

    async fn close_debit(&self, debit_id: &str) -> StoreResult<bool> {
        self.conditional(&self.statements.pending.close, (debit_id,)).await
    }

    async fn renew_lease(&self, owner: &str, until: i64) -> StoreResult<()> {
        self.run(&self.statements.pending.renew, (owner, until)).await?;
        Ok(())
    }

    async fn lease(&self, owner: &str) -> StoreResult<Option<i64>> {
        let row: Option<(i64,)> = self.first(&self.statements.pending.lease, (owner,)).await?;
        Ok(row.map(|(until,)| until))
    }
}
