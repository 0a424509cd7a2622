//! The voice model's configuration, for the server to embed in its own settings, e.g.
//!
//! ```toml
//! [voice.model]
//! kind = "embedded"          # or "openai"
//!
//! [voice.model.embedded]
//! flite = "flite"            # the synthesiser, found on PATH
//! lame = "lame"              # the MP3 encoder
//! bitrate_kbps = 32
//!
//! [voice.model.openai]
//! base_url = "http://127.0.0.1:8880/v1"   # Kokoro-FastAPI, OpenAI, …
//! model = "kokoro"
//! voices = [{ id = "af_bella", gender = 0, label = "Bella" }]
//! ```

use serde::Deserialize;

use super::Voice;
use crate::AiError;

/// Which backend speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VoiceKind {
    /// flite run as a child process, its WAV encoded to MP3 by lame (no network).
    #[default]
    Embedded,
    /// An OpenAI-compatible `POST /v1/audio/speech` service.
    Openai,
}

/// The voice model's settings. Both sections may be present; `kind` picks one.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoiceModelSettings {
    pub kind: VoiceKind,
    pub embedded: EmbeddedVoiceSettings,
    pub openai: OpenAiVoiceSettings,
}

impl VoiceModelSettings {
    /// OpenAI-compatible settings with `voices`, everything else by default.
    pub fn openai(base_url: impl Into<String>, model: impl Into<String>, voices: Vec<Voice>) -> Self {
        let mut settings = Self { kind: VoiceKind::Openai, ..Self::default() };
        settings.openai.base_url = base_url.into();
        settings.openai.model = model.into();
        settings.openai.voices = voices.into_iter().map(VoiceEntry::from).collect();
        settings
    }

    /// Checks the values that serde cannot.
    pub fn validate(&self) -> Result<(), AiError> {
        let bad = |m: String| Err(AiError::BadRequest(m));
        match self.kind {
            VoiceKind::Embedded => {
                let e = &self.embedded;
                if e.flite.trim().is_empty() || e.lame.trim().is_empty() {
                    return bad("voice.model.embedded: flite and lame must name programs".into());
                }
                if !(8..=128).contains(&e.bitrate_kbps) {
                    return bad(format!("voice.model.embedded.bitrate_kbps {} is outside 8..=128", e.bitrate_kbps));
                }
                if e.timeout_ms == 0 || e.max_chars == 0 || e.concurrent == 0 {
                    return bad("voice.model.embedded: timeout_ms, max_chars and concurrent must be above 0".into());
                }
            }
            VoiceKind::Openai => {
                let o = &self.openai;
                if !(o.base_url.starts_with("http://") || o.base_url.starts_with("https://")) {
                    return bad(format!("voice.model.openai.base_url {:?} is not an http(s) URL", o.base_url));
                }
                if o.model.trim().is_empty() {
                    return bad("voice.model.openai.model is required".into());
                }
                if o.voices.is_empty() {
                    return bad("voice.model.openai.voices: list at least one voice".into());
                }
                if let Some(v) = o.voices.iter().find(|v| v.gender > 1 || v.id.trim().is_empty()) {
                    return bad(format!("voice.model.openai.voices: {:?} needs an id and gender 0 or 1", v.id));
                }
                if o.connect_timeout_ms == 0 || o.request_timeout_ms == 0 || o.max_chars == 0 {
                    return bad("voice.model.openai: timeouts and max_chars must be above 0".into());
                }
            }
        }
        Ok(())
    }
}

/// The embedded synthesiser's settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EmbeddedVoiceSettings {
    /// The flite program (a name on PATH or a path).
    pub flite: String,
    /// The lame program.
    pub lame: String,
    /// MP3 bitrate; 32 kbps mono is plenty for 16 kHz speech (4 KB a second).
    pub bitrate_kbps: u32,
    /// Longest that synthesising and encoding one piece of text may take; the child is
    /// killed past it.
    pub timeout_ms: u64,
    /// Most characters of one piece of text.
    pub max_chars: usize,
    /// Children run at once; more requests wait their turn.
    pub concurrent: usize,
}

