//! Issue 12, security hardening: each test here failed on the code before its fix.

use std::time::Duration;

use serde_json::json;

use crate::helpers::{SECRET, TestApp, spawn_app_env, spawn_app_with};
use crate::support::{IdentityProvider, code_for};

/// Starts a Discord flow from `page` and completes it with a valid code; answers where the
/// callback redirected.
async fn discord_round_trip(app: &TestApp, page: &str, discord_id: &str) -> String {
    let start = app.client.get(app.url("/lust/api/discordLogin")).query(&[("state", page)]).send().await.unwrap();
    assert_eq!(start.status(), 302);
    let location = url::Url::parse(start.headers()["location"].to_str().unwrap()).unwrap();
    let param = |name: &str| location.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    let state = param("state").unwrap_or_default();
    let flow_cookie = start.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
    let mut user =
        json!({ "id": discord_id, "username": "rd", "email": format!("{discord_id}@example.com"), "verified": true });
    if let Some(challenge) = param("code_challenge") {
        user["code_challenge"] = json!(challenge);
    }
    let response = app
        .client
        .get(app.url("/lust/api/discordLoginBack"))
        .query(&[("code", code_for(&user).as_str()), ("state", state.as_str())])
        .header("cookie", flow_cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 302);
    response.headers()["location"].to_str().unwrap().to_owned()
}

async fn provider_app() -> (IdentityProvider, TestApp) {
    let provider = IdentityProvider::start().await;
    let mut env = provider.settings();
    env.push(("AMORA_HTTP__PUBLIC_BASE_URL".into(), "http://localhost:8080".into()));
    let app = spawn_app_env(env).await;
    (provider, app)
}

/// Item 1: paths browsers read as another host never become the return target.
#[actix_rt::test]
async fn sign_in_never_returns_to_another_host() {
    let (_provider, app) = provider_app().await;
    let hostile = [
        "http://localhost:8080//evil.example/x",
        "//evil.example/x",
        "/\\evil.example/x",
        "\\/evil.example",
        "http://localhost:8080/\\evil.example",
        "/.//evil.example",
        "/%2F/evil.example",
        "https://evil.example/",
        "javascript:alert(1)",
    ];
    for (n, page) in hostile.iter().enumerate() {
        let target = discord_round_trip(&app, page, &format!("d-redirect-{n}")).await;
        let leaves = target.starts_with("//") || target.starts_with("/\\") || !target.starts_with('/');
        assert!(!leaves, "{page:?} redirected to {target:?}");
    }
    assert_eq!(discord_round_trip(&app, "/chat/gf-001?x=1", "d-redirect-ok").await, "/chat/gf-001?x=1");
}

/// POSTs an encrypted payload as if forwarded by a proxy for `forwarded_for`.
async fn post_forwarded(app: &TestApp, path: &str, payload: serde_json::Value, forwarded_for: &str) -> u64 {
    let body = json!({ "requestData": app.key().encrypt(payload.to_string().as_bytes()) });
    let response = app
        .client
        .post(app.url(&format!("/lust/api{path}")))
        .header("secretKey", SECRET)
        .header("content-type", "application/json")
        .header("x-forwarded-for", forwarded_for)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{path}");
    app.open(&response.json().await.unwrap()).code
}

fn report() -> serde_json::Value {
    json!({ "message": "boom" })
}

/// Item 2: behind a trusted proxy the right-most untrusted `X-Forwarded-For` entry is the
/// client, so rotating the entries a client writes itself buys no fresh budget.
#[actix_rt::test]
async fn rotating_forwarded_for_entries_does_not_bypass_an_address_limit() {
    // The test client is on loopback: here it plays the proxy the server trusts.
    let app =
        spawn_app_with(&[("AMORA_HTTP__TRUSTED_PROXIES", "127.0.0.1"), ("AMORA_LIMITS__REPORTS_PER_MINUTE", "3")])
            .await;
    for n in 0..3 {
        let chain = format!("10.9.8.{n}, 203.0.113.7");
        assert_eq!(post_forwarded(&app, "/webError", report(), &chain).await, 200, "{chain}");
    }
    assert_eq!(post_forwarded(&app, "/webError", report(), "10.9.8.99, 203.0.113.7").await, 10003);
    // Another client behind the same proxy has its own budget.
    assert_eq!(post_forwarded(&app, "/webError", report(), "203.0.113.8").await, 200);
    // Trusted hops on the right are skipped: a chain through a second proxy of ours.
    let app = spawn_app_with(&[
        ("AMORA_HTTP__TRUSTED_PROXIES", "127.0.0.0/8, 10.0.0.0/8"),
        ("AMORA_LIMITS__REPORTS_PER_MINUTE", "1"),
    ])
    .await;
    assert_eq!(post_forwarded(&app, "/webError", report(), "1.1.1.1, 198.51.100.4, 10.0.0.2").await, 200);
    assert_eq!(post_forwarded(&app, "/webError", report(), "2.2.2.2, 198.51.100.4, 10.0.0.3").await, 10003);
}

