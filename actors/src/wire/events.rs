//! The server's half of the WebSocket vocabulary (API.md §5, docs/api.md): every event a
//! client can receive is a variant of `ServerEvent`, serialised as
//! `{"event": NAME, "data": {...}}`. The TypeScript types the web app reads are generated
//! from these types (`wire_types`), so the two cannot drift apart.
//!
//! Events are serialised once into a `Frame` and shared by every socket that gets it.

use std::sync::Arc;

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_domain::group::GroupId;
use amora_domain::money::Coins;
use amora_domain::payment::{OrderId, OrderState, ProductId};
use serde::Serialize;
use ts_rs::TS;

use super::chat::{MemoryView, MessageView, RecalledView};
use super::groups::GroupMessageView;
use super::images::{GalleryImageView, ImageFailure, Progress};
use super::voice::VoicePart;

/// Why a reply ended, as clients see it (the model's own reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ReplyEnd {
    Stop,
    Length,
    Cancelled,
}

/// Every event the server sends on a socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "event", content = "data", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ServerEvent {
    /// Right after connecting.
    Hello {
        #[ts(as = "String")]
        user_id: UserId,
        #[ts(type = "number")]
        coin: Coins,
    },
    /// The balance changed, or the account did (VIP type): the client refetches user info.
    TokenCount {
        #[ts(type = "number")]
        coin: Coins,
    },
    /// The answer to the `ping` action.
    Pong {},
    /// A frame the server could not act on; the socket stays open.
    Error { code: u32, msg: String },
    /// A message was stored: the user's (from any tab) or a new conversation's greeting.
    ChatMessage {
        #[ts(as = "String")]
        character_id: CharacterId,
        message: MessageView,
    },
    /// The next piece of a reply; `replyId` is the id the stored reply will have.
    ChatDelta {
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "String")]
        reply_id: EntryId,
        delta: String,
        /// Where the piece starts in the reply's text, in UTF-16 code units (as JavaScript
        /// counts): a page read mid-reply (`replying`) and the pieces after it join exactly.
        offset: u32,
    },
    /// The reply is stored (`message: null`: stopped before any text, nothing stored).
    /// `recalled`: the memories and earlier messages recall put into its prompt (`null`
    /// when none).
    ChatDone {
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "String")]
        reply_id: EntryId,
        message: Option<MessageView>,
        finish_reason: ReplyEnd,
        /// The reply stops mid-sentence at the token limit (`reply_was_cut`): offer Continue.
        cut: bool,
        recalled: Option<RecalledView>,
    },
    /// A chat action was refused, or the reply failed.
    ChatError {
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "Option<String>")]
        reply_id: Option<EntryId>,
        code: u32,
        msg: String,
    },
    /// Messages were removed (the old reply on regenerate, or a delete in another tab).
    ChatMessageDeleted {
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "Vec<String>")]
        message_ids: Vec<EntryId>,
    },
    /// The whole conversation with the character was deleted (in any tab or on any node):
    /// it leaves the chat list, and an open chat with the character empties.
    ChatDeleted {
        #[ts(as = "String")]
        character_id: CharacterId,
    },
    /// Memories of the pair are being extracted.
    MemorySaving {
        #[ts(as = "String")]
        character_id: CharacterId,
    },
    /// Extraction ended; every memory of the pair, newest first.
    MemorySaved {
        #[ts(as = "String")]
        character_id: CharacterId,
        added: u32,
        memories: Vec<MemoryView>,
    },
    /// An order became paid, failed, expired or refunded.
    PaymentResult {
        #[ts(as = "String")]
        order_id: OrderId,
        #[ts(as = "String")]
        product_id: ProductId,
        #[ts(as = "PaymentStatus")]
        status: OrderState,
    },
    /// An image of a new job is queued; `position`: images ahead of it on this node.
    ImageQueued {
        #[ts(as = "String")]
        job_id: EntryId,
        #[ts(as = "String")]
        image_id: EntryId,
        #[ts(as = "Option<String>")]
        character_id: Option<CharacterId>,
        position: u32,
    },
    /// How far the image is, 0–1, when the backend reports it.
    ImageProgress {
        #[ts(as = "String")]
        job_id: EntryId,
        #[ts(as = "String")]
        image_id: EntryId,
        #[ts(type = "number")]
        progress: Progress,
    },
    /// The image is stored and in the gallery.
    ImageDone {
        #[ts(as = "String")]
        job_id: EntryId,
        #[ts(as = "String")]
        image_id: EntryId,
        image: GalleryImageView,
    },
    /// The image will not come; `refunded` coins went back (a `tokenCount` follows).
    ImageFailed {
        #[ts(as = "String")]
        job_id: EntryId,
        #[ts(as = "String")]
        image_id: EntryId,
        reason: ImageFailure,
        code: Option<u32>,
        msg: String,
        #[ts(type = "number")]
        refunded: Coins,
    },
    /// The next part of a message being spoken (`voice/speak` answered the first), in order.
    VoicePart {
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "String")]
        message_id: EntryId,
        part: VoicePart,
    },
    /// Speaking a message failed; `refunded` coins went back (a `tokenCount` follows).
    VoiceFailed {
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "String")]
        message_id: EntryId,
        code: u32,
        msg: String,
        #[ts(type = "number")]
        refunded: Coins,
    },
    /// A message of a group chat was stored or changed: the user's (answering `groupSend`,
    /// and in the user's other tabs), an edited one, a reply whose chosen version changed,
    /// or one put back after writing it again failed. Clients merge by `messageId`.
    GroupMessage {
        #[ts(as = "String")]
        group_id: GroupId,
        message: GroupMessageView,
    },
    /// Messages left a group chat (the user deleted one, or the newest reply is being
    /// written again).
    GroupMessageDeleted {
        #[ts(as = "String")]
        group_id: GroupId,
        #[ts(as = "Vec<String>")]
        message_ids: Vec<EntryId>,
    },
    /// The next piece of a group member's reply: `characterId` is the one speaking.
    GroupDelta {
        #[ts(as = "String")]
        group_id: GroupId,
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "String")]
        reply_id: EntryId,
        delta: String,
        /// Where the piece starts in the reply's text, in UTF-16 code units.
        offset: u32,
    },
    /// A member's reply is stored (`message: null`: stopped before any text).
    GroupDone {
        #[ts(as = "String")]
        group_id: GroupId,
        #[ts(as = "String")]
        character_id: CharacterId,
        #[ts(as = "String")]
        reply_id: EntryId,
        message: Option<GroupMessageView>,
        finish_reason: ReplyEnd,
        /// The reply stops mid-sentence at the token limit.
        cut: bool,
    },
    /// A group action was refused, or a member's reply failed (`characterId`: whose);
    /// the round ends there, the replies before it kept.
    GroupError {
        #[ts(as = "String")]
        group_id: GroupId,
        #[ts(as = "Option<String>")]
        character_id: Option<CharacterId>,
        #[ts(as = "Option<String>")]
        reply_id: Option<EntryId>,
        code: u32,
        msg: String,
    },
    /// The round a group action started is over: `replies` members' replies were stored;
    /// the characters wait for the user.
    GroupIdle {
        #[ts(as = "String")]
        group_id: GroupId,
        replies: u32,
    },
}

