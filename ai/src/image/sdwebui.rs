//! Stable Diffusion WebUI's API, which AUTOMATIC1111, Forge, SD.Next and
//! stable-diffusion.cpp's server speak: `POST /sdapi/v1/txt2img` answers
//! `{images: [base64 PNG]}` once the image is done; meanwhile `GET /sdapi/v1/progress`
//! tells how far the current job is, which is passed on as progress.

use std::convert::Infallible;
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine;
use serde_json::{Value, json};

use super::http;
use super::settings::{SdWebUiSettings, secs};
use super::{GeneratedImage, ImageModel, ImageModelInfo, ImageRequest, ProgressSender};
use crate::AiError;

pub struct SdWebUi {
    settings: SdWebUiSettings,
    client: reqwest::Client,
    txt2img: String,
    progress: String,
}

impl SdWebUi {
    pub fn new(settings: &SdWebUiSettings) -> Result<Self, AiError> {
        let base = settings.base_url.trim_end_matches('/');
        Ok(Self {
            client: http::client(secs(settings.connect_timeout_secs), secs(settings.timeout_secs))?,
            txt2img: format!("{base}/sdapi/v1/txt2img"),
            progress: format!("{base}/sdapi/v1/progress?skip_current_image=true"),
            settings: settings.clone(),
        })
    }

    fn authorised(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.settings.auth {
            Some(auth) => request.header(
                reqwest::header::AUTHORIZATION,
                format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(auth)),
            ),
            None => request,
        }
    }

    fn body(&self, request: &ImageRequest, (width, height): (u32, u32)) -> Value {
        let mut body = json!({
            "prompt": request.prompt,
            "negative_prompt": request.negative_prompt,
            // The WebUI's seed is a signed 32-bit-ish integer; -1 means random.
            "seed": request.seed % (1 << 31),
            "width": width,
            "height": height,
            "steps": self.settings.steps,
            "cfg_scale": self.settings.cfg_scale,
            "sampler_name": self.settings.sampler,
            "batch_size": 1,
            "n_iter": 1,
            "send_images": true,
            "save_images": false,
        });
        if let Some(checkpoint) = &self.settings.checkpoint {
            body["override_settings"] = json!({ "sd_model_checkpoint": checkpoint });
            body["override_settings_restore_afterwards"] = json!(true);
        }
        body
    }

    /// Asks how far the WebUI is until the image is done; its answer covers whatever job
    /// runs, which is ours while it draws one image at a time.
    async fn follow(&self, progress: &ProgressSender) -> Infallible {
        let interval = Duration::from_millis(self.settings.progress_interval_ms.max(100));
        let mut last = -1.0_f32;
        loop {
            tokio::time::sleep(interval).await;
            let asked = self.authorised(self.client.get(&self.progress)).send().await;
            let Ok(response) = asked else { continue };
            let Ok(value) = response.json::<Value>().await else { continue };
            if let Some(done) = value["progress"].as_f64() {
                let done = (done as f32).clamp(0.0, 0.99);
                if done > last {
                    last = done;
                    let _ = progress.send(done);
                }
            }
        }
    }
}

/// Multiples of 8 within 64..=2048, as Stable Diffusion's latent space needs.
pub(super) fn model_size(width: u32, height: u32) -> (u32, u32) {
    let fit = |v: u32| (v.clamp(64, 2048) / 8) * 8;
    let (w, h) = super::illustrator::output_size(width, height);
    (fit(w), fit(h))
}

#[async_trait]
impl ImageModel for SdWebUi {
    async fn generate(&self, request: ImageRequest, progress: ProgressSender) -> Result<GeneratedImage, AiError> {
        let size = model_size(request.width, request.height);
        let body = self.body(&request, size);
        let url = self.txt2img.as_str();
        let draw = async {
            let response = http::send(url, self.authorised(self.client.post(url).json(&body))).await?;
            http::json(url, response).await
        };
        let answer = tokio::select! {
            answer = draw => answer?,
            never = self.follow(&progress) => match never {},
        };
        let Some(first) = answer["images"].as_array().and_then(|images| images.first()).and_then(Value::as_str) else {
            return Err(AiError::Internal(format!("{url} answered without an image")));
        };
        let bytes = http::decode_base64(url, first)?;
        let image = http::image_from_bytes(url, bytes, size)?;
        let _ = progress.send(1.0);
        Ok(image)
    }

    fn info(&self) -> ImageModelInfo {
        ImageModelInfo { backend: "sdwebui", illustration: false }
    }
}
