//! A conversation's turns: a message sent, a reply written again or stopped, and the
//! reply's end, when it is stored and announced.

use std::sync::Arc;
use std::time::Instant;

use actix::prelude::*;
use amora_ai::chat::{CancellationToken, FinishReason};
use amora_domain::account::UserId;
use amora_domain::character::{Character, UsedType};
use amora_domain::chat::{EntryId, MessageText, Speaker};
use amora_store::StoredMessage;
use futures_util::FutureExt;

use super::swipes::{Writing, keep_version, put_back, store_written, view};
use super::{CharacterActor, InFlight, Needs, after_load, ready};
use crate::chat::Found;
use crate::chat::engine::ReplyContext;
use crate::chat::metrics::{Outcome, Phase};
use crate::chat::{ChatError, Chatter, new_entry_id, reply_was_cut};
use crate::moderation::Surface;
use crate::pending::{Journal, Owed, free_message_id};
use crate::user::UserAddr;
use crate::user::{GiveBackFreeMessage, TakeFreeMessage, utc_day};
use crate::wire::chat::{MessageView, RecalledView};
use crate::wire::events::{ReplyEnd, ServerEvent};

/// Stores the user's message and starts the reply (streamed as events). Answers the
/// stored message.
#[derive(Message)]
#[rtype(result = "Result<MessageView, ChatError>")]
pub struct Send {
    pub chatter: Chatter,
    pub text: MessageText,
}

/// Writes the newest reply again (the old one stays as a version of it, see `swipes`), or
/// the missing reply after a failure.
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

/// The reply being written for the user, if any: its id and the text so far (empty before
/// the first piece). A page of history read mid-reply carries it, so a reloaded page shows
/// the words already streamed and goes on with the next `chatDelta`.
#[derive(Message)]
#[rtype(result = "Option<(EntryId, String)>")]
pub struct ReplyInFlight {
    pub user_id: UserId,
}

/// Sent by a reply's task when the model is done.
#[derive(Message)]
#[rtype(result = "()")]
pub(super) struct ReplyEnded {
    chatter: Chatter,
    turn: u64,
    reply_id: EntryId,
    written: Result<Option<(String, FinishReason)>, ChatError>,
    writing: Writing,
    /// What recall put into the reply's prompt.
    recalled: Option<RecalledView>,
}

/// A turn whose slot is claimed and whose credit is taken (`paid_turn`): what starting
/// its reply needs.
pub(super) struct ClaimedTurn {
    pub chatter: Chatter,
    pub character: Character,
    pub turn: u64,
    pub cancel: CancellationToken,
}

impl ClaimedTurn {
    /// Starts the model on the turn's reply (`spawn_reply`).
    pub fn start_reply(self, actor: &mut CharacterActor, ctx: &mut Context<CharacterActor>, writing: Writing) {
        actor.spawn_reply(ctx, self.chatter, self.character, self.turn, self.cancel, writing);
    }
}

impl CharacterActor {
    /// Claims the pair's reply slot, or says a reply is running.
    pub(super) fn claim(&mut self, user_id: &UserId) -> Result<(u64, CancellationToken), ChatError> {
        self.last_active = Instant::now();
        self.next_turn += 1;
        let turn = self.next_turn;
        let pair = self.pair(user_id);
        if pair.reply.is_some() {
            return Err(ChatError::Busy);
        }
        let cancel = CancellationToken::new();
        pair.reply = Some(InFlight { turn, cancel: cancel.clone(), reply_id: None, partial: Arc::default() });
        Ok((turn, cancel))
    }

    pub(super) fn release(&mut self, user_id: &UserId, turn: u64) {
        if let Some(pair) = self.pairs.get_mut(user_id)
            && pair.reply.as_ref().is_some_and(|r| r.turn == turn)
        {
            pair.reply = None;
        }
    }

    /// A paid turn, as sending, writing again and continuing all run it: the pair's reply
    /// slot claimed, the credit taken (one of the day's free messages for a free user), then
    /// `prepare`, the turn's own store work (a future does nothing until polled, so it runs
    /// only once the credit is taken). If the credit or `prepare` fails, the slot is
    /// released and the credit given back; else `start` gets the claimed turn and what
    /// `prepare` made, and starts the reply.
    pub(super) fn paid_turn<P: 'static, R: 'static>(
        &mut self,
        chatter: Chatter,
        character: Character,
        prepare: impl Future<Output = Result<P, ChatError>> + 'static,
        start: impl FnOnce(&mut Self, &mut Context<Self>, ClaimedTurn, P) -> R + 'static,
    ) -> ResponseActFuture<Self, Result<R, ChatError>> {
        let (turn, cancel) = match self.claim(&chatter.user_id) {
            Ok(claimed) => claimed,
            Err(error) => return ready(Err(error)),
        };
        Box::pin(self.take_credit(&chatter, &character).then(move |credit, actor, _| {
            let took_credit = match credit {
                Ok(took) => took,
                Err(error) => {
                    actor.release(&chatter.user_id, turn);
                    return ready(Err(error));
                }
            };
            Box::pin(prepare.into_actor(actor).map(move |prepared, actor, ctx| match prepared {
                Ok(prepared) => Ok(start(actor, ctx, ClaimedTurn { chatter, character, turn, cancel }, prepared)),
                Err(error) => {
                    actor.release(&chatter.user_id, turn);
                    if took_credit {
                        actor.give_back_credit(ctx, &chatter, None);
                    }
                    Err(error)
                }
            }))
        }))
    }

