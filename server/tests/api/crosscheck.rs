//! A client written in another language from API.md alone talks to the real server.

use std::path::PathBuf;
use std::process::Command;

use crate::helpers::spawn_app;

#[actix_rt::test]
async fn a_node_webcrypto_client_speaks_the_envelope() {
    let app = spawn_app().await;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/crosscheck/envelope-client.mjs");
    let address = app.address.clone();
    let output = tokio::task::spawn_blocking(move || Command::new("node").arg(script).arg(address).output())
        .await
        .unwrap()
        .expect("node must be installed to run the cross-check");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "node client failed: {stdout}{stderr}");
    assert!(stdout.starts_with("crosscheck ok: "), "{stdout}");
}
