//! Media objects over CQL. An object up to [`CHUNK_BYTES`] is one `media` row; a larger
//! one keeps its type in `media` (with no bytes) and its bytes in `media_chunks`, one row
//! of at most 256 KiB per chunk in the object's partition, so that no cell or mutation
//! grows to the sizes Cassandra and ScyllaDB warn about or refuse. Variants are objects
//! under their variant key.

use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::{MEDIA_VARIANT_WIDTHS, MediaObject, MediaRepo, StoreError, StoreResult, check_media_size, variant_key};

/// The most bytes in one CQL row.
pub const CHUNK_BYTES: usize = 256 * 1024;

pub(super) struct Statements {
    put: PreparedStatement,
    put_chunked: PreparedStatement,
    put_chunk: PreparedStatement,
    get: PreparedStatement,
    get_chunks: PreparedStatement,
    delete: PreparedStatement,
    delete_chunks: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            put: p
                .prepare("INSERT INTO media (media_id, content_type, bytes) VALUES (?, ?, ?)", Kind::Idempotent)
                .await?,
            put_chunked: p
                .prepare("INSERT INTO media (media_id, content_type, bytes) VALUES (?, ?, null)", Kind::Idempotent)
                .await?,
            put_chunk: p
                .prepare("INSERT INTO media_chunks (media_id, chunk, bytes) VALUES (?, ?, ?)", Kind::Idempotent)
                .await?,
            get: p.prepare("SELECT content_type, bytes FROM media WHERE media_id = ?", Kind::Idempotent).await?,
            get_chunks: p.prepare("SELECT chunk, bytes FROM media_chunks WHERE media_id = ?", Kind::Idempotent).await?,
            delete: p.prepare("DELETE FROM media WHERE media_id = ?", Kind::Idempotent).await?,
            delete_chunks: p.prepare("DELETE FROM media_chunks WHERE media_id = ?", Kind::Idempotent).await?,
        })
    }
}

impl CqlStore {
    async fn put_key(&self, key: &str, object: MediaObject) -> StoreResult<()> {
        check_media_size(&object)?;
        let s = &self.statements.media;
        // Chunks an earlier object of this key left would be read back with the new one.
        self.run(&s.delete_chunks, (key,)).await?;
        if object.bytes.len() <= CHUNK_BYTES {
            return self.run(&s.put, (key, &object.content_type, &object.bytes)).await.map(|_| ());
        }
        for (i, chunk) in object.bytes.chunks(CHUNK_BYTES).enumerate() {
            let index = i32::try_from(i).map_err(|_| StoreError::TooLarge(object.bytes.len()))?;
            self.run(&s.put_chunk, (key, index, chunk)).await?;
        }
        // The header last: a reader who finds it finds every chunk.
        self.run(&s.put_chunked, (key, &object.content_type)).await.map(|_| ())
    }

    async fn get_key(&self, key: &str) -> StoreResult<Option<MediaObject>> {
        let s = &self.statements.media;
        let row: Option<(String, Option<Vec<u8>>)> = self.first(&s.get, (key,)).await?;
        let Some((content_type, bytes)) = row else { return Ok(None) };
        if let Some(bytes) = bytes {
            return Ok(Some(MediaObject { content_type, bytes }));
        }
        // Chunks come in clustering order; a gap means a write is missing.
        let chunks: Vec<(i32, Vec<u8>)> = self.paged(&s.get_chunks, (key,)).await?;
        let mut bytes = Vec::with_capacity(chunks.len() * CHUNK_BYTES);
        for (expected, (index, chunk)) in chunks.into_iter().enumerate() {
            if usize::try_from(index).ok() != Some(expected) {
                return Err(StoreError::Corrupt(format!("media {key}: chunk {expected} is missing")));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(Some(MediaObject { content_type, bytes }))
    }

    async fn delete_key(&self, key: &str) -> StoreResult<()> {
        let s = &self.statements.media;
        // The header first: from then on the object is gone for readers.
        self.run(&s.delete, (key,)).await?;
        self.run(&s.delete_chunks, (key,)).await.map(|_| ())
    }
}

#[async_trait]
impl MediaRepo for CqlStore {
    async fn put(&self, id: &str, object: MediaObject) -> StoreResult<()> {
        self.put_key(id, object).await
    }

    async fn get(&self, id: &str) -> StoreResult<Option<MediaObject>> {
        self.get_key(id).await
    }

    async fn put_variant(&self, id: &str, width: u32, object: MediaObject) -> StoreResult<()> {
        self.put_key(&variant_key(id, width), object).await
    }

    async fn get_variant(&self, id: &str, width: u32) -> StoreResult<Option<MediaObject>> {
        self.get_key(&variant_key(id, width)).await
    }

    async fn delete(&self, id: &str) -> StoreResult<bool> {
        let header: Option<(String, Option<Vec<u8>>)> = self.first(&self.statements.media.get, (id,)).await?;
        self.delete_key(id).await?;
        for width in MEDIA_VARIANT_WIDTHS {
            self.delete_key(&variant_key(id, width)).await?;
        }
        Ok(header.is_some())
    }
}
