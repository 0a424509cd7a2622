//! Voice models behind one trait (ARCHITECTURE.md, "AI providers"): the embedded local
//! synthesiser run as a child process, and OpenAI-compatible `POST /v1/audio/speech`.

use async_trait::async_trait;

use crate::AiError;

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
