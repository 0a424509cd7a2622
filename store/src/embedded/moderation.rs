//! Reports, hidden characters and the moderation log (issue 27) in SQLite.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_domain::report::{Report, ReportReason};
use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};

use super::EmbeddedStore;
use crate::{ModerationEvent, ModerationLogRepo, ReportRepo, StoreError, StoreResult};

fn corrupt(error: amora_domain::Invalid) -> StoreError {
    StoreError::Corrupt(error.to_string())
}

#[async_trait]
impl ReportRepo for EmbeddedStore {
    async fn add(&self, report: Report) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO reports (report_id, reporter_id, character_id, message_id, reason, note, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                report.report_id.raw(),
                report.reporter_id.as_str(),
                report.character_id.as_str(),
                report.message_id.map(EntryId::raw),
                report.reason.code(),
                report.note,
                report.created_at
            ])?;
            Ok(())
        })
        .await
    }

    async fn recent(&self, limit: u32) -> StoreResult<Vec<Report>> {
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT report_id, reporter_id, character_id, message_id, reason, note, created_at
                 FROM reports ORDER BY report_id DESC LIMIT ?1",
            )?;
            let rows = statement.query_map(params![limit], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, Option<i64>>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, i64>(6)?,
                ))
            })?;
            rows.map(|row| {
                let (id, reporter, character, message, reason, note, created_at) = row?;
                Ok(Report {
                    report_id: EntryId::from_raw(id),
                    reporter_id: UserId::parse(&reporter).map_err(corrupt)?,
                    character_id: CharacterId::parse(&character).map_err(corrupt)?,
                    message_id: message.map(EntryId::from_raw),
                    reason: ReportReason::parse(&reason).map_err(corrupt)?,
                    note,
                    created_at,
                })
            })
            .collect()
        })
        .await
    }
}

#[async_trait]
impl ModerationLogRepo for EmbeddedStore {
    async fn record(&self, event: ModerationEvent) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO moderation_log (event_id, at, user_id, surface, policy, refusal, layer, excerpt)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                event.event_id.raw(),
                event.at,
                event.user_id.as_ref().map(UserId::as_str),
                event.surface,
                event.policy,
                event.refusal,
                event.layer,
                event.excerpt
            ])?;
            Ok(())
        })
        .await
    }

    async fn recent(&self, before: Option<EntryId>, limit: u32) -> StoreResult<Vec<ModerationEvent>> {
        // No cursor reads from the top: every id is below i64::MAX.
        let cursor = before.map_or(i64::MAX, EntryId::raw);
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT event_id, at, user_id, surface, policy, refusal, layer, excerpt
                 FROM moderation_log WHERE event_id < ?1 ORDER BY event_id DESC LIMIT ?2",
            )?;
            let rows = statement.query_map(params![cursor, limit], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, Option<String>>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, String>(6)?,
                    row.get::<_, String>(7)?,
                ))
            })?;
            rows.map(|row| {
                let (id, at, user, surface, policy, refusal, layer, excerpt) = row?;
                Ok(ModerationEvent {
                    event_id: EntryId::from_raw(id),
                    at,
                    user_id: user.as_deref().map(UserId::parse).transpose().map_err(corrupt)?,
                    surface,
                    policy,
                    refusal,
                    layer,
                    excerpt,
                })
            })
            .collect()
        })
        .await
    }
}

impl EmbeddedStore {
    pub(super) async fn set_character_hidden(&self, id: &CharacterId, hidden: bool) -> StoreResult<bool> {
        let id = id.clone();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let exists = tx
                .query_row("SELECT 1 FROM characters WHERE character_id = ?1", params![id.as_str()], |_| Ok(()))
                .optional()?
                .is_some();
            if exists {
                if hidden {
                    tx.execute(
                        "INSERT OR IGNORE INTO hidden_characters (character_id) VALUES (?1)",
                        params![id.as_str()],
                    )?;
                } else {
                    tx.execute("DELETE FROM hidden_characters WHERE character_id = ?1", params![id.as_str()])?;
                }
                // A listed card's block counts what members and everyone see of it.
                let place: Vec<_> = super::catalogue_blocks::placed(&tx, id.as_str())?.into_iter().collect();
                super::catalogue_blocks::recount_places(&tx, &place)?;
            }
            tx.commit()?;
            Ok(exists)
        })
        .await
    }

    pub(super) async fn character_is_hidden(&self, id: &CharacterId) -> StoreResult<bool> {
        let id = id.clone();
        self.with_conn(move |conn| {
            let found = conn
                .query_row("SELECT 1 FROM hidden_characters WHERE character_id = ?1", params![id.as_str()], |_| Ok(()))
                .optional()?;
            Ok(found.is_some())
        })
        .await
    }

    pub(super) async fn hidden_characters(&self) -> StoreResult<Vec<CharacterId>> {
        self.with_conn(|conn| {
            let mut statement =
                conn.prepare_cached("SELECT character_id FROM hidden_characters ORDER BY character_id")?;
            let rows = statement.query_map([], |row| row.get::<_, String>(0))?;
            rows.map(|row| CharacterId::parse(&row?).map_err(corrupt)).collect()
        })
        .await
    }
}
