//! The recall index in SQLite (`RecallRepo`): kept inside the transactions that change
//! messages and memories (`chat.rs`), so a message and its postings are written and removed
//! together.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_domain::recall::{CollectionSize, term_counts};
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};

use super::EmbeddedStore;
use crate::{RecallKind, RecallMatches, RecallPosting, RecallRepo, StoreResult};

/// One pair's index, inside a connection or transaction.
pub(super) struct PairIndex<'a> {
    pub conn: &'a Connection,
    pub user: &'a str,
    pub character: &'a str,
}

impl PairIndex<'_> {
    /// Indexes `text` as document `id` of `kind` (replacing what the index held of it).
    pub fn put(&self, kind: RecallKind, id: i64, text: &str) -> StoreResult<()> {
        self.remove(kind, id)?;
        let counts = term_counts(text);
        if counts.counts.is_empty() {
            return Ok(());
        }
        let terms: Vec<&str> = counts.counts.iter().map(|(term, _)| term.as_str()).collect();
        self.conn
            .prepare_cached(
                "INSERT INTO recall_docs (user_id, character_id, kind, doc_id, doc_length, terms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![self.user, self.character, kind.code(), id, counts.length, terms.join(" ")])?;
        let mut insert = self.conn.prepare_cached(
            "INSERT INTO recall_postings (user_id, character_id, term, kind, doc_id, tf, doc_length)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for (term, count) in &counts.counts {
            insert.execute(params![self.user, self.character, term, kind.code(), id, count, counts.length])?;
        }
        Ok(())
    }

    /// Takes document `id` of `kind` out of the index, if it is there.
    pub fn remove(&self, kind: RecallKind, id: i64) -> StoreResult<()> {
        let terms: Option<String> = self
            .conn
            .prepare_cached(
                "SELECT terms FROM recall_docs WHERE user_id = ?1 AND character_id = ?2 AND kind = ?3 AND doc_id = ?4",
            )?
            .query_row(params![self.user, self.character, kind.code(), id], |row| row.get(0))
            .optional()?;
        let Some(terms) = terms else { return Ok(()) };
        let mut delete = self.conn.prepare_cached(
            "DELETE FROM recall_postings
             WHERE user_id = ?1 AND character_id = ?2 AND term = ?3 AND kind = ?4 AND doc_id = ?5",
        )?;
        for term in terms.split(' ').filter(|t| !t.is_empty()) {
            delete.execute(params![self.user, self.character, term, kind.code(), id])?;
        }
        self.conn
            .prepare_cached(
                "DELETE FROM recall_docs WHERE user_id = ?1 AND character_id = ?2 AND kind = ?3 AND doc_id = ?4",
            )?
            .execute(params![self.user, self.character, kind.code(), id])?;
        Ok(())
    }

    /// Takes every document of `kind` out of the pair's index (the conversation was deleted).
    pub fn clear(&self, kind: RecallKind) -> StoreResult<()> {
        self.conn.execute(
            "DELETE FROM recall_postings WHERE user_id = ?1 AND character_id = ?2 AND kind = ?3",
            params![self.user, self.character, kind.code()],
        )?;
        self.conn.execute(
            "DELETE FROM recall_docs WHERE user_id = ?1 AND character_id = ?2 AND kind = ?3",
            params![self.user, self.character, kind.code()],
        )?;
        Ok(())
    }
}

/// Removes every recall document of the user (account deletion).
pub(super) fn delete_all_of(conn: &Connection, user: &str) -> StoreResult<()> {
    conn.execute("DELETE FROM recall_postings WHERE user_id = ?1", params![user])?;
    conn.execute("DELETE FROM recall_docs WHERE user_id = ?1", params![user])?;
    Ok(())
}

#[async_trait]
impl RecallRepo for EmbeddedStore {
    async fn recall(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        terms: &[String],
    ) -> StoreResult<RecallMatches> {
        let (user, character, terms) = (user_id.as_str().to_owned(), character_id.as_str().to_owned(), terms.to_vec());
        self.with_conn(move |conn| {
            let mut matches = RecallMatches::default();
            {
                let mut sizes = conn.prepare_cached(
                    "SELECT kind, COUNT(*), COALESCE(SUM(doc_length), 0) FROM recall_docs
                     WHERE user_id = ?1 AND character_id = ?2 GROUP BY kind",
                )?;
                let rows = sizes.query_map(params![user, character], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?, row.get::<_, i64>(2)?))
                })?;
                for row in rows {
                    let (kind, docs, length) = row?;
                    let size = CollectionSize { docs: docs.max(0) as u64, length: length.max(0) as u64 };
                    match RecallKind::from_code(&kind)? {
                        RecallKind::Message => matches.messages = size,
                        RecallKind::Memory => matches.memories = size,
                    }
                }
            }
            let mut postings = conn.prepare_cached(
                "SELECT kind, doc_id, tf, doc_length FROM recall_postings
                 WHERE user_id = ?1 AND character_id = ?2 AND term = ?3",
            )?;
            for term in &terms {
                let rows = postings.query_map(params![user, character, term], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?, row.get::<_, u32>(2)?, row.get::<_, u32>(3)?))
                })?;
                for row in rows {
                    let (kind, id, count, length) = row?;
                    matches.postings.push(RecallPosting {
                        term: term.clone(),
                        kind: RecallKind::from_code(&kind)?,
                        id: EntryId::from_raw(id),
                        count,
                        length,
                    });
                }
            }
            Ok(matches)
        })
        .await
    }
}
