//! Generated images over CQL, tables designed from the reads (schema.cql):
//! `gallery_images` (an owner's images, newest first), `gallery_images_by_character` (the
//! same rows per owner and character), `gallery_character_counts` + `gallery_characters`
//! (the characters list), and the public feed in `feed_entries`, partitioned by the UTC day
//! of sharing and a shard so that no single partition takes every share, with `feed_days`
//! listing the days to walk back through. Images held by moderation (`feed_flags`,
//! feed_moderation.rs) are left out of every feed page.

use std::collections::HashSet;

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;
use scylla::value::Counter;
use scylla::{DeserializeRow, SerializeRow};

use super::{CqlStore, Kind, Preparer, corrupt};
use crate::{FeedEntry, GalleryCharacter, GalleryRecord, GalleryRepo, StoreResult, image_media_id};

/// Shards of a day's feed partition.
const FEED_SHARDS: i64 = 4;
/// The one partition of `feed_days`.
const FEED: i32 = 0;
const DAY_MILLIS: i64 = 86_400_000;

const IMAGE_COLUMNS: &str = "user_id, image_id, job_id, character_id, character_name, prompt, scene, outfit, pose, \
                             style, width, height, nsfw, illustration, restricted, feed_id";
const FEED_COLUMNS: &str =
    "day, shard, feed_id, image_id, user_id, character_id, character_name, prompt, width, height, restricted";

