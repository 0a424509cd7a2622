//! The per-node `Registry`: bounded populations of `UserActor`s, `CharacterActor`s and
//! `GroupActor`s,
//! spawned on demand across a few arbiters (threads), the least recently used stopped when
//! a population is full, and forgotten when they passivate. It also drains this node's
//! bus inbox, handing each delivery to the actor it concerns (a user without an actor here
//! has no sockets here, so nothing is lost by dropping theirs; the node's sessions of a
//! user whose sessions ended are forgotten either way). When the bus returns after
//! being down it passes every actor here a `Resync`: news may have been missed meanwhile.
//! Passivation loses nothing: actors hold only caches of what the store already has.
//!
//! Under a memory budget (`RegistryLimits::memory_budget`), the registry reads the
//! process's resident memory four times a second; while it is over, it asks every actor
//! to give back what was not used for a while (`Shed`), the while halving at each reading
//! that is still over (`SHED_FIRST`): the least recently used conversations and cached
//! accounts go first, nothing at work goes (a reply being written, a user with a socket),
//! and all of it is in the store.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_store::Store;

use crate::bus::{BusMessage, Delivery, EventBus, Inbox, Resync, UserNotice};
use crate::character::{CharacterActor, CharacterAddr, CharacterNews};
use crate::chat::ChatEngine;
use crate::conversations::groups::{GroupActor, GroupActorParts, GroupAddr, GroupKey};
use crate::sessions::SessionCache;
use crate::supervision::{IdleCheck, Passivated, Shed, Stop};
use crate::user::{Notify, UserActor, UserActorNode, UserAddr};

/// How often, at most, the registry asks every user's actor whether it is idle.
const IDLE_CHECK: Duration = Duration::from_secs(10);
/// How often the registry reads the process's memory when it has a budget.
const MEMORY_CHECK: Duration = Duration::from_millis(250);
/// Over budget, what was unused for this long goes first; then half as long at each
/// reading still over (300 s, 150, 75… 0.3 s after ten), an eighth as long while more than
/// a tenth over (0.6 s after four readings, one second): a node filling fast is brought
/// back sooner. (Checked once a second and shortened by four, a server filling at
/// ~25 MB/s peaked at 1.8 times its budget; BENCHMARKS.md.)
const SHED_FIRST: Duration = Duration::from_secs(300);

/// Limits of the actor populations of one node.
#[derive(Debug, Clone, Copy)]
pub struct RegistryLimits {
    /// At most this many user actors; past it the least recently used is stopped.
    pub max_users: usize,
    /// At most this many character actors (the catalogue is bounded, created characters
    /// are not).
    pub max_characters: usize,
    /// An actor with nothing to do stops after this long without activity.
    pub idle_after: Duration,
    /// A user's actor with no sockets gives back what it caches after this long without
    /// activity (`UserActorNode::cool_after`).
    pub cool_after: Duration,
    pub max_sockets_per_user: usize,
    /// The process's resident memory, in bytes, past which actors give back what they
    /// hold (`Shed`); `None`: no budget.
    pub memory_budget: Option<u64>,
}

/// How many actors of each kind run on this node: `(users, characters)`.
#[derive(Message)]
#[rtype(result = "(usize, usize)")]
pub struct ActorCount;

struct Entry<A: Actor> {
    addr: Addr<A>,
    incarnation: u64,
    last_used: Instant,
}

/// One kind of actor on this node: at most `max`, keyed by id.
struct Population<K, A: Actor> {
    entries: HashMap<K, Entry<A>>,
    max: usize,
}

impl<K, A> Population<K, A>
where
    K: Eq + Hash + Clone + std::fmt::Display,
    A: Actor<Context = Context<A>> + Handler<Stop>,
{
    fn new(max: usize) -> Self {
        Self { entries: HashMap::new(), max: max.max(1) }
    }

    /// The running actor of `key`, marked as used now.
    fn get(&mut self, key: &K) -> Option<Addr<A>> {
        let entry = self.entries.get_mut(key).filter(|entry| entry.addr.connected())?;
        entry.last_used = Instant::now();
        Some(entry.addr.clone())
    }

    /// Makes room for one more, stopping the least recently used actor when full.
    fn make_room(&mut self) {
        if self.entries.len() < self.max {
            return;
        }
        let oldest = self.entries.iter().min_by_key(|(_, entry)| entry.last_used).map(|(key, _)| key.clone());
        if let Some(key) = oldest
            && let Some(entry) = self.entries.remove(&key)
        {
            tracing::debug!(%key, "registry full: stopping the least recently used actor");
            entry.addr.do_send(Stop);
        }
    }

    fn insert(&mut self, key: K, addr: Addr<A>, incarnation: u64) {
        self.entries.insert(key, Entry { addr, incarnation, last_used: Instant::now() });
    }

    /// Forgets the incarnation that stopped, never a newer one.
    fn forget(&mut self, key: &K, incarnation: u64) {
        if self.entries.get(key).is_some_and(|entry| entry.incarnation == incarnation) {
            self.entries.remove(key);
        }
    }

    fn peek(&self, key: &K) -> Option<&Addr<A>> {
        self.entries.get(key).map(|entry| &entry.addr)
    }
}

