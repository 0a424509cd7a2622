//! Message texts as people type them, the time-ordered ids of messages and memories, and
//! who wrote a message.

use serde::{Serialize, Serializer};

use crate::Invalid;

/// Longest message a person may send, in characters.
pub const MAX_MESSAGE_CHARS: usize = 2000;

/// A message as a person typed it: trimmed, 1 to 2,000 characters, no control characters
/// other than line breaks and tabs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, Serialize)]
#[serde(try_from = "String", into = "String")]
pub struct MessageText(String);

impl TryFrom<String> for MessageText {
    type Error = Invalid;

    fn try_from(raw: String) -> Result<Self, Invalid> {
        MessageText::parse(&raw)
    }
}

impl From<MessageText> for String {
    fn from(text: MessageText) -> String {
        text.0
    }
}

impl MessageText {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let text = raw.trim();
        if text.is_empty() {
            return Err(Invalid::new("content", "must not be empty"));
        }
        if text.chars().count() > MAX_MESSAGE_CHARS {
            return Err(Invalid::new("content", format!("must be at most {MAX_MESSAGE_CHARS} characters")));
        }
        if text.chars().any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r') {
            return Err(Invalid::new("content", "must not hold control characters"));
        }
        Ok(Self(text.replace("\r\n", "\n")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// The id of a message or a memory: microseconds since the epoch times 1,000 plus a
/// random part, so ids sort by time and two nodes writing one conversation at once do not
/// collide. Travels as a string, because JavaScript numbers lose integers above 2^53.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryId(i64);

/// A message of a conversation.
pub type MessageId = EntryId;
/// A memory about the user.
pub type MemoryId = EntryId;

impl EntryId {
    /// An id for a message written at `unix_micros`; `salt` (0..1000) tells apart ids of one microsecond.
    pub fn new(unix_micros: i64, salt: u16) -> Self {
        Self(unix_micros.saturating_mul(1000).saturating_add(i64::from(salt % 1000)))
    }

    pub fn from_raw(raw: i64) -> Self {
        Self(raw)
    }

    /// Parses the id sent in `field` (`messageId`, `memoryId`, …).
    pub fn parse(raw: &str, field: &'static str) -> Result<Self, Invalid> {
        raw.parse::<i64>()
            .ok()
            .filter(|n| *n > 0)
            .map(Self)
            .ok_or_else(|| Invalid::new(field, "must be an id from this conversation"))
    }

    pub fn raw(self) -> i64 {
        self.0
    }

    /// When the message was written, in milliseconds since the epoch.
    pub fn unix_millis(self) -> i64 {
        self.0 / 1_000_000
    }
}

impl Serialize for EntryId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// Read back as the wire writes it: a string of digits (`EntryId::parse`).
impl<'de> serde::Deserialize<'de> for EntryId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        EntryId::parse(&raw, "id").map_err(serde::de::Error::custom)
    }
}

impl std::fmt::Display for EntryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Who wrote a message of a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    User,
    Character,
}

impl Speaker {
    pub fn code(self) -> &'static str {
        match self {
            Speaker::User => "user",
            Speaker::Character => "character",
        }
    }

    pub fn from_code(code: &str) -> Result<Self, Invalid> {
        match code {
            "user" => Ok(Speaker::User),
            "character" => Ok(Speaker::Character),
            _ => Err(Invalid::new("speaker", format!("unknown speaker {code:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_trimmed_and_bounded() {
        assert_eq!(MessageText::parse("  hi there \n").map(MessageText::into_string), Ok("hi there".into()));
        assert!(MessageText::parse("   ").is_err());
        assert!(MessageText::parse(&"a".repeat(MAX_MESSAGE_CHARS + 1)).is_err());
        assert!(MessageText::parse(&"é".repeat(MAX_MESSAGE_CHARS)).is_ok());
        assert!(MessageText::parse("bell\u{7}").is_err());
        assert_eq!(MessageText::parse("a\r\nb").map(MessageText::into_string), Ok("a\nb".into()));
    }

    #[test]
    fn message_ids_sort_by_time_and_travel_as_strings() {
        let early = MessageId::new(1_700_000_000_000_000, 999);
        let late = MessageId::new(1_700_000_000_000_001, 0);
        assert!(early < late);
        assert_eq!(late.unix_millis(), 1_700_000_000_000);
        assert_eq!(serde_json::to_value(late).unwrap_or_default(), serde_json::json!("1700000000000001000"));
        assert_eq!(MessageId::parse("1700000000000001000", "messageId"), Ok(late));
        assert!(MessageId::parse("-5", "messageId").is_err() && MessageId::parse("abc", "memoryId").is_err());
    }
}
