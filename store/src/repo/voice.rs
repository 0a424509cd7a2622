//! The voice clip repository: a message's spoken form, claimed once per attempt so that
//! one node synthesises (and charges) it.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::MessageId;
use async_trait::async_trait;

use crate::{StoreError, StoreResult};

/// Which message a voice clip speaks: a character's message in a user's conversation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VoiceClipKey {
    pub user_id: UserId,
    pub character_id: CharacterId,
    pub message_id: MessageId,
}

/// Where the synthesis of a clip stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoiceClipState {
    /// Parts are being made (by one node, which claimed the attempt).
    Speaking,
    /// Every part is stored.
    Complete,
    /// The attempt failed (its cost was refunded); a later play starts a new attempt.
    Failed,
}

impl VoiceClipState {
    /// How every store writes the state.
    pub fn code(self) -> &'static str {
        match self {
            VoiceClipState::Speaking => "speaking",
            VoiceClipState::Complete => "complete",
            VoiceClipState::Failed => "failed",
        }
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        match code {
            "speaking" => Ok(VoiceClipState::Speaking),
            "complete" => Ok(VoiceClipState::Complete),
            "failed" => Ok(VoiceClipState::Failed),
            other => Err(StoreError::Corrupt(format!("unknown voice clip state {other:?}"))),
        }
    }
}

/// One stored piece of a clip: a sentence or a few, its audio in the media repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceClipPart {
    /// 0, 1, 2, … in speaking order.
    pub index: u32,
    pub media_id: String,
    pub duration_ms: u64,
}

/// A message's spoken form: the current attempt, where it stands and its parts so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceClip {
    /// 0 for the first attempt; each retry after a failure (or a stalled attempt) adds one.
    pub attempt: u32,
    pub state: VoiceClipState,
    /// When the attempt started (seconds), to tell a stalled one.
    pub started_at: i64,
    /// The attempt's parts, by index.
    pub parts: Vec<VoiceClipPart>,
}

/// Voice clips per (user, conversation message). An attempt is claimed by compare-and-set,
/// so of concurrent first plays on any nodes one synthesises (and charges). Deleting the
/// message, the conversation or the account deletes its clips and their audio.
#[async_trait]
pub trait VoiceClipRepo: Send + Sync {
    async fn clip(&self, key: &VoiceClipKey) -> StoreResult<Option<VoiceClip>>;
    /// Starts attempt `attempt` (state `Speaking`, at `at`), by compare-and-set: with
    /// `replacing = None` only when the message has no clip; with `Some((attempt, state))`
    /// only while the stored clip is at that attempt in that state. True for exactly one of
    /// any number of concurrent calls. The parts of earlier attempts (and their audio) go.
    async fn start_clip(
        &self,
        key: &VoiceClipKey,
        attempt: u32,
        replacing: Option<(u32, VoiceClipState)>,
        at: i64,
    ) -> StoreResult<bool>;
    /// Records a part of `attempt` whose audio is stored already.
    async fn add_clip_part(&self, key: &VoiceClipKey, attempt: u32, part: VoiceClipPart) -> StoreResult<()>;
    /// Ends `attempt` as `Complete` or `Failed`, only while it is the clip's attempt and
    /// `Speaking`; false (nothing changed) otherwise.
    async fn finish_clip(&self, key: &VoiceClipKey, attempt: u32, state: VoiceClipState) -> StoreResult<bool>;
    /// Deletes the clip with every part of every attempt and their audio; false when none.
    async fn delete_clip(&self, key: &VoiceClipKey) -> StoreResult<bool>;
}