pub struct Registry {
    chat: Arc<ChatEngine>,
    limits: RegistryLimits,
    users: Population<UserId, UserActor>,
    characters: Population<CharacterId, CharacterActor>,
    groups: Population<GroupKey, GroupActor>,
    arbiters: Vec<Arbiter>,
    next_incarnation: u64,
    /// The node's sessions, forgotten here when a notice says they ended.
    sessions: Arc<SessionCache>,
    /// What every user actor here shares.
    user_node: Arc<UserActorNode>,
    /// While over the memory budget: how long unused what was last shed had been.
    shedding: Option<Duration>,
}

impl Registry {
    /// Starts the registry draining `inbox`, the receiving end of `bus`.
    pub fn start(
        store: Store,
        bus: EventBus,
        inbox: Inbox,
        chat: Arc<ChatEngine>,
        limits: RegistryLimits,
        sessions: Arc<SessionCache>,
    ) -> Addr<Self> {
        Registry::create(move |ctx| {
            let Inbox(receiver) = inbox;
            let deliveries = futures_util::stream::unfold(receiver, |mut receiver| async move {
                receiver.recv().await.map(|delivery| (delivery, receiver))
            });
            ctx.add_stream(deliveries);
            // One sweep asks every user's actor whether it is idle, instead of a timer in each,
            // and gives back the sessions that can no longer answer.
            let every = IDLE_CHECK.min(limits.idle_after / 2).min(limits.cool_after).max(Duration::from_millis(10));
            ctx.run_interval(every, |registry, _| {
                for entry in registry.users.entries.values() {
                    entry.addr.do_send(IdleCheck);
                }
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |since| since.as_secs() as i64);
                registry.sessions.forget_stale(now);
            });
            if limits.memory_budget.is_some() {
                ctx.run_interval(MEMORY_CHECK, |registry, _| registry.keep_to_budget());
            }
            let user_node = Arc::new(UserActorNode {
                store,
                bus,
                passivated: ctx.address().recipient(),
                max_sockets: limits.max_sockets_per_user,
                idle_after: limits.idle_after,
                cool_after: limits.cool_after,
            });
            // One arbiter per core keeps actors off the HTTP workers' threads.
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            Registry {
                chat,
                limits,
                users: Population::new(limits.max_users),
                characters: Population::new(limits.max_characters),
                // A group's actor lives while its user chats: as many as the users.
                groups: Population::new(limits.max_users),
                arbiters: (0..threads).map(|_| Arbiter::new()).collect(),
                next_incarnation: 0,
                sessions,
                user_node,
                shedding: None,
            }
        })
    }

    /// Over the memory budget, asks every actor to give back what was unused for a while,
    /// shorter at each reading (`SHED_FIRST`); under it, starts again from `SHED_FIRST`.
    fn keep_to_budget(&mut self) {
        let (Some(budget), Some(resident)) = (self.limits.memory_budget, resident_bytes()) else { return };
        if resident <= budget {
            if self.shedding.take().is_some() {
                tracing::info!(resident, budget, "back under the memory budget");
            }
            return;
        }
        let far_over = resident > budget + budget / 10;
        let unused_for = self.shedding.map_or(SHED_FIRST, |before| before / if far_over { 8 } else { 2 });
        if self.shedding.is_none() {
            tracing::info!(resident, budget, "over the memory budget: shedding what is least recently used");
        }
        self.shedding = Some(unused_for);
        let shed = Shed { unused_for };
        for entry in self.characters.entries.values() {
            entry.addr.do_send(shed);
        }
        for entry in self.users.entries.values() {
            entry.addr.do_send(shed);
        }
    }

    /// The arbiter for the next actor, and its incarnation number.
    fn next_home(&mut self) -> (ArbiterHandle, u64) {
        self.next_incarnation += 1;
        let incarnation = self.next_incarnation;
        (self.arbiters[(incarnation as usize) % self.arbiters.len()].handle(), incarnation)
    }
}

impl Actor for Registry {
    type Context = Context<Self>;

    fn stopped(&mut self, _: &mut Self::Context) {
        for arbiter in &self.arbiters {
            arbiter.stop();
        }
    }
}

impl Handler<UserAddr> for Registry {
    type Result = MessageResult<UserAddr>;

