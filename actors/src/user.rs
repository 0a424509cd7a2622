//! `UserActor`: one per active user per node, holding the user's live state there: the
//! account (identity, preferences, plan), the coin balance, the day's free-message count
//! and the user's open sockets on this node. It backs the HTTP API and the sockets, so a
//! signed-in request does not read the account from the store again.
//!
//! The store stays the truth across nodes. Every balance change for the user on this node
//! goes through this actor's mailbox, in order, to the ledger's compare-and-set; the result
//! (balance and ledger sequence) updates the cache and reaches the user's actors on other
//! nodes as a `UserNotice`, where a notice older than what they hold is ignored. A change
//! of the account or of the free-message count travels the same way. An actor that hears
//! of nothing serves what it read; one that stops loses nothing, since it only caches.
//!
//! That holds while the bus carries the notices. While the bus is known down
//! (`EventBus::is_healthy`), an actor trusts the account and balance it holds for at most
//! `STALE_AFTER`: a request reads them again once they are older, and an actor with
//! sockets reads them again every `STALE_AFTER`, telling its sockets when the balance
//! moved. When the bus returns (`Resync`), it reads them again at once and sends its
//! sockets a `tokenCount` (docs/architecture.md, "When the bus fails").

use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use amora_domain::account::{User, UserId};
use amora_domain::character::CharacterId;
use amora_domain::money::{Coins, TxnId};
use amora_domain::payment::{Subscription, vip_type};
use amora_domain::persona::UserPersona;
use amora_store::{LedgerEntry, LedgerOutcome, Store, StoreError, StoredPersona, UserChange};
use tokio::sync::{mpsc, oneshot};

use crate::bus::{BusMessage, EventBus, Resync, UserNotice};
use crate::supervision::{IdleCheck, Passivated, Shed, Stop};
use crate::wire::events::{Frame, ServerEvent};

/// The actor of a user, spawned if this node has none (asked of the `Registry`).
#[derive(Message)]
#[rtype(result = "Addr<UserActor>")]
pub struct UserAddr(pub UserId);

/// Opens a socket of this user on this node; answers the balance for `hello`.
#[derive(Message)]
#[rtype(result = "Result<Coins, UserError>")]
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

/// Something the bus brought for this user: an event for the sockets, or a notice.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Notify(pub BusMessage);

/// Takes coins: a ledger row of `-amount`, refused when the balance is short.
#[derive(Message)]
#[rtype(result = "Result<LedgerOutcome, UserError>")]
pub struct Debit {
    pub amount: Coins,
    pub reason: String,
    pub txn_id: TxnId,
}

/// Gives coins: a ledger row of `amount`. Refunds are credits too.
#[derive(Message)]
#[rtype(result = "Result<LedgerOutcome, UserError>")]
pub struct Credit {
    pub amount: Coins,
    pub reason: String,
    pub txn_id: TxnId,
}

/// The current balance.
#[derive(Message)]
#[rtype(result = "Result<Coins, UserError>")]
pub struct Balance;

/// The account as it now is (balance included); `None` once it is deleted.
#[derive(Message)]
#[rtype(result = "Result<Option<User>, UserError>")]
pub struct Account;

/// Changes the account (profile, preferences, password, plan, linked sign-ins) and
/// answers it as it now is; `None` when it no longer exists.
#[derive(Message)]
#[rtype(result = "Result<Option<User>, UserError>")]
pub struct UpdateAccount(pub UserChange);

/// Takes one of today's `limit` free messages: false when none is left.
#[derive(Message)]
#[rtype(result = "Result<bool, UserError>")]
pub struct TakeFreeMessage {
    pub limit: u32,
}

/// Gives a free message back (the message was refused or its reply failed).
#[derive(Message)]
#[rtype(result = "Result<(), UserError>")]
pub struct GiveBackFreeMessage;

/// How many of today's `limit` free messages are left.
#[derive(Message)]
#[rtype(result = "Result<u32, UserError>")]
pub struct FreeMessagesLeft {
    pub limit: u32,
}

