//! SillyTavern chat exports (issue 31): the JSONL file SillyTavern saves a chat, one-to-one
//! or group, as (`src/endpoints/chats.js`, `/api/chats/group/save`): one JSON object a line,
//! each message `{name, is_user, is_system, send_date, mes, ...}`, and, in newer versions, a
//! first line of metadata (`user_name`, `character_name`, `chat_metadata`) with no `mes`.
//!
//! Read into the messages a conversation shows: the metadata line and system messages
//! (SillyTavern's hidden and narrator lines) are passed over, the chosen text (`mes`) is
//! kept, everything else (swipes, extras, dates) is dropped. Who each speaker is in Amora
//! is the importer's to decide.

use serde::Deserialize;

/// Largest export read, in bytes.
pub const MAX_CHAT_LOG_BYTES: usize = 8 * 1024 * 1024;
/// Most messages one import keeps.
pub const MAX_CHAT_LOG_MESSAGES: usize = 2000;
/// Longest message kept, in characters: far past what a reply is, so that nothing a real
/// chat holds is cut, yet bounded.
pub const MAX_LOGGED_MESSAGE_CHARS: usize = 20_000;

/// One message of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedMessage {
    /// The speaker's name as the export has it (the user's persona name, or a character's).
    pub name: String,
    pub is_user: bool,
    /// Trimmed, never empty.
    pub text: String,
}

/// Why an export cannot be read; lines count from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChatLogError {
    #[error("the chat is {size} bytes, over the limit of {limit}")]
    TooLarge { size: usize, limit: usize },
    #[error("line {line} is not a JSON object: {message}")]
    Line { line: usize, message: String },
    #[error("line {line}: a message over {MAX_LOGGED_MESSAGE_CHARS} characters")]
    MessageTooLong { line: usize },
    #[error("line {line}: a character's message without a name")]
    NoName { line: usize },
    #[error("the chat holds more than {MAX_CHAT_LOG_MESSAGES} messages")]
    TooManyMessages,
    #[error("the chat holds no message")]
    Empty,
}

#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    is_user: bool,
    #[serde(default)]
    is_system: bool,
    #[serde(default)]
    mes: Option<String>,
}

/// The messages of a SillyTavern JSONL export, in order.
pub fn parse_chat_log(text: &str) -> Result<Vec<LoggedMessage>, ChatLogError> {
    if text.len() > MAX_CHAT_LOG_BYTES {
        return Err(ChatLogError::TooLarge { size: text.len(), limit: MAX_CHAT_LOG_BYTES });
    }
    let mut messages = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let parsed: Line =
            serde_json::from_str(raw).map_err(|e| ChatLogError::Line { line, message: e.to_string() })?;
        // The metadata line has no text; system lines are SillyTavern's own.
        let Some(mes) = parsed.mes else { continue };
        if parsed.is_system {
            continue;
        }
        let text = mes.trim().replace("\r\n", "\n");
        if text.is_empty() {
            continue;
        }
        if text.chars().count() > MAX_LOGGED_MESSAGE_CHARS {
            return Err(ChatLogError::MessageTooLong { line });
        }
        let name = parsed.name.map(|n| n.trim().to_owned()).unwrap_or_default();
        if name.is_empty() && !parsed.is_user {
            return Err(ChatLogError::NoName { line });
        }
        if messages.len() == MAX_CHAT_LOG_MESSAGES {
            return Err(ChatLogError::TooManyMessages);
        }
        messages.push(LoggedMessage { name, is_user: parsed.is_user, text });
    }
    if messages.is_empty() {
        return Err(ChatLogError::Empty);
    }
    Ok(messages)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A group chat as SillyTavern 1.12 saves it: a metadata line, a greeting per member,
    /// the user, a hidden system line and swipes.
    const EXPORT: &str = r#"{"user_name":"Ann","character_name":"unused","create_date":"2024-09-28@01h02m03s","chat_metadata":{}}
{"name":"Seraphina","is_user":false,"is_system":false,"send_date":"September 28, 2024 1:02am","mes":"*She smiles.* Welcome, traveller.","original_avatar":"Seraphina.png","extra":{}}
{"name":"Leo","is_user":false,"send_date":"September 28, 2024 1:02am","mes":"Hey.\r\nSit down.","swipes":["Hey.\r\nSit down.","Yo."],"swipe_id":0}
{"name":"Ann","is_user":true,"is_system":false,"send_date":"September 28, 2024 1:03am","mes":"  Hi both!  "}

{"name":"SillyTavern System","is_user":false,"is_system":true,"mes":"The chat was hidden."}
{"name":"Seraphina","is_user":false,"mes":"   "}
"#;

    #[test]
    fn a_group_export_reads_as_its_messages_in_order() {
        let messages = parse_chat_log(EXPORT).unwrap_or_else(|e| panic!("{e}"));
        let said = |name: &str, is_user, text: &str| LoggedMessage { name: name.into(), is_user, text: text.into() };
        assert_eq!(
            messages,
            vec![
                said("Seraphina", false, "*She smiles.* Welcome, traveller."),
                said("Leo", false, "Hey.\nSit down."),
                said("Ann", true, "Hi both!"),
            ],
            "metadata, system and empty lines passed over; the chosen swipe kept"
        );
    }

    #[test]
    fn a_broken_or_oversized_export_is_refused_with_its_line() {
        assert_eq!(parse_chat_log("").map_err(|e| e.to_string()), Err("the chat holds no message".into()));
        assert!(matches!(
            parse_chat_log("{\"mes\": \"hi\", \"is_user\": true}\nnot json"),
            Err(ChatLogError::Line { line: 2, .. })
        ));
        assert_eq!(parse_chat_log("{\"mes\": \"hi\"}"), Err(ChatLogError::NoName { line: 1 }));
        let long = format!("{{\"name\": \"Leo\", \"mes\": \"{}\"}}", "a".repeat(MAX_LOGGED_MESSAGE_CHARS + 1));
        assert_eq!(parse_chat_log(&long), Err(ChatLogError::MessageTooLong { line: 1 }));
        let many = "{\"name\": \"Leo\", \"mes\": \"hi\"}\n".repeat(MAX_CHAT_LOG_MESSAGES + 1);
        assert_eq!(parse_chat_log(&many), Err(ChatLogError::TooManyMessages));
        let big = " ".repeat(MAX_CHAT_LOG_BYTES + 1);
        assert!(matches!(parse_chat_log(&big), Err(ChatLogError::TooLarge { .. })));
        // A user line may come without a name (older exports).
        assert_eq!(parse_chat_log("{\"is_user\": true, \"mes\": \"hi\"}").map(|m| m[0].is_user), Ok(true));
    }
}
