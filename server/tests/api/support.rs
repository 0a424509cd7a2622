//! Real peers for the sign-in tests: an SMTP server (aiosmtpd, started from Python) and an
//! identity provider speaking the Google and Discord protocols on loopback, signing ID
//! tokens with an RSA key of its own and publishing it as a JWKS.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rsa::pkcs1::EncodeRsaPrivateKey;
use rsa::traits::PublicKeyParts;
use serde_json::{Value, json};

/// An aiosmtpd server writing each message it receives as JSON into a folder.
pub struct SmtpSink {
    pub port: u16,
    folder: tempfile::TempDir,
    child: Child,
}

impl SmtpSink {
    pub fn start() -> Self {
        let python = std::env::var("AMORA_PYTHON").unwrap_or_else(|_| "python3".into());
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/smtp_sink.py");
        let folder = tempfile::tempdir().unwrap();
        let mut child = Command::new(&python)
            .arg(script)
            .arg(folder.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {python} (set AMORA_PYTHON to a Python with aiosmtpd): {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port =
            line.trim().strip_prefix("ready ").and_then(|p| p.parse().ok()).unwrap_or_else(|| {
                panic!("the SMTP sink did not start (is aiosmtpd installed for {python}?): {line:?}")
            });
        Self { port, folder, child }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Waits for the first message to `to` and returns it (from, to, subject, text, html).
    pub async fn wait_for(&self, to: &str) -> Value {
        self.wait_for_nth(to, 1).await
    }

    /// Waits until `to` has received `n` messages and returns the n-th.
    pub async fn wait_for_nth(&self, to: &str, n: usize) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(message) = self.messages_to(to).into_iter().nth(n - 1) {
                return message;
            }
            assert!(Instant::now() < deadline, "mail number {n} never reached {to}");
            actix_rt::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub fn messages_to(&self, to: &str) -> Vec<Value> {
        let addressed = |m: &Value| m["to"].as_array().is_some_and(|list| list.iter().any(|r| r == to));
        self.messages().into_iter().filter(addressed).collect()
    }

    pub fn messages(&self) -> Vec<Value> {
        let mut paths: Vec<_> = std::fs::read_dir(self.folder.path())
            .unwrap()
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        paths.sort();
        paths.iter().map(|path| serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()).collect()
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The sign-in link in a mail's text.
pub fn link_in(message: &Value) -> String {
    let text = message["text"].as_str().unwrap();
    text.split_whitespace().find(|word| word.contains("/emailLoginBack?token=")).expect("a sign-in link").to_owned()
}

pub const GOOGLE_CLIENT_ID: &str = "test-google-client.apps.example";
pub const DISCORD_CLIENT_ID: &str = "test-discord-client";
const KEY_ID: &str = "amora-test-key";

static SIGNING_KEY: LazyLock<rsa::RsaPrivateKey> =
    LazyLock::new(|| rsa::RsaPrivateKey::new(&mut rand::thread_rng(), 2048).expect("RSA key"));

/// Signs Google-style ID token claims with the provider's key; `overrides` replace defaults.
pub fn google_id_token(overrides: Value) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let mut claims = json!({
        "iss": "https://accounts.google.com",
        "aud": GOOGLE_CLIENT_ID,
        "sub": "google-subject-1",
        "email": "gina@example.com",
        "email_verified": true,
        "name": "Gina",
        "iat": now,
        "exp": now + 600,
    });
    for (key, value) in overrides.as_object().unwrap() {
        claims[key] = value.clone();
    }
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(KEY_ID.into());
    let der = SIGNING_KEY.to_pkcs1_der().unwrap();
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_rsa_der(der.as_bytes())).unwrap()
}

/// Builds the authorisation code the provider will accept: the claims (Google) or user
/// (Discord) it should vouch for, carried in the code itself.
pub fn code_for(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

fn decode_code(code: &str) -> Value {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(code).unwrap()).unwrap()
}

/// An identity provider on loopback with Google's and Discord's endpoints.
pub struct IdentityProvider {
    pub base: String,
}

impl IdentityProvider {
    pub async fn start() -> Self {
        let server = HttpServer::new(|| {
            App::new()
                .route("/jwks", web::get().to(jwks))
                .route("/google/token", web::post().to(google_token))
                .route("/discord/token", web::post().to(discord_token))
                .route("/discord/users/@me", web::get().to(discord_user))
        })
        .workers(1)
        .bind(("127.0.0.1", 0))
        .unwrap();
        let port = server.addrs()[0].port();
        actix_rt::spawn(server.run());
        Self { base: format!("http://127.0.0.1:{port}") }
    }

    /// The `AMORA_*` settings that point Amora at this provider.
    pub fn settings(&self) -> Vec<(String, String)> {
        vec![
            ("AMORA_OAUTH__GOOGLE__CLIENT_ID".into(), GOOGLE_CLIENT_ID.into()),
            ("AMORA_OAUTH__GOOGLE__CLIENT_SECRET".into(), "google-secret".into()),
            ("AMORA_OAUTH__GOOGLE__AUTH_URL".into(), format!("{}/google/auth", self.base)),
            ("AMORA_OAUTH__GOOGLE__TOKEN_URL".into(), format!("{}/google/token", self.base)),
            ("AMORA_OAUTH__GOOGLE__JWKS_URL".into(), format!("{}/jwks", self.base)),
            ("AMORA_OAUTH__DISCORD__CLIENT_ID".into(), DISCORD_CLIENT_ID.into()),
            ("AMORA_OAUTH__DISCORD__CLIENT_SECRET".into(), "discord-secret".into()),
            ("AMORA_OAUTH__DISCORD__AUTH_URL".into(), format!("{}/discord/auth", self.base)),
            ("AMORA_OAUTH__DISCORD__TOKEN_URL".into(), format!("{}/discord/token", self.base)),
            ("AMORA_OAUTH__DISCORD__USER_URL".into(), format!("{}/discord/users/@me", self.base)),
        ]
    }
}

async fn jwks() -> HttpResponse {
    let public = SIGNING_KEY.to_public_key();
    HttpResponse::Ok().json(json!({ "keys": [{
        "kty": "RSA", "kid": KEY_ID, "alg": "RS256", "use": "sig",
        "n": URL_SAFE_NO_PAD.encode(public.n().to_bytes_be()),
        "e": URL_SAFE_NO_PAD.encode(public.e().to_bytes_be()),
    }]}))
}

fn form_field(body: &str, name: &str) -> Option<String> {
    url::form_urlencoded::parse(body.as_bytes()).find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

/// PKCE (RFC 7636 §4.6): a code issued with a `code_challenge` is redeemed only with the
/// verifier whose S256 hash it is. The test puts the challenge into the code it builds.
fn pkce_holds(code: &Value, body: &str) -> bool {
    use sha2::{Digest, Sha256};
    let Some(challenge) = code.get("code_challenge").and_then(Value::as_str) else {
        return true;
    };
    let verifier = form_field(body, "code_verifier").unwrap_or_default();
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) == challenge
}

async fn google_token(body: String) -> HttpResponse {
    if form_field(&body, "client_secret").as_deref() != Some("google-secret") {
        return HttpResponse::Unauthorized().json(json!({ "error": "invalid_client" }));
    }
    let mut claims = decode_code(&form_field(&body, "code").unwrap_or_default());
    if !pkce_holds(&claims, &body) {
        return HttpResponse::BadRequest().json(json!({ "error": "invalid_grant" }));
    }
    if let Some(object) = claims.as_object_mut() {
        object.remove("code_challenge");
    }
    HttpResponse::Ok().json(json!({ "id_token": google_id_token(claims), "access_token": "unused" }))
}

async fn discord_token(body: String) -> HttpResponse {
    if form_field(&body, "client_secret").as_deref() != Some("discord-secret") {
        return HttpResponse::Unauthorized().json(json!({ "error": "invalid_client" }));
    }
    if !pkce_holds(&decode_code(&form_field(&body, "code").unwrap_or_default()), &body) {
        return HttpResponse::BadRequest().json(json!({ "error": "invalid_grant" }));
    }
    // The access token is the code itself: it carries the user to report.
    HttpResponse::Ok().json(json!({ "access_token": form_field(&body, "code"), "token_type": "Bearer" }))
}

async fn discord_user(req: HttpRequest) -> HttpResponse {
    let token =
        req.headers().get("authorization").and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    match token {
        Some(token) => HttpResponse::Ok().json(decode_code(token)),
        None => HttpResponse::Unauthorized().finish(),
    }
}
