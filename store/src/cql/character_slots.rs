//! The room each creator has for characters, over CQL (issue 28: `characters_per_user`
//! could be raced by counting and then saving). CQL has no transaction across the rows of
//! one creator, so a new character first takes a slot in `character_slots`, one row per
//! creator, by a lightweight transaction on its `version`, and is saved after.
//!
//! A creator's characters are those of `characters_by_creator` (what existed before this
//! table, so nothing needs migrating) together with the slots of the row: a slot is a
//! character id and when it was taken. A slot is given back when its save fails and when
//! its character is deleted; one left behind by a crash (its character never saved, or
//! deleted without giving it back) is dropped by the next reservation once it is older
//! than [`SLOT_GRACE_MS`], far longer than a reservation takes to become a saved character.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use amora_domain::account::UserId;
use rand::Rng;
use scylla::statement::Consistency;
use scylla::statement::SerialConsistency;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::{StoreError, StoreResult};

/// How long a slot whose character is not (or no longer) in the creator index is kept.
pub(super) const SLOT_GRACE_MS: i64 = 10 * 60 * 1000;
/// Reservations tried against concurrent writers of the same creator before giving up.
const MAX_ATTEMPTS: u32 = 64;

pub(super) struct Statements {
    /// Read at SERIAL, so that it sees every transaction that applied.
    read: PreparedStatement,
    create: PreparedStatement,
    replace: PreparedStatement,
    drop: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let mut read =
            p.prepare("SELECT version, ids FROM character_slots WHERE creator_id = ?", Kind::Idempotent).await?;
        read.set_consistency(match p.settings.serial_consistency {
            SerialConsistency::LocalSerial => Consistency::LocalSerial,
            _ => Consistency::Serial,
        });
        Ok(Self {
            read,
            create: p
                .prepare(
                    "INSERT INTO character_slots (creator_id, version, ids) VALUES (?, 1, ?) IF NOT EXISTS",
                    Kind::Conditional,
                )
                .await?,
            replace: p
                .prepare(
                    "UPDATE character_slots SET version = ?, ids = ? WHERE creator_id = ? IF version = ?",
                    Kind::Conditional,
                )
                .await?,
            drop: p.prepare("DELETE FROM character_slots WHERE creator_id = ? IF EXISTS", Kind::Conditional).await?,
        })
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A short random pause between attempts, longer with each, so contenders fall out of step.
async fn pause(attempt: u32) {
    let millis = rand::thread_rng().gen_range(2..=10 * u64::from(attempt.min(20)));
    tokio::time::sleep(Duration::from_millis(millis)).await;
}

impl CqlStore {
    /// The creator's slot row: its version and slots; `None` when it has none yet.
    async fn slots(&self, creator: &UserId) -> StoreResult<Option<(i64, HashMap<String, i64>)>> {
        let row: Option<(i64, Option<HashMap<String, i64>>)> =
            self.first(&self.statements.character_slots.read, (creator.as_str(),)).await?;
        Ok(row.map(|(version, ids)| (version, ids.unwrap_or_default())))
    }

    /// Writes `ids` over the row read at `version` (`None`: there was no row); true when
    /// no other writer came first.
    async fn replace_slots(
        &self,
        creator: &UserId,
        version: Option<i64>,
        ids: HashMap<String, i64>,
    ) -> StoreResult<bool> {
        let s = &self.statements.character_slots;
        match version {
            None => self.conditional(&s.create, (creator.as_str(), ids)).await,
            Some(version) => self.conditional(&s.replace, (version + 1, ids, creator.as_str(), version)).await,
        }
    }

    /// Takes a slot for the character `id` of `creator` when they have fewer than `limit`
    /// characters besides it: true when it holds one (now, or from an earlier attempt).
    pub(super) async fn reserve_slot(&self, creator: &UserId, id: &str, limit: u64) -> StoreResult<bool> {
        for attempt in 1..=MAX_ATTEMPTS {
            let row = self.slots(creator).await?;
            let (version, mut ids) = match row {
                Some((version, ids)) => (Some(version), ids),
                None => (None, HashMap::new()),
            };
            if ids.contains_key(id) {
                return Ok(true);
            }
            let saved: HashSet<String> =
                self.creator_index(creator, i32::MAX).await?.into_iter().map(|(_, saved)| saved).collect();
            let now = now_ms();
            // Slots of characters that are saved count through the index; those not saved
            // count while they may still be on their way.
            ids.retain(|slot, taken_at| saved.contains(slot) || now - *taken_at < SLOT_GRACE_MS);
            let used = saved.iter().filter(|saved| saved.as_str() != id).count()
                + ids.keys().filter(|slot| !saved.contains(*slot)).count();
            if u64::try_from(used).unwrap_or(u64::MAX) >= limit {
                return Ok(false);
            }
            ids.insert(id.to_owned(), now);
            if self.replace_slots(creator, version, ids).await? {
                return Ok(true);
            }
            pause(attempt).await;
        }
        Err(StoreError::Unavailable(format!("the character slots of {creator} stayed contended")))
    }

    /// Gives back the slot of `id` (its save failed, or it was deleted). Best effort: a slot
    /// that stays is dropped by a later reservation once its character is gone and its
    /// grace is over.
    pub(super) async fn release_slot(&self, creator: &UserId, id: &str) {
        for attempt in 1..=MAX_ATTEMPTS {
            let outcome = async {
                let Some((version, mut ids)) = self.slots(creator).await? else { return Ok(true) };
                if ids.remove(id).is_none() {
                    return Ok(true);
                }
                self.replace_slots(creator, Some(version), ids).await
            }
            .await;
            match outcome {
                Ok(true) => return,
                Ok(false) => pause(attempt).await,
                Err(error) => {
                    tracing::warn!(%error, %creator, character = id, "a character slot was not given back");
                    return;
                }
            }
        }
        tracing::warn!(%creator, character = id, "a character slot was not given back: contended");
    }

    /// Forgets every slot of `creator` (their account's characters are all deleted).
    pub(super) async fn drop_slots(&self, creator: &UserId) -> StoreResult<()> {
        self.conditional(&self.statements.character_slots.drop, (creator.as_str(),)).await?;
        Ok(())
    }
}
