//! Versions of a reply (swipes) and continuing one: writing the newest reply again keeps
//! the earlier versions (stored by the user message they answer, so branching can come
//! later), the user switches between them, and `chatContinue` writes the rest of the
//! newest reply into the same message.
//!
//! The conversation's own message row always holds the chosen version, so history, the
//! prompt and everything else read the conversation as before; the versions live beside it
//! (`ReplyAlternativeRepo`).

use actix::prelude::*;
use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MessageId, Speaker};
use amora_store::{StoredMessage, VoiceClipKey};

use super::{CharacterActor, Needs, after_load, ready};
use crate::chat::engine::join_continuation;
use crate::chat::{ChatEngine, ChatError, Chatter, new_entry_id};
use crate::wire::chat::{MessageView, SwipeView};
use crate::wire::events::ServerEvent;

/// `chatContinue`: writes the rest of the newest reply, streamed as `chatDelta` under its
/// own id and stored as the same message, longer. Costs what a reply costs.
#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct Continue {
    pub chatter: Chatter,
}

/// `chatSwipe`: makes version `index` of the newest reply the one the conversation holds
/// (and the next prompt reads). Answers the message as it now stands.
#[derive(Message)]
#[rtype(result = "Result<MessageView, ChatError>")]
pub struct Swipe {
    pub user_id: UserId,
    pub message_id: MessageId,
    pub index: u32,
}

/// The newest reply's id and where it stands among its versions, when it has more than
/// one (the first page of history shows it).
#[derive(Message)]
#[rtype(result = "Result<Option<(MessageId, SwipeView)>, ChatError>")]
pub struct NewestSwipes {
    pub user_id: UserId,
}

/// What a reply in flight becomes when it ends.
#[derive(Debug, Clone)]
pub(super) enum Writing {
    /// A new reply to the user's newest message.
    Reply,
    /// Another version of the reply to `parent`; `replaced` is the version it takes the
    /// place of, put back when no new one comes (stopped before any text, or failed).
    Version { parent: MessageId, replaced: Option<StoredMessage> },
    /// The rest of `message`, the newest reply; `swipes`: its place among its versions.
    Continuation { message: StoredMessage, parent: Option<MessageId>, swipes: Option<SwipeView> },
}

impl Writing {
    /// The id the written message has: the continued one's, else a new one.
    pub(super) fn reply_id(&self) -> EntryId {
        match self {
            Writing::Continuation { message, .. } => message.message_id,
            _ => new_entry_id(),
        }
    }

    pub(super) fn continues(&self) -> bool {
        matches!(self, Writing::Continuation { .. })
    }
}

/// The newest reply and the user's message it answers, when the conversation ends so
/// (a picture asked for in chat is not a reply).
fn newest_reply(window: Option<&super::Window>) -> Option<(StoredMessage, StoredMessage)> {
    let mut newest = window?.messages.iter().rev();
    let (reply, parent) = (newest.next()?, newest.next()?);
    let is_reply = reply.speaker == Speaker::Character && reply.image.is_none() && parent.speaker == Speaker::User;
    is_reply.then(|| (reply.clone(), parent.clone()))
}

/// The versions worth showing: two or more.
fn shown(alternatives: Option<&amora_store::ReplyAlternatives>) -> Option<SwipeView> {
    alternatives.filter(|a| a.texts.len() > 1).map(SwipeView::of)
}

/// A character message's text changed: a clip spoken from the old text no longer fits.
async fn forget_voice(engine: &ChatEngine, user: &UserId, character_id: &CharacterId, message_id: MessageId) {
    let key = VoiceClipKey { user_id: user.clone(), character_id: character_id.clone(), message_id };
    if let Err(error) = engine.store().voice_clips.delete_clip(&key).await {
        tracing::warn!(%error, user = %user, "the voice clip of a changed reply could not be deleted");
    }
}

/// Keeps the reply about to be written again as a version of its parent's reply, when it
/// is the first (a reply written once has no versions stored).
pub(super) async fn keep_version(
    engine: &ChatEngine,
    user: &UserId,
    character_id: &CharacterId,
    parent: MessageId,
    reply: &StoredMessage,
) -> Result<(), ChatError> {
    let versions = &engine.store().alternatives;
    if versions.alternatives(user, character_id, parent).await?.is_none() {
        versions.add_alternative(user, character_id, parent, &reply.content).await?;
    }
    Ok(())
}

