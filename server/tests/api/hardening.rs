//! Issue 28, items 4, 5, 9 and 11, against the real server: a shared image does not lead
//! to its owner's other images and private media are not cached by shared caches; a
//! voucher never replaces the session a browser's cookie carries; the app's pages refuse
//! to be framed and carry a content security policy; `/metrics` is the operator's; the
//! session cookie is `Secure` for any spelling of `https`; `memory/getMemoryList` answers
//! 10006 for a character the caller cannot see; the operator log names users by id; and a
//! sandbox that pays on an https deployment is announced at start-up. Each test failed on
//! the code before its fix.

use std::io::Cursor;
use std::time::Duration;

use amora_domain::chat::EntryId;
use amora_store::{GalleryRecord, MediaObject, image_media_id};
use image::{ImageFormat, RgbImage};
use serde_json::{Value, json};

use crate::cluster::{Socket, make_user};
use crate::helpers::{TestApp, spawn_app, spawn_app_with};

const OPERATOR: &str = "hardening-operator-token";

fn png() -> Vec<u8> {
    let image = RgbImage::from_fn(64, 64, |x, y| image::Rgb([x as u8, y as u8, 7]));
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, ImageFormat::Png).unwrap();
    out.into_inner()
}

/// A generated image of `user`, as the image actor keeps it: a gallery record and its bytes.
async fn stored_image(app: &TestApp, user: &amora_domain::account::UserId, image_id: EntryId) {
    app.store
        .gallery
        .add(GalleryRecord {
            image_id,
            job_id: EntryId::from_raw(image_id.raw() - 1),
            user_id: user.clone(),
            character_id: None,
            character_name: None,
            prompt: "a quiet beach at sunset".into(),
            scene: None,
            outfit: None,
            pose: None,
            style: None,
            width: 64,
            height: 64,
            nsfw: false,
            illustration: true,
            restricted: false,
            feed_id: None,
        })
        .await
        .unwrap();
    let bytes = MediaObject { content_type: "image/png".into(), bytes: png() };
    app.store.media.put(&image_media_id(image_id), bytes).await.unwrap();
}

async fn call(app: &TestApp, voucher: Option<&str>, path: &str, payload: Value) -> (u64, Value) {
    let (envelope, _) = app.post_api_as(voucher, path, payload).await;
    (envelope.code, envelope.data)
}

/// Item 4: two images of one user, one shared to the feed. Before the fix every image was
/// `/media/img-<id>` with time-ordered ids, so the feed's URL plus or minus a few led to
/// the unshared one, and all were sent `Cache-Control: public`.
#[actix_rt::test]
async fn a_shared_image_does_not_lead_to_its_unshared_siblings() {
    let app = spawn_app().await;
    let (ann, _, voucher) = make_user(&app.store, "Ann").await;
    let shared = amora_actors::chat::new_entry_id();
    let sibling = EntryId::from_raw(shared.raw() + 5);
    stored_image(&app, &ann, shared).await;
    stored_image(&app, &ann, sibling).await;
    let (code, _) = call(
        &app,
        Some(&voucher),
        "/user/v1/image/shareImage",
        json!({ "imageId": shared.raw().to_string(), "shared": true }),
    )
    .await;
    assert_eq!(code, 200);

    // What a stranger sees: the feed, signed out.
    let (code, feed) = call(&app, None, "/user/v1/image/getFeed", json!({})).await;
    assert_eq!(code, 200);
    let feed_url = feed["images"][0]["url"].as_str().unwrap().to_owned();
    let feed_image = app.get(&feed_url).await;
    assert_eq!(feed_image.status(), 200, "the shared image is served at {feed_url}");

    // Its neighbours, by the old scheme and by swapping the id inside the feed's URL.
    let old_sibling_url = format!("/media/img-{}", sibling.raw());
    assert_eq!(app.get(&old_sibling_url).await.status(), 404, "{old_sibling_url} must not serve the unshared image");
    let swapped = feed_url.replace(&shared.raw().to_string(), &sibling.raw().to_string());
    assert_eq!(app.get(&swapped).await.status(), 404, "{swapped}");
    for k in -20i64..=20 {
        let id = shared.raw() + k;
        let status = app.get(&format!("/media/img-{id}")).await.status();
        assert_eq!(status, 404, "img-{id}: no image is reachable by its id alone");
    }

    // The owner's gallery names both, and the unshared one is private to caches.
    let (code, gallery) = call(&app, Some(&voucher), "/user/v1/image/getGallery", json!({})).await;
    assert_eq!(code, 200);
    let images = gallery["images"].as_array().unwrap();
    let sibling_id = sibling.raw().to_string();
    let own =
        images.iter().find(|i| i["imageId"].as_str() == Some(sibling_id.as_str())).expect("the sibling in the gallery");
    let own_url = own["url"].as_str().unwrap();
    assert!(!own_url.ends_with(&format!("img-{}", sibling.raw())), "{own_url}: not the bare id");
    for url in [own_url.to_owned(), format!("{own_url}?w=160")] {
        let response = app.get(&url).await;
        assert_eq!(response.status(), 200, "{url}");
        let cache = response.headers()["cache-control"].to_str().unwrap().to_owned();
        assert!(cache.contains("private") || cache.contains("no-store"), "{url}: {cache}");
        assert!(!cache.contains("public"), "{url}: {cache}");
    }

    // Voice clips are private too.
    let clip = MediaObject { content_type: "audio/mpeg".into(), bytes: vec![0xff, 0xfb, 0x90, 0x00] };
    app.store.media.put("voice-0123456789abcdef01234567", clip).await.unwrap();
    let response = app.get("/media/voice-0123456789abcdef01234567").await;
    assert_eq!(response.status(), 200);
    let cache = response.headers()["cache-control"].to_str().unwrap();
    assert!(cache.contains("private") && !cache.contains("public"), "voice: {cache}");
}