/// Item 2: a client that is not a trusted proxy cannot pick its address at all.
#[actix_rt::test]
async fn forwarded_for_from_an_untrusted_peer_is_ignored() {
    let app =
        spawn_app_with(&[("AMORA_HTTP__TRUSTED_PROXIES", "192.0.2.1"), ("AMORA_LIMITS__REPORTS_PER_MINUTE", "2")])
            .await;
    assert_eq!(post_forwarded(&app, "/webError", report(), "203.0.113.1").await, 200);
    assert_eq!(post_forwarded(&app, "/webError", report(), "203.0.113.2").await, 200);
    assert_eq!(post_forwarded(&app, "/webError", report(), "203.0.113.3").await, 10003);
}

/// Item 4: a guesser who knows a user's ID slows only itself; the owner signs in from
/// their own address, and the guesser's waits grow (1 s, then 2 s here).
#[actix_rt::test]
async fn a_guesser_is_slowed_while_the_owner_still_signs_in() {
    let app = spawn_app_with(&[
        ("AMORA_HTTP__TRUSTED_PROXIES", "127.0.0.1"),
        ("AMORA_LIMITS__PASSWORD_LOGIN_PER_IP_PER_MINUTE", "1000"),
        ("AMORA_LIMITS__PASSWORD_LOGIN_FREE_FAILURES", "3"),
        ("AMORA_LIMITS__PASSWORD_LOGIN_FIRST_DELAY_SECS", "1"),
        ("AMORA_ADMIN__TOKEN", "operator-token"),
    ])
    .await;
    let user_no = create_user_with_password(&app, "owner@example.com", "real-pass").await;
    let login = |password: &'static str, address: &'static str| {
        let user_no = user_no.clone();
        let app = &app;
        async move {
            post_forwarded(
                app,
                "/login/v1/userPasswordLogin",
                json!({ "userNo": user_no, "password": password }),
                address,
            )
            .await
        }
    };
    let guesser = "203.0.113.66";
    for _ in 0..12 {
        // Far more than the old hard limit of ten an hour, which locked the owner out too.
        let code = login("guess-0", guesser).await;
        assert!(code == 10012 || code == 10003, "{code}");
    }
    assert_eq!(login("real-pass", "198.51.100.1").await, 200, "the owner, from their own address");

    // A fresh guesser: three free failures, then waits of 1 s and 2 s.
    let guesser = "203.0.113.77";
    for _ in 0..3 {
        assert_eq!(login("guess-1", guesser).await, 10012);
    }
    assert_eq!(login("guess-2", guesser).await, 10003, "waits after the free failures");
    assert_eq!(login("real-pass", guesser).await, 10003, "while waiting nothing is checked");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(login("guess-3", guesser).await, 10012, "the first wait was 1 s");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(login("guess-4", guesser).await, 10003, "the second wait is longer than 1 s");
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(login("real-pass", guesser).await, 200, "and ends after 2 s");
}

/// Creates an account through the operator API; answers its `userNo`.
pub(crate) async fn create_user_with_password(app: &TestApp, email: &str, password: &str) -> String {
    create_user_with_password_token(app, email, password, "operator-token").await
}

/// As `create_user_with_password`, with the app's operator token.
pub(crate) async fn create_user_with_password_token(app: &TestApp, email: &str, password: &str, token: &str) -> String {
    let response = app
        .client
        .post(app.url("/lust/admin/createUser"))
        .bearer_auth(token)
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    body["userNo"].as_str().unwrap().to_owned()
}

/// A node in its own process whose JSON log (stdout) lands in a file the test reads.
struct LoggedNode {
    child: std::process::Child,
    log: std::path::PathBuf,
    app: TestApp,
    _temp: tempfile::TempDir,
}

