//! Generated images against the real server (issue 16): a job is checked, paid for in one
//! ledger row, made by the image model and delivered over the WebSocket in order, kept in
//! the gallery, shared to the public feed by its rules, deleted with its bytes, and every
//! image that fails, times out or is cancelled is refunded. The embedded illustrator draws
//! the happy paths; a loopback Stable Diffusion WebUI (its published `/sdapi/v1` API) that
//! fails or is slow stands in for a remote backend. Every test runs on SQLite and on the
//! CQL store at `AMORA_CQL_NODE`, and ends with the balance equal to the ledger's sum.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use amora_domain::account::{UserId, UserNo};
use amora_server::settings::Settings;
use amora_store::{NewUser, SessionRecord, UserChange};
use base64::Engine;
use serde_json::{Value, json};

use crate::cluster::{Socket, make_user};
use crate::fakes::loopback;
use crate::helpers::{TestApp, spawn_app_customised};

pub(crate) const OPERATOR: &str = "images-operator-token";
const WAIT: Duration = Duration::from_secs(30);

#[derive(Clone, Copy)]
pub(crate) enum StoreKind {
    Sqlite,
    Cql,
}

/// A server on `kind`'s store, with `customise` applied to its settings.
pub(crate) async fn image_app(kind: StoreKind, customise: impl FnOnce(&mut Settings)) -> TestApp {
    let mut env = vec![("AMORA_ADMIN__TOKEN".to_owned(), OPERATOR.to_owned())];
    if let StoreKind::Cql = kind {
        let node = std::env::var("AMORA_CQL_NODE")
            .expect("AMORA_CQL_NODE is not set: start a CQL server (scripts/lib/cassandra.sh) and export its address");
        let keyspace = format!(
            "images_{}",
            amora_server::auth::random_token().to_lowercase().replace(['-', '_'], "")[..12].to_owned()
        );
        env.extend([
            ("AMORA_STORE__KIND".to_owned(), "scylla".to_owned()),
            ("AMORA_STORE__SCYLLA__NODES".to_owned(), node),
            ("AMORA_STORE__SCYLLA__KEYSPACE".to_owned(), keyspace),
            (
                "AMORA_STORE__SCYLLA__REPLICATION".to_owned(),
                "{'class': 'SimpleStrategy', 'replication_factor': 1}".to_owned(),
            ),
        ]);
    }
    spawn_app_customised(env, customise).await
}

pub(crate) struct Person {
    pub(crate) user_id: UserId,
    pub(crate) user_no: String,
    pub(crate) voucher: String,
}

