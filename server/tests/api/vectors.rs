//! Test vectors of the envelope, for clients written elsewhere (the React app's Vitest
//! suite decrypts them). The file is produced by this server's own code; the test fails
//! when the committed file and the code disagree. `AMORA_WRITE_VECTORS=1` rewrites it.

use std::path::PathBuf;

use amora_server::envelope::EnvelopeKey;
use serde_json::{Value, json};

fn vectors_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/envelope.json")
}

fn cases() -> Vec<(&'static str, Value, u8)> {
    vec![
        ("Aa0Bb1Cc2Dd3Ee4Ff5Gg6Hh7Ii8Jj9Kk", json!({"code": 200, "msg": "success", "success": true, "data": null}), 0),
        (
            "abcdefghijklmnopqrstuvwxyz012345",
            json!({"code": 200, "msg": "success", "success": true, "data": [{
                "characterId": "gf-001", "characterName": "Sofia Marin", "characterAge": 24,
                "introduction": "Barista by day, stargazer by night.", "characterPhoto": "/media/portrait-gf-001-1",
                "characterImageList": ["/media/portrait-gf-001-2"], "usedType": 0, "gender": 0}]}),
            1,
        ),
        (
            "ZYXWVUTSRQPONMLKJIHGFEDCBA987654",
            json!({"code": 10004, "msg": "Please sign in.", "success": false, "data": null}),
            2,
        ),
        (
            "0123456789012345678901234567890A",
            json!({"code": 200, "msg": "success", "success": true, "data": "こんにちは 🌸 Grüße"}),
            3,
        ),
        // Sixteen bytes exactly: PKCS#7 adds a whole block of padding.
        ("k3y5k3y5k3y5k3y5k3y5k3y5k3y5k3y5", json!("0123456789abcd"), 4),
        (
            "LongPayloadKey000000000000000000",
            json!({"code": 200, "msg": "success", "success": true, "data": "x".repeat(2000)}),
            5,
        ),
    ]
}

fn build() -> Value {
    let vectors: Vec<Value> = cases()
        .into_iter()
        .map(|(secret, plaintext, iv_byte)| {
            let key = EnvelopeKey::from_secret(secret).expect("valid secret");
            let plaintext = plaintext.to_string();
            let iv: [u8; 16] = std::array::from_fn(|i| iv_byte.wrapping_mul(31).wrapping_add(i as u8));
            json!({ "secretKey": secret, "plaintext": plaintext, "wire": key.encrypt_with_iv(plaintext.as_bytes(), iv) })
        })
        .collect();
    json!({ "about": "API.md 1.1 envelope vectors produced by amora-server (tests/api/vectors.rs)", "vectors": vectors })
}

#[test]
fn the_committed_vectors_are_what_the_server_produces() {
    let expected = build();
    if std::env::var_os("AMORA_WRITE_VECTORS").is_some() {
        let text = serde_json::to_string_pretty(&expected).unwrap() + "\n";
        std::fs::write(vectors_path(), text).unwrap();
    }
    let committed: Value = serde_json::from_str(&std::fs::read_to_string(vectors_path()).unwrap()).unwrap();
    assert_eq!(committed, expected, "run with AMORA_WRITE_VECTORS=1 to rewrite");
}

#[test]
fn every_vector_decrypts_to_its_plaintext() {
    for vector in build()["vectors"].as_array().unwrap() {
        let key = EnvelopeKey::from_secret(vector["secretKey"].as_str().unwrap()).unwrap();
        let plaintext = key.decrypt(vector["wire"].as_str().unwrap()).unwrap();
        assert_eq!(String::from_utf8(plaintext).unwrap(), vector["plaintext"].as_str().unwrap());
    }
}
