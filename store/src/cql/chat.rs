//! Conversations, memories and daily message credits over CQL.
//!
//! Messages and memories live in one partition per user–character pair, newest first.
//! The chat list (`conversations`) keeps each pair's newest message, rewritten by every
//! append and refreshed from the pair's partition after an edit or delete. Credits are
//! taken by compare-and-set, as they are worth money.

use std::time::Duration;

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MemoryId, MessageId, Speaker};
use async_trait::async_trait;
use rand::Rng;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, corrupt};
use crate::{
    ConversationRepo, ConversationSummary, Memory, MemoryOrigin, MemoryRepo, MessageCreditRepo, MessageImage,
    RecallKind, StoreError, StoreResult, StoredMessage,
};

/// Compare-and-set rounds on one user's credits before giving up.
const MAX_ATTEMPTS: u32 = 100;

pub(super) struct Statements {
    insert_message: PreparedStatement,
    messages: PreparedStatement,
    messages_before: PreparedStatement,
    set_message: PreparedStatement,
    message_speaker: PreparedStatement,
    delete_message: PreparedStatement,
    delete_pair_messages: PreparedStatement,
    upsert_conversation: PreparedStatement,
    conversations: PreparedStatement,
    delete_conversation: PreparedStatement,
    delete_conversations: PreparedStatement,
    insert_partner: PreparedStatement,
    partners: PreparedStatement,
    delete_partners: PreparedStatement,
    insert_memory: PreparedStatement,
    memories: PreparedStatement,
    set_memory: PreparedStatement,
    pin_memory: PreparedStatement,
    delete_memory: PreparedStatement,
    delete_pair_memories: PreparedStatement,
    credits: PreparedStatement,
    first_credit: PreparedStatement,
    set_credits: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let pair = "user_id = ? AND character_id = ?";
        Ok(Self {
            insert_message: p
                .prepare(
                    "INSERT INTO messages (user_id, character_id, message_id, speaker, content, image)
                     VALUES (?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            messages: p
                .prepare(
                    &format!("SELECT message_id, speaker, content, image FROM messages WHERE {pair} LIMIT ?"),
                    Kind::Idempotent,
                )
                .await?,
            messages_before: p
                .prepare(
                    &format!(
                        "SELECT message_id, speaker, content, image FROM messages WHERE {pair} AND message_id < ? LIMIT ?"
                    ),
                    Kind::Idempotent,
                )
                .await?,
            set_message: p
                .prepare(
                    &format!("UPDATE messages SET content = ? WHERE {pair} AND message_id = ? IF EXISTS"),
                    Kind::Conditional,
                )
                .await?,
            message_speaker: p
                .prepare(&format!("SELECT speaker FROM messages WHERE {pair} AND message_id = ?"), Kind::Idempotent)
                .await?,
            delete_message: p
                .prepare(&format!("DELETE FROM messages WHERE {pair} AND message_id = ? IF EXISTS"), Kind::Conditional)
                .await?,
            delete_pair_messages: p.prepare(&format!("DELETE FROM messages WHERE {pair}"), Kind::Idempotent).await?,
            upsert_conversation: p
                .prepare(
                    "INSERT INTO conversations (user_id, character_id, last_message_id, last_speaker, last_content, last_image)
                     VALUES (?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            conversations: p
                .prepare(
                    "SELECT character_id, last_message_id, last_speaker, last_content, last_image FROM conversations
                     WHERE user_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            delete_conversation: p.prepare(&format!("DELETE FROM conversations WHERE {pair}"), Kind::Idempotent).await?,
            delete_conversations: p.prepare("DELETE FROM conversations WHERE user_id = ?", Kind::Idempotent).await?,
            insert_partner: p
                .prepare("INSERT INTO chat_partners (user_id, character_id) VALUES (?, ?)", Kind::Idempotent)
                .await?,
            partners: p.prepare("SELECT character_id FROM chat_partners WHERE user_id = ?", Kind::Idempotent).await?,
            delete_partners: p.prepare("DELETE FROM chat_partners WHERE user_id = ?", Kind::Idempotent).await?,
            insert_memory: p
                .prepare(
                    "INSERT INTO memories (user_id, character_id, memory_id, content, origin, pinned)
                     VALUES (?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            memories: p
                .prepare(
                    &format!("SELECT memory_id, content, origin, pinned FROM memories WHERE {pair}"),
                    Kind::Idempotent,
                )
                .await?,
            set_memory: p
                .prepare(
                    &format!("UPDATE memories SET content = ?, origin = 'user' WHERE {pair} AND memory_id = ? IF EXISTS"),
                    Kind::Conditional,
                )
                .await?,
            pin_memory: p
                .prepare(
                    &format!("UPDATE memories SET pinned = ? WHERE {pair} AND memory_id = ? IF EXISTS"),
                    Kind::Conditional,
                )
                .await?,
            delete_memory: p
                .prepare(&format!("DELETE FROM memories WHERE {pair} AND memory_id = ? IF EXISTS"), Kind::Conditional)
                .await?,
            delete_pair_memories: p.prepare(&format!("DELETE FROM memories WHERE {pair}"), Kind::Idempotent).await?,
            credits: p
                .prepare("SELECT used FROM message_credits WHERE user_id = ? AND day = ?", Kind::Idempotent)
                .await?,
            first_credit: p
                .prepare(
                    "INSERT INTO message_credits (user_id, day, used) VALUES (?, ?, 1) IF NOT EXISTS",
                    Kind::Conditional,
                )
                .await?,
            set_credits: p
                .prepare(
                    "UPDATE message_credits SET used = ? WHERE user_id = ? AND day = ? IF used = ?",
                    Kind::Conditional,
                )
                .await?,
        })
    }
}

type MessageRow = (i64, String, String, Option<String>);

fn stored(row: MessageRow) -> StoreResult<StoredMessage> {
    let (id, speaker, content, image) = row;
    Ok(StoredMessage {
        message_id: MessageId::from_raw(id),
        speaker: Speaker::from_code(&speaker).map_err(corrupt)?,
        content,
        image: image.as_deref().map(MessageImage::from_code).transpose()?,
    })
}

/// A short random pause between compare-and-set rounds.
async fn back_off(attempt: u32) {
    let pause = rand::thread_rng().gen_range(1..=(2 + attempt.min(20) * 2));
    tokio::time::sleep(Duration::from_millis(u64::from(pause))).await;
}

impl CqlStore {
    /// Rewrites the pair's chat-list entry from its newest message (or removes it).
    async fn refresh_conversation(&self, user: &str, character: &str) -> StoreResult<()> {
        let s = &self.statements.chat;
        let newest: Option<MessageRow> = self.first(&s.messages, (user, character, 1_i32)).await?;
        match newest {
            Some((id, speaker, content, image)) => {
                self.run(&s.upsert_conversation, (user, character, id, speaker, content, image)).await?;
            }
            None => {
                self.run(&s.delete_conversation, (user, character)).await?;
            }
        }
        Ok(())
    }

    /// Removes every conversation and memory of the user (account deletion).
    pub(super) async fn delete_chats_of(&self, user_id: &UserId) -> StoreResult<()> {
        let s = &self.statements.chat;
        let user = user_id.as_str();
        let partners: Vec<(String,)> = self.paged(&s.partners, (user,)).await?;
        for (character,) in partners {
            self.run(&s.delete_pair_messages, (user, &character)).await?;
            self.delete_pair_versions(user, &character).await?;
            self.run(&s.delete_pair_memories, (user, &character)).await?;
            self.delete_recall_pair(user, &character).await?;
        }
        self.run(&s.delete_conversations, (user,)).await?;
        self.run(&s.delete_partners, (user,)).await?;
        Ok(())
    }

    async fn used_credits(&self, user: &str, day: i64) -> StoreResult<Option<i32>> {
        let row: Option<(Option<i32>,)> = self.first(&self.statements.chat.credits, (user, day)).await?;
        Ok(row.map(|(used,)| used.unwrap_or(0)))
    }
}

#[async_trait]
impl ConversationRepo for CqlStore {
    async fn append(&self, user_id: &UserId, character_id: &CharacterId, message: StoredMessage) -> StoreResult<()> {
        let s = &self.statements.chat;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        let id = message.message_id.raw();
        // Indexed first: a failed append leaves at most an entry for a message that does
        // not exist, which recall skips, never a message recall cannot find.
        if message.speaker == Speaker::User {
            self.index_doc(user, character, (RecallKind::Message, id), &message.content, false).await?;
        }
        // The message, its chat-list entry and the pair's partner row (what deleting the
        // account finds the pair's messages by) in one round trip: none without the others.
        let image = message.image.as_ref().map(MessageImage::code);
        let values = (user, character, id, message.speaker.code(), &message.content, &image);
        let statements = [&s.insert_partner, &s.insert_message, &s.upsert_conversation];
        self.write_together(&statements, ((user, character), values, values)).await
    }

    async fn messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        before: Option<MessageId>,
        limit: u32,
    ) -> StoreResult<Vec<StoredMessage>> {
        let s = &self.statements.chat;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        let rows: Vec<MessageRow> = match before {
            Some(before) => self.rows(&s.messages_before, (user, character, before.raw(), limit)).await?,
            None => self.rows(&s.messages, (user, character, limit)).await?,
        };
        rows.into_iter().map(stored).collect()
    }

    async fn update_message(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
        content: &str,
    ) -> StoreResult<bool> {
        let s = &self.statements.chat;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        // Conditional, like the delete: a plain write racing a delete would bring back a
        // row holding nothing but its content.
        if !self.conditional(&s.set_message, (content, user, character, message_id.raw())).await? {
            return Ok(false);
        }
        let speaker: Option<(String,)> = self.first(&s.message_speaker, (user, character, message_id.raw())).await?;
        if speaker.is_some_and(|(code,)| code == Speaker::User.code()) {
            self.index_doc(user, character, (RecallKind::Message, message_id.raw()), content, true).await?;
        }
        self.refresh_conversation(user, character).await?;
        Ok(true)
    }

    async fn delete_messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_ids: &[MessageId],
    ) -> StoreResult<u64> {
        let s = &self.statements.chat;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        let mut deleted = 0;
        for id in message_ids {
            if self.conditional(&s.delete_message, (user, character, id.raw())).await? {
                deleted += 1;
            }
            self.unindex_doc(user, character, RecallKind::Message, id.raw()).await?;
            self.delete_message_voice(user, character, id.raw()).await?;
        }
        if deleted > 0 {
            self.refresh_conversation(user, character).await?;
        }
        Ok(deleted)
    }

    async fn list(&self, user_id: &UserId) -> StoreResult<Vec<ConversationSummary>> {
        type Row = (String, i64, String, String, Option<String>);
        let rows: Vec<Row> = self.paged(&self.statements.chat.conversations, (user_id.as_str(),)).await?;
        let mut list = rows
            .into_iter()
            .map(|(character_id, id, speaker, content, image)| {
                Ok(ConversationSummary {
                    character_id: CharacterId::parse(&character_id).map_err(corrupt)?,
                    last_message: stored((id, speaker, content, image))?,
                })
            })
            .collect::<StoreResult<Vec<_>>>()?;
        // Ids grow with time: the most recently active conversation first.
        list.sort_by_key(|c| std::cmp::Reverse(c.last_message.message_id.raw()));
        Ok(list)
    }

    async fn delete(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<bool> {
        let s = &self.statements.chat;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        let any: Option<MessageRow> = self.first(&s.messages, (user, character, 1_i32)).await?;
        self.run(&s.delete_pair_messages, (user, character)).await?;
        self.unindex_messages(user, character).await?;
        self.delete_pair_voice(user, character).await?;
        self.run(&s.delete_conversation, (user, character)).await?;
        Ok(any.is_some())
    }
}

#[async_trait]
impl MemoryRepo for CqlStore {
    async fn add(&self, user_id: &UserId, character_id: &CharacterId, memory: Memory) -> StoreResult<()> {
        let s = &self.statements.chat;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        self.run(&s.insert_partner, (user, character)).await?;
        let id = memory.memory_id.raw();
        self.index_doc(user, character, (RecallKind::Memory, id), &memory.content, false).await?;
        let values = (user, character, id, &memory.content, memory.origin.code(), memory.pinned);
        self.run(&s.insert_memory, values).await.map(|_| ())
    }

    async fn list(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<Vec<Memory>> {
        let rows: Vec<(i64, String, String, Option<bool>)> =
            self.paged(&self.statements.chat.memories, (user_id.as_str(), character_id.as_str())).await?;
        rows.into_iter()
            .map(|(id, content, code, pinned)| {
                Ok(Memory {
                    memory_id: EntryId::from_raw(id),
                    content,
                    origin: MemoryOrigin::from_code(&code)?,
                    pinned: pinned.unwrap_or(false),
                })
            })
            .collect()
    }

    async fn update(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        content: &str,
    ) -> StoreResult<bool> {
        let s = &self.statements.chat;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        if !self.conditional(&s.set_memory, (content, user, character, memory_id.raw())).await? {
            return Ok(false);
        }
        self.index_doc(user, character, (RecallKind::Memory, memory_id.raw()), content, true).await?;
        Ok(true)
    }

    async fn delete(&self, user_id: &UserId, character_id: &CharacterId, memory_id: MemoryId) -> StoreResult<bool> {
        let s = &self.statements.chat;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        let deleted = self.conditional(&s.delete_memory, (user, character, memory_id.raw())).await?;
        self.unindex_doc(user, character, RecallKind::Memory, memory_id.raw()).await?;
        Ok(deleted)
    }

    async fn set_pinned(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        pinned: bool,
    ) -> StoreResult<bool> {
        let s = &self.statements.chat;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        self.conditional(&s.pin_memory, (pinned, user, character, memory_id.raw())).await
    }
}

#[async_trait]
impl MessageCreditRepo for CqlStore {
    async fn take(&self, user_id: &UserId, day: i64, limit: u32) -> StoreResult<Option<u32>> {
        let s = &self.statements.chat;
        let user = user_id.as_str();
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        for attempt in 0..MAX_ATTEMPTS {
            let won = match self.used_credits(user, day).await? {
                Some(used) if used >= limit => return Ok(None),
                Some(used) => self.conditional(&s.set_credits, (used + 1, user, day, used)).await?.then_some(used + 1),
                None if limit <= 0 => return Ok(None),
                None => self.conditional(&s.first_credit, (user, day)).await?.then_some(1),
            };
            if let Some(now_used) = won {
                return Ok(Some(now_used as u32));
            }
            back_off(attempt).await;
        }
        Err(StoreError::Unavailable(format!("the message credits of {user} stayed contended")))
    }

    async fn give_back(&self, user_id: &UserId, day: i64) -> StoreResult<()> {
        let s = &self.statements.chat;
        let user = user_id.as_str();
        for attempt in 0..MAX_ATTEMPTS {
            let used = match self.used_credits(user, day).await? {
                Some(used) if used > 0 => used,
                _ => return Ok(()),
            };
            if self.conditional(&s.set_credits, (used - 1, user, day, used)).await? {
                return Ok(());
            }
            back_off(attempt).await;
        }
        Err(StoreError::Unavailable(format!("the message credits of {user} stayed contended")))
    }

    async fn used(&self, user_id: &UserId, day: i64) -> StoreResult<u32> {
        Ok(self.used_credits(user_id.as_str(), day).await?.unwrap_or(0).max(0) as u32)
    }
}