/// Where an order stands, as the wire writes it (`OrderState` of the domain).
#[derive(TS)]
#[allow(dead_code)]
pub enum PaymentStatus {
    #[ts(rename = "created")]
    Created,
    #[ts(rename = "pending")]
    Pending,
    #[ts(rename = "paid")]
    Paid,
    #[ts(rename = "failed")]
    Failed,
    #[ts(rename = "expired")]
    Expired,
    #[ts(rename = "refunded")]
    Refunded,
}

impl ServerEvent {
    /// The event's name on the wire (`"chatDone"`).
    pub fn name(&self) -> &'static str {
        match self {
            ServerEvent::Hello { .. } => "hello",
            ServerEvent::TokenCount { .. } => "tokenCount",
            ServerEvent::Pong {} => "pong",
            ServerEvent::Error { .. } => "error",
            ServerEvent::ChatMessage { .. } => "chatMessage",
            ServerEvent::ChatDelta { .. } => "chatDelta",
            ServerEvent::ChatDone { .. } => "chatDone",
            ServerEvent::ChatError { .. } => "chatError",
            ServerEvent::ChatMessageDeleted { .. } => "chatMessageDeleted",
            ServerEvent::ChatDeleted { .. } => "chatDeleted",
            ServerEvent::MemorySaving { .. } => "memorySaving",
            ServerEvent::MemorySaved { .. } => "memorySaved",
            ServerEvent::PaymentResult { .. } => "paymentResult",
            ServerEvent::ImageQueued { .. } => "imageQueued",
            ServerEvent::ImageProgress { .. } => "imageProgress",
            ServerEvent::ImageDone { .. } => "imageDone",
            ServerEvent::ImageFailed { .. } => "imageFailed",
            ServerEvent::VoicePart { .. } => "voicePart",
            ServerEvent::VoiceFailed { .. } => "voiceFailed",
            ServerEvent::GroupMessage { .. } => "groupMessage",
            ServerEvent::GroupMessageDeleted { .. } => "groupMessageDeleted",
            ServerEvent::GroupDelta { .. } => "groupDelta",
            ServerEvent::GroupDone { .. } => "groupDone",
            ServerEvent::GroupError { .. } => "groupError",
            ServerEvent::GroupIdle { .. } => "groupIdle",
        }
    }

    /// `error {code, msg}` with the code's own text.
    pub fn error(code: amora_domain::code::ApiCode, msg: impl Into<String>) -> Self {
        ServerEvent::Error { code: code.value(), msg: msg.into() }
    }
}

