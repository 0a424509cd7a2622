//! Group chats (issue 31) over CQL: `chat_groups`, one partition per owner with a row per
//! group (members as a list of tuples in seating order, and the newest message for the chat
//! list), and `group_messages`, one partition per group, newest first.
//!
//! The newest-message columns are plain writes, so an append racing the group's deletion
//! can leave a row holding nothing but them; such a row has no name and is not a group
//! (`group` and `groups` pass it over). Edits and deletes of messages are conditional, as
//! in one-to-one chat, so a write racing a delete never brings back a row holding only its
//! content.

use amora_domain::account::UserId;
use amora_domain::chat::MessageId;
use amora_domain::group::{Group, GroupId};
use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::repo::chat::{GroupColumns, group_speaker, sort_groups};
use crate::{GroupReplyVersions, GroupRepo, GroupSummary, StoreResult, StoredGroupMessage};

pub(super) struct Statements {
    insert_group: PreparedStatement,
    group: PreparedStatement,
    groups: PreparedStatement,
    group_ids: PreparedStatement,
    update_group: PreparedStatement,
    delete_group: PreparedStatement,
    delete_groups: PreparedStatement,
    set_last: PreparedStatement,
    clear_last: PreparedStatement,
    insert_message: PreparedStatement,
    messages: PreparedStatement,
    messages_before: PreparedStatement,
    message: PreparedStatement,
    set_message: PreparedStatement,
    delete_message: PreparedStatement,
    delete_messages: PreparedStatement,
}

/// The columns of a `group_messages` row, in `MessageRow`'s order.
const MESSAGE_COLUMNS: &str = "message_id, speaker, content, versions, chosen";

const GROUP_COLUMNS: &str = "group_id, name, scenario, activation, allow_self_responses, talk_cap, members, \
                             created_at, updated_at, last_message_id, last_speaker, last_content";

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let one = "owner_id = ? AND group_id = ?";
        Ok(Self {
            insert_group: p
                .prepare(
                    "INSERT INTO chat_groups (owner_id, group_id, name, scenario, activation, allow_self_responses,
                         talk_cap, members, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            group: p.prepare(&format!("SELECT {GROUP_COLUMNS} FROM chat_groups WHERE {one}"), Kind::Idempotent).await?,
            groups: p
                .prepare(&format!("SELECT {GROUP_COLUMNS} FROM chat_groups WHERE owner_id = ?"), Kind::Idempotent)
                .await?,
            group_ids: p.prepare("SELECT group_id FROM chat_groups WHERE owner_id = ?", Kind::Idempotent).await?,
            // Conditional: a plain update of a group deleted meanwhile would bring back a
            // row of settings without its creation.
            update_group: p
                .prepare(
                    &format!(
                        "UPDATE chat_groups SET name = ?, scenario = ?, activation = ?, allow_self_responses = ?,
                             talk_cap = ?, members = ?, updated_at = ? WHERE {one} IF EXISTS"
                    ),
                    Kind::Conditional,
                )
                .await?,
            delete_group: p.prepare(&format!("DELETE FROM chat_groups WHERE {one} IF EXISTS"), Kind::Conditional).await?,
            delete_groups: p.prepare("DELETE FROM chat_groups WHERE owner_id = ?", Kind::Idempotent).await?,
            set_last: p
                .prepare(
                    &format!(
                        "UPDATE chat_groups SET last_message_id = ?, last_speaker = ?, last_content = ? WHERE {one}"
                    ),
                    Kind::Idempotent,
                )
                .await?,
            clear_last: p
                .prepare(
                    &format!(
                        "UPDATE chat_groups SET last_message_id = null, last_speaker = null, last_content = null WHERE {one}"
                    ),
                    Kind::Idempotent,
                )
                .await?,
            insert_message: p
                .prepare(
                    &format!(
                        "INSERT INTO group_messages (owner_id, group_id, {MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
                    ),
                    Kind::Idempotent,
                )
                .await?,
            messages: p
                .prepare(
                    &format!("SELECT {MESSAGE_COLUMNS} FROM group_messages WHERE {one} LIMIT ?"),
                    Kind::Idempotent,
                )
                .await?,
            messages_before: p
                .prepare(
                    &format!("SELECT {MESSAGE_COLUMNS} FROM group_messages WHERE {one} AND message_id < ? LIMIT ?"),
                    Kind::Idempotent,
                )
                .await?,
            message: p
                .prepare(
                    &format!("SELECT {MESSAGE_COLUMNS} FROM group_messages WHERE {one} AND message_id = ?"),
                    Kind::Idempotent,
                )
                .await?,
            set_message: p
                .prepare(
                    &format!(
                        "UPDATE group_messages SET content = ?, versions = ?, chosen = ? WHERE {one} AND message_id = ? IF EXISTS"
                    ),
                    Kind::Conditional,
                )
                .await?,
            delete_message: p
                .prepare(
                    &format!("DELETE FROM group_messages WHERE {one} AND message_id = ? IF EXISTS"),
                    Kind::Conditional,
                )
                .await?,
            delete_messages: p.prepare(&format!("DELETE FROM group_messages WHERE {one}"), Kind::Idempotent).await?,
        })
    }
}

