//! The per-node `Registry`: bounded maps user id → `UserActor` and character id →
//! `CharacterActor`, spawning actors on demand across a few arbiters (threads) and
//! forgetting them when they passivate.
//! Passivation loses nothing: actors hold only caches of what the store already has.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use actix::prelude::*;
use std::sync::Arc;

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_store::Store;

use crate::bus::EventBus;
use crate::character::CharacterActor;
use crate::chat::ChatEngine;
use crate::events::Frame;
use crate::user::{Deliver, UserActor};

/// Limits of the actor population of one node.
#[derive(Debug, Clone, Copy)]
pub struct RegistryLimits {
    /// At most this many user actors; past it the least recently used is stopped.
    pub max_users: usize,
    /// An actor with no sockets stops after this long without activity.
    pub idle_after: Duration,
    pub max_sockets_per_user: usize,
}

/// The actor of a user, spawned if this node has none.
#[derive(Message)]
#[rtype(result = "Addr<UserActor>")]
pub struct UserAddr(pub UserId);

/// An event from the bus for a user: delivered only if this node has the user's actor,
/// since a user without an actor here has no sockets here.
#[derive(Message)]
#[rtype(result = "()")]
pub struct DeliverToUser {
    pub user_id: UserId,
    pub frame: Frame,
}

/// Sent by a stopping actor.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Unregister {
    pub user_id: UserId,
    pub incarnation: u64,
}

/// The actor of a character, spawned if this node has none. `None` until the chat engine is attached.
#[derive(Message)]
#[rtype(result = "Option<Addr<CharacterActor>>")]
pub struct CharacterAddr(pub CharacterId);

/// Sent by a stopping character actor.
#[derive(Message)]
#[rtype(result = "()")]
pub struct UnregisterCharacter {
    pub character_id: CharacterId,
    pub incarnation: u64,
}

/// Hands the registry the chat engine once it exists (it needs the bus).
#[derive(Message)]
#[rtype(result = "()")]
pub struct AttachChat(pub Arc<ChatEngine>);

/// How many user actors run on this node.
#[derive(Message)]
#[rtype(result = "usize")]
pub struct ActorCount;

struct Entry {
    addr: Addr<UserActor>,
    incarnation: u64,
    last_used: Instant,
}

struct CharacterEntry {
    addr: Addr<CharacterActor>,
    incarnation: u64,
    last_used: Instant,
}

pub struct Registry {
    store: Store,
    bus: Option<EventBus>,
    chat: Option<Arc<ChatEngine>>,
    limits: RegistryLimits,
    users: HashMap<UserId, Entry>,
    characters: HashMap<CharacterId, CharacterEntry>,
    arbiters: Vec<Arbiter>,
    next_incarnation: u64,
}

impl Registry {
    pub fn new(store: Store, limits: RegistryLimits) -> Self {
        // One arbiter per core keeps actors off the HTTP workers' threads.
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self {
            store,
            bus: None,
            chat: None,
            limits,
            users: HashMap::new(),
            characters: HashMap::new(),
            arbiters: (0..threads).map(|_| Arbiter::new()).collect(),
            next_incarnation: 0,
        }
    }

    pub fn set_bus(&mut self, bus: EventBus) {
        self.bus = Some(bus);
    }

    fn evict_least_recently_used(&mut self) {
        let oldest = self.users.iter().min_by_key(|(_, entry)| entry.last_used).map(|(id, _)| id.clone());
        if let Some(id) = oldest
            && let Some(entry) = self.users.remove(&id)
        {
            tracing::debug!(user = %id, "registry full: stopping the least recently used actor");
            entry.addr.do_send(StopNow);
        }
    }
}

/// Asks an actor to stop at once (eviction).
#[derive(Message)]
#[rtype(result = "()")]
pub struct StopNow;

impl Handler<StopNow> for UserActor {
    type Result = ();