pub(crate) async fn person(app: &TestApp, name: &str, coins: i64) -> Person {
    let (user_id, user_no, voucher) = make_user(&app.store, name).await;
    if coins > 0 {
        let response = app
            .client
            .post(app.url("/lust/admin/credit"))
            .bearer_auth(OPERATOR)
            .json(&json!({ "user": user_no, "coins": coins, "txnId": format!("grant-{user_no}") }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
    }
    Person { user_id, user_no, voucher }
}

pub(crate) async fn adult_content(app: &TestApp, who: &Person, on: bool) {
    let change = UserChange::Preferences { interested_gender: None, nsfw: Some(on), language: None };
    app.store.users.update(&who.user_id, change).await.unwrap();
}

async fn socket(app: &TestApp, who: &Person) -> Socket {
    let url = format!("{}/lust/api/ws?voucher={}", app.address.replacen("http", "ws", 1), who.voucher);
    let mut socket = Socket { stream: tokio_tungstenite::connect_async(url).await.unwrap().0 };
    socket.wait_for("hello", WAIT).await.expect("hello");
    socket
}

pub(crate) async fn call(app: &TestApp, who: Option<&Person>, path: &str, payload: Value) -> (u64, Value, String) {
    let (envelope, _) = app.post_api_as(who.map(|w| w.voucher.as_str()), path, payload).await;
    (envelope.code, envelope.data, envelope.msg)
}

async fn generate(app: &TestApp, who: &Person, payload: Value) -> (u64, Value, String) {
    call(app, Some(who), "/user/v1/image/generate", payload).await
}

async fn gallery(app: &TestApp, who: &Person, payload: Value) -> Vec<Value> {
    let (code, data, msg) = call(app, Some(who), "/user/v1/image/getGallery", payload).await;
    assert_eq!(code, 200, "{msg}");
    data["images"].as_array().cloned().unwrap_or_default()
}

pub(crate) async fn feed(app: &TestApp, who: Option<&Person>, headers: &[(&str, &str)]) -> Vec<String> {
    let (envelope, _) =
        app.post_api_with(who.map(|w| w.voucher.as_str()), headers, "/user/v1/image/getFeed", json!({})).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    let images = envelope.data["images"].as_array().cloned().unwrap_or_default();
    for image in &images {
        assert!(image.get("userId").is_none() && image.get("user_id").is_none(), "no owner is ever sent: {image}");
    }
    images.iter().map(|image| image["imageId"].as_str().unwrap_or_default().to_owned()).collect()
}

/// Balance = sum of the ledger rows; answers the balance.
async fn ledger_balance(app: &TestApp, who: &Person) -> i64 {
    let rows = app.store.ledger.rows(&who.user_id).await.unwrap();
    let sum: i64 = rows.iter().map(|row| row.delta.units()).sum();
    let balance = app.store.users.by_id(&who.user_id).await.unwrap().unwrap().coin.units();
    assert_eq!(balance, sum, "balance = sum of the ledger rows");
    balance
}

async fn ledger_rows(app: &TestApp, who: &Person) -> Vec<(String, i64)> {
    let rows = app.store.ledger.rows(&who.user_id).await.unwrap();
    rows.iter().map(|row| (row.txn_id.as_str().to_owned(), row.delta.units())).collect()
}

fn ids(data: &Value) -> Vec<String> {
    data["imageIds"].as_array().unwrap().iter().map(|id| id.as_str().unwrap().to_owned()).collect()
}

/// The image events of the given images, in the order they came, until each ended.
async fn image_events(socket: &mut Socket, image_ids: &[String]) -> Vec<Value> {
    let mut events = Vec::new();
    let mut open: Vec<&String> = image_ids.iter().collect();
    while !open.is_empty() {
        let event = socket.next_event(WAIT).await.unwrap_or_else(|| panic!("images {open:?} never ended: {events:?}"));
        let name = event["event"].as_str().unwrap_or_default().to_owned();
        if !name.starts_with("image") {
            continue;
        }
        if name == "imageDone" || name == "imageFailed" {
            open.retain(|id| event["data"]["imageId"] != id.as_str());
        }
        events.push(event);
    }
    events
}

/// Names and image ids of events, progress left out.
fn outline(events: &[Value]) -> Vec<(String, String)> {
    events
        .iter()
        .filter(|e| e["event"] != "imageProgress")
        .map(|e| (e["event"].as_str().unwrap().to_owned(), e["data"]["imageId"].as_str().unwrap().to_owned()))
        .collect()
}

/// The capability address of image `id` (as the API writes ids), as the server makes it:
/// the tests run in the server's process, which holds one key.
fn image_address(id: &str) -> String {
    amora_store::image_media_url(amora_domain::chat::EntryId::from_raw(id.parse().unwrap()))
}

async fn png_at(app: &TestApp, url: &str) -> Option<Vec<u8>> {
    let response = app.client.get(app.url(url)).send().await.unwrap();
    if response.status().as_u16() != 200 {
        return None;
    }
    Some(response.bytes().await.unwrap().to_vec())
}

macro_rules! on_both_stores {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[actix_rt::test]
                async fn $name() {
                    super::$name(super::StoreKind::Sqlite).await;
                }
            )*
        }
        mod cql {
            $(
                #[actix_rt::test]
                async fn $name() {
                    super::$name(super::StoreKind::Cql).await;
                }
            )*
        }
    };
}