/// Item 5: the attacker's voucher (planted through `?appVoucher=`) beside the victim's
/// session cookie. Before the fix the voucher won, on HTTP calls and on the socket.
#[actix_rt::test]
async fn a_voucher_never_replaces_the_session_of_the_cookie() {
    let app = spawn_app().await;
    let (victim, _, victim_session) = make_user(&app.store, "Victim").await;
    let (attacker, _, attacker_voucher) = make_user(&app.store, "Attacker").await;
    let cookie = format!("amora_session={victim_session}");

    let response = app
        .client
        .get(app.url("/lust/api/user/v1/getUserInfo"))
        .header("secretKey", crate::helpers::SECRET)
        .header("cookie", &cookie)
        .header("voucher", &attacker_voucher)
        .send()
        .await
        .unwrap();
    let envelope = app.open(&response.json().await.unwrap());
    assert_eq!(envelope.code, 200);
    assert_eq!(envelope.data["userId"], victim.as_str(), "the cookie's session, not the voucher's");

    // The socket: voucher in the query, the victim's cookie on the upgrade.
    let url = format!("{}/lust/api/ws?voucher={attacker_voucher}", app.address.replacen("http", "ws", 1));
    let mut request = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(url).unwrap();
    request.headers_mut().insert("cookie", cookie.parse().unwrap());
    let mut socket = Socket { stream: tokio_tungstenite::connect_async(request).await.unwrap().0 };
    let hello = socket.wait_for("hello", Duration::from_secs(10)).await.expect("hello");
    assert_eq!(hello["data"]["userId"], victim.as_str(), "{hello}");

    // Without a cookie (an app's view) the voucher signs in, as API.md says.
    assert_eq!(app.user_info_as(&attacker_voucher).await.data["userId"], attacker.as_str());
    // A dead cookie does not block a live voucher either.
    let response = app
        .client
        .get(app.url("/lust/api/user/v1/getUserInfo"))
        .header("secretKey", crate::helpers::SECRET)
        .header("cookie", "amora_session=not-a-session")
        .header("voucher", &attacker_voucher)
        .send()
        .await
        .unwrap();
    assert_eq!(app.open(&response.json().await.unwrap()).data["userId"], attacker.as_str());
}

/// Item 9: the app's pages (client routes and the app-embedded ones) refuse to be framed and
/// carry a content security policy without inline script.
#[actix_rt::test]
async fn app_pages_refuse_framing_and_carry_a_content_security_policy() {
    let app = spawn_app().await;
    for path in ["/", "/chat/gf-001", "/privacyPolicyForApp", "/de/communityGuidelinesForApp"] {
        let response = app.get(path).await;
        let headers = response.headers();
        assert_eq!(headers.get("x-frame-options").map(|v| v.to_str().unwrap()), Some("DENY"), "{path}");
        let csp = headers.get("content-security-policy").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp:?}");
        let script_src = csp.split(';').map(str::trim).find(|d| d.starts_with("script-src")).unwrap_or_default();
        assert!(script_src.contains("'self'") && !script_src.contains("unsafe"), "{path}: {csp:?}");
        assert!(csp.contains("object-src 'none'") && csp.contains("base-uri"), "{path}: {csp:?}");
    }
}