    /// Free users pay for a message with one of the day's free messages; paid users write
    /// freely; premium characters are for paid users.
    pub(super) fn take_credit(
        &self,
        chatter: &Chatter,
        character: &Character,
    ) -> ResponseActFuture<Self, Result<bool, ChatError>> {
        if chatter.paid {
            return Box::pin(actix::fut::ready(Ok(false)));
        }
        let chatter_id = chatter.user_id.clone();
        if character.card.used_type == UsedType::Premium {
            return Box::pin(actix::fut::ready(Err(ChatError::PremiumCharacter)));
        }
        let (users, user_id, limit) =
            (self.users.clone(), chatter.user_id.clone(), self.engine.settings().free_messages_per_day);
        let journal = Journal::new(self.engine.store().clone(), self.engine.bus());
        Box::pin(
            async move {
                let user = users.send(UserAddr(user_id.clone())).await?;
                if !user.send(TakeFreeMessage { limit }).await?? {
                    return Err(ChatError::OutOfCredits);
                }
                // Journaled once taken: a node killed before the reply is stored leaves the
                // row, and a recovery gives the message back (`pending.rs`). Unjournaled, it
                // is given back now and the turn refused.
                let debit_id = free_message_id(&user_id, new_entry_id());
                if let Err(error) = journal.open(&debit_id, &user_id, &Owed::Reply { day: utc_day() }).await {
                    user.send(GiveBackFreeMessage).await??;
                    return Err(ChatError::from(error));
                }
                Ok(debit_id)
            }
            .into_actor(self)
            .map(move |taken, actor, _| {
                let debit_id = taken?;
                actor.pair(&chatter_id).credit = Some(debit_id);
                Ok(true)
            }),
        )
    }

    /// The reply is stored (or stopped, its text kept): the free message that paid for it
    /// is spent, and its pending row goes.
    pub(super) fn spend_credit(&mut self, ctx: &mut Context<Self>, user_id: &UserId) {
        let Some(debit_id) = self.pairs.get_mut(user_id).and_then(|pair| pair.credit.take()) else { return };
        let journal = Journal::new(self.engine.store().clone(), self.engine.bus());
        ctx.spawn(async move { journal.close(&debit_id).await }.into_actor(self).map(|_, _, _| ()));
    }

    /// Gives back a free message taken for a message whose reply never came: only if its
    /// pending row is still there (a recovery may have given it back already). `then` is
    /// published once it is back, so a client told the reply failed reads its credits
    /// whole (on Cassandra the pending row's removal takes a few milliseconds).
    pub(super) fn give_back_credit(&mut self, ctx: &mut Context<Self>, chatter: &Chatter, then: Option<ServerEvent>) {
        if chatter.paid {
            if let Some(event) = then {
                self.publish(ctx, &chatter.user_id, event);
            }
            return;
        }
        let (users, user_id) = (self.users.clone(), chatter.user_id.clone());
        let debit_id = self.pairs.get_mut(&user_id).and_then(|pair| pair.credit.take());
        let journal = Journal::new(self.engine.store().clone(), self.engine.bus());
        ctx.spawn(
            async move {
                let given = async {
                    if let Some(debit_id) = debit_id
                        && !journal.close(&debit_id).await
                    {
                        return Ok(());
                    }
                    let user = users.send(UserAddr(user_id.clone())).await?;
                    user.send(GiveBackFreeMessage).await??;
                    Ok::<_, ChatError>(())
                };
                if let Err(error) = given.await {
                    tracing::error!(%error, user = %user_id, "a free message could not be given back");
                }
                user_id
            }
            .into_actor(self)
            .map(move |user_id, actor, ctx| {
                if let Some(event) = then {
                    actor.publish(ctx, &user_id, event);
                }
            }),
        );
    }