on_both_stores!(
    a_job_is_paid_delivered_in_order_and_kept_in_the_gallery,
    bad_or_refused_requests_cost_nothing,
    a_failing_backend_refunds_every_image,
    cancelling_refunds_what_was_not_made_and_jobs_are_limited_per_user,
    shared_images_follow_the_feed_rules_and_deleting_removes_everything,
    the_operator_removes_an_image_from_the_feed_or_by_its_owner,
    a_picture_asked_for_in_chat_is_a_message_of_the_character,
);

async fn a_job_is_paid_delivered_in_order_and_kept_in_the_gallery(kind: StoreKind) {
    let app = image_app(kind, |_| {}).await;
    let ann = person(&app, "Ann", 100).await;
    let mut events = socket(&app, &ann).await;

    let (code, options, msg) = call(&app, None, "/user/v1/image/getImageOptions", json!({})).await;
    assert_eq!(code, 200, "{msg}");
    assert_eq!(options["costPerImage"], 20);
    assert_eq!(options["counts"], json!([1, 2, 4]));
    assert_eq!(options["illustration"], true);
    assert!(
        options["outfits"].as_array().unwrap().iter().all(|p| p["nsfw"] == false),
        "no explicit presets signed out"
    );

    let request = json!({
        "characterId": "gf-001", "scene": "beach", "style": "anime", "prompt": "holding a red umbrella", "count": 2
    });
    let (code, job, msg) = generate(&app, &ann, request).await;
    assert_eq!(code, 200, "{msg}");
    assert_eq!(job["coin"], 60, "the whole job is paid first");
    let job_id = job["jobId"].as_str().unwrap().to_owned();
    let image_ids = ids(&job);
    assert_eq!(image_ids.len(), 2);
    assert!(ledger_rows(&app, &ann).await.contains(&(format!("image:{job_id}"), -40)), "one row for the job");

    let seen = image_events(&mut events, &image_ids).await;
    let (first, second) = (image_ids[0].clone(), image_ids[1].clone());
    assert_eq!(
        outline(&seen),
        [
            ("imageQueued".to_owned(), first.clone()),
            ("imageQueued".to_owned(), second.clone()),
            ("imageDone".to_owned(), first.clone()),
            ("imageDone".to_owned(), second.clone()),
        ]
    );
    assert_eq!(seen[0]["data"]["position"], 0);
    assert_eq!(seen[1]["data"]["position"], 1);
    assert_eq!(seen[0]["data"]["characterId"], "gf-001");
    let done = seen.iter().find(|e| e["event"] == "imageDone").unwrap();
    let image = &done["data"]["image"];
    assert_eq!(done["data"]["jobId"], job_id.as_str());
    assert_eq!(image["url"], image_address(&first));
    let png = png_at(&app, image["url"].as_str().unwrap()).await.expect("the image is served");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");

    let listed = gallery(&app, &ann, json!({})).await;
    assert_eq!(listed.iter().map(|i| i["imageId"].as_str().unwrap()).collect::<Vec<_>>(), [&second, &first]);
    let newest = &listed[0];
    assert_eq!(newest["characterId"], "gf-001");
    assert_eq!(newest["prompt"], "holding a red umbrella");
    assert_eq!(
        (newest["scene"].as_str(), newest["style"].as_str(), newest["outfit"].as_str()),
        (Some("beach"), Some("anime"), None)
    );
    assert_eq!(
        (newest["shared"].as_bool(), newest["nsfw"].as_bool(), newest["illustration"].as_bool()),
        (Some(false), Some(false), Some(true))
    );
    assert!(newest["characterName"].as_str().is_some_and(|n| !n.is_empty()));
    assert_eq!(gallery(&app, &ann, json!({ "pageSize": 1 })).await.len(), 1);
    assert!(gallery(&app, &ann, json!({ "characterId": "gf-002" })).await.is_empty());

    let (code, characters, _) = call(&app, Some(&ann), "/user/v1/image/getGalleryCharacters", json!({})).await;
    assert_eq!(code, 200);
    assert_eq!(characters.as_array().unwrap().len(), 1);
    assert_eq!(characters[0]["characterId"], "gf-001");
    assert_eq!(characters[0]["count"], 2);
    assert!(characters[0]["characterPhoto"].as_str().is_some_and(|p| p.starts_with("/media/")));
    assert_eq!(ledger_balance(&app, &ann).await, 60);
}

