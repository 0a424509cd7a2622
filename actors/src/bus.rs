//! The `EventBus`: `publish(user_id, …)` reaches the user's actor and sockets on every
//! node. In-process by default: deliveries go into this node's inbox, which the `Registry`
//! drains. With Redis configured every node publishes to one channel and subscribes to it,
//! putting what other nodes publish into its own inbox. The ledger never depends on the
//! bus (events are news about durable rows, not the rows), but what nodes cache does, so
//! a bus that fails must not leave a node showing old news (issue 36):
//!
//! - The bus knows when it is down: the subscription ended, or Redis did not answer a PING
//!   within `PING_TIMEOUT` (a hung server keeps its connections open). `is_healthy` says
//!   so, and `check` asks Redis afresh for `/readyz`.
//! - What this node publishes goes out in order through one publisher task. A delivery
//!   that could not be published, or that is sent while the bus is known down, waits in an
//!   outbox and goes out, in its order, when the bus returns; the outbox keeps at most
//!   `OUTBOX_LIMIT` deliveries for at most `OUTBOX_MAX_AGE` (the oldest go first). A
//!   delivery sent again after a failure may have reached Redis the first time: receivers
//!   drop what they already had, by each publisher's sequence number.
//! - When the bus comes back (or this node subscribes again), the inbox gets a
//!   `Delivery::Resync`: the registry tells every actor here that what it holds may have
//!   missed news, and user actors read account and balance again and tell their sockets.
//!
//! Two kinds of thing travel: events for clients (a `Frame`, serialised once) and notices
//! between a user's actors on different nodes (`UserNotice`), which clients never see.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use actix::Message;
use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::money::Coins;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, mpsc, oneshot};

use crate::wire::events::Frame;

const CHANNEL: &str = "amora:events";
/// A publish never holds up the request that caused it for longer than this (plus a
/// connect, `CONNECT_TIMEOUT`, when the connection must be made again).
const PUBLISH_TIMEOUT: Duration = Duration::from_millis(500);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Subscribing again is tried at most this long after the last failed try: a bus that
/// returns is in use again within this (plus `HEALTH_EVERY`).
const MAX_RECONNECT_DELAY: Duration = Duration::from_millis(500);
/// How often the bus asks Redis whether it answers.
const HEALTH_EVERY: Duration = Duration::from_millis(250);
/// A PING not answered within this long means the bus is down. `/readyz` waits at most
/// this long for its own PING, so it answers well within a load balancer's 1 s.
pub const PING_TIMEOUT: Duration = Duration::from_millis(300);
/// At most this many deliveries wait for a bus that is down; past it the oldest are dropped.
const OUTBOX_LIMIT: usize = 10_000;
/// A delivery that waited this long for the bus is dropped: what it said is stale, and the
/// receivers read what matters (account, balance) again when the bus returns anyway.
const OUTBOX_MAX_AGE: Duration = Duration::from_secs(60);
/// At most this many deliveries go to Redis in one pipelined round trip.
const BATCH: usize = 512;

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
    ToUser {
        user_id: UserId,
        message: BusMessage,
    },
    ToCharacter {
        character_id: CharacterId,
        notice: CharacterNotice,
    },
    /// The bus is back after being down (or subscribed again): news may have been missed,
    /// so every actor of this node treats what it caches as stale. Never leaves the node.
    Resync,
}

/// Sent by the registry to every actor on `Delivery::Resync`.
#[derive(Message, Debug, Clone, Copy)]
#[rtype(result = "()")]
pub struct Resync;

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
    /// To the publisher task, in the order of the calls.
    outgoing: mpsc::UnboundedSender<Outgoing>,
    state: Arc<LinkState>,
}

/// What the bus's tasks share about Redis.
struct LinkState {
    client: redis::Client,
    /// The subscription is up.
    subscribed: AtomicBool,
    /// Subscriptions made so far: one made between two health checks is still noticed.
    subscriptions: AtomicU64,
    /// Subscribed, and Redis answered the last PING in time.
    up: AtomicBool,
    /// `up` changed: wakes the publisher waiting for the bus.
    changed: Notify,
    /// Deliveries the outbox dropped (full, or too old), for the log.
    dropped: AtomicU64,
}

