//! Amora's storage: one repository trait per aggregate, so that the embedded store (a
//! single SQLite file, the default) and a ScyllaDB store can stand behind the same calls.
//!
//! Traits are shaped with a wide-column store in mind: every read names its partition
//! (a gender's catalogue, one media id, one user) and lists come back in clustering order.

use std::sync::Arc;

use amora_domain::character::{Character, CharacterCard, CharacterId};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::telemetry::{ErrorReport, PageEvent};
use amora_domain::viewer::Viewer;
use async_trait::async_trait;

pub mod embedded;
pub mod seed;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or answered with an error.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Stored data could not be read back into a domain value.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A character as it goes into the catalogue, with its place in the listing order.
#[derive(Debug, Clone)]
pub struct CatalogueEntry {
    pub character: Character,
    /// Position in the gender's listing; lower comes first.
    pub rank: i64,
}

/// The character catalogue, partitioned by gender and ordered by rank.
#[async_trait]
pub trait CharacterRepo: Send + Sync {
    /// One page of the cards `viewer` may see in `gender`'s catalogue.
    async fn list_cards(&self, gender: Gender, viewer: Viewer, page: PageRequest) -> StoreResult<Vec<CharacterCard>>;
    async fn get(&self, id: &CharacterId) -> StoreResult<Option<Character>>;
    /// Inserts or replaces entries; used by seeding and by creation later.
    async fn upsert(&self, entries: Vec<CatalogueEntry>) -> StoreResult<()>;
    async fn count(&self) -> StoreResult<u64>;
}

/// A stored image or sound, addressed by id and served at `/media/{id}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaObject {
    pub content_type: String,
    pub bytes: Vec<u8>,
}

#[async_trait]
pub trait MediaRepo: Send + Sync {
    async fn put(&self, id: &str, object: MediaObject) -> StoreResult<()>;
    async fn get(&self, id: &str) -> StoreResult<Option<MediaObject>>;
}

/// Browser telemetry and error reports, kept for operators.
#[async_trait]
pub trait TelemetryRepo: Send + Sync {
    async fn record_page_event(&self, event: PageEvent) -> StoreResult<()>;
    async fn record_error_report(&self, report: ErrorReport) -> StoreResult<()>;
    /// The newest error reports first; for operators and tests.
    async fn recent_error_reports(&self, limit: u32) -> StoreResult<Vec<ErrorReport>>;
    async fn recent_page_events(&self, limit: u32) -> StoreResult<Vec<PageEvent>>;
}

/// Whether the store answers at all; `/readyz` asks this.
#[async_trait]
pub trait Health: Send + Sync {
    async fn ping(&self) -> StoreResult<()>;
}

/// Every repository of one store implementation, shared across the server.
#[derive(Clone)]
pub struct Store {
    pub characters: Arc<dyn CharacterRepo>,
    pub media: Arc<dyn MediaRepo>,
    pub telemetry: Arc<dyn TelemetryRepo>,
    pub health: Arc<dyn Health>,
}
