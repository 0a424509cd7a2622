//! `Groups`: the door to group chats (issue 31) for the transports, as `Conversations` is
//! for one-to-one chat. It keeps a group's settings and members: every character joins
//! through `amora_domain::group::admit` (the owner must be able to open it one to one, so
//! another user's private character never joins), the texts the owner writes are moderated
//! as character texts (the scenario reaches the prompt as a card's does), and the store is
//! written. A round of replies (a message sent, "let them talk", a pick) is the group's
//! actor's (`actor.rs`, docs/architecture.md "Group chats"): the door moderates the
//! user's message and hands it over.

mod actor;

pub use actor::{GroupActor, GroupActorParts, GroupAddr, GroupKey, GroupTurn, StopRound, SwipeReply, TurnKind};

use std::sync::Arc;

use amora_cards::chat_log::LoggedMessage;
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId};
use amora_domain::chat::{EntryId, MessageId, MessageText, fill_placeholders};
use amora_domain::group::GroupSpeaker;
use amora_domain::group::{
    Activation, Group, GroupId, GroupMember, GroupSettings, MAX_GROUPS_PER_USER, TalkCap, Talkativeness, admit,
};
use amora_store::{GroupSummary, StoredGroupMessage};
use rand::Rng;
use rand::distributions::Alphanumeric;
use serde::Serialize;
use ts_rs::TS;

use crate::chat::{ChatEngine, ChatError, Chatter};
use crate::conversations::Conversations;
use crate::moderation::Surface;
use crate::wire::actions::ClientAction;
use crate::wire::events::ServerEvent;

/// A member of a group as clients see it (docs/api.md `GroupMember`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "GroupMember")]
pub struct GroupMemberView {
    pub character_id: CharacterId,
    /// Empty when the character is gone from the catalogue (it stays silent).
    pub character_name: String,
    pub character_photo: String,
    pub muted: bool,
    /// 0–100: how likely it speaks up unasked in the natural order.
    pub talkativeness: u8,
}

pub use crate::wire::groups::GroupMessageView;

/// How a group chooses who speaks next, as the wire spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "GroupActivation")]
pub enum ActivationView {
    Natural,
    List,
    Manual,
}

impl From<Activation> for ActivationView {
    fn from(activation: Activation) -> Self {
        match activation {
            Activation::Natural => ActivationView::Natural,
            Activation::List => ActivationView::List,
            Activation::Manual => ActivationView::Manual,
        }
    }
}

impl From<ActivationView> for Activation {
    fn from(activation: ActivationView) -> Self {
        match activation {
            ActivationView::Natural => Activation::Natural,
            ActivationView::List => Activation::List,
            ActivationView::Manual => Activation::Manual,
        }
    }
}

/// A group as clients see it (docs/api.md `Group`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Group")]
pub struct GroupView {
    pub group_id: String,
    pub name: String,
    pub scenario: String,
    pub activation: ActivationView,
    pub allow_self_responses: bool,
    pub talk_cap: u8,
    /// In seating order.
    pub members: Vec<GroupMemberView>,
    /// Milliseconds since the epoch.
    #[ts(type = "number")]
    pub created_at: i64,
    /// The newest message (the chat list shows it); `null` before the first.
    pub last_message: Option<GroupMessageView>,
}

/// A page of a group's history (docs/api.md `GroupMessagePage`).
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "GroupMessagePage")]
pub struct GroupMessagePage {
    /// Newest first.
    pub messages: Vec<GroupMessageView>,
    /// A full page: older messages may follow (ask with `beforeId` = the last id).
    pub has_more: bool,
}

/// What `createGroup` asks for, parsed.
#[derive(Debug, Clone)]
pub struct NewGroup {
    pub settings: GroupSettings,
    /// In seating order, each with its talkativeness.
    pub members: Vec<(CharacterId, Talkativeness)>,
}

/// What a socket asks of a group (docs/api.md `groupSend`, `groupTalk`, `groupPick`,
/// `groupStop`, `groupRegenerate`, `groupContinue`, `groupSwipe`).
#[derive(Debug, Clone)]
pub enum GroupAction {
    Send(MessageText),
    Talk,
    Pick(CharacterId),
    Stop,
    Regenerate,
    Continue,
    Swipe { message_id: MessageId, index: u32 },
}

