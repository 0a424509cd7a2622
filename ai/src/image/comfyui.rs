//! ComfyUI: a stored workflow in API format, its placeholders filled per request, queued
//! with `POST /prompt`, followed by polling `GET /queue` (queued → running) and
//! `GET /history/{prompt_id}` (done, with the output files), then fetched with
//! `GET /view`. Polling rather than the `/ws` WebSocket keeps the backend on plain HTTP;
//! it reports coarse progress (queued, running, done) instead of sampler steps.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use serde_json::{Value, json};

use super::http;
use super::settings::{ComfyUiSettings, secs};
use super::{GeneratedImage, ImageModel, ImageModelInfo, ImageRequest, ProgressSender};
use crate::AiError;

/// The bundled workflow: SD 1.5 / SDXL checkpoint → text encodes → KSampler → VAE decode
/// → SaveImage.
pub const DEFAULT_WORKFLOW: &str = include_str!("../../../config/comfyui-txt2img.json");

pub struct ComfyUi {
    settings: ComfyUiSettings,
    workflow: Value,
    client: reqwest::Client,
    base: String,
    client_id: String,
}

impl ComfyUi {
    pub fn new(settings: &ComfyUiSettings) -> Result<Self, AiError> {
        let text = match &settings.workflow_path {
            Some(path) => std::fs::read_to_string(path).map_err(|e| {
                AiError::BadRequest(format!("cannot read the ComfyUI workflow {}: {e}", path.display()))
            })?,
            None => DEFAULT_WORKFLOW.to_owned(),
        };
        let workflow: Value = serde_json::from_str(&text)
            .map_err(|e| AiError::BadRequest(format!("the ComfyUI workflow is not JSON: {e}")))?;
        check_workflow(&workflow)?;
        let base = settings.base_url.trim_end_matches('/').to_owned();
        Ok(Self {
            client: http::client(secs(settings.connect_timeout_secs), secs(settings.timeout_secs))?,
            workflow,
            base,
            // One id per backend instance: ComfyUI tags this client's work with it.
            client_id: format!("amora-{}-{}", std::process::id(), started_nanos()),
            settings: settings.clone(),
        })
    }

    fn authorised(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.settings.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    async fn get_json(&self, url: &str) -> Result<Value, AiError> {
        let response = http::send(url, self.authorised(self.client.get(url))).await?;
        http::json(url, response).await
    }

    /// Polls until the history holds the prompt, reporting queued → running on the way.
    async fn wait_for(&self, prompt_id: &str, progress: &ProgressSender) -> Result<Value, AiError> {
        let history_url = format!("{}/history/{prompt_id}", self.base);
        let queue_url = format!("{}/queue", self.base);
        let interval = Duration::from_millis(self.settings.poll_interval_ms.max(10));
        let mut running = false;
        loop {
            let history = self.get_json(&history_url).await?;
            if let Some(entry) = history.get(prompt_id) {
                return Ok(entry.clone());
            }
            if !running {
                let queue = self.get_json(&queue_url).await?;
                let is_ours = |item: &Value| item.get(1).and_then(Value::as_str) == Some(prompt_id);
                if queue["queue_running"].as_array().is_some_and(|items| items.iter().any(is_ours)) {
                    running = true;
                    let _ = progress.send(0.5);
                }
            }
            tokio::time::sleep(interval).await;
        }
    }
}

fn started_nanos() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// Every placeholder the workflow may hold must be somewhere in it for prompt, seed and
/// size: a workflow without them would draw the same picture for every request.
fn check_workflow(workflow: &Value) -> Result<(), AiError> {
    let text = workflow.to_string();
    let missing: Vec<&str> =
        ["{{prompt}}", "{{seed}}", "{{width}}", "{{height}}"].into_iter().filter(|p| !text.contains(p)).collect();
    if !workflow.is_object() || !missing.is_empty() {
        return Err(AiError::BadRequest(format!(
            "the ComfyUI workflow must be an API-format object using {}",
            missing.join(", ")
        )));
    }
    Ok(())
}

/// The workflow with its placeholders filled: whole-value placeholders become numbers,
/// those inside text are replaced as text.
pub(super) fn fill(workflow: &Value, values: &[(&str, Value)]) -> Value {
    match workflow {
        Value::String(s) => {
            if let Some((_, v)) = values.iter().find(|(k, _)| s == &format!("{{{{{k}}}}}")) {
                return v.clone();
            }
            let mut out = s.clone();
            for (k, v) in values {
                let text = match v {
                    Value::String(t) => t.clone(),
                    other => other.to_string(),
                };
                out = out.replace(&format!("{{{{{k}}}}}"), &text);
            }
            Value::String(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, values)).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), fill(v, values))).collect()),
        other => other.clone(),
    }
}

