//! Reply versions (swipes) over CQL: texts in the pair's partition by parent and index,
//! the chosen index beside them. A new version's index is claimed with a lightweight
//! transaction, so two nodes writing versions of one reply never overwrite each other.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::MessageId;
use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::{ReplyAlternativeRepo, ReplyAlternatives, StoreError, StoreResult};

/// Index claims lost to a concurrent writer before giving up.
const MAX_ATTEMPTS: u32 = 20;

pub(super) struct Statements {
    versions: PreparedStatement,
    version: PreparedStatement,
    insert_version: PreparedStatement,
    set_version: PreparedStatement,
    choice: PreparedStatement,
    set_choice: PreparedStatement,
    delete_parent_versions: PreparedStatement,
    delete_parent_choice: PreparedStatement,
    delete_pair_versions: PreparedStatement,
    delete_pair_choices: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let pair = "user_id = ? AND character_id = ?";
        let parent = format!("{pair} AND parent_id = ?");
        Ok(Self {
            versions: p
                .prepare(&format!("SELECT idx, content FROM reply_alternatives WHERE {parent}"), Kind::Idempotent)
                .await?,
            version: p
                .prepare(&format!("SELECT idx FROM reply_alternatives WHERE {parent} AND idx = ?"), Kind::Idempotent)
                .await?,
            insert_version: p
                .prepare(
                    "INSERT INTO reply_alternatives (user_id, character_id, parent_id, idx, content)
                     VALUES (?, ?, ?, ?, ?) IF NOT EXISTS",
                    Kind::Conditional,
                )
                .await?,
            set_version: p
                .prepare(
                    &format!("UPDATE reply_alternatives SET content = ? WHERE {parent} AND idx = ? IF EXISTS"),
                    Kind::Conditional,
                )
                .await?,
            choice: p.prepare(&format!("SELECT chosen FROM reply_choices WHERE {parent}"), Kind::Idempotent).await?,
            set_choice: p
                .prepare(
                    "INSERT INTO reply_choices (user_id, character_id, parent_id, chosen) VALUES (?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            delete_parent_versions: p
                .prepare(&format!("DELETE FROM reply_alternatives WHERE {parent}"), Kind::Idempotent)
                .await?,
            delete_parent_choice: p
                .prepare(&format!("DELETE FROM reply_choices WHERE {parent}"), Kind::Idempotent)
                .await?,
            delete_pair_versions: p
                .prepare(&format!("DELETE FROM reply_alternatives WHERE {pair}"), Kind::Idempotent)
                .await?,
            delete_pair_choices: p
                .prepare(&format!("DELETE FROM reply_choices WHERE {pair}"), Kind::Idempotent)
                .await?,
        })
    }
}

impl CqlStore {
    /// Removes every reply version of the pair (its conversation or account is deleted).
    pub(super) async fn delete_pair_versions(&self, user: &str, character: &str) -> StoreResult<()> {
        let s = &self.statements.alternatives;
        self.run(&s.delete_pair_versions, (user, character)).await?;
        self.run(&s.delete_pair_choices, (user, character)).await?;
        Ok(())
    }

    async fn version_count(&self, user: &str, character: &str, parent: i64) -> StoreResult<u32> {
        let rows: Vec<(i32, Option<String>)> =
            self.rows(&self.statements.alternatives.versions, (user, character, parent)).await?;
        Ok(rows.len() as u32)
    }
}

#[async_trait]
impl ReplyAlternativeRepo for CqlStore {
    async fn alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
    ) -> StoreResult<Option<ReplyAlternatives>> {
        let s = &self.statements.alternatives;
        let key = (user_id.as_str(), character_id.as_str(), parent_id.raw());
        // Clustered by index, ascending.
        let rows: Vec<(i32, Option<String>)> = self.rows(&s.versions, key).await?;
        if rows.is_empty() {
            return Ok(None);
        }
        let texts: Vec<String> = rows.into_iter().map(|(_, content)| content.unwrap_or_default()).collect();
        let chosen: Option<(Option<i32>,)> = self.first(&s.choice, key).await?;
        let last = texts.len() as u32 - 1;
        let chosen = chosen.and_then(|(c,)| c).and_then(|c| u32::try_from(c).ok()).unwrap_or(last).min(last);
        Ok(Some(ReplyAlternatives { parent_id, chosen, texts }))
    }

    async fn add_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        content: &str,
    ) -> StoreResult<u32> {
        let s = &self.statements.alternatives;
        let (user, character, parent) = (user_id.as_str(), character_id.as_str(), parent_id.raw());
        let mut index = self.version_count(user, character, parent).await?;
        for _ in 0..MAX_ATTEMPTS {
            let claim = (user, character, parent, index as i32, content);
            if self.conditional(&s.insert_version, claim).await? {
                self.run(&s.set_choice, (user, character, parent, index as i32)).await?;
                return Ok(index);
            }
            // Another node took this index meanwhile: the next one.
            index = self.version_count(user, character, parent).await?.max(index + 1);
        }
        Err(StoreError::Unavailable("too many concurrent versions of one reply".into()))
    }

    async fn choose_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
    ) -> StoreResult<bool> {
        let s = &self.statements.alternatives;
        let (user, character, parent) = (user_id.as_str(), character_id.as_str(), parent_id.raw());
        let Ok(index) = i32::try_from(index) else { return Ok(false) };
        let found: Option<(i32,)> = self.first(&s.version, (user, character, parent, index)).await?;
        if found.is_none() {
            return Ok(false);
        }
        self.run(&s.set_choice, (user, character, parent, index)).await?;
        Ok(true)
    }

    async fn set_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
        content: &str,
    ) -> StoreResult<bool> {
        let s = &self.statements.alternatives;
        let Ok(index) = i32::try_from(index) else { return Ok(false) };
        let values = (content, user_id.as_str(), character_id.as_str(), parent_id.raw(), index);
        self.conditional(&s.set_version, values).await
    }

    async fn delete_alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_ids: &[MessageId],
    ) -> StoreResult<()> {
        let s = &self.statements.alternatives;
        let (user, character) = (user_id.as_str(), character_id.as_str());
        for parent in parent_ids {
            self.run(&s.delete_parent_versions, (user, character, parent.raw())).await?;
            self.run(&s.delete_parent_choice, (user, character, parent.raw())).await?;
        }
        Ok(())
    }

    async fn delete_pair_alternatives(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<()> {
        self.delete_pair_versions(user_id.as_str(), character_id.as_str()).await
    }
}
