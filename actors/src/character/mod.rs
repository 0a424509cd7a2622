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
//!
//! Here: the actor, what it holds and how it loads it. The messages and their handlers live
//! with their part of a conversation: `turns` (send, regenerate, stop, the reply's end),
//! `history` (pages, edits, deletes), `memories` (extraction and the memories panel) and
//! `swipes` (versions of a reply, continuing one).

mod group_part;
mod history;
mod memories;
mod swipes;
mod turns;

pub use group_part::{CharacterPart, GroupPart};
pub use history::{AddPicture, ChooseGreeting, DeleteConversation, DeleteMessage, EditMessage, FindMessage, History};
pub use memories::{AddMemory, DeleteMemory, Memories, PinMemory, SaveMemories, UpdateMemory};
pub use swipes::{Continue, NewestSwipes, Swipe};
pub use turns::{Regenerate, ReplyInFlight, Send, StopReply};

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use amora_ai::chat::CancellationToken;
use amora_cards::CompiledLorebook;
use amora_domain::Invalid;
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId};
use amora_domain::chat::{EntryId, MessageId, Speaker, fill_placeholders};
use amora_store::{Memory, StoredMessage};

use crate::bus::{CharacterNotice, Resync};
use crate::chat::lore::CardLore;
use crate::chat::{ChatEngine, ChatError, Chatter, new_entry_id};
use crate::supervision::{Passivated, Shed, Stop};
use crate::user::UserAddr;
use crate::wire::chat::MessageView;
use crate::wire::events::ServerEvent;

/// Messages of a conversation held in the window; the prompt's token budget usually uses fewer.
pub const HISTORY_WINDOW: usize = 60;
/// How long the character's persona is trusted before it is read again; an operator's
/// change or hiding reaches the actor at once through a `CharacterNotice` besides.
const CHARACTER_FRESH_FOR: Duration = Duration::from_secs(60);
/// How often an idle actor checks whether to stop.
const IDLE_CHECK: Duration = Duration::from_secs(10);
/// A pair nobody touched for this long is dropped from memory (it is all in the store).
const PAIR_IDLE: Duration = Duration::from_secs(600);

/// The actor of a character, spawned if this node has none (asked of the `Registry`).
#[derive(Message)]
#[rtype(result = "Addr<CharacterActor>")]
pub struct CharacterAddr(pub CharacterId);

/// News from the bus about this character (from the registry).
#[derive(Message)]
#[rtype(result = "()")]
pub struct CharacterNews(pub CharacterNotice);

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
    /// The id the stored reply will have, once the model's task started.
    reply_id: Option<EntryId>,
    /// The text written so far (the engine appends each piece as it streams it).
    partial: Arc<std::sync::Mutex<String>>,
}

/// One user's conversation with this character, as far as it is held here.
#[derive(Default)]
struct Pair {
    window: Option<Window>,
    /// Newest first.
    memories: Option<Vec<Memory>>,
    reply: Option<InFlight>,
    /// The pending-debit row of the free message that pays for the reply in flight
    /// (`pending.rs`): closed when the reply is stored, given back when it fails.
    credit: Option<String>,
    turns_since_extraction: u32,
    extracting: bool,
    last_used: Option<Instant>,
}

impl Pair {
    fn is_busy(&self) -> bool {
        self.reply.is_some() || self.extracting
    }

    /// Whether the pair may leave memory: nothing is at work in it (a reply, an
    /// extraction, a free message not yet settled) and nobody used it for `unused_for`.
    fn may_leave(&self, unused_for: Duration) -> bool {
        !self.is_busy() && self.credit.is_none() && self.last_used.is_none_or(|t| t.elapsed() >= unused_for)
    }
}

pub struct CharacterActor {
    character_id: CharacterId,
    engine: Arc<ChatEngine>,
    /// The registry: where a user's actor is found (a turn's free message), and told
    /// when this actor stops.
    users: Recipient<UserAddr>,
    passivated: Recipient<Passivated>,
    incarnation: u64,
    /// The character as last read, and when; `None` inside when it is gone or hidden.
    character: Option<(Option<Character>, Instant)>,
    /// The lorebook of the character's card, read when the card changes, not at every turn
    /// (nor at every refresh of the character: the same card JSON is not parsed again).
    lore: Option<CardLore>,
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
    /// The lorebook of the character read, when it has a card.
    lore: Option<CardLore>,
    window: Option<Window>,
    memories: Option<Vec<Memory>>,
    greeting: Option<StoredMessage>,
}

