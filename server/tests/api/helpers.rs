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
    ];
    env.extend(overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let settings = Settings::load_from(None, env).expect("settings");
    amora_server::observability::init_logging(&settings.log);

    let app = Application::build(settings).await.expect("application");
    let address = format!("http://127.0.0.1:{}", app.port());
    let store = app.store();
    actix_rt::spawn(app.run_until_stopped());

    TestApp {
        address,
        client: reqwest::Client::new(),
        store,
        data_dir,
        key: EnvelopeKey::from_secret(SECRET).expect("key"),
        _temp: temp,
    }
}

impl TestApp {
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
        let body = json!({ "requestData": self.key.encrypt(payload.to_string().as_bytes()) });
        let response = self.post_raw(path, body.to_string()).await;
        assert_eq!(response.status(), 200, "{path}");
        self.open(&response.json().await.expect("JSON body"))
    }

    pub async fn get_api(&self, path_and_query: &str) -> Envelope {
        let response = self
            .client
            .get(self.url(&format!("/lust/api{path_and_query}")))
            .header("secretKey", SECRET)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 200, "{path_and_query}");
        self.open(&response.json().await.expect("JSON body"))
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.expect("request")
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