impl GroupAction {
    /// The group and what is asked of it, when `action` is a group's; else `action` back.
    pub fn from_client(action: ClientAction) -> Result<(GroupId, GroupAction), ClientAction> {
        Ok(match action {
            ClientAction::GroupSend { group_id, content } => (group_id, GroupAction::Send(content)),
            ClientAction::GroupTalk { group_id } => (group_id, GroupAction::Talk),
            ClientAction::GroupPick { group_id, character_id } => (group_id, GroupAction::Pick(character_id)),
            ClientAction::GroupStop { group_id } => (group_id, GroupAction::Stop),
            ClientAction::GroupRegenerate { group_id } => (group_id, GroupAction::Regenerate),
            ClientAction::GroupContinue { group_id } => (group_id, GroupAction::Continue),
            ClientAction::GroupSwipe { group_id, message_id, index } => {
                (group_id, GroupAction::Swipe { message_id, index })
            }
            other => return Err(other),
        })
    }
}

/// What `updateGroup` changes; `None` keeps the setting as it is.
#[derive(Debug, Clone, Default)]
pub struct GroupChanges {
    pub name: Option<String>,
    pub scenario: Option<String>,
    pub activation: Option<Activation>,
    pub allow_self_responses: Option<bool>,
    pub talk_cap: Option<TalkCap>,
}

/// What `updateMember` changes; `None` keeps it.
#[derive(Debug, Clone, Copy, Default)]
pub struct MemberChanges {
    pub muted: Option<bool>,
    pub talkativeness: Option<Talkativeness>,
}

#[derive(Clone)]
pub struct Groups {
    conversations: Conversations,
    engine: Arc<ChatEngine>,
}

impl Groups {
    pub fn new(conversations: Conversations, engine: Arc<ChatEngine>) -> Self {
        Self { conversations, engine }
    }

    /// A new group of the user's, with the members in the order given, opening with each
    /// member's greeting in seating order (as a one-to-one conversation opens with its
    /// character's): written in `language` (the page's, else the account's), with the
    /// user's name filled in.
    pub async fn create(
        &self,
        user_id: &UserId,
        new: NewGroup,
        language: Option<&str>,
    ) -> Result<GroupView, ChatError> {
        let (mut chatter, group) = self.create_bare(user_id, new).await?;
        if let Some(language) = language {
            chatter.language = language.to_owned();
        }
        let mut greetings = Vec::with_capacity(group.members.len());
        for member in &group.members {
            if let Some(mut character) = self.engine.load_character(&member.character_id).await? {
                amora_store::seed::localize_character(&mut character, &chatter.language);
                let text = fill_placeholders(&character.greeting, &chatter.user_name, &character.card.character_name);
                if !text.trim().is_empty() {
                    greetings.push((GroupSpeaker::Character(member.character_id.clone()), text));
                }
            }
        }
        self.append_history(user_id, &group.group_id, greetings).await?;
        self.get(user_id, &group.group_id).await
    }

    /// The group `new` describes, stored without a message; and the user as they chat.
    async fn create_bare(&self, user_id: &UserId, new: NewGroup) -> Result<(Chatter, Group), ChatError> {
        let chatter = self.conversations.chatter(user_id, None).await?;
        self.moderate_settings(user_id, &new.settings).await?;
        let store = self.engine.store();
        if store.groups.groups(user_id).await?.len() >= MAX_GROUPS_PER_USER {
            return Err(ChatError::Invalid(format!("groups: at most {MAX_GROUPS_PER_USER} per user")));
        }
        let mut members = Vec::with_capacity(new.members.len());
        for (character_id, talkativeness) in &new.members {
            members.push(self.admitted(&chatter, character_id, *talkativeness).await?);
        }
        let group = Group::new(new_group_id(), user_id.clone(), new.settings, members, now())?;
        store.groups.create_group(&group).await?;
        Ok((chatter, group))
    }

    /// Appends `said` (oldest first) to a group just made, with time-ordered ids ending now,
    /// one microsecond apart. Half a history is none: on a failure the group goes with it.
    async fn append_history(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        said: Vec<(GroupSpeaker, String)>,
    ) -> Result<(), ChatError> {
        let first = now_micros() - said.len() as i64;
        let store = self.engine.store();
        for (i, (speaker, content)) in said.into_iter().enumerate() {
            let stored = StoredGroupMessage::new(EntryId::new(first + i as i64, 0), speaker, content);
            if let Err(error) = store.groups.append_group_message(user_id, group_id, stored).await {
                let _ = store.groups.delete_group(user_id, group_id).await;
                return Err(error.into());
            }
        }
        Ok(())
    }

