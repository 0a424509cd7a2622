//! `spawn_app()` starts the real server on a free port with a fresh database file and a
//! tiny static site; `TestApp` has one method per endpoint, speaking the envelope.

use std::path::PathBuf;

use amora_server::envelope::EnvelopeKey;
use amora_server::settings::Settings;
use amora_server::startup::Application;
use amora_store::Store;
use serde_json::{Value, json};
use tempfile::TempDir;

pub const SECRET: &str = "TestSecretKey0123456789abcdefXYZ";
pub const INDEX_HTML: &str = "<!doctype html><title>Amora test build</title>";

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub store: Store,
    pub data_dir: PathBuf,
    key: EnvelopeKey,
    _temp: TempDir,
}

/// What came back inside `responseData`.
#[derive(Debug)]
pub struct Envelope {
    pub code: u64,
    pub msg: String,
    pub success: bool,
    pub data: Value,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

/// Starts the app with extra `AMORA_*` overrides.
pub async fn spawn_app_with(overrides: &[(&str, &str)]) -> TestApp {
    spawn_app_env(overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()).await
}

/// Starts the app with extra `AMORA_*` overrides given as owned pairs.
pub async fn spawn_app_env(overrides: Vec<(String, String)>) -> TestApp {
    spawn_app_customised(overrides, |_| {}).await
}

/// Starts the app with overrides, then `customise` on the settings (values no variable
/// carries well, such as a loopback processor's whole settings).
pub async fn spawn_app_customised(overrides: Vec<(String, String)>, customise: impl FnOnce(&mut Settings)) -> TestApp {
    let temp = tempfile::tempdir().expect("temp dir");
    let static_dir = temp.path().join("dist");
    std::fs::create_dir_all(static_dir.join("locales/en")).expect("static dir");
    std::fs::create_dir_all(static_dir.join("assets")).expect("assets dir");
    std::fs::write(static_dir.join("index.html"), INDEX_HTML).expect("index");
    std::fs::write(static_dir.join("locales/en/translation.json"), r#"{"hello":"Hello"}"#).expect("locale");
    std::fs::write(static_dir.join("assets/app-1234.js"), "console.log(1)").expect("asset");
    let data_dir = temp.path().join("data");

    let mut env: Vec<(String, String)> = vec![
        ("AMORA_HTTP__HOST".into(), "127.0.0.1".into()),
        ("AMORA_HTTP__PORT".into(), "0".into()),
        ("AMORA_HTTP__WORKERS".into(), "2".into()),
        ("AMORA_HTTP__STATIC_DIR".into(), static_dir.display().to_string()),
        ("AMORA_STORE__DATA_DIR".into(), data_dir.display().to_string()),
        ("AMORA_LOG__FILTER".into(), "warn".into()),
        // Most tests never chat: the model loads at the first message, not at start-up.
        ("AMORA_CHAT__PRELOAD".into(), "false".into()),
    ];
    env.extend(overrides);
    let mut settings = Settings::load_from(None, env).expect("settings");
    customise(&mut settings);
    amora_server::observability::init_logging(&settings.log);

    // Boxed: with the CQL store its future is large, and a test thread's stack is small.
    let app = Box::pin(Application::build(settings)).await.expect("application");
    let address = format!("http://127.0.0.1:{}", app.port());
    let store = app.store();
    actix_rt::spawn(app.run_until_stopped());

    TestApp {
        address,
        // Redirects are part of what sign-in tests look at, so they are never followed.
        client: reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client"),
        store,
        data_dir,
        key: EnvelopeKey::from_secret(SECRET).expect("key"),
        _temp: temp,
    }
}

impl TestApp {
    /// The API helpers of a test app, aimed at a node running in another process.
    pub fn remote(address: String, store: Store) -> TestApp {
        let temp = tempfile::tempdir().expect("temp dir");
        TestApp {
            address,
            client: reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client"),
            store,
            data_dir: temp.path().join("data"),
            key: EnvelopeKey::from_secret(SECRET).expect("key"),
            _temp: temp,
        }
    }

    pub fn key(&self) -> &EnvelopeKey {
        &self.key
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// Decrypts a `{"responseData": ...}` body.
    pub fn open(&self, body: &Value) -> Envelope {
        let wire = body["responseData"].as_str().unwrap_or_else(|| panic!("no responseData in {body}"));
        let plaintext = self.key.decrypt(wire).expect("decrypt response");
        let value: Value = serde_json::from_slice(&plaintext).expect("envelope JSON");
        Envelope {
            code: value["code"].as_u64().expect("code"),
            msg: value["msg"].as_str().expect("msg").to_owned(),
            success: value["success"].as_bool().expect("success"),
            data: value["data"].clone(),
        }
    }

    /// POSTs a raw body with the test secret key; the caller inspects the response.
    pub async fn post_raw(&self, path: &str, body: impl Into<reqwest::Body>) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/lust/api{path}")))
            .header("secretKey", SECRET)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("request")
    }

    /// POSTs an encrypted payload and opens the encrypted answer.
    pub async fn post_api(&self, path: &str, payload: Value) -> Envelope {
        self.post_api_as(None, path, payload).await.0
    }

    /// POSTs as the holder of `voucher` (if any); returns the envelope and the response headers.
    pub async fn post_api_as(
        &self,
        voucher: Option<&str>,
        path: &str,
        payload: Value,
    ) -> (Envelope, reqwest::header::HeaderMap) {
        self.post_api_with(voucher, &[], path, payload).await
    }

    /// Like `post_api_as`, with extra request headers (`nsfw`, ...) as browsers send them.
    pub async fn post_api_with(
        &self,
        voucher: Option<&str>,
        headers: &[(&str, &str)],
        path: &str,
        payload: Value,
    ) -> (Envelope, reqwest::header::HeaderMap) {
        let body = json!({ "requestData": self.key.encrypt(payload.to_string().as_bytes()) });
        let mut request = self
            .client
            .post(self.url(&format!("/lust/api{path}")))
            .header("secretKey", SECRET)
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(voucher) = voucher {
            request = request.header("voucher", voucher);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("request");
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers().clone();
        (self.open(&response.json().await.expect("JSON body")), headers)
    }

    pub async fn get_api(&self, path_and_query: &str) -> Envelope {
        self.get_api_as(None, path_and_query).await
    }

    pub async fn get_api_as(&self, voucher: Option<&str>, path_and_query: &str) -> Envelope {
        let mut request = self.client.get(self.url(&format!("/lust/api{path_and_query}"))).header("secretKey", SECRET);
        if let Some(voucher) = voucher {
            request = request.header("voucher", voucher);
        }
        let response = request.send().await.expect("request");
        assert_eq!(response.status(), 200, "{path_and_query}");
        self.open(&response.json().await.expect("JSON body"))
    }

    /// GETs with a session cookie instead of a voucher.
    pub async fn get_api_with_cookie(&self, cookie: &str, path_and_query: &str) -> Envelope {
        let response = self
            .client
            .get(self.url(&format!("/lust/api{path_and_query}")))
            .header("secretKey", SECRET)
            .header("cookie", cookie)
            .send()
            .await
            .expect("request");
        self.open(&response.json().await.expect("JSON body"))
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.expect("request")
    }

    /// `/metrics` as the operator reads it, with the operator API's bearer token.
    pub async fn metrics(&self, operator_token: &str) -> String {
        let response = self.client.get(self.url("/metrics")).bearer_auth(operator_token).send().await.expect("request");
        assert_eq!(response.status(), 200, "/metrics");
        response.text().await.expect("metrics text")
    }

    pub async fn character_list(&self, page_no: i64, page_size: i64, gender: i64) -> Envelope {
        self.post_api(
            "/user/v1/character/getCharacterList",
            json!({ "pageNo": page_no, "pageSize": page_size, "gender": gender }),
        )
        .await
    }

    pub async fn character_info(&self, character_id: &str) -> Envelope {
        self.post_api("/user/v1/character/getCharacterInfo", json!({ "characterId": character_id })).await
    }

    pub async fn web_config(&self) -> Envelope {
        self.post_api("/user/v1/config/getWebConfig", json!({})).await
    }

    pub async fn vip_data(&self) -> Envelope {
        self.post_api("/user/v1/getVipData", json!({})).await
    }

    pub async fn user_info(&self) -> Envelope {
        self.get_api("/user/v1/getUserInfo").await
    }

    pub async fn user_info_as(&self, voucher: &str) -> Envelope {
        self.get_api_as(Some(voucher), "/user/v1/getUserInfo").await
    }

    pub async fn send_sign_in_link(&self, email: &str) -> Envelope {
        self.post_api("/login/v1/sendRegisterUserEmail", json!({ "emailAddress": email, "cfToken": "test-token" }))
            .await
    }

    pub async fn password_login(&self, user_no: &str, password: &str) -> Envelope {
        self.post_api("/login/v1/userPasswordLogin", json!({ "userNo": user_no, "password": password })).await
    }

    pub async fn set_password(&self, voucher: &str, old: Option<&str>, new: &str) -> Envelope {
        self.post_api_as(
            Some(voucher),
            "/user/v1/updateUserPassword",
            json!({ "oldPassword": old, "newPassword": new }),
        )
        .await
        .0
    }

    pub async fn sign_out(&self, voucher: &str) -> Envelope {
        self.get_api_as(Some(voucher), "/login/v1/signOut").await
    }

    pub async fn delete_user(&self, voucher: &str) -> Envelope {
        self.post_api_as(Some(voucher), "/user/v1/deleteUser", json!({})).await.0
    }

    pub async fn web_error(&self, report: Value) -> Envelope {
        self.post_api("/webError", report).await
    }

    pub async fn spm(&self, query: &str) -> Envelope {
        self.get_api(&format!("/spm?{query}")).await
    }
}

/// The ids in a list of character cards.
pub fn ids(cards: &Value) -> Vec<String> {
    cards.as_array().expect("array").iter().map(|c| c["characterId"].as_str().expect("id").to_owned()).collect()
}
