//! Conversations, memories and daily message credits in SQLite. Tables are keyed the way
//! the wide-column store partitions them: (user, character) then the time-ordered id.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MemoryId, MessageId, Speaker};
use async_trait::async_trait;
use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::EmbeddedStore;
use super::recall::PairIndex;
use crate::{
    ConversationRepo, ConversationSummary, Memory, MemoryOrigin, MemoryRepo, MessageCreditRepo, MessageImage,
    RecallKind, StoreError, StoreResult, StoredMessage,
};

fn speaker(code: &str) -> StoreResult<Speaker> {
    Speaker::from_code(code).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn character(id: &str) -> StoreResult<CharacterId> {
    CharacterId::parse(id).map_err(|e| StoreError::Corrupt(e.to_string()))
}

#[async_trait]
impl ConversationRepo for EmbeddedStore {
    async fn append(&self, user_id: &UserId, character_id: &CharacterId, message: StoredMessage) -> StoreResult<()> {
        let (user, character) = (user_id.as_str().to_owned(), character_id.as_str().to_owned());
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            tx.prepare_cached(
                "INSERT INTO messages (user_id, character_id, message_id, speaker, content, image)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                user,
                character,
                message.message_id.raw(),
                message.speaker.code(),
                message.content,
                message.image.as_ref().map(MessageImage::code)
            ])?;
            if message.speaker == Speaker::User {
                let index = PairIndex { conn: &tx, user: &user, character: &character };
                index.put(RecallKind::Message, message.message_id.raw(), &message.content)?;
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        before: Option<MessageId>,
        limit: u32,
    ) -> StoreResult<Vec<StoredMessage>> {
        let (user, character) = (user_id.as_str().to_owned(), character_id.as_str().to_owned());
        let before = before.map_or(i64::MAX, EntryId::raw);
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT message_id, speaker, content, image FROM messages
                 WHERE user_id = ?1 AND character_id = ?2 AND message_id < ?3
                 ORDER BY message_id DESC LIMIT ?4",
            )?;
            let rows = statement.query_map(params![user, character, before, limit], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, Option<String>>(3)?,
                ))
            })?;
            rows.map(|row| {
                let (id, code, content, image) = row?;
                Ok(StoredMessage {
                    message_id: MessageId::from_raw(id),
                    speaker: speaker(&code)?,
                    content,
                    image: image.as_deref().map(MessageImage::from_code).transpose()?,
                })
            })
            .collect()
        })
        .await
    }

    async fn update_message(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
        content: &str,
    ) -> StoreResult<bool> {
        let (user, character, content) =
            (user_id.as_str().to_owned(), character_id.as_str().to_owned(), content.to_owned());
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let speaker_code: Option<String> = tx
                .prepare_cached(
                    "UPDATE messages SET content = ?4 WHERE user_id = ?1 AND character_id = ?2 AND message_id = ?3
                     RETURNING speaker",
                )?
                .query_row(params![user, character, message_id.raw(), content], |row| row.get(0))
                .optional()?;
            let Some(code) = speaker_code else { return Ok(false) };
            if speaker(&code)? == Speaker::User {
                PairIndex { conn: &tx, user: &user, character: &character }.put(
                    RecallKind::Message,
                    message_id.raw(),
                    &content,
                )?;
            }
            tx.commit()?;
            Ok(true)
        })
        .await
    }

    async fn delete_messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_ids: &[MessageId],
    ) -> StoreResult<u64> {
        let (user, character) = (user_id.as_str().to_owned(), character_id.as_str().to_owned());
        let ids: Vec<i64> = message_ids.iter().map(|id| id.raw()).collect();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let mut deleted = 0;
            {
                let mut statement = tx.prepare_cached(
                    "DELETE FROM messages WHERE user_id = ?1 AND character_id = ?2 AND message_id = ?3",
                )?;
                let index = PairIndex { conn: &tx, user: &user, character: &character };
                for id in ids {
                    deleted += statement.execute(params![user, character, id])? as u64;
                    index.remove(RecallKind::Message, id)?;
                    super::voice::delete_voice(
                        &tx,
                        super::voice::VoiceScope { user: &user, character: Some(&character), message: Some(id) },
                    )?;
                }
            }
            tx.commit()?;
            Ok(deleted)
        })
        .await
    }

    async fn list(&self, user_id: &UserId) -> StoreResult<Vec<ConversationSummary>> {
        let user = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            // The newest message of each of the user's conversations (primary-key lookups only).
            let mut statement = conn.prepare_cached(
                "SELECT m.character_id, m.message_id, m.speaker, m.content, m.image
                 FROM (SELECT character_id, MAX(message_id) AS newest FROM messages WHERE user_id = ?1 GROUP BY character_id) AS c
                 JOIN messages AS m ON m.user_id = ?1 AND m.character_id = c.character_id AND m.message_id = c.newest
                 ORDER BY m.message_id DESC",
            )?;
            let rows = statement.query_map(params![user], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, Option<String>>(4)?,
                ))
            })?;
            rows.map(|row| {
                let (character_id, id, code, content, image) = row?;
                Ok(ConversationSummary {
                    character_id: character(&character_id)?,
                    last_message: StoredMessage {
                        message_id: MessageId::from_raw(id),
                        speaker: speaker(&code)?,
                        content,
                        image: image.as_deref().map(MessageImage::from_code).transpose()?,
                    },
                })
            })
            .collect()
        })
        .await
    }

    async fn delete(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<bool> {
        let (user, character) = (user_id.as_str().to_owned(), character_id.as_str().to_owned());
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let deleted =
                tx.execute("DELETE FROM messages WHERE user_id = ?1 AND character_id = ?2", params![user, character])?;
            PairIndex { conn: &tx, user: &user, character: &character }.clear(RecallKind::Message)?;
            super::voice::delete_voice(
                &tx,
                super::voice::VoiceScope { user: &user, character: Some(&character), message: None },
            )?;
            tx.commit()?;
            Ok(deleted > 0)
        })
        .await
    }
}