async fn bad_or_refused_requests_cost_nothing(kind: StoreKind) {
    let app = image_app(kind, |_| {}).await;
    let ann = person(&app, "Ann", 30).await;
    let before = ledger_rows(&app, &ann).await;
    let cases = [
        (json!({ "scene": "beach", "count": 2 }), 40004),
        (json!({ "scene": "beach", "count": 3 }), 10001),
        (json!({ "count": 1 }), 10001),
        (json!({ "scene": "moon", "count": 1 }), 10001),
        (json!({ "outfit": "lingerie", "count": 1 }), 10001),
        (json!({ "prompt": "x".repeat(501), "count": 1 }), 10001),
        (json!({ "characterId": "gf-999", "scene": "beach", "count": 1 }), 10006),
        (json!({ "prompt": "naked schoolgirl, 15 years old", "count": 1 }), 10070),
    ];
    for (payload, expected) in cases {
        let (code, _, msg) = generate(&app, &ann, payload.clone()).await;
        assert_eq!(code, expected, "{payload}: {msg}");
    }
    // With adult content on (set before the account is first read), each part passes alone
    // but not together.
    let cat = person(&app, "Cat", 30).await;
    adult_content(&app, &cat, true).await;
    let (code, _, msg) =
        generate(&app, &cat, json!({ "outfit": "lingerie", "prompt": "she is a child", "count": 1 })).await;
    assert_eq!(code, 10070, "{msg}");
    assert_eq!(ledger_balance(&app, &cat).await, 30);
    let (code, _, _) = call(&app, None, "/user/v1/image/generate", json!({ "scene": "beach", "count": 1 })).await;
    assert_eq!(code, 10004, "signed in only");
    assert_eq!(ledger_rows(&app, &ann).await, before, "nothing was debited");
    assert!(gallery(&app, &ann, json!({})).await.is_empty());
    assert_eq!(ledger_balance(&app, &ann).await, 30);
}

/// A loopback Stable Diffusion WebUI: `POST /sdapi/v1/txt2img` answers 500, or (slow)
/// answers a real PNG after `delay`; `GET /sdapi/v1/progress` reports half way.
struct SdWebUi {
    base: String,
    calls: Arc<AtomicUsize>,
}

struct SdState {
    fail: bool,
    delay: Duration,
    png: String,
    calls: Arc<AtomicUsize>,
}

impl SdWebUi {
    async fn start(fail: bool, delay: Duration) -> Self {
        let png = base64::engine::general_purpose::STANDARD.encode(illustration().await);
        let calls = Arc::new(AtomicUsize::new(0));
        let state = web::Data::new(SdState { fail, delay, png, calls: calls.clone() });
        let (listener, base) = loopback();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .route("/sdapi/v1/txt2img", web::post().to(txt2img))
                .route("/sdapi/v1/progress", web::get().to(progress))
        })
        .workers(1)
        .listen(listener)
        .unwrap();
        actix_rt::spawn(server.run());
        Self { base, calls }
    }
}

/// Points the server's image model at the loopback WebUI.
fn use_sdwebui(settings: &mut Settings, base: &str) {
    use amora_actors::ai::image::ImageBackend;
    settings.image.model.backend = ImageBackend::Sdwebui;
    settings.image.model.sdwebui.base_url = base.to_owned();
    settings.image.model.sdwebui.progress_interval_ms = 200;
}