impl LoggedNode {
    async fn start(extra: &[(&str, String)]) -> Self {
        let temp = tempfile::tempdir().unwrap();
        let data = temp.path().join("data");
        let log = temp.path().join("amora.log");
        let port = crate::cluster::free_port();
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_amora"));
        command
            .env("AMORA_HTTP__HOST", "127.0.0.1")
            .env("AMORA_HTTP__PORT", port.to_string())
            .env("AMORA_HTTP__WORKERS", "2")
            .env("AMORA_STORE__DATA_DIR", &data)
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
        let app = TestApp::remote(address, crate::cluster::shared_store(&data));
        Self { child, log, app, _temp: temp }
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

/// Item 8: sign-in tokens and vouchers in URLs never reach the log, and client mistakes are
/// logged below ERROR.
#[actix_rt::test]
async fn the_log_holds_no_credentials_and_no_errors_for_client_mistakes() {
    let sink = crate::support::SmtpSink::start();
    let node = LoggedNode::start(&[("AMORA_MAIL__SMTP_URL", sink.url())]).await;
    let app = &node.app;
    assert_eq!(app.send_sign_in_link("logged@example.com").await.data, json!(true));
    let link = crate::support::link_in(&sink.wait_for("logged@example.com").await);
    let token = link.split("token=").nth(1).unwrap().to_owned();
    // The first sign-in creates the account, which is logged inside the request's span.
    let (_, cookie) = crate::accounts::follow(app, &link).await;
    let voucher = crate::accounts::voucher_of(&cookie.unwrap());
    let _ = app.get(&format!("/lust/api/ws?voucher={voucher}")).await;
    let _ = app.get(&format!("/lust/api/login/v1/emailLoginBack?token={token}")).await;
    // Client mistakes: a wrong password, a bad page size, no session.
    assert_eq!(app.password_login("12345678", "wrong-password").await.code, 10012);
    assert_eq!(app.character_list(1, 1000, 0).await.code, 10001);
    assert_eq!(app.get_api("/user/v1/getOwnUserInfoDetail").await.code, 10004);
    tokio::time::sleep(Duration::from_millis(300)).await;

    let log = node.log_text();
    assert!(log.contains("emailLoginBack"), "the requests are in the log: {log}");
    assert!(!log.contains(&token), "the sign-in token is in the log:\n{log}");
    assert!(!log.contains(&voucher), "the voucher is in the log:\n{log}");
    let errors: Vec<&str> = log.lines().filter(|line| line.contains("\"level\":\"ERROR\"")).collect();
    assert!(errors.is_empty(), "client mistakes logged as errors:\n{}", errors.join("\n"));
}

/// Item 9: a wrong operator token is refused before the body is read (a bad or huge body
/// from someone without the token must not be parsed at all).
#[actix_rt::test]
async fn operator_calls_check_the_token_before_the_body() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", "operator-token")]).await;
    for body in ["not json at all", "{\"user\": 1}", &"x".repeat(20_000)] {
        let response = app
            .client
            .post(app.url("/lust/admin/credit"))
            .bearer_auth("wrong-token")
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{}", &body[..body.len().min(20)]);
    }
}

/// Item 9: methods other than GET and HEAD on paths that are not API routes get 405, not the app.
#[actix_rt::test]
async fn other_methods_on_app_paths_are_not_answered_with_the_app() {
    let app = spawn_app_with(&[]).await;
    for (method, path) in
        [("POST", "/ai-boyfriend"), ("PUT", "/"), ("DELETE", "/chat/gf-001"), ("PATCH", "/assets/app-1234.js")]
    {
        let response = app.client.request(method.parse().unwrap(), app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 405, "{method} {path}");
        assert_eq!(response.headers()["allow"], "GET, HEAD");
        assert_ne!(response.text().await.unwrap(), crate::helpers::INDEX_HTML);
    }
    let head = app.client.head(app.url("/ai-boyfriend")).send().await.unwrap();
    assert_eq!(head.status(), 200);
}

/// Item 9: memory text refuses control characters as messages and names do.
#[actix_rt::test]
async fn memory_text_with_control_characters_is_refused() {
    let app = spawn_app_with(&[]).await;
    let (_, _, voucher) = crate::cluster::make_user(&app.store, "Mo").await;
    for content in ["likes \u{0007}bells", "a\u{001b}[31mred", "null\u{0000}byte"] {
        let add = json!({ "characterId": "gf-001", "content": content });
        let (answer, _) = app.post_api_as(Some(&voucher), "/user/v1/memory/addMemory", add).await;
        assert_eq!(answer.code, 10001, "{content:?}");
    }
    let fine = json!({ "characterId": "gf-001", "content": "likes tea\nand cake" });
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/memory/addMemory", fine).await.0.code, 200);
    let memory_id = app
        .post_api_as(Some(&voucher), "/user/v1/memory/getMemoryList", json!({ "characterId": "gf-001" }))
        .await
        .0
        .data[0]["memoryId"]
        .clone();
    let update = json!({ "characterId": "gf-001", "memoryId": memory_id, "content": "bell\u{0007}" });
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/memory/updateMemory", update).await.0.code, 10001);
}

/// Item 9: a symlink inside the build or the locales does not serve what it points at.
#[actix_rt::test]
async fn symlinks_out_of_the_static_folder_are_not_followed() {
    let app = spawn_app_with(&[]).await;
    let dist = app.data_dir.parent().unwrap().join("dist");
    let outside = app.data_dir.parent().unwrap().join("secret.txt");
    std::fs::write(&outside, "top secret").unwrap();
    std::os::unix::fs::symlink(&outside, dist.join("leak.txt")).unwrap();
    std::os::unix::fs::symlink(app.data_dir.parent().unwrap(), dist.join("assets/up")).unwrap();
    std::os::unix::fs::symlink(&outside, dist.join("locales/en/leak.json")).unwrap();
    for path in ["/leak.txt", "/assets/up/secret.txt", "/locales/en/leak.json"] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 404, "{path}");
    }
    // A symlink that stays inside the build is still served.
    std::os::unix::fs::symlink(dist.join("assets/app-1234.js"), dist.join("assets/app.js")).unwrap();
    assert_eq!(app.get("/assets/app.js").await.status(), 200);
}

