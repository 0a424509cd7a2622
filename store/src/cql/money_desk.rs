//! The operator's Money desk over CQL (issue 33): every user's orders by day
//! (`orders_by_day`, written beside `orders_by_user` before the order's row, read back
//! through the row it names), and payment notifications that failed after verification
//! (`failed_webhooks`, in 30-day partitions by the delivery id's time).

use amora_domain::payment::{Order, PaymentRoute};
use async_trait::async_trait;
use futures_util::future::try_join_all;
use scylla::DeserializeRow;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, corrupt, now_seconds};
use crate::{FailedWebhook, OrderRepo, StoreError, StoreResult, WebhookReplay, WebhookRepo, orders_since_floor};

const DAY_SECS: i64 = 86_400;
/// Seconds per failed-webhook partition (30 days).
const BUCKET_SECS: i64 = 2_592_000;
/// How many partitions back a listing walks (two years).
const KEPT_BUCKETS: i64 = 25;

pub(super) struct Statements {
    index_day: PreparedStatement,
    of_day: PreparedStatement,
    insert_webhook: PreparedStatement,
    webhook: PreparedStatement,
    webhooks_of_bucket: PreparedStatement,
    replay: PreparedStatement,
}

const WEBHOOK_COLUMNS: &str =
    "delivery_id, route, headers, query, body, error, received_at, replayed_at, replay_applied, replay_outcome";

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            index_day: p
                .prepare("INSERT INTO orders_by_day (day, created_at, order_id) VALUES (?, ?, ?)", Kind::Idempotent)
                .await?,
            of_day: p
                .prepare(
                    "SELECT created_at, order_id FROM orders_by_day WHERE day = ? AND created_at >= ? LIMIT ?",
                    Kind::Idempotent,
                )
                .await?,
            insert_webhook: p
                .prepare(
                    "INSERT INTO failed_webhooks (bucket, delivery_id, route, headers, query, body, error, received_at)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            webhook: p
                .prepare(
                    &format!("SELECT {WEBHOOK_COLUMNS} FROM failed_webhooks WHERE bucket = ? AND delivery_id = ?"),
                    Kind::Idempotent,
                )
                .await?,
            webhooks_of_bucket: p
                .prepare(
                    &format!("SELECT {WEBHOOK_COLUMNS} FROM failed_webhooks WHERE bucket = ? LIMIT ?"),
                    Kind::Idempotent,
                )
                .await?,
            replay: p
                .prepare(
                    "UPDATE failed_webhooks SET replayed_at = ?, replay_applied = ?, replay_outcome = ?
                     WHERE bucket = ? AND delivery_id = ?",
                    Kind::Idempotent,
                )
                .await?,
        })
    }
}

fn day_of(created_at: i64) -> i32 {
    created_at.div_euclid(DAY_SECS) as i32
}

/// The partition of a delivery, from its id (microseconds × 1000 plus a random part).
fn bucket_of(delivery_id: i64) -> i32 {
    (delivery_id / 1_000_000_000 / BUCKET_SECS) as i32
}

#[derive(DeserializeRow)]
struct WebhookRow {
    delivery_id: i64,
    route: String,
    headers: String,
    query: String,
    body: Vec<u8>,
    error: String,
    received_at: i64,
    replayed_at: Option<i64>,
    replay_applied: Option<bool>,
    replay_outcome: Option<String>,
}

impl WebhookRow {
    fn into_delivery(self) -> StoreResult<FailedWebhook> {
        let headers: Vec<(String, String)> =
            serde_json::from_str(&self.headers).map_err(|e| StoreError::Corrupt(format!("webhook headers: {e}")))?;
        let (applied, outcome) = (self.replay_applied, self.replay_outcome);
        Ok(FailedWebhook {
            delivery_id: self.delivery_id,
            route: PaymentRoute::from_code(&self.route).map_err(corrupt)?,
            headers,
            query: self.query,
            body: self.body,
            error: self.error,
            received_at: self.received_at,
            replay: self.replayed_at.map(|at| WebhookReplay {
                at,
                applied: applied.unwrap_or(false),
                outcome: outcome.unwrap_or_default(),
            }),
        })
    }
}

