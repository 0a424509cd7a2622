//! `CharacterActor`: one per active character per node, and the one home of a
//! conversation's rules. It holds the character (persona) and, for each user talking with
//! it here, the conversation in play: the recent window of messages, the memories, the
//! reply in flight (at most one per pair: a second send while one runs is refused with
//! `Busy`, never interleaved) and the turns since memories were last extracted.
//!
//! Loaded once, kept current: every change of a conversation on this node goes through
//! here, so a turn reads nothing the actor already holds. A change made on another node
//! arrives as a `CharacterNotice` and drops what is held of that pair. The store is
//! written before any event says a thing happened, so stopping the actor loses nothing but
//! the extraction count.
//!
//! Handlers that change a conversation run atomically (`AtomicResponse`): loading a pair,
//! writing its greeting and storing a message happen one at a time per character, so two
//! first opens of a conversation write one greeting. The model's work runs on its own
//! tasks and reports back with `ReplyEnded` / `ExtractionEnded`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use amora_ai::chat::{CancellationToken, FinishReason};
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId, UsedType};
use amora_domain::chat::{EntryId, MemoryId, MessageId, MessageText, Speaker, fill_placeholders};
use amora_domain::moderation;
use amora_store::{Memory, MemoryOrigin, StoredMessage};

use crate::bus::CharacterNotice;
use crate::chat::engine::{EXTRACTION_WINDOW, ReplyContext};
use crate::chat::memory::MAX_MEMORIES;
use crate::chat::metrics::{Outcome, Phase};
use crate::chat::{ChatEngine, ChatError, Chatter, MemoryView, MessageView, new_entry_id};
use crate::events::{ReplyEnd, ServerEvent};
use crate::registry::{Passivated, Registry, Stop, UserAddr};
use crate::user::{GiveBackFreeMessage, TakeFreeMessage};

/// Messages of a conversation held in the window; the prompt's token budget usually uses fewer.
pub const HISTORY_WINDOW: usize = 60;
/// How long the character's persona is trusted before it is read again; an operator's
/// change or hiding reaches the actor at once through a `CharacterNotice` besides.
const CHARACTER_FRESH_FOR: Duration = Duration::from_secs(60);
/// How often an idle actor checks whether to stop.
const IDLE_CHECK: Duration = Duration::from_secs(10);
/// A pair nobody touched for this long is dropped from memory (it is all in the store).
const PAIR_IDLE: Duration = Duration::from_secs(600);

/// Stores the user's message and starts the reply (streamed as events). Answers the
/// stored message.
#[derive(Message)]
#[rtype(result = "Result<MessageView, ChatError>")]
pub struct Send {
    pub chatter: Chatter,
    pub text: MessageText,
}

/// Writes the newest reply again (removing the old one), or the missing reply after a
/// failure.
#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct Regenerate {
    pub chatter: Chatter,
}

/// Stops the user's reply in flight; the text so far is kept.
#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct StopReply {
    pub user_id: UserId,
}

/// Extracts memories from the conversation now (the user's "save memories"). Answers once
/// the extraction has started; `memorySaved` tells when it ended (it takes a model reply).
/// While one runs for the pair, the request joins it rather than starting a second.
#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct SaveMemories {
    pub chatter: Chatter,
}

/// A page of the conversation, newest first: the `limit` messages older than `before`
/// (the newest when `None`). Opening a new conversation writes the character's greeting.
#[derive(Message)]
#[rtype(result = "Result<Vec<StoredMessage>, ChatError>")]
pub struct History {
    pub chatter: Chatter,
    pub before: Option<MessageId>,
    pub limit: usize,
}

/// Changes the text of one of the user's own messages.
#[derive(Message)]
#[rtype(result = "Result<MessageView, ChatError>")]
pub struct EditMessage {
    pub user_id: UserId,
    pub message_id: MessageId,
    pub text: MessageText,
}

/// Deletes one of the user's own messages.
#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct DeleteMessage {
    pub user_id: UserId,
    pub message_id: MessageId,
}

/// Deletes the whole conversation and its memories.
#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct DeleteConversation {
    pub user_id: UserId,
}

/// Every memory of the pair, newest first.
#[derive(Message)]
#[rtype(result = "Result<Vec<Memory>, ChatError>")]
pub struct Memories {
    pub user_id: UserId,
}

/// A fact the user writes down (checked by `memory::memory_text`).
#[derive(Message)]
#[rtype(result = "Result<Memory, ChatError>")]
pub struct AddMemory {
    pub chatter: Chatter,
    pub content: String,
}

/// Replaces a memory's text (it becomes the user's).
#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct UpdateMemory {
    pub user_id: UserId,
    pub memory_id: MemoryId,
    pub content: String,
}

#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct DeleteMemory {
    pub user_id: UserId,
    pub memory_id: MemoryId,
}

/// One message of the user's conversation, if it exists.
#[derive(Message)]
#[rtype(result = "Result<Option<StoredMessage>, ChatError>")]
pub struct FindMessage {
    pub user_id: UserId,
    pub message_id: MessageId,
}

/// News from the bus about this character (from the registry).
#[derive(Message)]
#[rtype(result = "()")]
pub struct CharacterNews(pub CharacterNotice);

/// Sent by a reply's task when the model is done.
#[derive(Message)]
#[rtype(result = "()")]
struct ReplyEnded {
    chatter: Chatter,
    turn: u64,
    reply_id: EntryId,
    written: Result<Option<(String, FinishReason)>, ChatError>,
}

/// Sent by an extraction's task when the model is done.
#[derive(Message)]
#[rtype(result = "()")]
struct ExtractionEnded {
    chatter: Chatter,
    facts: Result<Vec<String>, ChatError>,
    on_demand: bool,
}

