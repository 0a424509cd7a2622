//! Payment notifications that failed after verification, in SQLite (issue 33).

use amora_domain::payment::PaymentRoute;
use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};

use super::EmbeddedStore;
use crate::{FailedWebhook, StoreError, StoreResult, WebhookReplay, WebhookRepo};

const COLUMNS: &str = "delivery_id, route, headers, query, body, error, received_at, replayed_at, replay_applied,
    replay_outcome";

type Row = (i64, String, String, String, Vec<u8>, String, i64, Option<i64>, Option<bool>, Option<String>);

fn columns(row: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        row.get(6)?,
        row.get(7)?,
        row.get(8)?,
        row.get(9)?,
    ))
}

fn into_delivery(row: Row) -> StoreResult<FailedWebhook> {
    let (delivery_id, route, headers, query, body, error, received_at, replayed_at, applied, outcome) = row;
    let headers: Vec<(String, String)> =
        serde_json::from_str(&headers).map_err(|e| StoreError::Corrupt(format!("webhook headers: {e}")))?;
    let route = PaymentRoute::from_code(&route).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let replay = replayed_at.map(|at| WebhookReplay {
        at,
        applied: applied.unwrap_or(false),
        outcome: outcome.unwrap_or_default(),
    });
    Ok(FailedWebhook { delivery_id, route, headers, query, body, error, received_at, replay })
}

#[async_trait]
impl WebhookRepo for EmbeddedStore {
    async fn record_failed_webhook(&self, delivery: FailedWebhook) -> StoreResult<()> {
        let headers = serde_json::to_string(&delivery.headers)
            .map_err(|e| StoreError::Corrupt(format!("webhook headers: {e}")))?;
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO failed_webhooks (delivery_id, route, headers, query, body, error, received_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                delivery.delivery_id,
                delivery.route.code(),
                headers,
                delivery.query,
                delivery.body,
                delivery.error,
                delivery.received_at,
            ])?;
            Ok(())
        })
        .await
    }

    async fn failed_webhook(&self, delivery_id: i64) -> StoreResult<Option<FailedWebhook>> {
        self.with_conn(move |conn| {
            let row = conn
                .prepare_cached(&format!("SELECT {COLUMNS} FROM failed_webhooks WHERE delivery_id = ?1"))?
                .query_row(params![delivery_id], columns)
                .optional()?;
            row.map(into_delivery).transpose()
        })
        .await
    }

    async fn failed_webhooks(&self, limit: u32) -> StoreResult<Vec<FailedWebhook>> {
        self.with_conn(move |conn| {
            let sql = format!("SELECT {COLUMNS} FROM failed_webhooks ORDER BY delivery_id DESC LIMIT ?1");
            let mut statement = conn.prepare_cached(&sql)?;
            let rows = statement.query_map(params![limit], columns)?;
            rows.map(|row| into_delivery(row?)).collect()
        })
        .await
    }

    async fn record_webhook_replay(&self, delivery_id: i64, replay: WebhookReplay) -> StoreResult<bool> {
        self.with_conn(move |conn| {
            let changed = conn
                .prepare_cached(
                    "UPDATE failed_webhooks SET replayed_at = ?2, replay_applied = ?3, replay_outcome = ?4
                     WHERE delivery_id = ?1",
                )?
                .execute(params![delivery_id, replay.at, replay.applied, replay.outcome])?;
            Ok(changed == 1)
        })
        .await
    }
}