/// Whether the session with this hash is live. Read from the store every time: a
/// revocation on another node must hold here at once, not once its notice arrives.
#[derive(Message)]
#[rtype(result = "Result<bool, UserError>")]
pub struct SessionLive {
    pub session_hash: String,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum UserError {
    #[error("too many open sockets for this user")]
    TooManySockets,
    #[error("no such account")]
    NoAccount,
    /// The store is briefly away (`StoreError::Unavailable`): try again.
    #[error("store: {0}")]
    Unavailable(String),
    #[error("store: {0}")]
    Store(String),
}

impl UserError {
    /// Whether trying again later may succeed (the store was briefly away).
    pub fn is_temporary(&self) -> bool {
        matches!(self, UserError::Unavailable(_))
    }
}

impl From<StoreError> for UserError {
    fn from(error: StoreError) -> Self {
        if error.is_temporary() {
            UserError::Unavailable(error.to_string())
        } else {
            UserError::Store(error.to_string())
        }
    }
}

/// While the bus is down, what an actor read of the account and balance is trusted for
/// this long; it is read again after that (on use, and for the sockets, by the clock).
pub const STALE_AFTER: Duration = Duration::from_secs(1);

/// The day's free-message count as last heard from the store.
#[derive(Debug, Clone, Copy)]
struct FreeMessages {
    day: i64,
    used: u32,
}

/// The balance as last applied or heard, with the ledger sequence it was at.
#[derive(Debug, Clone, Copy)]
struct KnownBalance {
    coins: Coins,
    seq: i64,
}

pub struct UserActor {
    user_id: UserId,
    /// What every user actor of the node shares (one pointer here): the store, the bus.
    node: Arc<UserActorNode>,
    /// Distinguishes this incarnation from a later one of the same user in the registry.
    incarnation: u64,
    /// What was read of the user; `None` until first needed, and again once the actor has
    /// cooled (boxed: an idle actor then carries a pointer, not ~420 bytes).
    cache: Option<Box<Cache>>,
    /// Newer than `account.coin` whenever the ledger told us more recently.
    balance: Option<KnownBalance>,
    /// Counts changes of `account` made here, so a read begun before one does not undo it.
    account_changes: u64,
    /// A read of the account and balance is under way (while the bus is down one at a time).
    rereading: bool,
    /// The user's sockets on this node, by id: a few at most (`max_sockets`).
    sockets: Vec<(u64, mpsc::Sender<Frame>)>,
    /// The timer that watches the store for the sockets while the bus is down
    /// (`sockets_changed`); none while there are no sockets.
    stale_watch: Option<SpawnHandle>,
    /// Balance changes queue here as their messages are handled, and one task applies
    /// them to the ledger one after another, while the actor keeps answering everything
    /// else. The queue is joined in the handler itself: a lock taken inside each change's
    /// future would be queued in the order actix first polls those futures, and actix
    /// reorders them whenever an earlier one finishes.
    money_lane: Option<mpsc::UnboundedSender<QueuedChange>>,
    last_active: Instant,
}

/// What a user's actor caches of the user, given back when it cools.
#[derive(Default)]
struct Cache {
    /// The account as last read (`None`: not read, or read and gone).
    account: Option<User>,
    /// The user's plans as last read with the account: the best in force decides
    /// `userVipType` (with the operator's grant), and it lapses at its period's end.
    plans: Vec<Subscription>,
    /// When the account and balance were last read from the store.
    read_at: Option<Instant>,
    free_messages: Option<FreeMessages>,
    /// The user's personas as last read (`None` until first needed); a change here or
    /// on another node (`UserNotice::AccountChanged`) drops them.
    personas: Option<Vec<StoredPersona>>,
}

/// What the user actors of one node share, and the limits they keep.
pub struct UserActorNode {
    pub store: Store,
    pub bus: EventBus,
    /// The registry, told when an actor stops.
    pub passivated: Recipient<Passivated>,
    pub max_sockets: usize,
    /// An actor with no sockets stops after this long without activity…
    pub idle_after: Duration,
    /// …and gives back what it caches (the account, plans, personas, free messages) after
    /// this long: a hundred thousand resident users then hold ~1 KiB each beyond actix's
    /// own (issue 35), and a user who comes back costs one read of the account.
    pub cool_after: Duration,
}

impl UserActor {
    pub fn new(user_id: UserId, node: Arc<UserActorNode>, incarnation: u64) -> Self {
        Self {
            user_id,
            node,
            incarnation,
            cache: None,
            balance: None,
            account_changes: 0,
            rereading: false,
            sockets: Vec::new(),
            stale_watch: None,
            money_lane: None,
            last_active: Instant::now(),
        }
    }