    /// Starts the model on the pair's reply; the actor hears `ReplyEnded` after.
    pub(super) fn spawn_reply(
        &mut self,
        ctx: &mut Context<Self>,
        chatter: Chatter,
        character: Character,
        turn: u64,
        cancel: CancellationToken,
        writing: Writing,
    ) {
        let pair = self.pair(&chatter.user_id);
        let window: Vec<StoredMessage> =
            pair.window.as_ref().map(|w| w.messages.iter().cloned().collect()).unwrap_or_default();
        let window_is_whole = pair.window.as_ref().is_some_and(|w| w.whole);
        let memories = pair.memories.clone().unwrap_or_default();
        let lorebook = self.lorebook();
        let engine = self.engine.clone();
        let me = ctx.address();
        let reply_id = writing.reply_id();
        let continues = writing.continues();
        // A continuation's text so far starts empty: `chatDelta` offsets count from where
        // the continuation starts, as the client shows it after the message's own text.
        let partial = self.pair(&chatter.user_id).reply.as_mut().map(|reply| {
            reply.reply_id = Some(reply_id);
            reply.partial.clone()
        });
        actix::spawn(async move {
            let started = Instant::now();
            let nothing = Found::default();
            // Once for the reply (recall and the reply assemble the prompt three times), off this thread.
            let lore = engine.choose_lore(lorebook, &window).await;
            let lore = lore.entries();
            let mut context = ReplyContext {
                chatter: &chatter,
                character: &character,
                window: &window,
                window_is_whole,
                memories: &memories,
                lore: &lore,
                partial: partial.as_deref(),
                continues,
                recall: &nothing,
                reply_to: crate::chat::engine::ReplyTo::Conversation,
            };
            let found = engine.recall(&context).await;
            context.recall = &found;
            engine.metrics().observe(Phase::Recall, started.elapsed());
            // A panic while writing (a bug) still ends the reply, with an error the user sees,
            // rather than leaving the conversation waiting for a reply that never comes.
            let written = std::panic::AssertUnwindSafe(engine.write_reply(&context, reply_id, cancel))
                .catch_unwind()
                .await
                .unwrap_or_else(|_| {
                    tracing::error!(reply = %reply_id, "writing a reply panicked");
                    Err(ChatError::Model("writing the reply failed".into()))
                });
            let recalled = found.view();
            me.do_send(ReplyEnded { chatter, turn, reply_id, written, writing, recalled });
        });
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
            // The door (`Conversations::send`) ran both layers; the rules hold here too, for
            // any way in.
            let moderator = actor.engine.moderator();
            if let Err(refusal) = moderator.check_rules(Surface::ChatMessage, Some(&chatter.user_id), text.as_str()) {
                return ready(Err(ChatError::Refused(refusal)));
            }
            let message = StoredMessage {
                message_id: new_entry_id(),
                speaker: Speaker::User,
                content: text.into_string(),
                image: None,
            };
            let (engine, character_id, user) =
                (actor.engine.clone(), actor.character_id.clone(), chatter.user_id.clone());
            let stored = message.clone();
            let append = async move { Ok(engine.store().conversations.append(&user, &character_id, stored).await?) };
            actor.paid_turn(chatter, character, append, move |actor, ctx, turn, ()| {
                let user_id = turn.chatter.user_id.clone();
                if let Some(window) = actor.pair(&user_id).window.as_mut() {
                    window.push(message.clone());
                }
                let view = MessageView::from(&message);
                let event =
                    ServerEvent::ChatMessage { character_id: actor.character_id.clone(), message: view.clone() };
                actor.publish(ctx, &user_id, event);
                actor.changed_elsewhere(ctx, &user_id);
                actor.engine.metrics().observe(Phase::Accept, started.elapsed());
                turn.start_reply(actor, ctx, Writing::Reply);
                view
            })
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
            let (parent, to_delete) = match newest.as_slice() {
                // A picture asked for in chat is not a reply: it is never written again.
                [reply, asked, ..]
                    if reply.speaker == Speaker::Character
                        && reply.image.is_none()
                        && asked.speaker == Speaker::User =>
                {
                    (asked.message_id, Some(reply.clone()))
                }
                [asked, ..] if asked.speaker == Speaker::User => (asked.message_id, None),
                _ => {
                    return ready(Err(ChatError::Invalid(
                        "there is no reply to write again: send a message first".into(),
                    )));
                }
            };
            let (engine, character_id, user) =
                (actor.engine.clone(), actor.character_id.clone(), chatter.user_id.clone());
            let replaced = to_delete.clone();
            let delete = async move {
                if let Some(reply) = &replaced {
                    // Kept as a version before it leaves the conversation.
                    keep_version(&engine, &user, &character_id, parent, reply).await?;
                    let reply_id = reply.message_id;
                    engine.store().conversations.delete_messages(&user, &character_id, &[reply_id]).await?;
                }
                Ok::<_, ChatError>(())
            };
            actor.paid_turn(chatter, character, delete, move |actor, ctx, turn, ()| {
                let user_id = turn.chatter.user_id.clone();
                if let Some(reply_id) = to_delete.as_ref().map(|reply| reply.message_id) {
                    if let Some(window) = actor.pair(&user_id).window.as_mut() {
                        window.messages.retain(|m| m.message_id != reply_id);
                    }
                    let event = ServerEvent::ChatMessageDeleted {
                        character_id: actor.character_id.clone(),
                        message_ids: vec![reply_id],
                    };
                    actor.publish(ctx, &user_id, event);
                    actor.changed_elsewhere(ctx, &user_id);
                }
                turn.start_reply(actor, ctx, Writing::Version { parent, replaced: to_delete });
            })
        })
    }
}

