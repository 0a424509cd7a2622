//! Group chats (issue 31): one user's conversation with 2–6 characters at once. The group
//! (its name, scenario, members in seating order with their muted flag and talkativeness,
//! how the next speaker is chosen), who may join it (`admit`), the messages' speakers, and
//! in `turns` who speaks next (SillyTavern's rules, docs/architecture.md "Group chats").

mod turns;

pub use turns::*;

use crate::Invalid;
use crate::account::UserId;
use crate::character::{Character, CharacterId};
use crate::viewer::Viewer;

/// Fewest characters in a group: with one it is a one-to-one chat.
pub const MIN_MEMBERS: usize = 2;
/// Most characters in a group: more would leave each too few turns and the prompt too
/// little room for any one character's card.
pub const MAX_MEMBERS: usize = 6;
pub const MAX_GROUP_NAME_CHARS: usize = 60;
/// As long as a character card's scenario may usefully be for a small model's prompt.
pub const MAX_GROUP_SCENARIO_CHARS: usize = 2000;
/// Most groups one user keeps (the chat list reads them all).
pub const MAX_GROUPS_PER_USER: usize = 100;
const MAX_ID_LEN: usize = 40;

/// An opaque group id: 1 to 40 of `[A-Za-z0-9_-]`, so it is safe in a URL path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct GroupId(String);

impl TryFrom<String> for GroupId {
    type Error = Invalid;

    fn try_from(raw: String) -> Result<Self, Self::Error> {
        GroupId::parse(&raw)
    }
}

impl From<GroupId> for String {
    fn from(id: GroupId) -> Self {
        id.0
    }
}

impl GroupId {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let valid_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if raw.is_empty() || raw.len() > MAX_ID_LEN || !raw.chars().all(valid_char) {
            return Err(Invalid::new("groupId", "must be 1 to 40 letters, digits, '-' or '_'"));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for GroupId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How likely a character is to speak up unasked in the natural order, in percent:
/// SillyTavern's talkativeness (0–1, default 0.5) in whole steps, so it stores exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Talkativeness(u8);

impl Talkativeness {
    pub const DEFAULT: Talkativeness = Talkativeness(50);

    pub fn parse(percent: i64) -> Result<Self, Invalid> {
        u8::try_from(percent)
            .ok()
            .filter(|p| *p <= 100)
            .map(Self)
            .ok_or_else(|| Invalid::new("talkativeness", "must be 0 to 100"))
    }

    pub fn percent(self) -> u8 {
        self.0
    }
}

impl Default for Talkativeness {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How the next speaker is chosen (SillyTavern's activation strategies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Activation {
    /// Those named in the message first, then by talkativeness.
    #[default]
    Natural,
    /// Every unmuted member in seating order ("in turn").
    List,
    /// Only the member the user picks.
    Manual,
}

impl Activation {
    pub fn as_str(self) -> &'static str {
        match self {
            Activation::Natural => "natural",
            Activation::List => "list",
            Activation::Manual => "manual",
        }
    }

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        match raw {
            "natural" => Ok(Activation::Natural),
            "list" => Ok(Activation::List),
            "manual" => Ok(Activation::Manual),
            _ => Err(Invalid::new("activation", "must be natural, list or manual")),
        }
    }
}

/// How many replies "let them talk" writes before waiting for the user again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TalkCap(u8);

impl TalkCap {
    pub const DEFAULT: TalkCap = TalkCap(3);
    pub const MAX: u8 = 10;

    pub fn parse(replies: i64) -> Result<Self, Invalid> {
        u8::try_from(replies)
            .ok()
            .filter(|n| (1..=Self::MAX).contains(n))
            .map(Self)
            .ok_or_else(|| Invalid::new("talkCap", format!("must be 1 to {}", Self::MAX)))
    }