/// The recent messages of a conversation, oldest first.
#[derive(Debug, Clone, Default)]
struct Window {
    messages: VecDeque<StoredMessage>,
    /// No message older than the first one held exists.
    whole: bool,
}

impl Window {
    fn from_newest_first(mut newest: Vec<StoredMessage>) -> Self {
        let whole = newest.len() < HISTORY_WINDOW;
        newest.reverse();
        Window { messages: newest.into(), whole }
    }

    fn push(&mut self, message: StoredMessage) {
        self.messages.push_back(message);
        if self.messages.len() > HISTORY_WINDOW {
            self.messages.pop_front();
            self.whole = false;
        }
    }

    fn find(&self, id: MessageId) -> Option<&StoredMessage> {
        self.messages.iter().find(|m| m.message_id == id)
    }
}

struct InFlight {
    turn: u64,
    cancel: CancellationToken,
}

/// One user's conversation with this character, as far as it is held here.
#[derive(Default)]
struct Pair {
    window: Option<Window>,
    /// Newest first.
    memories: Option<Vec<Memory>>,
    reply: Option<InFlight>,
    turns_since_extraction: u32,
    extracting: bool,
    last_used: Option<Instant>,
}

impl Pair {
    fn is_busy(&self) -> bool {
        self.reply.is_some() || self.extracting
    }
}

pub struct CharacterActor {
    character_id: CharacterId,
    engine: Arc<ChatEngine>,
    registry: Addr<Registry>,
    incarnation: u64,
    /// The character as last read, and when; `None` inside when it is gone or hidden.
    character: Option<(Option<Character>, Instant)>,
    pairs: HashMap<UserId, Pair>,
    next_turn: u64,
    idle_after: Duration,
    last_active: Instant,
    /// The registry let go of this actor (its population was full) while a reply or an
    /// extraction ran: it finishes those, then stops.
    evicted: bool,
}

/// What a handler needs loaded before it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Needs {
    character: bool,
    window: bool,
    memories: bool,
    /// Write the greeting if the conversation is empty (needs `character` and `window`).
    greeting: bool,
}

impl Needs {
    const WINDOW: Needs = Needs { character: false, window: true, memories: false, greeting: false };
    const MEMORIES: Needs = Needs { character: false, window: false, memories: true, greeting: false };
    const TURN: Needs = Needs { character: true, window: true, memories: true, greeting: true };
}

/// What was read for a pair, handed from the loading task to the actor.
#[derive(Default)]
struct Loaded {
    character: Option<Option<Character>>,
    window: Option<Window>,
    memories: Option<Vec<Memory>>,
    greeting: Option<StoredMessage>,
}

impl CharacterActor {
    pub fn new(
        character_id: CharacterId,
        engine: Arc<ChatEngine>,
        registry: Addr<Registry>,
        incarnation: u64,
        idle_after: Duration,
    ) -> Self {
        Self {
            character_id,
            engine,
            registry,
            incarnation,
            character: None,
            pairs: HashMap::new(),
            next_turn: 0,
            idle_after,
            last_active: Instant::now(),
            evicted: false,
        }
    }

    fn pair(&mut self, user_id: &UserId) -> &mut Pair {
        let pair = self.pairs.entry(user_id.clone()).or_default();
        pair.last_used = Some(Instant::now());
        pair
    }

    /// The character if it is held and fresh.
    fn fresh_character(&self) -> Option<&Option<Character>> {
        self.character.as_ref().filter(|(_, read)| read.elapsed() < CHARACTER_FRESH_FOR).map(|(character, _)| character)
    }

    /// The character as `chatter` may see it, from what is held.
    fn visible_character(&self, chatter: &Chatter) -> Result<Character, ChatError> {
        let character = self.fresh_character().cloned().flatten().ok_or(ChatError::NoCharacter)?;
        if !chatter.viewer.may_see(character.exposure) {
            return Err(ChatError::NoCharacter);
        }
        Ok(character)
    }

    /// Reads what `needs` asks for and is not held (and writes the greeting of a new
    /// conversation), then keeps it. Runs inside an atomic handler, so nothing else of
    /// this character happens meanwhile.
    fn load(
        &mut self,
        chatter: Option<&Chatter>,
        user_id: &UserId,
        needs: Needs,
    ) -> ResponseActFuture<Self, Result<(), ChatError>> {
        self.last_active = Instant::now();
        let want_character = needs.character && self.fresh_character().is_none();
        let held_character = self.fresh_character().cloned().flatten();
        let pair = self.pair(user_id);
        let want_window = needs.window && pair.window.is_none();
        let want_memories = needs.memories && pair.memories.is_none();
        let known_empty = pair.window.as_ref().map(|w| w.messages.is_empty());
        let greet = if needs.greeting { chatter.cloned() } else { None };
        let (engine, character_id, user) = (self.engine.clone(), self.character_id.clone(), user_id.clone());
        let keep_for = user_id.clone();
        Box::pin(
            async move {
                let store = engine.store();
                let mut loaded = Loaded::default();
                if want_character {
                    loaded.character = Some(engine.load_character(&character_id).await?);
                }
                if want_window {
                    let limit = HISTORY_WINDOW as u32;
                    let newest = store.conversations.messages(&user, &character_id, None, limit).await?;
                    loaded.window = Some(Window::from_newest_first(newest));
                }
                if want_memories {
                    loaded.memories = Some(store.memories.list(&user, &character_id).await?);
                }
                let empty = loaded.window.as_ref().map(|w| w.messages.is_empty()).or(known_empty).unwrap_or(false);
                let character = loaded.character.clone().flatten().or(held_character);
                if let (Some(chatter), true, Some(character)) = (greet, empty, character)
                    && chatter.viewer.may_see(character.exposure)
                {
                    let greeting = StoredMessage {
                        message_id: new_entry_id(),
                        speaker: Speaker::Character,
                        content: fill_placeholders(
                            &character.greeting,
                            &chatter.user_name,
                            &character.card.character_name,
                        ),
                    };
                    store.conversations.append(&user, &character_id, greeting.clone()).await?;
                    loaded.greeting = Some(greeting);
                }
                Ok::<_, ChatError>(loaded)
            }
            .into_actor(self)
            .map(move |loaded, actor, ctx| {
                let loaded = loaded?;
                if let Some(character) = loaded.character {
                    actor.character = Some((character, Instant::now()));
                }
                let pair = actor.pair(&keep_for);
                if pair.window.is_none() {
                    pair.window = loaded.window;
                }
                if pair.memories.is_none() {
                    pair.memories = loaded.memories;
                }
                if let Some(greeting) = loaded.greeting {
                    if let Some(window) = pair.window.as_mut() {
                        window.push(greeting.clone());
                    }
                    // The user's other tabs learn of the new conversation as of a message.
                    actor.publish(
                        ctx,
                        &keep_for,
                        ServerEvent::ChatMessage {
                            character_id: actor.character_id.clone(),
                            message: MessageView::from(&greeting),
                        },
                    );
                    actor.changed_elsewhere(ctx, &keep_for);
                }
                Ok(())
            }),
        )
    }