impl Default for EmbeddedVoiceSettings {
    fn default() -> Self {
        Self {
            flite: "flite".into(),
            lame: "lame".into(),
            bitrate_kbps: 32,
            timeout_ms: 20_000,
            max_chars: 1_000,
            concurrent: 2,
        }
    }
}

/// A voice of an OpenAI-compatible service, as configured (the API cannot list them).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoiceEntry {
    pub id: String,
    /// 0 = female, 1 = male.
    pub gender: u8,
    #[serde(default)]
    pub label: String,
}

impl From<Voice> for VoiceEntry {
    fn from(voice: Voice) -> Self {
        Self { id: voice.voice_id, gender: voice.gender, label: voice.label }
    }
}

impl From<&VoiceEntry> for Voice {
    fn from(entry: &VoiceEntry) -> Self {
        let label = if entry.label.is_empty() { entry.id.clone() } else { entry.label.clone() };
        Voice { voice_id: entry.id.clone(), gender: entry.gender, label }
    }
}

/// The OpenAI-compatible backend's settings.
#[derive(Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenAiVoiceSettings {
    /// The API's base, ending before `/audio/speech`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<String>,
    /// The `model` field of requests (`tts-1`, `kokoro`, …).
    pub model: String,
    /// The voices to offer, with their gender; by default OpenAI's.
    pub voices: Vec<VoiceEntry>,
    pub connect_timeout_ms: u64,
    /// Time for the whole answer.
    pub request_timeout_ms: u64,
    /// Most characters of one piece of text (OpenAI takes 4096).
    pub max_chars: usize,
    /// Largest answer accepted.
    pub max_bytes: usize,
}

impl Default for OpenAiVoiceSettings {
    fn default() -> Self {
        let voice = |id: &str, gender: u8, label: &str| VoiceEntry { id: id.into(), gender, label: label.into() };
        Self {
            base_url: "http://127.0.0.1:8880/v1".into(),
            api_key: None,
            model: "tts-1".into(),
            voices: vec![
                voice("nova", 0, "Nova"),
                voice("shimmer", 0, "Shimmer"),
                voice("coral", 0, "Coral"),
                voice("onyx", 1, "Onyx"),
                voice("echo", 1, "Echo"),
                voice("ash", 1, "Ash"),
            ],
            connect_timeout_ms: 5_000,
            request_timeout_ms: 60_000,
            max_chars: 4_096,
            max_bytes: 16 * 1024 * 1024,
        }
    }
}

impl std::fmt::Debug for OpenAiVoiceSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiVoiceSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("voices", &self.voices)
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("request_timeout_ms", &self.request_timeout_ms)
            .field("max_chars", &self.max_chars)
            .field("max_bytes", &self.max_bytes)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_embedded_and_valid() {
        let settings = VoiceModelSettings::default();
        assert_eq!(settings.kind, VoiceKind::Embedded);
        assert!(settings.validate().is_ok());
    }

    #[test]
    fn parses_and_rejects_unknown_fields() {
        let json = r#"{"kind":"openai","openai":{"base_url":"http://127.0.0.1:9/v1","model":"kokoro","api_key":"k",
            "voices":[{"id":"af_bella","gender":0,"label":"Bella"},{"id":"am_adam","gender":1}]}}"#;
        let settings: VoiceModelSettings = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(settings.kind, VoiceKind::Openai);
        assert_eq!(settings.openai.voices.len(), 2);
        assert!(settings.validate().is_ok());
        assert!(!format!("{settings:?}").contains("\"k\""));
        assert!(serde_json::from_str::<VoiceModelSettings>(r#"{"bogus":1}"#).is_err());
        assert!(serde_json::from_str::<VoiceModelSettings>(r#"{"embedded":{"flit":"x"}}"#).is_err());
    }

    #[test]
    fn validation_names_the_bad_key() {
        let settings = VoiceModelSettings::openai("ftp://x", "m", vec![]);
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("base_url")));
        let settings = VoiceModelSettings::openai("http://x/v1", "m", vec![]);
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("voices")));
        let mut settings = VoiceModelSettings::default();
        settings.embedded.bitrate_kbps = 4;
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(m)) if m.contains("bitrate")));
    }
}
