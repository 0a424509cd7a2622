//! The chat repositories: conversations and their messages, reply versions (swipes), the
//! user's personas, the free message credits and group chats.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{MessageId, Speaker};
use amora_domain::group::{
    Activation, Group, GroupId, GroupMember, GroupSettings, GroupSpeaker, TalkCap, Talkativeness,
};
use amora_domain::persona::UserPersona;
use async_trait::async_trait;

use crate::{MessageImage, StoreError, StoreResult};

/// One message of a conversation as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMessage {
    pub message_id: MessageId,
    pub speaker: Speaker,
    pub content: String,
    /// The picture the message shows (a character's picture asked for in chat).
    pub image: Option<MessageImage>,
}

/// A conversation in the user's chat list: the character and its newest message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationSummary {
    pub character_id: CharacterId,
    pub last_message: StoredMessage,
}

/// Conversations, one per user–character pair, partitioned by that pair and clustered by
/// message id (time), newest first. A conversation exists while it has messages.
///
/// The user's messages are in the pair's recall index ([`RecallRepo`](crate::RecallRepo)) while they exist:
/// `append` indexes one, `update_message` indexes its new text instead of the old, and
/// `delete_messages` and `delete` take them out. The character's messages are not indexed:
/// recall brings back what the user said.
#[async_trait]
pub trait ConversationRepo: Send + Sync {
    async fn append(&self, user_id: &UserId, character_id: &CharacterId, message: StoredMessage) -> StoreResult<()>;
    /// Newest first: the messages older than `before` (all when `None`), at most `limit`.
    async fn messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        before: Option<MessageId>,
        limit: u32,
    ) -> StoreResult<Vec<StoredMessage>>;
    /// Replaces a message's text; false when there is no such message.
    async fn update_message(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
        content: &str,
    ) -> StoreResult<bool>;
    /// Deletes messages by id (and their voice clips); how many existed.
    async fn delete_messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_ids: &[MessageId],
    ) -> StoreResult<u64>;
    /// The user's conversations, the most recently active first.
    async fn list(&self, user_id: &UserId) -> StoreResult<Vec<ConversationSummary>>;
    /// Deletes the conversation with all its messages and their voice clips; false when it
    /// had no message.
    async fn delete(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<bool>;
}

/// The versions of one reply (swipes): every text written for the reply to one user message
/// (its parent), oldest first, and which one the conversation holds. Kept by parent so that
/// branching can come later; a reply nobody wrote again has none stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyAlternatives {
    pub parent_id: MessageId,
    /// Index into `texts` of the version the conversation holds.
    pub chosen: u32,
    pub texts: Vec<String>,
}

/// Reply versions per user–character pair, keyed by the parent message they answer, with
/// the chosen index. The conversation's own message row holds the chosen text; these are
/// what the user may switch between.
#[async_trait]
pub trait ReplyAlternativeRepo: Send + Sync {
    /// The versions of the reply to `parent_id`; `None` when none are stored.
    async fn alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
    ) -> StoreResult<Option<ReplyAlternatives>>;
    /// Stores `content` as the next version of the reply to `parent_id` and makes it the
    /// chosen one; answers its index (0 for the first).
    async fn add_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        content: &str,
    ) -> StoreResult<u32>;
    /// Makes version `index` the chosen one; false when there is no such version.
    async fn choose_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
    ) -> StoreResult<bool>;
    /// Replaces the text of version `index` (the reply was continued); false when there is
    /// no such version.
    async fn set_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
        content: &str,
    ) -> StoreResult<bool>;
    /// Deletes the versions of the replies to `parent_ids` (those messages were deleted).
    async fn delete_alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_ids: &[MessageId],
    ) -> StoreResult<()>;
    /// Deletes every reply version of the pair (the conversation was deleted).
    async fn delete_pair_alternatives(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<()>;
}

/// A persona of the user's (issue 18) with the character it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPersona {
    /// `None`: the persona for every character (the one set in settings).
    pub character_id: Option<CharacterId>,
    pub persona: UserPersona,
}

