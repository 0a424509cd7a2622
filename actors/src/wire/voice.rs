//! Voice as clients see it (docs/api.md "Voice"): the voices to choose from and the parts
//! of a spoken message.

use serde::Serialize;
use ts_rs::TS;

/// A voice as `voice/getVoices` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct VoiceView {
    pub voice_id: String,
    /// 0 female, 1 male.
    pub gender: u8,
    pub label: String,
}

/// One stored part of a spoken message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct VoicePart {
    pub index: u32,
    /// `/media/voice-…`, an MP3.
    pub url: String,
    #[ts(type = "number")]
    pub duration_ms: u64,
    /// The message's last part.
    pub last: bool,
}