    fn handle(&mut self, UserAddr(user_id): UserAddr, _: &mut Self::Context) -> Self::Result {
        if let Some(addr) = self.users.get(&user_id) {
            return MessageResult(addr);
        }
        self.users.make_room();
        let (home, incarnation) = self.next_home();
        let (node, id) = (self.user_node.clone(), user_id.clone());
        let addr = UserActor::start_in_arbiter(&home, move |_| UserActor::new(id, node, incarnation));
        self.users.insert(user_id, addr.clone(), incarnation);
        MessageResult(addr)
    }
}

impl Handler<CharacterAddr> for Registry {
    type Result = MessageResult<CharacterAddr>;

    fn handle(&mut self, CharacterAddr(character_id): CharacterAddr, ctx: &mut Self::Context) -> Self::Result {
        if let Some(addr) = self.characters.get(&character_id) {
            return MessageResult(addr);
        }
        self.characters.make_room();
        let (home, incarnation) = self.next_home();
        let (chat, users, passivated, idle_after, id) = (
            self.chat.clone(),
            ctx.address().recipient(),
            ctx.address().recipient(),
            self.limits.idle_after,
            character_id.clone(),
        );
        let addr = CharacterActor::start_in_arbiter(&home, move |_| {
            CharacterActor::new(id, chat, users, passivated, incarnation, idle_after)
        });
        self.characters.insert(character_id, addr.clone(), incarnation);
        MessageResult(addr)
    }
}

impl Handler<GroupAddr> for Registry {
    type Result = MessageResult<GroupAddr>;

    fn handle(&mut self, GroupAddr(key): GroupAddr, ctx: &mut Self::Context) -> Self::Result {
        if let Some(addr) = self.groups.get(&key) {
            return MessageResult(addr);
        }
        self.groups.make_room();
        let (home, incarnation) = self.next_home();
        let parts = GroupActorParts {
            engine: self.chat.clone(),
            users: ctx.address().recipient(),
            characters: ctx.address().recipient(),
            passivated: ctx.address().recipient(),
            incarnation,
            idle_after: self.limits.idle_after,
        };
        let id = key.clone();
        let addr = GroupActor::start_in_arbiter(&home, move |_| GroupActor::new(id, parts));
        self.groups.insert(key, addr.clone(), incarnation);
        MessageResult(addr)
    }
}

impl Handler<Passivated> for Registry {
    type Result = ();

    fn handle(&mut self, message: Passivated, _: &mut Self::Context) {
        match message {
            Passivated::User { user_id, incarnation } => self.users.forget(&user_id, incarnation),
            Passivated::Character { character_id, incarnation } => {
                self.characters.forget(&character_id, incarnation);
            }
            Passivated::Group { owner, group_id, incarnation } => {
                self.groups.forget(&GroupKey { owner, group_id }, incarnation)
            }
        }
    }
}

impl StreamHandler<Delivery> for Registry {
    fn handle(&mut self, delivery: Delivery, _: &mut Self::Context) {
        match delivery {
            Delivery::ToUser { user_id, message } => {
                // Whether or not the user has an actor here, a request may sign in with
                // one of their sessions.
                if matches!(message, BusMessage::Notice(UserNotice::SessionsEnded | UserNotice::AccountChanged)) {
                    self.sessions.forget_user(&user_id);
                }
                if let Some(addr) = self.users.peek(&user_id) {
                    addr.do_send(Notify(message));
                }
            }
            Delivery::ToCharacter { character_id, notice } => {
                if let Some(addr) = self.characters.peek(&character_id) {
                    addr.do_send(CharacterNews(notice));
                }
            }
            Delivery::Resync => {
                self.sessions.clear();
                tracing::info!(
                    users = self.users.entries.len(),
                    characters = self.characters.entries.len(),
                    "event bus back: every actor reads what it holds again"
                );
                for entry in self.users.entries.values() {
                    entry.addr.do_send(Resync);
                }
                for entry in self.characters.entries.values() {
                    entry.addr.do_send(Resync);
                }
            }
        }
    }

    /// The bus lives as long as the node; its inbox ends only when the node does.
    fn finished(&mut self, _: &mut Self::Context) {}
}

impl Handler<ActorCount> for Registry {
    type Result = MessageResult<ActorCount>;

    fn handle(&mut self, _: ActorCount, _: &mut Self::Context) -> Self::Result {
        MessageResult((self.users.entries.len(), self.characters.entries.len()))
    }
}

/// The process's resident memory in bytes (Linux); `None` where it cannot be read.
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = status.lines().find_map(|line| line.strip_prefix("VmRSS:"))?.split_whitespace().next()?;
    kib.parse::<u64>().ok().map(|kib| kib * 1024)
}