impl Handler<ReplyInFlight> for CharacterActor {
    type Result = Option<(EntryId, String)>;

    fn handle(&mut self, message: ReplyInFlight, _: &mut Self::Context) -> Self::Result {
        let reply = self.pairs.get(&message.user_id)?.reply.as_ref()?;
        let text = reply.partial.lock().map(|text| text.clone()).unwrap_or_default();
        Some((reply.reply_id?, text))
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
        let ReplyEnded { chatter, turn, reply_id, written, writing, recalled } = message;
        let (engine, character_id, user) = (self.engine.clone(), self.character_id.clone(), chatter.user_id.clone());
        // The reply is stored before `chatDone` says so; the slot is freed before either
        // event goes out, so a client answering it is never told "busy".
        let stored = async move {
            let stored = async {
                match written {
                    Ok(Some((content, finish))) => {
                        let started = Instant::now();
                        let (message, swipes) =
                            store_written(&engine, &user, &character_id, &writing, reply_id, content).await?;
                        engine.metrics().observe(Phase::StoreReply, started.elapsed());
                        Ok(Some((message, swipes, finish)))
                    }
                    Ok(None) => Ok(None),
                    Err(error) => Err(error),
                }
            }
            .await;
            // No new text: what it was to replace stands again, before anything else happens here.
            let back = match stored {
                Ok(Some(_)) => Ok(None),
                _ => put_back(&engine, &user, &character_id, &writing).await,
            };
            (stored, back)
        };
        let user_id = chatter.user_id.clone();
        AtomicResponse::new(Box::pin(stored.into_actor(self).map(move |(stored, back), actor, ctx| {
            actor.release(&chatter.user_id, turn);
            let character_id = actor.character_id.clone();
            match stored {
                Ok(Some((message, swipes, finish))) => {
                    actor.spend_credit(ctx, &chatter.user_id);
                    actor.engine.metrics().reply_ended(Outcome::Stored);
                    let pair = actor.pair(&chatter.user_id);
                    if let Some(window) = pair.window.as_mut() {
                        match window.messages.iter_mut().find(|m| m.message_id == message.message_id) {
                            // A continued reply: the same message, longer.
                            Some(held) => held.content = message.content.clone(),
                            None => window.push(message.clone()),
                        }
                    }
                    pair.turns_since_extraction += 1;
                    let due = pair.turns_since_extraction;
                    actor.publish(
                        ctx,
                        &chatter.user_id,
                        ServerEvent::ChatDone {
                            character_id,
                            reply_id,
                            message: Some(view(&message, swipes)),
                            finish_reason: ReplyEnd::from(finish),
                            cut: reply_was_cut(&message.content, finish),
                            recalled,
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
                    actor.spend_credit(ctx, &chatter.user_id);
                    actor.engine.metrics().reply_ended(Outcome::Stopped);
                    actor.publish(
                        ctx,
                        &chatter.user_id,
                        ServerEvent::ChatDone {
                            character_id,
                            reply_id,
                            message: None,
                            finish_reason: ReplyEnd::Cancelled,
                            cut: false,
                            recalled: None,
                        },
                    );
                }
                Err(error) => {
                    let outcome =
                        if matches!(error, ChatError::Refused(_)) { Outcome::Refused } else { Outcome::Failed };
                    actor.engine.metrics().reply_ended(outcome);
                    if error.is_fault() {
                        tracing::error!(%error, user = %chatter.user_id, character = %character_id, "a reply failed");
                    } else {
                        let code = error.code().value();
                        tracing::info!(%error, code, user = %chatter.user_id, character = %character_id, "a reply was refused");
                    }
                    let event = actor.error_event(Some(reply_id), &error);
                    actor.give_back_credit(ctx, &chatter, Some(event));
                }
            }
            actor.stands_again(ctx, &user_id, back);
        })))
    }
}