/// The first image among a history entry's outputs.
fn first_output(entry: &Value) -> Option<(String, String, String)> {
    let outputs = entry["outputs"].as_object()?;
    outputs.values().find_map(|output| {
        let image = output["images"].as_array()?.first()?;
        Some((
            image["filename"].as_str()?.to_owned(),
            image["subfolder"].as_str().unwrap_or_default().to_owned(),
            image["type"].as_str().unwrap_or("output").to_owned(),
        ))
    })
}

/// Why an execution failed, from the history's status messages.
fn execution_error(entry: &Value) -> Option<String> {
    let status = &entry["status"];
    if status["status_str"].as_str() != Some("error") {
        return None;
    }
    let detail = status["messages"].as_array().and_then(|messages| {
        messages.iter().find_map(|m| {
            (m.get(0)?.as_str()? == "execution_error").then(|| {
                let data = &m[1];
                format!(
                    "{} in node {}",
                    data["exception_message"].as_str().unwrap_or("failed").trim(),
                    data["node_type"].as_str().unwrap_or("?")
                )
            })
        })
    });
    Some(detail.unwrap_or_else(|| "the workflow failed".into()))
}

#[async_trait]
impl ImageModel for ComfyUi {
    async fn generate(&self, request: ImageRequest, progress: ProgressSender) -> Result<GeneratedImage, AiError> {
        let deadline = secs(self.settings.timeout_secs);
        let size = super::sdwebui::model_size(request.width, request.height);
        let run = async {
            let values = [
                ("prompt", json!(request.prompt)),
                ("negative_prompt", json!(request.negative_prompt)),
                // ComfyUI takes seeds up to 2^64-1 but JSON numbers in JavaScript
                // clients lose precision past 2^53: stay below.
                ("seed", json!(request.seed % (1 << 53))),
                ("width", json!(size.0)),
                ("height", json!(size.1)),
                ("steps", json!(self.settings.steps)),
                ("cfg", json!(self.settings.cfg)),
                ("checkpoint", json!(self.settings.checkpoint)),
                ("sampler", json!(self.settings.sampler)),
                ("scheduler", json!(self.settings.scheduler)),
            ];
            let prompt = fill(&self.workflow, &values);
            let url = format!("{}/prompt", self.base);
            let body = json!({ "prompt": prompt, "client_id": self.client_id });
            let queued = http::send(&url, self.authorised(self.client.post(&url).json(&body))).await?;
            let queued = http::json(&url, queued).await?;
            let Some(prompt_id) = queued["prompt_id"].as_str().map(str::to_owned) else {
                return Err(AiError::Internal(format!("{url} queued nothing: {queued}")));
            };
            let _ = progress.send(0.05);
            let entry = self.wait_for(&prompt_id, &progress).await?;
            if let Some(error) = execution_error(&entry) {
                return Err(AiError::Internal(format!("ComfyUI could not run the workflow: {error}")));
            }
            let Some((filename, subfolder, kind)) = first_output(&entry) else {
                return Err(AiError::Internal("the ComfyUI workflow finished without an output image".into()));
            };
            let view = format!("{}/view", self.base);
            let query = [("filename", filename.as_str()), ("subfolder", subfolder.as_str()), ("type", kind.as_str())];
            let response = http::send(&view, self.authorised(self.client.get(&view).query(&query))).await?;
            let bytes = response.bytes().await.map_err(|e| http::transport(&view, &e))?;
            http::image_from_bytes(&view, bytes.to_vec(), size)
        };
        let image = tokio::time::timeout(deadline, run).await.map_err(|_| {
            AiError::Unavailable(format!("ComfyUI did not finish the image within {}s", deadline.as_secs()))
        })??;
        let _ = progress.send(1.0);
        Ok(image)
    }