/// Item 9: `/metrics` (per-route traffic, payment counts) answers only the operator's token.
#[actix_rt::test]
async fn metrics_are_for_the_operator_only() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", OPERATOR)]).await;
    app.web_config().await;
    assert_eq!(app.get("/metrics").await.status(), 401, "no token");
    let wrong = app.client.get(app.url("/metrics")).bearer_auth("guess").send().await.unwrap();
    assert_eq!(wrong.status(), 401, "a wrong token");
    let right = app.client.get(app.url("/metrics")).bearer_auth(OPERATOR).send().await.unwrap();
    assert_eq!(right.status(), 200);
    assert!(right.text().await.unwrap().contains("amora_http_requests_total"));

    // With the operator API off, so are the metrics.
    let off = spawn_app().await;
    assert_eq!(off.get("/metrics").await.status(), 404);
}

/// Item 9: URL schemes are case-insensitive (RFC 3986 §3.1): `HTTPS://` is https, and the
/// session cookie must be `Secure` there. Before the fix it was not.
#[actix_rt::test]
async fn the_session_cookie_is_secure_for_any_spelling_of_https() {
    let app = spawn_app_with(&[("AMORA_HTTP__PUBLIC_BASE_URL", "HTTPS://Amora.Example")]).await;
    let (_, user_no, voucher) = make_user(&app.store, "Ann").await;
    assert_eq!(app.set_password(&voucher, None, "secret-42").await.code, 200);
    let (envelope, headers) = app
        .post_api_as(None, "/login/v1/userPasswordLogin", json!({ "userNo": user_no, "password": "secret-42" }))
        .await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    let cookie = headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("amora_session="))
        .expect("a session cookie");
    assert!(cookie.split(';').any(|part| part.trim().eq_ignore_ascii_case("secure")), "{cookie}");
}

/// A private character of `who`'s, through the creation API.
async fn private_character(app: &TestApp, voucher: &str) -> String {
    let (code, options) = call(app, None, "/user/v1/character/getCreateOptions", json!({ "gender": 0 })).await;
    assert_eq!(code, 200);
    let first = |list: &str| options[list][0]["key"].as_str().unwrap_or_default().to_owned();
    let draft = json!({
        "gender": 0,
        "style": first("styles"),
        "looks": {
            "age": 24,
            "ethnicity": first("ethnicities"),
            "eyes": first("eyes"),
            "hairColor": first("hairColors"),
            "hairStyle": first("hairStyles"),
            "body": first("bodies"),
            "outfit": first("outfits"),
        },
        "personality": { "preset": first("personalities"), "text": "Warm and curious." },
        "relationship": { "preset": first("relationships"), "text": "" },
        "voiceId": options["voices"][0]["voiceId"].as_str().unwrap_or_default(),
        "characterName": "Lena",
        "introduction": "A barista who paints at night.",
        "greeting": "Hey {{user}}, coffee?",
        "scenario": "A small café.",
        "tags": ["romance"],
        "nsfw": false,
        "visibility": "private",
    });
    let (code, created) = call(app, Some(voucher), "/user/v1/character/create", json!({ "draft": draft })).await;
    assert_eq!(code, 200, "{created}");
    created["character"]["characterId"].as_str().unwrap().to_owned()
}

/// Item 11: API.md's 10006 for a character the caller cannot see (another user's private
/// one, or none at all); before the fix the list answered 200 `[]`.
#[actix_rt::test]
async fn the_memory_list_of_a_character_one_cannot_see_is_not_found() {
    let app = spawn_app().await;
    let (_, _, ann) = make_user(&app.store, "Ann").await;
    let (_, _, bob) = make_user(&app.store, "Bob").await;
    let lena = private_character(&app, &ann).await;

    let list = |voucher: &str, id: &str| {
        let (voucher, id) = (voucher.to_owned(), id.to_owned());
        let app = &app;
        async move { call(app, Some(&voucher), "/user/v1/memory/getMemoryList", json!({ "characterId": id })).await }
    };
    assert_eq!(list(&ann, &lena).await, (200, json!([])), "the creator's own");
    assert_eq!(list(&bob, &lena).await.0, 10006, "another user's private character");
    assert_eq!(list(&bob, "gf-999").await.0, 10006, "no such character");
    assert_eq!(list(&bob, "gf-001").await.0, 200, "a catalogue character");
}