async fn txt2img(state: web::Data<SdState>, body: web::Json<Value>) -> HttpResponse {
    state.calls.fetch_add(1, Ordering::SeqCst);
    assert!(body["prompt"].as_str().is_some_and(|p| !p.is_empty()), "a prompt is sent");
    if state.fail {
        return HttpResponse::InternalServerError()
            .json(json!({ "error": "OutOfMemoryError", "detail": "CUDA out of memory" }));
    }
    tokio::time::sleep(state.delay).await;
    HttpResponse::Ok().json(json!({ "images": [state.png], "parameters": body.into_inner(), "info": "{}" }))
}

async fn progress() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "progress": 0.5, "eta_relative": 1.0, "state": {}, "current_image": null }))
}

/// A real PNG, drawn by the embedded illustrator.
pub(crate) async fn illustration() -> Vec<u8> {
    use amora_actors::ai::image::{ImageModelSettings, ImageRequest, build};
    let model = build(&ImageModelSettings::default()).unwrap();
    let request = ImageRequest {
        prompt: "a young woman".into(),
        negative_prompt: String::new(),
        seed: 7,
        width: 256,
        height: 384,
        subject: None,
        scene: Some("park".into()),
        outfit: None,
        pose: None,
        style: None,
        nsfw: false,
        variant: 0,
    };
    let (progress, _) = tokio::sync::mpsc::unbounded_channel();
    model.generate(request, progress).await.unwrap().bytes
}

async fn a_failing_backend_refunds_every_image(kind: StoreKind) {
    let backend = SdWebUi::start(true, Duration::ZERO).await;
    let base = backend.base.clone();
    let app = image_app(kind, move |settings| use_sdwebui(settings, &base)).await;
    let ann = person(&app, "Ann", 100).await;
    let mut events = socket(&app, &ann).await;
    let (code, job, msg) = generate(&app, &ann, json!({ "scene": "park", "count": 2 })).await;
    assert_eq!(code, 200, "{msg}");
    assert_eq!(job["coin"], 60);
    let image_ids = ids(&job);
    let seen = image_events(&mut events, &image_ids).await;
    let failed: Vec<&Value> = seen.iter().filter(|e| e["event"] == "imageFailed").collect();
    assert_eq!(failed.len(), 2, "{seen:?}");
    for event in failed {
        assert_eq!(event["data"]["reason"], "failed");
        assert_eq!(event["data"]["code"], 50000);
        assert_eq!(event["data"]["refunded"], 20);
    }
    assert!(backend.calls.load(Ordering::SeqCst) >= 2, "the backend was asked");
    let rows = ledger_rows(&app, &ann).await;
    for id in &image_ids {
        assert!(rows.contains(&(format!("image-refund:{id}"), 20)), "{rows:?}");
    }
    assert!(gallery(&app, &ann, json!({})).await.is_empty());
    assert_eq!(ledger_balance(&app, &ann).await, 100, "everything came back");
}