/// A delivery on its way to the other nodes, and the caller waiting to hear it left.
struct Outgoing {
    wire: WireEvent,
    /// Answered once published, or once kept in the outbox for later.
    sent: Option<oneshot::Sender<()>>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireEvent {
    node: String,
    /// The publishing node's count of its deliveries, so a receiver drops one it already had
    /// (sent again after a publish that failed but reached Redis anyway). 0: unnumbered.
    #[serde(default)]
    seq: u64,
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
    /// `None` for what never leaves the node.
    fn of(node: &str, delivery: &Delivery) -> Option<Self> {
        let mut wire = WireEvent {
            node: node.to_owned(),
            seq: 0,
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
            Delivery::Resync => return None,
        }
        Some(wire)
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
    /// subscriber, the health check and the publisher, which live as long as the bus.
    pub fn with_redis(url: &str) -> Result<(Self, Inbox), redis::RedisError> {
        // Without Nagle's algorithm (redis-rs keeps the OS default): a publish queued
        // behind one not yet acknowledged would wait for Redis's delayed ACK.
        let info = redis::IntoConnectionInfo::into_connection_info(url)?;
        let tcp = info.tcp_settings().clone().set_nodelay(true);
        let client = redis::Client::open(info.set_tcp_settings(tcp))?;
        let state = Arc::new(LinkState {
            client,
            subscribed: AtomicBool::new(false),
            subscriptions: AtomicU64::new(0),
            up: AtomicBool::new(false),
            changed: Notify::new(),
            dropped: AtomicU64::new(0),
        });
        let (outgoing, queue) = mpsc::unbounded_channel();
        let (sender, receiver) = mpsc::unbounded_channel();
        let link = RedisLink { outgoing, state: state.clone() };
        let bus = Self { inner: Arc::new(Inner { local: sender, redis: Some(link), node_id: new_node_id() }) };
        let weak = Arc::downgrade(&bus.inner);
        tokio::spawn(subscribe_forever(weak.clone(), state.clone()));
        tokio::spawn(watch_health(weak, state.clone()));
        tokio::spawn(publish_in_order(state, queue));
        Ok((bus, Inbox(receiver)))
    }

    /// This run of the node (new at every start): whose pending debits are whose.
    pub fn node_id(&self) -> &str {
        &self.inner.node_id
    }

    /// "local" or "redis".
    pub fn mode(&self) -> &'static str {
        if self.inner.redis.is_some() { "redis" } else { "local" }
    }

    /// False while a configured Redis is known to be down: the subscription ended or the
    /// last health check's PING went unanswered (checked every `HEALTH_EVERY`). While it
    /// is false, news from other nodes may be missing, and actors read the store instead
    /// of trusting what they hold.
    pub fn is_healthy(&self) -> bool {
        self.inner.redis.as_ref().is_none_or(|link| link.state.up.load(Ordering::Relaxed))
    }

    /// Asks Redis now (a PING within `PING_TIMEOUT`), for `/readyz`; the error says why the
    /// bus cannot be used. A local bus is always fine.
    pub async fn check(&self) -> Result<(), String> {
        let Some(link) = &self.inner.redis else {
            return Ok(());
        };
        if !link.state.subscribed.load(Ordering::Relaxed) {
            return Err("not subscribed".to_owned());
        }
        // Until the health watch has seen the bus up, it has not yet resynchronised this
        // node's actors: a socket opened before that could be told an older balance after
        // news it already had (seen in CI on a node just started).
        if !link.state.up.load(Ordering::Relaxed) {
            return Err("not yet seen up by the health watch".to_owned());
        }
        ping(&link.state.client).await
    }

    /// An event for the user's sockets on every node. Delivered on this node at the call,
    /// not when the answer is awaited: the events of one actor reach the user's sockets in
    /// the order it published them, whenever the futures are polled (an actor's spawned
    /// futures are polled in no set order, and `memorySaving` once overtook the `chatDone`
    /// published before it). The other nodes get them in the same order: they are queued
    /// for Redis at the call too. The future ends once they left, or wait for the bus.
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

    /// Delivers here now (`here_too`) and queues for the other nodes now; the future
    /// ends when the delivery left for Redis or waits in the outbox.
    fn send(&self, delivery: Delivery, here_too: bool) -> impl Future<Output = ()> + 'static {
        let queued = self.inner.redis.as_ref().and_then(|link| {
            let wire = WireEvent::of(&self.inner.node_id, &delivery)?;
            let (sent, left) = oneshot::channel();
            link.outgoing.send(Outgoing { wire, sent: Some(sent) }).ok()?;
            Some(left)
        });
        if here_too {
            // Only fails once the registry is gone, when nobody is left to tell.
            let _ = self.inner.local.send(delivery);
        }
        async move {
            if let Some(left) = queued {
                // An error only means the publisher is gone with the bus.
                let _ = left.await;
            }
        }
    }
}