/// Stores a written reply as `writing` says: a new message, a new version (a new message
/// and a version of its parent's reply), or the continued message, longer. Answers the
/// message as stored and its place among its versions.
pub(super) async fn store_written(
    engine: &ChatEngine,
    user: &UserId,
    character_id: &CharacterId,
    writing: &Writing,
    reply_id: EntryId,
    content: String,
) -> Result<(StoredMessage, Option<SwipeView>), ChatError> {
    let store = engine.store();
    match writing {
        Writing::Reply | Writing::Version { .. } => {
            let message = StoredMessage { message_id: reply_id, speaker: Speaker::Character, content, image: None };
            store.conversations.append(user, character_id, message.clone()).await?;
            let mut swipes = None;
            if let Writing::Version { parent, .. } = writing {
                let index = store.alternatives.add_alternative(user, character_id, *parent, &message.content).await?;
                // The new version is the last one.
                swipes = Some(SwipeView { index, count: index + 1 }).filter(|s| s.count > 1);
            }
            Ok((message, swipes))
        }
        Writing::Continuation { message, parent, swipes } => {
            let joined = join_continuation(&message.content, &content);
            if !store.conversations.update_message(user, character_id, message.message_id, &joined).await? {
                return Err(ChatError::NoMessage);
            }
            if let (Some(parent), Some(swipes)) = (parent, swipes) {
                store.alternatives.set_alternative(user, character_id, *parent, swipes.index, &joined).await?;
            }
            forget_voice(engine, user, character_id, message.message_id).await;
            Ok((StoredMessage { content: joined, ..message.clone() }, *swipes))
        }
    }
}

/// When no new text came: the version a new one was to replace goes back (as a message of
/// its own id, after the user's), and a continued message stands as it was. Answers the
/// message the conversation now ends with, for the user's sockets.
pub(super) async fn put_back(
    engine: &ChatEngine,
    user: &UserId,
    character_id: &CharacterId,
    writing: &Writing,
) -> Result<Option<(StoredMessage, Option<SwipeView>)>, ChatError> {
    match writing {
        Writing::Reply | Writing::Version { replaced: None, .. } => Ok(None),
        Writing::Version { parent, replaced: Some(replaced) } => {
            let back = StoredMessage { message_id: new_entry_id(), ..replaced.clone() };
            engine.store().conversations.append(user, character_id, back.clone()).await?;
            let versions = engine.store().alternatives.alternatives(user, character_id, *parent).await?;
            Ok(Some((back, shown(versions.as_ref()))))
        }
        Writing::Continuation { message, swipes, .. } => Ok(Some((message.clone(), *swipes))),
    }
}

/// The message as clients see it, with its place among its versions.
pub(super) fn view(message: &StoredMessage, swipes: Option<SwipeView>) -> MessageView {
    MessageView { swipes: swipes.filter(|s| s.count > 1), ..MessageView::from(message) }
}

impl CharacterActor {
    /// After a reply ended without new text: the user's sockets learn what the conversation
    /// ends with again (`put_back`).
    pub(super) fn stands_again(
        &mut self,
        ctx: &mut Context<Self>,
        user_id: &UserId,
        back: Result<Option<(StoredMessage, Option<SwipeView>)>, ChatError>,
    ) {
        match back {
            Ok(Some((message, swipes))) => {
                if let Some(window) = self.pair(user_id).window.as_mut()
                    && window.find(message.message_id).is_none()
                {
                    window.push(message.clone());
                }
                let event = ServerEvent::ChatMessage {
                    character_id: self.character_id.clone(),
                    message: view(&message, swipes),
                };
                self.publish(ctx, user_id, event);
                self.changed_elsewhere(ctx, user_id);
            }
            Ok(None) => {}
            Err(error) => {
                tracing::error!(%error, user = %user_id, "the reply a failed version replaced could not be put back");
            }
        }
    }
}

impl Handler<Continue> for CharacterActor {
    type Result = AtomicResponse<Self, Result<(), ChatError>>;