async fn cancelling_refunds_what_was_not_made_and_jobs_are_limited_per_user(kind: StoreKind) {
    let backend = SdWebUi::start(false, Duration::from_secs(4)).await;
    let base = backend.base.clone();
    let app = image_app(kind, move |settings| use_sdwebui(settings, &base)).await;
    let ann = person(&app, "Ann", 200).await;
    let bob = person(&app, "Bob", 0).await;
    let mut events = socket(&app, &ann).await;

    let (code, first, msg) = generate(&app, &ann, json!({ "scene": "park", "count": 2 })).await;
    assert_eq!(code, 200, "{msg}");
    let (code, second, msg) = generate(&app, &ann, json!({ "scene": "cafe", "count": 1 })).await;
    assert_eq!(code, 200, "{msg}");
    let rows = ledger_rows(&app, &ann).await;
    let (code, _, msg) = generate(&app, &ann, json!({ "scene": "gym", "count": 1 })).await;
    assert_eq!(code, 10003, "two unfinished jobs at most: {msg}");
    assert_eq!(ledger_rows(&app, &ann).await, rows, "the refused job cost nothing");

    let job_id = first["jobId"].as_str().unwrap().to_owned();
    let (code, _, _) = call(&app, Some(&bob), "/user/v1/image/cancel", json!({ "jobId": job_id })).await;
    assert_eq!(code, 10006, "not Bob's job");
    let (code, _, _) = call(&app, Some(&ann), "/user/v1/image/cancel", json!({ "jobId": "12345" })).await;
    assert_eq!(code, 10006);
    let (code, data, msg) = call(&app, Some(&ann), "/user/v1/image/cancel", json!({ "jobId": job_id })).await;
    assert_eq!((code, data), (200, json!(true)), "{msg}");

    let mut all_ids = ids(&first);
    all_ids.extend(ids(&second));
    let seen = image_events(&mut events, &all_ids).await;
    for id in ids(&first) {
        let end = seen.iter().find(|e| e["event"] == "imageFailed" && e["data"]["imageId"] == id.as_str());
        let end = end.unwrap_or_else(|| panic!("{id} was cancelled: {seen:?}"));
        assert_eq!(end["data"]["reason"], "cancelled");
        assert_eq!(end["data"]["code"], Value::Null);
        assert_eq!(end["data"]["refunded"], 20);
    }
    let second_id = ids(&second).remove(0);
    assert!(
        seen.iter().any(|e| e["event"] == "imageDone" && e["data"]["imageId"] == second_id.as_str()),
        "the other job is made: {seen:?}"
    );
    assert!(seen.iter().any(|e| e["event"] == "imageProgress"), "the backend's progress is told");
    let rows = ledger_rows(&app, &ann).await;
    for id in ids(&first) {
        assert!(rows.contains(&(format!("image-refund:{id}"), 20)), "{rows:?}");
    }
    assert_eq!(ledger_balance(&app, &ann).await, 200 - 20, "only the made image is paid");
    assert_eq!(ledger_balance(&app, &bob).await, 0);
}

async fn make_one(app: &TestApp, who: &Person, socket: &mut Socket, payload: Value) -> String {
    let (code, job, msg) = generate(app, who, payload).await;
    assert_eq!(code, 200, "{msg}");
    let id = ids(&job).remove(0);
    let seen = image_events(socket, std::slice::from_ref(&id)).await;
    assert!(seen.iter().any(|e| e["event"] == "imageDone"), "{seen:?}");
    id
}

pub(crate) async fn share(app: &TestApp, who: &Person, image_id: &str, shared: bool) -> (u64, Value) {
    let (code, data, _) =
        call(app, Some(who), "/user/v1/image/shareImage", json!({ "imageId": image_id, "shared": shared })).await;
    (code, data)
}

