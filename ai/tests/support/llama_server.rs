//! Starts llama.cpp's `llama-server` on a free loopback port and stops it when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct LlamaServer {
    child: Child,
    pub port: u16,
    /// `http://127.0.0.1:PORT/v1`, for the OpenAI provider's `base_url`.
    pub base_url: String,
    pub log: PathBuf,
    _dir: tempfile::TempDir,
}

impl LlamaServer {
    /// Starts the server on `model` with `threads` threads and one slot, and waits (up to
    /// two minutes) until `/health` answers 200.
    pub async fn start(binary: &Path, model: &Path, threads: usize) -> LlamaServer {
        Self::start_with_slots(binary, model, threads, 1).await
    }

    /// The same with `slots` sequences decoded together (`--parallel`, llama-server's
    /// continuous batching), each with a context of 4,096 tokens.
    pub async fn start_with_slots(binary: &Path, model: &Path, threads: usize, slots: usize) -> LlamaServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("llama-server.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(binary)
            .args(["-m", &model.display().to_string()])
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-t", &threads.to_string(), "-tb", &threads.to_string()])
            .args(["-c", &(4096 * slots).to_string(), "-np", &slots.to_string(), "--no-webui"])
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut server = LlamaServer { child, port, base_url: format!("http://127.0.0.1:{port}/v1"), log, _dir: dir };
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("llama-server exited ({status}):\n{}", server.log_text());
            }
            let health = client.get(format!("http://127.0.0.1:{port}/health")).send().await;
            if health.is_ok_and(|r| r.status().is_success()) {
                return server;
            }
            assert!(Instant::now() < deadline, "llama-server did not become healthy:\n{}", server.log_text());
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