/// A PING on a new connection, within `PING_TIMEOUT`.
async fn ping(client: &redis::Client) -> Result<(), String> {
    ping_on(client, &mut None).await
}

/// A PING on `connection` (made first if there is none), within `PING_TIMEOUT` in all; a
/// connection that failed is dropped, so the next PING makes a new one.
async fn ping_on(
    client: &redis::Client,
    connection: &mut Option<redis::aio::MultiplexedConnection>,
) -> Result<(), String> {
    let asked = async {
        let mut live = match connection.take() {
            Some(live) => live,
            None => client.get_multiplexed_async_connection().await.map_err(|e| e.to_string())?,
        };
        redis::cmd("PING").query_async::<String>(&mut live).await.map_err(|e| e.to_string())?;
        Ok::<_, String>(live)
    };
    match tokio::time::timeout(PING_TIMEOUT, asked).await {
        Ok(Ok(live)) => {
            *connection = Some(live);
            Ok(())
        }
        Ok(Err(error)) => Err(error),
        Err(_) => Err(format!("no answer to PING within {} ms", PING_TIMEOUT.as_millis())),
    }
}

/// Keeps one subscription up while the bus exists, delivering other nodes' events here
/// (each once: a publisher's delivery sent again is dropped by its sequence number).
async fn subscribe_forever(bus: std::sync::Weak<Inner>, state: Arc<LinkState>) {
    let mut delay = Duration::from_millis(50);
    // The last sequence number heard from each publishing node.
    let mut heard: HashMap<String, u64> = HashMap::new();
    loop {
        let Some(inner) = bus.upgrade() else {
            return;
        };
        let connect = tokio::time::timeout(CONNECT_TIMEOUT, state.client.get_async_pubsub()).await;
        match connect {
            Ok(Ok(mut pubsub)) => match tokio::time::timeout(CONNECT_TIMEOUT, pubsub.subscribe(CHANNEL)).await {
                Ok(Ok(())) => {
                    state.subscriptions.fetch_add(1, Ordering::Relaxed);
                    state.subscribed.store(true, Ordering::Relaxed);
                    tracing::info!("event bus subscribed to Redis");
                    delay = Duration::from_millis(50);
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
                        if wire.node == node_id || !first_hearing(&mut heard, &wire) {
                            continue;
                        }
                        if let Some(delivery) = wire.into_delivery() {
                            let _ = local.send(delivery);
                        }
                    }
                    state.subscribed.store(false, Ordering::Relaxed);
                    tracing::warn!("event bus lost its Redis subscription; delivering locally until it returns");
                }
                Ok(Err(error)) => {
                    state.subscribed.store(false, Ordering::Relaxed);
                    tracing::warn!(%error, "event bus cannot subscribe");
                }
                Err(_) => state.subscribed.store(false, Ordering::Relaxed),
            },
            Ok(Err(error)) => {
                state.subscribed.store(false, Ordering::Relaxed);
                tracing::debug!(%error, "event bus cannot reach Redis");
            }
            Err(_) => state.subscribed.store(false, Ordering::Relaxed),
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(MAX_RECONNECT_DELAY);
    }
}

/// Whether `wire` is news: not a delivery of its node heard before. Keeps the last number
/// of at most a few thousand nodes (each run of a node is a new one); past that it starts
/// over, which at worst lets one repeated delivery through.
fn first_hearing(heard: &mut HashMap<String, u64>, wire: &WireEvent) -> bool {
    if wire.seq == 0 {
        return true;
    }
    if let Some(last) = heard.get_mut(&wire.node) {
        if wire.seq <= *last {
            return false;
        }
        *last = wire.seq;
        return true;
    }
    if heard.len() >= 4096 {
        heard.clear();
    }
    heard.insert(wire.node.clone(), wire.seq);
    true
}

