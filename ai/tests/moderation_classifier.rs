//! Moderation's second layer against loopback servers that follow each published API:
//! OpenAI's `POST /v1/moderations` (bearer key, `{model, input}`, `results[].categories`
//! and `category_scores`, `{error: {message, type, param, code}}` with 401, 429 and 500)
//! and a Llama Guard model behind an OpenAI-compatible `POST /v1/chat/completions`
//! (answering `safe`, or `unsafe` and a line of categories, as the model card writes it).
//! The fake models flag texts by markers, so each test knows what the service will say and
//! checks what the classifier makes of it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use amora_ai::AiError;
use amora_ai::moderation::{self, Classifier, ClassifierKind, ClassifierSettings, OnError};
use amora_domain::moderation::{Policy, Refusal};
use serde_json::{Map, Value, json};

const KEY: &str = "sk-test-moderation";

/// How a fake service behaves on the next calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    /// 429 (OpenAI's rate limit) or 503 (llama-server still loading its model).
    Busy,
    /// 500 with OpenAI's server-error body.
    Broken,
    /// Answers only after 2 s.
    Slow,
    /// 200 with a body that is not JSON.
    Garbage,
    /// OpenAI: 200 with results that lack `sexual/minors` (a look-alike service with its
    /// own categories). Llama Guard: a chat model's prose instead of a verdict.
    Foreign,
}

#[derive(Default)]
struct Seen {
    bodies: Vec<Value>,
    authorization: Vec<Option<String>>,
}

struct Fake {
    mode: Mutex<Mode>,
    seen: Mutex<Seen>,
}

type Shared = web::Data<Arc<Fake>>;

fn fake() -> Arc<Fake> {
    Arc::new(Fake { mode: Mutex::new(Mode::Normal), seen: Mutex::new(Seen::default()) })
}

fn set_mode(fake: &Fake, mode: Mode) {
    *fake.mode.lock().unwrap() = mode;
}

fn calls(fake: &Fake) -> usize {
    fake.seen.lock().unwrap().bodies.len()
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
    format!("http://127.0.0.1:{port}/v1")
}

/// Records the request; returns the mode to answer in.
fn record(fake: &Fake, http: &HttpRequest, body: &Value) -> Mode {
    let authorization = http.headers().get("authorization").and_then(|value| value.to_str().ok()).map(str::to_owned);
    let mut seen = fake.seen.lock().unwrap();
    seen.bodies.push(body.clone());
    seen.authorization.push(authorization);
    *fake.mode.lock().unwrap()
}

fn openai_error(message: &str, kind: &str, param: Value, code: Value) -> Value {
    json!({"error": {"message": message, "type": kind, "param": param, "code": code}})
}

// ---------------------------------------------------------------------------
// OpenAI's moderation endpoint
// ---------------------------------------------------------------------------

/// The categories of `omni-moderation-latest`.
const CATEGORIES: [&str; 13] = [
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/instructions",
    "self-harm/intent",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
];

/// What the fake model finds in one input: `<minor>` is sexual content with a minor,
/// `<adult>` sexual content between adults, `<borderline>` adult content whose
/// `sexual/minors` score is 0.35 (under OpenAI's own threshold), `<violent>` violence.
fn moderate(text: &str) -> Value {
    let mut scores: Vec<(&str, f64)> = CATEGORIES.iter().map(|c| (*c, 0.0001)).collect();
    let mut set = |category: &str, score: f64| {
        if let Some(entry) = scores.iter_mut().find(|(c, _)| *c == category) {
            entry.1 = score;
        }
    };
    if text.contains("<minor>") {
        set("sexual", 0.96);
        set("sexual/minors", 0.93);
    }
    if text.contains("<adult>") {
        set("sexual", 0.97);
        set("sexual/minors", 0.02);
    }
    if text.contains("<borderline>") {
        set("sexual", 0.9);
        set("sexual/minors", 0.35);
    }
    if text.contains("<violent>") {
        set("violence", 0.88);
    }
    let categories: Map<String, Value> = scores.iter().map(|(c, s)| ((*c).to_owned(), json!(*s >= 0.5))).collect();
    let category_scores: Map<String, Value> = scores.iter().map(|(c, s)| ((*c).to_owned(), json!(s))).collect();
    let applied: Map<String, Value> = CATEGORIES.iter().map(|c| ((*c).to_owned(), json!(["text"]))).collect();
    json!({
        "flagged": scores.iter().any(|(_, s)| *s >= 0.5),
        "categories": categories,
        "category_scores": category_scores,
        "category_applied_input_types": applied,
    })
}