    /// Sends an event to every socket of the user (on its own task: the bus may wait on Redis).
    fn publish(&self, ctx: &mut Context<Self>, user_id: &UserId, event: ServerEvent) {
        let (bus, user_id) = (self.engine.bus().clone(), user_id.clone());
        ctx.spawn(async move { bus.publish(&user_id, event).await }.into_actor(self));
    }

    /// Tells this character's actors on other nodes that the pair changed here.
    fn changed_elsewhere(&self, ctx: &mut Context<Self>, user_id: &UserId) {
        let (bus, character_id) = (self.engine.bus().clone(), self.character_id.clone());
        let notice = CharacterNotice::ConversationChanged { user_id: user_id.clone() };
        ctx.spawn(async move { bus.notify_character(&character_id, notice, false).await }.into_actor(self));
    }

    /// Claims the pair's reply slot, or says a reply is running.
    fn claim(&mut self, user_id: &UserId) -> Result<(u64, CancellationToken), ChatError> {
        self.last_active = Instant::now();
        self.next_turn += 1;
        let turn = self.next_turn;
        let pair = self.pair(user_id);
        if pair.reply.is_some() {
            return Err(ChatError::Busy);
        }
        let cancel = CancellationToken::new();
        pair.reply = Some(InFlight { turn, cancel: cancel.clone() });
        Ok((turn, cancel))
    }

    fn release(&mut self, user_id: &UserId, turn: u64) {
        if let Some(pair) = self.pairs.get_mut(user_id)
            && pair.reply.as_ref().is_some_and(|r| r.turn == turn)
        {
            pair.reply = None;
        }
    }

    /// Free users pay for a message with one of the day's free messages; paid users write
    /// freely; premium characters are for paid users.
    fn take_credit(
        &self,
        chatter: &Chatter,
        character: &Character,
    ) -> ResponseActFuture<Self, Result<bool, ChatError>> {
        if chatter.paid {
            return Box::pin(actix::fut::ready(Ok(false)));
        }
        if character.card.used_type == UsedType::Premium {
            return Box::pin(actix::fut::ready(Err(ChatError::PremiumCharacter)));
        }
        let (registry, user_id, limit) =
            (self.registry.clone(), chatter.user_id.clone(), self.engine.settings().free_messages_per_day);
        Box::pin(
            async move {
                let user = registry.send(UserAddr(user_id)).await?;
                if user.send(TakeFreeMessage { limit }).await?? { Ok(true) } else { Err(ChatError::OutOfCredits) }
            }
            .into_actor(self),
        )
    }

    /// Gives back a free message taken for a message whose reply never came.
    fn give_back_credit(&self, ctx: &mut Context<Self>, chatter: &Chatter) {
        if chatter.paid {
            return;
        }
        let (registry, user_id) = (self.registry.clone(), chatter.user_id.clone());
        ctx.spawn(
            async move {
                let given = async {
                    let user = registry.send(UserAddr(user_id.clone())).await?;
                    user.send(GiveBackFreeMessage).await??;
                    Ok::<_, ChatError>(())
                };
                if let Err(error) = given.await {
                    tracing::error!(%error, user = %user_id, "a free message could not be given back");
                }
            }
            .into_actor(self),
        );
    }

    /// Starts the model on the pair's reply; the actor hears `ReplyEnded` after.
    fn spawn_reply(
        &mut self,
        ctx: &mut Context<Self>,
        chatter: Chatter,
        character: Character,
        turn: u64,
        cancel: CancellationToken,
    ) {
        let pair = self.pair(&chatter.user_id);
        let window: Vec<StoredMessage> =
            pair.window.as_ref().map(|w| w.messages.iter().cloned().collect()).unwrap_or_default();
        let window_is_whole = pair.window.as_ref().is_some_and(|w| w.whole);
        let memories = pair.memories.clone().unwrap_or_default();
        let engine = self.engine.clone();
        let me = ctx.address();
        let reply_id = new_entry_id();
        actix::spawn(async move {
            let context = ReplyContext {
                chatter: &chatter,
                character: &character,
                window: &window,
                window_is_whole,
                memories: &memories,
            };
            let written = engine.write_reply(&context, reply_id, cancel).await;
            me.do_send(ReplyEnded { chatter, turn, reply_id, written });
        });
    }

