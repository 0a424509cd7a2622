//! The HTTP image backends against small loopback servers that follow each service's
//! published API (SD WebUI's `/sdapi/v1`, ComfyUI's `/prompt`, `/queue`, `/history`,
//! `/view`, OpenAI's `/v1/images/generations`) and answer real PNG bytes, drawn by the
//! illustrator at the size asked. They check what the backend sends as the service would
//! and fail it the way the service fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use amora_ai::AiError;
use amora_ai::image::illustrator::{compose_svg, output_size, render_png};
use amora_ai::image::{self, ImageBackend, ImageModelSettings, ImageRequest, Subject};
use base64::Engine;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// How a fake service behaves on the next calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    /// 503 (SD WebUI, ComfyUI) or 429 (OpenAI).
    Busy,
    /// Answers only after 3 s.
    Slow,
}

#[derive(Default)]
struct Seen {
    bodies: Vec<Value>,
    started: Option<Instant>,
    history_polls: usize,
    queue_polls: usize,
    progress_polls: usize,
    authorization: Vec<String>,
}

struct Fake {
    mode: Mutex<Mode>,
    seen: Mutex<Seen>,
    /// How long one image takes.
    draw_time: Duration,
}

type Shared = web::Data<Arc<Fake>>;

fn fake(draw_ms: u64) -> Arc<Fake> {
    Arc::new(Fake {
        mode: Mutex::new(Mode::Normal),
        seen: Mutex::new(Seen::default()),
        draw_time: Duration::from_millis(draw_ms),
    })
}

fn set_mode(fake: &Fake, mode: Mode) {
    *fake.mode.lock().unwrap() = mode;
}

fn png(seed: u64, width: u32, height: u32) -> Vec<u8> {
    let request = ImageRequest {
        prompt: "a test picture".into(),
        negative_prompt: String::new(),
        seed,
        width,
        height,
        subject: Some(Subject { gender: 0, look: [1, 2, 3, 1, 4, 0] }),
        scene: Some("park".into()),
        outfit: None,
        pose: None,
        style: None,
        nsfw: false,
        variant: 0,
    };
    // The illustrator caps its own output at 1536; a service may answer larger (DALL-E's
    // 1792), so the drawing is rendered at exactly the size asked.
    let (drawn_w, drawn_h) = output_size(width, height);
    let svg = compose_svg(&request).replacen(
        &format!(r#"width="{drawn_w}" height="{drawn_h}""#),
        &format!(r#"width="{width}" height="{height}""#),
        1,
    );
    render_png(&svg).unwrap()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&png[16..20]), be(&png[20..24]))
}

fn request(width: u32, height: u32) -> ImageRequest {
    ImageRequest {
        prompt: "a young woman with fair skin, long wavy dark brown hair, on a sunny beach".into(),
        negative_prompt: "blurry, extra fingers".into(),
        seed: 1_234_567,
        width,
        height,
        subject: Some(Subject { gender: 0, look: [1, 1, 1, 2, 2, 1] }),
        scene: Some("beach".into()),
        outfit: None,
        pose: None,
        style: Some("photo".into()),
        nsfw: false,
        variant: 0,
    }
}

async fn serve<F>(fake: Arc<Fake>, routes: F) -> String
where
    F: Fn(&mut web::ServiceConfig) + Send + Clone + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = HttpServer::new(move || App::new().app_data(web::Data::new(fake.clone())).configure(routes.clone()))
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
    actix_rt::spawn(server);
    format!("http://127.0.0.1:{port}")
}

/// Before an answer: what the mode asks for (a refusal, or a long wait).
async fn misbehave(fake: &Fake, busy: HttpResponse) -> Option<HttpResponse> {
    let mode = *fake.mode.lock().unwrap();
    match mode {
        Mode::Normal => None,
        Mode::Busy => Some(busy),
        Mode::Slow => {
            actix_rt::time::sleep(Duration::from_secs(3)).await;
            None
        }
    }
}

