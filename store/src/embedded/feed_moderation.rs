//! Reports of feed images and the holds that keep an image out of the feed (issue 27) in
//! SQLite: `feed_reports` (one row per image and reporter) and `feed_holds` (one row per
//! held image). The feed query of gallery.rs leaves held images out.

use amora_domain::account::UserId;
use amora_domain::chat::EntryId;
use async_trait::async_trait;
use rusqlite::{OptionalExtension, Transaction, params};

use super::EmbeddedStore;
use super::gallery::{COLUMNS, RawRecord, feed_entry, raw};
use crate::{FeedFilter, FeedModerationRepo, FeedReport, ModeratedFeedEntry, StoreResult};

/// Drops an image's reports and hold, inside the transaction that deletes it.
pub(super) fn forget(tx: &Transaction<'_>, user: &str, image_id: i64) -> StoreResult<()> {
    tx.execute("DELETE FROM feed_reports WHERE user_id = ?1 AND image_id = ?2", params![user, image_id])?;
    tx.execute("DELETE FROM feed_holds WHERE user_id = ?1 AND image_id = ?2", params![user, image_id])?;
    Ok(())
}

#[async_trait]
impl FeedModerationRepo for EmbeddedStore {
    async fn report(&self, report: FeedReport) -> StoreResult<u32> {
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let user = report.owner.as_str();
            let image = report.image_id.raw();
            // One row per reporter: a second report replaces the first and counts once.
            tx.execute(
                "INSERT INTO feed_reports (user_id, image_id, reporter_id, report_id, reason, note, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (user_id, image_id, reporter_id)
                 DO UPDATE SET report_id = excluded.report_id, reason = excluded.reason, note = excluded.note,
                               created_at = excluded.created_at",
                params![
                    user,
                    image,
                    report.reporter_id.as_str(),
                    report.report_id.raw(),
                    report.reason.code(),
                    report.note,
                    report.created_at
                ],
            )?;
            let reporters: u32 = tx.query_row(
                "SELECT COUNT(*) FROM feed_reports WHERE user_id = ?1 AND image_id = ?2",
                params![user, image],
                |row| row.get(0),
            )?;
            tx.commit()?;
            Ok(reporters)
        })
        .await
    }

    async fn hide(&self, owner: &UserId, image_id: EntryId, at: i64) -> StoreResult<()> {
        let user = owner.as_str().to_owned();
        self.with_conn(move |conn| {
            // Hidden again: it keeps the time it was first hidden.
            conn.execute(
                "INSERT OR IGNORE INTO feed_holds (user_id, image_id, held_at) VALUES (?1, ?2, ?3)",
                params![user, image_id.raw(), at],
            )?;
            Ok(())
        })
        .await
    }

    async fn restore(&self, owner: &UserId, image_id: EntryId) -> StoreResult<()> {
        let user = owner.as_str().to_owned();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            forget(&tx, &user, image_id.raw())?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn is_hidden(&self, owner: &UserId, image_id: EntryId) -> StoreResult<bool> {
        let user = owner.as_str().to_owned();
        self.with_conn(move |conn| {
            let found = conn
                .query_row(
                    "SELECT 1 FROM feed_holds WHERE user_id = ?1 AND image_id = ?2",
                    params![user, image_id.raw()],
                    |_| Ok(()),
                )
                .optional()?;
            Ok(found.is_some())
        })
        .await
    }

    async fn list(
        &self,
        before: Option<EntryId>,
        limit: u32,
        filter: FeedFilter,
    ) -> StoreResult<Vec<ModeratedFeedEntry>> {
        let before = before.map_or(i64::MAX, EntryId::raw);
        let columns = COLUMNS.split(',').map(|column| format!("g.{}", column.trim())).collect::<Vec<_>>().join(", ");
        let (flagged_only, hidden_only) = match filter {
            FeedFilter::All => (false, false),
            FeedFilter::Flagged => (true, false),
            FeedFilter::Hidden => (false, true),
        };
        self.with_conn(move |conn| {
            let sql = format!(
                "SELECT {columns},
                        (SELECT COUNT(*) FROM feed_reports r WHERE r.user_id = g.user_id AND r.image_id = g.image_id),
                        h.held_at
                 FROM gallery g LEFT JOIN feed_holds h ON h.user_id = g.user_id AND h.image_id = g.image_id
                 WHERE g.feed_id IS NOT NULL AND g.feed_id < ?1
                   AND (NOT ?3 OR h.held_at IS NOT NULL)
                   AND (NOT ?2 OR h.held_at IS NOT NULL
                        OR EXISTS (SELECT 1 FROM feed_reports r
                                   WHERE r.user_id = g.user_id AND r.image_id = g.image_id))
                 ORDER BY g.feed_id DESC LIMIT ?4"
            );
            let rows: Vec<(RawRecord, u32, Option<i64>)> = conn
                .prepare_cached(&sql)?
                .query_map(params![before, flagged_only, hidden_only, limit], |row| {
                    Ok((raw(row)?, row.get(16)?, row.get(17)?))
                })?
                .collect::<rusqlite::Result<_>>()?;
            rows.into_iter()
                .map(|(raw, reports, hidden_at)| Ok(ModeratedFeedEntry { entry: feed_entry(raw)?, reports, hidden_at }))
                .collect()
        })
        .await
    }
}
