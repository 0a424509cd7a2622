//! Every code of API.md §1.3 is produced by some path of the real server (issue 13: one
//! mapping from every layer's error to the contract's codes, and none defined for nothing).

use std::collections::BTreeSet;
use std::time::Duration;

use amora_domain::code::ApiCode;
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

use crate::chat::FREE_CHARACTER;
use crate::cluster::{Socket, make_user};
use crate::helpers::spawn_app_env;

/// The codes no path of the server produces yet (none: keep it that way).
const NOT_YET: [ApiCode; 0] = [];

#[actix_rt::test]
async fn every_code_of_the_contract_is_produced_by_some_path() {
    let env = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
    // The model service is a closed port: a reply fails on our side (50000).
    let app = spawn_app_env(env(&[
        ("AMORA_ADMIN__TOKEN", "operator-token"),
        ("AMORA_LIMITS__REPORTS_PER_MINUTE", "1"),
        ("AMORA_CHAT__PRELOAD", "false"),
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", "http://127.0.0.1:9/v1"),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "none"),
    ]))
    .await;
    let mut produced = BTreeSet::new();
    let mut saw = |code: u64| {
        produced.insert(code);
    };

    saw(app.web_config().await.code);
    saw(app.character_list(1, 1000, 0).await.code);
    let not_an_envelope = app.post_raw("/user/v1/config/getWebConfig", "{\"requestData\": \"***\"}").await;
    saw(app.open(&not_an_envelope.json().await.unwrap()).code);
    saw(app.web_error(json!({ "message": "one" })).await.code);
    saw(app.web_error(json!({ "message": "two" })).await.code);
    saw(app.get_api("/user/v1/getOwnUserInfoDetail").await.code);
    saw(app.post_api("/user/v1/no/such/endpoint", json!({})).await.code);
    saw(app
        .post_api("/login/v1/sendRegisterUserEmail", json!({ "emailAddress": "a@example.com", "cfToken": "" }))
        .await
        .code);

    let user_no = crate::security::create_user_with_password(&app, "codes@example.com", "pass-word").await;
    saw(app.password_login(&user_no, "wrong-word").await.code);
    let voucher = app.password_login(&user_no, "pass-word").await.data["voucher"].as_str().unwrap().to_owned();
    let memory = json!({ "characterId": FREE_CHARACTER, "content": "Ann is 15 and horny" });
    saw(app.post_api_as(Some(&voucher), "/user/v1/memory/addMemory", memory).await.0.code);
    assert_eq!(app.delete_user(&voucher).await.code, 200);
    saw(app.send_sign_in_link("codes@example.com").await.code);

    let suspended = crate::security::create_user_with_password(&app, "held@example.com", "pass-word").await;
    let answer = app
        .client
        .post(app.url("/lust/admin/suspend"))
        .bearer_auth("operator-token")
        .json(&json!({ "user": suspended }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    saw(app.password_login(&suspended, "pass-word").await.code);

    // A plan while another is in force (10018): one paid in the sandbox, then another.
    let (_, _, planner) = make_user(&app.store, "Plan").await;
    let buy = |product: &'static str| {
        app.post_api_as(Some(&planner), "/user/v1/pay/sandboxCreateOrder", json!({ "productId": product }))
    };
    let (first, _) = buy("month_1").await;
    assert_eq!(first.code, 200, "{}", first.msg);
    crate::payments::press(&app, first.data["approveUrl"].as_str().unwrap(), "pay").await;
    saw(buy("year_1").await.0.code);

    // Over the socket: a premium character for a free user (40004) and a reply the model
    // service cannot write (50000).
    let (_, _, chatter) = make_user(&app.store, "Cody").await;
    let url = format!("{}/lust/api/ws?voucher={chatter}", app.address.replacen("http", "ws", 1));
    let mut socket = Socket { stream: tokio_tungstenite::connect_async(url).await.unwrap().0 };
    socket.wait_for("hello", Duration::from_secs(10)).await.expect("hello");
    let premium = premium_character(&app).await;
    for character in [premium.as_str(), FREE_CHARACTER] {
        let frame = json!({ "action": "chatSend", "data": { "characterId": character, "content": "Hi!" } });
        socket.stream.send(Message::Text(frame.to_string().into())).await.unwrap();
        let refused = socket.wait_for("chatError", Duration::from_secs(60)).await.expect("chatError");
        saw(refused["data"]["code"].as_u64().unwrap());
    }

    let contract: BTreeSet<u64> = ApiCode::ALL.iter().map(|c| u64::from(c.value())).collect();
    let not_yet: BTreeSet<u64> = NOT_YET.iter().map(|c| u64::from(c.value())).collect();
    let missing: Vec<u64> = contract.difference(&produced).copied().filter(|c| !not_yet.contains(c)).collect();
    assert!(missing.is_empty(), "codes of the contract no path produced: {missing:?} (produced {produced:?})");
    let unknown: Vec<u64> = produced.difference(&contract).copied().collect();
    assert!(unknown.is_empty(), "codes outside the contract: {unknown:?}");
    let early: Vec<u64> = not_yet.intersection(&produced).copied().collect();
    assert!(early.is_empty(), "{early:?} is produced now: take it out of NOT_YET");
}

/// A character of the catalogue only paid users may chat with (`usedType` 1).
async fn premium_character(app: &crate::helpers::TestApp) -> String {
    let cards = app.character_list(1, 60, 0).await.data;
    cards
        .as_array()
        .unwrap()
        .iter()
        .find(|card| card["usedType"] == 1)
        .and_then(|card| card["characterId"].as_str())
        .expect("a premium character in the first page")
        .to_owned()
}
