//! The client's half of the WebSocket vocabulary: every frame a client may send is a
//! `ClientAction`, `{"action": NAME, "data": {...}}`, parsed once when it arrives. An unknown
//! action is `notFound` (10006) and a known one with bad data `paramError` (10001); either is
//! answered with an `error` event and the socket stays open.

use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MessageText};
use amora_domain::code::ApiCode;
use amora_domain::group::GroupId;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::events::ServerEvent;

/// Every action a client may send. The TypeScript type the web app sends is generated from
/// this one; the server parses with `ClientAction::parse`, which checks each field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "action", content = "data", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ClientAction {
    /// An application-level liveness check: answered with `pong`.
    Ping {},
    /// Answered with `tokenCount`.
    GetBalance {},
    /// Stores the message and writes the reply.
    ChatSend {
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "String")]
        content: MessageText,
    },
    /// Stops the reply being written.
    ChatStop {
        #[ts(as = "String")]
        character_id: CharacterId,
    },
    /// Writes the newest reply again.
    ChatRegenerate {
        #[ts(as = "String")]
        character_id: CharacterId,
    },
    /// Extracts memories from the conversation now.
    SaveMemories {
        #[ts(as = "String")]
        character_id: CharacterId,
    },
    /// Writes the rest of the newest reply into the same message.
    ChatContinue {
        #[ts(as = "String")]
        character_id: CharacterId,
    },
    /// Makes version `index` (from 0) of the newest reply the one the conversation holds.
    ChatSwipe {
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "String")]
        message_id: EntryId,
        index: u32,
    },
    /// Stores the user's message in a group chat; the members the group's turn order picks
    /// answer, one after another (`groupDelta`, `groupDone`, then `groupIdle`).
    GroupSend {
        #[ts(as = "String")]
        group_id: GroupId,
        #[ts(as = "String")]
        content: MessageText,
    },
    /// "Let them talk": the members go on among themselves, at most the group's cap of replies.
    GroupTalk {
        #[ts(as = "String")]
        group_id: GroupId,
    },
    /// The user picks the member who speaks next (any order; a muted one is refused).
    GroupPick {
        #[ts(as = "String")]
        group_id: GroupId,
        #[ts(as = "String")]
        character_id: CharacterId,
    },
    /// Stops the group's round: the reply being written keeps its text, nobody else speaks.
    GroupStop {
        #[ts(as = "String")]
        group_id: GroupId,
    },
    /// The member who wrote the group's newest reply writes it again (the old text kept as
    /// a version).
    GroupRegenerate {
        #[ts(as = "String")]
        group_id: GroupId,
    },
    /// The member who wrote the group's newest reply writes the rest of it.
    GroupContinue {
        #[ts(as = "String")]
        group_id: GroupId,
    },
    /// Makes version `index` (from 0) of the group's newest reply the one the group holds.
    GroupSwipe {
        #[ts(as = "String")]
        group_id: GroupId,
        #[ts(as = "String")]
        message_id: EntryId,
        index: u32,
    },
}

/// Why a frame is not an action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("a frame is {{\"action\": NAME, \"data\": {{...}}}}")]
    NotAFrame,
    #[error("unknown action {0:?}")]
    Unknown(String),
    /// A known action whose data does not check out; for a chat action whose character is
    /// named, the refusal is that conversation's (`chatError`), as the chat screen expects.
    #[error("{reason}")]
    BadData { character_id: Option<CharacterId>, reason: String },
}

impl ActionError {
    /// The event that answers the frame: `chatError` for a named conversation, else `error`.
    pub fn answer(&self) -> ServerEvent {
        match self {
            ActionError::BadData { character_id: Some(character_id), reason } => ServerEvent::ChatError {
                character_id: character_id.clone(),
                reply_id: None,
                code: self.code().value(),
                msg: reason.clone(),
            },
            other => ServerEvent::error(other.code(), other.to_string()),
        }
    }

    pub fn code(&self) -> ApiCode {
        match self {
            ActionError::NotAFrame | ActionError::BadData { .. } => ApiCode::ParamError,
            ActionError::Unknown(_) => ApiCode::NotFound,
        }
    }
}

/// The outer shape of every frame, read first so that an unknown action is told apart
/// from a known one with bad data.
#[derive(Deserialize)]
struct Envelope {
    action: String,
    #[serde(default)]
    data: Option<serde_json::Value>,
}

