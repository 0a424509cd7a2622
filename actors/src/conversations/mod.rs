//! `Conversations`: the one door to chat for the transports. HTTP routes and the socket
//! call it with a user id and the values they parsed; it finds the user's live state in
//! their `UserActor` and the conversation in the character's `CharacterActor`, where every
//! rule is applied. Nothing here talks to the store but the chat list, which spans every
//! character of a user.

pub mod groups;

use std::sync::Arc;

use actix::Addr;
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId};
use amora_domain::chat::{EntryId, MemoryId, MessageId, MessageText, Speaker};
use amora_domain::persona::{UserPersona, persona_for};
use amora_domain::viewer::Viewer;
use amora_store::Memory;
use serde::Serialize;
use ts_rs::TS;

use crate::character::{
    AddMemory, AddPicture, CharacterActor, CharacterAddr, ChooseGreeting, Continue, DeleteConversation, DeleteMemory,
    DeleteMessage, EditMessage, FindMessage, History, Memories, NewestSwipes, PinMemory, Regenerate, ReplyInFlight,
    SaveMemories, Send, StopReply, Swipe, UpdateMemory,
};
use crate::chat::{ChatEngine, ChatError, Chatter};
use crate::moderation::{Moderator, Surface};
use crate::registry::Registry;
use crate::user::{Account, Balance, ChangePersona, FreeMessagesLeft, Personas, UserActor, UserAddr};
use crate::wire::actions::ClientAction;
use crate::wire::chat::{MemoryView, MessageView};
use crate::wire::events::ServerEvent;

/// A conversation in the user's chat list.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatSummary {
    pub character_id: CharacterId,
    pub character_name: String,
    pub character_photo: String,
    pub last_message: MessageView,
}

/// A persona of the user's as clients see it (docs/api.md `UserPersona`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "UserPersona")]
pub struct PersonaView {
    /// `null`: the persona for every character.
    pub character_id: Option<CharacterId>,
    pub name: String,
    pub description: String,
}

impl From<amora_store::StoredPersona> for PersonaView {
    fn from(stored: amora_store::StoredPersona) -> Self {
        Self { character_id: stored.character_id, name: stored.persona.name, description: stored.persona.description }
    }
}

/// A page of history as the chat screen shows it.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessagePage {
    /// Newest first.
    pub messages: Vec<MessageView>,
    /// A full page: older messages may follow (ask with `beforeId` = the last id).
    pub has_more: bool,
    /// Free messages left today; `null` for paid users (unlimited).
    pub credits_left: Option<u32>,
    /// The reply being written right now (a page reloaded mid-reply shows it and appends
    /// the `chatDelta`s that follow); `null` when none is.
    pub replying: Option<ReplyingView>,
}

/// A reply still being written: the id it will be stored with and the text so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "ReplyingNow")]
pub struct ReplyingView {
    #[ts(type = "string")]
    pub reply_id: EntryId,
    pub content: String,
}

/// The rules of who sees what, as the accounts settings say.
#[derive(Debug, Clone, Copy)]
pub struct ViewerRules {
    /// An account this old (seconds) is a member: it sees restricted characters.
    pub established_after_secs: i64,
}

#[derive(Clone)]
pub struct Conversations {
    registry: Addr<Registry>,
    engine: Arc<ChatEngine>,
    rules: ViewerRules,
}

impl Conversations {
    pub fn new(registry: Addr<Registry>, engine: Arc<ChatEngine>, rules: ViewerRules) -> Self {
        Self { registry, engine, rules }
    }

    /// The node's registry of actors (the group door finds groups' actors there).
    pub(crate) fn registry(&self) -> &Addr<Registry> {
        &self.registry
    }

    /// The node's moderation service.
    pub fn moderator(&self) -> &Moderator {
        self.engine.moderator()
    }

    /// Both layers of moderation for a text of `user_id` on `surface`. The door runs them,
    /// not the character's actor, so that waiting for the classifier never holds up the
    /// actor's other conversations (its handlers that change a pair run one at a time).
    async fn moderate(&self, surface: Surface, user_id: &UserId, text: &str) -> Result<(), ChatError> {
        self.moderator().check(surface, Some(user_id), text).await.map_err(ChatError::Refused)
    }