/// Every `HEALTH_EVERY`, decides whether the bus is up (subscribed, and Redis answers a
/// PING in time). When it comes back, or subscribed again meanwhile, tells the registry to
/// resynchronise this node's actors.
async fn watch_health(bus: std::sync::Weak<Inner>, state: Arc<LinkState>) {
    let mut was_up = false;
    let mut seen_subscriptions = 0;
    let mut connection = None;
    loop {
        let Some(local) = bus.upgrade().map(|inner| inner.local.clone()) else {
            return;
        };
        let subscriptions = state.subscriptions.load(Ordering::Relaxed);
        let answered = ping_on(&state.client, &mut connection).await;
        let up = state.subscribed.load(Ordering::Relaxed) && answered.is_ok();
        let resubscribed = subscriptions != seen_subscriptions;
        if up != was_up {
            state.up.store(up, Ordering::Relaxed);
            state.changed.notify_waiters();
            match &answered {
                Ok(()) if up => tracing::info!("event bus up"),
                Ok(()) => tracing::warn!("event bus down: not subscribed"),
                Err(error) => tracing::warn!(%error, "event bus down"),
            }
        }
        if up && (!was_up || resubscribed) {
            seen_subscriptions = subscriptions;
            // News may have been missed while the bus was down: the registry has every
            // actor here read again what it caches.
            let _ = local.send(Delivery::Resync);
        }
        was_up = up;
        drop(local);
        tokio::time::sleep(HEALTH_EVERY).await;
    }
}

/// Publishes this node's deliveries in the order they were sent, pipelined in batches.
/// While the bus is down, or a publish fails, they wait in the outbox (bounded) and go
/// out, still in order, once it is back. Ends when the bus is dropped.
async fn publish_in_order(state: Arc<LinkState>, mut queue: mpsc::UnboundedReceiver<Outgoing>) {
    let mut outbox: VecDeque<(Instant, Outgoing)> = VecDeque::new();
    let mut connection: Option<redis::aio::MultiplexedConnection> = None;
    let mut next_seq: u64 = 0;
    let mut failures: u32 = 0;
    loop {
        if outbox.is_empty() {
            let Some(first) = queue.recv().await else {
                return;
            };
            take(&mut outbox, first, &mut next_seq, &state);
        }
        while let Ok(more) = queue.try_recv() {
            take(&mut outbox, more, &mut next_seq, &state);
        }
        drop_expired(&mut outbox, &state);
        if outbox.is_empty() {
            continue;
        }
        if !state.up.load(Ordering::Relaxed) {
            // Known down: nobody waits for a publish that cannot happen now.
            release_waiters(&mut outbox);
            let back = state.changed.notified();
            tokio::select! {
                _ = back => {}
                more = queue.recv() => match more {
                    Some(more) => take(&mut outbox, more, &mut next_seq, &state),
                    None => return,
                },
                _ = tokio::time::sleep(HEALTH_EVERY) => {}
            }
            continue;
        }
        let count = outbox.len().min(BATCH);
        match publish_batch(&state, &mut connection, outbox.iter().take(count).map(|(_, o)| &o.wire)).await {
            Ok(()) => {
                failures = 0;
                for (_, mut sent) in outbox.drain(..count) {
                    if let Some(sent) = sent.sent.take() {
                        let _ = sent.send(());
                    }
                }
            }
            Err(error) => {
                // The next try connects again; until it succeeds nobody waits.
                connection = None;
                failures += 1;
                if failures == 1 {
                    tracing::warn!(%error, waiting = outbox.len(), "events not published to other nodes; kept until Redis returns");
                }
                release_waiters(&mut outbox);
                let pause = Duration::from_millis(50 * u64::from(failures.min(10)));
                tokio::time::sleep(pause).await;
            }
        }
    }
}