    /// Extracts memories of the pair on its own task unless an extraction of theirs runs
    /// already. `memorySaved` ends the user's "saving" state either way.
    fn start_extraction(&mut self, ctx: &mut Context<Self>, chatter: Chatter, character: Character, on_demand: bool) {
        let pair = self.pair(&chatter.user_id);
        pair.turns_since_extraction = 0;
        if pair.extracting {
            return;
        }
        pair.extracting = true;
        let recent: Vec<StoredMessage> = pair
            .window
            .as_ref()
            .map(|w| w.messages.iter().rev().take(EXTRACTION_WINDOW).rev().cloned().collect())
            .unwrap_or_default();
        let known = pair.memories.clone().unwrap_or_default();
        self.publish(ctx, &chatter.user_id, ServerEvent::MemorySaving { character_id: self.character_id.clone() });
        let engine = self.engine.clone();
        let me = ctx.address();
        actix::spawn(async move {
            let facts = engine.extract_facts(&chatter, &character, &recent, &known).await;
            me.do_send(ExtractionEnded { chatter, facts, on_demand });
        });
    }

    /// The `chatError` event for the pair.
    fn error_event(&self, reply_id: Option<EntryId>, error: &ChatError) -> ServerEvent {
        ServerEvent::ChatError {
            character_id: self.character_id.clone(),
            reply_id,
            code: error.code().value(),
            msg: error.public_message(),
        }
    }

    /// Memories of the pair as `memorySaved` lists them.
    fn memory_views(&mut self, user_id: &UserId) -> Vec<MemoryView> {
        self.pair(user_id).memories.iter().flatten().map(MemoryView::from).collect()
    }
}

/// Runs `then` once `load` has run, atomically: the actor does nothing else meanwhile.
fn after_load<R: 'static>(
    actor: &mut CharacterActor,
    chatter: Option<&Chatter>,
    user_id: &UserId,
    needs: Needs,
    then: impl FnOnce(
        &mut CharacterActor,
        &mut Context<CharacterActor>,
    ) -> ResponseActFuture<CharacterActor, Result<R, ChatError>>
    + 'static,
) -> AtomicResponse<CharacterActor, Result<R, ChatError>> {
    AtomicResponse::new(Box::pin(actor.load(chatter, user_id, needs).then(move |loaded, actor, ctx| match loaded {
        Ok(()) => then(actor, ctx),
        Err(error) => Box::pin(actix::fut::ready(Err(error))) as ResponseActFuture<_, _>,
    })))
}

fn ready<R: 'static>(value: Result<R, ChatError>) -> ResponseActFuture<CharacterActor, Result<R, ChatError>> {
    Box::pin(actix::fut::ready(value))
}

impl Actor for CharacterActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let every = IDLE_CHECK.min(self.idle_after / 2).max(Duration::from_millis(10));
        ctx.run_interval(every, |actor, ctx| {
            // Conversations nobody touched for a while leave memory; they are all stored.
            actor.pairs.retain(|_, pair| pair.is_busy() || pair.last_used.is_some_and(|t| t.elapsed() < PAIR_IDLE));
            let busy = actor.pairs.values().any(Pair::is_busy);
            if !busy && (actor.evicted || actor.last_active.elapsed() >= actor.idle_after) {
                ctx.stop();
            }
        });
    }

    fn stopping(&mut self, _: &mut Self::Context) -> Running {
        // A reply in flight keeps going on its own task; only storing it ends with us,
        // so an actor with a reply running is never stopped for idleness (see `started`).
        self.registry
            .do_send(Passivated::Character { character_id: self.character_id.clone(), incarnation: self.incarnation });
        Running::Stop
    }
}

impl Handler<Send> for CharacterActor {
    type Result = AtomicResponse<Self, Result<MessageView, ChatError>>;

    fn handle(&mut self, message: Send, _: &mut Self::Context) -> Self::Result {
        let Send { chatter, text } = message;
        let user_id = chatter.user_id.clone();
        let loaded_for = chatter.clone();
        after_load(self, Some(&loaded_for), &user_id, Needs::TURN, move |actor, _| {
            let started = Instant::now();
            let character = match actor.visible_character(&chatter) {
                Ok(character) => character,
                Err(error) => return ready(Err(error)),
            };
            if let Some(refusal) = moderation::check(text.as_str()) {
                return ready(Err(ChatError::Refused(refusal)));
            }
            let (turn, cancel) = match actor.claim(&chatter.user_id) {
                Ok(claimed) => claimed,
                Err(error) => return ready(Err(error)),
            };
            let message =
                StoredMessage { message_id: new_entry_id(), speaker: Speaker::User, content: text.into_string() };
            let (engine, character_id, user) =
                (actor.engine.clone(), actor.character_id.clone(), chatter.user_id.clone());
            let stored = message.clone();
            Box::pin(actor.take_credit(&chatter, &character).then(move |credit, actor, _| {
                let took_credit = match credit {
                    Ok(took) => took,
                    Err(error) => {
                        actor.release(&chatter.user_id, turn);
                        return ready(Err(error));
                    }
                };
                Box::pin(
                    async move { engine.store().conversations.append(&user, &character_id, stored).await }
                        .into_actor(actor)
                        .map(move |appended, actor, ctx| {
                            if let Err(error) = appended {
                                actor.release(&chatter.user_id, turn);
                                if took_credit {
                                    actor.give_back_credit(ctx, &chatter);
                                }
                                return Err(ChatError::from(error));
                            }
                            if let Some(window) = actor.pair(&chatter.user_id).window.as_mut() {
                                window.push(message.clone());
                            }
                            let view = MessageView::from(&message);
                            actor.publish(
                                ctx,
                                &chatter.user_id,
                                ServerEvent::ChatMessage {
                                    character_id: actor.character_id.clone(),
                                    message: view.clone(),
                                },
                            );
                            actor.changed_elsewhere(ctx, &chatter.user_id);
                            actor.engine.metrics().observe(Phase::Accept, started.elapsed());
                            actor.spawn_reply(ctx, chatter, character, turn, cancel);
                            Ok(view)
                        }),
                )
            }))
        })
    }
}

