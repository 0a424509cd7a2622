//! The image model's configuration, for the server to embed as `[image.model]`:
//!
//! ```toml
//! [image.model]
//! backend = "illustrator"    # or "sdwebui", "comfyui", "openai"
//!
//! [image.model.sdwebui]
//! base_url = "http://127.0.0.1:7860"
//! steps = 25
//!
//! [image.model.comfyui]
//! base_url = "http://127.0.0.1:8188"
//! workflow_path = "config/comfyui-txt2img.json"
//! checkpoint = "v1-5-pruned-emaonly.safetensors"
//!
//! [image.model.openai]
//! base_url = "https://api.openai.com/v1"
//! api_key = "sk-..."
//! model = "dall-e-3"
//! ```

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use crate::AiError;

/// Which backend draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageBackend {
    /// The embedded illustrator (no model, no network).
    #[default]
    Illustrator,
    /// Stable Diffusion WebUI's API (AUTOMATIC1111, Forge, SD.Next, stable-diffusion.cpp's
    /// server): `POST /sdapi/v1/txt2img`.
    Sdwebui,
    /// ComfyUI with a stored API-format workflow.
    Comfyui,
    /// An OpenAI-compatible `POST /v1/images/generations`.
    Openai,
}

impl ImageBackend {
    pub fn key(self) -> &'static str {
        match self {
            ImageBackend::Illustrator => "illustrator",
            ImageBackend::Sdwebui => "sdwebui",
            ImageBackend::Comfyui => "comfyui",
            ImageBackend::Openai => "openai",
        }
    }
}

/// The image model's settings; every section may be present, `backend` picks one.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImageModelSettings {
    pub backend: ImageBackend,
    pub sdwebui: SdWebUiSettings,
    pub comfyui: ComfyUiSettings,
    pub openai: OpenAiImageSettings,
}

impl ImageModelSettings {
    /// Checks what serde cannot, for the chosen backend only.
    pub fn validate(&self) -> Result<(), AiError> {
        let bad = |m: String| Err(AiError::BadRequest(m));
        let url = |name: &str, url: &str| {
            if url.starts_with("http://") || url.starts_with("https://") {
                Ok(())
            } else {
                bad(format!("image.model.{name}.base_url must start with http:// or https://, got {url:?}"))
            }
        };
        match self.backend {
            ImageBackend::Illustrator => Ok(()),
            ImageBackend::Sdwebui => {
                url("sdwebui", &self.sdwebui.base_url)?;
                if self.sdwebui.steps == 0 || self.sdwebui.timeout_secs == 0 {
                    return bad("image.model.sdwebui: steps and timeout_secs must be at least 1".into());
                }
                Ok(())
            }
            ImageBackend::Comfyui => {
                url("comfyui", &self.comfyui.base_url)?;
                if self.comfyui.steps == 0 || self.comfyui.timeout_secs == 0 || self.comfyui.poll_interval_ms == 0 {
                    return bad(
                        "image.model.comfyui: steps, timeout_secs and poll_interval_ms must be at least 1".into()
                    );
                }
                Ok(())
            }
            ImageBackend::Openai => {
                url("openai", &self.openai.base_url)?;
                if self.openai.model.trim().is_empty() || self.openai.timeout_secs == 0 {
                    return bad("image.model.openai: model must be set and timeout_secs at least 1".into());
                }
                Ok(())
            }
        }
    }
}

/// Stable Diffusion WebUI (and the servers that speak its API).
#[derive(Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SdWebUiSettings {
    /// Up to the host: `http://127.0.0.1:7860`.
    pub base_url: String,
    /// `user:password` when the WebUI runs with `--api-auth` (sent as HTTP Basic).
    pub auth: Option<String>,
    /// A checkpoint to switch to for these requests (`override_settings.sd_model_checkpoint`);
    /// unset keeps the WebUI's current one.
    pub checkpoint: Option<String>,
    pub steps: u32,
    pub cfg_scale: f32,
    pub sampler: String,
    /// How often `GET /sdapi/v1/progress` is asked while an image is drawn.
    pub progress_interval_ms: u64,
    pub connect_timeout_secs: u64,
    /// The most one image may take, queueing included.
    pub timeout_secs: u64,
}

impl Default for SdWebUiSettings {
    fn default() -> Self {
        Self {
            base_url: "http://127.0.0.1:7860".into(),
            auth: None,
            checkpoint: None,
            steps: 25,
            cfg_scale: 7.0,
            sampler: "DPM++ 2M".into(),
            progress_interval_ms: 1_000,
            connect_timeout_secs: 5,
            timeout_secs: 300,
        }
    }
}

impl std::fmt::Debug for SdWebUiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SdWebUiSettings")
            .field("base_url", &self.base_url)
            .field("auth", &self.auth.as_ref().map(|_| "<redacted>"))
            .field("checkpoint", &self.checkpoint)
            .field("steps", &self.steps)
            .field("cfg_scale", &self.cfg_scale)
            .field("sampler", &self.sampler)
            .field("timeout_secs", &self.timeout_secs)
            .finish_non_exhaustive()
    }
}

