//! An OpenAI-compatible images API: `POST {base}/images/generations` with
//! `{model, prompt, n: 1, size: "WxH", response_format: "b64_json"}`, answered with
//! `{data: [{b64_json}]}`; errors come as `{error: {message, type, code}}`. The API has
//! no negative prompt and no seed: the negative words are appended as "Avoid: …".

use async_trait::async_trait;
use serde_json::{Value, json};

use super::http;
use super::settings::{OpenAiImageSettings, secs};
use super::{GeneratedImage, ImageModel, ImageModelInfo, ImageRequest, ProgressSender};
use crate::AiError;

pub struct OpenAiImages {
    settings: OpenAiImageSettings,
    client: reqwest::Client,
    url: String,
}

impl OpenAiImages {
    pub fn new(settings: &OpenAiImageSettings) -> Result<Self, AiError> {
        Ok(Self {
            client: http::client(secs(settings.connect_timeout_secs), secs(settings.timeout_secs))?,
            url: format!("{}/images/generations", settings.base_url.trim_end_matches('/')),
            settings: settings.clone(),
        })
    }

    fn body(&self, request: &ImageRequest, (width, height): (u32, u32)) -> Value {
        let mut prompt = request.prompt.clone();
        if !request.negative_prompt.trim().is_empty() {
            prompt.push_str(&format!(". Avoid: {}", request.negative_prompt.trim()));
        }
        let mut body = json!({
            "model": self.settings.model,
            "prompt": prompt,
            "n": 1,
            "size": size_for(&self.settings.sizes, width, height),
        });
        if self.settings.response_format {
            body["response_format"] = json!("b64_json");
        }
        body
    }
}

/// The allowed size nearest the requested shape (by aspect ratio, then by area), or the
/// request's own when any size goes.
pub(super) fn size_for(sizes: &[String], width: u32, height: u32) -> String {
    let parse = |s: &String| {
        let (w, h) = s.split_once('x')?;
        Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?))
    };
    let want_ratio = f64::from(width) / f64::from(height.max(1));
    let want_area = f64::from(width) * f64::from(height);
    sizes
        .iter()
        .filter_map(|s| parse(s).filter(|(w, h)| *w > 0 && *h > 0))
        .min_by(|a, b| {
            let score = |(w, h): &(u32, u32)| {
                let ratio = (f64::from(*w) / f64::from(*h)).ln() - want_ratio.ln();
                let area = (f64::from(*w) * f64::from(*h)).ln() - want_area.ln();
                // The shape matters most; the area only breaks ties.
                ratio.abs() + area.abs() * 0.01
            };
            score(a).total_cmp(&score(b))
        })
        .map_or_else(|| format!("{width}x{height}"), |(w, h)| format!("{w}x{h}"))
}

#[async_trait]
impl ImageModel for OpenAiImages {
    async fn generate(&self, request: ImageRequest, progress: ProgressSender) -> Result<GeneratedImage, AiError> {
        let size = super::illustrator::output_size(request.width, request.height);
        let body = self.body(&request, size);
        let url = self.url.as_str();
        let mut call = self.client.post(url).json(&body);
        if let Some(key) = &self.settings.api_key {
            call = call.bearer_auth(key);
        }
        let answer = http::json(url, http::send(url, call).await?).await?;
        let first = &answer["data"][0];
        let Some(b64) = first["b64_json"].as_str() else {
            return Err(AiError::Internal(format!("{url} answered without b64_json data")));
        };
        let bytes = http::decode_base64(url, b64)?;
        let image = http::image_from_bytes(url, bytes, size)?;
        let _ = progress.send(1.0);
        Ok(image)
    }

    fn info(&self) -> ImageModelInfo {
        ImageModelInfo { backend: "openai", illustration: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_allowed_size_is_sent() {
        let dalle: Vec<String> = ["1024x1024", "1024x1792", "1792x1024"].iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(size_for(&dalle, 768, 1024), "1024x1792");
        assert_eq!(size_for(&dalle, 1024, 1024), "1024x1024");
        assert_eq!(size_for(&dalle, 1536, 1024), "1792x1024");
        assert_eq!(size_for(&[], 768, 1024), "768x1024");
        assert_eq!(size_for(&["junk".to_owned()], 512, 512), "512x512");
    }
}