async fn moderations(fake: Shared, http: HttpRequest, body: web::Bytes) -> HttpResponse {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mode = record(&fake, &http, &body);
    let authorization = http.headers().get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("");
    if authorization != format!("Bearer {KEY}") {
        let message = if authorization.is_empty() {
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
        } else {
            "Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys."
        };
        let code = if authorization.is_empty() { Value::Null } else { json!("invalid_api_key") };
        return HttpResponse::Unauthorized().json(openai_error(message, "invalid_request_error", Value::Null, code));
    }
    match mode {
        Mode::Busy => {
            return HttpResponse::TooManyRequests().json(openai_error(
                "Rate limit reached for omni-moderation-latest in organization org-test on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms.",
                "requests",
                Value::Null,
                json!("rate_limit_exceeded"),
            ));
        }
        Mode::Broken => {
            return HttpResponse::InternalServerError().json(openai_error(
                "The server had an error while processing your request. Sorry about that!",
                "server_error",
                Value::Null,
                Value::Null,
            ));
        }
        Mode::Slow => actix_rt::time::sleep(Duration::from_secs(2)).await,
        Mode::Garbage => return HttpResponse::Ok().content_type("application/json").body("<html>502 Bad Gateway"),
        Mode::Normal | Mode::Foreign => {}
    }
    if body["model"].as_str().is_none_or(str::is_empty) && !body["model"].is_null() {
        return HttpResponse::BadRequest().json(openai_error(
            "Invalid value for 'model'.",
            "invalid_request_error",
            json!("model"),
            Value::Null,
        ));
    }
    let inputs: Vec<String> = match &body["input"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) if items.iter().all(Value::is_string) && !items.is_empty() => {
            items.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        _ => {
            return HttpResponse::BadRequest().json(openai_error(
                "'input' is a required property",
                "invalid_request_error",
                json!("input"),
                Value::Null,
            ));
        }
    };
    let results: Vec<Value> = inputs
        .iter()
        .map(|text| {
            let mut result = moderate(text);
            if mode == Mode::Foreign {
                result["categories"].as_object_mut().unwrap().remove("sexual/minors");
                result["category_scores"].as_object_mut().unwrap().remove("sexual/minors");
            }
            result
        })
        .collect();
    HttpResponse::Ok().json(json!({
        "id": "modr-0d9740456c391e43c445bf0f010940c7",
        "model": body["model"].as_str().unwrap_or("omni-moderation-latest"),
        "results": results,
    }))
}

fn openai_routes(config: &mut web::ServiceConfig) {
    config.route("/v1/moderations", web::post().to(moderations));
}

fn openai_settings(base_url: &str) -> ClassifierSettings {
    ClassifierSettings {
        kind: ClassifierKind::Openai,
        base_url: base_url.into(),
        api_key: Some(KEY.into()),
        model: "omni-moderation-latest".into(),
        timeout_ms: 1_000,
        ..ClassifierSettings::default()
    }
}

fn built(settings: &ClassifierSettings) -> Arc<dyn Classifier> {
    moderation::build(settings).unwrap().expect("a classifier is configured")
}

#[actix_rt::test]
async fn openai_refuses_sexual_minors_under_every_policy_and_sends_the_published_request() {
    let fake = fake();
    let url = serve(fake.clone(), openai_routes).await;
    let classifier = built(&openai_settings(&url));
    for policy in Policy::ALL {
        let verdict = classifier.classify(policy, "a scene <minor> in the classroom").await;
        assert_eq!(verdict, Ok(Some(Refusal::Minors)), "{policy:?}");
    }
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.bodies[0], json!({"model": "omni-moderation-latest", "input": "a scene <minor> in the classroom"}));
    assert!(seen.authorization.iter().all(|a| a.as_deref() == Some(&*format!("Bearer {KEY}"))));
}