// ---------------------------------------------------------------------------
// Stable Diffusion WebUI
// ---------------------------------------------------------------------------

async fn sd_txt2img(fake: Shared, body: web::Json<Value>, http: HttpRequest) -> HttpResponse {
    let busy = HttpResponse::ServiceUnavailable().json(json!({"error": "HTTPException", "detail": "Queue is full"}));
    if let Some(response) = misbehave(&fake, busy).await {
        return response;
    }
    let body = body.into_inner();
    // FastAPI validation: wrong types are 422 with a `detail` list.
    let int = |k: &str| body[k].as_u64();
    let (Some(width), Some(height), Some(steps), Some(seed)) =
        (int("width"), int("height"), int("steps"), body["seed"].as_i64())
    else {
        return HttpResponse::UnprocessableEntity().json(
            json!({"detail": [{"loc": ["body"], "msg": "value is not a valid integer", "type": "type_error.integer"}]}),
        );
    };
    if body["sampler_name"] == "No Such Sampler" {
        return HttpResponse::NotFound().json(json!({"error": "HTTPException", "detail": "Sampler not found"}));
    }
    if body["batch_size"] != 1
        || !body["prompt"].is_string()
        || !body["cfg_scale"].is_number()
        || width % 8 != 0
        || height % 8 != 0
    {
        return HttpResponse::BadRequest().json(json!({"error": "ValueError", "detail": "bad parameters"}));
    }
    {
        let mut seen = fake.seen.lock().unwrap();
        seen.bodies.push(body.clone());
        seen.started = Some(Instant::now());
        if let Some(auth) = http.headers().get("authorization") {
            seen.authorization.push(auth.to_str().unwrap().to_owned());
        }
    }
    actix_rt::time::sleep(fake.draw_time).await;
    fake.seen.lock().unwrap().started = None;
    let image = png(seed as u64, width as u32, height as u32);
    HttpResponse::Ok().json(json!({
        "images": [b64(&image)],
        "parameters": body,
        "info": json!({"seed": seed, "steps": steps}).to_string(),
    }))
}

async fn sd_progress(fake: Shared) -> HttpResponse {
    let mut seen = fake.seen.lock().unwrap();
    seen.progress_polls += 1;
    let progress = seen.started.map_or(0.0, |t| (t.elapsed().as_secs_f64() / fake.draw_time.as_secs_f64()).min(0.95));
    HttpResponse::Ok().json(json!({
        "progress": progress,
        "eta_relative": 1.0 - progress,
        "state": {"skipped": false, "interrupted": false, "job": "", "job_count": i32::from(seen.started.is_some()), "sampling_step": 0, "sampling_steps": 25},
        "current_image": null,
        "textinfo": null,
    }))
}

fn sd_routes(config: &mut web::ServiceConfig) {
    config
        .route("/sdapi/v1/txt2img", web::post().to(sd_txt2img))
        .route("/sdapi/v1/progress", web::get().to(sd_progress));
}

fn sd_settings(base_url: &str) -> ImageModelSettings {
    let mut settings = ImageModelSettings { backend: ImageBackend::Sdwebui, ..Default::default() };
    settings.sdwebui.base_url = base_url.into();
    settings.sdwebui.progress_interval_ms = 100;
    settings.sdwebui.timeout_secs = 10;
    settings
}

