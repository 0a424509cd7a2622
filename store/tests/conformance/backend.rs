//! The store under test. `fresh()` gives a new, empty store of the implementation chosen
//! by `AMORA_CONFORMANCE_STORE`: `embedded` (the default) on a new SQLite file, or `cql`
//! in a new keyspace of the CQL server at `AMORA_CQL_NODE` (ScyllaDB or Cassandra; the
//! test command starts Cassandra 5 and runs the suite a second time this way).

use amora_store::Store;
use amora_store::cql::{CqlSettings, CqlStore};
use amora_store::embedded::EmbeddedStore;

/// Keeps the store's files alive for the test and removes them after. A CQL keyspace is
/// left to the server's throw-away data folder: dropping it would cost each test a
/// schema change.
pub struct Guard {
    _dir: Option<tempfile::TempDir>,
}

/// Which implementation the suite runs against.
pub fn kind() -> String {
    std::env::var("AMORA_CONFORMANCE_STORE").unwrap_or_else(|_| "embedded".into())
}

pub async fn fresh() -> (Store, Guard) {
    match kind().as_str() {
        "embedded" => {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().to_owned();
            let store =
                tokio::task::spawn_blocking(move || EmbeddedStore::open(&path)).await.unwrap().unwrap().into_store();
            (store, Guard { _dir: Some(dir) })
        }
        "cql" => {
            let node = std::env::var("AMORA_CQL_NODE").unwrap_or_else(|_| "127.0.0.1:9042".into());
            let keyspace = format!("conformance_{:016x}", rand_suffix());
            let store = CqlStore::connect(CqlSettings::local(&node, &keyspace))
                .await
                .unwrap_or_else(|e| panic!("the CQL server at {node}: {e}"));
            (store.into_store(), Guard { _dir: None })
        }
        other => panic!("AMORA_CONFORMANCE_STORE={other:?}: expected embedded or cql"),
    }
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos());
    hasher.finish()
}
