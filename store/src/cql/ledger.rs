//! The coin ledger over CQL. The balance (`coin`) and a sequence number (`ledger_seq`) are
//! static columns of the account's partition, and each ledger row clusters under it; an
//! entry is applied by one conditional batch on that partition: the balance moves only
//! if `ledger_seq` is still the one read (compare-and-set), and the row goes in only if its
//! `txn_id` is new. Both happen or neither, so the balance always equals the sum of the rows.

use std::time::Duration;

use amora_domain::account::UserId;
use amora_domain::money::{Coins, TxnId};
use async_trait::async_trait;
use rand::Rng;
use scylla::statement::batch::{Batch, BatchType};
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, applied, unavailable};
use crate::{LedgerEntry, LedgerOutcome, LedgerRepo, StoreError, StoreResult};

/// Attempts of the compare-and-set before the store reports itself unavailable; each lost
/// round means another entry of the same account was applied meanwhile.
const MAX_ATTEMPTS: u32 = 200;
/// How many failed (not merely lost) conditional writes one change retries before it gives up.
const MAX_FAILED_WRITES: u32 = 5;

pub(super) struct Statements {
    balance: PreparedStatement,
    entry: PreparedStatement,
    rows: PreparedStatement,
    apply: Batch,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let set_balance = p
            .prepare(
                "UPDATE accounts SET coin = ?, ledger_seq = ? WHERE user_id = ? IF ledger_seq = ?",
                Kind::Conditional,
            )
            .await?;
        let insert_row = p
            .prepare(
                "INSERT INTO accounts (user_id, txn_id, delta, reason, balance_after, seq, txn_created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS",
                Kind::Conditional,
            )
            .await?;
        let mut apply = Batch::new(BatchType::Logged);
        apply.append_statement(set_balance);
        apply.append_statement(insert_row);
        apply.set_consistency(p.settings.consistency);
        apply.set_serial_consistency(Some(p.settings.serial_consistency));
        apply.set_request_timeout(Some(p.settings.request_timeout));
        apply.set_is_idempotent(false);
        Ok(Self {
            balance: p
                .prepare("SELECT user_no, coin, ledger_seq FROM accounts WHERE user_id = ? LIMIT 1", Kind::Idempotent)
                .await?,
            entry: p.prepare("SELECT txn_id FROM accounts WHERE user_id = ? AND txn_id = ?", Kind::Idempotent).await?,
            rows: p
                .prepare(
                    "SELECT txn_id, delta, reason, txn_created_at, seq FROM accounts WHERE user_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            apply,
        })
    }
}

/// What the account looks like before an attempt.
enum Before {
    NoAccount,
    Replayed { balance: i64, seq: i64 },
    At { balance: i64, seq: i64 },
}

impl CqlStore {
    async fn before(&self, entry: &LedgerEntry) -> StoreResult<Before> {
        let s = &self.statements.ledger;
        let user = entry.user_id.as_str();
        let row: Option<(Option<String>, Option<i64>, Option<i64>)> = self.first(&s.balance, (user,)).await?;
        let Some((Some(_), coin, seq)) = row else { return Ok(Before::NoAccount) };
        let balance = coin.unwrap_or(0);
        let existing: Option<(String,)> = self.first(&s.entry, (user, entry.txn_id.as_str())).await?;
        if existing.is_some() {
            return Ok(Before::Replayed { balance, seq: seq.unwrap_or(0) });
        }
        Ok(Before::At { balance, seq: seq.unwrap_or(0) })
    }
}

#[async_trait]
impl LedgerRepo for CqlStore {
    async fn balance(&self, user_id: &UserId) -> StoreResult<Option<(Coins, i64)>> {
        // Both are static columns of the account's partition, read in one row.
        let row: Option<(Option<String>, Option<i64>, Option<i64>)> =
            self.first(&self.statements.ledger.balance, (user_id.as_str(),)).await?;
        let Some((Some(_), coin, seq)) = row else { return Ok(None) };
        Ok(Some((Coins::stored(coin.unwrap_or(0)), seq.unwrap_or(0))))
    }

