//! The `EventBus`: `publish(user_id, …)` reaches the user's actor and sockets on every
//! node. In-process by default: deliveries go into this node's inbox, which the `Registry`
//! drains. With Redis configured every node publishes to one channel and subscribes to it,
//! putting what other nodes publish into its own inbox. When Redis is away, delivery
//! degrades to this node and recovers on its own; the ledger never depends on it (events
//! are news about durable rows, not the rows).
//!
//! Two kinds of thing travel: events for clients (a `Frame`, serialised once) and notices
//! between a user's actors on different nodes (`UserNotice`), which clients never see.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::money::Coins;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::wire::events::Frame;

const CHANNEL: &str = "amora:events";
/// A publish never holds up the request that caused it for longer than this.
const PUBLISH_TIMEOUT: Duration = Duration::from_millis(500);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(2);

/// News between a user's actors on different nodes, so that what each caches stays true.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum UserNotice {
    /// The ledger applied a change: the balance after it and the ledger's sequence number,
    /// so a late notice never overwrites a newer balance.
    BalanceChanged { balance: Coins, seq: i64 },
    /// A free message was taken or given back: `used` of `day`'s allowance.
    CreditsUsed { day: i64, used: u32 },
    /// The account changed (profile, preferences, plan): read it again.
    AccountChanged,
    /// Sessions of the user ended (sign-out, password change, deletion, suspension): each
    /// socket checks its own and closes if it is gone.
    SessionsEnded,
}

/// News for a character's actors on every node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum CharacterNotice {
    /// The character changed or was hidden: read it again before the next turn.
    Changed,
    /// A user's conversation with it changed on another node: drop what is held of it.
    ConversationChanged { user_id: UserId },
}

/// What the bus hands the registry for one user.
#[derive(Debug, Clone)]
pub enum BusMessage {
    Event(Frame),
    Notice(UserNotice),
}

/// One delivery into a node's inbox.
#[derive(Debug, Clone)]
pub enum Delivery {
    ToUser { user_id: UserId, message: BusMessage },
    ToCharacter { character_id: CharacterId, notice: CharacterNotice },
}

/// The receiving end of this node's deliveries; the registry drains it.
pub struct Inbox(pub(crate) mpsc::UnboundedReceiver<Delivery>);

impl Inbox {
    /// The next delivery; `None` once the bus is gone. (The registry drains the channel
    /// itself; this is for tools that watch a bus, such as `examples/bus_bench.rs`.)
    pub async fn recv(&mut self) -> Option<Delivery> {
        self.0.recv().await
    }
}

#[derive(Clone)]
pub struct EventBus {
    inner: Arc<Inner>,
}

struct Inner {
    local: mpsc::UnboundedSender<Delivery>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    user_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    frame: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    notice: Option<UserNotice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    character_id: Option<CharacterId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    character_notice: Option<CharacterNotice>,
}

impl WireEvent {
    fn of(node: &str, delivery: &Delivery) -> Self {
        let mut wire = WireEvent {
            node: node.to_owned(),
            user_id: None,
            frame: None,
            notice: None,
            character_id: None,
            character_notice: None,
        };
        match delivery {
            Delivery::ToUser { user_id, message } => {
                wire.user_id = Some(user_id.to_string());
                match message {
                    BusMessage::Event(frame) => wire.frame = Some(frame.as_str().to_owned()),
                    BusMessage::Notice(notice) => wire.notice = Some(notice.clone()),
                }
            }
            Delivery::ToCharacter { character_id, notice } => {
                wire.character_id = Some(character_id.clone());
                wire.character_notice = Some(notice.clone());
            }
        }
        wire
    }

    fn into_delivery(self) -> Option<Delivery> {
        if let (Some(character_id), Some(notice)) = (self.character_id, self.character_notice) {
            return Some(Delivery::ToCharacter { character_id, notice });
        }
        let user_id = UserId::parse(&self.user_id?).ok()?;
        let message = match (self.frame, self.notice) {
            (Some(frame), _) => BusMessage::Event(Frame(Arc::from(frame))),
            (None, Some(notice)) => BusMessage::Notice(notice),
            (None, None) => return None,
        };
        Some(Delivery::ToUser { user_id, message })
    }
}

impl EventBus {
    /// Delivers on this node only.
    pub fn local() -> (Self, Inbox) {
        let (sender, receiver) = mpsc::unbounded_channel();
        (Self { inner: Arc::new(Inner { local: sender, redis: None, node_id: new_node_id() }) }, Inbox(receiver))
    }