async fn shared_images_follow_the_feed_rules_and_deleting_removes_everything(kind: StoreKind) {
    let app = image_app(kind, |_| {}).await;
    let ann = person(&app, "Ann", 100).await;
    adult_content(&app, &ann, true).await;
    let bob = person(&app, "Bob", 0).await;
    let mut events = socket(&app, &ann).await;
    let safe = make_one(&app, &ann, &mut events, json!({ "scene": "beach", "count": 1 })).await;
    let explicit = make_one(&app, &ann, &mut events, json!({ "outfit": "lingerie", "count": 1 })).await;
    assert!(feed(&app, None, &[]).await.is_empty(), "nothing is public until shared");

    let (code, shared) = share(&app, &ann, &safe, true).await;
    assert_eq!((code, shared["shared"].as_bool()), (200, Some(true)));
    assert_eq!(share(&app, &ann, &explicit, true).await.0, 200);
    assert_eq!(share(&app, &bob, &safe, false).await.0, 10006, "only the owner shares");

    assert_eq!(feed(&app, None, &[]).await, std::slice::from_ref(&safe), "signed out: no explicit image");
    assert_eq!(feed(&app, Some(&ann), &[]).await, [explicit.clone(), safe.clone()], "a member with adult content on");
    assert_eq!(
        feed(&app, Some(&ann), &[("nsfw", "0")]).await,
        std::slice::from_ref(&safe),
        "the browser turned it off"
    );
    assert_eq!(feed(&app, Some(&bob), &[]).await, std::slice::from_ref(&safe), "adult content off");
    let young = make_young_user(&app).await;
    assert_eq!(feed(&app, Some(&young), &[]).await, std::slice::from_ref(&safe), "a new account");

    // Bob can neither see, delete nor share Ann's images.
    assert!(gallery(&app, &bob, json!({})).await.is_empty());
    let (code, _, _) = call(&app, Some(&bob), "/user/v1/image/deleteImage", json!({ "imageId": safe })).await;
    assert_eq!(code, 10006);

    let url = image_address(&safe);
    assert!(png_at(&app, &url).await.is_some());
    let (code, data, msg) = call(&app, Some(&ann), "/user/v1/image/deleteImage", json!({ "imageId": safe })).await;
    assert_eq!((code, data), (200, json!(true)), "{msg}");
    assert!(png_at(&app, &url).await.is_none(), "the bytes are gone");
    assert!(png_at(&app, &format!("{url}?w=160")).await.is_none(), "and every variant");
    assert_eq!(feed(&app, Some(&ann), &[]).await, std::slice::from_ref(&explicit));
    let left: Vec<_> = gallery(&app, &ann, json!({})).await.iter().map(|i| i["imageId"].clone()).collect();
    assert_eq!(left, [json!(explicit)]);

    let (code, unshared) = share(&app, &ann, &explicit, false).await;
    assert_eq!((code, unshared["shared"].as_bool()), (200, Some(false)));
    assert!(feed(&app, Some(&ann), &[]).await.is_empty());
    assert_eq!(ledger_balance(&app, &ann).await, 60);

    // Deleting the account deletes its images and their bytes.
    let explicit_url = image_address(&explicit);
    assert_eq!(app.delete_user(&ann.voucher).await.code, 200);
    assert!(png_at(&app, &explicit_url).await.is_none());
}

