//! Page events and error reports in SQLite.

use amora_domain::telemetry::{ErrorReport, PageEvent};
use async_trait::async_trait;
use rusqlite::params;

use super::EmbeddedStore;
use crate::{StoreResult, TelemetryRepo};

#[async_trait]
impl TelemetryRepo for EmbeddedStore {
    async fn record_page_event(&self, event: PageEvent) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO page_events (location, screen, version, user_id, time, client, system,
                    utm_source, utm_medium, distinct_id, info)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )?
            .execute(params![
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
                event.info
            ])?;
            Ok(())
        })
        .await
    }

    async fn record_error_report(&self, report: ErrorReport) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO error_reports (error_type, message, user_agent, url, user_id, timestamp, stack)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                report.error_type,
                report.message,
                report.user_agent,
                report.url,
                report.user_id,
                report.timestamp,
                report.stack
            ])?;
            Ok(())
        })
        .await
    }

    async fn recent_error_reports(&self, limit: u32) -> StoreResult<Vec<ErrorReport>> {
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT error_type, message, user_agent, url, user_id, timestamp, stack
                 FROM error_reports ORDER BY report_id DESC LIMIT ?1",
            )?;
            let rows = statement.query_map(params![limit], |row| {
                Ok(ErrorReport {
                    error_type: row.get(0)?,
                    message: row.get(1)?,
                    user_agent: row.get(2)?,
                    url: row.get(3)?,
                    user_id: row.get(4)?,
                    timestamp: row.get(5)?,
                    stack: row.get(6)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    async fn recent_page_events(&self, limit: u32) -> StoreResult<Vec<PageEvent>> {
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT location, screen, version, user_id, time, client, system, utm_source, utm_medium,
                    distinct_id, info
                 FROM page_events ORDER BY event_id DESC LIMIT ?1",
            )?;
            let rows = statement.query_map(params![limit], |row| {
                Ok(PageEvent {
                    location: row.get(0)?,
                    screen: row.get(1)?,
                    version: row.get(2)?,
                    user_id: row.get(3)?,
                    time: row.get(4)?,
                    client: row.get(5)?,
                    system: row.get(6)?,
                    utm_source: row.get(7)?,
                    utm_medium: row.get(8)?,
                    distinct_id: row.get(9)?,
                    info: row.get(10)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }
}
