//! Reports, hidden characters and the moderation log over CQL. Reports sit in 30-day
//! partitions, newest first; "recent" walks back period by period. Hidden characters are
//! one small partition. The moderation log (issue 27) sits in a partition per UTC day,
//! newest first, with `moderation_log_days` listing the days to walk back through.

use std::collections::HashSet;

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_domain::report::{Report, ReportReason};
use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;
use scylla::{DeserializeRow, SerializeRow};

use super::{CqlStore, Kind, Preparer, corrupt, now_seconds};
use crate::{ModerationEvent, ModerationLogRepo, ReportRepo, StoreResult};

const PERIOD_SECS: i64 = 30 * 86_400;
/// How far back "recent" looks: three years of periods.
const KEPT_PERIODS: i32 = 37;
/// The one partition of `hidden_characters`.
const BUCKET: i32 = 0;
/// The one partition of `moderation_log_days`.
const LOG: i32 = 0;
const DAY_MILLIS: i64 = 86_400_000;

/// The moderation log's partition of an event: the UTC day of its id.
fn log_day(event_id: EntryId) -> i32 {
    i32::try_from(event_id.unix_millis().div_euclid(DAY_MILLIS)).unwrap_or(i32::MAX)
}

fn period_of(unix_seconds: i64) -> i32 {
    unix_seconds.div_euclid(PERIOD_SECS) as i32
}

pub(super) struct Statements {
    insert_report: PreparedStatement,
    reports_of_period: PreparedStatement,
    hide: PreparedStatement,
    unhide: PreparedStatement,
    hidden_one: PreparedStatement,
    hidden_all: PreparedStatement,
    exists: PreparedStatement,
    insert_event: PreparedStatement,
    insert_log_day: PreparedStatement,
    log_days: PreparedStatement,
    events_before: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            insert_report: p
                .prepare(
                    "INSERT INTO reports (period, report_id, reporter_id, character_id, message_id, reason, note,
                        created_at)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            reports_of_period: p
                .prepare(
                    "SELECT report_id, reporter_id, character_id, message_id, reason, note, created_at
                     FROM reports WHERE period = ? LIMIT ?",
                    Kind::Idempotent,
                )
                .await?,
            hide: p
                .prepare(
                    "INSERT INTO hidden_characters (bucket, character_id, hidden_at) VALUES (?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            unhide: p
                .prepare("DELETE FROM hidden_characters WHERE bucket = ? AND character_id = ?", Kind::Idempotent)
                .await?,
            hidden_one: p
                .prepare(
                    "SELECT character_id FROM hidden_characters WHERE bucket = ? AND character_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            hidden_all: p
                .prepare("SELECT character_id FROM hidden_characters WHERE bucket = ?", Kind::Idempotent)
                .await?,
            exists: p.prepare("SELECT character_id FROM characters WHERE character_id = ?", Kind::Idempotent).await?,
            insert_event: p
                .prepare(
                    "INSERT INTO moderation_log (day, event_id, at, user_id, surface, policy, refusal, layer, excerpt)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            insert_log_day: p
                .prepare("INSERT INTO moderation_log_days (log, day) VALUES (?, ?)", Kind::Idempotent)
                .await?,
            log_days: p
                .prepare("SELECT day FROM moderation_log_days WHERE log = ? AND day <= ?", Kind::Idempotent)
                .await?,
            events_before: p
                .prepare(
                    "SELECT day, event_id, at, user_id, surface, policy, refusal, layer, excerpt
                     FROM moderation_log WHERE day = ? AND event_id < ? LIMIT ?",
                    Kind::Idempotent,
                )
                .await?,
        })
    }
}

#[derive(DeserializeRow)]
struct ReportRow {
    report_id: i64,
    reporter_id: String,
    character_id: String,
    message_id: Option<i64>,
    reason: String,
    note: String,
    created_at: i64,
}

impl ReportRow {
    fn into_report(self) -> StoreResult<Report> {
        Ok(Report {
            report_id: EntryId::from_raw(self.report_id),
            reporter_id: UserId::parse(&self.reporter_id).map_err(corrupt)?,
            character_id: CharacterId::parse(&self.character_id).map_err(corrupt)?,
            message_id: self.message_id.map(EntryId::from_raw),
            reason: ReportReason::parse(&self.reason).map_err(corrupt)?,
            note: self.note,
            created_at: self.created_at,
        })
    }
}

#[async_trait]
impl ReportRepo for CqlStore {
    async fn add(&self, report: Report) -> StoreResult<()> {
        self.run(
            &self.statements.moderation.insert_report,
            (
                period_of(report.created_at),
                report.report_id.raw(),
                report.reporter_id.as_str(),
                report.character_id.as_str(),
                report.message_id.map(EntryId::raw),
                report.reason.code(),
                &report.note,
                report.created_at,
            ),
        )
        .await
        .map(|_| ())
    }

