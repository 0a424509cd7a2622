//! Reports of feed images and the holds that keep an image out of the feed (issue 27) over
//! CQL: `feed_reports` (a partition per image, a row per reporter) and `feed_flags` (one
//! small partition of the images awaiting the operator, with when each was held). The
//! feed read of gallery.rs reads `feed_flags` whole and leaves held images out.

use std::collections::{HashMap, HashSet};

use amora_domain::account::UserId;
use amora_domain::chat::EntryId;
use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, corrupt};
use crate::{
    FeedEntry, FeedFilter, FeedModerationRepo, FeedReport, GalleryRecord, GalleryRepo, ModeratedFeedEntry, StoreResult,
};

/// The one partition of `feed_flags`.
const BUCKET: i32 = 0;

pub(super) struct Statements {
    insert_report: PreparedStatement,
    reporters: PreparedStatement,
    flag: PreparedStatement,
    hold: PreparedStatement,
    flag_one: PreparedStatement,
    flags: PreparedStatement,
    delete_reports: PreparedStatement,
    delete_flag: PreparedStatement,
    delete_flags_of_user: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            // One row per reporter: a second report replaces the first and counts once.
            insert_report: p
                .prepare(
                    "INSERT INTO feed_reports (user_id, image_id, reporter_id, report_id, reason, note, created_at)
                     VALUES (?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            reporters: p
                .prepare("SELECT reporter_id FROM feed_reports WHERE user_id = ? AND image_id = ?", Kind::Idempotent)
                .await?,
            // Writes flagged_at only: a held image stays held when reported again.
            flag: p
                .prepare(
                    "INSERT INTO feed_flags (bucket, user_id, image_id, flagged_at) VALUES (?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            hold: p
                .prepare(
                    "UPDATE feed_flags SET held_at = ? WHERE bucket = ? AND user_id = ? AND image_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            flag_one: p
                .prepare(
                    "SELECT held_at FROM feed_flags WHERE bucket = ? AND user_id = ? AND image_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            flags: p
                .prepare("SELECT user_id, image_id, held_at FROM feed_flags WHERE bucket = ?", Kind::Idempotent)
                .await?,
            delete_reports: p
                .prepare("DELETE FROM feed_reports WHERE user_id = ? AND image_id = ?", Kind::Idempotent)
                .await?,
            delete_flag: p
                .prepare("DELETE FROM feed_flags WHERE bucket = ? AND user_id = ? AND image_id = ?", Kind::Idempotent)
                .await?,
            delete_flags_of_user: p
                .prepare("DELETE FROM feed_flags WHERE bucket = ? AND user_id = ?", Kind::Idempotent)
                .await?,
        })
    }
}

/// A shared image as its feed entry; `None` when it is not in the feed.
fn entry_of(image: GalleryRecord) -> Option<FeedEntry> {
    Some(FeedEntry {
        feed_id: image.feed_id?,
        image_id: image.image_id,
        owner: image.user_id,
        character_id: image.character_id,
        character_name: image.character_name,
        prompt: image.prompt,
        width: image.width,
        height: image.height,
        restricted: image.restricted,
    })
}

impl CqlStore {
    /// Every flagged image, `(owner, image id)` → when it was held (`None`: reported only).
    async fn feed_flags(&self) -> StoreResult<HashMap<(String, i64), Option<i64>>> {
        let rows: Vec<(String, i64, Option<i64>)> =
            self.paged(&self.statements.feed_moderation.flags, (BUCKET,)).await?;
        Ok(rows.into_iter().map(|(user, image, held_at)| ((user, image), held_at)).collect())
    }

    /// The images held out of the feed, for filtering a feed page.
    pub(super) async fn held_images(&self) -> StoreResult<HashSet<(String, i64)>> {
        let flags = self.feed_flags().await?;
        Ok(flags.into_iter().filter(|(_, held_at)| held_at.is_some()).map(|(key, _)| key).collect())
    }

    /// Drops an image's reports and flag (its deletion, the operator's restore).
    pub(super) async fn forget_feed_reports(&self, user: &str, image_id: i64) -> StoreResult<()> {
        let s = &self.statements.feed_moderation;
        self.run(&s.delete_reports, (user, image_id)).await?;
        self.run(&s.delete_flag, (BUCKET, user, image_id)).await?;
        Ok(())
    }

    /// Drops the reports of one image of a user whose account goes; `forget_feed_flags_of`
    /// then drops all their flags at once.
    pub(super) async fn forget_image_reports(&self, user: &str, image_id: i64) -> StoreResult<()> {
        self.run(&self.statements.feed_moderation.delete_reports, (user, image_id)).await.map(|_| ())
    }

    pub(super) async fn forget_feed_flags_of(&self, user: &str) -> StoreResult<()> {
        self.run(&self.statements.feed_moderation.delete_flags_of_user, (BUCKET, user)).await.map(|_| ())
    }

    async fn reporters_of(&self, user: &str, image_id: i64) -> StoreResult<u32> {
        let rows: Vec<(String,)> = self.paged(&self.statements.feed_moderation.reporters, (user, image_id)).await?;
        Ok(u32::try_from(rows.len()).unwrap_or(u32::MAX))
    }
}

#[async_trait]
impl FeedModerationRepo for CqlStore {
    async fn report(&self, report: FeedReport) -> StoreResult<u32> {
        let s = &self.statements.feed_moderation;
        let user = report.owner.as_str();
        let image = report.image_id.raw();
        self.run(
            &s.insert_report,
            (
                user,
                image,
                report.reporter_id.as_str(),
                report.report_id.raw(),
                report.reason.code(),
                &report.note,
                report.created_at,
            ),
        )
        .await?;
        self.run(&s.flag, (BUCKET, user, image, report.created_at)).await?;
        self.reporters_of(user, image).await
    }

    async fn hide(&self, owner: &UserId, image_id: EntryId, at: i64) -> StoreResult<()> {
        let s = &self.statements.feed_moderation;
        // Hidden again: it keeps the time it was first hidden. Two first hides racing
        // differ only in that time, so a read before the write is enough.
        let found: Option<(Option<i64>,)> = self.first(&s.flag_one, (BUCKET, owner.as_str(), image_id.raw())).await?;
        if found.and_then(|(held_at,)| held_at).is_none() {
            self.run(&s.hold, (at, BUCKET, owner.as_str(), image_id.raw())).await?;
        }
        Ok(())
    }

    async fn restore(&self, owner: &UserId, image_id: EntryId) -> StoreResult<()> {
        self.forget_feed_reports(owner.as_str(), image_id.raw()).await
    }

    async fn is_hidden(&self, owner: &UserId, image_id: EntryId) -> StoreResult<bool> {
        let s = &self.statements.feed_moderation;
        let found: Option<(Option<i64>,)> = self.first(&s.flag_one, (BUCKET, owner.as_str(), image_id.raw())).await?;
        Ok(found.and_then(|(held_at,)| held_at).is_some())
    }

    async fn list(
        &self,
        before: Option<EntryId>,
        limit: u32,
        filter: FeedFilter,
    ) -> StoreResult<Vec<ModeratedFeedEntry>> {
        let flags = self.feed_flags().await?;
        let entries: Vec<FeedEntry> = match filter {
            // The whole feed, restricted and held entries too.
            FeedFilter::All => self.feed_walk(before, limit, true, &HashSet::new()).await?,
            // The flagged images are few (the partition every feed page reads): each is
            // looked up in its owner's gallery, and those in the feed are ordered here.
            FeedFilter::Flagged | FeedFilter::Hidden => {
                let cursor = before.map_or(i64::MAX, EntryId::raw);
                let mut found = Vec::new();
                for ((user, image), held_at) in &flags {
                    if filter == FeedFilter::Hidden && held_at.is_none() {
                        continue;
                    }
                    let owner = UserId::parse(user).map_err(corrupt)?;
                    let image = GalleryRepo::get(self, &owner, EntryId::from_raw(*image)).await?;
                    found.extend(image.and_then(entry_of).filter(|entry| entry.feed_id.raw() < cursor));
                }
                found.sort_by_key(|entry| std::cmp::Reverse(entry.feed_id.raw()));
                found.truncate(limit as usize);
                found
            }
        };
        let mut listed = Vec::with_capacity(entries.len());
        for entry in entries {
            let key = (entry.owner.as_str().to_owned(), entry.image_id.raw());
            let hidden_at = flags.get(&key).copied().flatten();
            let reports = if flags.contains_key(&key) { self.reporters_of(&key.0, key.1).await? } else { 0 };
            listed.push(ModeratedFeedEntry { entry, reports, hidden_at });
        }
        Ok(listed)
    }
}