type Members = Vec<(String, bool, i32)>;
/// A `chat_groups` row in `GROUP_COLUMNS` order; every column but the key may be missing
/// (a row left by a racing append, see the module's comment).
type GroupRow = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<bool>,
    Option<i32>,
    Option<Members>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<String>,
    Option<String>,
);
/// A `group_messages` row in `MESSAGE_COLUMNS` order (the versions are missing on a row
/// written before they were kept, and on a reply written once).
type MessageRow = (i64, String, String, Option<Vec<String>>, Option<i32>);

fn message((id, speaker, content, texts, chosen): MessageRow) -> StoreResult<StoredGroupMessage> {
    let versions = GroupReplyVersions {
        texts: texts.unwrap_or_default(),
        chosen: chosen.and_then(|c| u32::try_from(c).ok()).unwrap_or(0),
    };
    Ok(StoredGroupMessage { message_id: MessageId::from_raw(id), speaker: group_speaker(&speaker)?, content, versions })
}

/// The CQL values of a message's versions (an empty list is stored as none).
fn version_values(versions: &GroupReplyVersions) -> (Vec<String>, i32) {
    (versions.texts.clone(), i32::try_from(versions.chosen).unwrap_or(i32::MAX))
}

/// The summary a row holds, `None` for a row that is not a group (no name).
fn summary(owner: &UserId, row: GroupRow) -> StoreResult<Option<GroupSummary>> {
    let (
        group_id,
        name,
        scenario,
        activation,
        allow_self,
        cap,
        members,
        created_at,
        updated_at,
        last_id,
        speaker,
        content,
    ) = row;
    let Some(name) = name else { return Ok(None) };
    let columns = GroupColumns {
        owner: owner.as_str().to_owned(),
        group_id,
        name,
        scenario: scenario.unwrap_or_default(),
        activation: activation.unwrap_or_default(),
        allow_self_responses: allow_self.unwrap_or(false),
        talk_cap: cap.map_or(0, i64::from),
        members: members
            .unwrap_or_default()
            .into_iter()
            .map(|(id, muted, talkativeness)| (id, muted, i64::from(talkativeness)))
            .collect(),
        created_at: created_at.unwrap_or(0),
        updated_at: updated_at.unwrap_or(0),
    };
    let last_message = match (last_id, speaker, content) {
        (Some(id), Some(speaker), Some(content)) => Some(message((id, speaker, content, None, None))?),
        _ => None,
    };
    Ok(Some(GroupSummary { group: columns.into_group()?, last_message }))
}

fn members(columns: &GroupColumns) -> Members {
    columns
        .members
        .iter()
        .map(|(id, muted, talkativeness)| (id.clone(), *muted, i32::try_from(*talkativeness).unwrap_or(i32::MAX)))
        .collect()
}

impl CqlStore {
    /// Rewrites the group's newest message from its partition (or clears it).
    async fn refresh_last(&self, owner: &str, group: &str) -> StoreResult<()> {
        let s = &self.statements.groups;
        let newest: Option<MessageRow> = self.first(&s.messages, (owner, group, 1_i32)).await?;
        match newest {
            Some((id, speaker, content, _, _)) => self.run(&s.set_last, (id, speaker, content, owner, group)).await?,
            None => self.run(&s.clear_last, (owner, group)).await?,
        };
        Ok(())
    }

    /// Removes every group of the user with its messages (account deletion).
    pub(super) async fn delete_groups_of(&self, owner: &UserId) -> StoreResult<()> {
        let s = &self.statements.groups;
        let owner = owner.as_str();
        let groups: Vec<(String,)> = self.paged(&s.group_ids, (owner,)).await?;
        for (group,) in groups {
            self.run(&s.delete_messages, (owner, &group)).await?;
        }
        self.run(&s.delete_groups, (owner,)).await?;
        Ok(())
    }
}

