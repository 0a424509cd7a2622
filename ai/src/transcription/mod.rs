//! Speech-to-text models behind one trait (ARCHITECTURE.md, "AI providers"), for voice
//! calls (issue 32): the embedded recogniser run as a child process ([`embedded`]:
//! PocketSphinx on Debian's US English model), and an OpenAI-compatible
//! `POST /v1/audio/transcriptions` service ([`openai`]: whisper.cpp's server,
//! faster-whisper servers, OpenAI). [`build`] makes the configured one.
//!
//! A call hands the recogniser one utterance at a time: [`vad`] decides from the
//! microphone's samples when the user started and stopped speaking, and the samples in
//! between go to [`SpeechToText::transcribe`], or, with a recogniser that can hear an
//! utterance as it is spoken, to a [`SpeechStream`] from the moment speech started. Everything here takes 16 kHz mono 16-bit
//! PCM ([`SAMPLE_RATE`]); [`pcm::resample`] converts audio recorded at another rate.

use std::sync::Arc;

use async_trait::async_trait;

use crate::AiError;

pub mod embedded;
pub mod mulaw;
pub mod openai;
pub mod pcm;
mod settings;
#[cfg(test)]
mod testing;
pub mod vad;

pub use settings::{
    EmbeddedTranscriptionSettings, OpenAiTranscriptionSettings, TranscriptionKind, TranscriptionSettings,
};

/// The sample rate of every recogniser's input, in Hz.
pub const SAMPLE_RATE: u32 = 16_000;

/// What was said in one utterance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The words, trimmed; empty when nothing was recognised (silence, a cough).
    pub text: String,
    /// How long the audio played.
    pub duration_ms: u64,
    /// The language of `text` as an ISO 639-1 code, when the model knows it.
    pub language: Option<String>,
    /// Wall time the recogniser took, including any wait for its turn: with `duration_ms`
    /// it gives the real-time factor.
    pub elapsed_ms: u64,
}

#[async_trait]
pub trait SpeechToText: Send + Sync {
    /// Whether speech in `language` (a BCP 47 tag, `en`, `en-GB`, `fr`) can be
    /// transcribed, so that a call in a language the model cannot hear is refused before it
    /// starts rather than turned into wrong words.
    fn understands(&self, language: &str) -> bool;

    /// An utterance heard as it is spoken, so that when it ends only its last words remain
    /// to decode: `None` when this recogniser transcribes whole utterances only (the
    /// OpenAI-compatible API takes a file), is busy, or does not understand `language`;
    /// the caller then gives the whole utterance to [`Self::transcribe`], which says why.
    fn stream(&self, language: Option<&str>) -> Option<Box<dyn SpeechStream>> {
        let _ = language;
        None
    }

    /// Gets ready for an utterance soon (a call started, the user began to speak), so
    /// that less of the work waits until the user stops: the embedded model starts its
    /// decoder. Returns at once; a failure shows in the next [`Self::transcribe`].
    fn prepare(&self) {}

    /// Transcribes one utterance: 16 kHz mono 16-bit `samples`, spoken in `language` when
    /// the caller knows it. Fails with [`AiError::BadRequest`] for no audio, audio over the
    /// model's limit, or a language it does not understand, and with
    /// [`AiError::Unavailable`] / [`AiError::Busy`] when the recogniser cannot run, takes
    /// too long or is overloaded.
    async fn transcribe(&self, samples: &[i16], language: Option<&str>) -> Result<Transcript, AiError>;
}

/// An utterance fed to the recogniser while the user speaks ([`SpeechToText::stream`]).
/// Dropped unfinished, it is abandoned and its work stopped.
#[async_trait]
pub trait SpeechStream: Send + Sync {
    /// More of the utterance's audio, 16 kHz mono, in order.
    fn push(&mut self, samples: &[i16]);

    /// The user stopped: `utterance` is the whole of it as the detector cut it, which gives
    /// the transcript's duration and is checked as [`SpeechToText::transcribe`] checks it;
    /// what was pushed (at least all of it) is what is recognised.
    async fn finish(self: Box<Self>, utterance: &[i16]) -> Result<Transcript, AiError>;
}

/// The configured speech-to-text model. Nothing runs or connects until the first call.
pub fn build(settings: &TranscriptionSettings) -> Result<Arc<dyn SpeechToText>, AiError> {
    settings.validate()?;
    Ok(match settings.kind {
        TranscriptionKind::Embedded => Arc::new(embedded::EmbeddedSpeechToText::new(&settings.embedded)),
        TranscriptionKind::Openai => Arc::new(openai::OpenAiSpeechToText::new(&settings.openai)?),
    })
}

/// The primary language subtag of a BCP 47 tag, lower case (`en-US` → `en`, `pt_BR` →
/// `pt`, `zh-Hans-CN` → `zh`): what Whisper's `language` field and the models' checks take.
pub fn primary_language(tag: &str) -> Result<String, AiError> {
    let primary = tag.trim().split(['-', '_']).next().unwrap_or_default();
    if !(2..=3).contains(&primary.len()) || !primary.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(AiError::BadRequest(format!("{tag:?} is not a language tag")));
    }
    Ok(primary.to_ascii_lowercase())
}

/// The checks every backend makes before working: some audio, and not too much.
fn check_audio(samples: &[i16], max_audio_ms: u64) -> Result<u64, AiError> {
    if samples.is_empty() {
        return Err(AiError::BadRequest("no audio to transcribe".into()));
    }
    let duration_ms = pcm::duration_ms(samples);
    if duration_ms > max_audio_ms {
        return Err(AiError::BadRequest(format!("{duration_ms} ms of audio is over the limit of {max_audio_ms} ms")));
    }
    Ok(duration_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_comes_down_to_its_primary_language() {
        for (tag, primary) in [("en", "en"), ("en-US", "en"), ("pt_BR", "pt"), ("zh-Hans-CN", "zh"), (" FR ", "fr")] {
            assert_eq!(primary_language(tag).unwrap_or_else(|e| panic!("{e}")), primary);
        }
        for tag in ["", "e", "english", "1a", "en!"] {
            assert!(matches!(primary_language(tag), Err(AiError::BadRequest(_))), "{tag:?}");
        }
    }

    #[test]
    fn audio_must_be_there_and_within_the_limit() {
        assert!(matches!(check_audio(&[], 1000), Err(AiError::BadRequest(m)) if m.contains("no audio")));
        assert_eq!(check_audio(&[0; 16_000], 1000).ok(), Some(1000));
        assert!(matches!(check_audio(&[0; 16_016], 1000), Err(AiError::BadRequest(m)) if m.contains("limit")));
    }

    #[test]
    fn build_validates_and_makes_the_chosen_backend() {
        let embedded = build(&TranscriptionSettings::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(embedded.understands("en-GB") && !embedded.understands("fr"));
        let openai = build(&TranscriptionSettings::openai("http://127.0.0.1:9/v1", "whisper-1"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(openai.understands("fr") && openai.understands("ja"));
        assert!(build(&TranscriptionSettings::openai("127.0.0.1:9", "whisper-1")).is_err());
    }
}
