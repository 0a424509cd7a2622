//! `CharacterActor`: one per active character per node. It holds, for each user talking
//! with the character, the reply in flight (at most one per user–character pair: a second
//! send while one runs is refused with `Busy`, never interleaved) and how many replies
//! have passed since memories were last extracted. Messages and memories live in the
//! store; losing this actor loses nothing but the extraction count.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use amora_ai::chat::CancellationToken;
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId};
use amora_domain::chat::MessageText;

use crate::chat::engine::{ReplyEnd, error_frame};
use crate::chat::{ChatEngine, ChatError, Chatter, MessageView, new_entry_id};
use crate::events::Frame;
use crate::registry::{Registry, UnregisterCharacter};

/// Stores the user's message and starts the reply (streamed as events). Answers the
/// stored message.
#[derive(Message)]
#[rtype(result = "Result<MessageView, ChatError>")]
pub struct SendMessage {
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

/// Stops the user's reply in flight; the text so far is kept. False when none runs here.
#[derive(Message)]
#[rtype(result = "bool")]
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

/// Sent by a reply's task when it ended.
#[derive(Message)]
#[rtype(result = "()")]
struct ReplyEnded {
    user_id: UserId,
    turn: u64,
    end: ReplyEnd,
    chatter: Chatter,
    /// `chatDone` or `chatError`, published once the slot is free.
    closing: Frame,
}

/// Sent by an extraction's task when it ended.
#[derive(Message)]
#[rtype(result = "()")]
struct ExtractionEnded {
    user_id: UserId,
}

struct InFlight {
    turn: u64,
    cancel: CancellationToken,
}

/// How often an idle actor checks whether to stop.
const IDLE_CHECK: Duration = Duration::from_secs(10);

pub struct CharacterActor {
    character_id: CharacterId,
    engine: Arc<ChatEngine>,
    registry: Addr<Registry>,
    incarnation: u64,
    replies: HashMap<UserId, InFlight>,
    /// Stored replies per user since memories were last extracted.
    turns_since_extraction: HashMap<UserId, u32>,
    /// Users whose memories are being extracted now: one extraction per pair at a time,
    /// so two cannot both add the same fact.
    extracting: HashSet<UserId>,
    next_turn: u64,
    idle_after: Duration,
    last_active: Instant,
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
            replies: HashMap::new(),
            turns_since_extraction: HashMap::new(),
            extracting: HashSet::new(),
            next_turn: 0,
            idle_after,
            last_active: Instant::now(),
        }
    }

    /// Claims the pair's reply slot, or says a reply is running.
    fn claim(&mut self, user_id: &UserId) -> Result<(u64, CancellationToken), ChatError> {
        self.last_active = Instant::now();
        if self.replies.contains_key(user_id) {
            return Err(ChatError::Busy);
        }
        self.next_turn += 1;
        let cancel = CancellationToken::new();
        self.replies.insert(user_id.clone(), InFlight { turn: self.next_turn, cancel: cancel.clone() });
        Ok((self.next_turn, cancel))
    }

    fn release(&mut self, user_id: &UserId, turn: u64) {
        if self.replies.get(user_id).is_some_and(|r| r.turn == turn) {
            self.replies.remove(user_id);
        }
    }

    /// Runs a reply on its own task; the actor hears `ReplyEnded` after.
    fn spawn_reply(
        &self,
        ctx: &Context<Self>,
        chatter: Chatter,
        turn: u64,
        cancel: CancellationToken,
        prepare: Prepare,
    ) {
        let engine = self.engine.clone();
        let me = ctx.address();
        let character_id = self.character_id.clone();
        actix::spawn(async move {
            let (end, closing) = match engine.character(&character_id, chatter.viewer).await {
                Ok(character) => {
                    let prepared = match prepare {
                        Prepare::Nothing => Ok(()),
                        Prepare::Regenerate => engine.prepare_regenerate(&chatter, &character).await,
                    };
                    match prepared {
                        Ok(()) => engine.reply(&chatter, &character, new_entry_id(), cancel).await,
                        Err(error) => (ReplyEnd::Failed, error_frame(&character_id, None, &error)),
                    }
                }
                Err(error) => (ReplyEnd::Failed, error_frame(&character_id, None, &error)),
            };
            me.do_send(ReplyEnded { user_id: chatter.user_id.clone(), turn, end, chatter, closing });
        });
    }

    /// Extracts memories of `chatter` on its own task unless an extraction of theirs runs
    /// already. A failure the user asked for (`on_demand`) reaches them as `chatError`;
    /// `memorySaved` ends their "saving" state either way.
    fn start_extraction(&mut self, ctx: &Context<Self>, chatter: Chatter, character: Character, on_demand: bool) {
        self.turns_since_extraction.remove(&chatter.user_id);
        if !self.extracting.insert(chatter.user_id.clone()) {
            return;
        }
        let engine = self.engine.clone();
        let me = ctx.address();
        actix::spawn(async move {
            if let Err(error) = engine.extract_memories(&chatter, &character).await {
                let character_id = &character.card.character_id;
                tracing::warn!(%error, character = %character_id, on_demand, "memory extraction failed");
                if on_demand {
                    engine.publish(&chatter.user_id, error_frame(character_id, None, &error)).await;
                }
            }
            me.do_send(ExtractionEnded { user_id: chatter.user_id });
        });
    }
}