#[actix_rt::test]
async fn sd_webui_draws_a_png_and_reports_progress() {
    let fake = fake(900);
    let base = serve(fake.clone(), sd_routes).await;
    let mut settings = sd_settings(&base);
    settings.sdwebui.auth = Some("amora:secret".into());
    settings.sdwebui.checkpoint = Some("realisticVision.safetensors".into());
    let model = image::build(&settings).unwrap();
    assert_eq!(model.info().backend, "sdwebui");
    assert!(!model.info().illustration);

    let (tx, mut rx) = mpsc::unbounded_channel();
    let image = model.generate(request(768, 1024), tx).await.unwrap();
    assert_eq!((image.content_type.as_str(), image.width, image.height), ("image/png", 768, 1024));
    assert_eq!(png_size(&image.bytes), (768, 1024));
    assert_eq!(image.bytes, png(1_234_567, 768, 1024), "the service's bytes, untouched");

    let mut reports = Vec::new();
    while let Ok(p) = rx.try_recv() {
        reports.push(p);
    }
    assert!(reports.len() >= 3, "progress while drawing: {reports:?}");
    assert!(reports.windows(2).all(|w| w[0] < w[1]), "rising: {reports:?}");
    assert_eq!(reports.last(), Some(&1.0));
    assert!(reports.iter().any(|p| *p > 0.0 && *p < 1.0));

    let seen = fake.seen.lock().unwrap();
    let body = &seen.bodies[0];
    assert_eq!(body["prompt"], request(0, 0).prompt);
    assert_eq!(body["negative_prompt"], "blurry, extra fingers");
    assert_eq!(body["seed"], 1_234_567);
    assert_eq!(
        (body["steps"].clone(), body["cfg_scale"].clone(), body["sampler_name"].clone()),
        (json!(25), json!(7.0), json!("DPM++ 2M"))
    );
    assert_eq!(body["override_settings"]["sd_model_checkpoint"], "realisticVision.safetensors");
    assert_eq!(seen.authorization, vec![format!("Basic {}", b64(b"amora:secret"))]);
    assert!(seen.progress_polls >= 3);
}

#[actix_rt::test]
async fn sd_webui_sizes_are_multiples_of_8_within_the_cap() {
    let fake = fake(10);
    let base = serve(fake.clone(), sd_routes).await;
    let model = image::build(&sd_settings(&base)).unwrap();
    let (tx, _rx) = mpsc::unbounded_channel();
    let image = model.generate(request(500, 4000), tx).await.unwrap();
    assert_eq!((image.width, image.height), (496, 1536));
    assert_eq!(png_size(&image.bytes), (496, 1536));
}

#[actix_rt::test]
async fn sd_webui_failures_map_to_clear_errors() {
    let fake = fake(10);
    let base = serve(fake.clone(), sd_routes).await;
    let (tx, _rx) = mpsc::unbounded_channel();

    let mut settings = sd_settings(&base);
    settings.sdwebui.sampler = "No Such Sampler".into();
    let refused = image::build(&settings).unwrap().generate(request(512, 512), tx.clone()).await;
    assert!(matches!(&refused, Err(AiError::BadRequest(m)) if m.contains("Sampler not found")), "{refused:?}");

    set_mode(&fake, Mode::Busy);
    let busy = image::build(&sd_settings(&base)).unwrap().generate(request(512, 512), tx.clone()).await;
    assert!(matches!(&busy, Err(AiError::Busy(m)) if m.contains("Queue is full")), "{busy:?}");

    set_mode(&fake, Mode::Slow);
    let mut impatient = sd_settings(&base);
    impatient.sdwebui.timeout_secs = 1;
    let started = Instant::now();
    let slow = image::build(&impatient).unwrap().generate(request(512, 512), tx.clone()).await;
    assert!(matches!(&slow, Err(AiError::Unavailable(m)) if m.contains("in time")), "{slow:?}");
    assert!(started.elapsed() < Duration::from_millis(2_500), "gave up after the time-out");

    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let nobody = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let unreachable = image::build(&sd_settings(&nobody)).unwrap().generate(request(512, 512), tx).await;
    assert!(matches!(&unreachable, Err(AiError::Unavailable(m)) if m.contains("cannot connect")), "{unreachable:?}");
}

// ---------------------------------------------------------------------------
// ComfyUI
// ---------------------------------------------------------------------------

const COMFY_FILE: &str = "amora_00001_.png";

