//! Page events and error reports over CQL: one partition per UTC day, newest first, with
//! the table's 30-day TTL. "Recent" reads walk back day by day.

use amora_domain::telemetry::{ErrorReport, PageEvent};
use async_trait::async_trait;
use rand::Rng;
use scylla::DeserializeRow;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::{StoreResult, TelemetryRepo};

/// How far back "recent" looks: the tables' TTL.
const KEPT_DAYS: i32 = 30;
const MICROS_PER_DAY: i64 = 86_400_000_000;

pub(super) struct Statements {
    insert_event: PreparedStatement,
    insert_report: PreparedStatement,
    events_of_day: PreparedStatement,
    reports_of_day: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            insert_event: p
                .prepare(
                    "INSERT INTO page_events (day, received_at, event_id, location, screen, version, user_id, time,
                        client, system, utm_source, utm_medium, distinct_id, info)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            insert_report: p
                .prepare(
                    "INSERT INTO error_reports (day, received_at, report_id, error_type, message, user_agent, url,
                        user_id, timestamp, stack)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            events_of_day: p
                .prepare(
                    "SELECT location, screen, version, user_id, time, client, system, utm_source, utm_medium,
                        distinct_id, info
                     FROM page_events WHERE day = ? LIMIT ?",
                    Kind::Idempotent,
                )
                .await?,
            reports_of_day: p
                .prepare(
                    "SELECT error_type, message, user_agent, url, user_id, timestamp, stack
                     FROM error_reports WHERE day = ? LIMIT ?",
                    Kind::Idempotent,
                )
                .await?,
        })
    }
}

/// Now in microseconds, its UTC day, and a random id that keeps two rows of the same
/// microsecond apart.
fn stamp() -> (i32, i64, String) {
    let micros =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_micros() as i64).unwrap_or(0);
    let id = format!("{:016x}", rand::thread_rng().r#gen::<u64>());
    ((micros / MICROS_PER_DAY) as i32, micros, id)
}

#[derive(DeserializeRow)]
struct EventRow {
    location: String,
    screen: String,
    version: String,
    user_id: String,
    time: String,
    client: String,
    system: String,
    utm_source: String,
    utm_medium: String,
    distinct_id: String,
    info: String,
}

#[derive(DeserializeRow)]
struct ReportRow {
    error_type: String,
    message: String,
    user_agent: String,
    url: String,
    user_id: String,
    timestamp: i64,
    stack: String,
}

#[async_trait]
impl TelemetryRepo for CqlStore {
    async fn record_page_event(&self, event: PageEvent) -> StoreResult<()> {
        let (day, micros, id) = stamp();
        let values = (
            day,
            micros,
            id,
            event.location,
            event.screen,
            event.version,
            event.user_id,
            event.time,
            event.client,
            event.system,
            event.utm_source,
            event.utm_medium,
            event.distinct_id,
            event.info,
        );
        self.run(&self.statements.telemetry.insert_event, values).await.map(|_| ())
    }

    async fn record_error_report(&self, report: ErrorReport) -> StoreResult<()> {
        let (day, micros, id) = stamp();
        let values = (
            day,
            micros,
            id,
            report.error_type,
            report.message,
            report.user_agent,
            report.url,
            report.user_id,
            report.timestamp,
            report.stack,
        );
        self.run(&self.statements.telemetry.insert_report, values).await.map(|_| ())
    }

    async fn recent_error_reports(&self, limit: u32) -> StoreResult<Vec<ErrorReport>> {
        let (today, _, _) = stamp();
        let mut reports = Vec::new();
        for day in (today - KEPT_DAYS..=today).rev() {
            let wanted = limit as usize - reports.len();
            if wanted == 0 {
                break;
            }
            let rows: Vec<ReportRow> =
                self.rows(&self.statements.telemetry.reports_of_day, (day, wanted as i32)).await?;
            reports.extend(rows.into_iter().map(|r| ErrorReport {
                error_type: r.error_type,
                message: r.message,
                user_agent: r.user_agent,
                url: r.url,
                user_id: r.user_id,
                timestamp: r.timestamp,
                stack: r.stack,
            }));
        }
        Ok(reports)
    }

    async fn recent_page_events(&self, limit: u32) -> StoreResult<Vec<PageEvent>> {
        let (today, _, _) = stamp();
        let mut events = Vec::new();
        for day in (today - KEPT_DAYS..=today).rev() {
            let wanted = limit as usize - events.len();
            if wanted == 0 {
                break;
            }
            let rows: Vec<EventRow> = self.rows(&self.statements.telemetry.events_of_day, (day, wanted as i32)).await?;
            events.extend(rows.into_iter().map(|r| PageEvent {
                location: r.location,
                screen: r.screen,
                version: r.version,
                user_id: r.user_id,
                time: r.time,
                client: r.client,
                system: r.system,
                utm_source: r.utm_source,
                utm_medium: r.utm_medium,
                distinct_id: r.distinct_id,
                info: r.info,
            }));
        }
        Ok(events)
    }
}