/// Numbers a delivery and puts it at the end of the outbox, dropping the oldest when full.
fn take(outbox: &mut VecDeque<(Instant, Outgoing)>, mut outgoing: Outgoing, next_seq: &mut u64, state: &LinkState) {
    *next_seq += 1;
    outgoing.wire.seq = *next_seq;
    if outbox.len() >= OUTBOX_LIMIT
        && let Some((_, mut oldest)) = outbox.pop_front()
    {
        oldest.sent.take();
        note_dropped(state, 1);
    }
    outbox.push_back((Instant::now(), outgoing));
}

fn drop_expired(outbox: &mut VecDeque<(Instant, Outgoing)>, state: &LinkState) {
    let mut expired = 0;
    while outbox.front().is_some_and(|(queued, _)| queued.elapsed() > OUTBOX_MAX_AGE) {
        outbox.pop_front();
        expired += 1;
    }
    if expired > 0 {
        note_dropped(state, expired);
    }
}

fn note_dropped(state: &LinkState, count: u64) {
    let before = state.dropped.fetch_add(count, Ordering::Relaxed);
    // Logged at the first drop and every thousand after, not per delivery.
    if before / 1000 != (before + count) / 1000 || before == 0 {
        tracing::warn!(dropped = before + count, "the event bus's outbox dropped deliveries (Redis down too long)");
    }
}

/// Answers everyone waiting on a delivery in the outbox: it is kept, not lost.
fn release_waiters(outbox: &mut VecDeque<(Instant, Outgoing)>) {
    for (_, outgoing) in outbox.iter_mut() {
        if let Some(sent) = outgoing.sent.take() {
            let _ = sent.send(());
        }
    }
}

/// One pipelined round trip of PUBLISHes, within `PUBLISH_TIMEOUT` (and a connect).
async fn publish_batch<'a>(
    state: &LinkState,
    connection: &mut Option<redis::aio::MultiplexedConnection>,
    wires: impl Iterator<Item = &'a WireEvent>,
) -> Result<(), String> {
    let mut pipe = redis::pipe();
    for wire in wires {
        let payload = serde_json::to_string(wire).map_err(|e| e.to_string())?;
        pipe.cmd("PUBLISH").arg(CHANNEL).arg(payload).ignore();
    }
    let mut live = match connection.take() {
        Some(live) => live,
        None => tokio::time::timeout(CONNECT_TIMEOUT, state.client.get_multiplexed_async_connection())
            .await
            .map_err(|_| "connect timed out".to_owned())?
            .map_err(|e| e.to_string())?,
    };
    match tokio::time::timeout(PUBLISH_TIMEOUT, pipe.query_async::<()>(&mut live)).await {
        Ok(Ok(())) => {
            *connection = Some(live);
            Ok(())
        }
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err("publish timed out".to_owned()),
    }
}

fn new_node_id() -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..12).map(|_| rng.sample(rand::distributions::Alphanumeric) as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(node: &str, seq: u64) -> WireEvent {
        let mut wire = WireEvent::of(
            node,
            &Delivery::ToUser {
                user_id: UserId::parse("u0123456789abcdef").unwrap_or_else(|e| panic!("{e}")),
                message: BusMessage::Notice(UserNotice::AccountChanged),
            },
        )
        .unwrap_or_else(|| panic!("a user's delivery travels"));
        wire.seq = seq;
        wire
    }

    #[test]
    fn a_delivery_heard_before_is_dropped_and_nodes_are_counted_apart() {
        let mut heard = HashMap::new();
        assert!(first_hearing(&mut heard, &wire("a", 1)));
        assert!(first_hearing(&mut heard, &wire("a", 2)));
        assert!(!first_hearing(&mut heard, &wire("a", 2)), "sent again after a failed publish");
        assert!(!first_hearing(&mut heard, &wire("a", 1)));
        assert!(first_hearing(&mut heard, &wire("b", 1)), "another node numbers its own");
        assert!(first_hearing(&mut heard, &wire("a", 7)), "a gap (dropped from the outbox) is fine");
        assert!(first_hearing(&mut heard, &wire("c", 0)), "unnumbered, from an older node");
        assert!(first_hearing(&mut heard, &wire("c", 0)));
    }

    #[test]
    fn resync_never_leaves_the_node() {
        assert!(WireEvent::of("a", &Delivery::Resync).is_none());
    }
}