impl Handler<Regenerate> for CharacterActor {
    type Result = AtomicResponse<Self, Result<(), ChatError>>;

    fn handle(&mut self, message: Regenerate, _: &mut Self::Context) -> Self::Result {
        let chatter = message.chatter;
        let user_id = chatter.user_id.clone();
        let loaded_for = chatter.clone();
        after_load(self, Some(&loaded_for), &user_id, Needs::TURN, move |actor, _| {
            let character = match actor.visible_character(&chatter) {
                Ok(character) => character,
                Err(error) => return ready(Err(error)),
            };
            // The newest reply goes when the character wrote it after a message of the
            // user's; after a failed reply the user's message is the newest and stays.
            let newest: Vec<StoredMessage> = actor
                .pair(&chatter.user_id)
                .window
                .as_ref()
                .map(|w| w.messages.iter().rev().take(2).cloned().collect())
                .unwrap_or_default();
            let to_delete = match newest.as_slice() {
                [reply, asked, ..] if reply.speaker == Speaker::Character && asked.speaker == Speaker::User => {
                    Some(reply.message_id)
                }
                [asked, ..] if asked.speaker == Speaker::User => None,
                _ => {
                    return ready(Err(ChatError::Invalid(
                        "there is no reply to write again: send a message first".into(),
                    )));
                }
            };
            let (turn, cancel) = match actor.claim(&chatter.user_id) {
                Ok(claimed) => claimed,
                Err(error) => return ready(Err(error)),
            };
            let (engine, character_id, user) =
                (actor.engine.clone(), actor.character_id.clone(), chatter.user_id.clone());
            Box::pin(actor.take_credit(&chatter, &character).then(move |credit, actor, _| {
                let took_credit = match credit {
                    Ok(took) => took,
                    Err(error) => {
                        actor.release(&chatter.user_id, turn);
                        return ready(Err(error));
                    }
                };
                Box::pin(
                    async move {
                        if let Some(reply_id) = to_delete {
                            engine.store().conversations.delete_messages(&user, &character_id, &[reply_id]).await?;
                        }
                        Ok::<_, ChatError>(())
                    }
                    .into_actor(actor)
                    .map(move |deleted, actor, ctx| {
                        if let Err(error) = deleted {
                            actor.release(&chatter.user_id, turn);
                            if took_credit {
                                actor.give_back_credit(ctx, &chatter);
                            }
                            return Err(error);
                        }
                        if let Some(reply_id) = to_delete {
                            if let Some(window) = actor.pair(&chatter.user_id).window.as_mut() {
                                window.messages.retain(|m| m.message_id != reply_id);
                            }
                            actor.publish(
                                ctx,
                                &chatter.user_id,
                                ServerEvent::ChatMessageDeleted {
                                    character_id: actor.character_id.clone(),
                                    message_ids: vec![reply_id],
                                },
                            );
                            actor.changed_elsewhere(ctx, &chatter.user_id);
                        }
                        actor.spawn_reply(ctx, chatter, character, turn, cancel);
                        Ok(())
                    }),
                )
            }))
        })
    }
}

impl Handler<StopReply> for CharacterActor {
    type Result = Result<(), ChatError>;

    fn handle(&mut self, message: StopReply, _: &mut Self::Context) -> Self::Result {
        self.last_active = Instant::now();
        match self.pairs.get(&message.user_id).and_then(|pair| pair.reply.as_ref()) {
            Some(reply) => {
                reply.cancel.cancel();
                Ok(())
            }
            None => Err(ChatError::Invalid("no reply is being written".into())),
        }
    }
}

impl Handler<ReplyEnded> for CharacterActor {
    type Result = AtomicResponse<Self, ()>;

