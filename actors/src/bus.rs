//! The `EventBus`: `publish(user_id, event)` reaches the user's sockets on every node.
//! In-process by default. With Redis configured every node publishes to one channel and
//! subscribes to it, delivering what other nodes publish to the sockets it holds. When
//! Redis is away, delivery degrades to this node's sockets and recovers on its own; the
//! ledger never depends on it (events are news about durable rows, not the rows).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use actix::Recipient;
use amora_domain::account::UserId;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use crate::events::Frame;
use crate::registry::DeliverToUser;

const CHANNEL: &str = "amora:events";
/// A publish never holds up the request that caused it for longer than this.
const PUBLISH_TIMEOUT: Duration = Duration::from_millis(500);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(2);

#[derive(Clone)]
pub struct EventBus {
    inner: Arc<Inner>,
}

struct Inner {
    local: Option<Recipient<DeliverToUser>>,
    redis: Option<RedisLink>,
    node_id: String,
}

struct RedisLink {
    client: redis::Client,
    publisher: tokio::sync::Mutex<Option<redis::aio::MultiplexedConnection>>,
    /// The subscription is up; `/readyz` reports it.
    subscribed: AtomicBool,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireEvent {
    node: String,
    user_id: String,
    frame: String,
}

impl EventBus {
    /// Delivers to this node's sockets only.
    pub fn local(target: Recipient<DeliverToUser>) -> Self {
        Self { inner: Arc::new(Inner { local: Some(target), redis: None, node_id: new_node_id() }) }
    }

    /// A bus that delivers nowhere; for actors built before the bus exists.
    pub fn disconnected() -> Self {
        Self { inner: Arc::new(Inner { local: None, redis: None, node_id: new_node_id() }) }
    }

    /// Delivers here and, through Redis at `url`, on every other node. Starts the
    /// subscriber task, which reconnects for as long as the bus lives.
    pub fn with_redis(target: Recipient<DeliverToUser>, url: &str) -> Result<Self, redis::RedisError> {
        let client = redis::Client::open(url)?;
        let link = RedisLink { client, publisher: tokio::sync::Mutex::new(None), subscribed: AtomicBool::new(false) };
        let bus = Self { inner: Arc::new(Inner { local: Some(target), redis: Some(link), node_id: new_node_id() }) };
        let weak = Arc::downgrade(&bus.inner);
        tokio::spawn(async move { subscribe_forever(weak).await });
        Ok(bus)
    }

    /// "local" or "redis".
    pub fn mode(&self) -> &'static str {
        if self.inner.redis.is_some() { "redis" } else { "local" }
    }

    /// False while a configured Redis is unreachable.
    pub fn is_healthy(&self) -> bool {
        self.inner.redis.as_ref().is_none_or(|link| link.subscribed.load(Ordering::Relaxed))
    }

    pub async fn publish(&self, user_id: &UserId, frame: Frame) {
        if let Some(local) = &self.inner.local {
            local.do_send(DeliverToUser { user_id: user_id.clone(), frame: frame.clone() });
        }
        let Some(link) = &self.inner.redis else {
            return;
        };
        let wire = WireEvent {
            node: self.inner.node_id.clone(),
            user_id: user_id.to_string(),
            frame: frame.as_str().to_owned(),
        };
        let Ok(payload) = serde_json::to_string(&wire) else {
            return;
        };
        if let Err(error) = link.publish(payload).await {
            tracing::warn!(%error, "event not published to other nodes (Redis unavailable)");
        }
    }
}

impl RedisLink {
    async fn publish(&self, payload: String) -> Result<(), String> {
        let mut publisher = self.publisher.lock().await;
        if publisher.is_none() {
            let connect = self.client.get_multiplexed_async_connection();
            let connection = tokio::time::timeout(CONNECT_TIMEOUT, connect)
                .await
                .map_err(|_| "connect timed out".to_owned())?
                .map_err(|e| e.to_string())?;
            *publisher = Some(connection);
        }
        let Some(connection) = publisher.as_mut() else {
            return Err("no connection".into());
        };
        let sent = tokio::time::timeout(
            PUBLISH_TIMEOUT,
            redis::cmd("PUBLISH").arg(CHANNEL).arg(payload).query_async::<i64>(connection),
        )
        .await;
        match sent {
            Ok(Ok(_receivers)) => Ok(()),
            Ok(Err(error)) => {
                *publisher = None;
                Err(error.to_string())
            }
            Err(_) => {
                *publisher = None;
                Err("publish timed out".into())
            }
        }
    }
}

/// Keeps one subscription up while the bus exists, delivering other nodes' events here.
async fn subscribe_forever(bus: std::sync::Weak<Inner>) {
    let mut delay = Duration::from_millis(100);
    loop {
        let Some(inner) = bus.upgrade() else {
            return;
        };
        let Some(link) = &inner.redis else {
            return;
        };
        let connect = tokio::time::timeout(CONNECT_TIMEOUT, link.client.get_async_pubsub()).await;
        match connect {
            Ok(Ok(mut pubsub)) => match pubsub.subscribe(CHANNEL).await {
                Ok(()) => {
                    link.subscribed.store(true, Ordering::Relaxed);
                    tracing::info!("event bus subscribed to Redis");
                    delay = Duration::from_millis(100);
                    let node_id = inner.node_id.clone();
                    let local = inner.local.clone();
                    let weak = Arc::downgrade(&inner);
                    drop(inner);
                    let mut messages = pubsub.on_message();
                    while let Some(message) = messages.next().await {
                        if weak.strong_count() == 0 {
                            return;
                        }
                        let Ok(payload) = message.get_payload::<String>() else {
                            continue;
                        };
                        let Ok(wire) = serde_json::from_str::<WireEvent>(&payload) else {
                            continue;
                        };
                        // This node already delivered its own events locally.
                        if wire.node == node_id {
                            continue;
                        }
                        if let (Some(local), Ok(user_id)) = (&local, UserId::parse(&wire.user_id)) {
                            local.do_send(DeliverToUser { user_id, frame: Frame(Arc::from(wire.frame)) });
                        }
                    }
                    if let Some(inner) = weak.upgrade()
                        && let Some(link) = &inner.redis
                    {
                        link.subscribed.store(false, Ordering::Relaxed);
                    }
                    tracing::warn!("event bus lost its Redis subscription; delivering locally until it returns");
                }
                Err(error) => {
                    link.subscribed.store(false, Ordering::Relaxed);
                    tracing::warn!(%error, "event bus cannot subscribe");
                }
            },
            Ok(Err(error)) => {
                link.subscribed.store(false, Ordering::Relaxed);
                tracing::debug!(%error, "event bus cannot reach Redis");
            }
            Err(_) => link.subscribed.store(false, Ordering::Relaxed),
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(MAX_RECONNECT_DELAY);
    }
}

fn new_node_id() -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..12).map(|_| rng.sample(rand::distributions::Alphanumeric) as char).collect()
}