    async fn apply(&self, entry: LedgerEntry) -> StoreResult<LedgerOutcome> {
        let user = entry.user_id.as_str();
        // A conditional batch that failed (typically Cassandra's CAS write timeout when many
        // writers contend for one balance) may or may not have been applied. Retrying is safe:
        // the next read finds this txn_id if it landed, and the batch is conditional on seq.
        let mut failed_writes = 0;
        for attempt in 0..MAX_ATTEMPTS {
            let (balance, seq) = match self.before(&entry).await? {
                Before::NoAccount => return Ok(LedgerOutcome::NoAccount),
                // Our own uncertain write landed: it is this call's entry, not a replay.
                Before::Replayed { balance, seq } if failed_writes > 0 => {
                    return Ok(LedgerOutcome::Applied { balance: Coins::stored(balance), seq });
                }
                Before::Replayed { balance, seq } => {
                    return Ok(LedgerOutcome::Replayed { balance: Coins::stored(balance), seq });
                }
                Before::At { balance, seq } => (balance, seq),
            };
            let after = balance
                .checked_add(entry.delta.units())
                .ok_or_else(|| StoreError::Corrupt("balance overflow".into()))?;
            if after < 0 {
                return Ok(LedgerOutcome::Insufficient { balance: Coins::stored(balance), seq });
            }
            let values = (
                (after, seq + 1, user, seq),
                (user, entry.txn_id.as_str(), entry.delta.units(), &entry.reason, after, seq + 1, entry.created_at),
            );
            self.count_round_trip();
            let result = match self.session.batch(&self.statements.ledger.apply, values).await {
                Ok(result) => result,
                Err(error) if failed_writes < MAX_FAILED_WRITES => {
                    failed_writes += 1;
                    tracing::warn!(%user, %error, "ledger write failed or timed out; reading again before a retry");
                    let pause = rand::thread_rng().gen_range(5..=50);
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                    continue;
                }
                Err(error) => return Err(unavailable(error)),
            };
            if applied(result)? {
                return Ok(LedgerOutcome::Applied { balance: Coins::stored(after), seq: seq + 1 });
            }
            // Lost the round to another entry (or this txn_id arrived meanwhile): read
            // again. A short random pause keeps contending writers from colliding in step.
            let pause = rand::thread_rng().gen_range(1..=(2 + attempt.min(20) * 2));
            tokio::time::sleep(Duration::from_millis(u64::from(pause))).await;
        }
        Err(StoreError::Unavailable(format!("the balance of {user} stayed contended for {MAX_ATTEMPTS} attempts")))
    }

    async fn rows(&self, user_id: &UserId) -> StoreResult<Vec<LedgerEntry>> {
        type LedgerRow = (Option<String>, Option<i64>, Option<String>, Option<i64>, Option<i64>);
        let rows: Vec<LedgerRow> = self.paged(&self.statements.ledger.rows, (user_id.as_str(),)).await?;
        // The account's own (static) row comes back with no txn_id; the rest are entries.
        let mut entries: Vec<(i64, LedgerEntry)> = rows
            .into_iter()
            .filter_map(|(txn_id, delta, reason, created_at, seq)| {
                Some((
                    seq.unwrap_or(0),
                    LedgerEntry {
                        user_id: user_id.clone(),
                        // Written through `TxnId` only; a row that does not parse is not ours.
                        txn_id: TxnId::parse(&txn_id?).ok()?,
                        delta: Coins::stored(delta.unwrap_or(0)),
                        reason: reason.unwrap_or_default(),
                        created_at: created_at.unwrap_or(0),
                    },
                ))
            })
            .collect();
        entries.sort_by_key(|(seq, _)| *seq);
        Ok(entries.into_iter().map(|(_, entry)| entry).collect())
    }
}
