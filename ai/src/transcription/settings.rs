//! The speech-to-text model's configuration, for the server to embed in its own settings,
//! e.g.
//!
//! ```toml
//! [call.transcription]
//! kind = "embedded"          # or "openai"
//!
//! [call.transcription.embedded]
//! program = "pocketsphinx_continuous"          # Debian's pocketsphinx, found on PATH
//! model_dir = "/usr/share/pocketsphinx/model/en-us"   # Debian's pocketsphinx-en-us
//!
//! [call.transcription.openai]
//! base_url = "http://127.0.0.1:8000/v1"   # faster-whisper-server / speaches, whisper.cpp, OpenAI, …
//! model = "whisper-1"
//! ```

use serde::Deserialize;

use crate::AiError;

/// Which backend listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TranscriptionKind {
    /// PocketSphinx run as a child process on Debian's US English model (no network).
    #[default]
    Embedded,
    /// An OpenAI-compatible `POST /v1/audio/transcriptions` service.
    Openai,
}

/// The speech-to-text model's settings. Both sections may be present; `kind` picks one.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TranscriptionSettings {
    pub kind: TranscriptionKind,
    pub embedded: EmbeddedTranscriptionSettings,
    pub openai: OpenAiTranscriptionSettings,
}

impl TranscriptionSettings {
    /// OpenAI-compatible settings, everything else by default.
    pub fn openai(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        let mut settings = Self { kind: TranscriptionKind::Openai, ..Self::default() };
        settings.openai.base_url = base_url.into();
        settings.openai.model = model.into();
        settings
    }

    /// Checks the values that serde cannot.
    pub fn validate(&self) -> Result<(), AiError> {
        let bad = |m: String| Err(AiError::BadRequest(m));
        match self.kind {
            TranscriptionKind::Embedded => {
                let e = &self.embedded;
                if e.program.trim().is_empty() || e.model_dir.trim().is_empty() {
                    return bad("transcription.embedded: program and model_dir must be set".into());
                }
                if e.timeout_ms == 0 || e.max_audio_ms == 0 || e.concurrent == 0 {
                    return bad(
                        "transcription.embedded: timeout_ms, max_audio_ms and concurrent must be above 0".into()
                    );
                }
            }
            TranscriptionKind::Openai => {
                let o = &self.openai;
                if !(o.base_url.starts_with("http://") || o.base_url.starts_with("https://")) {
                    return bad(format!("transcription.openai.base_url {:?} is not an http(s) URL", o.base_url));
                }
                if o.model.trim().is_empty() {
                    return bad("transcription.openai.model is required".into());
                }
                if o.connect_timeout_ms == 0 || o.request_timeout_ms == 0 || o.max_audio_ms == 0 {
                    return bad("transcription.openai: timeouts and max_audio_ms must be above 0".into());
                }
                if let Some(tag) = o.languages.iter().find(|l| super::primary_language(l).is_err()) {
                    return bad(format!("transcription.openai.languages: {tag:?} is not a language tag"));
                }
            }
        }
        Ok(())
    }
}

/// The embedded recogniser's settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EmbeddedTranscriptionSettings {
    /// PocketSphinx 0.8's decoder for a recording (a name on PATH or a path).
    pub program: String,
    /// The acoustic model (`en-us/`), language model (`en-us.lm.bin`) and dictionary
    /// (`cmudict-en-us.dict`) are read from here.
    pub model_dir: String,
    /// Longest that decoding one utterance may take; the child is killed past it. The
    /// decoder runs at about 0.8–1 of real time on this machine (BENCHMARKS.md), so this
    /// covers `max_audio_ms` of speech with room to spare.
    pub timeout_ms: u64,
    /// Longest utterance accepted: a call's turn, not a dictation.
    pub max_audio_ms: u64,
    /// Decoders run at once, each on a core; more requests wait their turn.
    pub concurrent: usize,
}

impl Default for EmbeddedTranscriptionSettings {
    fn default() -> Self {
        Self {
            program: "pocketsphinx_continuous".into(),
            model_dir: "/usr/share/pocketsphinx/model/en-us".into(),
            timeout_ms: 30_000,
            max_audio_ms: 30_000,
            concurrent: 1,
        }
    }
}

/// The OpenAI-compatible backend's settings.
#[derive(Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenAiTranscriptionSettings {
    /// The API's base, ending before `/audio/transcriptions`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<String>,
    /// The `model` field of requests (`whisper-1`, `Systran/faster-whisper-small`, …;
    /// whisper.cpp's server ignores it).
    pub model: String,
    /// The languages the service understands (ISO 639-1, `en`, `fr`, …); empty: any, the
    /// service decides (Whisper knows about a hundred).
    pub languages: Vec<String>,
    pub connect_timeout_ms: u64,
    /// Time for the whole answer.
    pub request_timeout_ms: u64,
    /// Longest utterance sent (OpenAI takes files up to 25 MB, about 13 minutes of 16 kHz
    /// PCM).
    pub max_audio_ms: u64,
}

impl Default for OpenAiTranscriptionSettings {
    fn default() -> Self {
        Self {
            base_url: "http://127.0.0.1:8000/v1".into(),
            api_key: None,
            model: "whisper-1".into(),
            languages: Vec::new(),
            connect_timeout_ms: 5_000,
            request_timeout_ms: 30_000,
            max_audio_ms: 120_000,
        }
    }
}

impl std::fmt::Debug for OpenAiTranscriptionSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiTranscriptionSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("languages", &self.languages)
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("request_timeout_ms", &self.request_timeout_ms)
            .field("max_audio_ms", &self.max_audio_ms)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_embedded_and_valid() {
        let settings = TranscriptionSettings::default();
        assert_eq!(settings.kind, TranscriptionKind::Embedded);
        assert!(settings.validate().is_ok());
        assert!(TranscriptionSettings::openai("http://127.0.0.1:9/v1", "whisper-1").validate().is_ok());
    }

    #[test]
    fn parses_and_rejects_unknown_fields() {
        let json = r#"{"kind":"openai","openai":{"base_url":"http://127.0.0.1:9/v1","model":"whisper-1",
            "api_key":"secret-key","languages":["en","fr"]}}"#;
        let settings: TranscriptionSettings = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(settings.kind, TranscriptionKind::Openai);
        assert_eq!(settings.openai.languages, ["en", "fr"]);
        assert!(settings.validate().is_ok());
        assert!(!format!("{settings:?}").contains("secret-key"));
        assert!(serde_json::from_str::<TranscriptionSettings>(r#"{"bogus":1}"#).is_err());
        assert!(serde_json::from_str::<TranscriptionSettings>(r#"{"embedded":{"programme":"x"}}"#).is_err());
        assert!(serde_json::from_str::<TranscriptionSettings>(r#"{"kind":"whisper"}"#).is_err());
    }

    #[test]
    fn validation_names_the_bad_key() {
        let settings = TranscriptionSettings::openai("ftp://x", "m");
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("base_url")));
        let settings = TranscriptionSettings::openai("http://x/v1", " ");
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("model")));
        let mut settings = TranscriptionSettings::openai("http://x/v1", "m");
        settings.openai.languages = vec!["en".into(), "english!".into()];
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("english!")));
        let mut settings = TranscriptionSettings::default();
        settings.embedded.timeout_ms = 0;
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("timeout_ms")));
        settings.embedded.timeout_ms = 1;
        settings.embedded.model_dir.clear();
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("model_dir")));
    }
}