    /// The user's groups, the most recently active first.
    pub async fn list(&self, user_id: &UserId) -> Result<Vec<GroupView>, ChatError> {
        let summaries = self.engine.store().groups.groups(user_id).await?;
        let mut views = Vec::with_capacity(summaries.len());
        for summary in summaries {
            views.push(self.view(summary).await?);
        }
        Ok(views)
    }

    pub async fn get(&self, user_id: &UserId, group_id: &GroupId) -> Result<GroupView, ChatError> {
        let group = self.group(user_id, group_id).await?;
        let store = self.engine.store();
        let last_message = store.groups.group_messages(user_id, group_id, None, 1).await?.into_iter().next();
        self.view(GroupSummary { group, last_message }).await
    }

    /// Changes the group's settings; what is not given stays.
    pub async fn update(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        changes: GroupChanges,
    ) -> Result<GroupView, ChatError> {
        let mut group = self.group(user_id, group_id).await?;
        let current = &group.settings;
        let settings = GroupSettings::parse(
            changes.name.as_deref().unwrap_or(&current.name),
            changes.scenario.as_deref().unwrap_or(&current.scenario),
            changes.activation.unwrap_or(current.activation),
            changes.allow_self_responses.unwrap_or(current.allow_self_responses),
            changes.talk_cap.unwrap_or(current.talk_cap),
        )?;
        self.moderate_settings(user_id, &settings).await?;
        group.settings = settings;
        self.save(group).await
    }

    /// Seats a character at the end of the table.
    pub async fn add_member(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        character_id: &CharacterId,
        talkativeness: Talkativeness,
    ) -> Result<GroupView, ChatError> {
        let chatter = self.conversations.chatter(user_id, None).await?;
        let mut group = self.group(user_id, group_id).await?;
        group.add(self.admitted(&chatter, character_id, talkativeness).await?)?;
        self.save(group).await
    }

    pub async fn remove_member(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        character_id: &CharacterId,
    ) -> Result<GroupView, ChatError> {
        let mut group = self.group(user_id, group_id).await?;
        group.remove(character_id)?;
        self.save(group).await
    }

    /// Mutes or unmutes a member, or changes how talkative it is.
    pub async fn update_member(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        character_id: &CharacterId,
        changes: MemberChanges,
    ) -> Result<GroupView, ChatError> {
        let mut group = self.group(user_id, group_id).await?;
        if let Some(muted) = changes.muted {
            group.set_muted(character_id, muted)?;
        }
        if let Some(talkativeness) = changes.talkativeness {
            group.set_talkativeness(character_id, talkativeness)?;
        }
        self.save(group).await
    }

    /// Deletes the group with its messages.
    pub async fn delete(&self, user_id: &UserId, group_id: &GroupId) -> Result<(), ChatError> {
        if !self.engine.store().groups.delete_group(user_id, group_id).await? {
            return Err(ChatError::NoGroup);
        }
        Ok(())
    }

    /// `groupSend`: stores the user's message; the members the turn order picks answer
    /// it, streamed (`groupDelta`, `groupDone`, `groupIdle`). Answers the stored message.
    pub async fn send(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        text: MessageText,
    ) -> Result<GroupMessageView, ChatError> {
        // As a one-to-one send: refused first when the model would not take it, then moderated.
        self.engine.has_room_for(user_id)?;
        let moderator = self.conversations.moderator();
        moderator.check(Surface::ChatMessage, Some(user_id), text.as_str()).await.map_err(ChatError::Refused)?;
        let stored = self.turn(user_id, group_id, TurnKind::Send(text)).await?;
        stored.ok_or_else(|| ChatError::Store("the message was not stored".into()))
    }

    /// `groupTalk`: the members go on among themselves, at most the group's cap of replies.
    pub async fn talk(&self, user_id: &UserId, group_id: &GroupId) -> Result<(), ChatError> {
        self.engine.has_room_for(user_id)?;
        self.turn(user_id, group_id, TurnKind::Talk).await.map(|_| ())
    }

    /// `groupPick`: the member the user picks speaks (a muted one is refused).
    pub async fn pick(&self, user_id: &UserId, group_id: &GroupId, character_id: CharacterId) -> Result<(), ChatError> {
        self.engine.has_room_for(user_id)?;
        self.turn(user_id, group_id, TurnKind::Pick(character_id)).await.map(|_| ())
    }