    pub fn replies(self) -> u8 {
        self.0
    }
}

impl Default for TalkCap {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A character of a group, in its seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMember {
    pub character_id: CharacterId,
    /// A muted member never speaks until unmuted (SillyTavern's disabled members).
    pub muted: bool,
    pub talkativeness: Talkativeness,
}

/// A character the owner may not open: another user's private one, one in review or
/// refused, or a restricted one for a new account. Answered as "not found", as opening it
/// one to one is, so that a private character's existence is not told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("character {0} cannot join: it is not open to this user")]
pub struct NotOpen(pub CharacterId);

/// The one door into a group: `owner` (seen as `viewer`) may seat `character` only if they
/// may open it one to one (`Viewer::may_open`): their own, or a public one their account
/// may see. A private character of another user can never be a member.
pub fn admit(
    viewer: Viewer,
    owner: &UserId,
    character: &Character,
    talkativeness: Talkativeness,
) -> Result<GroupMember, NotOpen> {
    if !viewer.may_open(character, Some(owner)) {
        return Err(NotOpen(character.card.character_id.clone()));
    }
    Ok(GroupMember { character_id: character.card.character_id.clone(), muted: false, talkativeness })
}

/// What the owner sets of a group, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSettings {
    /// 1–60 characters, one line.
    pub name: String,
    /// 0–2,000 characters; when set it replaces every member's own scenario.
    pub scenario: String,
    pub activation: Activation,
    /// Whether a character may answer its own message (SillyTavern's `allow_self_responses`).
    pub allow_self_responses: bool,
    pub talk_cap: TalkCap,
}

impl GroupSettings {
    /// Checks and tidies what the owner wrote: both texts trimmed, `\r\n` made `\n`.
    pub fn parse(
        name: &str,
        scenario: &str,
        activation: Activation,
        allow_self_responses: bool,
        talk_cap: TalkCap,
    ) -> Result<Self, Invalid> {
        let name = name.trim();
        let count = name.chars().count();
        if count == 0 || count > MAX_GROUP_NAME_CHARS {
            return Err(Invalid::new("name", format!("must be 1 to {MAX_GROUP_NAME_CHARS} characters")));
        }
        if name.chars().any(char::is_control) {
            return Err(Invalid::new("name", "must be on one line, without control characters"));
        }
        let scenario = scenario.trim().replace("\r\n", "\n");
        if scenario.chars().count() > MAX_GROUP_SCENARIO_CHARS {
            return Err(Invalid::new("scenario", format!("must be at most {MAX_GROUP_SCENARIO_CHARS} characters")));
        }
        if scenario.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
            return Err(Invalid::new("scenario", "must not hold control characters"));
        }
        Ok(Self { name: name.to_owned(), scenario, activation, allow_self_responses, talk_cap })
    }
}

/// A group chat: whose it is, its settings and its members in seating order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub group_id: GroupId,
    pub owner: UserId,
    pub settings: GroupSettings,
    pub members: Vec<GroupMember>,
    /// Seconds since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

impl Group {
    /// A new group of `members` (each admitted), in that seating order: 2 to 6, no one twice.
    pub fn new(
        group_id: GroupId,
        owner: UserId,
        settings: GroupSettings,
        members: Vec<GroupMember>,
        now: i64,
    ) -> Result<Self, Invalid> {
        if !(MIN_MEMBERS..=MAX_MEMBERS).contains(&members.len()) {
            return Err(Invalid::new("members", format!("a group has {MIN_MEMBERS} to {MAX_MEMBERS} characters")));
        }
        for (i, member) in members.iter().enumerate() {
            if members[..i].iter().any(|m| m.character_id == member.character_id) {
                return Err(Invalid::new("members", "a character sits in a group once"));
            }
        }
        Ok(Self { group_id, owner, settings, members, created_at: now, updated_at: now })
    }

    pub fn member(&self, character_id: &CharacterId) -> Option<&GroupMember> {
        self.members.iter().find(|m| &m.character_id == character_id)
    }

    /// Seats an admitted member at the end of the table.
    pub fn add(&mut self, member: GroupMember) -> Result<(), Invalid> {
        if self.member(&member.character_id).is_some() {
            return Err(Invalid::new("characterId", "is already in the group"));
        }
        if self.members.len() >= MAX_MEMBERS {
            return Err(Invalid::new("members", format!("a group has at most {MAX_MEMBERS} characters")));
        }
        self.members.push(member);
        Ok(())
    }

    /// Takes a member out; the others keep their order. A group keeps at least two.
    pub fn remove(&mut self, character_id: &CharacterId) -> Result<(), Invalid> {
        let Some(seat) = self.members.iter().position(|m| &m.character_id == character_id) else {
            return Err(Invalid::new("characterId", "is not in the group"));
        };
        if self.members.len() <= MIN_MEMBERS {
            return Err(Invalid::new("members", format!("a group has at least {MIN_MEMBERS} characters")));
        }
        self.members.remove(seat);
        Ok(())
    }