/// ComfyUI's validation, in short: every node has a class and inputs, links point at
/// nodes that exist, numbers are numbers.
fn comfy_invalid(prompt: &Value) -> Option<String> {
    let nodes = prompt.as_object()?;
    for (id, node) in nodes {
        let Some(class) = node["class_type"].as_str() else { return Some(format!("node {id} has no class_type")) };
        for (name, input) in node["inputs"].as_object()? {
            if let Some(link) = input.as_array()
                && !nodes.contains_key(link[0].as_str().unwrap_or(""))
            {
                return Some(format!("{class}.{name} links to a missing node"));
            }
            if input.as_str().is_some_and(|s| s.contains("{{")) {
                return Some(format!("{class}.{name} still holds a placeholder"));
            }
        }
        let numbers: &[&str] = match class {
            "KSampler" => &["seed", "steps", "cfg"],
            "EmptyLatentImage" => &["width", "height", "batch_size"],
            _ => &[],
        };
        if let Some(bad) = numbers.iter().find(|n| !node["inputs"][**n].is_number()) {
            return Some(format!("{class}.{bad} is not a number"));
        }
    }
    None
}

async fn comfy_prompt(fake: Shared, body: web::Json<Value>) -> HttpResponse {
    let busy = HttpResponse::ServiceUnavailable().body("Service Unavailable");
    if let Some(response) = misbehave(&fake, busy).await {
        return response;
    }
    let body = body.into_inner();
    if let Some(message) = comfy_invalid(&body["prompt"]) {
        return HttpResponse::BadRequest().json(json!({
            "error": {"type": "prompt_outputs_failed_validation", "message": "Prompt outputs failed validation", "details": message, "extra_info": {}},
            "node_errors": {},
        }));
    }
    let mut seen = fake.seen.lock().unwrap();
    seen.bodies.push(body);
    seen.started = Some(Instant::now());
    HttpResponse::Ok().json(
        json!({"prompt_id": "3f2a9c1e-0d4b-4e0a-9b1c-5d6e7f809a1b", "number": seen.bodies.len(), "node_errors": {}}),
    )
}

fn comfy_state(fake: &Fake) -> (bool, bool) {
    let seen = fake.seen.lock().unwrap();
    let started = seen.started.map(|t| t.elapsed());
    let running = started.is_some_and(|e| e >= fake.draw_time / 3);
    let done = started.is_some_and(|e| e >= fake.draw_time);
    (running, done)
}

async fn comfy_queue(fake: Shared) -> HttpResponse {
    fake.seen.lock().unwrap().queue_polls += 1;
    let (running, done) = comfy_state(&fake);
    let item = json!([1, "3f2a9c1e-0d4b-4e0a-9b1c-5d6e7f809a1b", {}, {"client_id": "x"}, ["9"]]);
    let (running, pending) = match (running, done) {
        (_, true) => (vec![], vec![]),
        (true, false) => (vec![item], vec![]),
        (false, false) => (vec![], vec![item]),
    };
    HttpResponse::Ok().json(json!({"queue_running": running, "queue_pending": pending}))
}

async fn comfy_history(fake: Shared, id: web::Path<String>) -> HttpResponse {
    fake.seen.lock().unwrap().history_polls += 1;
    let (_, done) = comfy_state(&fake);
    if !done || id.as_str() != "3f2a9c1e-0d4b-4e0a-9b1c-5d6e7f809a1b" {
        return HttpResponse::Ok().json(json!({}));
    }
    let prompt = fake.seen.lock().unwrap().bodies.last().cloned().unwrap_or_default();
    if prompt.to_string().contains("missing.safetensors") {
        return HttpResponse::Ok().json(json!({ id.as_str(): {
            "prompt": [1, id.as_str(), prompt["prompt"], {}, ["9"]],
            "outputs": {},
            "status": {"status_str": "error", "completed": false, "messages": [
                ["execution_start", {"prompt_id": id.as_str()}],
                ["execution_error", {"prompt_id": id.as_str(), "node_id": "4", "node_type": "CheckpointLoaderSimple",
                    "exception_message": "Value not in list: ckpt_name: 'missing.safetensors'", "exception_type": "ValueError"}]]},
        }}));
    }
    HttpResponse::Ok().json(json!({ id.as_str(): {
        "prompt": [1, id.as_str(), prompt["prompt"], {"client_id": prompt["client_id"]}, ["9"]],
        "outputs": {"9": {"images": [{"filename": COMFY_FILE, "subfolder": "", "type": "output"}]}},
        "status": {"status_str": "success", "completed": true, "messages": []},
    }}))
}