/// Item 9: credits and debits have an upper bound and never overflow into a 500.
#[actix_rt::test]
async fn credits_and_debits_are_bounded_and_never_overflow() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", "operator-token")]).await;
    let user_no = create_user_with_password(&app, "rich@example.com", "secret-1").await;
    let credit = |coins: i64| {
        app.client
            .post(app.url("/lust/admin/credit"))
            .bearer_auth("operator-token")
            .json(&json!({ "user": user_no, "coins": coins }))
            .send()
    };
    for coins in [i64::MAX, i64::MIN, i64::MIN + 1, 1_000_000_001, -1_000_000_001] {
        assert_eq!(credit(coins).await.unwrap().status(), 400, "{coins}");
    }
    // At the bound, over and over, the balance stays exact and below overflow.
    for _ in 0..3 {
        assert_eq!(credit(1_000_000_000).await.unwrap().status(), 200);
    }
    let response = credit(-1_000_000_000).await.unwrap();
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["coin"], 2_000_000_000i64);
}

/// Sends `head`, then trickles one byte of body every 200 ms; answers how long the server
/// took to close the connection (None: still open after `patience`), and what it answered.
async fn trickle(address: &str, head: &str, patience: Duration) -> (Option<Duration>, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = address.trim_start_matches("http://");
    let stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let started = std::time::Instant::now();
    writer.write_all(head.as_bytes()).await.unwrap();
    let trickling = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if writer.write_all(b"x").await.is_err() {
                return;
            }
        }
    });
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    let closed = loop {
        let left = patience.saturating_sub(started.elapsed());
        match tokio::time::timeout(left, reader.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break Some(started.elapsed()),
            Ok(Ok(n)) => answer.extend_from_slice(&buffer[..n]),
            Err(_) => break None,
        }
    };
    trickling.abort();
    (closed, String::from_utf8_lossy(&answer).into_owned())
}

/// Item 5: a body sent a byte at a time cannot hold a connection past the request deadline.
#[actix_rt::test]
async fn a_body_trickling_in_is_cut_off_at_the_request_deadline() {
    let app = spawn_app_with(&[("AMORA_HTTP__REQUEST_TIMEOUT_SECS", "2")]).await;
    let api = format!(
        "POST /lust/api/user/v1/config/getWebConfig HTTP/1.1\r\nHost: x\r\nsecretKey: {SECRET}\r\n\
         Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{{"
    );
    let (closed, answer) = trickle(&app.address, &api, Duration::from_secs(6)).await;
    let closed = closed.unwrap_or_else(|| panic!("still open after 6 s; answered {answer:?}"));
    assert!(closed < Duration::from_secs(4), "closed after {closed:?}");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    // A route that never reads the body answers, and then closes too.
    let page = "POST /lust/admin/credit HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n";
    let (closed, answer) = trickle(&app.address, page, Duration::from_secs(6)).await;
    assert!(closed.is_some_and(|d| d < Duration::from_secs(4)), "{closed:?} {answer}");
    let chunked = "POST /lust/api/webError HTTP/1.1\r\nHost: x\r\nsecretKey: TestSecretKey0123456789abcdefXYZ\r\n\
                   Transfer-Encoding: chunked\r\n\r\n1\r\n";
    let (closed, _) = trickle(&app.address, chunked, Duration::from_secs(6)).await;
    assert!(closed.is_some_and(|d| d < Duration::from_secs(4)), "chunked: {closed:?}");
}

/// Item 5: oversized headers are answered 431, not with a reset.
#[actix_rt::test]
async fn oversized_headers_are_answered_431() {
    let app = spawn_app_with(&[]).await;
    let big = "a".repeat(40 * 1024);
    let response = app.client.get(app.url("/healthz")).header("cookie", format!("junk={big}")).send().await.unwrap();
    assert_eq!(response.status(), 431);
    let mut request = app.client.get(app.url("/healthz"));
    for n in 0..120 {
        request = request.header(format!("x-filler-{n}"), "1");
    }
    assert_eq!(request.send().await.unwrap().status(), 431);
    assert_eq!(app.get("/healthz").await.status(), 200, "ordinary requests pass");
}

