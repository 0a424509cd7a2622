//! The block counts of each gender's catalogue listing over CQL (`crate::listing`):
//! `character_card_blocks`, one partition per gender, counts the cards of
//! `character_cards_by_gender`. A recount reads a block's keys and writes its counts in a
//! conditional batch on the block's `version`, so two writers recounting one block at once
//! cannot leave a count that misses a card: the later one fails its condition and counts
//! again. (A lightweight transaction beyond money and uniqueness: without it concurrent
//! approvals would drift the counts, and a drifted count lists the wrong page for everyone.)

use std::collections::{HashMap, HashSet};

use scylla::serialize::row::SerializeRow;
use scylla::statement::batch::{Batch, BatchType};
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, applied, corrupt, unavailable};
use crate::listing::{self, Block, CardKey, ListedRow, MAX_BLOCK_ROWS, Recount, cut, recount};
use crate::{StoreError, StoreResult};

/// A card's gender code and place in its listing.
pub(super) type Placed = (i32, CardKey);

/// Recounts given up after this many lost races on one block.
const ATTEMPTS: usize = 32;
/// Blocks one recount writes at most: a conditional batch stays well under the server's
/// batch size limit; what is left stays in the last piece, cut by the next recount.
const MAX_PIECES: usize = 64;

pub(super) struct Statements {
    blocks: PreparedStatement,
    keys_between: PreparedStatement,
    keys_from: PreparedStatement,
    update_if: PreparedStatement,
    insert: PreparedStatement,
    insert_if_new: PreparedStatement,
    delete_if: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            blocks: p
                .prepare(
                    "SELECT fence_rank, fence_id, card_rows, members, everyone, version
                     FROM character_card_blocks WHERE gender = ?",
                    Kind::Idempotent,
                )
                .await?,
            keys_between: p
                .prepare(
                    "SELECT rank, character_id, restricted FROM character_cards_by_gender
                     WHERE gender = ? AND (rank, character_id) >= (?, ?) AND (rank, character_id) < (?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            keys_from: p
                .prepare(
                    "SELECT rank, character_id, restricted FROM character_cards_by_gender
                     WHERE gender = ? AND (rank, character_id) >= (?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            update_if: p
                .prepare(
                    "UPDATE character_card_blocks SET card_rows = ?, members = ?, everyone = ?, version = ?
                     WHERE gender = ? AND fence_rank = ? AND fence_id = ? IF version = ?",
                    Kind::Conditional,
                )
                .await?,
            insert: p
                .prepare(
                    "INSERT INTO character_card_blocks (gender, fence_rank, fence_id, card_rows, members, everyone,
                        version)
                     VALUES (?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            insert_if_new: p
                .prepare(
                    "INSERT INTO character_card_blocks (gender, fence_rank, fence_id, card_rows, members, everyone,
                        version)
                     VALUES (?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS",
                    Kind::Conditional,
                )
                .await?,
            delete_if: p
                .prepare(
                    "DELETE FROM character_card_blocks WHERE gender = ? AND fence_rank = ? AND fence_id = ?
                     IF version = ?",
                    Kind::Conditional,
                )
                .await?,
        })
    }
}

/// A stored block with the version its next recount is conditional on.
pub(super) struct StoredBlock {
    pub(super) block: Block,
    version: i64,
}

type BlockRow = (i64, String, i32, i32, i32, i64);

/// One statement of a conditional batch with its values.
type Write = (PreparedStatement, Box<dyn SerializeRow + Send + Sync>);

impl CqlStore {
    /// The blocks of `gender`'s listing in order (empty before the first recount).
    pub(super) async fn listing_blocks(&self, gender: i32) -> StoreResult<Vec<StoredBlock>> {
        let rows: Vec<BlockRow> = self.paged(&self.statements.catalogue_blocks.blocks, (gender,)).await?;
        rows.into_iter()
            .map(|(rank, id, rows, members, everyone, version)| {
                let count = |n: i32| u32::try_from(n).map_err(|_| StoreError::Corrupt(format!("block count {n}")));
                Ok(StoredBlock {
                    block: Block {
                        fence: CardKey::new(rank, id),
                        rows: count(rows)?,
                        members: count(members)?,
                        everyone: count(everyone)?,
                    },
                    version,
                })
            })
            .collect()
    }

    /// The blocks of `gender`'s listing, counted first when there are none yet (a keyspace
    /// that predates them, or a gender never written).
    pub(super) async fn counted_blocks(&self, gender: i32) -> StoreResult<Vec<StoredBlock>> {
        let blocks = self.listing_blocks(gender).await?;
        if blocks.first().is_some_and(|b| b.block.fence.is_first()) {
            return Ok(blocks);
        }
        self.recount_places(&[(gender, CardKey::first())]).await?;
        self.listing_blocks(gender).await
    }

    /// Recounts the blocks holding these places (after the writes that moved cards there
    /// or away), each block once.
    pub(super) async fn recount_places(&self, places: &[Placed]) -> StoreResult<()> {
        // Places in one block, by the blocks as they stand now, are recounted once.
        let mut by_gender: HashMap<i32, Vec<CardKey>> = HashMap::new();
        for (gender, key) in places {
            by_gender.entry(*gender).or_default().push(key.clone());
        }
        for (gender, keys) in by_gender {
            let fences: Vec<CardKey> =
                self.listing_blocks(gender).await?.into_iter().map(|stored| stored.block.fence).collect();
            let mut seen = HashSet::new();
            for key in keys {
                let at = fences.partition_point(|fence| *fence <= key);
                if seen.insert(at) {
                    self.recount_place(gender, &key).await?;
                }
            }
            self.cut_big_blocks(gender).await?;
        }
        Ok(())
    }

    /// Recounts the block that holds `key` now, folding or cutting it as `listing::recount`
    /// says, retried while another writer changed it in between.
    async fn recount_place(&self, gender: i32, key: &CardKey) -> StoreResult<()> {
        for _ in 0..ATTEMPTS {
            let blocks = self.listing_blocks(gender).await?;
            let hidden = self.hidden_set().await?;
            if !blocks.first().is_some_and(|b| b.block.fence.is_first()) {
                if self.rebuild_blocks(gender, &blocks, &hidden).await? {
                    return Ok(());
                }
                continue;
            }
            let at = blocks.partition_point(|stored| stored.block.fence <= *key) - 1;
            let next = blocks.get(at + 1).map(|stored| &stored.block.fence);
            let this = &blocks[at];
            let rows = self.listed_rows(gender, &this.block.fence, next, &hidden).await?;
            let mut writes: Vec<Write> = Vec::new();
            let statements = &self.statements.catalogue_blocks;
            let (kept, stored) = match recount(&this.block.fence, &rows) {
                Recount::Store(stored) => (this, stored),
                Recount::Fold => {
                    // The first block is never folded, so `at` > 0.
                    let before = &blocks[at - 1];
                    let fence = &this.block.fence;
                    writes.push((
                        statements.delete_if.clone(),
                        Box::new((gender, fence.rank, fence.id.clone(), this.version)),
                    ));
                    let rows = self.listed_rows(gender, &before.block.fence, next, &hidden).await?;
                    (before, cut(&before.block.fence, &rows))
                }
            };
            for (n, block) in capped(stored).into_iter().enumerate() {
                let (fence, rows, members, everyone) = counts(block);
                if n == 0 {
                    writes.push((
                        statements.update_if.clone(),
                        Box::new((
                            rows,
                            members,
                            everyone,
                            kept.version + 1,
                            gender,
                            fence.rank,
                            fence.id,
                            kept.version,
                        )),
                    ));
                } else {
                    writes.push((
                        statements.insert.clone(),
                        Box::new((gender, fence.rank, fence.id, rows, members, everyone, 0i64)),
                    ));
                }
            }
            if self.conditional_batch(writes).await? {
                return Ok(());
            }
        }
        Err(StoreError::Unavailable(format!("the catalogue blocks of gender {gender} kept changing; not recounted")))
    }

    /// Claims `gender`'s listing when it has no first block (a keyspace that predates the
    /// blocks, or a gender never written): one conditional insert of the first block,
    /// counting everything up to the next fence, so two writers cannot both count it. The
    /// block is then cut by recounts, [`MAX_PIECES`] at a time. False when another writer
    /// claimed it first.
    async fn rebuild_blocks(
        &self,
        gender: i32,
        existing: &[StoredBlock],
        hidden: &HashSet<String>,
    ) -> StoreResult<bool> {
        let statements = &self.statements.catalogue_blocks;
        let first = CardKey::first();
        let next = existing.first().map(|stored| &stored.block.fence);
        let rows = self.listed_rows(gender, &first, next, hidden).await?;
        let (fence, rows, members, everyone) = counts(listing::count(first, &rows));
        let claimed = self
            .conditional(&statements.insert_if_new, (gender, fence.rank, fence.id, rows, members, everyone, 0i64))
            .await?;
        Ok(claimed)
    }

    /// Recounts (and so cuts) every block over [`MAX_BLOCK_ROWS`]: the first block after a
    /// claim, or the last piece of a capped cut.
    async fn cut_big_blocks(&self, gender: i32) -> StoreResult<()> {
        while let Some(big) =
            self.listing_blocks(gender).await?.into_iter().find(|stored| stored.block.rows as usize > MAX_BLOCK_ROWS)
        {
            self.recount_place(gender, &big.block.fence).await?;
        }
        Ok(())
    }

    /// The listed cards' keys from `from` up to (not including) `to`, or to the end.
    pub(super) async fn listed_rows(
        &self,
        gender: i32,
        from: &CardKey,
        to: Option<&CardKey>,
        hidden: &HashSet<String>,
    ) -> StoreResult<Vec<ListedRow>> {
        let statements = &self.statements.catalogue_blocks;
        let rows: Vec<(i64, String, bool)> = match to {
            Some(to) => {
                self.paged(&statements.keys_between, (gender, from.rank, from.id.as_str(), to.rank, to.id.as_str()))
                    .await?
            }
            None => self.paged(&statements.keys_from, (gender, from.rank, from.id.as_str())).await?,
        };
        Ok(rows
            .into_iter()
            .map(|(rank, id, restricted)| ListedRow {
                hidden: hidden.contains(&id),
                key: CardKey::new(rank, id),
                restricted,
            })
            .collect())
    }

    /// Runs the statements as one conditional batch (one partition); whether it applied.
    async fn conditional_batch(&self, writes: Vec<Write>) -> StoreResult<bool> {
        let mut batch = Batch::new(BatchType::Logged);
        batch.set_consistency(self.settings.consistency);
        batch.set_serial_consistency(Some(self.settings.serial_consistency));
        batch.set_is_idempotent(false);
        let mut values = Vec::with_capacity(writes.len());
        for (statement, value) in writes {
            batch.append_statement(statement);
            values.push(value);
        }
        self.count_round_trip();
        let result = self.session.batch(&batch, values).await.map_err(unavailable)?;
        applied(result).map_err(|e| corrupt(format!("a block recount's answer: {e}")))
    }
}

/// The first [`MAX_PIECES`] blocks, the last one holding the counts of all the rest.
fn capped(mut blocks: Vec<Block>) -> Vec<Block> {
    if blocks.len() > MAX_PIECES {
        let rest: Vec<Block> = blocks.split_off(MAX_PIECES);
        if let Some(last) = blocks.last_mut() {
            for block in rest {
                last.rows += block.rows;
                last.members += block.members;
                last.everyone += block.everyone;
            }
        }
    }
    blocks
}

fn counts(block: Block) -> (CardKey, i32, i32, i32) {
    let n = |count: u32| i32::try_from(count).unwrap_or(i32::MAX);
    (block.fence, n(block.rows), n(block.members), n(block.everyone))
}