#[actix_rt::test]
async fn openai_lets_adult_sexual_content_and_other_flagged_categories_pass() {
    let fake = fake();
    let url = serve(fake.clone(), openai_routes).await;
    let classifier = built(&openai_settings(&url));
    // The service flags these (`flagged: true`), but not as sexual/minors.
    for text in ["two adults <adult> in bed", "a duel <violent> at dawn", "a walk on the beach"] {
        for policy in Policy::ALL {
            assert_eq!(classifier.classify(policy, text).await, Ok(None), "{text} under {policy:?}");
        }
    }
    assert_eq!(calls(&fake), 12, "every text was asked");
    // Nothing written is not worth a call.
    assert_eq!(classifier.classify(Policy::Chat, " \n ").await, Ok(None));
    assert_eq!(calls(&fake), 12);
}

#[actix_rt::test]
async fn openai_score_threshold_adds_refusals_below_the_services_own_flag() {
    let fake = fake();
    let url = serve(fake.clone(), openai_routes).await;
    let text = "she looks <borderline> young";
    let flag_only = built(&openai_settings(&url));
    assert_eq!(flag_only.classify(Policy::Image, text).await, Ok(None));
    let strict = built(&ClassifierSettings { score_threshold: Some(0.3), ..openai_settings(&url) });
    assert_eq!(strict.classify(Policy::Image, text).await, Ok(Some(Refusal::Minors)));
    let lax = built(&ClassifierSettings { score_threshold: Some(0.5), ..openai_settings(&url) });
    assert_eq!(lax.classify(Policy::Image, text).await, Ok(None));
    assert_eq!(lax.classify(Policy::Image, "adults <adult> only").await, Ok(None), "0.02 is below 0.5");
}

#[actix_rt::test]
async fn openai_wrong_or_missing_key_is_an_error_with_the_services_message() {
    let fake = fake();
    let url = serve(fake.clone(), openai_routes).await;
    let wrong = built(&ClassifierSettings { api_key: Some("sk-wrong".into()), ..openai_settings(&url) });
    let error = wrong.classify(Policy::Chat, "<minor>").await.unwrap_err();
    assert!(
        matches!(&error, AiError::BadRequest(m) if m.contains("401") && m.contains("Incorrect API key provided")),
        "{error:?}"
    );
    let keyless = built(&ClassifierSettings { api_key: None, ..openai_settings(&url) });
    let error = keyless.classify(Policy::Chat, "hello").await.unwrap_err();
    assert!(matches!(&error, AiError::BadRequest(m) if m.contains("You didn't provide an API key")), "{error:?}");
    assert_eq!(fake.seen.lock().unwrap().authorization[1], None, "no empty bearer is sent");
}

#[actix_rt::test]
async fn openai_rate_limits_and_server_errors_are_errors_with_the_services_message() {
    let fake = fake();
    let url = serve(fake.clone(), openai_routes).await;
    let classifier = built(&openai_settings(&url));
    set_mode(&fake, Mode::Busy);
    let error = classifier.classify(Policy::Image, "a portrait").await.unwrap_err();
    assert!(matches!(&error, AiError::Busy(m) if m.contains("429") && m.contains("Rate limit reached")), "{error:?}");
    assert!(error.is_retryable());
    set_mode(&fake, Mode::Broken);
    let error = classifier.classify(Policy::Image, "a portrait").await.unwrap_err();
    assert!(
        matches!(&error, AiError::Unavailable(m) if m.contains("500") && m.contains("The server had an error")),
        "{error:?}"
    );
    set_mode(&fake, Mode::Normal);
    assert_eq!(classifier.classify(Policy::Image, "a portrait").await, Ok(None), "it recovers");
}

#[actix_rt::test]
async fn openai_time_out_and_unreachable_service_are_unavailable() {
    let fake = fake();
    let url = serve(fake.clone(), openai_routes).await;
    set_mode(&fake, Mode::Slow);
    let classifier = built(&ClassifierSettings { timeout_ms: 300, ..openai_settings(&url) });
    let started = Instant::now();
    let error = classifier.classify(Policy::Chat, "hello").await.unwrap_err();
    assert!(matches!(&error, AiError::Unavailable(m) if m.contains("did not answer in time")), "{error:?}");
    assert!(started.elapsed() < Duration::from_millis(1_500), "gave up after {:?}", started.elapsed());
    // A port nobody listens on.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let nowhere = built(&openai_settings(&format!("http://127.0.0.1:{closed}/v1")));
    let error = nowhere.classify(Policy::Chat, "hello").await.unwrap_err();
    assert!(matches!(&error, AiError::Unavailable(m) if m.contains("cannot connect")), "{error:?}");
}