    /// Mutes or unmutes a member.
    pub fn set_muted(&mut self, character_id: &CharacterId, muted: bool) -> Result<(), Invalid> {
        let member = self
            .members
            .iter_mut()
            .find(|m| &m.character_id == character_id)
            .ok_or_else(|| Invalid::new("characterId", "is not in the group"))?;
        member.muted = muted;
        Ok(())
    }

    /// Sets how talkative a member is.
    pub fn set_talkativeness(
        &mut self,
        character_id: &CharacterId,
        talkativeness: Talkativeness,
    ) -> Result<(), Invalid> {
        let member = self
            .members
            .iter_mut()
            .find(|m| &m.character_id == character_id)
            .ok_or_else(|| Invalid::new("characterId", "is not in the group"))?;
        member.talkativeness = talkativeness;
        Ok(())
    }
}

/// Who wrote a message of a group chat.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GroupSpeaker {
    User,
    Character(CharacterId),
}

impl GroupSpeaker {
    /// As stored: `""` for the user (no character id is empty), else the character's id.
    pub fn code(&self) -> &str {
        match self {
            GroupSpeaker::User => "",
            GroupSpeaker::Character(id) => id.as_str(),
        }
    }

    pub fn from_code(code: &str) -> Result<Self, Invalid> {
        if code.is_empty() {
            return Ok(GroupSpeaker::User);
        }
        CharacterId::parse(code).map(GroupSpeaker::Character).map_err(|e| Invalid::new("speaker", e.reason))
    }