    fn info(&self) -> ImageModelInfo {
        ImageModelInfo { backend: "comfyui", illustration: false }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_workflow_has_every_placeholder() {
        let workflow: Value = serde_json::from_str(DEFAULT_WORKFLOW).unwrap();
        assert!(check_workflow(&workflow).is_ok());
        let filled = fill(
            &workflow,
            &[
                ("prompt", json!("a cat")),
                ("negative_prompt", json!("blurry")),
                ("seed", json!(42)),
                ("width", json!(512)),
                ("height", json!(768)),
                ("steps", json!(20)),
                ("cfg", json!(7.5)),
                ("checkpoint", json!("sd15.safetensors")),
                ("sampler", json!("euler")),
                ("scheduler", json!("normal")),
            ],
        );
        let text = filled.to_string();
        assert!(!text.contains("{{"), "{text}");
        let sampler = filled.as_object().unwrap().values().find(|n| n["class_type"] == "KSampler").unwrap();
        assert_eq!(sampler["inputs"]["seed"], json!(42));
        assert_eq!(sampler["inputs"]["cfg"], json!(7.5));
        let latent = filled.as_object().unwrap().values().find(|n| n["class_type"] == "EmptyLatentImage").unwrap();
        assert_eq!((latent["inputs"]["width"].clone(), latent["inputs"]["height"].clone()), (json!(512), json!(768)));
    }

    #[test]
    fn placeholders_inside_text_are_replaced_as_text() {
        let filled = fill(
            &json!({"a": "masterpiece, {{prompt}}", "b": "{{seed}}", "c": ["{{width}}x{{height}}"]}),
            &[("prompt", json!("a dog")), ("seed", json!(7)), ("width", json!(64)), ("height", json!(32))],
        );
        assert_eq!(filled, json!({"a": "masterpiece, a dog", "b": 7, "c": ["64x32"]}));
    }

    #[test]
    fn a_workflow_without_placeholders_is_refused() {
        assert!(matches!(check_workflow(&json!({"1": {"inputs": {"text": "fixed"}}})), Err(AiError::BadRequest(_))));
        assert!(matches!(
            check_workflow(&json!(["{{prompt}}", "{{seed}}", "{{width}}", "{{height}}"])),
            Err(AiError::BadRequest(_))
        ));
    }

    #[test]
    fn history_outputs_and_errors_are_read() {
        let done = json!({"outputs": {"9": {"images": [{"filename": "amora_00001_.png", "subfolder": "", "type": "output"}]}},
            "status": {"status_str": "success", "completed": true, "messages": []}});
        assert_eq!(first_output(&done), Some(("amora_00001_.png".into(), String::new(), "output".into())));
        assert_eq!(execution_error(&done), None);
        let failed = json!({"outputs": {}, "status": {"status_str": "error", "completed": false,
            "messages": [["execution_start", {}], ["execution_error", {"node_type": "CheckpointLoaderSimple", "exception_message": "ckpt not found\n"}]]}});
        assert_eq!(execution_error(&failed).as_deref(), Some("ckpt not found in node CheckpointLoaderSimple"));
    }
}