impl ClientAction {
    /// Every action's name, as the wire writes it.
    pub const NAMES: [&'static str; 15] = [
        "ping",
        "getBalance",
        "chatSend",
        "chatStop",
        "chatRegenerate",
        "saveMemories",
        "chatContinue",
        "chatSwipe",
        "groupSend",
        "groupTalk",
        "groupPick",
        "groupStop",
        "groupRegenerate",
        "groupContinue",
        "groupSwipe",
    ];

    /// Parses one text frame: its fields are checked here (ids, message text), once. A
    /// well-formed frame is read once, straight into its action; only a frame that is not
    /// (or leaves out its `data`) is read again, to say why or to fill the empty data in.
    pub fn parse(text: &str) -> Result<ClientAction, ActionError> {
        if let Ok(action) = serde_json::from_str::<ClientAction>(text) {
            return Ok(action);
        }
        let envelope: Envelope = serde_json::from_str(text).map_err(|_| ActionError::NotAFrame)?;
        if !Self::NAMES.contains(&envelope.action.as_str()) {
            return Err(ActionError::Unknown(envelope.action));
        }
        // `data` may be left out (or null) where an action has no fields.
        let data = match envelope.data {
            None | Some(serde_json::Value::Null) => serde_json::Value::Object(Default::default()),
            Some(data) => data,
        };
        let character_id =
            data.get("characterId").and_then(|id| id.as_str()).and_then(|id| CharacterId::parse(id).ok());
        let frame = serde_json::json!({ "action": envelope.action, "data": data });
        serde_json::from_value(frame)
            .map_err(|error| ActionError::BadData { character_id, reason: format!("data: {error}") })
    }

    /// The conversation the action is about, if it names one: its failure is that
    /// conversation's `chatError`, as the chat screen expects.
    pub fn character_id(&self) -> Option<&CharacterId> {
        match self {
            ClientAction::Ping {}
            | ClientAction::GetBalance {}
            | ClientAction::GroupSend { .. }
            | ClientAction::GroupTalk { .. }
            | ClientAction::GroupPick { .. }
            | ClientAction::GroupStop { .. }
            | ClientAction::GroupRegenerate { .. }
            | ClientAction::GroupContinue { .. }
            | ClientAction::GroupSwipe { .. } => None,
            ClientAction::ChatSend { character_id, .. }
            | ClientAction::ChatStop { character_id }
            | ClientAction::ChatRegenerate { character_id }
            | ClientAction::SaveMemories { character_id }
            | ClientAction::ChatContinue { character_id }
            | ClientAction::ChatSwipe { character_id, .. } => Some(character_id),
        }
    }