    pub fn character(&self) -> Option<&CharacterId> {
        match self {
            GroupSpeaker::User => None,
            GroupSpeaker::Character(id) => Some(id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::{CardExtras, CharacterAge, CharacterCard, CharacterStatus, Exposure, UsedType};
    use crate::gender::Gender;

    fn id(raw: &str) -> CharacterId {
        CharacterId::parse(raw).unwrap_or_else(|e| panic!("{e}"))
    }

    fn user(raw: &str) -> UserId {
        UserId::parse(raw).unwrap_or_else(|e| panic!("{e}"))
    }

    fn character(raw: &str, creator: Option<&str>, status: CharacterStatus, exposure: Exposure) -> Character {
        Character {
            card: CharacterCard {
                character_id: id(raw),
                character_name: raw.into(),
                character_age: CharacterAge::parse(25).unwrap_or_else(|e| panic!("{e}")),
                introduction: String::new(),
                character_photo: String::new(),
                character_image_list: vec![],
                used_type: UsedType::Free,
                gender: Gender::Girls,
            },
            personality: String::new(),
            scenario: String::new(),
            greeting: String::new(),
            tags: vec![],
            creator_id: creator.map(str::to_owned),
            exposure,
            status,
            extras: CardExtras::default(),
        }
    }

    fn member(raw: &str) -> GroupMember {
        GroupMember { character_id: id(raw), muted: false, talkativeness: Talkativeness::DEFAULT }
    }

    fn settings() -> GroupSettings {
        GroupSettings::parse("Night shift", "", Activation::Natural, false, TalkCap::DEFAULT)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_private_character_of_another_user_can_never_join() {
        let (ann, bob) = (user("ann"), user("bob"));
        let bobs = character("bobs-own", Some("bob"), CharacterStatus::Private, Exposure::Everyone);
        assert_eq!(
            admit(Viewer::Member, &ann, &bobs, Talkativeness::DEFAULT),
            Err(NotOpen(id("bobs-own"))),
            "another user's private character"
        );
        for status in [CharacterStatus::Review, CharacterStatus::Rejected] {
            let unlisted = character("bobs-own", Some("bob"), status, Exposure::Everyone);
            assert!(admit(Viewer::Member, &ann, &unlisted, Talkativeness::DEFAULT).is_err(), "{status:?}");
        }
        let joined = admit(Viewer::Member, &bob, &bobs, Talkativeness::parse(80).unwrap_or_default());
        assert_eq!(
            joined.map(|m| (m.character_id, m.muted, m.talkativeness.percent())),
            Ok((id("bobs-own"), false, 80)),
            "the creator's own private character"
        );
        let public = character("gf-001", None, CharacterStatus::Public, Exposure::Everyone);
        assert!(admit(Viewer::NewUser, &ann, &public, Talkativeness::DEFAULT).is_ok());
        let restricted = character("gf-002", None, CharacterStatus::Public, Exposure::Restricted);
        assert!(admit(Viewer::NewUser, &ann, &restricted, Talkativeness::DEFAULT).is_err(), "as one to one");
        assert!(admit(Viewer::Member, &ann, &restricted, Talkativeness::DEFAULT).is_ok());
    }

    #[test]
    fn a_group_seats_two_to_six_characters_once_each() {
        let make = |members: Vec<GroupMember>| {
            Group::new(GroupId::parse("g1").unwrap_or_else(|e| panic!("{e}")), user("ann"), settings(), members, 7)
        };
        assert!(make(vec![member("a")]).is_err());
        assert!(make(vec![member("a"), member("a")]).is_err());
        let seven = ["a", "b", "c", "d", "e", "f", "g"].map(member).to_vec();
        assert!(make(seven.clone()).is_err());
        let mut group = make(seven[..5].to_vec()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(group.add(member("a")).map_err(|e| e.field), Err("characterId"), "already seated");
        assert!(group.add(member("f")).is_ok());
        assert_eq!(group.add(member("g")).map_err(|e| e.field), Err("members"), "six at most");
        for gone in ["a", "c", "e", "f"] {
            assert!(group.remove(&id(gone)).is_ok());
        }
        assert_eq!(group.members, vec![member("b"), member("d")], "the others keep their seats");
        assert_eq!(group.remove(&id("b")).map_err(|e| e.field), Err("members"), "two at least");
        assert_eq!(group.remove(&id("a")).map_err(|e| e.field), Err("characterId"));
        assert!(group.set_muted(&id("d"), true).is_ok());
        assert!(group.member(&id("d")).is_some_and(|m| m.muted));
        assert!(group.set_muted(&id("zz"), true).is_err());
        assert!(group.set_talkativeness(&id("b"), Talkativeness::parse(0).unwrap_or_default()).is_ok());
        assert_eq!(group.member(&id("b")).map(|m| m.talkativeness.percent()), Some(0));
    }

    #[test]
    fn settings_are_checked_and_tidied() {
        let parse =
            |name: &str, scenario: &str| GroupSettings::parse(name, scenario, Activation::List, true, TalkCap::DEFAULT);
        let ok = parse("  Night shift ", " At the ward.\r\nLate. ").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((ok.name.as_str(), ok.scenario.as_str()), ("Night shift", "At the ward.\nLate."));
        assert_eq!(parse(" ", "").map_err(|e| e.field), Err("name"));
        assert_eq!(parse(&"n".repeat(61), "").map_err(|e| e.field), Err("name"));
        assert_eq!(parse("a\nb", "").map_err(|e| e.field), Err("name"));
        assert!(parse("ok", &"é".repeat(MAX_GROUP_SCENARIO_CHARS)).is_ok());
        assert_eq!(parse("ok", &"é".repeat(MAX_GROUP_SCENARIO_CHARS + 1)).map_err(|e| e.field), Err("scenario"));
        assert_eq!(parse("ok", "bell\u{7}").map_err(|e| e.field), Err("scenario"));
    }

    #[test]
    fn codes_round_trip_and_out_of_range_values_are_refused() {
        for activation in [Activation::Natural, Activation::List, Activation::Manual] {
            assert_eq!(Activation::parse(activation.as_str()), Ok(activation));
        }
        assert!(Activation::parse("pooled").is_err());
        assert_eq!(Talkativeness::parse(100).map(Talkativeness::percent), Ok(100));
        assert!(Talkativeness::parse(101).is_err() && Talkativeness::parse(-1).is_err());
        assert_eq!(TalkCap::parse(10).map(TalkCap::replies), Ok(10));
        assert!(TalkCap::parse(0).is_err() && TalkCap::parse(11).is_err());
        assert_eq!(GroupSpeaker::from_code(""), Ok(GroupSpeaker::User));
        let mia = GroupSpeaker::Character(id("gf-001"));
        assert_eq!(GroupSpeaker::from_code(mia.code()), Ok(mia));
        assert!(GroupSpeaker::from_code("../x").is_err());
        assert!(GroupId::parse("g-1_A").is_ok() && GroupId::parse("g/1").is_err() && GroupId::parse("").is_err());
    }
}