    /// `groupRegenerate` / `groupContinue`: the member who wrote the newest reply writes it
    /// again (the old text kept as a version) or writes its rest. Costs what a reply costs.
    pub async fn rewrite(&self, user_id: &UserId, group_id: &GroupId, kind: TurnKind) -> Result<(), ChatError> {
        self.engine.has_room_for(user_id)?;
        self.turn(user_id, group_id, kind).await.map(|_| ())
    }

    /// `groupSwipe`: version `index` of the newest reply becomes the group's (free).
    pub async fn swipe(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        message_id: MessageId,
        index: u32,
    ) -> Result<GroupMessageView, ChatError> {
        self.group(user_id, group_id).await?;
        let swipe = SwipeReply { user_id: user_id.clone(), message_id, index };
        self.actor(user_id, group_id).await?.send(swipe).await?
    }

    /// `group/editMessage`: the user's own message gets a new text, checked as a new
    /// message is; the replies after it stay. Other tabs hear `groupMessage`.
    pub async fn edit_message(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        message_id: MessageId,
        text: MessageText,
    ) -> Result<GroupMessageView, ChatError> {
        let mut message = self.own_message(user_id, group_id, message_id, "edited").await?;
        let moderator = self.conversations.moderator();
        moderator.check(Surface::ChatMessage, Some(user_id), text.as_str()).await.map_err(ChatError::Refused)?;
        message.content = text.into_string();
        if !self.engine.store().groups.update_group_message(user_id, group_id, &message).await? {
            return Err(ChatError::NoMessage);
        }
        let view = GroupMessageView::from(&message);
        let event = ServerEvent::GroupMessage { group_id: group_id.clone(), message: view.clone() };
        self.engine.bus().publish(user_id, event).await;
        Ok(view)
    }

    /// `group/deleteMessage`: the user's own message leaves the group. Other tabs hear
    /// `groupMessageDeleted`.
    pub async fn delete_message(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        message_id: MessageId,
    ) -> Result<(), ChatError> {
        self.own_message(user_id, group_id, message_id, "deleted").await?;
        if self.engine.store().groups.delete_group_messages(user_id, group_id, &[message_id]).await? == 0 {
            return Err(ChatError::NoMessage);
        }
        let event = ServerEvent::GroupMessageDeleted { group_id: group_id.clone(), message_ids: vec![message_id] };
        self.engine.bus().publish(user_id, event).await;
        Ok(())
    }

    /// The user's own message of their group: 10006 when there is none, 10001 when a
    /// member said it (only the user's own are `done` to).
    async fn own_message(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        message_id: MessageId,
        done: &str,
    ) -> Result<StoredGroupMessage, ChatError> {
        self.group(user_id, group_id).await?;
        let message = self.engine.store().groups.group_message(user_id, group_id, message_id).await?;
        let message = message.ok_or(ChatError::NoMessage)?;
        if message.speaker != GroupSpeaker::User {
            return Err(ChatError::Invalid(format!("messageId: only your own messages can be {done}")));
        }
        Ok(message)
    }

    /// `groupStop`: stops the group's round.
    pub async fn stop(&self, user_id: &UserId, group_id: &GroupId) -> Result<(), ChatError> {
        self.actor(user_id, group_id).await?.send(StopRound).await?
    }

    /// A socket's group action; `None` when it went through (its events follow), else
    /// the `groupError` refusing it.
    pub async fn run_action(&self, user_id: &UserId, group_id: GroupId, action: GroupAction) -> Option<ServerEvent> {
        let result = match action {
            GroupAction::Send(text) => self.send(user_id, &group_id, text).await.map(|_| ()),
            GroupAction::Talk => self.talk(user_id, &group_id).await,
            GroupAction::Pick(character_id) => self.pick(user_id, &group_id, character_id).await,
            GroupAction::Stop => self.stop(user_id, &group_id).await,
            GroupAction::Regenerate => self.rewrite(user_id, &group_id, TurnKind::Regenerate).await,
            GroupAction::Continue => self.rewrite(user_id, &group_id, TurnKind::Continue).await,
            GroupAction::Swipe { message_id, index } => {
                self.swipe(user_id, &group_id, message_id, index).await.map(|_| ())
            }
        };
        result.err().map(|error| {
            if error.is_fault() {
                tracing::error!(%error, user = %user_id, group = %group_id, "a group action failed");
            }
            ServerEvent::GroupError {
                group_id,
                character_id: None,
                reply_id: None,
                code: error.code().value(),
                msg: error.public_message(),
            }
        })
    }

