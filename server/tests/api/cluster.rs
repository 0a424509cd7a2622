//! Several real `amora` processes on loopback sharing one store file and one Redis, as
//! the multi-node topology runs them; and the tools to drive them: users with sessions,
//! sockets, admin credits, process memory.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use amora_domain::account::{UserId, UserNo};
use amora_store::embedded::EmbeddedStore;
use amora_store::{NewUser, SessionRecord, Store};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

pub const ADMIN_TOKEN: &str = "test-admin-token-0123456789";

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A real Redis server on loopback that can be killed and brought back on the same port.
pub struct Redis {
    pub port: u16,
    child: Option<Child>,
}

impl Redis {
    pub async fn start() -> Self {
        let mut redis = Self { port: free_port(), child: None };
        redis.restart().await;
        redis
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    pub async fn restart(&mut self) {
        let binary = std::env::var("AMORA_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        let child = Command::new(&binary)
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {binary} (apt-get install redis-server): {e}"));
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await.is_err() {
            assert!(Instant::now() < deadline, "redis did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Freezes the server (SIGSTOP): connections stay open and nothing is answered, as
    /// when the Redis host hangs.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets a paused server run again (SIGCONT).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        let child = self.child.as_ref().expect("redis is running");
        let status = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
        assert!(status.success(), "kill {signal} redis");
    }

    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One `amora` process.
pub struct ServerProcess {
    pub port: u16,
    child: Child,
}

impl ServerProcess {
    /// Starts a node on a free port with `data_dir` and extra `AMORA_*` settings; waits until ready.
    /// A node that exits before it is ready is started again on another port, at most
    /// three times: `free_port` can hand out a port another test takes before the node
    /// binds it (seen in CI: "Address already in use").
    pub async fn start(data_dir: &Path, extra: &[(&str, String)]) -> Self {
        for _ in 0..3 {
            let port = free_port();
            let mut command = Command::new(env!("CARGO_BIN_EXE_amora"));
            command
                .env("AMORA_HTTP__HOST", "127.0.0.1")
                .env("AMORA_HTTP__PORT", port.to_string())
                .env("AMORA_HTTP__WORKERS", "2")
                .env("AMORA_STORE__DATA_DIR", data_dir)
                .env("AMORA_ADMIN__TOKEN", ADMIN_TOKEN)
                .env("AMORA_LOG__FILTER", "warn")
                .env("AMORA_CHAT__PRELOAD", "false")
                .stdout(Stdio::null())
                .stderr(Stdio::inherit());
            for (key, value) in extra {
                command.env(key, value);
            }
            let mut process = Self { port, child: command.spawn().unwrap() };
            let deadline = Instant::now() + Duration::from_secs(60);
            while process.readiness().await != 200 {
                if process.child.try_wait().unwrap().is_some() {
                    break;
                }
                assert!(Instant::now() < deadline, "the node did not become ready");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            // (A port taken by another test's node answers too: ours is then seen exiting.)
            tokio::time::sleep(Duration::from_millis(200)).await;
            if process.child.try_wait().unwrap().is_none() {
                return process;
            }
        }
        panic!("the node exited three times before it was ready");
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `/readyz` status, or 0 when the node does not answer.
    pub async fn readiness(&self) -> u16 {
        match reqwest::get(self.url("/readyz")).await {
            Ok(response) => response.status().as_u16(),
            Err(_) => 0,
        }
    }

    pub async fn wait_ready(&mut self, within: Duration) {
        let deadline = Instant::now() + within;
        while self.readiness().await != 200 {
            assert!(self.child.try_wait().unwrap().is_none(), "the node exited");
            assert!(Instant::now() < deadline, "the node did not become ready");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Resident memory of the process, in KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .unwrap()
    }

    /// `POST /lust/admin/credit`; returns the HTTP status and the answer.
    pub async fn admin_credit(
        &self,
        client: &reqwest::Client,
        user: &str,
        coins: i64,
        txn_id: Option<&str>,
    ) -> (u16, Value) {
        let response = client
            .post(self.url("/lust/admin/credit"))
            .bearer_auth(ADMIN_TOKEN)
            .json(&json!({ "user": user, "coins": coins, "txnId": txn_id }))
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }

    /// Opens a socket as the holder of `voucher`.
    pub async fn socket(&self, voucher: &str) -> Socket {
        let url = format!("ws://127.0.0.1:{}/lust/api/ws?voucher={voucher}", self.port);
        let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Socket { stream }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Socket {
    pub stream: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
}

impl Socket {
    /// The next event, or `None` when the socket closed or nothing came within `within`.
    pub async fn next_event(&mut self, within: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let message = tokio::time::timeout_at(deadline, self.stream.next()).await.ok()??;
            match message.ok()? {
                Message::Text(text) => return serde_json::from_str(&text).ok(),
                Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    /// Waits for an event named `name`, skipping others.
    pub async fn wait_for(&mut self, name: &str, within: Duration) -> Option<Value> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            let event = self.next_event(deadline - Instant::now()).await?;
            if event["event"] == name {
                return Some(event);
            }
        }
        None
    }

    /// Waits for a `tokenCount` of `coin`, skipping other events and earlier counts: a node
    /// whose bus came up just before the socket opened may still resynchronise its actors
    /// and announce the balance of that moment (a true one, never older than what the
    /// socket was told) before the news the test waits for.
    pub async fn wait_for_coin(&mut self, coin: i64, within: Duration) -> Option<Value> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            let event = self.wait_for("tokenCount", deadline - Instant::now()).await?;
            if event["data"]["coin"] == coin {
                return Some(event);
            }
        }
        None
    }

    pub async fn send_action(&mut self, action: &str) {
        self.stream.send(Message::Text(json!({ "action": action, "data": {} }).to_string().into())).await.unwrap();
    }
}

/// A signed-in user made straight in the shared store: (user id, userNo, voucher).
pub async fn make_user(store: &Store, name: &str) -> (UserId, String, String) {
    let id =
        UserId::parse(&format!("u{}", amora_server::auth::random_token().replace(['-', '_'], "")[..16].to_owned()))
            .unwrap();
    let user_no = UserNo::from_random(rand_u32());
    store
        .users
        .create(NewUser {
            user_id: id.clone(),
            user_no: user_no.clone(),
            user_name: name.into(),
            email: None,
            discord_email: None,
            google_subject: None,
            discord_id: None,
            utm_source: String::new(),
            language: "en".into(),
            created_at: 0,
        })
        .await
        .unwrap();
    let voucher = amora_server::auth::random_token();
    store
        .sessions
        .create(SessionRecord {
            token_hash: amora_server::auth::token_hash(&voucher),
            user_id: id.clone(),
            created_at: 0,
            expires_at: i64::MAX / 2,
        })
        .await
        .unwrap();
    (id, user_no.as_str().to_owned(), voucher)
}

fn rand_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos());
    hasher.finish() as u32
}

/// The store file the nodes share, opened by the test too.
pub fn shared_store(dir: &Path) -> Store {
    EmbeddedStore::open(dir).unwrap().into_store()
}

pub fn data_dir() -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("data");
    (temp, dir)
}
