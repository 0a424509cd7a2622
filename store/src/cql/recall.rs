//! The recall index over CQL (`RecallRepo`), in `recall_docs` and `recall_postings`: one
//! partition per user–character pair (see `schema.cql`). A document's rows are written and
//! removed in unlogged batches on that one partition, which a replica applies as one
//! mutation; long messages are cut into several batches (`BATCH_ROWS`) to stay under the
//! server's batch size limits, the document row last when indexing and removing, so a
//! document row never names postings that were not written.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_domain::recall::{CollectionSize, term_counts};
use async_trait::async_trait;
use scylla::serialize::row::SerializeRow;
use scylla::statement::batch::BatchType;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, corrupt};
use crate::{RecallKind, RecallMatches, RecallPosting, RecallRepo, StoreResult};

/// Statements per batch: a posting row is under 100 bytes, so a batch stays near the
/// servers' 5 KiB warning threshold and far from their 50 KiB limit.
const BATCH_ROWS: usize = 60;

pub(super) struct Statements {
    insert_doc: PreparedStatement,
    insert_posting: PreparedStatement,
    doc_terms: PreparedStatement,
    delete_doc: PreparedStatement,
    delete_posting: PreparedStatement,
    size: PreparedStatement,
    postings: PreparedStatement,
    delete_pair_docs: PreparedStatement,
    delete_pair_postings: PreparedStatement,
    pair_memories: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let pair = "user_id = ? AND character_id = ?";
        Ok(Self {
            insert_doc: p
                .prepare(
                    "INSERT INTO recall_docs (user_id, character_id, kind, doc_id, doc_length, terms) VALUES (?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            insert_posting: p
                .prepare(
                    "INSERT INTO recall_postings (user_id, character_id, term, kind, doc_id, tf, doc_length)
                     VALUES (?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            doc_terms: p
                .prepare(
                    &format!("SELECT terms FROM recall_docs WHERE {pair} AND kind = ? AND doc_id = ?"),
                    Kind::Idempotent,
                )
                .await?,
            delete_doc: p
                .prepare(&format!("DELETE FROM recall_docs WHERE {pair} AND kind = ? AND doc_id = ?"), Kind::Idempotent)
                .await?,
            delete_posting: p
                .prepare(
                    &format!("DELETE FROM recall_postings WHERE {pair} AND term = ? AND kind = ? AND doc_id = ?"),
                    Kind::Idempotent,
                )
                .await?,
            size: p
                .prepare(
                    &format!("SELECT COUNT(*), SUM(doc_length) FROM recall_docs WHERE {pair} AND kind = ?"),
                    Kind::Idempotent,
                )
                .await?,
            postings: p
                .prepare(
                    &format!("SELECT term, kind, doc_id, tf, doc_length FROM recall_postings WHERE {pair} AND term IN ?"),
                    Kind::Idempotent,
                )
                .await?,
            delete_pair_docs: p.prepare(&format!("DELETE FROM recall_docs WHERE {pair}"), Kind::Idempotent).await?,
            delete_pair_postings: p
                .prepare(&format!("DELETE FROM recall_postings WHERE {pair}"), Kind::Idempotent)
                .await?,
            pair_memories: p
                .prepare(&format!("SELECT memory_id, content FROM memories WHERE {pair}"), Kind::Idempotent)
                .await?,
        })
    }
}

type Row = Box<dyn SerializeRow + Send + Sync>;

impl CqlStore {
    /// Indexes `text` as document `id` of `kind` in the pair's index; with `replacing`, what
    /// it held of the document goes first (a new message or memory has nothing there).
    pub(super) async fn index_doc(
        &self,
        user: &str,
        character: &str,
        (kind, id): (RecallKind, i64),
        text: &str,
        replacing: bool,
    ) -> StoreResult<()> {
        if replacing {
            self.unindex_doc(user, character, kind, id).await?;
        }
        let counts = term_counts(text);
        if counts.counts.is_empty() {
            return Ok(());
        }
        let s = &self.statements.recall;
        let length = i32::try_from(counts.length).unwrap_or(i32::MAX);
        let mut rows: Vec<(&PreparedStatement, Row)> = counts
            .counts
            .iter()
            .map(|(term, count)| {
                let count = i32::try_from(*count).unwrap_or(i32::MAX);
                let values = (user.to_owned(), character.to_owned(), term.clone(), kind.code(), id, count, length);
                (&s.insert_posting, Box::new(values) as Row)
            })
            .collect();
        let terms: Vec<String> = counts.counts.into_iter().map(|(term, _)| term).collect();
        let doc = (user.to_owned(), character.to_owned(), kind.code(), id, i64::from(length), terms);
        rows.push((&s.insert_doc, Box::new(doc)));
        self.write_batches(rows).await
    }

    /// Takes document `id` of `kind` out of the pair's index, if it is there.
    pub(super) async fn unindex_doc(&self, user: &str, character: &str, kind: RecallKind, id: i64) -> StoreResult<()> {
        let s = &self.statements.recall;
        let found: Option<(Option<Vec<String>>,)> =
            self.first(&s.doc_terms, (user, character, kind.code(), id)).await?;
        let Some((terms,)) = found else { return Ok(()) };
        let mut rows: Vec<(&PreparedStatement, Row)> = terms
            .unwrap_or_default()
            .into_iter()
            .map(|term| {
                let values = (user.to_owned(), character.to_owned(), term, kind.code(), id);
                (&s.delete_posting, Box::new(values) as Row)
            })
            .collect();
        rows.push((&s.delete_doc, Box::new((user.to_owned(), character.to_owned(), kind.code(), id))));
        self.write_batches(rows).await
    }

    /// Takes every message out of the pair's index (the conversation was deleted): the
    /// pair's partitions go, and its memories, which stay, are indexed again.
    pub(super) async fn unindex_messages(&self, user: &str, character: &str) -> StoreResult<()> {
        self.delete_recall_pair(user, character).await?;
        let memories: Vec<(i64, String)> = self.paged(&self.statements.recall.pair_memories, (user, character)).await?;
        for (id, content) in memories {
            self.index_doc(user, character, (RecallKind::Memory, id), &content, false).await?;
        }
        Ok(())
    }

    /// Removes the pair's whole index (account deletion).
    pub(super) async fn delete_recall_pair(&self, user: &str, character: &str) -> StoreResult<()> {
        let s = &self.statements.recall;
        self.run(&s.delete_pair_postings, (user, character)).await?;
        self.run(&s.delete_pair_docs, (user, character)).await?;
        Ok(())
    }

    /// Runs `rows` as unlogged batches of at most `BATCH_ROWS`, in order.
    async fn write_batches(&self, rows: Vec<(&PreparedStatement, Row)>) -> StoreResult<()> {
        for chunk in rows.chunks(BATCH_ROWS) {
            let statements: Vec<&PreparedStatement> = chunk.iter().map(|(statement, _)| *statement).collect();
            let values: Vec<&Row> = chunk.iter().map(|(_, values)| values).collect();
            self.write_batch(BatchType::Unlogged, &statements, values).await?;
        }
        Ok(())
    }

    async fn collection_size(&self, user: &str, character: &str, kind: RecallKind) -> StoreResult<CollectionSize> {
        let row: Option<(i64, Option<i64>)> =
            self.first(&self.statements.recall.size, (user, character, kind.code())).await?;
        let (docs, length) = row.map_or((0, 0), |(docs, length)| (docs, length.unwrap_or(0)));
        Ok(CollectionSize { docs: docs.max(0) as u64, length: length.max(0) as u64 })
    }
}

#[async_trait]
impl RecallRepo for CqlStore {
    async fn recall(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        terms: &[String],
    ) -> StoreResult<RecallMatches> {
        let (user, character) = (user_id.as_str(), character_id.as_str());
        type PostingRow = (String, String, i64, i32, i32);
        // The three reads at once: one round trip's wait, not two.
        let postings = async {
            if terms.is_empty() {
                return Ok(Vec::new());
            }
            self.paged::<PostingRow>(&self.statements.recall.postings, (user, character, terms.to_vec())).await
        };
        let (messages, memories, rows) = tokio::try_join!(
            self.collection_size(user, character, RecallKind::Message),
            self.collection_size(user, character, RecallKind::Memory),
            postings,
        )?;
        let mut matches = RecallMatches { postings: Vec::new(), messages, memories };
        for (term, kind, id, count, length) in rows {
            matches.postings.push(RecallPosting {
                term,
                kind: RecallKind::from_code(&kind)?,
                id: EntryId::from_raw(id),
                count: u32::try_from(count).map_err(corrupt)?,
                length: u32::try_from(length).map_err(corrupt)?,
            });
        }
        Ok(matches)
    }
}