    /// The action's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            ClientAction::Ping {} => "ping",
            ClientAction::GetBalance {} => "getBalance",
            ClientAction::ChatSend { .. } => "chatSend",
            ClientAction::ChatStop { .. } => "chatStop",
            ClientAction::ChatRegenerate { .. } => "chatRegenerate",
            ClientAction::SaveMemories { .. } => "saveMemories",
            ClientAction::ChatContinue { .. } => "chatContinue",
            ClientAction::ChatSwipe { .. } => "chatSwipe",
            ClientAction::GroupSend { .. } => "groupSend",
            ClientAction::GroupTalk { .. } => "groupTalk",
            ClientAction::GroupPick { .. } => "groupPick",
            ClientAction::GroupStop { .. } => "groupStop",
            ClientAction::GroupRegenerate { .. } => "groupRegenerate",
            ClientAction::GroupContinue { .. } => "groupContinue",
            ClientAction::GroupSwipe { .. } => "groupSwipe",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_parses_with_or_without_empty_data() {
        assert_eq!(ClientAction::parse(r#"{"action":"ping"}"#), Ok(ClientAction::Ping {}));
        assert_eq!(ClientAction::parse(r#"{"action":"ping","data":{}}"#), Ok(ClientAction::Ping {}));
        assert_eq!(ClientAction::parse(r#"{"action":"getBalance","data":null}"#), Ok(ClientAction::GetBalance {}));
        let send = ClientAction::parse(r#"{"action":"chatSend","data":{"characterId":"gf-001","content":"Hi"}}"#);
        assert!(matches!(send, Ok(ClientAction::ChatSend { .. })));
        for name in ["chatStop", "chatRegenerate", "saveMemories", "chatContinue"] {
            let text = format!(r#"{{"action":"{name}","data":{{"characterId":"gf-001"}}}}"#);
            assert_eq!(ClientAction::parse(&text).map(|a| a.name()), Ok(name));
        }
    }

    /// The one-read path and the checked path agree: extra top-level fields are ignored
    /// either way, and a frame the one-read path refuses is answered as before.
    #[test]
    fn a_frame_read_once_is_the_action_the_checked_path_makes() {
        let with_extra = r#"{"action":"chatStop","data":{"characterId":"gf-001"},"id":7}"#;
        assert_eq!(ClientAction::parse(with_extra).map(|a| a.name()), Ok("chatStop"));
        let direct = serde_json::from_str::<ClientAction>(r#"{"action":"ping","data":{}}"#).ok();
        assert_eq!(direct, Some(ClientAction::Ping {}), "a well-formed frame needs no second read");
    }

    #[test]
    fn unknown_and_malformed_frames_have_their_codes() {
        let code = |text: &str| ClientAction::parse(text).err().map(|e| e.code().value());
        assert_eq!(code(r#"{"action":"fly"}"#), Some(10006));
        assert_eq!(code("not json"), Some(10001));
        assert_eq!(code(r#"{"data":{}}"#), Some(10001));
        assert_eq!(code(r#"{"action":"chatSend","data":{"characterId":"gf-001"}}"#), Some(10001), "no content");
        assert_eq!(code(r#"{"action":"chatSend","data":{"characterId":"no spaces","content":"x"}}"#), Some(10001));
        assert_eq!(code(r#"{"action":"chatSend","data":{"characterId":"gf-001","content":"  "}}"#), Some(10001));
        assert_eq!(code(r#"{"action":"chatStop","data":[]}"#), Some(10001));
        let swipe = |data: &str| code(&format!(r#"{{"action":"chatSwipe","data":{data}}}"#));
        assert_eq!(swipe(r#"{"characterId":"gf-001","messageId":"1763","index":1}"#), None);
        assert_eq!(swipe(r#"{"characterId":"gf-001","messageId":"1763","index":-1}"#), Some(10001));
        assert_eq!(swipe(r#"{"characterId":"gf-001","messageId":"x1","index":0}"#), Some(10001));
        assert_eq!(swipe(r#"{"characterId":"gf-001","messageId":1763,"index":0}"#), Some(10001), "ids are strings");
        assert_eq!(swipe(r#"{"characterId":"gf-001","messageId":"1763"}"#), Some(10001), "no index");
    }

    #[test]
    fn bad_data_of_a_named_conversation_is_that_conversations_error() {
        let answer = |text: &str| ClientAction::parse(text).err().map(|e| e.answer().name());
        assert_eq!(
            answer(r#"{"action":"chatSend","data":{"characterId":"gf-001","content":"  "}}"#),
            Some("chatError")
        );
        assert_eq!(answer(r#"{"action":"chatSend","data":{"characterId":"bad id","content":"x"}}"#), Some("error"));
        assert_eq!(answer(r#"{"action":"fly"}"#), Some("error"));
    }

    #[test]
    fn the_names_list_matches_the_variants() {
        let id = || CharacterId::parse("gf-001").unwrap_or_else(|e| panic!("{e}"));
        let text = MessageText::parse("hi").unwrap_or_else(|e| panic!("{e}"));
        let group = || GroupId::parse("g1").unwrap_or_else(|e| panic!("{e}"));
        let all = [
            ClientAction::Ping {},
            ClientAction::GetBalance {},
            ClientAction::ChatSend { character_id: id(), content: text.clone() },
            ClientAction::ChatStop { character_id: id() },
            ClientAction::ChatRegenerate { character_id: id() },
            ClientAction::SaveMemories { character_id: id() },
            ClientAction::ChatContinue { character_id: id() },
            ClientAction::ChatSwipe { character_id: id(), message_id: EntryId::from_raw(1_763_000), index: 2 },
            ClientAction::GroupSend { group_id: group(), content: text.clone() },
            ClientAction::GroupTalk { group_id: group() },
            ClientAction::GroupPick { group_id: group(), character_id: id() },
            ClientAction::GroupStop { group_id: group() },
            ClientAction::GroupRegenerate { group_id: group() },
            ClientAction::GroupContinue { group_id: group() },
            ClientAction::GroupSwipe { group_id: group(), message_id: EntryId::from_raw(1_763_000), index: 1 },
        ];
        let names: Vec<_> = all.iter().map(ClientAction::name).collect();
        assert_eq!(names, ClientAction::NAMES);
        for action in all {
            let text = serde_json::to_string(&action).unwrap_or_default();
            assert_eq!(ClientAction::parse(&text), Ok(action), "{text}");
        }
    }
}