/// ComfyUI: a workflow in API format whose string values may hold the placeholders
/// `{{prompt}}`, `{{negative_prompt}}`, `{{checkpoint}}`, `{{sampler}}`, `{{scheduler}}`
/// and, as whole values, `"{{seed}}"`, `"{{width}}"`, `"{{height}}"`, `"{{steps}}"`,
/// `"{{cfg}}"` (replaced by numbers).
#[derive(Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ComfyUiSettings {
    /// Up to the host: `http://127.0.0.1:8188`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …` when set (ComfyUI behind an authenticating proxy).
    pub api_key: Option<String>,
    /// The workflow file; unset uses the bundled SD 1.5 / SDXL text-to-image graph
    /// (`config/comfyui-txt2img.json`).
    pub workflow_path: Option<PathBuf>,
    pub checkpoint: String,
    pub steps: u32,
    pub cfg: f32,
    pub sampler: String,
    pub scheduler: String,
    /// How often `GET /history/{prompt_id}` and `GET /queue` are asked.
    pub poll_interval_ms: u64,
    pub connect_timeout_secs: u64,
    pub timeout_secs: u64,
}

impl Default for ComfyUiSettings {
    fn default() -> Self {
        Self {
            base_url: "http://127.0.0.1:8188".into(),
            api_key: None,
            workflow_path: None,
            checkpoint: "v1-5-pruned-emaonly.safetensors".into(),
            steps: 25,
            cfg: 7.0,
            sampler: "euler".into(),
            scheduler: "normal".into(),
            poll_interval_ms: 500,
            connect_timeout_secs: 5,
            timeout_secs: 300,
        }
    }
}

impl std::fmt::Debug for ComfyUiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComfyUiSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("workflow_path", &self.workflow_path)
            .field("checkpoint", &self.checkpoint)
            .field("steps", &self.steps)
            .field("timeout_secs", &self.timeout_secs)
            .finish_non_exhaustive()
    }
}

/// An OpenAI-compatible images API.
#[derive(Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenAiImageSettings {
    /// Up to before `/images/generations`: `https://api.openai.com/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    /// The sizes the model accepts (`"1024x1792"`); the one nearest the request's shape
    /// is sent. Empty: the request's own size is sent.
    pub sizes: Vec<String>,
    /// Sends `response_format: "b64_json"` (models that always answer base64, such as
    /// `gpt-image-1`, reject the field: set false for them).
    pub response_format: bool,
    pub connect_timeout_secs: u64,
    pub timeout_secs: u64,
}

impl Default for OpenAiImageSettings {
    fn default() -> Self {
        Self {
            base_url: "https://api.openai.com/v1".into(),
            api_key: None,
            model: "dall-e-3".into(),
            sizes: vec!["1024x1024".into(), "1024x1792".into(), "1792x1024".into()],
            response_format: true,
            connect_timeout_secs: 5,
            timeout_secs: 180,
        }
    }
}

impl std::fmt::Debug for OpenAiImageSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiImageSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("sizes", &self.sizes)
            .field("response_format", &self.response_format)
            .field("timeout_secs", &self.timeout_secs)
            .finish_non_exhaustive()
    }
}

pub(super) fn secs(s: u64) -> Duration {
    Duration::from_secs(s.max(1))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_illustrator_and_valid() {
        let settings = ImageModelSettings::default();
        assert_eq!(settings.backend, ImageBackend::Illustrator);
        assert!(settings.validate().is_ok());
        let parsed: ImageModelSettings = serde_json::from_str("{}").unwrap();
        assert_eq!(parsed, settings);
    }

    #[test]
    fn parses_each_section_and_rejects_unknown_fields() {
        let json = r#"{"backend":"comfyui","comfyui":{"base_url":"http://10.0.0.5:8188","checkpoint":"sdxl.safetensors","steps":30},
            "sdwebui":{"sampler":"Euler a","auth":"me:secret"},"openai":{"model":"gpt-image-1","response_format":false}}"#;
        let settings: ImageModelSettings = serde_json::from_str(json).unwrap();
        assert_eq!(settings.backend, ImageBackend::Comfyui);
        assert_eq!(settings.comfyui.steps, 30);
        assert_eq!(settings.sdwebui.sampler, "Euler a");
        assert!(!settings.openai.response_format);
        assert!(settings.validate().is_ok());
        assert!(!format!("{settings:?}").contains("secret"), "secrets stay out of logs");
        assert!(serde_json::from_str::<ImageModelSettings>(r#"{"backend":"dalle"}"#).is_err());
        assert!(serde_json::from_str::<ImageModelSettings>(r#"{"sdwebui":{"stpes":3}}"#).is_err());
        assert!(serde_json::from_str::<ImageModelSettings>(r#"{"bogus":1}"#).is_err());
    }

    #[test]
    fn validation_checks_the_chosen_backend_only() {
        let mut settings = ImageModelSettings { backend: ImageBackend::Openai, ..Default::default() };
        settings.openai.model = " ".into();
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(_))));
        settings.backend = ImageBackend::Illustrator;
        assert!(settings.validate().is_ok());
        settings.backend = ImageBackend::Sdwebui;
        settings.sdwebui.base_url = "127.0.0.1:7860".into();
        assert!(matches!(settings.validate(), Err(AiError::BadRequest(_))));
    }
}
