//! Reply versions (swipes) in SQLite: the texts by (pair, parent, index) and the chosen
//! index by (pair, parent), keyed as the CQL tables are partitioned.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::MessageId;
use async_trait::async_trait;
use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::EmbeddedStore;
use crate::{ReplyAlternativeRepo, ReplyAlternatives, StoreResult};

fn pair(user_id: &UserId, character_id: &CharacterId) -> (String, String) {
    (user_id.as_str().to_owned(), character_id.as_str().to_owned())
}

#[async_trait]
impl ReplyAlternativeRepo for EmbeddedStore {
    async fn alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
    ) -> StoreResult<Option<ReplyAlternatives>> {
        let (user, character) = pair(user_id, character_id);
        self.with_conn(move |conn| {
            let texts: Vec<String> = conn
                .prepare_cached(
                    "SELECT content FROM reply_alternatives
                     WHERE user_id = ?1 AND character_id = ?2 AND parent_id = ?3 ORDER BY idx",
                )?
                .query_map(params![user, character, parent_id.raw()], |row| row.get(0))?
                .collect::<Result<_, _>>()?;
            if texts.is_empty() {
                return Ok(None);
            }
            let chosen: Option<u32> = conn
                .prepare_cached(
                    "SELECT chosen FROM reply_choices WHERE user_id = ?1 AND character_id = ?2 AND parent_id = ?3",
                )?
                .query_row(params![user, character, parent_id.raw()], |row| row.get(0))
                .optional()?;
            let last = texts.len() as u32 - 1;
            Ok(Some(ReplyAlternatives { parent_id, chosen: chosen.unwrap_or(last).min(last), texts }))
        })
        .await
    }

    async fn add_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        content: &str,
    ) -> StoreResult<u32> {
        let ((user, character), content) = (pair(user_id, character_id), content.to_owned());
        self.with_conn(move |conn| {
            // IMMEDIATE: the next index is read and taken in one step.
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let index: u32 = tx.query_row(
                "SELECT COUNT(*) FROM reply_alternatives WHERE user_id = ?1 AND character_id = ?2 AND parent_id = ?3",
                params![user, character, parent_id.raw()],
                |row| row.get(0),
            )?;
            tx.execute(
                "INSERT INTO reply_alternatives (user_id, character_id, parent_id, idx, content)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![user, character, parent_id.raw(), index, content],
            )?;
            tx.execute(
                "INSERT INTO reply_choices (user_id, character_id, parent_id, chosen) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (user_id, character_id, parent_id) DO UPDATE SET chosen = excluded.chosen",
                params![user, character, parent_id.raw(), index],
            )?;
            tx.commit()?;
            Ok(index)
        })
        .await
    }

    async fn choose_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
    ) -> StoreResult<bool> {
        let (user, character) = pair(user_id, character_id);
        self.with_conn(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let exists = tx
                .query_row(
                    "SELECT 1 FROM reply_alternatives
                     WHERE user_id = ?1 AND character_id = ?2 AND parent_id = ?3 AND idx = ?4",
                    params![user, character, parent_id.raw(), index],
                    |_| Ok(()),
                )
                .optional()?
                .is_some();
            if exists {
                tx.execute(
                    "INSERT INTO reply_choices (user_id, character_id, parent_id, chosen) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (user_id, character_id, parent_id) DO UPDATE SET chosen = excluded.chosen",
                    params![user, character, parent_id.raw(), index],
                )?;
            }
            tx.commit()?;
            Ok(exists)
        })
        .await
    }

    async fn set_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
        content: &str,
    ) -> StoreResult<bool> {
        let ((user, character), content) = (pair(user_id, character_id), content.to_owned());
        self.with_conn(move |conn| {
            let changed = conn
                .prepare_cached(
                    "UPDATE reply_alternatives SET content = ?5
                     WHERE user_id = ?1 AND character_id = ?2 AND parent_id = ?3 AND idx = ?4",
                )?
                .execute(params![user, character, parent_id.raw(), index, content])?;
            Ok(changed > 0)
        })
        .await
    }

    async fn delete_alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_ids: &[MessageId],
    ) -> StoreResult<()> {
        let (user, character) = pair(user_id, character_id);
        let ids: Vec<i64> = parent_ids.iter().map(|id| id.raw()).collect();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            for id in ids {
                for table in ["reply_alternatives", "reply_choices"] {
                    tx.execute(
                        &format!("DELETE FROM {table} WHERE user_id = ?1 AND character_id = ?2 AND parent_id = ?3"),
                        params![user, character, id],
                    )?;
                }
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn delete_pair_alternatives(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<()> {
        let (user, character) = pair(user_id, character_id);
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            for table in ["reply_alternatives", "reply_choices"] {
                tx.execute(
                    &format!("DELETE FROM {table} WHERE user_id = ?1 AND character_id = ?2"),
                    params![user, character],
                )?;
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }
}