async fn comfy_view(fake: Shared, query: web::Query<std::collections::HashMap<String, String>>) -> HttpResponse {
    if query.get("filename").map(String::as_str) != Some(COMFY_FILE)
        || query.get("type").map(String::as_str) != Some("output")
    {
        return HttpResponse::NotFound().finish();
    }
    let prompt = fake.seen.lock().unwrap().bodies.last().cloned().unwrap_or_default();
    let node = |class: &str| {
        prompt["prompt"].as_object().unwrap().values().find(|n| n["class_type"] == class).cloned().unwrap()
    };
    let latent = node("EmptyLatentImage");
    let seed = node("KSampler")["inputs"]["seed"].as_u64().unwrap();
    let (w, h) =
        (latent["inputs"]["width"].as_u64().unwrap() as u32, latent["inputs"]["height"].as_u64().unwrap() as u32);
    HttpResponse::Ok().content_type("image/png").body(png(seed, w, h))
}

fn comfy_routes(config: &mut web::ServiceConfig) {
    config
        .route("/prompt", web::post().to(comfy_prompt))
        .route("/queue", web::get().to(comfy_queue))
        .route("/history/{id}", web::get().to(comfy_history))
        .route("/view", web::get().to(comfy_view));
}

fn comfy_settings(base_url: &str) -> ImageModelSettings {
    let mut settings = ImageModelSettings { backend: ImageBackend::Comfyui, ..Default::default() };
    settings.comfyui.base_url = base_url.into();
    settings.comfyui.poll_interval_ms = 50;
    settings.comfyui.timeout_secs = 10;
    settings
}

#[actix_rt::test]
async fn comfyui_queues_the_filled_workflow_follows_it_and_fetches_the_output() {
    let fake = fake(600);
    let base = serve(fake.clone(), comfy_routes).await;
    let model = image::build(&comfy_settings(&base)).unwrap();
    assert_eq!(model.info().backend, "comfyui");

    let (tx, mut rx) = mpsc::unbounded_channel();
    let image = model.generate(request(768, 1024), tx).await.unwrap();
    assert_eq!((image.content_type.as_str(), image.width, image.height), ("image/png", 768, 1024));
    assert_eq!(image.bytes, png(1_234_567, 768, 1024));
    let mut reports = Vec::new();
    while let Ok(p) = rx.try_recv() {
        reports.push(p);
    }
    assert_eq!(reports, vec![0.05, 0.5, 1.0], "queued, running, done");

    let seen = fake.seen.lock().unwrap();
    let prompt = &seen.bodies[0]["prompt"];
    assert!(seen.bodies[0]["client_id"].as_str().is_some_and(|c| c.starts_with("amora-")));
    assert_eq!(prompt["6"]["inputs"]["text"], request(0, 0).prompt);
    assert_eq!(prompt["7"]["inputs"]["text"], "blurry, extra fingers");
    assert_eq!(prompt["4"]["inputs"]["ckpt_name"], "v1-5-pruned-emaonly.safetensors");
    assert_eq!(prompt["3"]["inputs"]["sampler_name"], "euler");
    assert!(seen.history_polls >= 3 && seen.queue_polls >= 1);
}