pub(super) struct Statements {
    insert_image: PreparedStatement,
    insert_by_character: PreparedStatement,
    image: PreparedStatement,
    images_before: PreparedStatement,
    images_of_before: PreparedStatement,
    image_keys: PreparedStatement,
    set_feed_id: PreparedStatement,
    set_feed_id_by_character: PreparedStatement,
    delete_image: PreparedStatement,
    delete_by_character: PreparedStatement,
    delete_images_of_user: PreparedStatement,
    delete_by_character_pair: PreparedStatement,
    count_up: PreparedStatement,
    count_down: PreparedStatement,
    counts: PreparedStatement,
    delete_counts: PreparedStatement,
    set_newest: PreparedStatement,
    newest: PreparedStatement,
    newest_of_character: PreparedStatement,
    delete_newest: PreparedStatement,
    delete_newest_of_user: PreparedStatement,
    insert_feed: PreparedStatement,
    insert_feed_day: PreparedStatement,
    delete_feed: PreparedStatement,
    feed_days: PreparedStatement,
    feed_page: PreparedStatement,
    feed_one: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let values = |n: usize| vec!["?"; n].join(", ");
        let by_character_columns = "user_id, character_id, image_id, job_id, character_name, prompt, scene, outfit, \
                                    pose, style, width, height, nsfw, illustration, restricted, feed_id";
        Ok(Self {
            insert_image: p
                .prepare(
                    &format!("INSERT INTO gallery_images ({IMAGE_COLUMNS}) VALUES ({})", values(16)),
                    Kind::Idempotent,
                )
                .await?,
            insert_by_character: p
                .prepare(
                    &format!(
                        "INSERT INTO gallery_images_by_character ({by_character_columns}) VALUES ({})",
                        values(16)
                    ),
                    Kind::Idempotent,
                )
                .await?,
            image: p
                .prepare(
                    &format!("SELECT {IMAGE_COLUMNS} FROM gallery_images WHERE user_id = ? AND image_id = ?"),
                    Kind::Idempotent,
                )
                .await?,
            images_before: p
                .prepare(
                    &format!("SELECT {IMAGE_COLUMNS} FROM gallery_images WHERE user_id = ? AND image_id < ? LIMIT ?"),
                    Kind::Idempotent,
                )
                .await?,
            images_of_before: p
                .prepare(
                    &format!(
                        "SELECT {IMAGE_COLUMNS} FROM gallery_images_by_character
                         WHERE user_id = ? AND character_id = ? AND image_id < ? LIMIT ?"
                    ),
                    Kind::Idempotent,
                )
                .await?,
            image_keys: p
                .prepare(
                    "SELECT image_id, character_id, feed_id FROM gallery_images WHERE user_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            // Conditional: a plain write racing a delete would bring back a row holding
            // nothing but the feed id.
            set_feed_id: p
                .prepare(
                    "UPDATE gallery_images SET feed_id = ? WHERE user_id = ? AND image_id = ? IF EXISTS",
                    Kind::Conditional,
                )
                .await?,
            set_feed_id_by_character: p
                .prepare(
                    "UPDATE gallery_images_by_character SET feed_id = ?
                     WHERE user_id = ? AND character_id = ? AND image_id = ? IF EXISTS",
                    Kind::Conditional,
                )
                .await?,
            delete_image: p
                .prepare("DELETE FROM gallery_images WHERE user_id = ? AND image_id = ? IF EXISTS", Kind::Conditional)
                .await?,
            delete_by_character: p
                .prepare(
                    "DELETE FROM gallery_images_by_character WHERE user_id = ? AND character_id = ? AND image_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            delete_images_of_user: p.prepare("DELETE FROM gallery_images WHERE user_id = ?", Kind::Idempotent).await?,
            delete_by_character_pair: p
                .prepare(
                    "DELETE FROM gallery_images_by_character WHERE user_id = ? AND character_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            // Counter updates add again when repeated: never retried blindly (a lost one
            // leaves a display figure off by one, not money).
            count_up: p
                .prepare(
                    "UPDATE gallery_character_counts SET images = images + 1 WHERE user_id = ? AND character_id = ?",
                    Kind::Conditional,
                )
                .await?,
            count_down: p
                .prepare(
                    "UPDATE gallery_character_counts SET images = images - 1 WHERE user_id = ? AND character_id = ?",
                    Kind::Conditional,
                )
                .await?,
            counts: p
                .prepare(
                    "SELECT character_id, images FROM gallery_character_counts WHERE user_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            delete_counts: p
                .prepare("DELETE FROM gallery_character_counts WHERE user_id = ?", Kind::Idempotent)
                .await?,
            set_newest: p
                .prepare(
                    "INSERT INTO gallery_characters (user_id, character_id, newest_image_id) VALUES (?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            newest: p
                .prepare(
                    "SELECT character_id, newest_image_id FROM gallery_characters WHERE user_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            newest_of_character: p
                .prepare(
                    "SELECT image_id FROM gallery_images_by_character WHERE user_id = ? AND character_id = ? LIMIT 1",
                    Kind::Idempotent,
                )
                .await?,
            delete_newest: p
                .prepare("DELETE FROM gallery_characters WHERE user_id = ? AND character_id = ?", Kind::Idempotent)
                .await?,
            delete_newest_of_user: p
                .prepare("DELETE FROM gallery_characters WHERE user_id = ?", Kind::Idempotent)
                .await?,
            insert_feed: p
                .prepare(
                    &format!("INSERT INTO feed_entries ({FEED_COLUMNS}) VALUES ({})", values(11)),
                    Kind::Idempotent,
                )
                .await?,
            insert_feed_day: p.prepare("INSERT INTO feed_days (feed, day) VALUES (?, ?)", Kind::Idempotent).await?,
            delete_feed: p
                .prepare("DELETE FROM feed_entries WHERE day = ? AND shard = ? AND feed_id = ?", Kind::Idempotent)
                .await?,
            feed_days: p.prepare("SELECT day FROM feed_days WHERE feed = ? AND day <= ?", Kind::Idempotent).await?,
            feed_one: p
                .prepare(
                    &format!("SELECT {FEED_COLUMNS} FROM feed_entries WHERE day = ? AND shard = ? AND feed_id = ?"),
                    Kind::Idempotent,
                )
                .await?,
            feed_page: p
                .prepare(
                    &format!(
                        "SELECT {FEED_COLUMNS} FROM feed_entries WHERE day = ? AND shard = ? AND feed_id < ? LIMIT ?"
                    ),
                    Kind::Idempotent,
                )
                .await?,
        })
    }
}

/// A row of `gallery_images` (and of `gallery_images_by_character`, same columns).
#[derive(DeserializeRow, SerializeRow)]
struct ImageRow {
    user_id: String,
    image_id: i64,
    job_id: i64,
    character_id: Option<String>,
    character_name: Option<String>,
    prompt: String,
    scene: Option<String>,
    outfit: Option<String>,
    pose: Option<String>,
    style: Option<String>,
    width: i32,
    height: i32,
    nsfw: bool,
    illustration: bool,
    restricted: bool,
    feed_id: Option<i64>,
}

impl ImageRow {
    fn of(image: &GalleryRecord) -> Self {
        Self {
            user_id: image.user_id.as_str().to_owned(),
            image_id: image.image_id.raw(),
            job_id: image.job_id.raw(),
            character_id: image.character_id.as_ref().map(|c| c.as_str().to_owned()),
            character_name: image.character_name.clone(),
            prompt: image.prompt.clone(),
            scene: image.scene.clone(),
            outfit: image.outfit.clone(),
            pose: image.pose.clone(),
            style: image.style.clone(),
            width: i32::try_from(image.width).unwrap_or(i32::MAX),
            height: i32::try_from(image.height).unwrap_or(i32::MAX),
            nsfw: image.nsfw,
            illustration: image.illustration,
            restricted: image.restricted,
            feed_id: image.feed_id.map(EntryId::raw),
        }
    }

    fn into_record(self) -> StoreResult<GalleryRecord> {
        Ok(GalleryRecord {
            image_id: EntryId::from_raw(self.image_id),
            job_id: EntryId::from_raw(self.job_id),
            user_id: UserId::parse(&self.user_id).map_err(corrupt)?,
            character_id: self.character_id.as_deref().map(CharacterId::parse).transpose().map_err(corrupt)?,
            character_name: self.character_name,
            prompt: self.prompt,
            scene: self.scene,
            outfit: self.outfit,
            pose: self.pose,
            style: self.style,
            width: u32::try_from(self.width).map_err(corrupt)?,
            height: u32::try_from(self.height).map_err(corrupt)?,
            nsfw: self.nsfw,
            illustration: self.illustration,
            restricted: self.restricted,
            feed_id: self.feed_id.map(EntryId::from_raw),
        })
    }
}

#[derive(DeserializeRow, SerializeRow)]
struct FeedRow {
    day: i32,
    shard: i32,
    feed_id: i64,
    image_id: i64,
    user_id: String,
    character_id: Option<String>,
    character_name: Option<String>,
    prompt: String,
    width: i32,
    height: i32,
    restricted: bool,
}

impl FeedRow {
    fn into_entry(self) -> StoreResult<FeedEntry> {
        Ok(FeedEntry {
            feed_id: EntryId::from_raw(self.feed_id),
            image_id: EntryId::from_raw(self.image_id),
            owner: UserId::parse(&self.user_id).map_err(corrupt)?,
            character_id: self.character_id.as_deref().map(CharacterId::parse).transpose().map_err(corrupt)?,
            character_name: self.character_name,
            prompt: self.prompt,
            width: u32::try_from(self.width).map_err(corrupt)?,
            height: u32::try_from(self.height).map_err(corrupt)?,
            restricted: self.restricted,
        })
    }
}

/// The feed partition of an entry: the UTC day it was shared and its shard.
fn feed_partition(feed_id: EntryId) -> (i32, i32) {
    let day = feed_id.unix_millis().div_euclid(DAY_MILLIS);
    (i32::try_from(day).unwrap_or(i32::MAX), feed_id.raw().rem_euclid(FEED_SHARDS) as i32)
}

impl CqlStore {
    async fn add_to_feed(&self, image: &GalleryRecord, feed_id: EntryId) -> StoreResult<()> {
        let s = &self.statements.gallery;
        let (day, shard) = feed_partition(feed_id);
        let row = FeedRow {
            day,
            shard,
            feed_id: feed_id.raw(),
            image_id: image.image_id.raw(),
            user_id: image.user_id.as_str().to_owned(),
            character_id: image.character_id.as_ref().map(|c| c.as_str().to_owned()),
            character_name: image.character_name.clone(),
            prompt: image.prompt.clone(),
            width: i32::try_from(image.width).unwrap_or(i32::MAX),
            height: i32::try_from(image.height).unwrap_or(i32::MAX),
            restricted: image.restricted,
        };
        self.run(&s.insert_feed_day, (FEED, day)).await?;
        self.run(&s.insert_feed, row).await?;
        Ok(())
    }

    async fn remove_from_feed(&self, feed_id: EntryId) -> StoreResult<()> {
        let (day, shard) = feed_partition(feed_id);
        self.run(&self.statements.gallery.delete_feed, (day, shard, feed_id.raw())).await.map(|_| ())
    }

    /// Points the characters list at the newest image left of the character, or drops it.
    async fn refresh_newest(&self, user: &str, character: &str) -> StoreResult<()> {
        let s = &self.statements.gallery;
        let newest: Option<(i64,)> = self.first(&s.newest_of_character, (user, character)).await?;
        match newest {
            Some((id,)) => self.run(&s.set_newest, (user, character, id)).await?,
            None => self.run(&s.delete_newest, (user, character)).await?,
        };
        Ok(())
    }

    /// Removes every image of the user, their feed entries and their bytes (account deletion).
    pub(super) async fn delete_gallery_of(&self, user_id: &UserId) -> StoreResult<()> {
        let s = &self.statements.gallery;
        let user = user_id.as_str();
        let keys: Vec<(i64, Option<String>, Option<i64>)> = self.paged(&s.image_keys, (user,)).await?;
        let mut characters = std::collections::BTreeSet::new();
        for (image_id, character, feed_id) in keys {
            if let Some(feed_id) = feed_id {
                self.remove_from_feed(EntryId::from_raw(feed_id)).await?;
            }
            crate::MediaRepo::delete(self, &image_media_id(EntryId::from_raw(image_id))).await?;
            self.forget_image_reports(user, image_id).await?;
            characters.extend(character);
        }
        self.forget_feed_flags_of(user).await?;
        for character in characters {
            self.run(&s.delete_by_character_pair, (user, &character)).await?;
        }
        self.run(&s.delete_images_of_user, (user,)).await?;
        self.run(&s.delete_counts, (user,)).await?;
        self.run(&s.delete_newest_of_user, (user,)).await?;
        Ok(())
    }
}

#[async_trait]
impl GalleryRepo for CqlStore {
    async fn add(&self, image: GalleryRecord) -> StoreResult<()> {
        let s = &self.statements.gallery;
        let row = ImageRow::of(&image);
        if let Some(character) = &image.character_id {
            // Same column names: the row binds by name.
            self.run(&s.insert_by_character, &row).await?;
            self.run(&s.count_up, (image.user_id.as_str(), character.as_str())).await?;
            self.run(&s.set_newest, (image.user_id.as_str(), character.as_str(), row.image_id)).await?;
        }
        // The owner's partition last: an image is in the gallery once every index has it.
        self.run(&s.insert_image, row).await?;
        if let Some(feed_id) = image.feed_id {
            self.add_to_feed(&image, feed_id).await?;
        }
        Ok(())
    }

    async fn get(&self, user_id: &UserId, image_id: EntryId) -> StoreResult<Option<GalleryRecord>> {
        let row: Option<ImageRow> =
            self.first(&self.statements.gallery.image, (user_id.as_str(), image_id.raw())).await?;
        row.map(ImageRow::into_record).transpose()
    }

    async fn list(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        before: Option<EntryId>,
        limit: u32,
    ) -> StoreResult<Vec<GalleryRecord>> {
        let s = &self.statements.gallery;
        let before = before.map_or(i64::MAX, EntryId::raw);
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        let rows: Vec<ImageRow> = match character {
            None => self.rows(&s.images_before, (user_id.as_str(), before, limit)).await?,
            Some(character) => {
                self.rows(&s.images_of_before, (user_id.as_str(), character.as_str(), before, limit)).await?
            }
        };
        rows.into_iter().map(ImageRow::into_record).collect()
    }

    async fn characters(&self, user_id: &UserId) -> StoreResult<Vec<GalleryCharacter>> {
        let s = &self.statements.gallery;
        let user = user_id.as_str();
        let counts: Vec<(String, Option<Counter>)> = self.paged(&s.counts, (user,)).await?;
        let counts: std::collections::HashMap<String, i64> =
            counts.into_iter().map(|(character, n)| (character, n.map_or(0, |n| n.0))).collect();
        let newest: Vec<(String, i64)> = self.paged(&s.newest, (user,)).await?;
        let mut list = newest
            .into_iter()
            .filter_map(|(character, newest)| {
                let count = counts.get(&character).copied().unwrap_or(0);
                (count > 0).then_some((character, count, newest))
            })
            .map(|(character, count, newest)| {
                Ok(GalleryCharacter {
                    character_id: CharacterId::parse(&character).map_err(corrupt)?,
                    count: count as u64,
                    newest_image_id: EntryId::from_raw(newest),
                })
            })
            .collect::<StoreResult<Vec<_>>>()?;
        list.sort_by_key(|c| std::cmp::Reverse(c.newest_image_id.raw()));
        Ok(list)
    }

    async fn set_shared(
        &self,
        user_id: &UserId,
        image_id: EntryId,
        feed_id: Option<EntryId>,
    ) -> StoreResult<Option<GalleryRecord>> {
        let s = &self.statements.gallery;
        let user = user_id.as_str();
        let Some(mut image) = self.get(user_id, image_id).await? else { return Ok(None) };
        let target = match (image.feed_id, feed_id) {
            // Shared already: it keeps its entry.
            (Some(_), Some(_)) => return Ok(Some(image)),
            (None, None) => return Ok(Some(image)),
            (Some(old), None) => {
                self.remove_from_feed(old).await?;
                None
            }
            (None, Some(new)) => Some(new),
        };
        let raw = target.map(EntryId::raw);
        if !self.conditional(&s.set_feed_id, (raw, user, image_id.raw())).await? {
            return Ok(None);
        }
        if let Some(character) = &image.character_id {
            self.conditional(&s.set_feed_id_by_character, (raw, user, character.as_str(), image_id.raw())).await?;
        }
        image.feed_id = target;
        if let Some(feed_id) = target {
            self.add_to_feed(&image, feed_id).await?;
        }
        Ok(Some(image))
    }

    async fn delete(&self, user_id: &UserId, image_id: EntryId) -> StoreResult<bool> {
        let s = &self.statements.gallery;
        let user = user_id.as_str();
        let Some(image) = self.get(user_id, image_id).await? else { return Ok(false) };
        if let Some(feed_id) = image.feed_id {
            self.remove_from_feed(feed_id).await?;
        }
        // Of two deletes racing, one applies and counts the image down.
        if !self.conditional(&s.delete_image, (user, image_id.raw())).await? {
            return Ok(false);
        }
        crate::MediaRepo::delete(self, &image_media_id(image_id)).await?;
        self.forget_feed_reports(user, image_id.raw()).await?;
        if let Some(character) = &image.character_id {
            self.run(&s.delete_by_character, (user, character.as_str(), image_id.raw())).await?;
            self.run(&s.count_down, (user, character.as_str())).await?;
            self.refresh_newest(user, character.as_str()).await?;
        }
        Ok(true)
    }

    async fn feed(&self, before: Option<EntryId>, limit: u32, include_restricted: bool) -> StoreResult<Vec<FeedEntry>> {
        let held = self.held_images().await?;
        self.feed_walk(before, limit, include_restricted, &held).await
    }

    async fn feed_entry(&self, feed_id: EntryId) -> StoreResult<Option<FeedEntry>> {
        let (day, shard) = feed_partition(feed_id);
        let rows: Vec<FeedRow> = self.rows(&self.statements.gallery.feed_one, (day, shard, feed_id.raw())).await?;
        rows.into_iter().next().map(FeedRow::into_entry).transpose()
    }
}

impl CqlStore {
    /// A feed page, newest share first: entries older than `before`, at most `limit`,
    /// restricted ones only when `include_restricted`, none of the `held` images
    /// (`(owner, image id)`).
    pub(super) async fn feed_walk(
        &self,
        before: Option<EntryId>,
        limit: u32,
        include_restricted: bool,
        held: &HashSet<(String, i64)>,
    ) -> StoreResult<Vec<FeedEntry>> {
        let s = &self.statements.gallery;
        let cursor = before.map_or(i64::MAX, EntryId::raw);
        let start_day = before.map_or(i32::MAX, |before| feed_partition(before).0);
        let want = limit as usize;
        let page = i32::try_from(limit.max(1)).unwrap_or(i32::MAX);
        let days: Vec<(i32,)> = self.paged(&s.feed_days, (FEED, start_day)).await?;
        let mut out: Vec<FeedEntry> = Vec::new();
        for (day,) in days {
            // The newest `want` visible entries of each shard of the day, merged.
            let mut merged: Vec<FeedEntry> = Vec::new();
            for shard in 0..FEED_SHARDS as i32 {
                let mut shard_cursor = cursor;
                let mut visible = 0;
                loop {
                    let rows: Vec<FeedRow> = self.rows(&s.feed_page, (day, shard, shard_cursor, page)).await?;
                    let fetched = rows.len();
                    for row in rows {
                        shard_cursor = row.feed_id;
                        let is_held = held.contains(&(row.user_id.clone(), row.image_id));
                        let entry = row.into_entry()?;
                        if (include_restricted || !entry.restricted) && !is_held {
                            visible += 1;
                            merged.push(entry);
                        }
                    }
                    if visible >= want || fetched < page as usize {
                        break;
                    }
                }
            }
            merged.sort_by_key(|entry| std::cmp::Reverse(entry.feed_id.raw()));
            out.extend(merged.into_iter().take(want - out.len()));
            if out.len() >= want {
                break;
            }
        }
        Ok(out)
    }
}
