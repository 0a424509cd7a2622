//! Issue 28, item 10: chat sends the engine keeps refusing are rate-limited, per account and
//! per client address. Twelve accounts resending refused `chatSend`s made 93,564 of them in
//! 50 s, each one read the account, moderated the text and asked the character's actor
//! before it was refused, and none was ever answered `rateLimited`. Premium characters
//! refuse a free user at once (40004), without the model, so the refusals here are cheap to
//! make and the answer's code tells who answered: 40004 the engine, 10003 the limit.

use std::time::Duration;

use serde_json::json;

use crate::chat::{FREE_CHARACTER, send};
use crate::cluster::{Socket, make_user};
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
