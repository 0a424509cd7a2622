//! The embedded store: one SQLite file under `store.data_dir`, durable on commit, no
//! server to start. SQLite calls block, so each runs on tokio's blocking pool with a
//! pooled connection; WAL mode lets readers proceed while one writer commits.

mod accounts;
mod alternatives;
mod blog;
mod catalogue_blocks;
mod characters;
mod chat;
mod feed_moderation;
mod gallery;
mod groups;
mod ledger;
mod media;
mod migrations;
mod moderation;
mod operators;
mod payments;
mod pending;
mod personas;
mod recall;
mod reversals;
mod telemetry;
mod voice;
mod webhooks;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::Connection;

use crate::{Health, Store, StoreError, StoreResult};

/// The database file's name inside the data directory.
pub const DATABASE_FILE: &str = "amora.db";
/// Readers share the pool with the one writer SQLite allows at a time; a handful covers
/// two cores with room for requests waiting on I/O.
const POOL_SIZE: u32 = 8;
/// How long a writer waits for another writer's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone)]
pub struct EmbeddedStore {
    pool: Pool<SqliteConnectionManager>,
    path: PathBuf,
    round_trips: Arc<AtomicU64>,
}

impl EmbeddedStore {
    /// Opens (creating if needed) the database in `data_dir` and applies migrations.
    pub fn open(data_dir: &Path) -> StoreResult<Self> {
        std::fs::create_dir_all(data_dir)
            .map_err(|e| StoreError::Unavailable(format!("cannot create {}: {e}", data_dir.display())))?;
        let path = data_dir.join(DATABASE_FILE);
        // The journal mode is a property of the file: set once here, because the pool opens
        // its connections side by side and all but one of them switching it at the same
        // moment were refused ("database is locked", logged by the pool as an error).
        Connection::open(&path)
            .and_then(|conn| conn.pragma_update(None, "journal_mode", "WAL"))
            .map_err(|e| StoreError::Unavailable(format!("cannot open {}: {e}", path.display())))?;
        let manager = SqliteConnectionManager::file(&path).with_init(|conn| {
            conn.busy_timeout(BUSY_TIMEOUT)?;
            conn.execute_batch(
                "PRAGMA synchronous = NORMAL;
                 PRAGMA foreign_keys = ON;",
            )
        });
        let pool = Pool::builder()
            .max_size(POOL_SIZE)
            .build(manager)
            .map_err(|e| StoreError::Unavailable(format!("cannot open {}: {e}", path.display())))?;
        let mut conn = pool.get().map_err(unavailable)?;
        migrations::apply(&mut conn)?;
        Ok(Self { pool, path, round_trips: Arc::new(AtomicU64::new(0)) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// All repositories of this store.
    pub fn into_store(self) -> Store {
        Store::from_one(Arc::new(self))
    }

    /// Runs `work` with a pooled connection on the blocking pool.
    async fn with_conn<T, F>(&self, work: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> StoreResult<T> + Send + 'static,
    {
        let pool = self.pool.clone();
        self.round_trips.fetch_add(1, Ordering::Relaxed);
        tokio::task::spawn_blocking(move || {
            let mut conn = pool.get().map_err(unavailable)?;
            work(&mut conn)
        })
        .await
        .map_err(|e| StoreError::Unavailable(format!("store task failed: {e}")))?
    }
}

/// Names the field of a UNIQUE failure ("UNIQUE constraint failed: users.email").
fn unique_field(message: &str) -> &'static str {
    if message.contains("users.email") {
        "email"
    } else if message.contains("users.user_no") {
        "userNo"
    } else if message.contains("users.google_subject") {
        "google"
    } else if message.contains("users.discord_id") {
        "discord"
    } else if message.contains("orders.order_id") {
        "orderId"
    } else if message.contains("subscriptions.subscription_id") {
        "subscriptionId"
    } else if message.contains("operators.email") {
        "email"
    } else if message.contains(".provider_ref") {
        "providerRef"
    } else {
        "a unique field"
    }
}

fn unavailable(error: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(error.to_string())
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        match error {
            rusqlite::Error::FromSqlConversionFailure(..) | rusqlite::Error::InvalidColumnType(..) => {
                StoreError::Corrupt(error.to_string())
            }
            rusqlite::Error::SqliteFailure(ref failure, Some(ref message))
                if failure.code == rusqlite::ErrorCode::ConstraintViolation =>
            {
                StoreError::Conflict(unique_field(message))
            }
            other => StoreError::Unavailable(other.to_string()),
        }
    }
}

#[async_trait]
impl Health for EmbeddedStore {
    async fn ping(&self) -> StoreResult<()> {
        self.with_conn(|conn| {
            conn.query_row("SELECT 1", [], |_| Ok(()))?;
            Ok(())
        })
        .await
    }

    fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_runs_in_wal_mode_on_every_pooled_connection() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = EmbeddedStore::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let connections: Vec<_> = (0..4).map(|_| store.pool.get().unwrap_or_else(|e| panic!("{e}"))).collect();
        for conn in &connections {
            let mode: String =
                conn.query_row("PRAGMA journal_mode", [], |row| row.get(0)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(mode, "wal");
        }
    }
}
