//! The views of group chats (docs/api.md `GroupMessage`), as `chat.rs` has one-to-one chat's.

use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use amora_store::StoredGroupMessage;
use serde::Serialize;
use ts_rs::TS;

use super::chat::SwipeView;

/// A message of a group chat (docs/api.md `GroupMessage`): `characterId` names the speaker
/// of a character's message, `null` for the user's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "GroupMessage")]
pub struct GroupMessageView {
    #[ts(as = "String")]
    pub message_id: EntryId,
    #[ts(as = "Option<String>")]
    pub character_id: Option<CharacterId>,
    pub content: String,
    /// Milliseconds since the epoch.
    #[ts(type = "number")]
    pub created_at: i64,
    /// Where a member's reply stands among its versions, when it has two or more (only the
    /// newest reply's may be chosen, `groupSwipe`).
    pub swipes: Option<SwipeView>,
}

impl From<&StoredGroupMessage> for GroupMessageView {
    fn from(message: &StoredGroupMessage) -> Self {
        Self {
            message_id: message.message_id,
            character_id: message.speaker.character().cloned(),
            content: message.content.clone(),
            created_at: message.message_id.unix_millis(),
            swipes: swipes_of(message),
        }
    }
}

/// Where a stored reply stands among its versions, when it has two or more.
pub fn swipes_of(message: &StoredGroupMessage) -> Option<SwipeView> {
    let count = u32::try_from(message.versions.texts.len()).unwrap_or(u32::MAX);
    (count > 1).then_some(SwipeView { index: message.versions.chosen, count })
}
