//! The block counts of each gender's catalogue listing in SQLite (`crate::listing`):
//! `character_card_blocks` holds them, `characters_listed` (public characters by gender,
//! rank, id, with the restricted flag) is the listing they count. Every write that can move
//! a card in or out of a listing recounts the blocks it touched, in its own transaction.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::StoreResult;
use crate::listing::{Block, CardKey, ListedRow, Recount, cut, recount};

/// A card's gender code and place in its listing.
pub(super) type Placed = (i64, CardKey);

/// The blocks of `gender`'s listing in order; rebuilt first when there are none (a store
/// that predates them, or a gender never written).
pub(super) fn blocks(conn: &mut Connection, gender: i64) -> StoreResult<Vec<Block>> {
    let found = read_blocks(conn, gender)?;
    if !found.is_empty() {
        return Ok(found);
    }
    let tx = conn.transaction()?;
    rebuild(&tx, gender)?;
    tx.commit()?;
    read_blocks(conn, gender)
}

fn read_blocks(conn: &Connection, gender: i64) -> StoreResult<Vec<Block>> {
    let mut statement = conn.prepare_cached(
        "SELECT fence_rank, fence_id, card_rows, members, everyone FROM character_card_blocks
         WHERE gender = ?1 ORDER BY fence_rank, fence_id",
    )?;
    let rows = statement.query_map(params![gender], |row| {
        Ok(Block {
            fence: CardKey::new(row.get(0)?, row.get::<_, String>(1)?),
            rows: row.get(2)?,
            members: row.get(3)?,
            everyone: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Where character `id` sits while it is listed (public), hidden or not.
pub(super) fn placed(tx: &Transaction<'_>, id: &str) -> StoreResult<Option<Placed>> {
    Ok(tx
        .prepare_cached("SELECT gender, rank FROM characters WHERE character_id = ?1 AND status = 'public'")?
        .query_row(params![id], |row| Ok((row.get::<_, i64>(0)?, CardKey::new(row.get(1)?, id))))
        .optional()?)
}

/// Recounts the blocks holding these places, once each, after the transaction's writes.
pub(super) fn recount_places(tx: &Transaction<'_>, places: &[Placed]) -> StoreResult<()> {
    let mut done: HashSet<Placed> = HashSet::new();
    for (gender, key) in places {
        recount_place(tx, *gender, key, &mut done)?;
    }
    Ok(())
}

fn recount_place(tx: &Transaction<'_>, gender: i64, key: &CardKey, done: &mut HashSet<Placed>) -> StoreResult<()> {
    let Some(fence) = fence_at_or_before(tx, gender, key)? else {
        // No blocks yet: count the whole listing.
        if done.insert((gender, CardKey::first())) {
            rebuild(tx, gender)?;
        }
        return Ok(());
    };
    if done.contains(&(gender, fence.clone())) {
        return Ok(());
    }
    let next = fence_after(tx, gender, &fence)?;
    let rows = listed_rows(tx, gender, &fence, next.as_ref())?;
    let stored = match recount(&fence, &rows) {
        Recount::Store(blocks) => blocks,
        Recount::Fold => {
            delete_block(tx, gender, &fence)?;
            // The first block is never folded, so one comes before.
            let Some(before) = fence_at_or_before(tx, gender, &fence)? else { return rebuild(tx, gender) };
            cut(&before, &listed_rows(tx, gender, &before, next.as_ref())?)
        }
    };
    for block in &stored {
        store_block(tx, gender, block)?;
        done.insert((gender, block.fence.clone()));
    }
    Ok(())
}

/// Counts `gender`'s whole listing into fresh blocks.
fn rebuild(tx: &Transaction<'_>, gender: i64) -> StoreResult<()> {
    tx.execute("DELETE FROM character_card_blocks WHERE gender = ?1", params![gender])?;
    let first = CardKey::first();
    for block in cut(&first, &listed_rows(tx, gender, &first, None)?) {
        store_block(tx, gender, &block)?;
    }
    Ok(())
}

fn fence_at_or_before(tx: &Transaction<'_>, gender: i64, key: &CardKey) -> StoreResult<Option<CardKey>> {
    Ok(tx
        .prepare_cached(
            "SELECT fence_rank, fence_id FROM character_card_blocks
             WHERE gender = ?1 AND (fence_rank, fence_id) <= (?2, ?3)
             ORDER BY fence_rank DESC, fence_id DESC LIMIT 1",
        )?
        .query_row(params![gender, key.rank, key.id], |row| Ok(CardKey::new(row.get(0)?, row.get::<_, String>(1)?)))
        .optional()?)
}

fn fence_after(tx: &Transaction<'_>, gender: i64, fence: &CardKey) -> StoreResult<Option<CardKey>> {
    Ok(tx
        .prepare_cached(
            "SELECT fence_rank, fence_id FROM character_card_blocks
             WHERE gender = ?1 AND (fence_rank, fence_id) > (?2, ?3)
             ORDER BY fence_rank, fence_id LIMIT 1",
        )?
        .query_row(params![gender, fence.rank, fence.id], |row| Ok(CardKey::new(row.get(0)?, row.get::<_, String>(1)?)))
        .optional()?)
}

/// The listed cards from `from` up to (not including) `to`, or to the end.
fn listed_rows(tx: &Transaction<'_>, gender: i64, from: &CardKey, to: Option<&CardKey>) -> StoreResult<Vec<ListedRow>> {
    const COLUMNS: &str = "SELECT rank, character_id, restricted,
            character_id IN (SELECT character_id FROM hidden_characters)
         FROM characters INDEXED BY characters_listed
         WHERE gender = ?1 AND status = 'public' AND (rank, character_id) >= (?2, ?3)";
    let read = |row: &rusqlite::Row<'_>| {
        Ok(ListedRow {
            key: CardKey::new(row.get(0)?, row.get::<_, String>(1)?),
            restricted: row.get(2)?,
            hidden: row.get(3)?,
        })
    };
    let rows = match to {
        Some(to) => tx
            .prepare_cached(&format!("{COLUMNS} AND (rank, character_id) < (?4, ?5) ORDER BY rank, character_id"))?
            .query_map(params![gender, from.rank, from.id, to.rank, to.id], read)?
            .collect::<rusqlite::Result<_>>()?,
        None => tx
            .prepare_cached(&format!("{COLUMNS} ORDER BY rank, character_id"))?
            .query_map(params![gender, from.rank, from.id], read)?
            .collect::<rusqlite::Result<_>>()?,
    };
    Ok(rows)
}

fn store_block(tx: &Transaction<'_>, gender: i64, block: &Block) -> StoreResult<()> {
    tx.prepare_cached(
        "INSERT INTO character_card_blocks (gender, fence_rank, fence_id, card_rows, members, everyone)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (gender, fence_rank, fence_id) DO UPDATE SET card_rows = excluded.card_rows,
            members = excluded.members, everyone = excluded.everyone",
    )?
    .execute(params![gender, block.fence.rank, block.fence.id, block.rows, block.members, block.everyone])?;
    Ok(())
}

fn delete_block(tx: &Transaction<'_>, gender: i64, fence: &CardKey) -> StoreResult<()> {
    tx.prepare_cached("DELETE FROM character_card_blocks WHERE gender = ?1 AND fence_rank = ?2 AND fence_id = ?3")?
        .execute(params![gender, fence.rank, fence.id])?;
    Ok(())
}
