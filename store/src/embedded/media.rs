//! Media objects (portraits now; generated images and voice later) in SQLite.

use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};

use super::EmbeddedStore;
use crate::{MediaObject, MediaRepo, StoreResult};

#[async_trait]
impl MediaRepo for EmbeddedStore {
    async fn put(&self, id: &str, object: MediaObject) -> StoreResult<()> {
        let id = id.to_owned();
        self.with_conn(move |conn| {
            conn.prepare_cached("INSERT OR REPLACE INTO media (media_id, content_type, bytes) VALUES (?1, ?2, ?3)")?
                .execute(params![id, object.content_type, object.bytes])?;
            Ok(())
        })
        .await
    }

    async fn get(&self, id: &str) -> StoreResult<Option<MediaObject>> {
        let id = id.to_owned();
        self.with_conn(move |conn| {
            let object = conn
                .prepare_cached("SELECT content_type, bytes FROM media WHERE media_id = ?1")?
                .query_row(params![id], |row| Ok(MediaObject { content_type: row.get(0)?, bytes: row.get(1)? }))
                .optional()?;
            Ok(object)
        })
        .await
    }

    async fn delete(&self, id: &str) -> StoreResult<bool> {
        let id = id.to_owned();
        self.with_conn(move |conn| {
            Ok(conn.prepare_cached("DELETE FROM media WHERE media_id = ?1")?.execute(params![id])? > 0)
        })
        .await
    }
}
