//! Generated images in SQLite: one `gallery` row per image, keyed by owner and
//! time-ordered id; the feed is the shared rows, read newest share first through a
//! partial index on `feed_id`, leaving out images held by moderation (`feed_holds`,
//! feed_moderation.rs).

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use async_trait::async_trait;
use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::EmbeddedStore;
use crate::{FeedEntry, GalleryCharacter, GalleryRecord, GalleryRepo, StoreError, StoreResult, image_media_id};

pub(super) const COLUMNS: &str =
    "user_id, image_id, job_id, character_id, character_name, prompt, scene, outfit, pose, style,
     width, height, nsfw, illustration, restricted, feed_id";

fn character(id: Option<String>) -> StoreResult<Option<CharacterId>> {
    id.map(|id| CharacterId::parse(&id).map_err(|e| StoreError::Corrupt(e.to_string()))).transpose()
}

/// The raw columns of a row, in `COLUMNS` order.
pub(super) type RawRecord = (
    String,
    i64,
    i64,
    Option<String>,
    Option<String>,
    String,
    [Option<String>; 4],
    (u32, u32),
    (bool, bool, bool),
    Option<i64>,
);

pub(super) fn raw(row: &Row<'_>) -> rusqlite::Result<RawRecord> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        [row.get(6)?, row.get(7)?, row.get(8)?, row.get(9)?],
        (row.get(10)?, row.get(11)?),
        (row.get(12)?, row.get(13)?, row.get(14)?),
        row.get(15)?,
    ))
}

fn record(raw: RawRecord) -> StoreResult<GalleryRecord> {
    let (user_id, image_id, job_id, character_id, character_name, prompt, presets, size, flags, feed_id) = raw;
    let [scene, outfit, pose, style] = presets;
    Ok(GalleryRecord {
        image_id: EntryId::from_raw(image_id),
        job_id: EntryId::from_raw(job_id),
        user_id: UserId::parse(&user_id).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        character_id: character(character_id)?,
        character_name,
        prompt,
        scene,
        outfit,
        pose,
        style,
        width: size.0,
        height: size.1,
        nsfw: flags.0,
        illustration: flags.1,
        restricted: flags.2,
        feed_id: feed_id.map(EntryId::from_raw),
    })
}

fn get_in(conn: &rusqlite::Connection, user: &str, image_id: i64) -> StoreResult<Option<GalleryRecord>> {
    let raw = conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM gallery WHERE user_id = ?1 AND image_id = ?2"))?
        .query_row(params![user, image_id], raw)
        .optional()?;
    raw.map(record).transpose()
}