    async fn turn(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        kind: TurnKind,
    ) -> Result<Option<GroupMessageView>, ChatError> {
        let chatter = self.conversations.chatter(user_id, None).await?;
        // Only the owner's group has an actor: another's id answers as no group.
        self.group(user_id, group_id).await?;
        self.actor(user_id, group_id).await?.send(GroupTurn { chatter, kind }).await?
    }

    async fn actor(&self, user_id: &UserId, group_id: &GroupId) -> Result<actix::Addr<GroupActor>, ChatError> {
        let key = GroupKey { owner: user_id.clone(), group_id: group_id.clone() };
        Ok(self.conversations.registry().send(GroupAddr(key)).await?)
    }

    /// A page of the group's history, newest first.
    pub async fn history(
        &self,
        user_id: &UserId,
        group_id: &GroupId,
        before: Option<MessageId>,
        page_size: u32,
    ) -> Result<GroupMessagePage, ChatError> {
        self.group(user_id, group_id).await?;
        let messages = self.engine.store().groups.group_messages(user_id, group_id, before, page_size).await?;
        let has_more = messages.len() == page_size as usize;
        Ok(GroupMessagePage { messages: messages.iter().map(GroupMessageView::from).collect(), has_more })
    }

    /// A new group whose history is a SillyTavern group chat export: each character line is
    /// said by the member of that name (its whole name, or its first name), each user line
    /// by the user. Every text is moderated as an imported card's are; a speaker no member
    /// answers to, or a refused text, refuses the import and stores nothing. The messages
    /// keep their order; their times are the import's (the export's dates are free text).
    pub async fn import(
        &self,
        user_id: &UserId,
        new: NewGroup,
        log: Vec<LoggedMessage>,
    ) -> Result<GroupView, ChatError> {
        // Who may join is settled before the speakers are named, so that the answer about
        // another user's private character is the same 10006 as `createGroup` gives.
        let chatter = self.conversations.chatter(user_id, None).await?;
        let mut names = Vec::with_capacity(new.members.len());
        for (character_id, _) in &new.members {
            let character = self.engine.load_character(character_id).await?.ok_or(ChatError::NoCharacter)?;
            admit(chatter.viewer, &chatter.user_id, &character, Talkativeness::DEFAULT)
                .map_err(|_| ChatError::NoCharacter)?;
            names.push((character_id.clone(), character.card.character_name));
        }
        let mut speakers = Vec::with_capacity(log.len());
        for message in &log {
            let speaker = if message.is_user {
                GroupSpeaker::User
            } else {
                let id = speaker_for(&message.name, &names).ok_or_else(|| {
                    ChatError::Invalid(format!("chat: no member is {:?} (name each speaker's character)", message.name))
                })?;
                GroupSpeaker::Character(id)
            };
            speakers.push(speaker);
        }
        let moderator = self.conversations.moderator();
        for message in &log {
            moderator.check(Surface::CardField, Some(user_id), &message.text).await.map_err(ChatError::Refused)?;
        }
        let (_, group) = self.create_bare(user_id, new).await?;
        let said = log.into_iter().zip(speakers).map(|(message, speaker)| (speaker, message.text)).collect();
        self.append_history(user_id, &group.group_id, said).await?;
        let group_id = group.group_id;
        self.get(user_id, &group_id).await
    }

    async fn group(&self, user_id: &UserId, group_id: &GroupId) -> Result<Group, ChatError> {
        self.engine.store().groups.group(user_id, group_id).await?.ok_or(ChatError::NoGroup)
    }

    /// The member `character_id` would be, if the user may seat it: a character they
    /// cannot open answers as one that does not exist (10006), as opening it would.
    async fn admitted(
        &self,
        chatter: &Chatter,
        character_id: &CharacterId,
        talkativeness: Talkativeness,
    ) -> Result<GroupMember, ChatError> {
        let character = self.engine.load_character(character_id).await?.ok_or(ChatError::NoCharacter)?;
        admit(chatter.viewer, &chatter.user_id, &character, talkativeness).map_err(|_| ChatError::NoCharacter)
    }

    async fn moderate_settings(&self, user_id: &UserId, settings: &GroupSettings) -> Result<(), ChatError> {
        let moderator = self.conversations.moderator();
        for text in [&settings.name, &settings.scenario] {
            if !text.is_empty() {
                moderator.check(Surface::CharacterText, Some(user_id), text).await.map_err(ChatError::Refused)?;
            }
        }
        Ok(())
    }

