//! The envelope of API.md §1: round trips and every way a request can be wrong.

use amora_server::envelope::EnvelopeKey;
use serde_json::{Value, json};

use crate::helpers::{SECRET, spawn_app};

const LIST: &str = "/user/v1/character/getCharacterList";

fn sealed(key: &EnvelopeKey, plaintext: &str, iv: u8) -> String {
    json!({ "requestData": key.encrypt_with_iv(plaintext.as_bytes(), [iv; 16]) }).to_string()
}

#[actix_rt::test]
async fn an_encrypted_request_gets_an_encrypted_answer_and_nothing_else() {
    let app = spawn_app().await;
    let body = json!({ "requestData": app.key().encrypt(br#"{"pageNo":1,"pageSize":5,"gender":0}"#) });
    let response = app.post_raw(LIST, body.to_string()).await;
    assert_eq!(response.status(), 200);
    let outer: Value = response.json().await.unwrap();
    assert_eq!(outer.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()), Some(vec!["responseData".to_owned()]));
    let envelope = app.open(&outer);
    assert_eq!((envelope.code, envelope.msg.as_str(), envelope.success), (200, "success", true));
    assert_eq!(envelope.data.as_array().map(Vec::len), Some(5));
}

#[actix_rt::test]
async fn a_request_without_a_secret_key_is_refused_with_400_in_plain_json() {
    let app = spawn_app().await;
    let response = app.client.post(app.url(&format!("/lust/api{LIST}"))).body("{}").send().await.unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], 10002);
    assert_eq!(body["success"], false);
}

#[actix_rt::test]
async fn a_malformed_secret_key_is_refused_with_400() {
    let app = spawn_app().await;
    for secret in ["short", "ThisKeyHasASpace 0123456789abcdef", &"a".repeat(64)] {
        let response =
            app.client.get(app.url("/lust/api/user/v1/getUserInfo")).header("secretKey", secret).send().await.unwrap();
        assert_eq!(response.status(), 400, "{secret}");
        assert_eq!(response.json::<Value>().await.unwrap()["code"], 10002);
    }
}

#[actix_rt::test]
async fn malformed_base64_is_an_envelope_error() {
    let app = spawn_app().await;
    let response = app.post_raw(LIST, json!({ "requestData": "not*base64!" }).to_string()).await;
    let envelope = app.open(&response.json().await.unwrap());
    assert_eq!((envelope.code, envelope.success), (10002, false));
    assert!(envelope.msg.contains("Base64"), "{}", envelope.msg);
}