impl CqlStore {
    /// The day lookup of a new order, written before its row.
    pub(super) async fn index_order_day(&self, order: &Order) -> StoreResult<()> {
        let values = (day_of(order.created_at), order.created_at, order.order_id.as_str());
        self.run(&self.statements.money_desk.index_day, values).await.map(|_| ())
    }

    /// `OrderRepo::orders_since`: one partition per day, newest day first; a lookup whose
    /// row is missing or was made at another time is skipped.
    pub(super) async fn orders_by_day_since(&self, since: i64, limit: u32) -> StoreResult<Vec<Order>> {
        let now = now_seconds();
        let since = orders_since_floor(since, now);
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let mut found = Vec::new();
        let mut day = day_of(now + DAY_SECS);
        while found.len() < limit && day >= day_of(since) {
            let wanted = i32::try_from(limit - found.len()).unwrap_or(i32::MAX);
            let lookups: Vec<(i64, String)> =
                self.rows(&self.statements.money_desk.of_day, (day, since, wanted)).await?;
            let ids: Vec<_> = lookups
                .iter()
                .map(|(_, id)| amora_domain::payment::OrderId::parse(id).map_err(corrupt))
                .collect::<StoreResult<_>>()?;
            let orders = try_join_all(ids.iter().map(|id| OrderRepo::get(self, id))).await?;
            for ((created_at, _), order) in lookups.iter().zip(orders) {
                if let Some(order) = order.filter(|o| o.created_at == *created_at)
                    && found.len() < limit
                {
                    found.push(order);
                }
            }
            day -= 1;
        }
        Ok(found)
    }
}

#[async_trait]
impl WebhookRepo for CqlStore {
    async fn record_failed_webhook(&self, delivery: FailedWebhook) -> StoreResult<()> {
        let headers = serde_json::to_string(&delivery.headers)
            .map_err(|e| StoreError::Corrupt(format!("webhook headers: {e}")))?;
        let values = (
            bucket_of(delivery.delivery_id),
            delivery.delivery_id,
            delivery.route.code(),
            headers,
            delivery.query,
            delivery.body,
            delivery.error,
            delivery.received_at,
        );
        self.run(&self.statements.money_desk.insert_webhook, values).await.map(|_| ())
    }

    async fn failed_webhook(&self, delivery_id: i64) -> StoreResult<Option<FailedWebhook>> {
        let row: Option<WebhookRow> =
            self.first(&self.statements.money_desk.webhook, (bucket_of(delivery_id), delivery_id)).await?;
        row.map(WebhookRow::into_delivery).transpose()
    }

    async fn failed_webhooks(&self, limit: u32) -> StoreResult<Vec<FailedWebhook>> {
        let newest = i64::from(bucket_of(now_seconds().saturating_add(1).saturating_mul(1_000_000_000)));
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let mut found = Vec::new();
        for bucket in (newest - KEPT_BUCKETS..=newest).rev() {
            if found.len() >= limit {
                break;
            }
            let wanted = i32::try_from(limit - found.len()).unwrap_or(i32::MAX);
            let rows: Vec<WebhookRow> =
                self.rows(&self.statements.money_desk.webhooks_of_bucket, (bucket as i32, wanted)).await?;
            for row in rows {
                found.push(row.into_delivery()?);
            }
        }
        Ok(found)
    }

    async fn record_webhook_replay(&self, delivery_id: i64, replay: WebhookReplay) -> StoreResult<bool> {
        if self.failed_webhook(delivery_id).await?.is_none() {
            return Ok(false);
        }
        let values = (replay.at, replay.applied, replay.outcome, bucket_of(delivery_id), delivery_id);
        self.run(&self.statements.money_desk.replay, values).await?;
        Ok(true)
    }
}
