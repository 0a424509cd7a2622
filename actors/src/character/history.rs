//! The conversation as a record: pages of history, a message found, edited or deleted,
//! and the whole conversation deleted.

use actix::prelude::*;
use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MessageId, MessageText, Speaker};
use amora_store::{MessageImage, StoredMessage};

use super::{CharacterActor, Needs, after_load, greeting_text, localized, ready};
use crate::chat::{ChatEngine, ChatError, Chatter};
use crate::moderation::Surface;
use crate::wire::chat::MessageView;
use crate::wire::events::ServerEvent;

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

/// One message of the user's conversation, if it exists.
#[derive(Message)]
#[rtype(result = "Result<Option<StoredMessage>, ChatError>")]
pub struct FindMessage {
    pub user_id: UserId,
    pub message_id: MessageId,
}

/// Adds a picture the character sends (a `chat/requestPicture` image, stored in the
/// gallery already) to the conversation as a message of the character's.
#[derive(Message)]
#[rtype(result = "Result<MessageView, ChatError>")]
pub struct AddPicture {
    pub user_id: UserId,
    pub image: MessageImage,
}

/// `chat/chooseGreeting`: while the conversation holds only the greeting, replaces it with
/// another of the character's greetings (0: the main one, `i`: the card's
/// `alternate_greetings[i - 1]`). The message keeps its id; the user's sockets hear it as
/// `chatMessage` (clients merge by id). Opening a new conversation writes the greeting first.
#[derive(Message)]
#[rtype(result = "Result<MessageView, ChatError>")]
pub struct ChooseGreeting {
    pub chatter: Chatter,
    pub index: usize,
}

impl Handler<ChooseGreeting> for CharacterActor {
    type Result = AtomicResponse<Self, Result<MessageView, ChatError>>;

    fn handle(&mut self, message: ChooseGreeting, _: &mut Self::Context) -> Self::Result {
        let ChooseGreeting { chatter, index } = message;
        let (user_id, owner) = (chatter.user_id.clone(), chatter.user_id.clone());
        let needs = Needs { character: true, window: true, memories: false, greeting: true };
        let loaded_for = chatter.clone();
        after_load(self, Some(&loaded_for), &owner, needs, move |actor, _| {
            let chosen = actor.visible_character(&chatter).and_then(|character| {
                greeting_text(&localized(character, &chatter.language), index, &chatter.user_name)
            });
            let content = match chosen {
                Ok(content) => content,
                Err(error) => return ready(Err(error)),
            };
            let window = actor.pair(&chatter.user_id).window.as_ref();
            let greeting = match window.map(|w| (w.whole, w.messages.iter().collect::<Vec<_>>())) {
                Some((true, held)) if held.len() == 1 && held[0].speaker == Speaker::Character => held[0].clone(),
                _ => {
                    let went_on = "the conversation went on: only one holding just its greeting may start with another";
                    return ready(Err(amora_domain::Invalid::new("index", went_on).into()));
                }
            };
            let (engine, character_id, user) =
                (actor.engine.clone(), actor.character_id.clone(), chatter.user_id.clone());
            let new_content = content.clone();
            Box::pin(
                async move {
                    let store = engine.store();
                    if !store
                        .conversations
                        .update_message(&user, &character_id, greeting.message_id, &new_content)
                        .await?
                    {
                        return Err(ChatError::NoMessage);
                    }
                    Ok(greeting)
                }
                .into_actor(actor)
                .map(move |updated, actor, ctx| {
                    let mut greeting = updated?;
                    greeting.content = content;
                    if let Some(window) = actor.pair(&user_id).window.as_mut()
                        && let Some(held) = window.messages.iter_mut().find(|m| m.message_id == greeting.message_id)
                    {
                        held.content = greeting.content.clone();
                    }
                    let view = MessageView::from(&greeting);
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

impl Handler<AddPicture> for CharacterActor {
    type Result = AtomicResponse<Self, Result<MessageView, ChatError>>;

    fn handle(&mut self, message: AddPicture, _: &mut Self::Context) -> Self::Result {
        let AddPicture { user_id, image } = message;
        let owner = user_id.clone();
        after_load(self, None, &owner, Needs::WINDOW, move |actor, _| {
            let picture = StoredMessage {
                message_id: crate::chat::new_entry_id(),
                speaker: Speaker::Character,
                content: String::new(),
                image: Some(image),
            };
            let (engine, character_id, user) = (actor.engine.clone(), actor.character_id.clone(), user_id.clone());
            let stored = picture.clone();
            Box::pin(
                async move { engine.store().conversations.append(&user, &character_id, stored).await }
                    .into_actor(actor)
                    .map(move |appended, actor, ctx| {
                        appended?;
                        if let Some(window) = actor.pair(&user_id).window.as_mut() {
                            window.push(picture.clone());
                        }
                        let view = MessageView::from(&picture);
                        let event = ServerEvent::ChatMessage {
                            character_id: actor.character_id.clone(),
                            message: view.clone(),
                        };
                        actor.publish(ctx, &user_id, event);
                        actor.changed_elsewhere(ctx, &user_id);
                        Ok(view)
                    }),
            )
        })
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
            let moderator = actor.engine.moderator();
            if let Err(refusal) = moderator.check_rules(Surface::ChatMessage, Some(&user_id), text.as_str()) {
                return ready(Err(ChatError::Refused(refusal)));
            }
            let held = actor.pair(&user_id).window.as_ref().and_then(|w| w.find(message_id).cloned());
            let (engine, character_id, user) = (actor.engine.clone(), actor.character_id.clone(), user_id.clone());
            let content = text.into_string();
            let new_content = content.clone();
            Box::pin(
                async move {
                    own_message(&engine, &user, &character_id, message_id, held).await?;
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
                        image: None,
                        swipes: None,
                    })
                }),
            )
        })
    }
}

/// Checks that `message_id` is one of the user's own messages (from the window when it is
/// held there, else from the store).
async fn own_message(
    engine: &ChatEngine,
    user: &UserId,
    character_id: &CharacterId,
    message_id: MessageId,
    held: Option<StoredMessage>,
) -> Result<(), ChatError> {
    let found = match held {
        Some(found) => Some(found),
        None => find_message(engine, user, character_id, message_id).await?,
    };
    match found {
        Some(message) if message.speaker == Speaker::User => Ok(()),
        Some(_) => Err(ChatError::Invalid("only your own messages can be changed".into())),
        None => Err(ChatError::NoMessage),
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
                    own_message(&engine, &user, &character_id, message_id, held).await?;
                    engine.store().conversations.delete_messages(&user, &character_id, &[message_id]).await?;
                    // The versions of the reply to it answered a message that is gone.
                    engine.store().alternatives.delete_alternatives(&user, &character_id, &[message_id]).await?;
                    Ok::<_, ChatError>(())
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
                store.alternatives.delete_pair_alternatives(&user, &character_id).await?;
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
                if !existed {
                    return Err(ChatError::NoConversation);
                }
                // Every tab of the user drops it from its list (and empties it if open).
                let event = ServerEvent::ChatDeleted { character_id: actor.character_id.clone() };
                actor.publish(ctx, &user_id, event);
                Ok(())
            }),
        ))
    }
}
