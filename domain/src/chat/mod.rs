//! Conversations between a user and a character (spec §2 `/chat`): message texts and
//! ids, the placeholders of character texts (spec §3), and the prompt a reply is written
//! from: persona, scenario, the user's name, memories, and as much recent history as fits
//! a token budget.
//!
//! One file per job: `message` (texts, ids, speakers), `placeholders`, `prompt` (a reply's
//! prompt and the memories picked for it), `reply_text` (a reply cleaned of labels and tails)
//! and `sentences` (where a reply may end); their
//! items are re-exported here, so callers name them `amora_domain::chat::X`.

mod message;
mod placeholders;
mod prompt;
mod reply_text;
mod sentences;

pub use message::*;
pub use placeholders::*;
pub use prompt::*;
pub use reply_text::*;
pub use sentences::*;
