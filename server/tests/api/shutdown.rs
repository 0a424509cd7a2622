//! The `amora` binary as an operator runs it: configured by environment, stopped by SIGTERM.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[actix_rt::test]
async fn the_binary_serves_with_env_overrides_and_stops_cleanly_on_sigterm() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_amora"))
        .env("AMORA_HTTP__HOST", "127.0.0.1")
        .env("AMORA_HTTP__PORT", port.to_string())
        .env("AMORA_STORE__DATA_DIR", data.path())
        .env("AMORA_LOG__FORMAT", "json")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();

    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/readyz");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if client.get(&url).send().await.is_ok_and(|r| r.status() == 200) {
            break;
        }
        assert!(Instant::now() < deadline, "the server never became ready");
        assert!(child.try_wait().unwrap().is_none(), "the server exited early");
        actix_rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(data.path().join("amora.db").is_file(), "the database lives in AMORA_STORE__DATA_DIR");

    let killed = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(25);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the server ignored SIGTERM");
        actix_rt::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(status.success(), "exit status {status}");
}

#[actix_rt::test]
async fn an_unknown_configuration_key_stops_the_binary_with_a_message() {
    let output = Command::new(env!("CARGO_BIN_EXE_amora")).env("AMORA_HTTP__PROT", "1").output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("prot"), "{stderr}");
}