    fn touch(&mut self) {
        self.last_active = Instant::now();
    }

    /// What is cached, made on first need.
    fn cache_mut(&mut self) -> &mut Cache {
        self.cache.get_or_insert_with(Box::default)
    }

    /// Whether the account is held.
    fn has_account(&self) -> bool {
        self.cache.as_ref().is_some_and(|cache| cache.account.is_some())
    }

    /// The account with the newest balance this actor knows folded in, and the plan in
    /// force now: `userVipType` is the operator's grant or the best plan, whichever is higher.
    fn current_account(&self) -> Option<User> {
        let cache = self.cache.as_deref()?;
        let mut account = cache.account.clone()?;
        if let Some(balance) = self.balance {
            account.coin = balance.coins;
        }
        account.user_vip_type = account.user_vip_type.max(vip_type(&cache.plans, now()));
        Some(account)
    }

    /// Keeps a balance the ledger reported if it is newer than the one held; tells this
    /// node's sockets when it changed (answers whether it did).
    fn learn_balance(&mut self, coins: Coins, seq: i64) -> bool {
        let newer = self.balance.is_none_or(|known| seq > known.seq);
        if !newer {
            return false;
        }
        let changed = self.balance.is_none_or(|known| known.coins != coins);
        self.balance = Some(KnownBalance { coins, seq });
        if changed {
            self.send_to_sockets(&Frame::from(ServerEvent::TokenCount { coin: coins }));
        }
        changed
    }

    /// Keeps the sockets' watch on the store running while there are sockets, and only
    /// then: while the bus is down no notice tells them of a change made on another node,
    /// so they hear it from the store instead, within `STALE_AFTER` and a read. An idle
    /// actor has no such timer (a hundred thousand of them woke twice a second), and
    /// gives back its emptied map of sockets.
    fn sockets_changed(&mut self, ctx: &mut Context<Self>) {
        if self.sockets.is_empty() {
            if let Some(watch) = self.stale_watch.take() {
                ctx.cancel_future(watch);
            }
            self.sockets = Vec::new();
        } else if self.stale_watch.is_none() {
            self.stale_watch = Some(ctx.run_interval(STALE_AFTER / 2, |actor, ctx| {
                if actor.sockets.is_empty() {
                    // The last ones were dropped as slow or closed.
                    actor.sockets_changed(ctx);
                } else if actor.has_account() && actor.stale() {
                    actor.reread(false, ctx);
                }
            }));
        }
    }

    fn send_to_sockets(&mut self, frame: &Frame) {
        // A socket whose queue is full is a slow client: drop it rather than buffer
        // without bound. Dropping the sender ends its task, which closes the socket.
        self.sockets.retain(|(socket_id, sender)| match sender.try_send(frame.clone()) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::info!(socket = socket_id, "disconnecting a slow socket");
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        });
    }

    /// Whether the account and balance held may have missed news: the bus is down and
    /// they were read more than `STALE_AFTER` ago.
    fn stale(&self) -> bool {
        let read_at = self.cache.as_ref().and_then(|cache| cache.read_at);
        !self.node.bus.is_healthy() && read_at.is_none_or(|read_at| read_at.elapsed() >= STALE_AFTER)
    }

