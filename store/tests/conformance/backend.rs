//! The store under test. `fresh()` gives a new, empty store of the implementation chosen
//! by `AMORA_CONFORMANCE_STORE` (default `embedded`), and a guard that removes it after.

use amora_store::Store;
use amora_store::embedded::EmbeddedStore;

/// Keeps the store's files (or keyspace) alive for the test and removes them after.
pub struct Guard {
    _dir: tempfile::TempDir,
}

pub async fn fresh() -> (Store, Guard) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_owned();
    let store = tokio::task::spawn_blocking(move || EmbeddedStore::open(&path)).await.unwrap().unwrap().into_store();
    (store, Guard { _dir: dir })
}
