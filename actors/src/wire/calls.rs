//! Voice calls on the socket (issue 32, docs/api.md "Voice calls"): the actions a client
//! sends during a call and the events it hears. They are a vocabulary of their own beside
//! `ClientAction`/`ServerEvent` because the socket hands them to the call it owns, not to
//! the action queue: `callAudio` comes ten times a second and must never wait behind a chat
//! action or a session check.

use amora_domain::chat::EntryId;
use amora_domain::money::Coins;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::events::Frame;
use super::voice::VoicePart;

/// Every call action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "action", content = "data", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum CallAction {
    /// Opens a call with a character of a one-to-one chat.
    CallStart { character_id: String },
    /// About 100 ms of the microphone: 16 kHz mono G.711 μ-law, base64. `seq` counts frames from 0.
    CallAudio {
        call_id: String,
        #[ts(type = "number")]
        seq: u64,
        audio: String,
    },
    /// Barge-in: the reply being spoken stops.
    CallInterrupt { call_id: String },
    /// Hangs up.
    CallEnd { call_id: String },
}

/// The outer shape of a frame, to tell a call action with bad data from another action.
#[derive(Deserialize)]
struct Envelope {
    action: String,
}

impl CallAction {
    pub const NAMES: [&'static str; 4] = ["callStart", "callAudio", "callInterrupt", "callEnd"];

    /// `None` when the frame is not a call action (the socket's other actions); else the
    /// action, or why its data is bad.
    pub fn parse(text: &str) -> Option<Result<CallAction, String>> {
        // Most frames are not about calls: a cheap look first.
        if !text.contains("call") {
            return None;
        }
        if let Ok(action) = serde_json::from_str::<CallAction>(text) {
            return Some(Ok(action));
        }
        let envelope: Envelope = serde_json::from_str(text).ok()?;
        if !Self::NAMES.contains(&envelope.action.as_str()) {
            return None;
        }
        let reason = serde_json::from_str::<CallAction>(text).err().map_or_else(String::new, |e| e.to_string());
        Some(Err(format!("{}: {reason}", envelope.action)))
    }

    /// The call the action is about (`None` for `callStart`).
    pub fn call_id(&self) -> Option<&str> {
        match self {
            CallAction::CallStart { .. } => None,
            CallAction::CallAudio { call_id, .. }
            | CallAction::CallInterrupt { call_id }
            | CallAction::CallEnd { call_id } => Some(call_id),
        }
    }
}

/// Why a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum CallEndReason {
    /// `callEnd`.
    User,
    /// The next answer could not be paid.
    Coin,
    /// No speech for `call.idle_timeout_secs`.
    Idle,
    Error,
}

/// Every call event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "event", content = "data", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum CallEvent {
    /// The call is open.
    CallStarted {
        call_id: String,
        character_id: String,
        voice_id: String,
        sample_rate: u32,
        /// `"mulaw"`.
        encoding: String,
        /// What each answer costs on top of a chat message (`genVoiceCoin`).
        #[ts(type = "number")]
        coin_per_answer: Coins,
        /// The language the recogniser listens for.
        language: String,
    },
    /// Speech started.
    CallHearing { call_id: String },
    /// The user's turn as recognised; empty when nothing was (no chat turn, no cost).
    CallHeard {
        call_id: String,
        text: String,
        #[ts(type = "number")]
        duration_ms: u64,
    },
    /// A part of the reply, spoken, in order; `last` on the final one (after `chatDone`).
    CallSpeech {
        call_id: String,
        #[ts(as = "String")]
        reply_id: EntryId,
        part: VoicePart,
    },
    /// An action refused, or a turn failed (the call goes on).
    CallError { call_id: Option<String>, code: u32, msg: String },
    /// The call is over.
    CallEnded {
        call_id: String,
        reason: CallEndReason,
        answers: u32,
        #[ts(type = "number")]
        coin_spent: Coins,
    },
}

impl CallEvent {
    /// `callError` with the code's value.
    pub fn error(call_id: Option<&str>, code: amora_domain::code::ApiCode, msg: impl Into<String>) -> Self {
        CallEvent::CallError { call_id: call_id.map(str::to_owned), code: code.value(), msg: msg.into() }
    }
}

impl From<&CallEvent> for Frame {
    fn from(event: &CallEvent) -> Self {
        let text = serde_json::to_string(event).unwrap_or_else(|_| String::from("{\"event\":\"error\",\"data\":{}}"));
        Frame(std::sync::Arc::from(text))
    }
}

impl From<CallEvent> for Frame {
    fn from(event: CallEvent) -> Self {
        Frame::from(&event)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn call_actions_are_told_apart_from_other_actions() {
        let start = CallAction::parse(r#"{"action":"callStart","data":{"characterId":"gf-001"}}"#);
        assert_eq!(start, Some(Ok(CallAction::CallStart { character_id: "gf-001".into() })));
        let audio = CallAction::parse(r#"{"action": "callAudio", "data": {"callId":"c1","seq":3,"audio":"//8="}}"#);
        assert_eq!(audio.and_then(Result::ok).as_ref().and_then(CallAction::call_id), Some("c1"));
        assert!(matches!(CallAction::parse(r#"{"action":"callAudio","data":{"callId":"c1"}}"#), Some(Err(_))));
        assert_eq!(
            CallAction::parse(r#"{"action":"chatSend","data":{"characterId":"gf-001","content":"call me"}}"#),
            None
        );
        assert_eq!(CallAction::parse(r#"{"action":"ping"}"#), None);
        assert_eq!(CallAction::parse("call"), None);
    }

    #[test]
    fn events_travel_as_the_protocol_writes_them() {
        let frame = Frame::from(CallEvent::CallEnded {
            call_id: "c1".into(),
            reason: CallEndReason::Idle,
            answers: 2,
            coin_spent: Coins::stored(4),
        });
        let value: Value = serde_json::from_str(frame.as_str()).unwrap_or_default();
        assert_eq!(
            value,
            json!({"event":"callEnded","data":{"callId":"c1","reason":"idle","answers":2,"coinSpent":4}})
        );
        let frame = Frame::from(CallEvent::error(None, amora_domain::code::ApiCode::NeedPay, "pay"));
        let value: Value = serde_json::from_str(frame.as_str()).unwrap_or_default();
        assert_eq!(value, json!({"event":"callError","data":{"callId":null,"code":40004,"msg":"pay"}}));
    }
}
