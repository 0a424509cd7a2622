//! Issue 28, item 10: chat sends the engine keeps refusing are rate-limited, per account and
//! per client address. Twelve accounts resending refused `chatSend`s made 93,564 of them in
//! 50 s, each one read the account, moderated the text and asked the character's actor
//! before it was refused, and none was ever answered `rateLimited`. Premium characters
//! refuse a free user at once (40004), without the model, so the refusals here are cheap to
//! make and the answer's code tells who answered: 40004 the engine, 10003 the limit. And a
//! send the model would refuse is refused at the door, before its message is stored
//! (a loopback model holds a reply for as long as the test needs).

use std::time::Duration;

use serde_json::json;

use crate::chat::{FREE_CHARACTER, contents, messages, send};
use crate::cluster::{Socket, make_user};
use crate::fakes::held_model::HeldModel;
use crate::helpers::{TestApp, spawn_app_env};

const ANSWER: Duration = Duration::from_secs(30);

async fn app_with_limits(per_user: u32, per_address: u32) -> TestApp {
    spawn_app_env(vec![
        ("AMORA_LIMITS__REFUSED_SENDS_PER_USER_PER_MINUTE".into(), per_user.to_string()),
        ("AMORA_LIMITS__REFUSED_SENDS_PER_IP_PER_MINUTE".into(), per_address.to_string()),
    ])
    .await
}

async fn socket_of(app: &TestApp, name: &str) -> Socket {
    let (_, _, voucher) = make_user(&app.store, name).await;
    let url = format!("{}/lust/api/ws?voucher={voucher}", app.address.replacen("http", "ws", 1));
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut socket = Socket { stream };
    socket.wait_for("hello", Duration::from_secs(10)).await.expect("hello");
    socket
}

async fn premium_character(app: &TestApp) -> String {
    let cards = app.character_list(1, 60, 0).await.data;
    cards.as_array().unwrap().iter().find(|c| c["usedType"] == 1).expect("a premium character")["characterId"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Sends `chatSend` to `character` and answers the first chat event about it: the code of a
/// `chatError`, or the event's name.
async fn send_and_answer(socket: &mut Socket, character: &str) -> String {
    send(socket, character, "Hello there").await;
    loop {
        let event = socket.next_event(ANSWER).await.expect("an answer to the send");
        if event["data"]["characterId"] != character {
            continue;
        }
        match event["event"].as_str() {
            Some("chatError") => return event["data"]["code"].to_string(),
            // The user's message stored: the send was accepted (a new conversation's
            // greeting, the character's, comes as a `chatMessage` too).
            Some("chatMessage") if event["data"]["message"]["speaker"] == "user" => return "accepted".into(),
            _ => continue,
        }
    }
}

/// A free user sending to a premium character is refused (40004) the allowed number of
/// times, then answered `rateLimited` (10003); a send the engine would have accepted is
/// answered the same without reaching it (no `chatMessage`: nothing was stored).
#[actix_rt::test]
async fn a_users_refused_sends_are_rate_limited_after_the_allowed_count() {
    let app = app_with_limits(5, 100).await;
    let premium = premium_character(&app).await;
    let mut socket = socket_of(&app, "Flood").await;
    let mut answers = Vec::new();
    for _ in 0..8 {
        answers.push(send_and_answer(&mut socket, &premium).await);
    }
    assert_eq!(answers, ["40004", "40004", "40004", "40004", "40004", "10003", "10003", "10003"]);
    assert_eq!(send_and_answer(&mut socket, FREE_CHARACTER).await, "10003", "dropped before the engine");
    // Another user (one address, under its limit) is not held to this user's count.
    let mut other = socket_of(&app, "Other").await;
    assert_eq!(send_and_answer(&mut other, &premium).await, "40004");
}

/// Several accounts from one address share its count: past it, every one of them is
/// answered `rateLimited`, also one that was never refused itself.
#[actix_rt::test]
async fn refused_sends_from_several_users_on_one_address_are_rate_limited() {
    let app = app_with_limits(5, 6).await;
    let premium = premium_character(&app).await;
    let mut answers = Vec::new();
    for name in ["Ann", "Bea"] {
        let mut socket = socket_of(&app, name).await;
        for _ in 0..3 {
            answers.push(send_and_answer(&mut socket, &premium).await);
        }
    }
    assert_eq!(answers, ["40004"; 6], "each user stays under the per-user limit");
    let mut fresh = socket_of(&app, "Cid").await;
    assert_eq!(send_and_answer(&mut fresh, &premium).await, "10003", "the address used up its refusals");
    assert_eq!(send_and_answer(&mut fresh, FREE_CHARACTER).await, "10003");
    // Other actions still run.
    crate::chat::act(&mut fresh, "ping", json!({})).await;
    assert_eq!(fresh.wait_for("pong", ANSWER).await.map(|_| "pong"), Some("pong"));
}

/// The door check: a send the model would refuse now (its user already holds as many
/// replies as `chat.replies_per_user` allows) is refused before anything of it is stored,
/// rather than its message being kept and the reply refused after (issue 28: every one of
/// the 93,564 refused sends read the account and moderated and stored before it was told).
#[actix_rt::test]
async fn a_send_the_model_would_refuse_is_refused_before_its_message_is_stored() {
    let model = HeldModel::start().await;
    let app = spawn_app_env(vec![
        ("AMORA_CHAT__MODEL__KIND".into(), "openai".into()),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL".into(), model.base.clone()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL".into(), "held".into()),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS".into(), "0".into()),
        ("AMORA_CHAT__REPLIES_PER_USER".into(), "1".into()),
    ])
    .await;
    let (user_id, _, voucher) = make_user(&app.store, "Door").await;
    // Paid, so every character is open and no credit runs out: the only refusal is the model's.
    app.store.users.update(&user_id, amora_store::UserChange::VipType(1)).await.unwrap();
    let url = format!("{}/lust/api/ws?voucher={voucher}", app.address.replacen("http", "ws", 1));
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut socket = Socket { stream };
    socket.wait_for("hello", Duration::from_secs(10)).await.expect("hello");

    assert_eq!(send_and_answer(&mut socket, "gf-001").await, "accepted");
    model.a_request_is_held(ANSWER).await;
    // The user's one reply is at the model: a send to another character is refused at the door.
    assert_eq!(send_and_answer(&mut socket, FREE_CHARACTER).await, "10003", "refused before it was stored");
    let stored = contents(&messages(&app, &voucher, FREE_CHARACTER, None, 30).await);
    assert!(!stored.iter().any(|m| m == "Hello there"), "the refused message was not kept: {stored:?}");
    model.release_all();
}