    /// Runs `then` with the account loaded: read from the store on first need, and again
    /// when what is held is stale.
    fn with_account<R: 'static>(
        &mut self,
        then: impl FnOnce(&mut Self, Option<User>) -> R + 'static,
    ) -> ResponseActFuture<Self, Result<R, UserError>> {
        self.touch();
        if self.has_account() && !self.stale() {
            let account = self.current_account();
            return Box::pin(actix::fut::ready(Ok(then(self, account))));
        }
        Box::pin(self.read_again().map(move |read, actor, _| {
            read?;
            let account = actor.current_account();
            Ok(then(actor, account))
        }))
    }

    /// Reads the account, plans and balance from the store and keeps them; tells the
    /// sockets when the balance moved (answers whether it did).
    fn read_again(&mut self) -> impl ActorFuture<Self, Output = Result<bool, UserError>> + 'static {
        let (store, bus, user_id) = (self.node.store.clone(), self.node.bus.clone(), self.user_id.clone());
        let changes = self.account_changes;
        let read = async move {
            let mut account = store.users.by_id(&user_id).await?;
            // Accounts made before generated names were called by their e-mail prefix
            // (issue 30); each gets its generated name the first time it is loaded on
            // any node, written once (the name is the same wherever it is made).
            if let Some(old) = account.as_ref().filter(|user| user.has_email_prefix_name()) {
                let user_name = amora_domain::account::generated_user_name(&old.user_id);
                let change = UserChange::Profile { user_name: Some(user_name), user_avatar: None };
                account = store.users.update(&user_id, change).await?;
                bus.notify_elsewhere(&user_id, UserNotice::AccountChanged).await;
                tracing::info!(user = %user_id, "an e-mail prefix display name replaced by a generated one");
            }
            let plans = store.subscriptions.list_for_user(&user_id).await?;
            let balance = store.ledger.balance(&user_id).await?;
            Ok::<_, StoreError>((account, plans, balance))
        };
        read.into_actor(self).map(move |read, actor, _| {
            let (account, plans, balance) = read?;
            // A change applied here while the read was under way is newer: keep it.
            let unchanged = actor.account_changes == changes;
            let cache = actor.cache_mut();
            if cache.account.is_none() || unchanged {
                cache.account = account;
                cache.plans = plans;
            }
            cache.read_at = Some(Instant::now());
            // The ledger's sequence keeps a notice still on its way from undoing this.
            Ok(balance.is_some_and(|(coins, seq)| actor.learn_balance(coins, seq)))
        })
    }

    /// Reads account and balance again in the background, once at a time; `announce`
    /// sends the sockets a `tokenCount` afterwards even if the balance did not move.
    fn reread(&mut self, announce: bool, ctx: &mut Context<Self>) {
        if self.rereading {
            return;
        }
        self.rereading = true;
        ctx.spawn(self.read_again().map(move |read, actor, _| {
            actor.rereading = false;
            match read {
                // Told already when the balance moved.
                Ok(false) if announce => {
                    if let Some(account) = actor.current_account() {
                        actor.send_to_sockets(&Frame::from(ServerEvent::TokenCount { coin: account.coin }));
                    }
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(user = %actor.user_id, %error, "cannot read the account again"),
            }
        }));
    }

    /// Applies a ledger entry in this user's order; once durable, updates the cache, tells
    /// this node's sockets and the user's actors elsewhere.
    fn change_balance(
        &mut self,
        delta: Coins,
        reason: String,
        txn_id: TxnId,
    ) -> ResponseActFuture<Self, Result<LedgerOutcome, UserError>> {
        self.touch();
        let entry = LedgerEntry { user_id: self.user_id.clone(), txn_id, delta, reason, created_at: now() };
        let (answer, outcome) = oneshot::channel();
        // A change the queue refused is dropped with its `answer`, which ends `outcome` too.
        let _ = self.money_lane().send(QueuedChange { entry, answer });
        Box::pin(
            async move {
                let outcome = outcome.await.map_err(|_| UserError::Store("the ledger queue stopped".into()))?;
                Ok(outcome?)
            }
            .into_actor(self)
            .map(|outcome: Result<LedgerOutcome, UserError>, actor, _| {
                match &outcome {
                    Ok(
                        LedgerOutcome::Applied { balance, seq }
                        | LedgerOutcome::Replayed { balance, seq }
                        | LedgerOutcome::Insufficient { balance, seq },
                    ) => {
                        actor.learn_balance(*balance, *seq);
                    }
                    Ok(LedgerOutcome::NoAccount) | Err(_) => {}
                }
                outcome
            }),
        )
    }

    /// The queue of this user's balance changes, with its task started on first use.
    fn money_lane(&mut self) -> &mpsc::UnboundedSender<QueuedChange> {
        self.money_lane.get_or_insert_with(|| {
            let (lane, queue) = mpsc::unbounded_channel();
            actix::spawn(apply_in_turn(self.node.store.clone(), self.node.bus.clone(), self.user_id.clone(), queue));
            lane
        })
    }

    /// Today's free-message count, read from the store when the cache is of another day,
    /// or whenever the bus is down (its `CreditsUsed` notices may be missing; a cheap read).
    fn with_free_messages<R: 'static>(
        &mut self,
        then: impl FnOnce(&mut Self, u32) -> R + 'static,
    ) -> ResponseActFuture<Self, Result<R, UserError>> {
        self.touch();
        let today = utc_day();
        let known = self.cache.as_ref().and_then(|cache| cache.free_messages);
        let trusted = known.filter(|known| known.day == today && self.node.bus.is_healthy());
        if let Some(known) = trusted {
            return Box::pin(actix::fut::ready(Ok(then(self, known.used))));
        }
        let (store, user_id) = (self.node.store.clone(), self.user_id.clone());
        Box::pin(async move { store.message_credits.used(&user_id, today).await }.into_actor(self).map(
            move |used, actor, _| {
                let used = used?;
                actor.cache_mut().free_messages = Some(FreeMessages { day: today, used });
                Ok(then(actor, used))
            },
        ))
    }

    fn learn_free_messages(&mut self, day: i64, used: u32) {
        self.cache_mut().free_messages = Some(FreeMessages { day, used });
    }

    /// Gives back what this idle actor caches; the next use reads it again, as a new actor
    /// would. The balance stays: its ledger sequence keeps an older notice from undoing a
    /// newer read. The queue of balance changes stays too: a change still in it must be
    /// applied before any later one, by the same task.
    fn cool(&mut self) {
        if !self.rereading {
            self.cache = None;
        }
    }
}

