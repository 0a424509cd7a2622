//! The TypeScript the web app reads for the WebSocket vocabulary, the API codes and the
//! chat payloads, generated from the Rust types (ts-rs) into
//! `frontend/src/lib/wire-types.ts`. The test below fails when the checked-in file differs
//! from what the types say; `scripts/wire-types` writes it anew.

use amora_domain::code::ApiCode;
use ts_rs::{Config, TS};

use crate::wire::actions::ClientAction;
use crate::wire::chat::{
    MemoryOriginName, MemoryView, MessageView, RecalledItem, RecalledView, SpeakerName, SwipeView,
};
use crate::wire::events::{PaymentStatus, ReplyEnd, ServerEvent};
use crate::wire::groups::GroupMessageView;
use crate::wire::images::{FeedImageView, GalleryImageView, ImageFailure, MessageImageView};
use crate::wire::voice::{VoicePart, VoiceView};

/// Where the generated file lives, from the repository root.
pub const TYPESCRIPT_PATH: &str = "frontend/src/lib/wire-types.ts";

/// The whole generated file.
pub fn typescript() -> String {
    let cfg = Config::default();
    let mut out = String::from(
        "// Generated from the Rust types by `scripts/wire-types` (actors/src/wire_types.rs): do not edit.\n\
         // The WebSocket vocabulary of docs/api.md, the API codes of API.md §1.3 and the chat shapes.\n\n",
    );
    let decls = [
        SpeakerName::decl(&cfg),
        MessageImageView::decl(&cfg),
        SwipeView::decl(&cfg),
        MessageView::decl(&cfg),
        MemoryOriginName::decl(&cfg),
        MemoryView::decl(&cfg),
        RecalledItem::decl(&cfg),
        RecalledView::decl(&cfg),
        ReplyEnd::decl(&cfg),
        PaymentStatus::decl(&cfg),
        GalleryImageView::decl(&cfg),
        FeedImageView::decl(&cfg),
        ImageFailure::decl(&cfg),
        VoicePart::decl(&cfg),
        VoiceView::decl(&cfg),
        GroupMessageView::decl(&cfg),
        ServerEvent::decl(&cfg),
        ClientAction::decl(&cfg),
    ];
    for decl in decls {
        out.push_str("export ");
        out.push_str(decl.trim());
        out.push_str("\n\n");
    }
    out.push_str("/** Every code an envelope or an `error` event can carry, by name. */\nexport const API_CODES = {\n");
    for code in ApiCode::ALL {
        out.push_str(&format!("  {}: {},\n", code.name(), code.value()));
    }
    out.push_str("} as const;\n\nexport type ApiCodeName = keyof typeof API_CODES;\n\n");
    out.push_str("/** The name of every server event and client action. */\n");
    out.push_str(
        "export type ServerEventName = ServerEvent['event'];\nexport type ClientActionName = ClientAction['action'];\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn checked_in() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(TYPESCRIPT_PATH)
    }

    /// Set `AMORA_WRITE_WIRE_TYPES=1` to write the file (what `scripts/wire-types` does).
    #[test]
    fn the_checked_in_typescript_is_what_the_rust_types_say() {
        let generated = typescript();
        let path = checked_in();
        if std::env::var_os("AMORA_WRITE_WIRE_TYPES").is_some() {
            std::fs::write(&path, &generated).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
            return;
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            current == generated,
            "{} is out of date with the Rust wire types: run scripts/wire-types and commit the result",
            path.display()
        );
    }

    #[test]
    fn every_event_and_action_is_in_the_typescript() {
        let generated = typescript();
        for name in ClientAction::NAMES {
            assert!(generated.contains(&format!("\"action\": \"{name}\"")), "{name}");
        }
        for name in [
            "hello",
            "tokenCount",
            "pong",
            "error",
            "chatMessage",
            "chatDelta",
            "chatDone",
            "chatError",
            "chatMessageDeleted",
            "memorySaving",
            "memorySaved",
        ] {
            assert!(generated.contains(&format!("\"event\": \"{name}\"")), "{name}");
        }
    }
}