#[actix_rt::test]
async fn comfyui_uses_a_workflow_file_and_reports_its_failures() {
    let fake = fake(100);
    let base = serve(fake.clone(), comfy_routes).await;
    let (tx, _rx) = mpsc::unbounded_channel();

    // A custom workflow whose prompt node wraps the words.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flow.json");
    let flow = image::DEFAULT_COMFYUI_WORKFLOW.replace("\"{{prompt}}\"", "\"masterpiece, {{prompt}}\"");
    std::fs::write(&path, flow).unwrap();
    let mut settings = comfy_settings(&base);
    settings.comfyui.workflow_path = Some(path.clone());
    image::build(&settings).unwrap().generate(request(512, 512), tx.clone()).await.unwrap();
    let text = fake.seen.lock().unwrap().bodies[0]["prompt"]["6"]["inputs"]["text"].clone();
    assert_eq!(text, format!("masterpiece, {}", request(0, 0).prompt));

    // A workflow that lost its placeholders is refused at build time.
    std::fs::write(&path, r#"{"1": {"class_type": "KSampler", "inputs": {}}}"#).unwrap();
    assert!(matches!(image::build(&settings), Err(AiError::BadRequest(m)) if m.contains("{{prompt}}")));
    settings.comfyui.workflow_path = Some(dir.path().join("missing.json"));
    assert!(matches!(image::build(&settings), Err(AiError::BadRequest(m)) if m.contains("cannot read")));

    // ComfyUI's validation refusal carries its message.
    let mut bad = comfy_settings(&base);
    bad.comfyui.workflow_path = Some(path.clone());
    std::fs::write(&path, r#"{"3": {"class_type": "KSampler", "inputs": {"seed": "{{seed}}", "steps": 20, "cfg": 7, "model": ["99", 0], "positive": "{{prompt}}"}},
        "5": {"class_type": "EmptyLatentImage", "inputs": {"width": "{{width}}", "height": "{{height}}", "batch_size": 1}}}"#)
    .unwrap();
    let refused = image::build(&bad).unwrap().generate(request(512, 512), tx.clone()).await;
    assert!(matches!(&refused, Err(AiError::BadRequest(m)) if m.contains("links to a missing node")), "{refused:?}");

    // A run that fails (a checkpoint ComfyUI does not have).
    let mut missing = comfy_settings(&base);
    missing.comfyui.checkpoint = "missing.safetensors".into();
    let failed = image::build(&missing).unwrap().generate(request(512, 512), tx.clone()).await;
    assert!(matches!(&failed, Err(AiError::Internal(m)) if m.contains("Value not in list")), "{failed:?}");

    set_mode(&fake, Mode::Busy);
    let busy = image::build(&comfy_settings(&base)).unwrap().generate(request(512, 512), tx.clone()).await;
    assert!(matches!(busy, Err(AiError::Busy(_))), "{busy:?}");

    set_mode(&fake, Mode::Slow);
    let mut impatient = comfy_settings(&base);
    impatient.comfyui.timeout_secs = 1;
    let slow = image::build(&impatient).unwrap().generate(request(512, 512), tx).await;
    assert!(matches!(slow, Err(AiError::Unavailable(_))), "{slow:?}");
}

// ---------------------------------------------------------------------------
// OpenAI-compatible images
// ---------------------------------------------------------------------------

async fn openai_generate(fake: Shared, body: web::Json<Value>, http: HttpRequest) -> HttpResponse {
    let error = |status: actix_web::http::StatusCode, message: &str, kind: &str, code: &str| {
        HttpResponse::build(status)
            .json(json!({"error": {"message": message, "type": kind, "param": null, "code": code}}))
    };
    let busy = error(
        actix_web::http::StatusCode::TOO_MANY_REQUESTS,
        "Rate limit reached for images per minute",
        "requests",
        "rate_limit_exceeded",
    );
    if let Some(response) = misbehave(&fake, busy).await {
        return response;
    }
    if http.headers().get("authorization").and_then(|v| v.to_str().ok()) != Some("Bearer sk-test") {
        return error(
            actix_web::http::StatusCode::UNAUTHORIZED,
            "Incorrect API key provided",
            "invalid_request_error",
            "invalid_api_key",
        );
    }
    let body = body.into_inner();
    let size = body["size"]
        .as_str()
        .and_then(|s| s.split_once('x'))
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)));
    let Some((width, height)) = size else {
        return error(
            actix_web::http::StatusCode::BAD_REQUEST,
            "Invalid size",
            "invalid_request_error",
            "invalid_value",
        );
    };
    if body["n"] != 1 || body["response_format"] != "b64_json" || !body["model"].is_string() {
        return error(
            actix_web::http::StatusCode::BAD_REQUEST,
            "Invalid parameters",
            "invalid_request_error",
            "invalid_value",
        );
    }
    if body["prompt"].as_str().is_some_and(|p| p.contains("forbidden")) {
        return error(
            actix_web::http::StatusCode::BAD_REQUEST,
            "Your request was rejected as a result of our safety system.",
            "image_generation_user_error",
            "content_policy_violation",
        );
    }
    fake.seen.lock().unwrap().bodies.push(body.clone());
    HttpResponse::Ok().json(json!({"created": 1_763_900_000, "data": [{"b64_json": b64(&png(7, width, height)), "revised_prompt": body["prompt"]}]}))
}