    async fn user(&self, user_id: &UserId) -> Result<Addr<UserActor>, ChatError> {
        Ok(self.registry.send(UserAddr(user_id.clone())).await?)
    }

    async fn character(&self, character_id: &CharacterId) -> Result<Addr<CharacterActor>, ChatError> {
        Ok(self.registry.send(CharacterAddr(character_id.clone())).await?)
    }

    /// Who is chatting, from the account as the user's actor holds it now: a plan bought or
    /// a preference changed a moment ago counts. With `character`, the user's persona for
    /// that character (its own, else the one for every character) names and describes
    /// them; every action of a conversation passes its character.
    pub async fn chatter(&self, user_id: &UserId, character: Option<&CharacterId>) -> Result<Chatter, ChatError> {
        let user = self.user(user_id).await?;
        let account = user.send(Account).await??.ok_or(ChatError::NoAccount)?;
        let age = now() - account.created_at;
        let (mut user_name, mut persona) = (account.user_name, String::new());
        if let Some(character) = character {
            let personas: Vec<(Option<CharacterId>, UserPersona)> =
                user.send(Personas).await??.into_iter().map(|p| (p.character_id, p.persona)).collect();
            if let Some(chosen) = persona_for(&personas, character) {
                user_name = chosen.name.clone();
                persona = chosen.description.clone();
            }
        }
        Ok(Chatter {
            user_id: account.user_id,
            user_name,
            persona,
            language: account.language,
            nsfw: account.nsfw,
            paid: account.user_vip_type > 0,
            viewer: Viewer::of_account(age, self.rules.established_after_secs),
        })
    }

    pub async fn send(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        text: MessageText,
    ) -> Result<MessageView, ChatError> {
        // A send the model would refuse now is refused first, before anything is read,
        // moderated or stored (issue 28: floods of refused sends).
        self.engine.has_room_for(user_id)?;
        self.moderate(Surface::ChatMessage, user_id, text.as_str()).await?;
        let chatter = self.chatter(user_id, Some(character_id)).await?;
        self.character(character_id).await?.send(Send { chatter, text }).await?
    }

    pub async fn regenerate(&self, user_id: &UserId, character_id: &CharacterId) -> Result<(), ChatError> {
        self.engine.has_room_for(user_id)?;
        let chatter = self.chatter(user_id, Some(character_id)).await?;
        self.character(character_id).await?.send(Regenerate { chatter }).await?
    }

    /// `chatContinue`: the rest of the newest reply, into the same message.
    pub async fn continue_reply(&self, user_id: &UserId, character_id: &CharacterId) -> Result<(), ChatError> {
        self.engine.has_room_for(user_id)?;
        let chatter = self.chatter(user_id, Some(character_id)).await?;
        self.character(character_id).await?.send(Continue { chatter }).await?
    }

    /// `chatSwipe`: version `index` of the newest reply becomes the one the conversation holds.
    pub async fn swipe(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
        index: u32,
    ) -> Result<MessageView, ChatError> {
        // Who may see the character is checked as for every turn.
        self.visible_character(user_id, character_id).await?;
        let swipe = Swipe { user_id: user_id.clone(), message_id, index };
        self.character(character_id).await?.send(swipe).await?
    }

    pub async fn stop(&self, user_id: &UserId, character_id: &CharacterId) -> Result<(), ChatError> {
        self.character(character_id).await?.send(StopReply { user_id: user_id.clone() }).await?
    }

    pub async fn save_memories(&self, user_id: &UserId, character_id: &CharacterId) -> Result<(), ChatError> {
        let chatter = self.chatter(user_id, Some(character_id)).await?;
        self.character(character_id).await?.send(SaveMemories { chatter }).await?
    }