    fn handle(&mut self, _: StopNow, ctx: &mut Self::Context) {
        ctx.stop();
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

    fn handle(&mut self, UserAddr(user_id): UserAddr, ctx: &mut Self::Context) -> Self::Result {
        if let Some(entry) = self.users.get_mut(&user_id)
            && entry.addr.connected()
        {
            entry.last_used = Instant::now();
            return MessageResult(entry.addr.clone());
        }
        if self.users.len() >= self.limits.max_users {
            self.evict_least_recently_used();
        }
        self.next_incarnation += 1;
        let incarnation = self.next_incarnation;
        let arbiter = &self.arbiters[(incarnation as usize) % self.arbiters.len()];
        let bus = self.bus.clone().unwrap_or_else(EventBus::disconnected);
        let (store, registry, limits, id) = (self.store.clone(), ctx.address(), self.limits, user_id.clone());
        let addr = UserActor::start_in_arbiter(&arbiter.handle(), move |_| {
            UserActor::new(id, store, bus, registry, incarnation, limits.max_sockets_per_user, limits.idle_after)
        });
        self.users.insert(user_id, Entry { addr: addr.clone(), incarnation, last_used: Instant::now() });
        MessageResult(addr)
    }
}

impl Handler<CharacterAddr> for Registry {
    type Result = MessageResult<CharacterAddr>;

    fn handle(&mut self, CharacterAddr(character_id): CharacterAddr, ctx: &mut Self::Context) -> Self::Result {
        let Some(engine) = self.chat.clone() else {
            return MessageResult(None);
        };
        if let Some(entry) = self.characters.get_mut(&character_id)
            && entry.addr.connected()
        {
            entry.last_used = Instant::now();
            return MessageResult(Some(entry.addr.clone()));
        }
        // The catalogue is bounded, but created characters are not: the same cap as users.
        if self.characters.len() >= self.limits.max_users {
            let oldest = self.characters.iter().min_by_key(|(_, e)| e.last_used).map(|(id, _)| id.clone());
            if let Some(entry) = oldest.and_then(|id| self.characters.remove(&id)) {
                entry.addr.do_send(StopCharacter);
            }
        }
        self.next_incarnation += 1;
        let incarnation = self.next_incarnation;
        let arbiter = &self.arbiters[(incarnation as usize) % self.arbiters.len()];
        let (registry, idle_after, id) = (ctx.address(), self.limits.idle_after, character_id.clone());
        let addr = CharacterActor::start_in_arbiter(&arbiter.handle(), move |_| {
            CharacterActor::new(id, engine, registry, incarnation, idle_after)
        });
        self.characters
            .insert(character_id, CharacterEntry { addr: addr.clone(), incarnation, last_used: Instant::now() });
        MessageResult(Some(addr))
    }
}

/// Asks a character actor to stop (eviction); a reply in flight finishes on its own task.
#[derive(Message)]
#[rtype(result = "()")]
pub struct StopCharacter;

impl Handler<StopCharacter> for CharacterActor {
    type Result = ();

    fn handle(&mut self, _: StopCharacter, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

impl Handler<UnregisterCharacter> for Registry {
    type Result = ();

    fn handle(&mut self, message: UnregisterCharacter, _: &mut Self::Context) {
        if self.characters.get(&message.character_id).is_some_and(|e| e.incarnation == message.incarnation) {
            self.characters.remove(&message.character_id);
        }
    }
}

impl Handler<AttachChat> for Registry {
    type Result = ();

    fn handle(&mut self, AttachChat(engine): AttachChat, _: &mut Self::Context) {
        self.chat = Some(engine);
    }
}

impl Handler<DeliverToUser> for Registry {
    type Result = ();

    fn handle(&mut self, message: DeliverToUser, _: &mut Self::Context) {
        if let Some(entry) = self.users.get(&message.user_id) {
            entry.addr.do_send(Deliver(message.frame));
        }
    }
}

impl Handler<Unregister> for Registry {
    type Result = ();

    fn handle(&mut self, message: Unregister, _: &mut Self::Context) {
        // Only forget the incarnation that stopped, never a newer one.
        if self.users.get(&message.user_id).is_some_and(|entry| entry.incarnation == message.incarnation) {
            self.users.remove(&message.user_id);
        }
    }
}

impl Handler<ActorCount> for Registry {
    type Result = usize;

    fn handle(&mut self, _: ActorCount, _: &mut Self::Context) -> usize {
        self.users.len()
    }
}

/// Hands the registry its bus once both exist.
#[derive(Message)]
#[rtype(result = "()")]
pub struct AttachBus(pub EventBus);

impl Handler<AttachBus> for Registry {
    type Result = ();

    fn handle(&mut self, AttachBus(bus): AttachBus, _: &mut Self::Context) {
        self.set_bus(bus);
    }
}
