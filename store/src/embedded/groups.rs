//! Group chats (issue 31) in SQLite: `chat_groups`, keyed by owner and group, with the
//! members in seating order as JSON, and `group_messages`, keyed by owner, group and the
//! time-ordered message id. Deleting a group or its owner's account cascades.

use amora_domain::account::UserId;
use amora_domain::chat::{EntryId, MessageId};
use amora_domain::group::{Group, GroupId};
use async_trait::async_trait;
use rusqlite::{Row, params};

use super::EmbeddedStore;
use crate::repo::chat::{GroupColumns, group_speaker, sort_groups};
use crate::{GroupReplyVersions, GroupRepo, GroupSummary, StoreError, StoreResult, StoredGroupMessage};

const GROUP_COLUMNS: &str =
    "owner_id, group_id, name, scenario, activation, allow_self_responses, talk_cap, members, created_at, updated_at";

/// The columns of a `group_messages` row, in the order `message_row` reads them.
const MESSAGE_COLUMNS: &str = "message_id, speaker, content, versions, chosen";

type MessageRow = (i64, String, String, String, i64);

fn message_row(row: &Row<'_>) -> rusqlite::Result<MessageRow> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
}

fn into_message((id, speaker, content, versions, chosen): MessageRow) -> StoreResult<StoredGroupMessage> {
    let texts: Vec<String> = serde_json::from_str(&versions)
        .map_err(|e| StoreError::Corrupt(format!("versions of group message {id}: {e}")))?;
    let chosen =
        u32::try_from(chosen).map_err(|_| StoreError::Corrupt(format!("group message {id}: chosen {chosen}")))?;
    Ok(StoredGroupMessage {
        message_id: MessageId::from_raw(id),
        speaker: group_speaker(&speaker)?,
        content,
        versions: GroupReplyVersions { texts, chosen },
    })
}

fn versions_json(versions: &GroupReplyVersions) -> StoreResult<String> {
    serde_json::to_string(&versions.texts).map_err(|e| StoreError::Corrupt(format!("group message versions: {e}")))
}

fn members_json(columns: &GroupColumns) -> StoreResult<String> {
    serde_json::to_string(&columns.members).map_err(|e| StoreError::Corrupt(format!("group members: {e}")))
}

/// A `chat_groups` row in `GROUP_COLUMNS` order, from column `at` on.
fn group_row(row: &Row<'_>, at: usize) -> rusqlite::Result<(GroupColumns, String)> {
    let columns = GroupColumns {
        owner: row.get(at)?,
        group_id: row.get(at + 1)?,
        name: row.get(at + 2)?,
        scenario: row.get(at + 3)?,
        activation: row.get(at + 4)?,
        allow_self_responses: row.get(at + 5)?,
        talk_cap: row.get(at + 6)?,
        members: Vec::new(),
        created_at: row.get(at + 8)?,
        updated_at: row.get(at + 9)?,
    };
    Ok((columns, row.get(at + 7)?))
}

fn into_group((mut columns, members): (GroupColumns, String)) -> StoreResult<Group> {
    columns.members = serde_json::from_str(&members)
        .map_err(|e| StoreError::Corrupt(format!("members of group {}: {e}", columns.group_id)))?;
    columns.into_group()
}

#[async_trait]
impl GroupRepo for EmbeddedStore {
    async fn create_group(&self, group: &Group) -> StoreResult<()> {
        let columns = GroupColumns::of(group);
        let members = members_json(&columns)?;
        self.with_conn(move |conn| {
            conn.prepare_cached(&format!(
                "INSERT INTO chat_groups ({GROUP_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
            ))?
            .execute(params![
                columns.owner,
                columns.group_id,
                columns.name,
                columns.scenario,
                columns.activation,
                columns.allow_self_responses,
                columns.talk_cap,
                members,
                columns.created_at,
                columns.updated_at
            ])?;
            Ok(())
        })
        .await
    }

    async fn group(&self, owner: &UserId, group_id: &GroupId) -> StoreResult<Option<Group>> {
        let (owner, group) = (owner.as_str().to_owned(), group_id.as_str().to_owned());
        let row = self
            .with_conn(move |conn| {
                let mut statement = conn.prepare_cached(&format!(
                    "SELECT {GROUP_COLUMNS} FROM chat_groups WHERE owner_id = ?1 AND group_id = ?2"
                ))?;
                let mut rows = statement.query_map(params![owner, group], |row| group_row(row, 0))?;
                Ok(rows.next().transpose()?)
            })
            .await?;
        row.map(into_group).transpose()
    }

