//! Server → client WebSocket events (API.md §5): `{"event": NAME, "data": {...}}`.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

/// An event ready to send: serialised once, shared by every socket that gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame(pub Arc<str>);

impl Frame {
    pub fn new(event: &str, data: impl Serialize) -> Self {
        let data = serde_json::to_value(data).unwrap_or(Value::Null);
        Frame(Arc::from(json!({ "event": event, "data": data }).to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `hello {userId, coin}`, right after a socket connects.
    pub fn hello(user_id: &str, coin: i64) -> Self {
        Frame::new("hello", json!({ "userId": user_id, "coin": coin }))
    }

    /// `tokenCount {coin}`, whenever the balance changes.
    pub fn token_count(coin: i64) -> Self {
        Frame::new("tokenCount", json!({ "coin": coin }))
    }

    /// Internal, never sent to a client: sessions of this user ended (sign-out, password
    /// change, deletion, suspension). Each socket that gets it checks its own session and
    /// closes if that one is gone; it travels the bus, so it reaches every node.
    pub fn sessions_ended() -> Self {
        Frame::new("_sessionsEnded", json!({}))
    }

    /// `error {code, msg}`, for a frame the server could not act on.
    pub fn error(code: u32, msg: &str) -> Self {
        Frame::new("error", json!({ "code": code, "msg": msg }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_travels_as_event_and_data() {
        let frame = Frame::token_count(120);
        let value: Value = serde_json::from_str(frame.as_str()).unwrap_or_default();
        assert_eq!(value, json!({ "event": "tokenCount", "data": { "coin": 120 } }));
    }
}