/// What a reply's task does before writing.
enum Prepare {
    Nothing,
    Regenerate,
}

impl Actor for CharacterActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let every = IDLE_CHECK.min(self.idle_after / 2).max(Duration::from_millis(10));
        ctx.run_interval(every, |actor, ctx| {
            let busy = !actor.replies.is_empty() || !actor.extracting.is_empty();
            if !busy && actor.last_active.elapsed() >= actor.idle_after {
                ctx.stop();
            }
        });
    }

    fn stopping(&mut self, _: &mut Self::Context) -> Running {
        // A reply in flight keeps going on its own task and stores its text; only the
        // ability to stop it from here ends.
        self.registry
            .do_send(UnregisterCharacter { character_id: self.character_id.clone(), incarnation: self.incarnation });
        Running::Stop
    }
}

impl Handler<SendMessage> for CharacterActor {
    type Result = ResponseActFuture<Self, Result<MessageView, ChatError>>;

    fn handle(&mut self, message: SendMessage, _: &mut Self::Context) -> Self::Result {
        let SendMessage { chatter, text } = message;
        let (turn, cancel) = match self.claim(&chatter.user_id) {
            Ok(claimed) => claimed,
            Err(error) => return Box::pin(actix::fut::ready(Err(error))),
        };
        let engine = self.engine.clone();
        let character_id = self.character_id.clone();
        let accepted_by = chatter.clone();
        Box::pin(
            async move {
                let character = engine.character(&character_id, accepted_by.viewer).await?;
                let stored = engine.accept(&accepted_by, &character, text).await?;
                Ok::<_, ChatError>(MessageView::from(&stored))
            }
            .into_actor(self)
            .map(move |result, actor, ctx| {
                match &result {
                    Ok(_) => actor.spawn_reply(ctx, chatter, turn, cancel, Prepare::Nothing),
                    Err(_) => actor.release(&chatter.user_id, turn),
                }
                result
            }),
        )
    }
}

impl Handler<Regenerate> for CharacterActor {
    type Result = Result<(), ChatError>;

    fn handle(&mut self, message: Regenerate, ctx: &mut Self::Context) -> Self::Result {
        let (turn, cancel) = self.claim(&message.chatter.user_id)?;
        self.spawn_reply(ctx, message.chatter, turn, cancel, Prepare::Regenerate);
        Ok(())
    }
}

impl Handler<StopReply> for CharacterActor {
    type Result = bool;

    fn handle(&mut self, message: StopReply, _: &mut Self::Context) -> bool {
        self.last_active = Instant::now();
        match self.replies.get(&message.user_id) {
            Some(reply) => {
                reply.cancel.cancel();
                true
            }
            None => false,
        }
    }
}

impl Handler<SaveMemories> for CharacterActor {
    type Result = ResponseActFuture<Self, Result<(), ChatError>>;

    fn handle(&mut self, message: SaveMemories, _: &mut Self::Context) -> Self::Result {
        self.last_active = Instant::now();
        let engine = self.engine.clone();
        let character_id = self.character_id.clone();
        let viewer = message.chatter.viewer;
        Box::pin(async move { engine.character(&character_id, viewer).await }.into_actor(self).map(
            move |character, actor, ctx| {
                actor.start_extraction(ctx, message.chatter, character?, true);
                Ok(())
            },
        ))
    }
}

impl Handler<ExtractionEnded> for CharacterActor {
    type Result = ();

    fn handle(&mut self, message: ExtractionEnded, _: &mut Self::Context) {
        self.extracting.remove(&message.user_id);
        self.last_active = Instant::now();
    }
}

impl Handler<ReplyEnded> for CharacterActor {
    type Result = ();

    fn handle(&mut self, message: ReplyEnded, ctx: &mut Self::Context) {
        self.release(&message.user_id, message.turn);
        self.last_active = Instant::now();
        let engine = self.engine.clone();
        let (user_id, closing) = (message.user_id.clone(), message.closing);
        actix::spawn(async move { engine.publish(&user_id, closing).await });
        if message.end != ReplyEnd::Stored {
            return;
        }
        let every = self.engine.settings().memory_every_turns;
        let turns = self.turns_since_extraction.entry(message.user_id.clone()).or_insert(0);
        *turns += 1;
        if every == 0 || *turns < every {
            return;
        }
        let engine = self.engine.clone();
        let character_id = self.character_id.clone();
        let viewer = message.chatter.viewer;
        ctx.spawn(async move { engine.character(&character_id, viewer).await }.into_actor(self).map(
            move |character, actor, ctx| match character {
                Ok(character) => actor.start_extraction(ctx, message.chatter, character, false),
                Err(error) => tracing::warn!(%error, "automatic memory extraction: the character is gone"),
            },
        ));
    }
}