fn openai_routes(config: &mut web::ServiceConfig) {
    config.route("/v1/images/generations", web::post().to(openai_generate));
}

fn openai_settings(base_url: &str) -> ImageModelSettings {
    let mut settings = ImageModelSettings { backend: ImageBackend::Openai, ..Default::default() };
    settings.openai.base_url = format!("{base_url}/v1");
    settings.openai.api_key = Some("sk-test".into());
    settings.openai.timeout_secs = 10;
    settings
}

#[actix_rt::test]
async fn openai_images_answer_b64_json_at_the_nearest_allowed_size() {
    let fake = fake(10);
    let base = serve(fake.clone(), openai_routes).await;
    let model = image::build(&openai_settings(&base)).unwrap();
    assert_eq!(model.info().backend, "openai");
    let (tx, _rx) = mpsc::unbounded_channel();
    let image = model.generate(request(768, 1024), tx.clone()).await.unwrap();
    assert_eq!((image.width, image.height), (1024, 1792));
    assert_eq!(image.bytes, png(7, 1024, 1792));
    let body = fake.seen.lock().unwrap().bodies[0].clone();
    assert_eq!(body["model"], "dall-e-3");
    assert_eq!(body["size"], "1024x1792");
    assert_eq!(body["prompt"], format!("{}. Avoid: blurry, extra fingers", request(0, 0).prompt));

    // A service that takes any size gets the request's own.
    let mut any = openai_settings(&base);
    any.openai.sizes.clear();
    let image = image::build(&any).unwrap().generate(request(640, 480), tx).await.unwrap();
    assert_eq!(png_size(&image.bytes), (640, 480));
}

#[actix_rt::test]
async fn openai_errors_carry_the_services_message() {
    let fake = fake(10);
    let base = serve(fake.clone(), openai_routes).await;
    let (tx, _rx) = mpsc::unbounded_channel();

    let mut forbidden = request(1024, 1024);
    forbidden.prompt.push_str(", forbidden words");
    let refused = image::build(&openai_settings(&base)).unwrap().generate(forbidden, tx.clone()).await;
    assert!(matches!(&refused, Err(AiError::BadRequest(m)) if m.contains("safety system")), "{refused:?}");

    let mut wrong_key = openai_settings(&base);
    wrong_key.openai.api_key = Some("sk-wrong".into());
    let denied = image::build(&wrong_key).unwrap().generate(request(1024, 1024), tx.clone()).await;
    assert!(matches!(&denied, Err(AiError::BadRequest(m)) if m.contains("Incorrect API key")), "{denied:?}");

    set_mode(&fake, Mode::Busy);
    let limited = image::build(&openai_settings(&base)).unwrap().generate(request(1024, 1024), tx.clone()).await;
    assert!(matches!(&limited, Err(AiError::Busy(m)) if m.contains("Rate limit")), "{limited:?}");

    set_mode(&fake, Mode::Slow);
    let mut impatient = openai_settings(&base);
    impatient.openai.timeout_secs = 1;
    let slow = image::build(&impatient).unwrap().generate(request(1024, 1024), tx).await;
    assert!(matches!(slow, Err(AiError::Unavailable(_))), "{slow:?}");
}