    fn handle(&mut self, message: ReplyEnded, _: &mut Self::Context) -> Self::Result {
        self.last_active = Instant::now();
        let ReplyEnded { chatter, turn, reply_id, written } = message;
        let (engine, character_id, user) = (self.engine.clone(), self.character_id.clone(), chatter.user_id.clone());
        // The reply is stored before `chatDone` says so; the slot is freed before either
        // event goes out, so a client answering it is never told "busy".
        let stored = async move {
            match written {
                Ok(Some((content, finish))) => {
                    let message = StoredMessage { message_id: reply_id, speaker: Speaker::Character, content };
                    let started = Instant::now();
                    engine.store().conversations.append(&user, &character_id, message.clone()).await?;
                    engine.metrics().observe(Phase::StoreReply, started.elapsed());
                    Ok(Some((message, finish)))
                }
                Ok(None) => Ok(None),
                Err(error) => Err(error),
            }
        };
        AtomicResponse::new(Box::pin(stored.into_actor(self).map(move |stored, actor, ctx| {
            actor.release(&chatter.user_id, turn);
            let character_id = actor.character_id.clone();
            match stored {
                Ok(Some((message, finish))) => {
                    actor.engine.metrics().reply_ended(Outcome::Stored);
                    let pair = actor.pair(&chatter.user_id);
                    if let Some(window) = pair.window.as_mut() {
                        window.push(message.clone());
                    }
                    pair.turns_since_extraction += 1;
                    let due = pair.turns_since_extraction;
                    actor.publish(
                        ctx,
                        &chatter.user_id,
                        ServerEvent::ChatDone {
                            character_id,
                            reply_id,
                            message: Some(MessageView::from(&message)),
                            finish_reason: ReplyEnd::from(finish),
                        },
                    );
                    actor.changed_elsewhere(ctx, &chatter.user_id);
                    let every = actor.engine.settings().memory_every_turns;
                    if every > 0
                        && due >= every
                        && let Ok(character) = actor.visible_character(&chatter)
                    {
                        actor.start_extraction(ctx, chatter, character, false);
                    }
                }
                Ok(None) => {
                    actor.engine.metrics().reply_ended(Outcome::Stopped);
                    actor.publish(
                        ctx,
                        &chatter.user_id,
                        ServerEvent::ChatDone {
                            character_id,
                            reply_id,
                            message: None,
                            finish_reason: ReplyEnd::Cancelled,
                        },
                    );
                }
                Err(error) => {
                    let outcome =
                        if matches!(error, ChatError::Refused(_)) { Outcome::Refused } else { Outcome::Failed };
                    actor.engine.metrics().reply_ended(outcome);
                    if error.is_fault() {
                        tracing::error!(%error, user = %chatter.user_id, character = %character_id, "a reply failed");
                    }
                    actor.give_back_credit(ctx, &chatter);
                    let event = actor.error_event(Some(reply_id), &error);
                    actor.publish(ctx, &chatter.user_id, event);
                }
            }
        })))
    }
}

impl Handler<SaveMemories> for CharacterActor {
    type Result = AtomicResponse<Self, Result<(), ChatError>>;

    fn handle(&mut self, message: SaveMemories, _: &mut Self::Context) -> Self::Result {
        let chatter = message.chatter;
        let user_id = chatter.user_id.clone();
        let needs = Needs { character: true, window: true, memories: true, greeting: false };
        after_load(self, None, &user_id, needs, move |actor, ctx| {
            let character = match actor.visible_character(&chatter) {
                Ok(character) => character,
                Err(error) => return ready(Err(error)),
            };
            actor.start_extraction(ctx, chatter, character, true);
            ready(Ok(()))
        })
    }
}

impl Handler<ExtractionEnded> for CharacterActor {
    type Result = AtomicResponse<Self, ()>;

    fn handle(&mut self, message: ExtractionEnded, _: &mut Self::Context) -> Self::Result {
        self.last_active = Instant::now();
        let ExtractionEnded { chatter, facts, on_demand } = message;
        let (engine, character_id, user) = (self.engine.clone(), self.character_id.clone(), chatter.user_id.clone());
        let room = MAX_MEMORIES.saturating_sub(self.pair(&chatter.user_id).memories.as_ref().map_or(0, Vec::len));
        let stored = async move {
            let mut added = Vec::new();
            for fact in facts?.into_iter().take(room) {
                let memory = Memory { memory_id: new_entry_id(), content: fact, origin: MemoryOrigin::Extracted };
                engine.store().memories.add(&user, &character_id, memory.clone()).await?;
                added.push(memory);
            }
            Ok::<_, ChatError>(added)
        };
        AtomicResponse::new(Box::pin(stored.into_actor(self).map(move |stored, actor, ctx| {
            let pair = actor.pair(&chatter.user_id);
            pair.extracting = false;
            let added = match stored {
                Ok(added) => added,
                Err(error) => {
                    tracing::warn!(%error, character = %actor.character_id, on_demand, "memory extraction failed");
                    if on_demand {
                        let event = actor.error_event(None, &error);
                        actor.publish(ctx, &chatter.user_id, event);
                    }
                    Vec::new()
                }
            };
            let count = added.len() as u32;
            if let Some(memories) = actor.pair(&chatter.user_id).memories.as_mut() {
                for memory in added {
                    memories.insert(0, memory);
                }
            }
            if count > 0 {
                actor.changed_elsewhere(ctx, &chatter.user_id);
            }
            let memories = actor.memory_views(&chatter.user_id);
            actor.publish(
                ctx,
                &chatter.user_id,
                ServerEvent::MemorySaved { character_id: actor.character_id.clone(), added: count, memories },
            );
        })))
    }
}

impl Handler<History> for CharacterActor {
    type Result = AtomicResponse<Self, Result<Vec<StoredMessage>, ChatError>>;

    fn handle(&mut self, message: History, _: &mut Self::Context) -> Self::Result {
        let History { chatter, before, limit } = message;
        let user_id = chatter.user_id.clone();
        // Only the first page of a new conversation is a first open.
        let needs = Needs { character: true, window: true, memories: false, greeting: before.is_none() };
        let loaded_for = chatter.clone();
        after_load(self, Some(&loaded_for), &user_id, needs, move |actor, _| {
            if let Err(error) = actor.visible_character(&chatter) {
                return ready(Err(error));
            }
            let window = actor.pair(&chatter.user_id).window.clone().unwrap_or_default();
            // Newest first, older than `before`.
            let held: Vec<StoredMessage> = window
                .messages
                .iter()
                .rev()
                .filter(|m| before.is_none_or(|b| m.message_id < b))
                .take(limit)
                .cloned()
                .collect();
            if held.len() == limit || window.whole {
                return ready(Ok(held));
            }
            // Older than the window: the store has them.
            let (engine, character_id, user) =
                (actor.engine.clone(), actor.character_id.clone(), chatter.user_id.clone());
            Box::pin(
                async move {
                    Ok(engine.store().conversations.messages(&user, &character_id, before, limit as u32).await?)
                }
                .into_actor(actor),
            )
        })
    }
}