    /// `chat/chooseGreeting`: the greeting of a conversation that holds nothing else,
    /// replaced with the character's greeting number `index` (0: the main one, `i`: the
    /// card's `alternateGreetings[i - 1]`), in `language` when given (the request's), else
    /// in the account's.
    pub async fn choose_greeting(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        index: usize,
        language: Option<&str>,
    ) -> Result<MessageView, ChatError> {
        let mut chatter = self.chatter(user_id, Some(character_id)).await?;
        if let Some(language) = language {
            chatter.language = language.to_owned();
        }
        self.character(character_id).await?.send(ChooseGreeting { chatter, index }).await?
    }

    /// A page of the conversation, newest first, with the free messages left today. The
    /// first page of a new conversation holds the character's greeting.
    pub async fn history(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        before: Option<EntryId>,
        limit: usize,
    ) -> Result<MessagePage, ChatError> {
        self.history_in(user_id, character_id, before, limit, None).await
    }

    /// `history`, a new conversation's greeting written in `language` when given (the
    /// request's), else in the account's. The newest page carries the reply being written.
    pub async fn history_in(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        before: Option<EntryId>,
        limit: usize,
        language: Option<&str>,
    ) -> Result<MessagePage, ChatError> {
        let mut chatter = self.chatter(user_id, Some(character_id)).await?;
        if let Some(language) = language {
            chatter.language = language.to_owned();
        }
        let credits_left = self.credits_left(&chatter).await?;
        let character = self.character(character_id).await?;
        // Asked before the page is read: a reply that ends in between is in the page, and
        // the client drops a pending reply that the page holds stored.
        let replying = match before {
            None => character.send(ReplyInFlight { user_id: user_id.clone() }).await?,
            Some(_) => None,
        };
        let messages = character.send(History { chatter, before, limit }).await??;
        let mut views: Vec<MessageView> = messages.iter().map(MessageView::from).collect();
        // The newest reply shows its versions (swipes); only the first page holds it.
        if before.is_none()
            && let Some((reply_id, swipes)) = character.send(NewestSwipes { user_id: user_id.clone() }).await??
            && let Some(view) = views.iter_mut().find(|view| view.message_id == reply_id)
        {
            view.swipes = Some(swipes);
        }
        Ok(MessagePage {
            has_more: messages.len() == limit,
            messages: views,
            credits_left,
            replying: replying.map(|(reply_id, content)| ReplyingView { reply_id, content }),
        })
    }

    /// How many free messages are left today; `None` for paid users (unlimited).
    pub async fn credits_left(&self, chatter: &Chatter) -> Result<Option<u32>, ChatError> {
        if chatter.paid {
            return Ok(None);
        }
        let limit = self.engine.settings().free_messages_per_day;
        Ok(Some(self.user(&chatter.user_id).await?.send(FreeMessagesLeft { limit }).await??))
    }

    /// The user's conversations, the most recently active first; characters gone from the
    /// catalogue (or hidden now, or not visible to this user) drop out, and so does a
    /// conversation holding nothing but the greeting: merely opening a character writes it,
    /// and that is no chat the user had.
    pub async fn chat_list(&self, user_id: &UserId) -> Result<Vec<ChatSummary>, ChatError> {
        let chatter = self.chatter(user_id, None).await?;
        let store = self.engine.store();
        let mut summaries = Vec::new();
        for conversation in store.conversations.list(user_id).await? {
            let Some(character) = self.engine.load_character(&conversation.character_id).await? else { continue };
            if !chatter.may_open(&character) {
                continue;
            }
            // Only a last message of the character's can be a lone greeting: then read one
            // more (the chat list is short; most conversations end with a reply anyway).
            if conversation.last_message.speaker == Speaker::Character
                && store.conversations.messages(user_id, &conversation.character_id, None, 2).await?.len() < 2
            {
                continue;
            }
            summaries.push(ChatSummary {
                character_id: conversation.character_id,
                character_name: character.card.character_name,
                character_photo: character.card.character_photo,
                last_message: MessageView::from(&conversation.last_message),
            });
        }
        Ok(summaries)
    }

    pub async fn delete_conversation(&self, user_id: &UserId, character_id: &CharacterId) -> Result<(), ChatError> {
        self.character(character_id).await?.send(DeleteConversation { user_id: user_id.clone() }).await?
    }