#[async_trait]
impl MemoryRepo for EmbeddedStore {
    async fn add(&self, user_id: &UserId, character_id: &CharacterId, memory: Memory) -> StoreResult<()> {
        let (user, character) = (user_id.as_str().to_owned(), character_id.as_str().to_owned());
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            tx.prepare_cached(
                "INSERT INTO memories (user_id, character_id, memory_id, content, origin, pinned)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                user,
                character,
                memory.memory_id.raw(),
                memory.content,
                memory.origin.code(),
                memory.pinned
            ])?;
            PairIndex { conn: &tx, user: &user, character: &character }.put(
                RecallKind::Memory,
                memory.memory_id.raw(),
                &memory.content,
            )?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn list(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<Vec<Memory>> {
        let (user, character) = (user_id.as_str().to_owned(), character_id.as_str().to_owned());
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT memory_id, content, origin, pinned FROM memories WHERE user_id = ?1 AND character_id = ?2
                 ORDER BY memory_id DESC",
            )?;
            let rows = statement.query_map(params![user, character], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?, row.get::<_, bool>(3)?))
            })?;
            rows.map(|row| {
                let (id, content, code, pinned) = row?;
                Ok(Memory {
                    memory_id: MemoryId::from_raw(id),
                    content,
                    origin: MemoryOrigin::from_code(&code)?,
                    pinned,
                })
            })
            .collect()
        })
        .await
    }

    async fn update(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        content: &str,
    ) -> StoreResult<bool> {
        let (user, character, content) =
            (user_id.as_str().to_owned(), character_id.as_str().to_owned(), content.to_owned());
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let changed = tx
                .prepare_cached(
                    "UPDATE memories SET content = ?4, origin = 'user'
                     WHERE user_id = ?1 AND character_id = ?2 AND memory_id = ?3",
                )?
                .execute(params![user, character, memory_id.raw(), content])?;
            if changed > 0 {
                PairIndex { conn: &tx, user: &user, character: &character }.put(
                    RecallKind::Memory,
                    memory_id.raw(),
                    &content,
                )?;
            }
            tx.commit()?;
            Ok(changed > 0)
        })
        .await
    }

    async fn delete(&self, user_id: &UserId, character_id: &CharacterId, memory_id: MemoryId) -> StoreResult<bool> {
        let (user, character) = (user_id.as_str().to_owned(), character_id.as_str().to_owned());
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let deleted = tx.execute(
                "DELETE FROM memories WHERE user_id = ?1 AND character_id = ?2 AND memory_id = ?3",
                params![user, character, memory_id.raw()],
            )?;
            PairIndex { conn: &tx, user: &user, character: &character }.remove(RecallKind::Memory, memory_id.raw())?;
            tx.commit()?;
            Ok(deleted > 0)
        })
        .await
    }

    async fn set_pinned(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        pinned: bool,
    ) -> StoreResult<bool> {
        let (user, character) = (user_id.as_str().to_owned(), character_id.as_str().to_owned());
        self.with_conn(move |conn| {
            let changed = conn
                .prepare_cached(
                    "UPDATE memories SET pinned = ?4 WHERE user_id = ?1 AND character_id = ?2 AND memory_id = ?3",
                )?
                .execute(params![user, character, memory_id.raw(), pinned])?;
            Ok(changed > 0)
        })
        .await
    }
}

#[async_trait]
impl MessageCreditRepo for EmbeddedStore {
    async fn take(&self, user_id: &UserId, day: i64, limit: u32) -> StoreResult<Option<u32>> {
        let user = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            // IMMEDIATE: the read and the increment are one step for every process on the file.
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let used: u32 = tx
                .query_row(
                    "SELECT used FROM message_credits WHERE user_id = ?1 AND day = ?2",
                    params![user, day],
                    |row| row.get(0),
                )
                .optional()?
                .unwrap_or(0);
            if used >= limit {
                return Ok(None);
            }
            tx.execute(
                "INSERT INTO message_credits (user_id, day, used) VALUES (?1, ?2, ?3)
                 ON CONFLICT (user_id, day) DO UPDATE SET used = excluded.used",
                params![user, day, used + 1],
            )?;
            tx.commit()?;
            Ok(Some(used + 1))
        })
        .await
    }

    async fn give_back(&self, user_id: &UserId, day: i64) -> StoreResult<()> {
        let user = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            conn.execute(
                "UPDATE message_credits SET used = used - 1 WHERE user_id = ?1 AND day = ?2 AND used > 0",
                params![user, day],
            )?;
            Ok(())
        })
        .await
    }

    async fn used(&self, user_id: &UserId, day: i64) -> StoreResult<u32> {
        let user = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT used FROM message_credits WHERE user_id = ?1 AND day = ?2",
                    params![user, day],
                    |row| row.get(0),
                )
                .optional()?
                .unwrap_or(0))
        })
        .await
    }
}