    async fn groups(&self, owner: &UserId) -> StoreResult<Vec<GroupSummary>> {
        let owner = owner.as_str().to_owned();
        type Last = (Option<i64>, Option<String>, Option<String>);
        let rows: Vec<((GroupColumns, String), Last)> = self
            .with_conn(move |conn| {
                let columns = GROUP_COLUMNS.split(", ").map(|c| format!("g.{c}")).collect::<Vec<_>>().join(", ");
                let mut statement = conn.prepare_cached(&format!(
                    "SELECT {columns}, m.message_id, m.speaker, m.content FROM chat_groups g
                     LEFT JOIN group_messages m ON m.owner_id = g.owner_id AND m.group_id = g.group_id
                         AND m.message_id = (SELECT MAX(message_id) FROM group_messages
                                             WHERE owner_id = g.owner_id AND group_id = g.group_id)
                     WHERE g.owner_id = ?1"
                ))?;
                let rows = statement.query_map(params![owner], |row| {
                    Ok((group_row(row, 0)?, (row.get(10)?, row.get(11)?, row.get(12)?)))
                })?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .await?;
        let mut list = rows
            .into_iter()
            .map(|(group, last)| {
                let last_message = match last {
                    (Some(id), Some(speaker), Some(content)) => {
                        Some(StoredGroupMessage::new(MessageId::from_raw(id), group_speaker(&speaker)?, content))
                    }
                    _ => None,
                };
                Ok(GroupSummary { group: into_group(group)?, last_message })
            })
            .collect::<StoreResult<Vec<_>>>()?;
        sort_groups(&mut list);
        Ok(list)
    }

    async fn update_group(&self, group: &Group) -> StoreResult<bool> {
        let columns = GroupColumns::of(group);
        let members = members_json(&columns)?;
        self.with_conn(move |conn| {
            let updated = conn
                .prepare_cached(
                    "UPDATE chat_groups SET name = ?3, scenario = ?4, activation = ?5, allow_self_responses = ?6,
                         talk_cap = ?7, members = ?8, updated_at = ?9
                     WHERE owner_id = ?1 AND group_id = ?2",
                )?
                .execute(params![
                    columns.owner,
                    columns.group_id,
                    columns.name,
                    columns.scenario,
                    columns.activation,
                    columns.allow_self_responses,
                    columns.talk_cap,
                    members,
                    columns.updated_at
                ])?;
            Ok(updated > 0)
        })
        .await
    }

    async fn delete_group(&self, owner: &UserId, group_id: &GroupId) -> StoreResult<bool> {
        let (owner, group) = (owner.as_str().to_owned(), group_id.as_str().to_owned());
        self.with_conn(move |conn| {
            // The messages go by the foreign key's cascade.
            let deleted = conn
                .prepare_cached("DELETE FROM chat_groups WHERE owner_id = ?1 AND group_id = ?2")?
                .execute(params![owner, group])?;
            Ok(deleted > 0)
        })
        .await
    }

    async fn append_group_message(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message: StoredGroupMessage,
    ) -> StoreResult<()> {
        let (owner, group) = (owner.as_str().to_owned(), group_id.as_str().to_owned());
        let versions = versions_json(&message.versions)?;
        self.with_conn(move |conn| {
            conn.prepare_cached(&format!(
                "INSERT INTO group_messages (owner_id, group_id, {MESSAGE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
            ))?
            .execute(params![
                owner,
                group,
                message.message_id.raw(),
                message.speaker.code(),
                message.content,
                versions,
                message.versions.chosen
            ])?;
            Ok(())
        })
        .await
    }

    async fn group_messages(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        before: Option<MessageId>,
        limit: u32,
    ) -> StoreResult<Vec<StoredGroupMessage>> {
        let (owner, group) = (owner.as_str().to_owned(), group_id.as_str().to_owned());
        let before = before.map_or(i64::MAX, EntryId::raw);
        let rows: Vec<MessageRow> = self
            .with_conn(move |conn| {
                let mut statement = conn.prepare_cached(&format!(
                    "SELECT {MESSAGE_COLUMNS} FROM group_messages
                     WHERE owner_id = ?1 AND group_id = ?2 AND message_id < ?3
                     ORDER BY message_id DESC LIMIT ?4"
                ))?;
                let rows = statement.query_map(params![owner, group, before, limit], message_row)?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .await?;
        rows.into_iter().map(into_message).collect()
    }

    async fn group_message(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message_id: MessageId,
    ) -> StoreResult<Option<StoredGroupMessage>> {
        let (owner, group) = (owner.as_str().to_owned(), group_id.as_str().to_owned());
        let row: Option<MessageRow> = self
            .with_conn(move |conn| {
                let mut statement = conn.prepare_cached(&format!(
                    "SELECT {MESSAGE_COLUMNS} FROM group_messages WHERE owner_id = ?1 AND group_id = ?2 AND message_id = ?3"
                ))?;
                let mut rows = statement.query_map(params![owner, group, message_id.raw()], message_row)?;
                Ok(rows.next().transpose()?)
            })
            .await?;
        row.map(into_message).transpose()
    }

    async fn update_group_message(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message: &StoredGroupMessage,
    ) -> StoreResult<bool> {
        let (owner, group) = (owner.as_str().to_owned(), group_id.as_str().to_owned());
        let versions = versions_json(&message.versions)?;
        let (id, content, chosen) = (message.message_id.raw(), message.content.clone(), message.versions.chosen);
        self.with_conn(move |conn| {
            let updated = conn
                .prepare_cached(
                    "UPDATE group_messages SET content = ?4, versions = ?5, chosen = ?6
                     WHERE owner_id = ?1 AND group_id = ?2 AND message_id = ?3",
                )?
                .execute(params![owner, group, id, content, versions, chosen])?;
            Ok(updated > 0)
        })
        .await
    }

    async fn delete_group_messages(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message_ids: &[MessageId],
    ) -> StoreResult<u64> {
        let (owner, group) = (owner.as_str().to_owned(), group_id.as_str().to_owned());
        let ids: Vec<i64> = message_ids.iter().map(|id| id.raw()).collect();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let mut deleted = 0;
            {
                let mut statement = tx.prepare_cached(
                    "DELETE FROM group_messages WHERE owner_id = ?1 AND group_id = ?2 AND message_id = ?3",
                )?;
                for id in ids {
                    deleted += statement.execute(params![owner, group, id])? as u64;
                }
            }
            tx.commit()?;
            Ok(deleted)
        })
        .await
    }
}