    pub async fn edit_message(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
        text: MessageText,
    ) -> Result<MessageView, ChatError> {
        self.moderate(Surface::ChatMessage, user_id, text.as_str()).await?;
        let edit = EditMessage { user_id: user_id.clone(), message_id, text };
        self.character(character_id).await?.send(edit).await?
    }

    pub async fn delete_message(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
    ) -> Result<(), ChatError> {
        let delete = DeleteMessage { user_id: user_id.clone(), message_id };
        self.character(character_id).await?.send(delete).await?
    }

    /// One message of the user's conversation with the character, if it exists.
    pub async fn find_message(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
    ) -> Result<Option<MessageView>, ChatError> {
        let find = FindMessage { user_id: user_id.clone(), message_id };
        let found = self.character(character_id).await?.send(find).await??;
        Ok(found.as_ref().map(MessageView::from))
    }

    /// A picture the character sends: a message of the character's in the conversation,
    /// told to the user's sockets as `chatMessage`.
    pub async fn add_picture(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        image: amora_store::MessageImage,
    ) -> Result<MessageView, ChatError> {
        self.character(character_id).await?.send(AddPicture { user_id: user_id.clone(), image }).await?
    }

    /// The character if it exists, is not hidden and this user may see it.
    pub async fn visible_character(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
    ) -> Result<Character, ChatError> {
        let chatter = self.chatter(user_id, Some(character_id)).await?;
        let character = self.engine.load_character(character_id).await?.ok_or(ChatError::NoCharacter)?;
        if !chatter.may_open(&character) {
            return Err(ChatError::NoCharacter);
        }
        Ok(character)
    }

    /// Every memory of the pair, newest first; `NoCharacter` (10006) for a character the
    /// user cannot see, as every other door to it answers, rather than an empty list.
    pub async fn memories(&self, user_id: &UserId, character_id: &CharacterId) -> Result<Vec<MemoryView>, ChatError> {
        self.visible_character(user_id, character_id).await?;
        let memories = self.character(character_id).await?.send(Memories { user_id: user_id.clone() }).await??;
        Ok(memories.iter().map(MemoryView::from).collect())
    }

    pub async fn add_memory(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        content: String,
    ) -> Result<MemoryView, ChatError> {
        // Before the length is checked: a refused text is refused whatever its length.
        self.moderate(Surface::Memory, user_id, content.trim()).await?;
        let chatter = self.chatter(user_id, Some(character_id)).await?;
        let memory: Memory = self.character(character_id).await?.send(AddMemory { chatter, content }).await??;
        Ok(MemoryView::from(&memory))
    }

    pub async fn update_memory(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        content: String,
    ) -> Result<(), ChatError> {
        self.moderate(Surface::Memory, user_id, content.trim()).await?;
        let update = UpdateMemory { user_id: user_id.clone(), memory_id, content };
        self.character(character_id).await?.send(update).await?
    }

    /// Pins or unpins a memory of the pair; answers it as it now is.
    pub async fn pin_memory(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        pinned: bool,
    ) -> Result<MemoryView, ChatError> {
        let pin = PinMemory { user_id: user_id.clone(), memory_id, pinned };
        let memory: Memory = self.character(character_id).await?.send(pin).await??;
        Ok(MemoryView::from(&memory))
    }

    pub async fn delete_memory(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
    ) -> Result<(), ChatError> {
        let delete = DeleteMemory { user_id: user_id.clone(), memory_id };
        self.character(character_id).await?.send(delete).await?
    }

    /// The user's personas (docs/api.md "The user's persona"): the one for every character
    /// first, then one per character.
    pub async fn personas(&self, user_id: &UserId) -> Result<Vec<PersonaView>, ChatError> {
        let personas = self.user(user_id).await?.send(Personas).await??;
        Ok(personas.into_iter().map(PersonaView::from).collect())
    }