async fn remove_as_operator(app: &TestApp, body: Value) -> (u16, Value) {
    let response =
        app.client.post(app.url("/lust/admin/image/remove")).bearer_auth(OPERATOR).json(&body).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

async fn the_operator_removes_an_image_from_the_feed_or_by_its_owner(kind: StoreKind) {
    let app = image_app(kind, |_| {}).await;
    let ann = person(&app, "Ann", 100).await;
    let mut events = socket(&app, &ann).await;
    let shared = make_one(&app, &ann, &mut events, json!({ "scene": "beach", "count": 1 })).await;
    let kept = make_one(&app, &ann, &mut events, json!({ "scene": "park", "count": 1 })).await;
    assert_eq!(share(&app, &ann, &shared, true).await.0, 200);
    let (_, page, _) = call(&app, None, "/user/v1/image/getFeed", json!({})).await;
    let feed_id = page["images"][0]["feedId"].as_str().unwrap_or_default().to_owned();

    let (status, _) = remove_as_operator(&app, json!({ "feedId": feed_id, "imageId": shared })).await;
    assert_eq!(status, 400, "one form or the other");
    let unauthorised = app.client.post(app.url("/lust/admin/image/remove")).json(&json!({ "feedId": feed_id }));
    assert_eq!(unauthorised.send().await.unwrap().status().as_u16(), 401);

    let (status, answer) = remove_as_operator(&app, json!({ "feedId": feed_id })).await;
    assert_eq!((status, &answer["outcome"]), (200, &json!("removed")), "{answer}");
    assert_eq!(answer["imageId"], json!(shared));
    assert!(feed(&app, None, &[]).await.is_empty(), "out of the feed");
    assert!(png_at(&app, &image_address(&shared)).await.is_none(), "the bytes are gone");
    assert_eq!(remove_as_operator(&app, json!({ "feedId": feed_id })).await.0, 404, "only once");

    // A picture that was never shared, named by its owner.
    let (status, _) = remove_as_operator(&app, json!({ "user": ann.user_no, "imageId": kept })).await;
    assert_eq!(status, 200);
    assert!(gallery(&app, &ann, json!({})).await.is_empty(), "the gallery is empty");
    assert_eq!(remove_as_operator(&app, json!({ "user": ann.user_no, "imageId": kept })).await.0, 404);
    assert_eq!(ledger_balance(&app, &ann).await, 60, "removing refunds nothing; the ledger still adds up");
}

/// A signed-in account created just now, younger than `accounts.established_after_secs`,
/// with adult content on.
pub(crate) async fn make_young_user(app: &TestApp) -> Person {
    let user_id =
        UserId::parse(&format!("y{}", amora_server::auth::random_token().replace(['-', '_'], "")[..16].to_owned()))
            .unwrap();
    let user_no = UserNo::from_random(rand::random::<u32>() % 90_000_000 + 10_000_000);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let new_user = NewUser {
        user_id: user_id.clone(),
        user_no: user_no.clone(),
        user_name: "Young".into(),
        email: None,
        discord_email: None,
        google_subject: None,
        discord_id: None,
        utm_source: String::new(),
        language: "en".into(),
        created_at: now,
    };
    app.store.users.create(new_user).await.unwrap();
    let voucher = amora_server::auth::random_token();
    let session = SessionRecord {
        token_hash: amora_server::auth::token_hash(&voucher),
        user_id: user_id.clone(),
        created_at: now,
        expires_at: now + 3600,
    };
    app.store.sessions.create(session).await.unwrap();
    let young = Person { user_id, user_no: user_no.as_str().to_owned(), voucher };
    adult_content(app, &young, true).await;
    young
}

async fn a_picture_asked_for_in_chat_is_a_message_of_the_character(kind: StoreKind) {
    let app = image_app(kind, |_| {}).await;
    let ann = person(&app, "Ann", 30).await;
    let mut events = socket(&app, &ann).await;
    let (code, job, msg) = call(
        &app,
        Some(&ann),
        "/user/v1/chat/requestPicture",
        json!({ "characterId": "gf-001", "prompt": "at the beach" }),
    )
    .await;
    assert_eq!(code, 200, "{msg}");
    let image_id = ids(&job).remove(0);
    let mut message = None;
    let mut done = false;
    while message.is_none() || !done {
        let event = events.next_event(WAIT).await.expect("the picture arrives");
        if event["event"] == "imageDone" && event["data"]["imageId"] == image_id.as_str() {
            done = true;
        }
        if event["event"] == "chatMessage" && event["data"]["characterId"] == "gf-001" {
            message = Some(event["data"]["message"].clone());
        }
    }
    let message = message.unwrap();
    assert_eq!(message["speaker"], "character");
    assert_eq!(message["image"]["imageId"], image_id.as_str());
    assert_eq!(message["image"]["url"], image_address(&image_id));
    let (code, page, _) =
        call(&app, Some(&ann), "/user/v1/chat/getMessageList", json!({ "characterId": "gf-001" })).await;
    assert_eq!(code, 200);
    let stored = page["messages"].as_array().unwrap().iter().find(|m| m["messageId"] == message["messageId"]).cloned();
    assert_eq!(stored.map(|m| m["image"].clone()), Some(message["image"].clone()), "kept in the conversation");
    assert_eq!(gallery(&app, &ann, json!({ "characterId": "gf-001" })).await.len(), 1, "and in the gallery");
    let (code, _, _) = call(&app, Some(&ann), "/user/v1/chat/requestPicture", json!({ "characterId": "gf-001" })).await;
    assert_eq!(code, 40004, "10 coins left: not enough for another");
    assert_eq!(ledger_balance(&app, &ann).await, 10);
}