type WsStream = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the socket as `voucher` with an `Origin` header (or none); the handshake's status
/// when refused.
async fn open_socket(app: &TestApp, voucher: &str, origin: Option<&str>) -> Result<WsStream, u16> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let url = format!("{}/lust/api/ws?voucher={voucher}", app.address.replace("http://", "ws://"));
    let mut request = url.into_client_request().unwrap();
    if let Some(origin) = origin {
        request.headers_mut().insert("origin", origin.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((stream, _)) => Ok(stream),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => Err(response.status().as_u16()),
        Err(other) => panic!("socket: {other}"),
    }
}

/// The close code the server ends the socket with (after any events).
async fn close_code(stream: &mut WsStream) -> Option<u16> {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, stream.next()).await.ok()? {
            Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            _ => return None,
        }
    }
}

/// Item 6: upgrades from other sites' pages are refused; the site's own and non-browser
/// clients (no Origin) are let in.
#[actix_rt::test]
async fn sockets_from_other_origins_are_refused() {
    let app = spawn_app_with(&[("AMORA_HTTP__PUBLIC_BASE_URL", "https://amora.example")]).await;
    let (_, _, voucher) = crate::cluster::make_user(&app.store, "Oz").await;
    for origin in ["https://evil.example", "http://amora.example", "https://amora.example.evil.example", "null"] {
        assert_eq!(open_socket(&app, &voucher, Some(origin)).await.err(), Some(403), "{origin}");
    }
    assert!(open_socket(&app, &voucher, Some("https://amora.example")).await.is_ok());
    assert!(open_socket(&app, &voucher, None).await.is_ok());

    let app = spawn_app_with(&[
        ("AMORA_HTTP__PUBLIC_BASE_URL", "https://amora.example"),
        ("AMORA_HTTP__ALLOWED_ORIGINS", "https://amora.example, https://app.amora.example"),
    ])
    .await;
    let (_, _, voucher) = crate::cluster::make_user(&app.store, "Oz").await;
    assert!(open_socket(&app, &voucher, Some("https://app.amora.example")).await.is_ok());
    assert_eq!(open_socket(&app, &voucher, Some("https://evil.example")).await.err(), Some(403));
}

/// Item 6: protocol violations, invalid UTF-8 and oversized frames close with 1002, 1007, 1009.
#[actix_rt::test]
async fn socket_violations_close_with_their_codes() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
    let app = spawn_app_with(&[]).await;
    let (_, _, voucher) = crate::cluster::make_user(&app.store, "Vi").await;

    let mut socket = open_socket(&app, &voucher, None).await.unwrap();
    socket.send(Message::Text("x".repeat(64 * 1024).into())).await.unwrap();
    assert_eq!(close_code(&mut socket).await, Some(1009), "an oversized frame");

    let mut socket = open_socket(&app, &voucher, None).await.unwrap();
    let invalid_utf8 = Frame::message(vec![b'{', 0xff, 0xfe, b'}'], OpCode::Data(Data::Text), true);
    socket.send(Message::Frame(invalid_utf8)).await.unwrap();
    assert_eq!(close_code(&mut socket).await, Some(1007), "text that is not UTF-8");

    let mut socket = open_socket(&app, &voucher, None).await.unwrap();
    let stray = Frame::message(b"tail".to_vec(), OpCode::Data(Data::Continue), true);
    socket.send(Message::Frame(stray)).await.unwrap();
    assert_eq!(close_code(&mut socket).await, Some(1002), "a continuation that never started");
}

/// Starts a Discord flow in a browser of its own: (flow cookie, state, code challenge).
async fn start_discord_flow(app: &TestApp, page: &str) -> (String, String, Option<String>) {
    let start = app.client.get(app.url("/lust/api/discordLogin")).query(&[("state", page)]).send().await.unwrap();
    let location = url::Url::parse(start.headers()["location"].to_str().unwrap()).unwrap();
    let param = |name: &str| location.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    let cookie = start.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
    (cookie, param("state").unwrap_or_default(), param("code_challenge"))
}

async fn discord_callback(app: &TestApp, code: &str, state: &str, cookie: &str) -> String {
    let response = app
        .client
        .get(app.url("/lust/api/discordLoginBack"))
        .query(&[("code", code), ("state", state)])
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 302);
    if crate::accounts::session_cookie(response.headers()).is_some() {
        "signed in".into()
    } else {
        response.headers()["location"].to_str().unwrap().to_owned()
    }
}