/// Removes every image of the user with its bytes, inside the account's deletion.
pub(super) fn delete_all_of(tx: &Transaction<'_>, user: &str) -> StoreResult<()> {
    let media_ids: Vec<String> = tx
        .prepare_cached("SELECT 'img-' || image_id FROM gallery WHERE user_id = ?1")?
        .query_map(params![user], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for media_id in media_ids {
        super::media::delete_media(tx, &media_id)?;
    }
    tx.execute("DELETE FROM gallery WHERE user_id = ?1", params![user])?;
    // Reports and holds go with the images they are about.
    tx.execute("DELETE FROM feed_reports WHERE user_id = ?1", params![user])?;
    tx.execute("DELETE FROM feed_holds WHERE user_id = ?1", params![user])?;
    Ok(())
}

#[async_trait]
impl GalleryRepo for EmbeddedStore {
    async fn add(&self, image: GalleryRecord) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(&format!(
                "INSERT INTO gallery ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
            ))?
            .execute(params![
                image.user_id.as_str(),
                image.image_id.raw(),
                image.job_id.raw(),
                image.character_id.as_ref().map(CharacterId::as_str),
                image.character_name,
                image.prompt,
                image.scene,
                image.outfit,
                image.pose,
                image.style,
                image.width,
                image.height,
                image.nsfw,
                image.illustration,
                image.restricted,
                image.feed_id.map(EntryId::raw),
            ])?;
            Ok(())
        })
        .await
    }

    async fn get(&self, user_id: &UserId, image_id: EntryId) -> StoreResult<Option<GalleryRecord>> {
        let user = user_id.as_str().to_owned();
        self.with_conn(move |conn| get_in(conn, &user, image_id.raw())).await
    }

    async fn list(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        before: Option<EntryId>,
        limit: u32,
    ) -> StoreResult<Vec<GalleryRecord>> {
        let user = user_id.as_str().to_owned();
        let character = character.map(|c| c.as_str().to_owned());
        let before = before.map_or(i64::MAX, EntryId::raw);
        self.with_conn(move |conn| {
            let rows: Vec<RawRecord> = match character {
                None => conn
                    .prepare_cached(&format!(
                        "SELECT {COLUMNS} FROM gallery WHERE user_id = ?1 AND image_id < ?2 ORDER BY image_id DESC LIMIT ?3"
                    ))?
                    .query_map(params![user, before, limit], raw)?
                    .collect::<rusqlite::Result<_>>()?,
                Some(character) => conn
                    .prepare_cached(&format!(
                        "SELECT {COLUMNS} FROM gallery WHERE user_id = ?1 AND character_id = ?2 AND image_id < ?3
                         ORDER BY image_id DESC LIMIT ?4"
                    ))?
                    .query_map(params![user, character, before, limit], raw)?
                    .collect::<rusqlite::Result<_>>()?,
            };
            rows.into_iter().map(record).collect()
        })
        .await
    }

    async fn characters(&self, user_id: &UserId) -> StoreResult<Vec<GalleryCharacter>> {
        let user = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT character_id, COUNT(*), MAX(image_id) AS newest FROM gallery
                 WHERE user_id = ?1 AND character_id IS NOT NULL GROUP BY character_id ORDER BY newest DESC",
            )?;
            let rows = statement.query_map(params![user], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?, row.get::<_, i64>(2)?))
            })?;
            rows.map(|row| {
                let (character_id, count, newest) = row?;
                Ok(GalleryCharacter {
                    character_id: CharacterId::parse(&character_id).map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    count: count.max(0) as u64,
                    newest_image_id: EntryId::from_raw(newest),
                })
            })
            .collect()
        })
        .await
    }

    async fn set_shared(
        &self,
        user_id: &UserId,
        image_id: EntryId,
        feed_id: Option<EntryId>,
    ) -> StoreResult<Option<GalleryRecord>> {
        let user = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let changed = match feed_id {
                // A shared image keeps the feed entry it has.
                Some(feed_id) => tx.execute(
                    "UPDATE gallery SET feed_id = COALESCE(feed_id, ?3) WHERE user_id = ?1 AND image_id = ?2",
                    params![user, image_id.raw(), feed_id.raw()],
                )?,
                None => tx.execute(
                    "UPDATE gallery SET feed_id = NULL WHERE user_id = ?1 AND image_id = ?2",
                    params![user, image_id.raw()],
                )?,
            };
            let image = if changed > 0 { get_in(&tx, &user, image_id.raw())? } else { None };
            tx.commit()?;
            Ok(image)
        })
        .await
    }

    async fn delete(&self, user_id: &UserId, image_id: EntryId) -> StoreResult<bool> {
        let user = user_id.as_str().to_owned();
        let media_id = image_media_id(image_id);
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let deleted =
                tx.execute("DELETE FROM gallery WHERE user_id = ?1 AND image_id = ?2", params![user, image_id.raw()])?;
            if deleted > 0 {
                super::media::delete_media(&tx, &media_id)?;
                super::feed_moderation::forget(&tx, &user, image_id.raw())?;
            }
            tx.commit()?;
            Ok(deleted > 0)
        })
        .await
    }

    async fn feed(&self, before: Option<EntryId>, limit: u32, include_restricted: bool) -> StoreResult<Vec<FeedEntry>> {
        let before = before.map_or(i64::MAX, EntryId::raw);
        self.with_conn(move |conn| {
            let rows: Vec<RawRecord> = conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM gallery WHERE feed_id IS NOT NULL AND feed_id < ?1 AND (restricted = 0 OR ?2)
                       AND NOT EXISTS (SELECT 1 FROM feed_holds h
                                       WHERE h.user_id = gallery.user_id AND h.image_id = gallery.image_id)
                     ORDER BY feed_id DESC LIMIT ?3"
                ))?
                .query_map(params![before, include_restricted, limit], raw)?
                .collect::<rusqlite::Result<_>>()?;
            rows.into_iter().map(feed_entry).collect()
        })
        .await
    }

    async fn feed_entry(&self, feed_id: EntryId) -> StoreResult<Option<FeedEntry>> {
        self.with_conn(move |conn| {
            let raw = conn
                .prepare_cached(&format!("SELECT {COLUMNS} FROM gallery WHERE feed_id = ?1"))?
                .query_row(params![feed_id.raw()], raw)
                .optional()?;
            raw.map(feed_entry).transpose()
        })
        .await
    }
}

/// A shared image's row as its feed entry.
pub(super) fn feed_entry(raw: RawRecord) -> StoreResult<FeedEntry> {
    let image = record(raw)?;
    Ok(FeedEntry {
        feed_id: image.feed_id.ok_or_else(|| StoreError::Corrupt("a feed row without feed id".into()))?,
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