impl Handler<EditMessage> for CharacterActor {
    type Result = AtomicResponse<Self, Result<MessageView, ChatError>>;

    fn handle(&mut self, message: EditMessage, _: &mut Self::Context) -> Self::Result {
        let EditMessage { user_id, message_id, text } = message;
        let owner = user_id.clone();
        after_load(self, None, &owner, Needs::WINDOW, move |actor, _| {
            if let Some(refusal) = moderation::check(text.as_str()) {
                return ready(Err(ChatError::Refused(refusal)));
            }
            let held = actor.pair(&user_id).window.as_ref().and_then(|w| w.find(message_id).cloned());
            let (engine, character_id, user) = (actor.engine.clone(), actor.character_id.clone(), user_id.clone());
            let content = text.into_string();
            let new_content = content.clone();
            Box::pin(
                async move {
                    let found = match held {
                        Some(found) => Some(found),
                        None => find_message(&engine, &user, &character_id, message_id).await?,
                    };
                    match found {
                        Some(message) if message.speaker == Speaker::User => {}
                        Some(_) => return Err(ChatError::Invalid("only your own messages can be changed".into())),
                        None => return Err(ChatError::NoMessage),
                    }
                    if !engine
                        .store()
                        .conversations
                        .update_message(&user, &character_id, message_id, &new_content)
                        .await?
                    {
                        return Err(ChatError::NoMessage);
                    }
                    Ok(())
                }
                .into_actor(actor)
                .map(move |updated, actor, ctx| {
                    updated?;
                    if let Some(window) = actor.pair(&user_id).window.as_mut()
                        && let Some(held) = window.messages.iter_mut().find(|m| m.message_id == message_id)
                    {
                        held.content = content.clone();
                    }
                    actor.changed_elsewhere(ctx, &user_id);
                    Ok(MessageView {
                        message_id,
                        speaker: Speaker::User,
                        content,
                        created_at: message_id.unix_millis(),
                    })
                }),
            )
        })
    }
}

/// One message of the conversation, read from the store (outside the window).
async fn find_message(
    engine: &ChatEngine,
    user: &UserId,
    character_id: &CharacterId,
    message_id: MessageId,
) -> Result<Option<StoredMessage>, ChatError> {
    // The page just after the id, newest first, starts with it if it exists.
    let after = EntryId::from_raw(message_id.raw().saturating_add(1));
    let found = engine.store().conversations.messages(user, character_id, Some(after), 1).await?;
    Ok(found.into_iter().next().filter(|m| m.message_id == message_id))
}

impl Handler<FindMessage> for CharacterActor {
    type Result = AtomicResponse<Self, Result<Option<StoredMessage>, ChatError>>;

    fn handle(&mut self, message: FindMessage, _: &mut Self::Context) -> Self::Result {
        let FindMessage { user_id, message_id } = message;
        let owner = user_id.clone();
        after_load(self, None, &owner, Needs::WINDOW, move |actor, _| {
            if let Some(held) = actor.pair(&user_id).window.as_ref().and_then(|w| w.find(message_id).cloned()) {
                return ready(Ok(Some(held)));
            }
            let (engine, character_id) = (actor.engine.clone(), actor.character_id.clone());
            Box::pin(async move { find_message(&engine, &user_id, &character_id, message_id).await }.into_actor(actor))
        })
    }
}

impl Handler<DeleteMessage> for CharacterActor {
    type Result = AtomicResponse<Self, Result<(), ChatError>>;

    fn handle(&mut self, message: DeleteMessage, _: &mut Self::Context) -> Self::Result {
        let DeleteMessage { user_id, message_id } = message;
        let owner = user_id.clone();
        after_load(self, None, &owner, Needs::WINDOW, move |actor, _| {
            let held = actor.pair(&user_id).window.as_ref().and_then(|w| w.find(message_id).cloned());
            let (engine, character_id, user) = (actor.engine.clone(), actor.character_id.clone(), user_id.clone());
            Box::pin(
                async move {
                    let found = match held {
                        Some(found) => Some(found),
                        None => find_message(&engine, &user, &character_id, message_id).await?,
                    };
                    match found {
                        Some(message) if message.speaker == Speaker::User => {}
                        Some(_) => return Err(ChatError::Invalid("only your own messages can be changed".into())),
                        None => return Err(ChatError::NoMessage),
                    }
                    engine.store().conversations.delete_messages(&user, &character_id, &[message_id]).await?;
                    Ok(())
                }
                .into_actor(actor)
                .map(move |deleted, actor, ctx| {
                    deleted?;
                    if let Some(window) = actor.pair(&user_id).window.as_mut() {
                        window.messages.retain(|m| m.message_id != message_id);
                    }
                    actor.publish(
                        ctx,
                        &user_id,
                        ServerEvent::ChatMessageDeleted {
                            character_id: actor.character_id.clone(),
                            message_ids: vec![message_id],
                        },
                    );
                    actor.changed_elsewhere(ctx, &user_id);
                    Ok(())
                }),
            )
        })
    }
}

impl Handler<DeleteConversation> for CharacterActor {
    type Result = AtomicResponse<Self, Result<(), ChatError>>;

    fn handle(&mut self, message: DeleteConversation, _: &mut Self::Context) -> Self::Result {
        let user_id = message.user_id;
        let (engine, character_id, user) = (self.engine.clone(), self.character_id.clone(), user_id.clone());
        AtomicResponse::new(Box::pin(
            async move {
                let store = engine.store();
                let existed = store.conversations.delete(&user, &character_id).await?;
                for memory in store.memories.list(&user, &character_id).await? {
                    store.memories.delete(&user, &character_id, memory.memory_id).await?;
                }
                Ok::<_, ChatError>(existed)
            }
            .into_actor(self)
            .map(move |existed, actor, ctx| {
                let existed = existed?;
                // Whatever was held of the pair is gone with it; a reply in flight keeps its slot.
                let pair = actor.pair(&user_id);
                pair.window = None;
                pair.memories = None;
                actor.changed_elsewhere(ctx, &user_id);
                if existed { Ok(()) } else { Err(ChatError::NoConversation) }
            }),
        ))
    }
}