    /// Delivers here and, through Redis at `url`, on every other node. Starts the
    /// subscriber task, which reconnects for as long as the bus lives.
    pub fn with_redis(url: &str) -> Result<(Self, Inbox), redis::RedisError> {
        let client = redis::Client::open(url)?;
        let link = RedisLink { client, publisher: tokio::sync::Mutex::new(None), subscribed: AtomicBool::new(false) };
        let (sender, receiver) = mpsc::unbounded_channel();
        let bus = Self { inner: Arc::new(Inner { local: sender, redis: Some(link), node_id: new_node_id() }) };
        let weak = Arc::downgrade(&bus.inner);
        tokio::spawn(async move { subscribe_forever(weak).await });
        Ok((bus, Inbox(receiver)))
    }

    /// "local" or "redis".
    /// This run of the node (new at every start): whose pending debits are whose.
    pub fn node_id(&self) -> &str {
        &self.inner.node_id
    }

    pub fn mode(&self) -> &'static str {
        if self.inner.redis.is_some() { "redis" } else { "local" }
    }

    /// False while a configured Redis is unreachable.
    pub fn is_healthy(&self) -> bool {
        self.inner.redis.as_ref().is_none_or(|link| link.subscribed.load(Ordering::Relaxed))
    }

    /// An event for the user's sockets on every node. Delivered on this node at the call,
    /// not when the answer is awaited: the events of one actor reach the user's sockets in
    /// the order it published them, whenever the futures are polled (an actor's spawned
    /// futures are polled in no set order, and `memorySaving` once overtook the `chatDone`
    /// published before it). The future publishes to the other nodes.
    pub fn publish(&self, user_id: &UserId, event: impl Into<Frame>) -> impl Future<Output = ()> + 'static {
        let message = BusMessage::Event(event.into());
        self.send(Delivery::ToUser { user_id: user_id.clone(), message }, true)
    }

    /// A notice for the user's actors on every node, this one included (here at the call).
    pub fn notify(&self, user_id: &UserId, notice: UserNotice) -> impl Future<Output = ()> + 'static {
        self.send(Delivery::ToUser { user_id: user_id.clone(), message: BusMessage::Notice(notice) }, true)
    }

    /// A notice for the user's actors on the other nodes: this node's actor made the
    /// change and knows it already.
    pub fn notify_elsewhere(&self, user_id: &UserId, notice: UserNotice) -> impl Future<Output = ()> + 'static {
        self.send(Delivery::ToUser { user_id: user_id.clone(), message: BusMessage::Notice(notice) }, false)
    }

    /// A notice for a character's actors: on every node (here at the call), or
    /// (`here_too` false) on the others.
    pub fn notify_character(
        &self,
        character_id: &CharacterId,
        notice: CharacterNotice,
        here_too: bool,
    ) -> impl Future<Output = ()> + 'static {
        self.send(Delivery::ToCharacter { character_id: character_id.clone(), notice }, here_too)
    }

    /// Delivers here now (`here_too`); the future publishes to the other nodes.
    fn send(&self, delivery: Delivery, here_too: bool) -> impl Future<Output = ()> + 'static {
        let payload = self
            .inner
            .redis
            .as_ref()
            .and_then(|_| serde_json::to_string(&WireEvent::of(&self.inner.node_id, &delivery)).ok());
        if here_too {
            // Only fails once the registry is gone, when nobody is left to tell.
            let _ = self.inner.local.send(delivery);
        }
        let inner = self.inner.clone();
        async move {
            let (Some(payload), Some(link)) = (payload, &inner.redis) else {
                return;
            };
            if let Err(error) = link.publish(payload).await {
                tracing::warn!(%error, "event not published to other nodes (Redis unavailable)");
            }
        }
    }
}

impl RedisLink {
    /// The lock is held only to take the connection: a multiplexed connection pipelines
    /// what is sent on its clones, so publishes from many tasks travel together instead of
    /// each waiting for the one before it to be answered.
    async fn publish(&self, payload: String) -> Result<(), String> {
        let mut connection = self.connection().await?;
        let sent = tokio::time::timeout(
            PUBLISH_TIMEOUT,
            redis::cmd("PUBLISH").arg(CHANNEL).arg(payload).query_async::<i64>(&mut connection),
        )
        .await;
        let error = match sent {
            Ok(Ok(_receivers)) => return Ok(()),
            Ok(Err(error)) => error.to_string(),
            Err(_) => "publish timed out".to_owned(),
        };
        // The next publish connects again.
        *self.publisher.lock().await = None;
        Err(error)
    }

    async fn connection(&self) -> Result<redis::aio::MultiplexedConnection, String> {
        let mut publisher = self.publisher.lock().await;
        if let Some(connection) = publisher.as_ref() {
            return Ok(connection.clone());
        }
        let connect = self.client.get_multiplexed_async_connection();
        let connection = tokio::time::timeout(CONNECT_TIMEOUT, connect)
            .await
            .map_err(|_| "connect timed out".to_owned())?
            .map_err(|e| e.to_string())?;
        *publisher = Some(connection.clone());
        Ok(connection)
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
                        if let Some(delivery) = wire.into_delivery() {
                            let _ = local.send(delivery);
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