/// An event ready to send: serialised once, shared by every socket that gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame(pub Arc<str>);

impl Frame {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&ServerEvent> for Frame {
    fn from(event: &ServerEvent) -> Self {
        // Serialising these types cannot fail: no maps with non-string keys, no I/O.
        let text = serde_json::to_string(event).unwrap_or_else(|_| String::from("{\"event\":\"error\",\"data\":{}}"));
        Frame(Arc::from(text))
    }
}

impl From<ServerEvent> for Frame {
    fn from(event: ServerEvent) -> Self {
        Frame::from(&event)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn wire(event: ServerEvent) -> Value {
        serde_json::from_str(Frame::from(event).as_str()).unwrap_or_default()
    }

    #[test]
    fn an_event_travels_as_event_and_data() {
        assert_eq!(
            wire(ServerEvent::TokenCount { coin: Coins::stored(120) }),
            json!({ "event": "tokenCount", "data": { "coin": 120 } })
        );
        assert_eq!(wire(ServerEvent::Pong {}), json!({ "event": "pong", "data": {} }));
    }

    #[test]
    fn fields_are_camel_case_and_ids_are_strings() {
        let id = CharacterId::parse("gf-001").unwrap_or_else(|e| panic!("{e}"));
        let event = ServerEvent::ChatError {
            character_id: id,
            reply_id: Some(EntryId::from_raw(17)),
            code: 10003,
            msg: "busy".into(),
        };
        assert_eq!(
            wire(event),
            json!({ "event": "chatError", "data": { "characterId": "gf-001", "replyId": "17", "code": 10003, "msg": "busy" } })
        );
    }

    #[test]
    fn each_variant_names_itself_as_it_serialises() {
        let id = || CharacterId::parse("gf-001").unwrap_or_else(|e| panic!("{e}"));
        let group = || GroupId::parse("g1").unwrap_or_else(|e| panic!("{e}"));
        let user = UserId::parse("u1").unwrap_or_else(|e| panic!("{e}"));
        let all = [
            ServerEvent::Hello { user_id: user, coin: Coins::stored(1) },
            ServerEvent::TokenCount { coin: Coins::stored(1) },
            ServerEvent::Pong {},
            ServerEvent::Error { code: 1, msg: String::new() },
            ServerEvent::ChatDelta {
                character_id: id(),
                reply_id: EntryId::from_raw(1),
                delta: String::new(),
                offset: 0,
            },
            ServerEvent::ChatDone {
                character_id: id(),
                reply_id: EntryId::from_raw(1),
                message: None,
                finish_reason: ReplyEnd::Stop,
                cut: false,
                recalled: None,
            },
            ServerEvent::ChatError { character_id: id(), reply_id: None, code: 1, msg: String::new() },
            ServerEvent::ChatMessageDeleted { character_id: id(), message_ids: vec![] },
            ServerEvent::ChatDeleted { character_id: id() },
            ServerEvent::MemorySaving { character_id: id() },
            ServerEvent::MemorySaved { character_id: id(), added: 0, memories: vec![] },
            ServerEvent::ImageQueued {
                job_id: EntryId::from_raw(1),
                image_id: EntryId::from_raw(2),
                character_id: None,
                position: 0,
            },
            ServerEvent::ImageProgress {
                job_id: EntryId::from_raw(1),
                image_id: EntryId::from_raw(2),
                progress: Progress::of(0.25),
            },
            ServerEvent::ImageFailed {
                job_id: EntryId::from_raw(1),
                image_id: EntryId::from_raw(2),
                reason: ImageFailure::Cancelled,
                code: None,
                msg: String::new(),
                refunded: Coins::stored(20),
            },
            ServerEvent::VoicePart {
                character_id: id(),
                message_id: EntryId::from_raw(1),
                part: VoicePart { index: 1, url: "/media/voice-x".into(), duration_ms: 900, last: true },
            },
            ServerEvent::VoiceFailed {
                character_id: id(),
                message_id: EntryId::from_raw(1),
                code: 50000,
                msg: String::new(),
                refunded: Coins::stored(2),
            },
            ServerEvent::GroupMessageDeleted { group_id: group(), message_ids: vec![EntryId::from_raw(1)] },
            ServerEvent::GroupDelta {
                group_id: group(),
                character_id: id(),
                reply_id: EntryId::from_raw(1),
                delta: String::new(),
                offset: 0,
            },
            ServerEvent::GroupDone {
                group_id: group(),
                character_id: id(),
                reply_id: EntryId::from_raw(1),
                message: None,
                finish_reason: ReplyEnd::Stop,
                cut: false,
            },
            ServerEvent::GroupError {
                group_id: group(),
                character_id: None,
                reply_id: None,
                code: 1,
                msg: String::new(),
            },
            ServerEvent::GroupIdle { group_id: group(), replies: 0 },
        ];
        for event in all {
            let name = event.name();
            assert_eq!(wire(event)["event"], name);
        }
    }
}