/// Item 3: login CSRF. An attacker's own Discord code, slipped into a victim's browser with
/// a callback link, must not sign the victim into the attacker's account: not with the
/// victim's guessable page as `state`, not with the victim's real `state`, and a callback
/// works once only.
#[actix_rt::test]
async fn a_forged_discord_callback_cannot_sign_a_victim_in() {
    let (_provider, app) = provider_app().await;
    // The attacker starts a flow of their own and gets a code for their account.
    let (_, _, attacker_challenge) = start_discord_flow(&app, "/").await;
    let mut attacker = json!({ "id": "d-attacker", "username": "mallory", "verified": false });
    if let Some(challenge) = attacker_challenge {
        attacker["code_challenge"] = json!(challenge);
    }
    let attackers_code = code_for(&attacker);
    // The victim has started a flow from the home page.
    let (victim_cookie, victim_state, _) = start_discord_flow(&app, "/").await;
    assert_ne!(victim_state, "/", "state must not be the page");
    assert_eq!(discord_callback(&app, &attackers_code, "/", &victim_cookie).await, "/?signInFailed=1");
    // Even knowing the victim's state, the code was minted for another flow (PKCE).
    assert_eq!(discord_callback(&app, &attackers_code, &victim_state, &victim_cookie).await, "/?signInFailed=1");

    // A real flow works once; the same callback again (a replay) does not.
    let (cookie, state, challenge) = start_discord_flow(&app, "/").await;
    let mut user = json!({ "id": "d-once", "username": "once", "verified": false });
    if let Some(challenge) = challenge {
        user["code_challenge"] = json!(challenge);
    }
    let code = code_for(&user);
    assert_eq!(discord_callback(&app, &code, &state, &cookie).await, "signed in");
    assert_eq!(discord_callback(&app, &code, &state, &cookie).await, "/?signInFailed=1", "replayed");
    // A flow cookie written by someone else than the server is not a flow.
    let forged =
        format!("amora_oauth={}", crate::support::code_for(&json!({ "nonce": "n", "state": "/", "started": 0 })));
    assert_eq!(discord_callback(&app, &code, "/", &forged).await, "/?signInFailed=1");
}

/// Signs in by ID and password; answers the voucher.
async fn password_voucher(app: &TestApp, user_no: &str, password: &str) -> String {
    let envelope = app.password_login(user_no, password).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    envelope.data["voucher"].as_str().unwrap().to_owned()
}

/// Sends `ping` and answers the next event's name (but `hello` and `tokenCount`), or the close
/// code as "closed NNNN".
async fn ping(socket: &mut WsStream) -> String {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let _ = socket.send(Message::Text(json!({ "action": "ping", "data": {} }).to_string().into())).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, socket.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => {
                let event: serde_json::Value = serde_json::from_str(&text).unwrap();
                // `tokenCount` comes unasked: a node's first resync after it said it was
                // ready tells the sockets open by then their balance (see `wait_for_coin`).
                if event["event"] != "hello" && event["event"] != "tokenCount" {
                    return event["event"].as_str().unwrap_or_default().to_owned();
                }
            }
            Ok(Some(Ok(Message::Close(frame)))) => {
                return format!("closed {}", frame.map_or(0, |f| u16::from(f.code)));
            }
            Ok(Some(Ok(_))) => continue,
            other => return format!("ended: {other:?}"),
        }
    }
}

/// Item 3: a password change ends the user's other sessions and closes their sockets,
/// keeping the session it was made in; sign-out and deletion close sockets too.
#[actix_rt::test]
async fn a_password_change_ends_the_other_sessions_and_their_sockets() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", "operator-token")]).await;
    let user_no = create_user_with_password(&app, "sessions@example.com", "first-pass").await;
    let here = password_voucher(&app, &user_no, "first-pass").await;
    let elsewhere = password_voucher(&app, &user_no, "first-pass").await;
    let mut here_socket = open_socket(&app, &here, None).await.unwrap();
    let mut elsewhere_socket = open_socket(&app, &elsewhere, None).await.unwrap();
    assert_eq!(ping(&mut elsewhere_socket).await, "pong");

    assert_eq!(app.set_password(&here, Some("first-pass"), "second-pass").await.code, 200);
    assert_eq!(app.user_info_as(&elsewhere).await.data, serde_json::Value::Null, "the other session ended");
    assert_eq!(close_code(&mut elsewhere_socket).await, Some(1008), "its socket closed");
    assert_eq!(app.user_info_as(&here).await.data["userNo"], user_no.as_str(), "this session stays");
    assert_eq!(ping(&mut here_socket).await, "pong", "and so does its socket");

    // Signing out closes that session's socket, not another's.
    let third = password_voucher(&app, &user_no, "second-pass").await;
    let mut third_socket = open_socket(&app, &third, None).await.unwrap();
    assert_eq!(ping(&mut third_socket).await, "pong");
    app.sign_out(&third).await;
    assert_eq!(close_code(&mut third_socket).await, Some(1008));
    assert_eq!(ping(&mut here_socket).await, "pong");

    // Deleting the account closes every socket of it.
    app.delete_user(&here).await;
    assert_eq!(close_code(&mut here_socket).await, Some(1008));
}

