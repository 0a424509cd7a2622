//! Image models behind one trait (ARCHITECTURE.md, "AI providers"): the embedded
//! illustrator, the Stable Diffusion WebUI API, ComfyUI and the OpenAI images API.
//!
//! A request carries both the words (for models that read prompts) and the structured
//! choices they were made from (for the illustrator, which draws from them), so every
//! backend gets what it can use and the character keeps its look on all of them.

mod comfyui;
pub(crate) mod http;
pub mod illustrator;
mod openai;
mod sdwebui;
mod settings;

use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::mpsc;

use crate::AiError;
pub use comfyui::{ComfyUi, DEFAULT_WORKFLOW as DEFAULT_COMFYUI_WORKFLOW};
pub use illustrator::Illustrator;
pub use openai::OpenAiImages;
pub use sdwebui::SdWebUi;
pub use settings::{ComfyUiSettings, ImageBackend, ImageModelSettings, OpenAiImageSettings, SdWebUiSettings};

/// How far apart the seeds of one job's images are: image `i` of a job takes the job's
/// seed plus `i` steps (`actors/src/images/making.rs`).
pub const JOB_SEED_STEP: u64 = 0x9e37_79b9_7f4a_7c15;

/// The image model the settings choose, checked.
pub fn build(settings: &ImageModelSettings) -> Result<Arc<dyn ImageModel>, AiError> {
    settings.validate()?;
    Ok(match settings.backend {
        ImageBackend::Illustrator => Arc::new(Illustrator),
        ImageBackend::Sdwebui => Arc::new(SdWebUi::new(&settings.sdwebui)?),
        ImageBackend::Comfyui => Arc::new(ComfyUi::new(&settings.comfyui)?),
        ImageBackend::Openai => Arc::new(OpenAiImages::new(&settings.openai)?),
    })
}

/// What the character looks like, in the terms the illustrator draws from. Seeded
/// characters carry one in their data; created characters get one from their attributes.
/// Prompt-reading models get [`ImageRequest::prompt`], which starts with the same look in
/// words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subject {
    /// 0 = woman, 1 = man (the product's gender codes).
    pub gender: u8,
    /// Indices into the illustrator's tables (skin, hair colour, hair style, eyes,
    /// backdrop, accessory); out-of-range values wrap.
    pub look: [u8; 6],
}

impl Subject {
    /// The subject of a character with this gender and look.
    pub fn of(gender: amora_domain::gender::Gender, look: &amora_domain::appearance::Look) -> Subject {
        Subject { gender: gender.code(), look: look.to_array() }
    }
}

/// One image to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRequest {
    /// The whole positive prompt: the character's appearance first, then the presets'
    /// words, then the user's own words.
    pub prompt: String,
    pub negative_prompt: String,
    /// Stable per character (and varied per image of a job), so images of one character
    /// look alike on models that honour seeds.
    pub seed: u64,
    pub width: u32,
    pub height: u32,
    /// The character drawn, when there is one.
    pub subject: Option<Subject>,
    /// Preset keys chosen by the user (`None`: not chosen).
    pub scene: Option<String>,
    pub outfit: Option<String>,
    pub pose: Option<String>,
    pub style: Option<String>,
    /// Whether explicit content is allowed for this request.
    pub nsfw: bool,
    /// Which image of its job this is (0 for the first, and for a portrait). Models that
    /// honour seeds vary by the seed; the illustrator, whose seed moves only details, draws
    /// each image of a job in another light, every other one mirrored, and in another pose
    /// when none was chosen, so that a job's images differ at a glance (issue 30).
    pub variant: u32,
}

/// A finished image as the backend gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedImage {
    /// `image/png`, `image/jpeg` or `image/webp`.
    pub content_type: String,
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// Progress reports (0.0–1.0) from backends that give them; sending never blocks and a
/// closed receiver is fine.
pub type ProgressSender = mpsc::UnboundedSender<f32>;

/// What an image backend is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageModelInfo {
    /// `illustrator`, `sdwebui`, `comfyui`, `openai`.
    pub backend: &'static str,
    /// True when the images are drawn illustrations rather than a photo model's output;
    /// the UI labels them so.
    pub illustration: bool,
}

#[async_trait]
pub trait ImageModel: Send + Sync {
    /// Makes one image. Fails with [`AiError::BadRequest`] when the backend refuses the
    /// request (including its own content filter), [`AiError::Unavailable`] or
    /// [`AiError::Busy`] when it cannot be reached or is overloaded, and after the
    /// backend's configured time-out with [`AiError::Unavailable`].
    async fn generate(&self, request: ImageRequest, progress: ProgressSender) -> Result<GeneratedImage, AiError>;

    fn info(&self) -> ImageModelInfo;
}
