//! Amora's actors (ARCHITECTURE.md, "Actors: who owns what"): a `UserActor` per active
//! user holds the user's live state on this node (account, balance, free messages,
//! sockets); a `CharacterActor` per active character holds the conversations in play and
//! applies every chat rule; the `Registry` spawns them on demand and passivates idle ones;
//! the `EventBus` carries events to a user's sockets, and notices between actors, on every
//! node. `Conversations` is the door the transports use for chat; `Node` for the rest.
//! Actors are caches in front of the store, never the only copy of anything: every balance
//! change is a ledger row before anyone is told.

pub mod bus;
pub mod calls;
pub mod character;
pub mod chat;
pub mod conversations;
/// Group chats: the door and each group's actor, beside one-to-one chat's door.
pub use conversations::groups;
pub mod images;
pub mod moderation;
pub mod payments;
pub mod pending;
pub mod registry;
pub mod seeding;
pub mod sessions;
pub mod supervision;
pub mod user;
pub mod voice;
pub mod wire;
pub mod wire_types;

pub use amora_ai as ai;
pub use amora_store as store;

use std::sync::Arc;
use std::time::Duration;

use actix::Addr;
use amora_domain::account::{User, UserId};
use amora_domain::character::CharacterId;
use amora_domain::money::{Coins, TxnId};
use amora_store::{LedgerOutcome, Store, UserChange};

use crate::bus::{CharacterNotice, EventBus, Inbox, UserNotice};
use crate::chat::{ChatEngine, ChatSettings};
use crate::conversations::groups::{GroupAction, Groups};
use crate::conversations::{Conversations, ViewerRules};
use crate::images::{ImageJobSettings, ImageJobs};
use crate::moderation::{ModerationParts, Moderator};
use crate::payments::{Billing, Catalogue};
use crate::registry::{Registry, RegistryLimits};
use crate::sessions::SessionCache;
use crate::user::{Account, Credit, Debit, SessionLive, UpdateAccount, UserActor, UserAddr, UserError};

