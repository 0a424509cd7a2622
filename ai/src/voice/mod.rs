//! Voice models behind one trait (ARCHITECTURE.md, "AI providers"): the embedded local
//! synthesiser run as a child process ([`embedded`]: flite, encoded to MP3 by lame), and
//! OpenAI-compatible `POST /v1/audio/speech` ([`openai`]). [`build`] makes the configured one.

use std::sync::Arc;

use async_trait::async_trait;

use crate::AiError;

pub mod audio;
pub mod embedded;
pub mod openai;
mod settings;

pub use settings::{EmbeddedVoiceSettings, OpenAiVoiceSettings, VoiceEntry, VoiceKind, VoiceModelSettings};

/// A voice a model offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voice {
    /// The backend's own name for it (`slt`, `af_bella`, …).
    pub voice_id: String,
    /// 0 = female, 1 = male (the product's gender codes).
    pub gender: u8,
    /// What a person reads in a picker.
    pub label: String,
}

/// Speech for one piece of text, compressed for mobile data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Speech {
    /// `audio/mpeg`, `audio/ogg` or `audio/wav`.
    pub content_type: String,
    pub bytes: Vec<u8>,
    pub duration_ms: u64,
}

#[async_trait]
pub trait VoiceModel: Send + Sync {
    /// The voices on offer, the same every call.
    fn voices(&self) -> Vec<Voice>;

    /// Speaks `text` (already cut to a sentence or a few) in `voice_id`. Fails with
    /// [`AiError::BadRequest`] for an unknown voice or text over the model's limit and
    /// [`AiError::Unavailable`] when the synthesiser cannot run or takes too long.
    async fn speak(&self, text: &str, voice_id: &str) -> Result<Speech, AiError>;
}

/// The configured voice model. Nothing runs or connects until the first `speak`.
pub fn build(settings: &VoiceModelSettings) -> Result<Arc<dyn VoiceModel>, AiError> {
    settings.validate()?;
    Ok(match settings.kind {
        VoiceKind::Embedded => Arc::new(embedded::EmbeddedVoiceModel::new(&settings.embedded)),
        VoiceKind::Openai => Arc::new(openai::OpenAiVoiceModel::new(&settings.openai)?),
    })
}

/// A stable choice among `voices` of `gender` for the character known by `key` (its id):
/// the same key always gets the same voice while the list is the same, and characters
/// spread over the voices. When the model has no voice of that gender, any voice of it.
pub fn choose_voice<'a>(voices: &'a [Voice], gender: u8, key: &str) -> Option<&'a Voice> {
    let of_gender: Vec<&Voice> = voices.iter().filter(|v| v.gender == gender).collect();
    let pool: Vec<&Voice> = if of_gender.is_empty() { voices.iter().collect() } else { of_gender };
    if pool.is_empty() {
        return None;
    }
    // FNV-1a: stable across builds and platforms (std's hasher is not).
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    pool.get((hash % pool.len() as u64) as usize).copied()
}
