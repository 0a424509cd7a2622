//! Amora's actors (ARCHITECTURE.md, "Actors: who owns what"): a `UserActor` per active
//! user holds the balance cache and the user's open sockets on this node; a
//! `CharacterActor` per active character holds the replies in flight; the `Registry`
//! spawns them on demand and passivates idle ones; the `EventBus` carries events to a
//! user's sockets on every node; the `ChatEngine` writes replies. Actors are caches in front of the store, never the only
//! copy of anything: every balance change is a ledger row before anyone is told.

pub mod bus;
pub mod character;
pub mod chat;
pub mod events;
pub mod registry;
pub mod user;

pub use amora_store as store;

use std::sync::Arc;
use std::time::Duration;

use actix::{Actor, Addr};
use amora_domain::account::UserId;
use amora_store::{LedgerOutcome, Store, StoreError};

use crate::bus::EventBus;
use crate::character::CharacterActor;
use crate::chat::{ChatEngine, ChatSettings};
use crate::registry::{AttachBus, AttachChat, CharacterAddr, Registry, RegistryLimits, UserAddr};
use crate::user::{Credit, Debit, UserActor};
use amora_domain::character::CharacterId;

#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error("actor unavailable: {0}")]
    Mailbox(#[from] actix::MailboxError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("chat is not started on this node")]
    NoChat,
    /// A credit or debit of nothing, of a negative amount, or above `Coins::MAX_CHANGE`.
    #[error("a credit or debit moves 1 to {max} coins, not {0}", max = amora_domain::money::Coins::MAX_CHANGE)]
    AmountOutOfRange(i64),
}

/// This node's actors and bus, handed to the server.
#[derive(Clone)]
pub struct Node {
    pub registry: Addr<Registry>,
    pub bus: EventBus,
    pub chat: Arc<ChatEngine>,
}

impl Node {
    /// Starts the registry, the bus (Redis when `redis_url` is given) and the chat engine.
    /// Call inside an actix system.
    pub async fn start(
        store: Store,
        limits: RegistryLimits,
        redis_url: Option<&str>,
        chat: ChatSettings,
    ) -> Result<Self, redis::RedisError> {
        let registry = Registry::new(store.clone(), limits).start();
        let bus = match redis_url {
            Some(url) => EventBus::with_redis(registry.clone().recipient(), url)?,
            None => EventBus::local(registry.clone().recipient()),
        };
        let chat = Arc::new(ChatEngine::new(store, bus.clone(), chat));
        // Processed before any UserAddr or CharacterAddr sent after them.
        let _ = registry.send(AttachBus(bus.clone())).await;
        let _ = registry.send(AttachChat(chat.clone())).await;
        if chat.settings().preload {
            let preload = chat.clone();
            actix::spawn(async move {
                let _ = preload.model().await;
            });
        }
        Ok(Self { registry, bus, chat })
    }

    pub async fn character(&self, character_id: &CharacterId) -> Result<Addr<CharacterActor>, NodeError> {
        self.registry.send(CharacterAddr(character_id.clone())).await?.ok_or(NodeError::NoChat)
    }

    pub async fn user(&self, user_id: &UserId) -> Result<Addr<UserActor>, NodeError> {
        Ok(self.registry.send(UserAddr(user_id.clone())).await?)
    }

    pub async fn credit(
        &self,
        user_id: &UserId,
        amount: i64,
        reason: &str,
        txn_id: &str,
    ) -> Result<LedgerOutcome, NodeError> {
        if !amora_domain::money::Coins::is_valid_change(amount) {
            return Err(NodeError::AmountOutOfRange(amount));
        }
        let actor = self.user(user_id).await?;
        Ok(actor.send(Credit { amount, reason: reason.to_owned(), txn_id: txn_id.to_owned() }).await??)
    }

    pub async fn debit(
        &self,
        user_id: &UserId,
        amount: i64,
        reason: &str,
        txn_id: &str,
    ) -> Result<LedgerOutcome, NodeError> {
        if !amora_domain::money::Coins::is_valid_change(amount) {
            return Err(NodeError::AmountOutOfRange(amount));
        }
        let actor = self.user(user_id).await?;
        Ok(actor.send(Debit { amount, reason: reason.to_owned(), txn_id: txn_id.to_owned() }).await??)
    }
}

/// Defaults that suit one node of modest size.
pub const DEFAULT_IDLE_AFTER: Duration = Duration::from_secs(300);

#[cfg(test)]
mod tests {
    use amora_domain::account::UserNo;
    use amora_store::NewUser;
    use amora_store::embedded::EmbeddedStore;

    use super::*;
    use crate::registry::ActorCount;

    async fn node(limits: RegistryLimits) -> (tempfile::TempDir, Store, Node) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = EmbeddedStore::open(dir.path()).unwrap_or_else(|e| panic!("{e}")).into_store();
        let chat = ChatSettings { preload: false, ..ChatSettings::default() };
        let node = Node::start(store.clone(), limits, None, chat).await.unwrap_or_else(|e| panic!("{e}"));
        (dir, store, node)
    }

    async fn user(store: &Store, n: u32) -> UserId {
        let id = UserId::parse(&format!("user{n}")).unwrap_or_else(|e| panic!("{e}"));
        let new_user = NewUser {
            user_id: id.clone(),
            user_no: UserNo::from_random(n),
            user_name: format!("user {n}"),
            email: None,
            discord_email: None,
            google_subject: None,
            discord_id: None,
            utm_source: String::new(),
            language: "en".into(),
            created_at: 0,
        };
        store.users.create(new_user).await.unwrap_or_else(|e| panic!("{e}"));
        id
    }

    async fn count(node: &Node) -> usize {
        node.registry.send(ActorCount).await.unwrap_or(usize::MAX)
    }

    #[actix_rt::test]
    async fn idle_actors_stop_and_come_back_on_demand_with_nothing_lost() {
        let limits = RegistryLimits { max_users: 100, idle_after: Duration::from_millis(100), max_sockets_per_user: 4 };
        let (_dir, store, node) = node(limits).await;
        let id = user(&store, 1).await;
        assert!(matches!(node.credit(&id, 40, "test", "t1").await, Ok(LedgerOutcome::Applied { balance: 40 })));
        assert_eq!(count(&node).await, 1);
        actix_rt::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(count(&node).await, 0, "the idle actor passivated");
        assert!(matches!(node.debit(&id, 15, "test", "t2").await, Ok(LedgerOutcome::Applied { balance: 25 })));
        assert!(matches!(node.debit(&id, 30, "test", "t3").await, Ok(LedgerOutcome::Insufficient { balance: 25 })));
    }

    #[actix_rt::test]
    async fn the_registry_holds_at_most_max_users_actors() {
        let limits = RegistryLimits { max_users: 3, idle_after: DEFAULT_IDLE_AFTER, max_sockets_per_user: 4 };
        let (_dir, store, node) = node(limits).await;
        for n in 0..10 {
            let id = user(&store, n).await;
            let _ = node.user(&id).await;
            assert!(count(&node).await <= 3);
        }
    }
}
