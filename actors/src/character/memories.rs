//! What a character remembers of the user: extraction by the model (every few turns, or
//! when asked) and the memories panel's list, additions, edits and deletions.

use std::time::Instant;

use actix::prelude::*;
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId};
use amora_domain::chat::{MemoryId, Speaker};
use amora_store::{Memory, MemoryOrigin, StoredMessage};

use super::{CharacterActor, Needs, after_load, ready};
use crate::chat::engine::ChatEngine;
use crate::chat::engine::EXTRACTION_WINDOW;
use crate::chat::memory::{MAX_MEMORIES, MemoryChange, merge};
use crate::chat::{ChatError, Chatter, new_entry_id};
use crate::wire::chat::MemoryView;
use crate::wire::events::ServerEvent;

/// Extracts memories from the conversation now (the user's "save memories"). Answers once
/// the extraction has started; `memorySaved` tells when it ended (it takes a model reply).
/// While one runs for the pair, the request joins it rather than starting a second.
#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct SaveMemories {
    pub chatter: Chatter,
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

/// Pins a memory (it enters every prompt of the pair) or unpins it; answers the memory.
#[derive(Message)]
#[rtype(result = "Result<Memory, ChatError>")]
pub struct PinMemory {
    pub user_id: UserId,
    pub memory_id: MemoryId,
    pub pinned: bool,
}

/// Most memories pinned at once per pair: every one of them is in every prompt.
pub const MAX_PINNED: usize = 10;

/// Sent by an extraction's task when the model is done.
#[derive(Message)]
#[rtype(result = "()")]
struct ExtractionEnded {
    chatter: Chatter,
    /// The user's messages the facts were taken from, one a line.
    said: String,
    facts: Result<Vec<String>, ChatError>,
    on_demand: bool,
}

impl CharacterActor {
    /// Extracts memories of the pair on its own task unless an extraction of theirs runs
    /// already. `memorySaved` ends the user's "saving" state either way.
    pub(super) fn start_extraction(
        &mut self,
        ctx: &mut Context<Self>,
        chatter: Chatter,
        character: Character,
        on_demand: bool,
    ) {
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
        let said: Vec<&str> =
            recent.iter().filter(|m| m.speaker == Speaker::User).map(|m| m.content.as_str()).collect();
        let said = said.join("\n");
        self.publish(ctx, &chatter.user_id, ServerEvent::MemorySaving { character_id: self.character_id.clone() });
        let engine = self.engine.clone();
        let me = ctx.address();
        actix::spawn(async move {
            let facts = engine.extract_facts(&chatter, &character, &recent).await;
            me.do_send(ExtractionEnded { chatter, said, facts, on_demand });
        });
    }