#[actix_rt::test]
async fn openai_malformed_answers_are_errors() {
    let fake = fake();
    let url = serve(fake.clone(), openai_routes).await;
    let classifier = built(&openai_settings(&url));
    set_mode(&fake, Mode::Garbage);
    let error = classifier.classify(Policy::Chat, "<minor>").await.unwrap_err();
    assert!(matches!(&error, AiError::Internal(m) if m.contains("cannot be read")), "{error:?}");
    // A service without the category must not pass everything as "not flagged".
    set_mode(&fake, Mode::Foreign);
    let error = classifier.classify(Policy::Chat, "<minor>").await.unwrap_err();
    assert!(matches!(&error, AiError::Internal(m) if m.contains("sexual/minors")), "{error:?}");
}

// ---------------------------------------------------------------------------
// Llama Guard behind an OpenAI-compatible chat server
// ---------------------------------------------------------------------------

/// What the fake Llama Guard answers for the last user turn, by marker.
fn guard(text: &str) -> &'static str {
    if text.contains("<S3+S4>") {
        "unsafe\nS3,S4"
    } else if text.contains("<S4>") {
        "unsafe\nS4"
    } else if text.contains("<S3>") {
        "unsafe\nS3"
    } else if text.contains("<S1>") {
        "unsafe\nS1"
    } else if text.contains("<S12>") {
        "unsafe\nS12"
    } else {
        "safe"
    }
}