#[actix_rt::test]
async fn a_request_sealed_with_another_key_is_an_envelope_error() {
    let app = spawn_app().await;
    let other = EnvelopeKey::from_secret("AnotherSecretKey0123456789abcdef").unwrap();
    let response = app.post_raw(LIST, sealed(&other, r#"{"pageNo":1,"pageSize":30,"gender":0}"#, 9)).await;
    let envelope = app.open(&response.json().await.unwrap());
    assert_eq!(envelope.code, 10002);
}

#[actix_rt::test]
async fn a_tampered_last_block_fails_its_padding_check() {
    let app = spawn_app().await;
    let wire = app.key().encrypt_with_iv(br#"{"pageNo":1,"pageSize":30,"gender":0}"#, [3; 16]);
    let mut bytes = base64_decode(&wire);
    let last = bytes.len() - 1;
    bytes[last] ^= 0x5a;
    let response = app.post_raw(LIST, json!({ "requestData": base64_encode(&bytes) }).to_string()).await;
    let envelope = app.open(&response.json().await.unwrap());
    assert_eq!(envelope.code, 10002);
    assert!(envelope.msg.contains("decrypt"), "{}", envelope.msg);
}

#[actix_rt::test]
async fn a_truncated_ciphertext_is_an_envelope_error() {
    let app = spawn_app().await;
    let wire = app.key().encrypt(br#"{"pageNo":1,"pageSize":30,"gender":0}"#);
    let bytes = base64_decode(&wire);
    let response =
        app.post_raw(LIST, json!({ "requestData": base64_encode(&bytes[..bytes.len() - 5]) }).to_string()).await;
    assert_eq!(app.open(&response.json().await.unwrap()).code, 10002);
}

#[actix_rt::test]
async fn plaintext_that_is_not_json_is_a_param_error() {
    let app = spawn_app().await;
    let response = app.post_raw(LIST, sealed(app.key(), "pageNo=1&pageSize=30", 1)).await;
    let envelope = app.open(&response.json().await.unwrap());
    assert_eq!(envelope.code, 10001);
    assert!(envelope.msg.contains("not valid JSON"), "{}", envelope.msg);
}

#[actix_rt::test]
async fn a_field_of_the_wrong_type_is_a_param_error_naming_the_field() {
    let app = spawn_app().await;
    let envelope = app.post_api(LIST, json!({ "pageNo": "1", "pageSize": 30, "gender": 0 })).await;
    assert_eq!(envelope.code, 10001);
    assert!(envelope.msg.starts_with("pageNo"), "{}", envelope.msg);
    let envelope = app.post_api(LIST, json!({ "pageNo": 1, "pageSize": 30 })).await;
    assert_eq!(envelope.code, 10001);
    assert!(envelope.msg.contains("gender"), "{}", envelope.msg);
}

#[actix_rt::test]
async fn a_body_that_is_not_an_envelope_is_an_envelope_error() {
    let app = spawn_app().await;
    for body in ["this is not json", r#"{"requestData": 12}"#, r#"{"pageNo": 1}"#] {
        let response = app.post_raw(LIST, body).await;
        assert_eq!(response.status(), 200, "{body}");
        let envelope = app.open(&response.json().await.unwrap());
        assert!(envelope.code == 10002 || envelope.code == 10001, "{body}: {}", envelope.code);
        assert!(!envelope.success);
    }
}

#[actix_rt::test]
async fn endpoints_without_a_payload_take_an_empty_body_an_empty_object_or_sealed_braces() {
    let app = spawn_app().await;
    for body in [String::new(), "{}".to_owned(), sealed(app.key(), "{}", 4)] {
        let response = app.post_raw("/user/v1/config/getWebConfig", body.clone()).await;
        let envelope = app.open(&response.json().await.unwrap());
        assert_eq!(envelope.code, 200, "body {body:?}");
    }
}

#[actix_rt::test]
async fn an_oversized_body_gets_413() {
    let app = spawn_app().await;
    let huge = json!({ "requestData": "A".repeat(70 * 1024) }).to_string();
    let response = app.post_raw(LIST, huge).await;
    assert_eq!(response.status(), 413);
}

#[actix_rt::test]
async fn an_unknown_endpoint_answers_not_found_in_an_envelope() {
    let app = spawn_app().await;
    let envelope = app.post_api("/user/v1/noSuchThing", json!({})).await;
    assert_eq!((envelope.code, envelope.success), (10006, false));
    // A known path with the wrong method is no endpoint either.
    let envelope = app.get_api("/user/v1/character/getCharacterList").await;
    assert_eq!(envelope.code, 10006);
}

#[actix_rt::test]
async fn every_answer_uses_the_key_of_its_own_request() {
    let app = spawn_app().await;
    let other_secret = "ZZZZsecretKeyOfAnotherBrowser999";
    let other = EnvelopeKey::from_secret(other_secret).unwrap();
    let response = app
        .client
        .post(app.url("/lust/api/user/v1/config/getWebConfig"))
        .header("secretKey", other_secret)
        .body(json!({ "requestData": other.encrypt(b"{}") }).to_string())
        .send()
        .await
        .unwrap();
    let outer: Value = response.json().await.unwrap();
    let wire = outer["responseData"].as_str().unwrap();
    let plaintext = other.decrypt(wire).unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&plaintext).unwrap()["code"], 200);
    assert_ne!(EnvelopeKey::from_secret(SECRET).unwrap().decrypt(wire).ok(), Some(plaintext));
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
