//! Media objects over CQL, one row per id.

use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::{MediaObject, MediaRepo, StoreResult};

pub(super) struct Statements {
    put: PreparedStatement,
    get: PreparedStatement,
    delete: PreparedStatement,
    exists: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            put: p
                .prepare("INSERT INTO media (media_id, content_type, bytes) VALUES (?, ?, ?)", Kind::Idempotent)
                .await?,
            get: p.prepare("SELECT content_type, bytes FROM media WHERE media_id = ?", Kind::Idempotent).await?,
            delete: p.prepare("DELETE FROM media WHERE media_id = ?", Kind::Idempotent).await?,
            exists: p.prepare("SELECT content_type FROM media WHERE media_id = ?", Kind::Idempotent).await?,
        })
    }
}

#[async_trait]
impl MediaRepo for CqlStore {
    async fn put(&self, id: &str, object: MediaObject) -> StoreResult<()> {
        self.run(&self.statements.media.put, (id, &object.content_type, &object.bytes)).await.map(|_| ())
    }

    async fn get(&self, id: &str) -> StoreResult<Option<MediaObject>> {
        let row: Option<(String, Option<Vec<u8>>)> = self.first(&self.statements.media.get, (id,)).await?;
        Ok(row.map(|(content_type, bytes)| MediaObject { content_type, bytes: bytes.unwrap_or_default() }))
    }

    async fn delete(&self, id: &str) -> StoreResult<bool> {
        let existed: Option<(String,)> = self.first(&self.statements.media.exists, (id,)).await?;
        self.run(&self.statements.media.delete, (id,)).await?;
        Ok(existed.is_some())
    }
}