/// Item 3: no socket action runs for a session that ended, even before the socket hears of it.
#[actix_rt::test]
async fn no_socket_action_runs_for_a_revoked_session() {
    let app = spawn_app_with(&[]).await;
    let (_, _, voucher) = crate::cluster::make_user(&app.store, "Rev").await;
    let mut socket = open_socket(&app, &voucher, None).await.unwrap();
    assert_eq!(ping(&mut socket).await, "pong");
    // Revoked behind the server's back: no event tells the socket.
    app.store.sessions.revoke(&amora_server::auth::token_hash(&voucher)).await.unwrap();
    assert_eq!(ping(&mut socket).await, "closed 1008");
}

async fn admin_call(app: &TestApp, path: &str, user: &str) -> (u16, serde_json::Value) {
    let response = app
        .client
        .post(app.url(&format!("/lust/admin/{path}")))
        .bearer_auth("operator-token")
        .json(&json!({ "user": user }))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or_default())
}

/// Item 3: an operator suspension ends every session and socket of the account, and it
/// cannot sign in (10005) until the suspension is lifted.
#[actix_rt::test]
async fn a_suspended_account_is_signed_out_everywhere_and_cannot_sign_in() {
    let app = spawn_app_with(&[("AMORA_ADMIN__TOKEN", "operator-token")]).await;
    let user_no = create_user_with_password(&app, "suspect@example.com", "pass-word").await;
    let voucher = password_voucher(&app, &user_no, "pass-word").await;
    let mut socket = open_socket(&app, &voucher, None).await.unwrap();
    assert_eq!(ping(&mut socket).await, "pong");

    let (status, answer) = admin_call(&app, "suspend", &user_no).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("suspended")));
    assert_eq!(close_code(&mut socket).await, Some(1008), "the socket closed");
    assert_eq!(app.user_info_as(&voucher).await.data, serde_json::Value::Null, "the session ended");
    let refused = app.password_login(&user_no, "pass-word").await;
    assert_eq!((refused.code, refused.msg.as_str()), (10005, "This account is suspended."));
    assert_eq!(app.password_login(&user_no, "wrong-word").await.code, 10012, "guessers learn nothing");
    assert!(open_socket(&app, &voucher, None).await.is_err());

    let (status, answer) = admin_call(&app, "unsuspend", &user_no).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("unsuspended")));
    assert_eq!(app.password_login(&user_no, "pass-word").await.code, 200);
    assert_eq!(admin_call(&app, "unsuspend", &user_no).await.1["outcome"], "notSuspended");
}

/// An OpenAI-compatible chat service on loopback that writes one reply at a time, as a
/// small self-hosted model server does, and answers 429 while it is busy (the published
/// "rate limit" answer). Each reply streams five chunks, 150 ms apart.
struct OneAtATimeModel {
    base: String,
}

impl OneAtATimeModel {
    async fn start() -> Self {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        let busy = Arc::new(AtomicBool::new(false));
        let server = actix_web::HttpServer::new(move || {
            let busy = busy.clone();
            actix_web::App::new().route(
                "/v1/chat/completions",
                actix_web::web::post().to(move || {
                    let busy = busy.clone();
                    async move {
                        if busy.swap(true, Ordering::SeqCst) {
                            return actix_web::HttpResponse::TooManyRequests()
                                .json(json!({ "error": { "message": "busy", "type": "rate_limit" } }));
                        }
                        struct Free(Arc<AtomicBool>);
                        impl Drop for Free {
                            fn drop(&mut self) {
                                self.0.store(false, Ordering::SeqCst);
                            }
                        }
                        let free = Free(busy);
                        let chunks = futures_util::stream::unfold((0, free), |(n, free)| async move {
                            if n > 5 {
                                return None;
                            }
                            tokio::time::sleep(Duration::from_millis(150)).await;
                            let line = if n == 5 {
                                "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n".to_owned()
                            } else {
                                format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"word{n} \"}}}}]}}\n\n")
                            };
                            Some((Ok::<_, actix_web::Error>(actix_web::web::Bytes::from(line)), (n + 1, free)))
                        });
                        actix_web::HttpResponse::Ok().content_type("text/event-stream").streaming(chunks)
                    }
                }),
            )
        })
        .workers(1)
        .bind(("127.0.0.1", 0))
        .unwrap();
        let port = server.addrs()[0].port();
        actix_rt::spawn(server.run());
        Self { base: format!("http://127.0.0.1:{port}/v1") }
    }
}