/// The user's personas: at most one for every character and one per character, all in the
/// user's one partition, so a single read finds which applies where. Deleting the account
/// deletes them (`UserRepo::delete`).
#[async_trait]
pub trait PersonaRepo: Send + Sync {
    /// Every persona of the user: the one for every character first, then by character id.
    async fn personas(&self, user_id: &UserId) -> StoreResult<Vec<StoredPersona>>;
    /// Creates or replaces the persona for `character` (`None`: every character).
    async fn put_persona(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        persona: UserPersona,
    ) -> StoreResult<()>;
    /// Removes the persona for `character` (`None`: every character); false when there was none.
    async fn delete_persona(&self, user_id: &UserId, character: Option<&CharacterId>) -> StoreResult<bool>;
}

/// How both stores write "every character" where a character id goes (no id is empty).
pub(crate) fn persona_key(character: Option<&CharacterId>) -> String {
    character.map(|id| id.as_str().to_owned()).unwrap_or_default()
}

/// The character a stored persona key names (`""`: every character).
pub(crate) fn persona_character(key: &str) -> StoreResult<Option<CharacterId>> {
    if key.is_empty() {
        return Ok(None);
    }
    CharacterId::parse(key).map(Some).map_err(|e| StoreError::Corrupt(format!("persona of {key:?}: {e}")))
}

/// Free message credits: how many messages a user sent on a UTC day.
#[async_trait]
pub trait MessageCreditRepo: Send + Sync {
    /// Takes one of `limit` credits of `day` (days since the epoch): the number used
    /// afterwards, or `None` when all were used already. Atomic across nodes.
    async fn take(&self, user_id: &UserId, day: i64, limit: u32) -> StoreResult<Option<u32>>;
    /// Gives a credit back (the message was refused or its reply failed).
    async fn give_back(&self, user_id: &UserId, day: i64) -> StoreResult<()>;
    async fn used(&self, user_id: &UserId, day: i64) -> StoreResult<u32>;
}

/// A message of a group chat (issue 31) as stored: who said it (the user or a member).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGroupMessage {
    pub message_id: MessageId,
    pub speaker: GroupSpeaker,
    /// The text the group holds: the chosen version of a reply that has several.
    pub content: String,
    pub versions: GroupReplyVersions,
}

impl StoredGroupMessage {
    /// A message written once (no versions).
    pub fn new(message_id: MessageId, speaker: GroupSpeaker, content: String) -> Self {
        Self { message_id, speaker, content, versions: GroupReplyVersions::default() }
    }
}

/// The versions of a member's reply (swipes): every text written for it, oldest first, and
/// the index of the one the message holds. Kept on the message itself (a group's reply has
/// one place in its history); empty for a reply written once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupReplyVersions {
    pub texts: Vec<String>,
    pub chosen: u32,
}

/// A group in the user's chat list: the group and its newest message, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSummary {
    pub group: Group,
    pub last_message: Option<StoredGroupMessage>,
}

impl GroupSummary {
    /// When the group was last active, in milliseconds: its newest message, else its creation.
    pub fn active_at(&self) -> i64 {
        self.last_message.as_ref().map_or(self.group.created_at.saturating_mul(1000), |m| m.message_id.unix_millis())
    }
}