async fn chat_completions(fake: Shared, http: HttpRequest, body: web::Bytes) -> HttpResponse {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mode = record(&fake, &http, &body);
    match mode {
        // llama-server while its model loads.
        Mode::Busy => {
            return HttpResponse::ServiceUnavailable()
                .json(json!({"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}));
        }
        Mode::Broken => {
            return HttpResponse::InternalServerError()
                .json(json!({"error": {"code": 500, "message": "llama_decode failed", "type": "server_error"}}));
        }
        Mode::Slow => actix_rt::time::sleep(Duration::from_secs(2)).await,
        Mode::Garbage => return HttpResponse::Ok().content_type("application/json").body("{\"choices\": ["),
        Mode::Normal | Mode::Foreign => {}
    }
    let Some(messages) = body["messages"].as_array().filter(|m| !m.is_empty()) else {
        return HttpResponse::BadRequest().json(
            json!({"error": {"code": 400, "message": "'messages' is required", "type": "invalid_request_error"}}),
        );
    };
    let Some(last) = messages.last().filter(|m| m["role"] == "user").and_then(|m| m["content"].as_str()) else {
        return HttpResponse::BadRequest().json(
            json!({"error": {"code": 400, "message": "the last message must be the user's", "type": "invalid_request_error"}}),
        );
    };
    let content = if mode == Mode::Foreign { "I'm sorry, but I can't help with that request." } else { guard(last) };
    HttpResponse::Ok().json(json!({
        "id": "chatcmpl-guard",
        "object": "chat.completion",
        "created": 1_764_300_000,
        "model": body["model"],
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 220, "completion_tokens": 4, "total_tokens": 224},
    }))
}

fn guard_routes(config: &mut web::ServiceConfig) {
    config.route("/v1/chat/completions", web::post().to(chat_completions));
}

fn guard_settings(base_url: &str) -> ClassifierSettings {
    ClassifierSettings {
        kind: ClassifierKind::LlamaGuard,
        base_url: base_url.into(),
        api_key: None,
        model: "llama-guard3:8b".into(),
        timeout_ms: 1_000,
        ..ClassifierSettings::default()
    }
}

#[actix_rt::test]
async fn llama_guard_s4_refuses_as_minors_under_every_policy_from_one_user_turn_at_temperature_0() {
    let fake = fake();
    let url = serve(fake.clone(), guard_routes).await;
    let classifier = built(&ClassifierSettings { api_key: Some("local-key".into()), ..guard_settings(&url) });
    for policy in Policy::ALL {
        assert_eq!(classifier.classify(policy, "she is <S4> in class").await, Ok(Some(Refusal::Minors)), "{policy:?}");
    }
    let seen = fake.seen.lock().unwrap();
    let body = &seen.bodies[0];
    assert_eq!(body["model"], "llama-guard3:8b");
    assert_eq!(body["messages"], json!([{"role": "user", "content": "she is <S4> in class"}]));
    assert_eq!(body["temperature"], 0);
    assert_eq!(body["stream"], false);
    assert!(body["max_tokens"].as_u64().is_some_and(|n| (8..=64).contains(&n)), "{body}");
    assert_eq!(seen.authorization[0].as_deref(), Some("Bearer local-key"));
}

#[actix_rt::test]
async fn llama_guard_s3_refuses_as_non_consent_and_other_categories_pass() {
    let fake = fake();
    let url = serve(fake.clone(), guard_routes).await;
    let classifier = built(&guard_settings(&url));
    let cases = [
        ("a plain hello", None),
        ("two adults, explicit <S12>", None),
        ("a bar fight <S1>", None),
        ("forced <S3>", Some(Refusal::NonConsent)),
        ("both <S3+S4>", Some(Refusal::Minors)),
    ];
    for (text, expected) in cases {
        assert_eq!(classifier.classify(Policy::Chat, text).await, Ok(expected), "{text}");
    }
    assert!(fake.seen.lock().unwrap().authorization.iter().all(Option::is_none), "no key configured, none sent");
}

#[actix_rt::test]
async fn llama_guard_an_answer_that_is_not_a_verdict_is_an_error() {
    let fake = fake();
    let url = serve(fake.clone(), guard_routes).await;
    let classifier = built(&guard_settings(&url));
    // A chat model, or a server that does not apply Llama Guard's template.
    set_mode(&fake, Mode::Foreign);
    let error = classifier.classify(Policy::Image, "<S4>").await.unwrap_err();
    assert!(matches!(&error, AiError::Internal(m) if m.contains("not Llama Guard's")), "{error:?}");
    set_mode(&fake, Mode::Garbage);
    let error = classifier.classify(Policy::Image, "<S4>").await.unwrap_err();
    assert!(matches!(&error, AiError::Internal(_)), "{error:?}");
}

#[actix_rt::test]
async fn llama_guard_busy_broken_and_slow_servers_are_errors() {
    let fake = fake();
    let url = serve(fake.clone(), guard_routes).await;
    let classifier = built(&ClassifierSettings { timeout_ms: 300, ..guard_settings(&url) });
    set_mode(&fake, Mode::Busy);
    let error = classifier.classify(Policy::Chat, "hi").await.unwrap_err();
    assert!(matches!(&error, AiError::Busy(m) if m.contains("Loading model")), "{error:?}");
    set_mode(&fake, Mode::Broken);
    let error = classifier.classify(Policy::Chat, "hi").await.unwrap_err();
    assert!(matches!(&error, AiError::Unavailable(m) if m.contains("llama_decode failed")), "{error:?}");
    set_mode(&fake, Mode::Slow);
    let error = classifier.classify(Policy::Chat, "hi").await.unwrap_err();
    assert!(matches!(&error, AiError::Unavailable(m) if m.contains("did not answer in time")), "{error:?}");
}

// ---------------------------------------------------------------------------
// on_error
// ---------------------------------------------------------------------------

#[actix_rt::test]
async fn on_error_allow_lets_an_unanswered_check_pass_but_never_a_verdict() {
    let fake = fake();
    let url = serve(fake.clone(), guard_routes).await;
    let refuse = built(&ClassifierSettings { timeout_ms: 300, ..guard_settings(&url) });
    let allow = built(&ClassifierSettings { timeout_ms: 300, on_error: OnError::Allow, ..guard_settings(&url) });
    assert_eq!(allow.classify(Policy::Image, "<S4>").await, Ok(Some(Refusal::Minors)), "a verdict stands");
    set_mode(&fake, Mode::Slow);
    assert!(refuse.classify(Policy::Image, "<S4>").await.is_err(), "refuse: the caller sees the failure");
    assert_eq!(allow.classify(Policy::Image, "<S4>").await, Ok(None), "allow: the rules alone decide");
    set_mode(&fake, Mode::Foreign);
    assert!(refuse.classify(Policy::Image, "<S4>").await.is_err());
    assert_eq!(allow.classify(Policy::Image, "<S4>").await, Ok(None));
}