impl Handler<Memories> for CharacterActor {
    type Result = AtomicResponse<Self, Result<Vec<Memory>, ChatError>>;

    fn handle(&mut self, message: Memories, _: &mut Self::Context) -> Self::Result {
        let user_id = message.user_id;
        let owner = user_id.clone();
        after_load(self, None, &owner, Needs::MEMORIES, move |actor, _| {
            ready(Ok(actor.pair(&user_id).memories.clone().unwrap_or_default()))
        })
    }
}

impl Handler<AddMemory> for CharacterActor {
    type Result = AtomicResponse<Self, Result<Memory, ChatError>>;

    fn handle(&mut self, message: AddMemory, _: &mut Self::Context) -> Self::Result {
        let AddMemory { chatter, content } = message;
        let user_id = chatter.user_id.clone();
        let needs = Needs { character: true, window: false, memories: true, greeting: false };
        after_load(self, None, &user_id, needs, move |actor, _| {
            if let Err(error) = actor.visible_character(&chatter) {
                return ready(Err(error));
            }
            let content = match crate::chat::memory::memory_text(&content) {
                Ok(content) => content,
                Err(error) => return ready(Err(error)),
            };
            if actor.pair(&chatter.user_id).memories.as_ref().map_or(0, Vec::len) >= MAX_MEMORIES {
                return ready(Err(ChatError::Invalid(format!(
                    "a character keeps at most {MAX_MEMORIES} memories: delete one first"
                ))));
            }
            let memory = Memory { memory_id: new_entry_id(), content, origin: MemoryOrigin::User };
            let (engine, character_id, user, stored) =
                (actor.engine.clone(), actor.character_id.clone(), chatter.user_id.clone(), memory.clone());
            Box::pin(
                async move { engine.store().memories.add(&user, &character_id, stored).await }.into_actor(actor).map(
                    move |added, actor, ctx| {
                        added?;
                        if let Some(memories) = actor.pair(&chatter.user_id).memories.as_mut() {
                            memories.insert(0, memory.clone());
                        }
                        actor.changed_elsewhere(ctx, &chatter.user_id);
                        Ok(memory)
                    },
                ),
            )
        })
    }
}

impl Handler<UpdateMemory> for CharacterActor {
    type Result = AtomicResponse<Self, Result<(), ChatError>>;

    fn handle(&mut self, message: UpdateMemory, _: &mut Self::Context) -> Self::Result {
        let UpdateMemory { user_id, memory_id, content } = message;
        let owner = user_id.clone();
        after_load(self, None, &owner, Needs::MEMORIES, move |actor, _| {
            let content = match crate::chat::memory::memory_text(&content) {
                Ok(content) => content,
                Err(error) => return ready(Err(error)),
            };
            let (engine, character_id, user, text) =
                (actor.engine.clone(), actor.character_id.clone(), user_id.clone(), content.clone());
            Box::pin(
                async move { engine.store().memories.update(&user, &character_id, memory_id, &text).await }
                    .into_actor(actor)
                    .map(move |updated, actor, ctx| {
                        if !updated? {
                            return Err(ChatError::NoMemory);
                        }
                        if let Some(memory) = actor
                            .pair(&user_id)
                            .memories
                            .as_mut()
                            .and_then(|list| list.iter_mut().find(|m| m.memory_id == memory_id))
                        {
                            memory.content = content;
                            memory.origin = MemoryOrigin::User;
                        }
                        actor.changed_elsewhere(ctx, &user_id);
                        Ok(())
                    }),
            )
        })
    }
}

impl Handler<DeleteMemory> for CharacterActor {
    type Result = AtomicResponse<Self, Result<(), ChatError>>;

    fn handle(&mut self, message: DeleteMemory, _: &mut Self::Context) -> Self::Result {
        let DeleteMemory { user_id, memory_id } = message;
        let (engine, character_id, user) = (self.engine.clone(), self.character_id.clone(), user_id.clone());
        AtomicResponse::new(Box::pin(
            async move { engine.store().memories.delete(&user, &character_id, memory_id).await }.into_actor(self).map(
                move |deleted, actor, ctx| {
                    if !deleted? {
                        return Err(ChatError::NoMemory);
                    }
                    if let Some(memories) = actor.pair(&user_id).memories.as_mut() {
                        memories.retain(|m| m.memory_id != memory_id);
                    }
                    actor.changed_elsewhere(ctx, &user_id);
                    Ok(())
                },
            ),
        ))
    }
}

impl Handler<CharacterNews> for CharacterActor {
    type Result = ();

    fn handle(&mut self, CharacterNews(notice): CharacterNews, _: &mut Self::Context) {
        match notice {
            CharacterNotice::Changed => self.character = None,
            CharacterNotice::ConversationChanged { user_id } => {
                if let Some(pair) = self.pairs.get_mut(&user_id) {
                    pair.window = None;
                    pair.memories = None;
                }
            }
        }
    }
}

impl Handler<Stop> for CharacterActor {
    type Result = ();

    fn handle(&mut self, _: Stop, ctx: &mut Self::Context) {
        // A reply in flight is stored by this actor when it ends: let it finish first.
        if self.pairs.values().any(Pair::is_busy) {
            self.evicted = true;
        } else {
            ctx.stop();
        }
    }
}
