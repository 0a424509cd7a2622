//! `UserActor`: one per active user per node. It owns the user's open sockets on this
//! node and a cache of the balance; every balance change goes through it to the ledger
//! and, once durable, out on the event bus to the user's sockets on every node.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use actix::prelude::*;
use amora_domain::account::UserId;
use amora_store::{LedgerEntry, LedgerOutcome, Store, StoreError};
use tokio::sync::mpsc;

use crate::bus::EventBus;
use crate::events::Frame;
use crate::registry::{Registry, Unregister};

/// Opens a socket of this user on this node; answers the balance for `hello`.
#[derive(Message)]
#[rtype(result = "Result<i64, ConnectError>")]
pub struct Connect {
    pub socket_id: u64,
    /// The socket's bounded outgoing queue; a full queue disconnects the socket.
    pub sender: mpsc::Sender<Frame>,
}

/// A socket closed.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Disconnect {
    pub socket_id: u64,
}

/// An event for every socket of this user on this node.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Deliver(pub Frame);

/// Takes coins: a ledger row with a negative delta, refused when the balance is short.
#[derive(Message)]
#[rtype(result = "Result<LedgerOutcome, StoreError>")]
pub struct Debit {
    pub amount: i64,
    pub reason: String,
    pub txn_id: String,
}

/// Gives coins: a ledger row with a positive delta. Refunds are credits too.
#[derive(Message)]
#[rtype(result = "Result<LedgerOutcome, StoreError>")]
pub struct Credit {
    pub amount: i64,
    pub reason: String,
    pub txn_id: String,
}

/// The current balance (from the store when not cached).
#[derive(Message)]
#[rtype(result = "Result<i64, StoreError>")]
pub struct Balance;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectError {
    #[error("too many open sockets for this user")]
    TooManySockets,
    #[error("no such account")]
    NoAccount,
    #[error("store: {0}")]
    Store(String),
}

/// How often an actor asks itself whether it has been idle long enough to stop, at most.
const IDLE_CHECK: Duration = Duration::from_secs(10);

pub struct UserActor {
    user_id: UserId,
    store: Store,
    bus: EventBus,
    registry: Addr<Registry>,
    /// Distinguishes this incarnation from a later one of the same user in the registry.
    incarnation: u64,
    sockets: HashMap<u64, mpsc::Sender<Frame>>,
    max_sockets: usize,
    idle_after: Duration,
    last_active: Instant,
}

impl UserActor {
    pub fn new(
        user_id: UserId,
        store: Store,
        bus: EventBus,
        registry: Addr<Registry>,
        incarnation: u64,
        max_sockets: usize,
        idle_after: Duration,
    ) -> Self {
        Self {
            user_id,
            store,
            bus,
            registry,
            incarnation,
            sockets: HashMap::new(),
            max_sockets,
            idle_after,
            last_active: Instant::now(),
        }
    }

    /// Applies a ledger entry; once it is durable, tells every socket of the user everywhere.
    fn change_balance(
        &mut self,
        delta: i64,
        reason: String,
        txn_id: String,
    ) -> ResponseFuture<Result<LedgerOutcome, StoreError>> {
        self.last_active = Instant::now();
        let store = self.store.clone();
        let bus = self.bus.clone();
        let user_id = self.user_id.clone();
        Box::pin(async move {
            let entry = LedgerEntry { user_id: user_id.clone(), txn_id, delta, reason, created_at: now() };
            let outcome = store.ledger.apply(entry).await?;
            if let LedgerOutcome::Applied { balance } = outcome {
                bus.publish(&user_id, Frame::token_count(balance)).await;
            }
            Ok(outcome)
        })
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

impl Actor for UserActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let every = IDLE_CHECK.min(self.idle_after / 2).max(Duration::from_millis(10));
        ctx.run_interval(every, |actor, ctx| {
            if actor.sockets.is_empty() && actor.last_active.elapsed() >= actor.idle_after {
                ctx.stop();
            }
        });
    }

    fn stopping(&mut self, _: &mut Self::Context) -> Running {
        // Dropping the senders ends every socket task of this user on this node.
        self.sockets.clear();
        self.registry.do_send(Unregister { user_id: self.user_id.clone(), incarnation: self.incarnation });
        Running::Stop
    }
}

impl Handler<Connect> for UserActor {
    type Result = ResponseFuture<Result<i64, ConnectError>>;

    fn handle(&mut self, message: Connect, _: &mut Self::Context) -> Self::Result {
        self.last_active = Instant::now();
        if self.sockets.len() >= self.max_sockets {
            return Box::pin(async { Err(ConnectError::TooManySockets) });
        }
        self.sockets.insert(message.socket_id, message.sender);
        let store = self.store.clone();
        let user_id = self.user_id.clone();
        Box::pin(async move {
            match store.users.by_id(&user_id).await {
                Ok(Some(user)) => Ok(user.coin),
                Ok(None) => Err(ConnectError::NoAccount),
                Err(error) => Err(ConnectError::Store(error.to_string())),
            }
        })
    }
}

impl Handler<Disconnect> for UserActor {
    type Result = ();

    fn handle(&mut self, message: Disconnect, _: &mut Self::Context) {
        self.sockets.remove(&message.socket_id);
        self.last_active = Instant::now();
    }
}

impl Handler<Deliver> for UserActor {
    type Result = ();

    fn handle(&mut self, Deliver(frame): Deliver, _: &mut Self::Context) {
        // A socket whose queue is full is a slow client: drop it rather than buffer
        // without bound. Dropping the sender ends its task, which closes the socket.
        self.sockets.retain(|socket_id, sender| match sender.try_send(frame.clone()) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::info!(socket = socket_id, "disconnecting a slow socket");
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        });
    }
}

impl Handler<Debit> for UserActor {
    type Result = ResponseFuture<Result<LedgerOutcome, StoreError>>;

    fn handle(&mut self, message: Debit, _: &mut Self::Context) -> Self::Result {
        self.change_balance(-message.amount.abs(), message.reason, message.txn_id)
    }
}

impl Handler<Credit> for UserActor {
    type Result = ResponseFuture<Result<LedgerOutcome, StoreError>>;

    fn handle(&mut self, message: Credit, _: &mut Self::Context) -> Self::Result {
        self.change_balance(message.amount.abs(), message.reason, message.txn_id)
    }
}

impl Handler<Balance> for UserActor {
    type Result = ResponseFuture<Result<i64, StoreError>>;

    fn handle(&mut self, _: Balance, _: &mut Self::Context) -> Self::Result {
        let store = self.store.clone();
        let user_id = self.user_id.clone();
        Box::pin(async move { Ok(store.users.by_id(&user_id).await?.map_or(0, |user| user.coin)) })
    }
}
