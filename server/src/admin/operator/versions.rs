//! Texts the console publishes in versions: the legal texts (`desks`) and the landing pages'
//! copy (`content`). Each publish is a new version of a document in a language, shown from
//! then on; the old ones stay, for the record. Both live in the store's versioned texts
//! (`LegalTextRepo`), keyed by document and language.

use amora_store::LegalVersion;
use serde_json::{Value, json};

use crate::admin::{AdminError, internal};
use crate::state::AppState;

/// Versions of a document listed.
const VERSIONS_SHOWN: u32 = 50;

/// Milliseconds since the epoch: two versions published in one second stay apart.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

fn version_view(version: LegalVersion) -> Value {
    let text: Value = serde_json::from_str(&version.body).unwrap_or(Value::Null);
    json!({
        "lastModified": version.last_modified,
        "text": text,
        "operatorId": version.operator_id,
        "at": version.published_at,
    })
}

/// A document's published versions in a language, newest (the one shown) first, as
/// `{lastModified, text, operatorId, at}`.
pub(crate) async fn list(state: &AppState, doc: &str, lang: &str) -> Result<Vec<Value>, AdminError> {
    let versions = state.store.legal.legal_versions(doc, lang, VERSIONS_SHOWN).await.map_err(internal)?;
    Ok(versions.into_iter().map(version_view).collect())
}

/// Stores `text` (already checked) as the newest version of `doc` in `lang`, published by
/// `operator_id` and showing `last_modified` (YYYY-MM-DD).
pub(crate) async fn publish(
    state: &AppState,
    operator_id: String,
    doc: &str,
    lang: &str,
    last_modified: String,
    text: &Value,
) -> Result<(), AdminError> {
    // After the newest version even within one millisecond: versions are keyed by it.
    let newest = state.store.legal.legal_versions(doc, lang, 1).await.map_err(internal)?;
    let published_at = newest.first().map_or(now_millis(), |v| now_millis().max(v.published_at + 1));
    let version = LegalVersion {
        doc: doc.to_owned(),
        lang: lang.to_owned(),
        last_modified,
        body: text.to_string(),
        operator_id,
        published_at,
    };
    state.store.legal.publish_legal(version).await.map_err(internal)
}