/// A balance change waiting its turn, and where its outcome goes.
struct QueuedChange {
    entry: LedgerEntry,
    answer: oneshot::Sender<Result<LedgerOutcome, StoreError>>,
}

/// Applies a user's balance changes in the order they were queued; once one is durable,
/// tells the user's actors on other nodes. Ends when the actor, and with it the queue, goes.
/// A change once queued is applied even if its asker stopped waiting: the ledger row and
/// the balance never part.
async fn apply_in_turn(store: Store, bus: EventBus, user_id: UserId, mut queue: mpsc::UnboundedReceiver<QueuedChange>) {
    while let Some(QueuedChange { entry, answer }) = queue.recv().await {
        let outcome = store.ledger.apply(entry).await;
        if let Ok(LedgerOutcome::Applied { balance, seq }) = outcome {
            bus.notify_elsewhere(&user_id, UserNotice::BalanceChanged { balance, seq }).await;
        }
        let _ = answer.send(outcome);
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// Today's number (days since the epoch, UTC): free messages renew with it.
pub fn utc_day() -> i64 {
    now() / 86_400
}

impl Actor for UserActor {
    type Context = Context<Self>;

    fn stopping(&mut self, _: &mut Self::Context) -> Running {
        // Dropping the senders ends every socket task of this user on this node.
        self.sockets.clear();
        self.node.passivated.do_send(Passivated::User { user_id: self.user_id.clone(), incarnation: self.incarnation });
        Running::Stop
    }
}

impl Handler<Connect> for UserActor {
    type Result = ResponseActFuture<Self, Result<Coins, UserError>>;

    fn handle(&mut self, message: Connect, _: &mut Self::Context) -> Self::Result {
        self.touch();
        if self.sockets.len() >= self.node.max_sockets {
            return Box::pin(actix::fut::ready(Err(UserError::TooManySockets)));
        }
        Box::pin(
            self.with_account(move |actor, account| {
                let account = account.ok_or(UserError::NoAccount)?;
                actor.sockets.push((message.socket_id, message.sender));
                Ok(account.coin)
            })
            .map(|result, actor, ctx| {
                actor.sockets_changed(ctx);
                result.and_then(|inner| inner)
            }),
        )
    }
}

impl Handler<Disconnect> for UserActor {
    type Result = ();

    fn handle(&mut self, message: Disconnect, ctx: &mut Self::Context) {
        self.sockets.retain(|(socket_id, _)| *socket_id != message.socket_id);
        self.sockets_changed(ctx);
        self.touch();
    }
}

impl Handler<Notify> for UserActor {
    type Result = ();

    fn handle(&mut self, Notify(message): Notify, ctx: &mut Self::Context) {
        match message {
            BusMessage::Event(frame) => self.send_to_sockets(&frame),
            BusMessage::Notice(UserNotice::BalanceChanged { balance, seq }) => {
                self.learn_balance(balance, seq);
            }
            BusMessage::Notice(UserNotice::CreditsUsed { day, used }) => self.learn_free_messages(day, used),
            BusMessage::Notice(UserNotice::AccountChanged) => {
                // Read it again (the balance too), then tell the sockets, whose clients
                // refetch user info on tokenCount (spec §4).
                if let Some(cache) = self.cache.as_mut() {
                    cache.account = None;
                    cache.personas = None;
                }
                self.account_changes += 1;
                self.rereading = false;
                self.reread(true, ctx);
            }
            BusMessage::Notice(UserNotice::SessionsEnded) => {
                // Each socket checks its own session and closes if it ended.
                self.send_to_sockets(&session_check_frame());
            }
        }
    }
}

/// The in-process signal that asks a socket to check its session. It never reaches a
/// client: the socket task recognises it and answers it itself.
pub fn session_check_frame() -> Frame {
    Frame(Arc::from(SESSION_CHECK))
}

const SESSION_CHECK: &str = "\u{0}session-check";

/// True for `session_check_frame()`.
pub fn is_session_check(frame: &Frame) -> bool {
    frame.as_str() == SESSION_CHECK
}

impl Handler<Debit> for UserActor {
    type Result = ResponseActFuture<Self, Result<LedgerOutcome, UserError>>;

    fn handle(&mut self, message: Debit, _: &mut Self::Context) -> Self::Result {
        self.change_balance(message.amount.negated(), message.reason, message.txn_id)
    }
}

impl Handler<Credit> for UserActor {
    type Result = ResponseActFuture<Self, Result<LedgerOutcome, UserError>>;

    fn handle(&mut self, message: Credit, _: &mut Self::Context) -> Self::Result {
        self.change_balance(message.amount, message.reason, message.txn_id)
    }
}

impl Handler<Balance> for UserActor {
    type Result = ResponseActFuture<Self, Result<Coins, UserError>>;

    fn handle(&mut self, _: Balance, _: &mut Self::Context) -> Self::Result {
        self.with_account(|_, account| account.map_or(Coins::ZERO, |a| a.coin))
    }
}

impl Handler<Account> for UserActor {
    type Result = ResponseActFuture<Self, Result<Option<User>, UserError>>;

    fn handle(&mut self, _: Account, _: &mut Self::Context) -> Self::Result {
        self.with_account(|_, account| account)
    }
}

impl Handler<UpdateAccount> for UserActor {
    type Result = ResponseActFuture<Self, Result<Option<User>, UserError>>;

    fn handle(&mut self, UpdateAccount(change): UpdateAccount, _: &mut Self::Context) -> Self::Result {
        self.touch();
        let (store, bus, user_id) = (self.node.store.clone(), self.node.bus.clone(), self.user_id.clone());
        let plan_changed = matches!(change, UserChange::VipType(_));
        Box::pin(
            async move {
                let updated = store.users.update(&user_id, change).await?;
                bus.notify_elsewhere(&user_id, UserNotice::AccountChanged).await;
                Ok::<_, UserError>(updated)
            }
            .into_actor(self)
            .map(move |updated, actor, _| {
                let updated = updated?;
                actor.cache_mut().account = updated;
                actor.account_changes += 1;
                let account = actor.current_account();
                if plan_changed && let Some(account) = &account {
                    // Clients refetch user info on tokenCount (spec §4), which shows the plan.
                    actor.send_to_sockets(&Frame::from(ServerEvent::TokenCount { coin: account.coin }));
                }
                Ok(account)
            }),
        )
    }
}

impl Handler<TakeFreeMessage> for UserActor {
    type Result = ResponseActFuture<Self, Result<bool, UserError>>;

    fn handle(&mut self, message: TakeFreeMessage, _: &mut Self::Context) -> Self::Result {
        self.touch();
        let (store, bus, user_id, day) =
            (self.node.store.clone(), self.node.bus.clone(), self.user_id.clone(), utc_day());
        // Taken in the store, which is atomic across nodes; the count is news for the others.
        Box::pin(
            async move {
                let taken = store.message_credits.take(&user_id, day, message.limit).await?;
                let used = match taken {
                    Some(used) => used,
                    None => store.message_credits.used(&user_id, day).await?,
                };
                bus.notify_elsewhere(&user_id, UserNotice::CreditsUsed { day, used }).await;
                Ok::<_, UserError>((taken.is_some(), used))
            }
            .into_actor(self)
            .map(move |result, actor, _| {
                let (taken, used) = result?;
                actor.learn_free_messages(day, used);
                Ok(taken)
            }),
        )
    }
}

impl Handler<GiveBackFreeMessage> for UserActor {
    type Result = ResponseActFuture<Self, Result<(), UserError>>;

    fn handle(&mut self, _: GiveBackFreeMessage, _: &mut Self::Context) -> Self::Result {
        self.touch();
        let (store, bus, user_id, day) =
            (self.node.store.clone(), self.node.bus.clone(), self.user_id.clone(), utc_day());
        Box::pin(
            async move {
                store.message_credits.give_back(&user_id, day).await?;
                let used = store.message_credits.used(&user_id, day).await?;
                bus.notify_elsewhere(&user_id, UserNotice::CreditsUsed { day, used }).await;
                Ok::<_, UserError>(used)
            }
            .into_actor(self)
            .map(move |used, actor, _| {
                actor.learn_free_messages(day, used?);
                Ok(())
            }),
        )
    }
}

impl Handler<FreeMessagesLeft> for UserActor {
    type Result = ResponseActFuture<Self, Result<u32, UserError>>;

    fn handle(&mut self, message: FreeMessagesLeft, _: &mut Self::Context) -> Self::Result {
        self.with_free_messages(move |_, used| message.limit.saturating_sub(used))
    }
}

impl Handler<SessionLive> for UserActor {
    type Result = ResponseFuture<Result<bool, UserError>>;

    fn handle(&mut self, message: SessionLive, _: &mut Self::Context) -> Self::Result {
        self.touch();
        let store = self.node.store.clone();
        let user_id = self.user_id.clone();
        Box::pin(async move {
            let session = store.sessions.find_live(&message.session_hash, now()).await?;
            Ok(session.is_some_and(|session| session.user_id == user_id))
        })
    }
}

impl Handler<Resync> for UserActor {
    type Result = ();

    /// The bus is back after news may have been lost: read account, balance and personas
    /// again (the free-message count too, on its next use) and tell the sockets.
    fn handle(&mut self, _: Resync, ctx: &mut Self::Context) {
        if let Some(cache) = self.cache.as_mut() {
            cache.personas = None;
            cache.free_messages = None;
        }
        if !self.has_account() {
            return;
        }
        self.account_changes += 1;
        self.rereading = false;
        self.reread(true, ctx);
    }
}

impl Handler<IdleCheck> for UserActor {
    type Result = ();

    fn handle(&mut self, _: IdleCheck, ctx: &mut Self::Context) {
        if !self.sockets.is_empty() {
            return;
        }
        let idle = self.last_active.elapsed();
        if idle >= self.node.idle_after {
            ctx.stop();
        } else if idle >= self.node.cool_after {
            self.cool();
        }
    }
}

impl Handler<Shed> for UserActor {
    type Result = ();

    fn handle(&mut self, Shed { unused_for }: Shed, _: &mut Self::Context) {
        if self.sockets.is_empty() && self.last_active.elapsed() >= unused_for {
            self.cool();
        }
    }
}

impl Handler<Stop> for UserActor {
    type Result = ();

    fn handle(&mut self, _: Stop, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

/// The user's personas (issue 18): the one for every character first, then by character.
#[derive(Message)]
#[rtype(result = "Result<Vec<StoredPersona>, UserError>")]
pub struct Personas;

/// Sets the persona for `character` (`None`: every character), or removes it
/// (`persona: None`; false when there was none); answers whether something changed and the
/// personas as they now are. The user's actors on other nodes read them again.
#[derive(Message)]
#[rtype(result = "Result<(bool, Vec<StoredPersona>), UserError>")]
pub struct ChangePersona {
    pub character: Option<CharacterId>,
    pub persona: Option<UserPersona>,
}

impl Handler<Personas> for UserActor {
    type Result = ResponseActFuture<Self, Result<Vec<StoredPersona>, UserError>>;

    fn handle(&mut self, _: Personas, _: &mut Self::Context) -> Self::Result {
        self.touch();
        if let Some(personas) = self.cache.as_ref().and_then(|cache| cache.personas.as_ref()) {
            return Box::pin(actix::fut::ready(Ok(personas.clone())));
        }
        let (store, user_id) = (self.node.store.clone(), self.user_id.clone());
        Box::pin(async move { store.personas.personas(&user_id).await }.into_actor(self).map(|read, actor, _| {
            let personas = read?;
            // A change applied while the read was under way is newer: keep it.
            Ok(actor.cache_mut().personas.get_or_insert(personas).clone())
        }))
    }
}

impl Handler<ChangePersona> for UserActor {
    type Result = ResponseActFuture<Self, Result<(bool, Vec<StoredPersona>), UserError>>;

    fn handle(&mut self, change: ChangePersona, _: &mut Self::Context) -> Self::Result {
        self.touch();
        let (store, bus, user_id) = (self.node.store.clone(), self.node.bus.clone(), self.user_id.clone());
        Box::pin(
            async move {
                let character = change.character.as_ref();
                let changed = match change.persona {
                    Some(persona) => {
                        store.personas.put_persona(&user_id, character, persona).await?;
                        true
                    }
                    None => store.personas.delete_persona(&user_id, character).await?,
                };
                let personas = store.personas.personas(&user_id).await?;
                if changed {
                    bus.notify_elsewhere(&user_id, UserNotice::AccountChanged).await;
                }
                Ok::<_, UserError>((changed, personas))
            }
            .into_actor(self)
            .map(|result, actor, _| {
                let (changed, personas) = result?;
                actor.cache_mut().personas = Some(personas.clone());
                Ok((changed, personas))
            }),
        )
    }
}
