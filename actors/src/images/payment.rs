//! What an image job costs the user: the one debit for the whole job before it starts, and
//! the compensating credit of each image that fails, times out or is cancelled.

use std::time::Duration;

use amora_domain::account::UserId;
use amora_domain::chat::EntryId;
use amora_domain::money::Coins;
use amora_store::LedgerOutcome;

use super::{ImageError, ImageJobs};
use crate::pending::{image_debit_txn, image_refund_txn};
use crate::user::{Credit, Debit, UserAddr};

impl ImageJobs {
    /// Debits the whole job; the balance after it.
    pub(super) async fn pay(&self, user_id: &UserId, job_id: EntryId, cost: Coins) -> Result<Coins, ImageError> {
        let txn_id = image_debit_txn(job_id);
        let actor = self.inner.registry.send(UserAddr(user_id.clone())).await?;
        let debit = Debit { amount: cost, reason: "image".into(), txn_id };
        match actor.send(debit).await?? {
            LedgerOutcome::Applied { balance, .. } | LedgerOutcome::Replayed { balance, .. } => Ok(balance),
            LedgerOutcome::Insufficient { balance, .. } => Err(ImageError::NeedPay { cost, balance }),
            LedgerOutcome::NoAccount => Err(ImageError::NoAccount),
        }
    }

    /// Gives one image's price back; what was given (nothing when the ledger could not be
    /// written: logged, and the same row is tried a few times).
    pub(super) async fn refund(&self, user_id: &UserId, image_id: EntryId) -> Coins {
        let amount = self.inner.cost_per_image;
        let txn_id = image_refund_txn(image_id);
        for attempt in 0..3 {
            let credit = Credit { amount, reason: "image refund".into(), txn_id: txn_id.clone() };
            let outcome = match self.inner.registry.send(UserAddr(user_id.clone())).await {
                Ok(actor) => {
                    actor.send(credit).await.map_err(|e| e.to_string()).and_then(|r| r.map_err(|e| e.to_string()))
                }
                Err(error) => Err(error.to_string()),
            };
            match outcome {
                Ok(LedgerOutcome::Applied { .. } | LedgerOutcome::Replayed { .. }) => return amount,
                Ok(other) => {
                    tracing::error!(?other, image = %image_id, "an image refund was not applied");
                    return Coins::ZERO;
                }
                Err(error) => {
                    tracing::error!(%error, attempt, image = %image_id, "an image refund failed");
                    tokio::time::sleep(Duration::from_millis(200 * (attempt + 1))).await;
                }
            }
        }
        Coins::ZERO
    }
}