#[async_trait]
impl GroupRepo for CqlStore {
    async fn create_group(&self, group: &Group) -> StoreResult<()> {
        let c = GroupColumns::of(group);
        let cap = i32::try_from(c.talk_cap).unwrap_or(i32::MAX);
        let values = (
            &c.owner,
            &c.group_id,
            &c.name,
            &c.scenario,
            &c.activation,
            c.allow_self_responses,
            cap,
            members(&c),
            c.created_at,
            c.updated_at,
        );
        self.run(&self.statements.groups.insert_group, values).await?;
        Ok(())
    }

    async fn group(&self, owner: &UserId, group_id: &GroupId) -> StoreResult<Option<Group>> {
        let row: Option<GroupRow> =
            self.first(&self.statements.groups.group, (owner.as_str(), group_id.as_str())).await?;
        Ok(row.map(|row| summary(owner, row)).transpose()?.flatten().map(|s| s.group))
    }

    async fn groups(&self, owner: &UserId) -> StoreResult<Vec<GroupSummary>> {
        let rows: Vec<GroupRow> = self.paged(&self.statements.groups.groups, (owner.as_str(),)).await?;
        let mut list = Vec::with_capacity(rows.len());
        for row in rows {
            if let Some(summary) = summary(owner, row)? {
                list.push(summary);
            }
        }
        sort_groups(&mut list);
        Ok(list)
    }

    async fn update_group(&self, group: &Group) -> StoreResult<bool> {
        let c = GroupColumns::of(group);
        let cap = i32::try_from(c.talk_cap).unwrap_or(i32::MAX);
        let values = (
            &c.name,
            &c.scenario,
            &c.activation,
            c.allow_self_responses,
            cap,
            members(&c),
            c.updated_at,
            &c.owner,
            &c.group_id,
        );
        self.conditional(&self.statements.groups.update_group, values).await
    }

    async fn delete_group(&self, owner: &UserId, group_id: &GroupId) -> StoreResult<bool> {
        let s = &self.statements.groups;
        let (owner, group) = (owner.as_str(), group_id.as_str());
        let existed = self.conditional(&s.delete_group, (owner, group)).await?;
        self.run(&s.delete_messages, (owner, group)).await?;
        Ok(existed)
    }

    async fn append_group_message(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message: StoredGroupMessage,
    ) -> StoreResult<()> {
        let s = &self.statements.groups;
        let (owner, group) = (owner.as_str(), group_id.as_str());
        let (id, speaker) = (message.message_id.raw(), message.speaker.code());
        let (texts, chosen) = version_values(&message.versions);
        self.run(&s.insert_message, (owner, group, id, speaker, &message.content, texts, chosen)).await?;
        self.run(&s.set_last, (id, speaker, &message.content, owner, group)).await?;
        Ok(())
    }

    async fn group_messages(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        before: Option<MessageId>,
        limit: u32,
    ) -> StoreResult<Vec<StoredGroupMessage>> {
        let s = &self.statements.groups;
        let (owner, group) = (owner.as_str(), group_id.as_str());
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        let rows: Vec<MessageRow> = match before {
            Some(before) => self.rows(&s.messages_before, (owner, group, before.raw(), limit)).await?,
            None => self.rows(&s.messages, (owner, group, limit)).await?,
        };
        rows.into_iter().map(message).collect()
    }

    async fn group_message(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message_id: MessageId,
    ) -> StoreResult<Option<StoredGroupMessage>> {
        let values = (owner.as_str(), group_id.as_str(), message_id.raw());
        let row: Option<MessageRow> = self.first(&self.statements.groups.message, values).await?;
        row.map(message).transpose()
    }

    async fn update_group_message(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message: &StoredGroupMessage,
    ) -> StoreResult<bool> {
        let s = &self.statements.groups;
        let (owner, group) = (owner.as_str(), group_id.as_str());
        let (texts, chosen) = version_values(&message.versions);
        let values = (&message.content, texts, chosen, owner, group, message.message_id.raw());
        if !self.conditional(&s.set_message, values).await? {
            return Ok(false);
        }
        self.refresh_last(owner, group).await?;
        Ok(true)
    }

    async fn delete_group_messages(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message_ids: &[MessageId],
    ) -> StoreResult<u64> {
        let s = &self.statements.groups;
        let (owner, group) = (owner.as_str(), group_id.as_str());
        let mut deleted = 0;
        for id in message_ids {
            if self.conditional(&s.delete_message, (owner, group, id.raw())).await? {
                deleted += 1;
            }
        }
        if deleted > 0 {
            self.refresh_last(owner, group).await?;
        }
        Ok(deleted)
    }
}