/// A node in its own process whose log (stdout, JSON) the test reads.
struct LoggedNode {
    child: std::process::Child,
    log: std::path::PathBuf,
    address: String,
    _temp: tempfile::TempDir,
}

impl LoggedNode {
    async fn start(extra: &[(&str, &str)]) -> Self {
        let temp = tempfile::tempdir().unwrap();
        let log = temp.path().join("amora.log");
        let port = crate::cluster::free_port();
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_amora"));
        command
            .env("AMORA_HTTP__HOST", "127.0.0.1")
            .env("AMORA_HTTP__PORT", port.to_string())
            .env("AMORA_HTTP__WORKERS", "1")
            .env("AMORA_STORE__DATA_DIR", temp.path().join("data"))
            .env("AMORA_LOG__FILTER", "info")
            .env("AMORA_LOG__FORMAT", "json")
            .env("AMORA_CHAT__PRELOAD", "false")
            .env_remove("RUST_LOG")
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::process::Stdio::inherit());
        for (key, value) in extra {
            command.env(key, value);
        }
        let child = command.spawn().unwrap();
        let address = format!("http://127.0.0.1:{port}");
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while reqwest::get(format!("{address}/readyz")).await.map(|r| r.status()).ok() != Some(reqwest::StatusCode::OK)
        {
            assert!(std::time::Instant::now() < deadline, "the node did not become ready");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Self { child, log, address, _temp: temp }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap()
    }
}

impl Drop for LoggedNode {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Item 11: operator calls are logged with the user's id, never an e-mail address.
#[actix_rt::test]
async fn the_operator_log_names_users_by_id_not_by_address() {
    let node = LoggedNode::start(&[("AMORA_ADMIN__TOKEN", OPERATOR)]).await;
    let client = reqwest::Client::new();
    let created: Value = client
        .post(format!("{}/lust/admin/createUser", node.address))
        .bearer_auth(OPERATOR)
        .json(&json!({ "email": "operator.made@example.com" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let user_id = created["userId"].as_str().expect("created").to_owned();
    let credit = client
        .post(format!("{}/lust/admin/credit", node.address))
        .bearer_auth(OPERATOR)
        .json(&json!({ "user": "operator.made@example.com", "coins": 10 }))
        .send()
        .await
        .unwrap();
    assert_eq!(credit.status(), 200);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let log = node.log_text();
    let admin_lines: Vec<&str> = log.lines().filter(|l| l.contains("\"target\":\"admin\"")).collect();
    assert!(admin_lines.iter().any(|l| l.contains(&user_id) && l.contains("admin create-user")), "{log}");
    assert!(admin_lines.iter().any(|l| l.contains(&user_id) && l.contains("admin credit")), "{log}");
    assert!(!log.contains("operator.made@example.com"), "an address in the log:\n{log}");
}

/// Item 11: a sandbox that hands out coins (on by `auto`, no real route configured) on a
/// deployment served over https is announced at start-up; on http it is development.
#[actix_rt::test]
async fn a_paying_sandbox_on_an_https_deployment_is_announced() {
    let https = LoggedNode::start(&[("AMORA_HTTP__PUBLIC_BASE_URL", "https://amora.example")]).await;
    let warnings: Vec<String> = https
        .log_text()
        .lines()
        .filter(|l| l.contains("\"level\":\"WARN\"") && l.contains("sandbox"))
        .map(str::to_owned)
        .collect();
    assert_eq!(warnings.len(), 1, "one warning: {warnings:?}\n{}", https.log_text());
    assert!(warnings[0].contains("coins"), "{}", warnings[0]);

    let local = LoggedNode::start(&[]).await;
    let log = local.log_text();
    assert!(!log.lines().any(|l| l.contains("\"level\":\"WARN\"") && l.contains("sandbox")), "{log}");
}
