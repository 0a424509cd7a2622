//! Media objects in SQLite, one row each; a variant is a row under its variant key, so
//! the object and its variants sit next to each other in the primary key's order.

use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};

use super::EmbeddedStore;
use crate::{MediaObject, MediaRepo, StoreResult, check_media_size, variant_key};

impl EmbeddedStore {
    async fn put_row(&self, key: String, object: MediaObject) -> StoreResult<()> {
        check_media_size(&object)?;
        self.with_conn(move |conn| {
            conn.prepare_cached("INSERT OR REPLACE INTO media (media_id, content_type, bytes) VALUES (?1, ?2, ?3)")?
                .execute(params![key, object.content_type, object.bytes])?;
            Ok(())
        })
        .await
    }

    async fn get_row(&self, key: String) -> StoreResult<Option<MediaObject>> {
        self.with_conn(move |conn| {
            let object = conn
                .prepare_cached("SELECT content_type, bytes FROM media WHERE media_id = ?1")?
                .query_row(params![key], |row| Ok(MediaObject { content_type: row.get(0)?, bytes: row.get(1)? }))
                .optional()?;
            Ok(object)
        })
        .await
    }
}

#[async_trait]
impl MediaRepo for EmbeddedStore {
    async fn put(&self, id: &str, object: MediaObject) -> StoreResult<()> {
        self.put_row(id.to_owned(), object).await
    }

    async fn get(&self, id: &str) -> StoreResult<Option<MediaObject>> {
        self.get_row(id.to_owned()).await
    }

    async fn put_variant(&self, id: &str, width: u32, object: MediaObject) -> StoreResult<()> {
        self.put_row(variant_key(id, width), object).await
    }

    async fn get_variant(&self, id: &str, width: u32) -> StoreResult<Option<MediaObject>> {
        self.get_row(variant_key(id, width)).await
    }

    async fn delete(&self, id: &str) -> StoreResult<bool> {
        let id = id.to_owned();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let existed = delete_media(&tx, &id)?;
            tx.commit()?;
            Ok(existed)
        })
        .await
    }
}

/// Deletes an object and every variant of it inside the caller's transaction (the gallery's
/// and the account's deletions use it too); true when the object was there.
pub(super) fn delete_media(conn: &rusqlite::Connection, id: &str) -> rusqlite::Result<bool> {
    let existed = conn.prepare_cached("DELETE FROM media WHERE media_id = ?1")?.execute(params![id])? > 0;
    // Every `id@…` key: the range from "id@" up to "id" followed by the next character
    // after '@' ('A'), which no other id's keys fall into.
    conn.prepare_cached("DELETE FROM media WHERE media_id >= ?1 AND media_id < ?2")?
        .execute(params![format!("{id}@"), format!("{id}A")])?;
    Ok(existed)
}