#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error("actor unavailable: {0}")]
    Mailbox(#[from] actix::MailboxError),
    #[error(transparent)]
    User(#[from] UserError),
}

/// What a client is told when the store or the bus is briefly away (docs/api.md "Try again").
pub const TRY_AGAIN: &str = "The service is briefly unavailable. Please try again in a moment.";

impl NodeError {
    /// Whether trying again later may succeed: the store was briefly away, or the actor
    /// did not answer in time (it waits on the store).
    pub fn is_temporary(&self) -> bool {
        match self {
            NodeError::User(error) => error.is_temporary(),
            NodeError::Mailbox(actix::MailboxError::Timeout) => true,
            NodeError::Mailbox(actix::MailboxError::Closed) => false,
        }
    }
}

/// What a node is started with.
pub struct NodeSettings {
    pub limits: RegistryLimits,
    pub chat: ChatSettings,
    pub viewer_rules: ViewerRules,
    /// Everything that can be bought, with its price.
    pub catalogue: Catalogue,
    pub images: ImageParts,
    /// Moderation's second layer, if any (the rules always run).
    pub moderation: ModerationParts,
}

/// What image jobs run with: the model, the job limits and the price of one image.
pub struct ImageParts {
    pub model: Arc<dyn amora_ai::image::ImageModel>,
    pub settings: ImageJobSettings,
    /// `defaultEnergy.genPictureCoin`.
    pub cost_per_image: Coins,
}

/// This node's actors and bus, handed to the server.
#[derive(Clone)]
pub struct Node {
    pub registry: Addr<Registry>,
    pub bus: EventBus,
    pub chat: Arc<ChatEngine>,
    pub conversations: Conversations,
    /// Group chats' settings and members (issue 31).
    pub groups: Groups,
    pub billing: Billing,
    pub images: ImageJobs,
    /// The moderation service every path of this node asks (the chat engine's).
    pub moderator: Moderator,
    /// Sessions this node has seen live (`sessions`): forgotten when they end, on any node.
    pub sessions: Arc<SessionCache>,
}

impl Node {
    /// Starts the bus (Redis when `redis_url` is given), the chat engine and the registry,
    /// in that order: each is built from the ones before it. Call inside an actix system.
    pub async fn start(
        store: Store,
        settings: NodeSettings,
        redis_url: Option<&str>,
    ) -> Result<Self, redis::RedisError> {
        let (bus, inbox) = match redis_url {
            Some(url) => EventBus::with_redis(url)?,
            None => EventBus::local(),
        };
        // Built once per node, before everything that checks texts; the log is the store's.
        let moderator = Moderator::new(
            settings.moderation.classifier,
            Some(store.moderation_log.clone()),
            settings.moderation.on_classifier_error,
        );
        let chat = Arc::new(ChatEngine::new(store.clone(), bus.clone(), settings.chat, moderator));
        Ok(Self::assemble(
            store,
            bus,
            inbox,
            chat,
            settings.limits,
            settings.viewer_rules,
            settings.catalogue,
            settings.images,
        ))
    }

    /// A node around a chat engine made by the caller (tests share one model between nodes).
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        store: Store,
        bus: EventBus,
        inbox: Inbox,
        chat: Arc<ChatEngine>,
        limits: RegistryLimits,
        viewer_rules: ViewerRules,
        catalogue: Catalogue,
        images: ImageParts,
    ) -> Self {
        let moderator = chat.moderator().clone();
        let sessions = Arc::new(SessionCache::default());
        let registry = Registry::start(store.clone(), bus.clone(), inbox, chat.clone(), limits, sessions.clone());
        let conversations = Conversations::new(registry.clone(), chat.clone(), viewer_rules);
        let groups = Groups::new(conversations.clone(), chat.clone());
        let images = ImageJobs::new(
            store.clone(),
            bus.clone(),
            registry.clone(),
            conversations.clone(),
            images.model,
            images.settings,
            images.cost_per_image,
        );
        let billing = Billing::new(store, bus.clone(), registry.clone(), catalogue);
        if chat.settings().preload {
            let preload = chat.clone();
            actix::spawn(async move {
                let _ = preload.model().await;
            });
        }
        Self { registry, bus, chat, conversations, groups, billing, images, moderator, sessions }
    }

    /// Runs one socket action of `user_id` at its door (a group's, or one-to-one chat's);
    /// answers the event that replies to it directly, if any.
    pub async fn run_action(
        &self,
        user_id: &UserId,
        action: wire::actions::ClientAction,
    ) -> Option<wire::events::ServerEvent> {
        match GroupAction::from_client(action) {
            Ok((group_id, action)) => self.groups.run_action(user_id, group_id, action).await,
            Err(action) => self.conversations.run_action(user_id, action).await,
        }
    }

    pub async fn user(&self, user_id: &UserId) -> Result<Addr<UserActor>, NodeError> {
        Ok(self.registry.send(UserAddr(user_id.clone())).await?)
    }

    /// Gives coins through the user's actor (a ledger row keyed by `txn_id`).
    pub async fn credit(
        &self,
        user_id: &UserId,
        amount: Coins,
        reason: &str,
        txn_id: TxnId,
    ) -> Result<LedgerOutcome, NodeError> {
        let credit = Credit { amount, reason: reason.to_owned(), txn_id };
        Ok(self.user(user_id).await?.send(credit).await??)
    }

    /// Takes coins through the user's actor; `Insufficient` when the balance is short.
    pub async fn debit(
        &self,
        user_id: &UserId,
        amount: Coins,
        reason: &str,
        txn_id: TxnId,
    ) -> Result<LedgerOutcome, NodeError> {
        let debit = Debit { amount, reason: reason.to_owned(), txn_id };
        Ok(self.user(user_id).await?.send(debit).await??)
    }

    /// The account as the user's actor holds it (balance included); `None` when deleted.
    pub async fn account(&self, user_id: &UserId) -> Result<Option<User>, NodeError> {
        Ok(self.user(user_id).await?.send(Account).await??)
    }

    /// Changes the account through the user's actor, which tells the user's actors on
    /// other nodes; answers the account as it now is.
    pub async fn update_account(&self, user_id: &UserId, change: UserChange) -> Result<Option<User>, NodeError> {
        Ok(self.user(user_id).await?.send(UpdateAccount(change)).await??)
    }

    /// Whether a session of the user is live (checked in the store every time).
    pub async fn session_live(&self, user_id: &UserId, session_hash: &str) -> Result<bool, NodeError> {
        Ok(self.user(user_id).await?.send(SessionLive { session_hash: session_hash.to_owned() }).await??)
    }

    /// Sessions of the user ended: this node forgets them at once, every other node when
    /// the notice arrives, and every socket of theirs on every node checks its own.
    pub async fn sessions_ended(&self, user_id: &UserId) {
        self.sessions.forget_user(user_id);
        self.bus.notify(user_id, UserNotice::SessionsEnded).await;
    }

    /// The account changed outside its actor (deleted, suspended): every node reads it again.
    pub async fn account_changed(&self, user_id: &UserId) {
        self.sessions.forget_user(user_id);
        self.bus.notify(user_id, UserNotice::AccountChanged).await;
    }

    /// A character changed or was hidden: every node reads it again before its next turn.
    pub async fn character_changed(&self, character_id: &CharacterId) {
        self.bus.notify_character(character_id, CharacterNotice::Changed, true).await;
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

    fn limits(max_users: usize, idle_after: Duration) -> RegistryLimits {
        RegistryLimits {
            max_users,
            max_characters: 100,
            idle_after,
            cool_after: idle_after,
            max_sockets_per_user: 4,
            memory_budget: None,
        }
    }

    async fn node(limits: RegistryLimits) -> (tempfile::TempDir, Store, Node) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = EmbeddedStore::open(dir.path()).unwrap_or_else(|e| panic!("{e}")).into_store();
        let settings = NodeSettings {
            limits,
            chat: ChatSettings { preload: false, ..ChatSettings::default() },
            viewer_rules: ViewerRules { established_after_secs: 0 },
            catalogue: Catalogue::default(),
            images: ImageParts {
                model: amora_ai::image::build(&amora_ai::image::ImageModelSettings::default())
                    .unwrap_or_else(|e| panic!("{e}")),
                settings: ImageJobSettings::default(),
                cost_per_image: Coins::price(20).unwrap_or_else(|e| panic!("{e}")),
            },
            moderation: ModerationParts::default(),
        };
        let node = Node::start(store.clone(), settings, None).await.unwrap_or_else(|e| panic!("{e}"));
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

    async fn users_running(node: &Node) -> usize {
        node.registry.send(ActorCount).await.map_or(usize::MAX, |(users, _)| users)
    }

    fn txn(id: &str) -> TxnId {
        TxnId::parse(id).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Debit number `n` of a run: 7 coins, its own txn id.
    fn debit_of_7(n: u32) -> Debit {
        Debit {
            amount: Coins::change(7).unwrap_or_else(|e| panic!("{e}")),
            reason: "test".into(),
            txn_id: txn(&format!("d{n}")),
        }
    }

    #[actix_rt::test]
    async fn idle_actors_stop_and_come_back_on_demand_with_nothing_lost() {
        let (_dir, store, node) = node(limits(100, Duration::from_millis(100))).await;
        let id = user(&store, 1).await;
        let credit = node.credit(&id, Coins::change(40).unwrap_or_else(|e| panic!("{e}")), "test", txn("t1")).await;
        assert!(matches!(credit, Ok(LedgerOutcome::Applied { balance, .. }) if balance.units() == 40));
        assert_eq!(users_running(&node).await, 1);
        actix_rt::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(users_running(&node).await, 0, "the idle actor passivated");
        assert_eq!(
            node.account(&id).await.ok().flatten().map(|a| a.coin),
            Some(Coins::stored(40)),
            "the respawned actor reads it"
        );
        assert!(matches!(
            node.debit(&id, Coins::change(15).unwrap_or_else(|e| panic!("{e}")), "test", txn("t2")).await,
            Ok(LedgerOutcome::Applied { balance, .. }) if balance.units() == 25
        ));
        assert!(matches!(
            node.debit(&id, Coins::change(30).unwrap_or_else(|e| panic!("{e}")), "test", txn("t3")).await,
            Ok(LedgerOutcome::Insufficient { balance, .. }) if balance.units() == 25
        ));
    }

    #[actix_rt::test]
    async fn an_idle_actor_cools_then_reads_the_account_again_with_the_balance_kept() {
        let cooling = RegistryLimits { cool_after: Duration::from_millis(50), ..limits(100, DEFAULT_IDLE_AFTER) };
        let (_dir, store, node) = node(cooling).await;
        let id = user(&store, 1).await;
        let credit = node.credit(&id, Coins::change(40).unwrap_or_else(|e| panic!("{e}")), "test", txn("t1")).await;
        assert!(matches!(credit, Ok(LedgerOutcome::Applied { .. })));
        let name = |node: &Node| {
            let (node, id) = (node.clone(), id.clone());
            async move { node.account(&id).await.ok().flatten().map(|a| (a.user_name, a.coin.units())) }
        };
        assert_eq!(name(&node).await, Some(("user 1".to_string(), 40)));
        // Written behind the actor's back: a warm actor answers what it holds…
        let change = UserChange::Profile { user_name: Some("renamed".into()), user_avatar: None };
        store.users.update(&id, change).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(name(&node).await, Some(("user 1".to_string(), 40)), "cached");
        // …and a cooled one reads it again, its balance whole, the actor still resident.
        actix_rt::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(users_running(&node).await, 1, "cooled, not stopped");
        assert_eq!(name(&node).await, Some(("renamed".to_string(), 40)), "read again after cooling");
        let debit = node.debit(&id, Coins::change(15).unwrap_or_else(|e| panic!("{e}")), "test", txn("t2")).await;
        assert!(matches!(debit, Ok(LedgerOutcome::Applied { balance, .. }) if balance.units() == 25));
    }

    #[actix_rt::test]
    async fn over_its_memory_budget_a_node_lets_go_of_conversations_and_reads_them_again_whole() {
        let tight = RegistryLimits { memory_budget: Some(1), ..limits(100, DEFAULT_IDLE_AFTER) };
        let (_dir, store, node) = node(tight).await;
        crate::seeding::seed_catalogue(&store).await.unwrap_or_else(|e| panic!("{e}"));
        let id = user(&store, 1).await;
        let character = CharacterId::parse("gf-002").unwrap_or_else(|e| panic!("{e}"));
        let messages = |node: &Node| {
            let (node, id, character) = (node.clone(), id.clone(), character.clone());
            async move {
                let page = node.conversations.history(&id, &character, None, 30).await;
                page.unwrap_or_else(|e| panic!("{e}")).messages.len()
            }
        };
        assert_eq!(messages(&node).await, 1, "the greeting");
        // Written behind the actor's back: a conversation held answers what it holds…
        let message = amora_store::StoredMessage {
            message_id: crate::chat::new_entry_id(),
            speaker: amora_domain::chat::Speaker::User,
            content: "written elsewhere".into(),
            image: None,
        };
        store.conversations.append(&id, &character, message).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(messages(&node).await, 1, "held");
        // …and once shed (over budget at every reading, the unused time shortening from
        // 300 s to under one in three), it is read again whole.
        actix_rt::time::sleep(Duration::from_secs(7)).await;
        assert_eq!(messages(&node).await, 2, "shed, then read again from the store");
    }

    #[actix_rt::test]
    async fn a_passivated_conversation_comes_back_the_same() {
        let (_dir, store, node) = node(limits(100, Duration::from_millis(100))).await;
        crate::seeding::seed_catalogue(&store).await.unwrap_or_else(|e| panic!("{e}"));
        let id = user(&store, 1).await;
        let character = CharacterId::parse("gf-002").unwrap_or_else(|e| panic!("{e}"));
        let conversations = &node.conversations;
        let first = conversations.history(&id, &character, None, 30).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.messages.len(), 1, "the greeting");
        let memory = conversations.add_memory(&id, &character, "Has a dog called Biscuit".into()).await;
        let memory = memory.unwrap_or_else(|e| panic!("{e}"));
        let counted = |node: &Node| {
            let registry = node.registry.clone();
            async move { registry.send(ActorCount).await.unwrap_or((usize::MAX, usize::MAX)) }
        };
        assert_eq!(counted(&node).await.1, 1, "the character's actor runs");
        actix_rt::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(counted(&node).await, (0, 0), "both actors passivated");

        let again = conversations.history(&id, &character, None, 30).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again.messages, first.messages, "the same conversation, no second greeting");
        let memories = conversations.memories(&id, &character).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(memories, vec![memory]);
        assert_eq!(again.credits_left, first.credits_left);
    }

    #[actix_rt::test]
    async fn the_registry_holds_at_most_max_users_actors() {
        let (_dir, store, node) = node(limits(3, DEFAULT_IDLE_AFTER)).await;
        for n in 0..10 {
            let id = user(&store, n).await;
            let _ = node.user(&id).await;
            assert!(users_running(&node).await <= 3);
        }
    }

    #[actix_rt::test]
    async fn a_users_debits_on_one_node_apply_in_the_order_they_were_sent() {
        let (_dir, store, node) = node(limits(100, DEFAULT_IDLE_AFTER)).await;
        let id = user(&store, 1).await;
        let _ = node.credit(&id, Coins::change(100).unwrap_or_else(|e| panic!("{e}")), "grant", txn("grant")).await;
        let actor = node.user(&id).await.unwrap_or_else(|e| panic!("{e}"));
        // Sent without waiting, one after another: the mailbox and the money lane keep them in order.
        let pending: Vec<_> = (0..20).map(|i| actor.send(debit_of_7(i))).collect();
        let mut outcomes = Vec::new();
        for request in pending {
            outcomes.push(request.await.unwrap_or_else(|e| panic!("{e}")).unwrap_or_else(|e| panic!("{e}")));
        }
        let applied = outcomes.iter().filter(|o| matches!(o, LedgerOutcome::Applied { .. })).count();
        assert_eq!(applied, 14, "100 coins pay for 14 debits of 7");
        assert!(
            outcomes[..14].iter().all(|o| matches!(o, LedgerOutcome::Applied { .. })),
            "the first 14 sent are the ones applied"
        );
        let seqs: Vec<i64> = outcomes[..14]
            .iter()
            .filter_map(|o| match o {
                LedgerOutcome::Applied { seq, .. } => Some(*seq),
                _ => None,
            })
            .collect();
        assert_eq!(seqs, (2..16).collect::<Vec<_>>(), "applied in the order sent");
        let rows = store.ledger.rows(&id).await.unwrap_or_default();
        let account = node.account(&id).await.ok().flatten().map(|a| a.coin);
        assert_eq!(account, Some(rows.iter().map(|r| r.delta).sum::<Coins>()));
    }

    #[actix_rt::test]
    async fn debits_keep_their_order_when_a_quick_answer_finishes_between_them() {
        let (_dir, store, node) = node(limits(100, DEFAULT_IDLE_AFTER)).await;
        let id = user(&store, 1).await;
        let _ = node.credit(&id, Coins::change(21).unwrap_or_else(|e| panic!("{e}")), "grant", txn("grant")).await;
        let actor = node.user(&id).await.unwrap_or_else(|e| panic!("{e}"));
        assert!(actor.send(Account).await.is_ok(), "the account is cached, so the next one answers at once");
        // All queued before the actor runs: the account answer finishes on its first poll,
        // between debits still waiting for their turn.
        let first = actor.send(debit_of_7(0));
        let quick = actor.send(Account);
        let rest: Vec<_> = (1..5).map(|i| actor.send(debit_of_7(i))).collect();
        let mut outcomes = vec![first.await.unwrap_or_else(|e| panic!("{e}")).unwrap_or_else(|e| panic!("{e}"))];
        assert!(quick.await.is_ok());
        for request in rest {
            outcomes.push(request.await.unwrap_or_else(|e| panic!("{e}")).unwrap_or_else(|e| panic!("{e}")));
        }
        let applied: Vec<bool> = outcomes.iter().map(|o| matches!(o, LedgerOutcome::Applied { .. })).collect();
        assert_eq!(applied, [true, true, true, false, false], "21 coins pay for the first three debits of 7");
    }
}