/// Sends `chatSend` to `character` and answers how its reply ended: "done", or the code.
async fn reply_outcome(socket: &mut crate::cluster::Socket, character: &str) -> String {
    loop {
        let event = socket.next_event(Duration::from_secs(30)).await.expect("an event");
        if event["data"]["characterId"] != character {
            continue;
        }
        match event["event"].as_str() {
            Some("chatDone") => return "done".into(),
            Some("chatError") => return event["data"]["code"].to_string(),
            _ => continue,
        }
    }
}

/// Item 7: two users, one flooding. The flooder asks four characters at once; with the
/// model writing one reply at a time, the flooder gets two replies in (one written, one
/// waiting) and is told to wait for the others, while the other user's message, sent
/// during the flood, is answered rather than refused as "busy".
#[actix_rt::test]
async fn one_users_burst_does_not_starve_another() {
    let model = OneAtATimeModel::start().await;
    let app = spawn_app_env(vec![
        ("AMORA_CHAT__MODEL__KIND".into(), "openai".into()),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL".into(), model.base.clone()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL".into(), "one-at-a-time".into()),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS".into(), "0".into()),
        ("AMORA_CHAT__REPLIES_AT_ONCE".into(), "1".into()),
        ("AMORA_CHAT__REPLIES_WAITING".into(), "4".into()),
    ])
    .await;
    let mut sockets = Vec::new();
    for name in ["Flood", "Calm"] {
        let (user_id, _, voucher) = crate::cluster::make_user(&app.store, name).await;
        // Paid, so every character is open and no daily credit runs out.
        app.store.users.update(&user_id, amora_store::UserChange::VipType(1)).await.unwrap();
        let url = format!("{}/lust/api/ws?voucher={voucher}", app.address.replacen("http", "ws", 1));
        let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        let mut socket = crate::cluster::Socket { stream };
        socket.wait_for("hello", Duration::from_secs(10)).await.expect("hello");
        sockets.push(socket);
    }
    let (mut flood, mut calm) = (sockets.remove(0), sockets.remove(0));
    let characters = ["gf-001", "gf-002", "gf-003", "gf-004"];
    for character in characters {
        crate::chat::send(&mut flood, character, "Tell me everything!").await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = std::time::Instant::now();
    crate::chat::send(&mut calm, "bf-001", "Hello there").await;
    let calm_outcome = reply_outcome(&mut calm, "bf-001").await;
    let calm_took = started.elapsed();
    let mut outcomes = std::collections::BTreeMap::new();
    while outcomes.len() < characters.len() {
        let event = flood.next_event(Duration::from_secs(30)).await.expect("an event of the flood");
        let character = event["data"]["characterId"].as_str().unwrap_or_default().to_owned();
        match event["event"].as_str() {
            Some("chatDone") => outcomes.insert(character, "done".to_owned()),
            Some("chatError") => outcomes.insert(character, event["data"]["code"].to_string()),
            _ => None,
        };
    }
    let flood_outcomes: Vec<String> = outcomes.into_values().collect();
    assert_eq!(
        calm_outcome, "done",
        "the calm user's reply was written ({calm_took:?}); the flood: {flood_outcomes:?}"
    );
    let done = flood_outcomes.iter().filter(|o| *o == "done").count();
    let told_to_wait = flood_outcomes.iter().filter(|o| *o == "10003").count();
    assert_eq!((done, told_to_wait), (2, 2), "{flood_outcomes:?}");
    // One reply takes about 0.9 s: the calm user waited for at most the flooder's two.
    assert!(calm_took < Duration::from_secs(4), "{calm_took:?}");
}

/// Item 3: a sign-out on one node closes the session's socket on another (through Redis).
#[actix_rt::test]
async fn signing_out_on_one_node_closes_the_socket_on_another() {
    use crate::cluster::{Redis, ServerProcess, data_dir, make_user, shared_store};
    let redis = Redis::start().await;
    let (_temp, dir) = data_dir();
    let env = [("AMORA_REDIS__URL", redis.url())];
    let a = ServerProcess::start(&dir, &env).await;
    let b = ServerProcess::start(&dir, &env).await;
    let store = shared_store(&dir);
    let (_, _, voucher) = make_user(&store, "Nodes").await;
    let (_, _, other_voucher) = make_user(&store, "Other").await;
    let on_b = TestApp::remote(b.url(""), store.clone());
    let mut socket = open_socket(&on_b, &voucher, None).await.unwrap();
    let mut other_socket = open_socket(&on_b, &other_voucher, None).await.unwrap();
    assert_eq!(ping(&mut socket).await, "pong");

    let on_a = TestApp::remote(a.url(""), store.clone());
    assert_eq!(on_a.sign_out(&voucher).await.data, json!(true));
    assert_eq!(close_code(&mut socket).await, Some(1008), "closed on node B");
    assert_eq!(ping(&mut other_socket).await, "pong", "another user's socket stays");
}