    async fn save(&self, mut group: Group) -> Result<GroupView, ChatError> {
        group.updated_at = now();
        let store = self.engine.store();
        if !store.groups.update_group(&group).await? {
            return Err(ChatError::NoGroup);
        }
        let last_message =
            store.groups.group_messages(&group.owner, &group.group_id, None, 1).await?.into_iter().next();
        self.view(GroupSummary { group, last_message }).await
    }

    async fn view(&self, summary: GroupSummary) -> Result<GroupView, ChatError> {
        let GroupSummary { group, last_message } = summary;
        let mut members = Vec::with_capacity(group.members.len());
        for member in &group.members {
            let character: Option<Character> = self.engine.load_character(&member.character_id).await?;
            let (character_name, character_photo) =
                character.map(|c| (c.card.character_name, c.card.character_photo)).unwrap_or_default();
            members.push(GroupMemberView {
                character_id: member.character_id.clone(),
                character_name,
                character_photo,
                muted: member.muted,
                talkativeness: member.talkativeness.percent(),
            });
        }
        let settings = group.settings;
        Ok(GroupView {
            group_id: group.group_id.as_str().to_owned(),
            name: settings.name,
            scenario: settings.scenario,
            activation: settings.activation.into(),
            allow_self_responses: settings.allow_self_responses,
            talk_cap: settings.talk_cap.replies(),
            members,
            created_at: group.created_at.saturating_mul(1000),
            last_message: last_message.as_ref().map(GroupMessageView::from),
        })
    }
}

/// A new group's id: `g` and 15 random letters and digits, so ids never collide in practice
/// and say nothing about the user or when it was made.
fn new_group_id() -> GroupId {
    let tail: String = rand::thread_rng().sample_iter(&Alphanumeric).take(15).map(char::from).collect();
    // Letters and digits always parse as a group id.
    GroupId::parse(&format!("g{tail}")).unwrap_or_else(|e| panic!("{e}"))
}

/// The member an export's speaker `name` is: the one of that whole name (case-folded), else
/// the one whose first name it is, or whose whole name is its first word ("Sofia" for
/// "Sofia Marin"); `None` when no member, or more than one, answers to it.
fn speaker_for(name: &str, members: &[(CharacterId, String)]) -> Option<CharacterId> {
    let fold = |s: &str| s.trim().to_lowercase();
    let first = |s: &str| fold(s).split_whitespace().next().unwrap_or_default().to_owned();
    let wanted = fold(name);
    if let Some((id, _)) = members.iter().find(|(_, n)| fold(n) == wanted) {
        return Some(id.clone());
    }
    let mut matches =
        members.iter().filter(|(_, n)| first(n) == wanted || fold(n) == first(name)).map(|(id, _)| id.clone());
    let found = matches.next()?;
    matches.next().is_none().then_some(found)
}

fn now_micros() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64)
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_s_speaker_is_the_member_of_that_name_or_first_name() {
        let id = |raw: &str| CharacterId::parse(raw).unwrap_or_else(|e| panic!("{e}"));
        let members =
            vec![(id("a"), "Sofia Marin".to_owned()), (id("b"), "Leo".to_owned()), (id("c"), "Sofia Reyes".to_owned())];
        assert_eq!(speaker_for("sofia marin", &members), Some(id("a")), "the whole name, case-folded");
        assert_eq!(speaker_for("Leo", &members), Some(id("b")));
        assert_eq!(speaker_for("Leo the Bold", &members), Some(id("b")), "a member named by the first word");
        assert_eq!(speaker_for("Sofia", &members), None, "two Sofias: ambiguous");
        assert_eq!(speaker_for("Seraphina", &members), None);
        assert_eq!(speaker_for("Sofia", &members[..2]), Some(id("a")), "one Sofia: her first name");
    }

    #[test]
    fn group_ids_are_new_each_time_and_valid() {
        let (a, b) = (new_group_id(), new_group_id());
        assert_ne!(a, b);
        assert_eq!(a.as_str().len(), 16);
        assert!(a.as_str().starts_with('g'));
    }

    #[test]
    fn a_message_names_its_speaker_only_when_a_character_spoke() {
        let mia = CharacterId::parse("gf-001").unwrap_or_else(|e| panic!("{e}"));
        let id = EntryId::new(1_700_000_000_000_000, 0);
        let said = |speaker| StoredGroupMessage::new(id, speaker, "Hi".into());
        let view = GroupMessageView::from(&said(GroupSpeaker::Character(mia.clone())));
        assert_eq!((view.character_id, view.created_at), (Some(mia), 1_700_000_000_000));
        assert_eq!(GroupMessageView::from(&said(GroupSpeaker::User)).character_id, None);
    }
}