    /// Memories of the pair as `memorySaved` lists them.
    pub(super) fn memory_views(&mut self, user_id: &UserId) -> Vec<MemoryView> {
        self.pair(user_id).memories.iter().flatten().map(MemoryView::from).collect()
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
        let ExtractionEnded { chatter, said, facts, on_demand } = message;
        let (engine, character_id, user) = (self.engine.clone(), self.character_id.clone(), chatter.user_id.clone());
        let known = self.pair(&chatter.user_id).memories.clone().unwrap_or_default();
        let room = MAX_MEMORIES.saturating_sub(known.len());
        // Merged with what the pair's memories hold now (they may have changed meanwhile):
        // known facts are skipped, an extracted memory a fact says more than is replaced.
        let changes = facts.map(|facts| merge(&facts, &known, &chatter.user_name, &said));
        let stored = async move {
            let mut done = (Vec::new(), Vec::new());
            let result = store_changes(&engine, &user, &character_id, changes, room, &mut done).await;
            (done, result)
        };
        AtomicResponse::new(Box::pin(stored.into_actor(self).map(move |stored, actor, ctx| {
            let pair = actor.pair(&chatter.user_id);
            pair.extracting = false;
            // What was stored before a failure stays stored, and is shown.
            let ((added, removed), result) = stored;
            if let Err(error) = result {
                tracing::warn!(%error, character = %actor.character_id, on_demand, "memory extraction failed");
                if on_demand {
                    let event = actor.error_event(None, &error);
                    actor.publish(ctx, &chatter.user_id, event);
                }
            }
            let count = added.len() as u32;
            if let Some(memories) = actor.pair(&chatter.user_id).memories.as_mut() {
                memories.retain(|m| !removed.contains(&m.memory_id));
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

/// Stores the changes of an extraction, at most `room` more memories than before, noting in
/// `done` the memories added and the ids deleted as it goes.
async fn store_changes(
    engine: &ChatEngine,
    user: &UserId,
    character_id: &CharacterId,
    changes: Result<Vec<MemoryChange>, ChatError>,
    mut room: usize,
    done: &mut (Vec<Memory>, Vec<MemoryId>),
) -> Result<(), ChatError> {
    for change in changes? {
        let old = match change {
            MemoryChange::Add(_) if room == 0 => continue,
            MemoryChange::Add(_) => {
                room -= 1;
                Vec::new()
            }
            // One in, one or more out: never more memories than before.
            MemoryChange::Replace { ref old, .. } => {
                room += old.len().saturating_sub(1);
                old.clone()
            }
        };
        let content = change.content().to_owned();
        let memory = Memory { memory_id: new_entry_id(), content, origin: MemoryOrigin::Extracted, pinned: false };
        // Stored before the memories it replaces go, so a failure loses nothing.
        engine.store().memories.add(user, character_id, memory.clone()).await?;
        done.0.push(memory);
        for memory_id in old {
            engine.store().memories.delete(user, character_id, memory_id).await?;
            done.1.push(memory_id);
        }
    }
    Ok(())
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
            let content = match crate::chat::memory::memory_text(&content, actor.engine.moderator(), &chatter.user_id) {
                Ok(content) => content,
                Err(error) => return ready(Err(error)),
            };
            if actor.pair(&chatter.user_id).memories.as_ref().map_or(0, Vec::len) >= MAX_MEMORIES {
                return ready(Err(ChatError::Invalid(format!(
                    "a character keeps at most {MAX_MEMORIES} memories: delete one first"
                ))));
            }
            let memory = Memory { memory_id: new_entry_id(), content, origin: MemoryOrigin::User, pinned: false };
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
            let content = match crate::chat::memory::memory_text(&content, actor.engine.moderator(), &user_id) {
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

impl Handler<PinMemory> for CharacterActor {
    type Result = AtomicResponse<Self, Result<Memory, ChatError>>;

    fn handle(&mut self, message: PinMemory, _: &mut Self::Context) -> Self::Result {
        let PinMemory { user_id, memory_id, pinned } = message;
        let owner = user_id.clone();
        after_load(self, None, &owner, Needs::MEMORIES, move |actor, _| {
            let held = actor.pair(&user_id).memories.clone().unwrap_or_default();
            let Some(memory) = held.iter().find(|m| m.memory_id == memory_id).cloned() else {
                return ready(Err(ChatError::NoMemory));
            };
            if pinned && !memory.pinned && held.iter().filter(|m| m.pinned).count() >= MAX_PINNED {
                return ready(Err(ChatError::Invalid(format!(
                    "at most {MAX_PINNED} memories can be pinned: unpin one first"
                ))));
            }
            let (engine, character_id, user) = (actor.engine.clone(), actor.character_id.clone(), user_id.clone());
            Box::pin(
                async move { engine.store().memories.set_pinned(&user, &character_id, memory_id, pinned).await }
                    .into_actor(actor)
                    .map(move |updated, actor, ctx| {
                        if !updated? {
                            return Err(ChatError::NoMemory);
                        }
                        if let Some(held) = actor
                            .pair(&user_id)
                            .memories
                            .as_mut()
                            .and_then(|list| list.iter_mut().find(|m| m.memory_id == memory_id))
                        {
                            held.pinned = pinned;
                        }
                        actor.changed_elsewhere(ctx, &user_id);
                        Ok(Memory { pinned, ..memory })
                    }),
            )
        })
    }
}