    fn handle(&mut self, message: Continue, _: &mut Self::Context) -> Self::Result {
        let chatter = message.chatter;
        let user_id = chatter.user_id.clone();
        let loaded_for = chatter.clone();
        after_load(self, Some(&loaded_for), &user_id, Needs::TURN, move |actor, _| {
            let character = match actor.visible_character(&chatter) {
                Ok(character) => character,
                Err(error) => return ready(Err(error)),
            };
            let window = actor.pair(&chatter.user_id).window.as_ref();
            let newest = window.and_then(|w| w.messages.back().cloned());
            let reply = match newest {
                Some(reply) if reply.speaker == Speaker::Character && reply.image.is_none() => reply,
                _ => {
                    let none = "there is no reply to continue: the conversation must end with one";
                    return ready(Err(ChatError::Invalid(none.into())));
                }
            };
            let parent = newest_reply(window).map(|(_, parent)| parent.message_id);
            let (engine, character_id, user) =
                (actor.engine.clone(), actor.character_id.clone(), chatter.user_id.clone());
            let versions = async move {
                let Some(parent) = parent else { return Ok(None) };
                let versions = engine.store().alternatives.alternatives(&user, &character_id, parent).await?;
                Ok::<_, ChatError>(versions.as_ref().map(SwipeView::of))
            };
            actor.paid_turn(chatter, character, versions, move |actor, ctx, turn, swipes| {
                // Only versions worth showing travel to clients; the index is kept either
                // way so the continued text reaches its version.
                turn.start_reply(actor, ctx, Writing::Continuation { message: reply, parent, swipes });
            })
        })
    }
}

impl Handler<Swipe> for CharacterActor {
    type Result = AtomicResponse<Self, Result<MessageView, ChatError>>;

    fn handle(&mut self, message: Swipe, _: &mut Self::Context) -> Self::Result {
        let Swipe { user_id, message_id, index } = message;
        let owner = user_id.clone();
        after_load(self, None, &owner, Needs::WINDOW, move |actor, _| {
            let pair = actor.pair(&user_id);
            if pair.reply.is_some() {
                return ready(Err(ChatError::Busy));
            }
            let (reply, parent) = match newest_reply(pair.window.as_ref()) {
                Some((reply, parent)) if reply.message_id == message_id => (reply, parent),
                _ => {
                    let only = "only the newest reply of the conversation has versions to switch between";
                    return ready(Err(ChatError::Invalid(only.into())));
                }
            };
            let (engine, character_id, user) = (actor.engine.clone(), actor.character_id.clone(), user_id.clone());
            Box::pin(
                async move {
                    let store = engine.store();
                    let versions = store.alternatives.alternatives(&user, &character_id, parent.message_id).await?;
                    let versions = versions.filter(|v| v.texts.len() > 1).ok_or_else(|| {
                        ChatError::Invalid("this reply has no other versions: write it again first".into())
                    })?;
                    let Some(text) = versions.texts.get(index as usize) else {
                        let range = format!("index: must be from 0 to {}", versions.texts.len() - 1);
                        return Err(ChatError::Invalid(range));
                    };
                    if *text != reply.content {
                        if !store.conversations.update_message(&user, &character_id, reply.message_id, text).await? {
                            return Err(ChatError::NoMessage);
                        }
                        forget_voice(&engine, &user, &character_id, reply.message_id).await;
                    }
                    store.alternatives.choose_alternative(&user, &character_id, parent.message_id, index).await?;
                    let chosen = StoredMessage { content: text.clone(), ..reply };
                    Ok((chosen, SwipeView { index, count: versions.texts.len() as u32 }))
                }
                .into_actor(actor)
                .map(move |chosen, actor, ctx| {
                    let (chosen, swipes) = chosen?;
                    if let Some(window) = actor.pair(&user_id).window.as_mut()
                        && let Some(held) = window.messages.iter_mut().find(|m| m.message_id == chosen.message_id)
                    {
                        held.content = chosen.content.clone();
                    }
                    let view = view(&chosen, Some(swipes));
                    let event =
                        ServerEvent::ChatMessage { character_id: actor.character_id.clone(), message: view.clone() };
                    actor.publish(ctx, &user_id, event);
                    actor.changed_elsewhere(ctx, &user_id);
                    Ok(view)
                }),
            )
        })
    }
}

impl Handler<NewestSwipes> for CharacterActor {
    type Result = AtomicResponse<Self, Result<Option<(MessageId, SwipeView)>, ChatError>>;

    fn handle(&mut self, message: NewestSwipes, _: &mut Self::Context) -> Self::Result {
        let user_id = message.user_id;
        let owner = user_id.clone();
        after_load(self, None, &owner, Needs::WINDOW, move |actor, _| {
            let Some((reply, parent)) = newest_reply(actor.pair(&user_id).window.as_ref()) else {
                return ready(Ok(None));
            };
            let (engine, character_id) = (actor.engine.clone(), actor.character_id.clone());
            Box::pin(
                async move {
                    let versions =
                        engine.store().alternatives.alternatives(&user_id, &character_id, parent.message_id).await?;
                    Ok(shown(versions.as_ref()).map(|swipes| (reply.message_id, swipes)))
                }
                .into_actor(actor),
            )
        })
    }
}
