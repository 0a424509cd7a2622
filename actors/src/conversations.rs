//! `Conversations`: the one door to chat for the transports. HTTP routes and the socket
//! call it with a user id and the values they parsed; it finds the user's live state in
//! their `UserActor` and the conversation in the character's `CharacterActor`, where every
//! rule is applied. Nothing here talks to the store but the chat list, which spans every
//! character of a user.

use std::sync::Arc;

use actix::Addr;
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId};
use amora_domain::chat::{EntryId, MemoryId, MessageId, MessageText};
use amora_domain::viewer::Viewer;
use amora_store::Memory;
use serde::Serialize;

use crate::actions::ClientAction;
use crate::character::{
    AddMemory, AddPicture, CharacterActor, ChooseGreeting, DeleteConversation, DeleteMemory, DeleteMessage,
    EditMessage, FindMessage, History, Memories, PinMemory, Regenerate, SaveMemories, Send, StopReply, UpdateMemory,
};
use crate::chat::{ChatEngine, ChatError, Chatter, MemoryView, MessageView};
use crate::events::ServerEvent;
use crate::registry::{CharacterAddr, Registry, UserAddr};
use crate::user::{Account, Balance, FreeMessagesLeft, UserActor};

/// A conversation in the user's chat list.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSummary {
    pub character_id: CharacterId,
    pub character_name: String,
    pub character_photo: String,
    pub last_message: MessageView,
}

/// A page of history as the chat screen shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessagePage {
    /// Newest first.
    pub messages: Vec<MessageView>,
    /// A full page: older messages may follow (ask with `beforeId` = the last id).
    pub has_more: bool,
    /// Free messages left today; `null` for paid users (unlimited).
    pub credits_left: Option<u32>,
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

    async fn user(&self, user_id: &UserId) -> Result<Addr<UserActor>, ChatError> {
        Ok(self.registry.send(UserAddr(user_id.clone())).await?)
    }

    async fn character(&self, character_id: &CharacterId) -> Result<Addr<CharacterActor>, ChatError> {
        Ok(self.registry.send(CharacterAddr(character_id.clone())).await?)
    }

    /// Who is chatting, from the account as the user's actor holds it now: a plan bought or
    /// a preference changed a moment ago counts.
    pub async fn chatter(&self, user_id: &UserId) -> Result<Chatter, ChatError> {
        let account = self.user(user_id).await?.send(Account).await??.ok_or(ChatError::NoAccount)?;
        let age = now() - account.created_at;
        Ok(Chatter {
            user_id: account.user_id,
            user_name: account.user_name,
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
        let chatter = self.chatter(user_id).await?;
        self.character(character_id).await?.send(Send { chatter, text }).await?
    }

    pub async fn regenerate(&self, user_id: &UserId, character_id: &CharacterId) -> Result<(), ChatError> {
        let chatter = self.chatter(user_id).await?;
        self.character(character_id).await?.send(Regenerate { chatter }).await?
    }

    pub async fn stop(&self, user_id: &UserId, character_id: &CharacterId) -> Result<(), ChatError> {
        self.character(character_id).await?.send(StopReply { user_id: user_id.clone() }).await?
    }

    pub async fn save_memories(&self, user_id: &UserId, character_id: &CharacterId) -> Result<(), ChatError> {
        let chatter = self.chatter(user_id).await?;
        self.character(character_id).await?.send(SaveMemories { chatter }).await?
    }

    /// `chat/chooseGreeting`: the greeting of a conversation that holds nothing else,
    /// replaced with the character's greeting number `index` (0: the main one, `i`: the
    /// card's `alternateGreetings[i - 1]`).
    pub async fn choose_greeting(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        index: usize,
    ) -> Result<MessageView, ChatError> {
        let chatter = self.chatter(user_id).await?;
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
        let chatter = self.chatter(user_id).await?;
        let credits_left = self.credits_left(&chatter).await?;
        let messages = self.character(character_id).await?.send(History { chatter, before, limit }).await??;
        Ok(MessagePage {
            has_more: messages.len() == limit,
            messages: messages.iter().map(MessageView::from).collect(),
            credits_left,
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
    /// catalogue (or hidden now, or not visible to this user) drop out.
    pub async fn chat_list(&self, user_id: &UserId) -> Result<Vec<ChatSummary>, ChatError> {
        let chatter = self.chatter(user_id).await?;
        let store = self.engine.store();
        let mut summaries = Vec::new();
        for conversation in store.conversations.list(user_id).await? {
            let Some(character) = self.engine.load_character(&conversation.character_id).await? else { continue };
            if !chatter.may_open(&character) {
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
        let chatter = self.chatter(user_id).await?;
        let character = self.engine.load_character(character_id).await?.ok_or(ChatError::NoCharacter)?;
        if !chatter.may_open(&character) {
            return Err(ChatError::NoCharacter);
        }
        Ok(character)
    }

    /// Every memory of the pair, newest first.
    pub async fn memories(&self, user_id: &UserId, character_id: &CharacterId) -> Result<Vec<MemoryView>, ChatError> {
        let memories = self.character(character_id).await?.send(Memories { user_id: user_id.clone() }).await??;
        Ok(memories.iter().map(MemoryView::from).collect())
    }

    pub async fn add_memory(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        content: String,
    ) -> Result<MemoryView, ChatError> {
        let chatter = self.chatter(user_id).await?;
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

    /// Runs one socket action of `user_id`; answers the event that replies to it directly,
    /// if any (chat actions are otherwise answered by the chat events every socket of the
    /// user receives).
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