    /// Sets the persona for `character` (`None`: every character), held to the rule of what
    /// users write about themselves (`Surface::Persona`: it reaches the prompt); a character
    /// must be one the user may open. Answers it as stored.
    pub async fn set_persona(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        persona: UserPersona,
    ) -> Result<PersonaView, ChatError> {
        // Each, then together: words that pass one by one may not pass side by side in a
        // prompt.
        self.moderate(Surface::Persona, user_id, &persona.name).await?;
        self.moderate(Surface::Persona, user_id, &persona.description).await?;
        let text = format!("{}\n{}", persona.name, persona.description);
        self.moderate(Surface::Persona, user_id, &text).await?;
        if let Some(character) = character {
            self.visible_character(user_id, character).await?;
        }
        let change = ChangePersona { character: character.cloned(), persona: Some(persona) };
        let (_, personas) = self.user(user_id).await?.send(change).await??;
        personas
            .into_iter()
            .find(|stored| stored.character_id.as_ref() == character)
            .map(PersonaView::from)
            .ok_or_else(|| ChatError::Store("the persona was not kept".into()))
    }

    /// Removes the persona for `character` (`None`: every character); `NoPersona` when
    /// there was none.
    pub async fn delete_persona(&self, user_id: &UserId, character: Option<&CharacterId>) -> Result<(), ChatError> {
        let change = ChangePersona { character: character.cloned(), persona: None };
        let (removed, _) = self.user(user_id).await?.send(change).await??;
        if removed { Ok(()) } else { Err(ChatError::NoPersona) }
    }

    /// Runs one socket action of `user_id`; answers the event that replies to it directly,
    /// if any (chat actions are otherwise answered by the chat events every socket of the
    /// user receives). A group's actions are the group door's (`Node::run_action` routes
    /// them there).
    pub async fn run_action(&self, user_id: &UserId, action: ClientAction) -> Option<ServerEvent> {
        let (character_id, result) = match action {
            ClientAction::Ping {} => return Some(ServerEvent::Pong {}),
            ClientAction::GetBalance {} => {
                let balance = async { Ok::<_, ChatError>(self.user(user_id).await?.send(Balance).await??) };
                return Some(match balance.await {
                    Ok(coin) => ServerEvent::TokenCount { coin },
                    Err(error) => {
                        tracing::error!(%error, "socket action: the balance could not be read");
                        ServerEvent::error(error.code(), error.public_message())
                    }
                });
            }
            ClientAction::ChatSend { character_id, content } => {
                let result = self.send(user_id, &character_id, content).await.map(|_| ());
                (character_id, result)
            }
            ClientAction::ChatStop { character_id } => {
                let result = self.stop(user_id, &character_id).await;
                (character_id, result)
            }
            ClientAction::ChatRegenerate { character_id } => {
                let result = self.regenerate(user_id, &character_id).await;
                (character_id, result)
            }
            ClientAction::SaveMemories { character_id } => {
                let result = self.save_memories(user_id, &character_id).await;
                (character_id, result)
            }
            ClientAction::ChatContinue { character_id } => {
                let result = self.continue_reply(user_id, &character_id).await;
                (character_id, result)
            }
            ClientAction::ChatSwipe { character_id, message_id, index } => {
                let result = self.swipe(user_id, &character_id, message_id, index).await.map(|_| ());
                (character_id, result)
            }
            // A group's actions are the group door's: `Node::run_action` never brings them here.
            ClientAction::GroupSend { .. }
            | ClientAction::GroupTalk { .. }
            | ClientAction::GroupPick { .. }
            | ClientAction::GroupStop { .. }
            | ClientAction::GroupRegenerate { .. }
            | ClientAction::GroupContinue { .. }
            | ClientAction::GroupSwipe { .. } => {
                tracing::error!(user = %user_id, "a group action reached the one-to-one door");
                return None;
            }
        };
        result.err().map(|error| {
            if error.is_fault() {
                tracing::error!(%error, user = %user_id, character = %character_id, "a chat action failed");
            }
            ServerEvent::ChatError {
                character_id,
                reply_id: None,
                code: error.code().value(),
                msg: error.public_message(),
            }
        })
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}