/// Group chats (issue 31): each group is its owner's, one row per group in the owner's one
/// partition (settings and members in seating order, written whole), and its messages in
/// one partition per group, clustered by message id, newest first. Deleting the account
/// deletes its groups with their messages (`UserRepo::delete`).
///
/// Who may be a member is decided before a group reaches the store
/// (`amora_domain::group::admit`); the store keeps what it is given.
#[async_trait]
pub trait GroupRepo: Send + Sync {
    /// Stores a new group (its id is new: drawn at random by the caller).
    async fn create_group(&self, group: &Group) -> StoreResult<()>;
    async fn group(&self, owner: &UserId, group_id: &GroupId) -> StoreResult<Option<Group>>;
    /// The owner's groups with their newest message, the most recently active first.
    async fn groups(&self, owner: &UserId) -> StoreResult<Vec<GroupSummary>>;
    /// Replaces a group's settings, members and `updated_at`; false when there is no such group.
    async fn update_group(&self, group: &Group) -> StoreResult<bool>;
    /// Deletes the group with its messages; false when there was none.
    async fn delete_group(&self, owner: &UserId, group_id: &GroupId) -> StoreResult<bool>;
    async fn append_group_message(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message: StoredGroupMessage,
    ) -> StoreResult<()>;
    /// Newest first: the messages older than `before` (all when `None`), at most `limit`.
    async fn group_messages(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        before: Option<MessageId>,
        limit: u32,
    ) -> StoreResult<Vec<StoredGroupMessage>>;
    /// The message of that id, if the group has it.
    async fn group_message(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message_id: MessageId,
    ) -> StoreResult<Option<StoredGroupMessage>>;
    /// Replaces the text and versions of the message of `message.message_id` (its speaker
    /// stays); false when there is no such message.
    async fn update_group_message(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message: &StoredGroupMessage,
    ) -> StoreResult<bool>;
    /// Deletes messages by id; how many existed.
    async fn delete_group_messages(
        &self,
        owner: &UserId,
        group_id: &GroupId,
        message_ids: &[MessageId],
    ) -> StoreResult<u64>;
}

/// A group's columns as both stores keep them, read back into a [`Group`]; a value that no
/// longer parses is corruption, not bad input.
pub(crate) struct GroupColumns {
    pub owner: String,
    pub group_id: String,
    pub name: String,
    pub scenario: String,
    pub activation: String,
    pub allow_self_responses: bool,
    pub talk_cap: i64,
    /// (character id, muted, talkativeness) in seating order.
    pub members: Vec<(String, bool, i64)>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl GroupColumns {
    pub(crate) fn of(group: &Group) -> Self {
        let s = &group.settings;
        Self {
            owner: group.owner.as_str().to_owned(),
            group_id: group.group_id.as_str().to_owned(),
            name: s.name.clone(),
            scenario: s.scenario.clone(),
            activation: s.activation.as_str().to_owned(),
            allow_self_responses: s.allow_self_responses,
            talk_cap: i64::from(s.talk_cap.replies()),
            members: group
                .members
                .iter()
                .map(|m| (m.character_id.as_str().to_owned(), m.muted, i64::from(m.talkativeness.percent())))
                .collect(),
            created_at: group.created_at,
            updated_at: group.updated_at,
        }
    }

    pub(crate) fn into_group(self) -> StoreResult<Group> {
        let corrupt = |e: amora_domain::Invalid| StoreError::Corrupt(format!("group {}: {e}", self.group_id));
        let members = self
            .members
            .iter()
            .map(|(id, muted, talkativeness)| {
                Ok(GroupMember {
                    character_id: CharacterId::parse(id).map_err(corrupt)?,
                    muted: *muted,
                    talkativeness: Talkativeness::parse(*talkativeness).map_err(corrupt)?,
                })
            })
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(Group {
            group_id: GroupId::parse(&self.group_id).map_err(corrupt)?,
            owner: UserId::parse(&self.owner).map_err(corrupt)?,
            settings: GroupSettings {
                activation: Activation::parse(&self.activation).map_err(corrupt)?,
                talk_cap: TalkCap::parse(self.talk_cap).map_err(corrupt)?,
                name: self.name,
                scenario: self.scenario,
                allow_self_responses: self.allow_self_responses,
            },
            members,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

/// A stored group message's speaker code read back.
pub(crate) fn group_speaker(code: &str) -> StoreResult<GroupSpeaker> {
    GroupSpeaker::from_code(code).map_err(|e| StoreError::Corrupt(format!("group message speaker {code:?}: {e}")))
}

/// The chat list's order for groups: the most recently active first, then by id.
pub(crate) fn sort_groups(list: &mut [GroupSummary]) {
    list.sort_by(|a, b| b.active_at().cmp(&a.active_at()).then_with(|| a.group.group_id.cmp(&b.group.group_id)));
}