    async fn recent(&self, limit: u32) -> StoreResult<Vec<Report>> {
        let current = period_of(now_seconds());
        let mut reports = Vec::new();
        for period in (current - KEPT_PERIODS..=current + 1).rev() {
            let wanted = limit as usize - reports.len();
            if wanted == 0 {
                break;
            }
            let rows: Vec<ReportRow> =
                self.rows(&self.statements.moderation.reports_of_period, (period, wanted as i32)).await?;
            for row in rows {
                reports.push(row.into_report()?);
            }
        }
        Ok(reports)
    }
}

#[derive(DeserializeRow, SerializeRow)]
struct EventRow {
    day: i32,
    event_id: i64,
    at: i64,
    user_id: Option<String>,
    surface: String,
    policy: String,
    refusal: String,
    layer: String,
    excerpt: String,
}

impl EventRow {
    fn into_event(self) -> StoreResult<ModerationEvent> {
        Ok(ModerationEvent {
            event_id: EntryId::from_raw(self.event_id),
            at: self.at,
            user_id: self.user_id.as_deref().map(UserId::parse).transpose().map_err(corrupt)?,
            surface: self.surface,
            policy: self.policy,
            refusal: self.refusal,
            layer: self.layer,
            excerpt: self.excerpt,
        })
    }
}

#[async_trait]
impl ModerationLogRepo for CqlStore {
    async fn record(&self, event: ModerationEvent) -> StoreResult<()> {
        let statements = &self.statements.moderation;
        let day = log_day(event.event_id);
        // The day first: an event whose day is listed is found; a day listed without its
        // event (a crash between the writes) only costs a reader one empty partition.
        self.run(&statements.insert_log_day, (LOG, day)).await?;
        let row = EventRow {
            day,
            event_id: event.event_id.raw(),
            at: event.at,
            user_id: event.user_id.map(|id| id.as_str().to_owned()),
            surface: event.surface,
            policy: event.policy,
            refusal: event.refusal,
            layer: event.layer,
            excerpt: event.excerpt,
        };
        self.run(&statements.insert_event, row).await.map(|_| ())
    }

    async fn recent(&self, before: Option<EntryId>, limit: u32) -> StoreResult<Vec<ModerationEvent>> {
        let statements = &self.statements.moderation;
        let cursor = before.map_or(i64::MAX, EntryId::raw);
        let start_day = before.map_or(i32::MAX, log_day);
        let days: Vec<(i32,)> = self.paged(&statements.log_days, (LOG, start_day)).await?;
        let mut events = Vec::new();
        for (day,) in days {
            let wanted = limit as usize - events.len();
            if wanted == 0 {
                break;
            }
            let rows: Vec<EventRow> =
                self.rows(&statements.events_before, (day, cursor, i32::try_from(wanted).unwrap_or(i32::MAX))).await?;
            for row in rows {
                events.push(row.into_event()?);
            }
        }
        Ok(events)
    }
}

impl CqlStore {
    pub(super) async fn set_character_hidden(&self, id: &CharacterId, hidden: bool) -> StoreResult<bool> {
        let statements = &self.statements.moderation;
        let exists: Option<(String,)> = self.first(&statements.exists, (id.as_str(),)).await?;
        if exists.is_none() {
            return Ok(false);
        }
        if hidden {
            self.run(&statements.hide, (BUCKET, id.as_str(), now_seconds())).await?;
        } else {
            self.run(&statements.unhide, (BUCKET, id.as_str())).await?;
        }
        // A listed card's block counts what members and everyone see of it.
        let place: Vec<_> = self.listed_place(id).await?.into_iter().collect();
        self.recount_places(&place).await?;
        Ok(true)
    }

    pub(super) async fn character_is_hidden(&self, id: &CharacterId) -> StoreResult<bool> {
        let row: Option<(String,)> = self.first(&self.statements.moderation.hidden_one, (BUCKET, id.as_str())).await?;
        Ok(row.is_some())
    }

    pub(super) async fn hidden_characters(&self) -> StoreResult<Vec<CharacterId>> {
        let rows: Vec<(String,)> = self.paged(&self.statements.moderation.hidden_all, (BUCKET,)).await?;
        rows.into_iter().map(|(id,)| CharacterId::parse(&id).map_err(corrupt)).collect()
    }

    /// The hidden ids as a set, for filtering a catalogue page.
    pub(super) async fn hidden_set(&self) -> StoreResult<HashSet<String>> {
        let rows: Vec<(String,)> = self.paged(&self.statements.moderation.hidden_all, (BUCKET,)).await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }
}