impl CharacterActor {
    pub fn new(
        character_id: CharacterId,
        engine: Arc<ChatEngine>,
        users: Recipient<UserAddr>,
        passivated: Recipient<Passivated>,
        incarnation: u64,
        idle_after: Duration,
    ) -> Self {
        Self {
            character_id,
            engine,
            users,
            passivated,
            incarnation,
            character: None,
            lore: None,
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

    /// Lets go of the conversations nobody used for `unused_for` (`Pair::may_leave`), and of
    /// the map's room once most of it is empty.
    fn shed(&mut self, unused_for: Duration) {
        self.pairs.retain(|_, pair| !pair.may_leave(unused_for));
        if self.pairs.capacity() > 4 * self.pairs.len().max(8) {
            self.pairs.shrink_to_fit();
        }
    }

    /// Holds the character as just read, and its card's lorebook.
    fn keep_character(&mut self, character: Option<Character>, lore: Option<CardLore>) {
        self.lore = lore;
        self.character = Some((character, Instant::now()));
    }

    /// The lorebook of the character's card, when it has one.
    fn lorebook(&self) -> Option<Arc<CompiledLorebook>> {
        self.lore.as_ref().and_then(CardLore::book).cloned()
    }

    /// The character if it is held and fresh.
    fn fresh_character(&self) -> Option<&Option<Character>> {
        self.character.as_ref().filter(|(_, read)| read.elapsed() < CHARACTER_FRESH_FOR).map(|(character, _)| character)
    }

    /// The character as `chatter` may see it, from what is held.
    fn visible_character(&self, chatter: &Chatter) -> Result<Character, ChatError> {
        let character = self.fresh_character().cloned().flatten().ok_or(ChatError::NoCharacter)?;
        if !chatter.may_open(&character) {
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
        let held_lore = self.lore.clone();
        let (engine, character_id, user) = (self.engine.clone(), self.character_id.clone(), user_id.clone());
        let keep_for = user_id.clone();
        Box::pin(
            async move {
                let store = engine.store();
                let mut loaded = Loaded::default();
                if want_character {
                    let character = engine.load_character(&character_id).await?;
                    // Read and compiled off this thread (`lore`), and only when the card changed.
                    loaded.lore = match &character {
                        Some(character) => Some(CardLore::of_off_thread(character, held_lore).await),
                        None => None,
                    };
                    loaded.character = Some(character);
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
                    && chatter.may_open(&character)
                {
                    let greeting = StoredMessage {
                        message_id: new_entry_id(),
                        speaker: Speaker::Character,
                        content: greeting_text(&localized(character, &chatter.language), 0, &chatter.user_name)?,
                        image: None,
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
                    actor.keep_character(character, loaded.lore);
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
        // Delivered on this node now, in the order published; the rest is other nodes'.
        let elsewhere = self.engine.bus().publish(user_id, event);
        ctx.spawn(elsewhere.into_actor(self));
    }

    /// Tells this character's actors on other nodes that the pair changed here.
    fn changed_elsewhere(&self, ctx: &mut Context<Self>, user_id: &UserId) {
        let notice = CharacterNotice::ConversationChanged { user_id: user_id.clone() };
        let elsewhere = self.engine.bus().notify_character(&self.character_id, notice, false);
        ctx.spawn(elsewhere.into_actor(self));
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
}

/// The character's greeting number `index` (0: the main one, `i`: the card's
/// `alternate_greetings[i - 1]`) with the user's and the character's names filled in.
fn greeting_text(character: &Character, index: usize, user_name: &str) -> Result<String, ChatError> {
    let alternates = &character.extras.alternate_greetings;
    let raw = match index {
        0 => &character.greeting,
        i => alternates
            .get(i - 1)
            .ok_or_else(|| Invalid::new("index", format!("must be from 0 to {}", alternates.len())))?,
    };
    Ok(fill_placeholders(raw, user_name, &character.card.character_name))
}

/// The character with a seeded character's introduction and greeting in `language` (the
/// greeting of a new conversation is written in the user's language).
fn localized(mut character: Character, language: &str) -> Character {
    amora_store::seed::localize_character(&mut character, language);
    character
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
            actor.shed(PAIR_IDLE);
            let busy = actor.pairs.values().any(Pair::is_busy);
            if !busy && (actor.evicted || actor.last_active.elapsed() >= actor.idle_after) {
                ctx.stop();
            }
        });
    }

    fn stopping(&mut self, _: &mut Self::Context) -> Running {
        // A reply in flight keeps going on its own task; only storing it ends with us,
        // so an actor with a reply running is never stopped for idleness (see `started`).
        self.passivated
            .do_send(Passivated::Character { character_id: self.character_id.clone(), incarnation: self.incarnation });
        Running::Stop
    }
}

impl Handler<Shed> for CharacterActor {
    type Result = ();

    fn handle(&mut self, Shed { unused_for }: Shed, _: &mut Self::Context) {
        self.shed(unused_for);
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

impl Handler<Resync> for CharacterActor {
    type Result = ();

    /// The bus is back after news may have been lost: the character and every
    /// conversation held are read again before their next turn, as on their notices.
    fn handle(&mut self, _: Resync, _: &mut Self::Context) {
        self.character = None;
        for pair in self.pairs.values_mut() {
            pair.window = None;
            pair.memories = None;
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

#[cfg(test)]
mod tests {
    use amora_domain::account::UserId;
    use amora_domain::character::{CharacterStatus, Exposure};
    use amora_domain::viewer::Viewer;

    use super::*;
    use crate::chat::lore::samples::marisol;

    fn chatter(user_id: &str, viewer: Viewer) -> Chatter {
        Chatter {
            user_id: UserId::parse(user_id).unwrap_or_else(|e| panic!("{e}")),
            user_name: "Ann".into(),
            persona: String::new(),
            language: "en".into(),
            nsfw: false,
            paid: false,
            viewer,
        }
    }

    #[test]
    fn a_greeting_is_the_main_one_or_an_alternate_with_the_names_filled_in() {
        let character = marisol();
        let text = |index| greeting_text(&character, index, "Ann");
        assert_eq!(
            text(0).ok().as_deref(),
            Some("*The door creaks open.* You look half drowned. Come in before the wind takes you, Ann.")
        );
        assert_eq!(
            text(1).ok().as_deref(),
            Some("*She is on the gallery, polishing the lens.* Storm's coming. You'd best stay.")
        );
        assert_eq!(text(2).ok().as_deref(), Some("Another one washed up. Tea's on the stove, Ann."));
        let out_of_range = text(3).err().unwrap_or_else(|| panic!("index 3 of 2 alternates"));
        assert_eq!(out_of_range.code().value(), 10001);
        assert!(out_of_range.public_message().contains("must be from 0 to 2"), "{out_of_range}");
    }

    #[test]
    fn a_character_out_of_the_catalogue_is_its_creators_alone() {
        let mut character = marisol();
        assert_eq!(character.creator_id.as_deref(), Some("creator1"));
        for status in [CharacterStatus::Private, CharacterStatus::Review, CharacterStatus::Rejected] {
            character.status = status;
            assert!(chatter("creator1", Viewer::NewUser).may_open(&character), "{status:?}");
            assert!(!chatter("other1", Viewer::Member).may_open(&character), "{status:?}");
        }
        character.status = CharacterStatus::Public;
        assert!(chatter("other1", Viewer::NewUser).may_open(&character));
        character.exposure = Exposure::Restricted;
        assert!(!chatter("other1", Viewer::NewUser).may_open(&character), "exposure counts for others");
        assert!(chatter("other1", Viewer::Member).may_open(&character));
        assert!(chatter("creator1", Viewer::SignedOut).may_open(&character), "not for the creator");
    }
}
