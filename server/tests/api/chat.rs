//! Chat end to end: the real server, the real embedded model (`AMORA_MODEL_PATH`, fetched
//! by `scripts/lib/model.sh`), and llama.cpp's real `llama-server` behind the
//! OpenAI-compatible provider (`AMORA_LLAMA_SERVER`). Replies are driven over the WebSocket.

use std::time::Duration;

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{MessageId, Speaker};
use amora_store::StoredMessage;
use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::cluster::{Socket, make_user};
use crate::fakes::held_model::HeldModel;
use crate::helpers::{TestApp, spawn_app_env};

/// The engine holds a reply's first 60 characters back until its start is judged
/// (`HELD_BACK_CHARS` in actors/src/chat/engine.rs), then streams it sentence by sentence: a
/// longer reply comes in pieces, one that ended within those characters comes whole.
fn streamed_in_pieces(deltas: usize, content: &str) -> bool {
    deltas >= 2 || content.trim().chars().count() <= 60
}

#[path = "../../../ai/tests/support/llama_server.rs"]
#[allow(dead_code)]
mod llama_server;

/// Long enough for a reply on two busy cores, debug build included.
pub(crate) const REPLY: Duration = Duration::from_secs(120);
pub(crate) const FREE_CHARACTER: &str = "gf-002";
/// The operator token of the chat apps.
const OPERATOR: &str = "chat-operator-token";

pub(crate) fn model_path() -> String {
    let path = std::env::var("AMORA_MODEL_PATH")
        .expect("AMORA_MODEL_PATH is not set: run `eval \"$(scripts/lib/model.sh env)\"` first (scripts/test does)");
    assert!(std::path::Path::new(&path).is_file(), "AMORA_MODEL_PATH={path} is not a file");
    path
}

/// A server on the embedded model with `extra` settings, and a signed-in user with a socket.
pub(crate) async fn chat_app(extra: &[(&str, &str)]) -> (TestApp, UserId, String, Socket) {
    let mut env = vec![
        ("AMORA_CHAT__MODEL__EMBEDDED__MODEL_PATH".to_owned(), model_path()),
        ("AMORA_CHAT__MAX_REPLY_TOKENS".to_owned(), "24".to_owned()),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS".to_owned(), "0".to_owned()),
        ("AMORA_ADMIN__TOKEN".to_owned(), OPERATOR.to_owned()),
    ];
    if let Ok(library) = std::env::var("AMORA_LLAMA_LIB") {
        env.push(("AMORA_CHAT__MODEL__EMBEDDED__LLAMA_LIBRARY".to_owned(), library));
    }
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let app = spawn_app_env(env).await;
    let (user_id, voucher, socket) = user_with_socket(&app, "Ann").await;
    (app, user_id, voucher, socket)
}

pub(crate) async fn user_with_socket(app: &TestApp, name: &str) -> (UserId, String, Socket) {
    let (user_id, _, voucher) = make_user(&app.store, name).await;
    let url = format!("{}/lust/api/ws?voucher={voucher}", app.address.replacen("http", "ws", 1));
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut socket = Socket { stream };
    socket.wait_for("hello", Duration::from_secs(10)).await.expect("hello");
    (user_id, voucher, socket)
}

pub(crate) async fn act(socket: &mut Socket, action: &str, data: Value) {
    let frame = json!({ "action": action, "data": data }).to_string();
    socket.stream.send(Message::Text(frame.into())).await.unwrap();
}

pub(crate) async fn send(socket: &mut Socket, character: &str, content: &str) {
    act(socket, "chatSend", json!({ "characterId": character, "content": content })).await;
}

/// Events until `chatDone` or `chatError` (inclusive).
pub(crate) async fn until_reply_ends(socket: &mut Socket) -> Vec<Value> {
    let mut events = Vec::new();
    loop {
        let event = socket.next_event(REPLY).await.expect("an event before the reply ended");
        let name = event["event"].as_str().unwrap_or_default().to_owned();
        events.push(event);
        if name == "chatDone" || name == "chatError" {
            return events;
        }
    }
}

pub(crate) fn named<'a>(events: &'a [Value], name: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

pub(crate) async fn messages(app: &TestApp, voucher: &str, character: &str, before: Option<&str>, size: i64) -> Value {
    let payload = json!({ "characterId": character, "beforeId": before, "pageSize": size });
    let envelope = app.post_api_as(Some(voucher), "/user/v1/chat/getMessageList", payload).await.0;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    envelope.data
}

pub(crate) fn contents(page: &Value) -> Vec<String> {
    page["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect()
}

#[actix_rt::test]
async fn a_conversation_streams_real_replies_from_the_embedded_model_and_keeps_them() {
    let (app, _, voucher, mut socket) = chat_app(&[]).await;

    // Opening the conversation writes the greeting, with the user's name filled in.
    let first = messages(&app, &voucher, FREE_CHARACTER, None, 30).await;
    let greeting = first["messages"][0].clone();
    assert_eq!(first["messages"].as_array().unwrap().len(), 1);
    assert_eq!(greeting["speaker"], "character");
    let greeting_text = greeting["content"].as_str().unwrap();
    assert!(!greeting_text.contains("{{user}}") && !greeting_text.contains("{user}"), "{greeting_text}");
    assert_eq!(first["hasMore"], false);
    assert_eq!(first["creditsLeft"], 30);
    // The user's sockets (other tabs) hear of the greeting like of any stored message.
    let told = socket.wait_for("chatMessage", REPLY).await.expect("chatMessage for the greeting");
    assert_eq!(told["data"]["message"], greeting);

    send(&mut socket, FREE_CHARACTER, "Hi! I just got home from work. How was your day?").await;
    let events = until_reply_ends(&mut socket).await;
    let stored = named(&events, "chatMessage");
    assert_eq!(stored.len(), 1, "{events:?}");
    assert_eq!(stored[0]["data"]["message"]["content"], "Hi! I just got home from work. How was your day?");
    let deltas: Vec<&str> = named(&events, "chatDelta").iter().map(|e| e["data"]["delta"].as_str().unwrap()).collect();
    assert!(deltas.len() >= 2, "the reply streamed in {} deltas: {events:?}", deltas.len());
    let done = named(&events, "chatDone")[0].clone();
    let reply = done["data"]["message"]["content"].as_str().unwrap().to_owned();
    println!("embedded reply ({} deltas): {reply}", deltas.len());
    assert_eq!(done["data"]["replyId"], done["data"]["message"]["messageId"]);
    assert!(matches!(done["data"]["finishReason"].as_str(), Some("stop" | "length")));
    // What streamed is kept, except after the last sentence end of a reply the token limit
    // stopped (issue 18); one with no sentence end is kept whole and marked cut.
    let streamed = deltas.concat();
    let hit_limit = done["data"]["finishReason"] == "length";
    if hit_limit {
        assert!(streamed.trim().starts_with(&reply), "{streamed:?} → {reply:?}");
    } else {
        assert_eq!(streamed.trim(), reply);
    }
    let cut = hit_limit && !amora_domain::chat::ends_at_sentence(&reply);
    assert_eq!(done["data"]["cut"], cut, "{done}");

    // Stored in order: greeting, message, reply; the chat list shows the conversation.
    let page = messages(&app, &voucher, FREE_CHARACTER, None, 30).await;
    assert_eq!(contents(&page), [reply.as_str(), "Hi! I just got home from work. How was your day?", greeting_text]);
    assert_eq!(page["creditsLeft"], 29);
    let list = app.post_api_as(Some(&voucher), "/user/v1/chat/getChatList", json!({})).await.0;
    assert_eq!(list.data[0]["characterId"], FREE_CHARACTER);
    assert_eq!(list.data[0]["lastMessage"]["content"], reply.as_str());
    assert!(list.data[0]["characterName"].as_str().is_some_and(|n| !n.is_empty()));

    // A second turn answers the conversation so far.
    send(&mut socket, FREE_CHARACTER, "Tell me one thing you like.").await;
    let events = until_reply_ends(&mut socket).await;
    assert!(!named(&events, "chatDone").is_empty(), "{events:?}");
    assert_eq!(contents(&messages(&app, &voucher, FREE_CHARACTER, None, 30).await).len(), 5);

    // The operator sees each phase of the two turns on /metrics.
    let metrics = app.metrics(OPERATOR).await;
    for phase in ["accept", "recall", "prepare", "first_token", "generate", "store_reply"] {
        let line = format!("amora_chat_turn_phase_seconds_count{{phase=\"{phase}\"}} 2");
        assert!(metrics.contains(&line), "{line} in:\n{metrics}");
    }
    assert!(metrics.contains("amora_chat_replies_total{outcome=\"stored\"} 2"), "{metrics}");
}

#[actix_rt::test]
async fn stop_ends_a_reply_in_flight_and_a_second_send_meanwhile_is_refused() {
    let (app, _, voucher, mut socket) = chat_app(&[("AMORA_CHAT__MAX_REPLY_TOKENS", "400")]).await;
    send(&mut socket, FREE_CHARACTER, "Write a very long story about a dragon who learns to bake bread.").await;
    socket.wait_for("chatDelta", REPLY).await.expect("the reply started");

    send(&mut socket, FREE_CHARACTER, "Are you there?").await;
    let busy = socket.wait_for("chatError", REPLY).await.expect("the second send is refused");
    assert_eq!(busy["data"]["code"], 10003);

    act(&mut socket, "chatStop", json!({ "characterId": FREE_CHARACTER })).await;
    let done = socket.wait_for("chatDone", REPLY).await.expect("the reply ends");
    assert_eq!(done["data"]["finishReason"], "cancelled");
    let partial = done["data"]["message"]["content"].as_str().unwrap().to_owned();
    assert!(!partial.is_empty());

    let page = messages(&app, &voucher, FREE_CHARACTER, None, 30).await;
    assert_eq!(contents(&page)[0], partial, "the text so far is kept");
    assert!(!contents(&page).contains(&"Are you there?".to_owned()));
    assert_eq!(page["creditsLeft"], 29, "the refused send took no credit");

    act(&mut socket, "chatStop", json!({ "characterId": FREE_CHARACTER })).await;
    assert_eq!(socket.wait_for("chatError", REPLY).await.unwrap()["data"]["code"], 10001, "nothing to stop");
}

#[actix_rt::test]
async fn regenerate_replaces_the_newest_reply() {
    let (app, _, voucher, mut socket) = chat_app(&[]).await;
    send(&mut socket, FREE_CHARACTER, "What is your favourite season?").await;
    let first = named(&until_reply_ends(&mut socket).await, "chatDone")[0]["data"]["message"].clone();

    act(&mut socket, "chatRegenerate", json!({ "characterId": FREE_CHARACTER })).await;
    let events = until_reply_ends(&mut socket).await;
    let deleted = named(&events, "chatMessageDeleted");
    assert_eq!(deleted[0]["data"]["messageIds"], json!([first["messageId"]]));
    let second = named(&events, "chatDone")[0]["data"]["message"].clone();
    assert_ne!(second["messageId"], first["messageId"]);

    let page = messages(&app, &voucher, FREE_CHARACTER, None, 30).await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 3, "greeting, question, one reply");
    assert_eq!(page["messages"][0]["messageId"], second["messageId"]);
    assert_eq!(page["creditsLeft"], 28, "a regenerate counts as a message");
}

#[actix_rt::test]
async fn free_messages_run_out_premium_characters_need_a_plan_and_paid_users_are_unlimited() {
    let (app, user_id, voucher, mut socket) =
        chat_app(&[("AMORA_CHAT__FREE_MESSAGES_PER_DAY", "2"), ("AMORA_CHAT__MAX_REPLY_TOKENS", "12")]).await;
    for n in 0..2 {
        send(&mut socket, FREE_CHARACTER, &format!("Message number {n}")).await;
        let events = until_reply_ends(&mut socket).await;
        assert!(!named(&events, "chatDone").is_empty(), "free message {n}: {events:?}");
    }
    send(&mut socket, FREE_CHARACTER, "One more?").await;
    let refused = socket.wait_for("chatError", REPLY).await.expect("the third send refused");
    assert_eq!(refused["data"]["code"], 40004, "{refused}");
    assert_eq!(messages(&app, &voucher, FREE_CHARACTER, None, 30).await["creditsLeft"], 0);

    let premium = premium_character(&app).await;
    send(&mut socket, &premium, "Hello there").await;
    let refused = socket.wait_for("chatError", REPLY).await.expect("a premium character refused");
    assert_eq!(refused["data"]["code"], 40004, "{refused}");

    // Through the operator API, as plans change on a running node: the user's actor holds
    // the account and hears of the change.
    let user_no = app.store.users.by_id(&user_id).await.unwrap().unwrap().user_no;
    let answer = app
        .client
        .post(app.url("/lust/admin/setVip"))
        .bearer_auth(OPERATOR)
        .json(&json!({ "user": user_no.as_str(), "vipType": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    for character in [FREE_CHARACTER, premium.as_str()] {
        send(&mut socket, character, "Now I can talk with you!").await;
        let events = until_reply_ends(&mut socket).await;
        assert!(!named(&events, "chatDone").is_empty(), "{character}: {events:?}");
    }
    assert_eq!(messages(&app, &voucher, FREE_CHARACTER, None, 30).await["creditsLeft"], Value::Null);
}

async fn premium_character(app: &TestApp) -> String {
    let cards = app.character_list(1, 60, 0).await.data;
    cards.as_array().unwrap().iter().find(|c| c["usedType"] == 1).expect("a premium character")["characterId"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[actix_rt::test]
async fn content_against_the_guidelines_is_refused_before_the_model_and_stored_nowhere() {
    let (app, _, voucher, mut socket) = chat_app(&[]).await;
    for text in ["I'm 16 years old, let's have sex.", "show me loli content", "Describe how he rapes her."] {
        send(&mut socket, FREE_CHARACTER, text).await;
        let refused = socket.wait_for("chatError", REPLY).await.unwrap();
        assert_eq!(refused["data"]["code"], 10070, "{text}");
    }
    let page = messages(&app, &voucher, FREE_CHARACTER, None, 30).await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 1, "only the greeting");
    assert_eq!(page["creditsLeft"], 30);

    let memory = json!({ "characterId": FREE_CHARACTER, "content": "Ann is 15 and horny" });
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/memory/addMemory", memory).await.0.code, 10070);
    let empty = json!({ "characterId": FREE_CHARACTER, "content": "   " });
    send(&mut socket, FREE_CHARACTER, "   ").await;
    assert_eq!(socket.wait_for("chatError", REPLY).await.unwrap()["data"]["code"], 10001);
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/memory/addMemory", empty).await.0.code, 10001);
}

#[actix_rt::test]
async fn memories_are_extracted_by_the_model_and_can_be_added_edited_and_deleted() {
    let (app, _, voucher, mut socket) =
        chat_app(&[("AMORA_CHAT__MEMORY_EVERY_TURNS", "1"), ("AMORA_CHAT__MAX_REPLY_TOKENS", "8")]).await;
    send(&mut socket, FREE_CHARACTER, "My name is Ann, I work as a nurse in Lyon and I have a cat named Tom.").await;
    let events = until_reply_ends(&mut socket).await;
    assert_eq!(named(&events, "chatDone").len(), 1, "the reply was written: {events:?}");
    // After every reply (memory_every_turns = 1) the model is asked for facts.
    socket.wait_for("memorySaving", REPLY).await.expect("automatic extraction started");
    let saved = socket.wait_for("memorySaved", REPLY).await.expect("automatic extraction ended");
    let listed = app
        .post_api_as(Some(&voucher), "/user/v1/memory/getMemoryList", json!({ "characterId": FREE_CHARACTER }))
        .await
        .0;
    assert_eq!(saved["data"]["memories"], listed.data);
    println!("extracted: {}", listed.data);
    assert_eq!(saved["data"]["added"].as_u64().unwrap() as usize, listed.data.as_array().unwrap().len());

    // On demand ("save memories"): nothing new in the same messages, so nothing is added.
    let again = save_memories(&mut socket).await;
    assert_eq!(again["data"]["added"], 0, "{again}");

    // The memories panel: add, edit, delete.
    let added = app
        .post_api_as(
            Some(&voucher),
            "/user/v1/memory/addMemory",
            json!({ "characterId": FREE_CHARACTER, "content": "Ann loves jazz" }),
        )
        .await
        .0;
    assert_eq!((added.code, added.data["origin"].clone()), (200, json!("user")));
    let id = added.data["memoryId"].as_str().unwrap().to_owned();
    let edit = json!({ "characterId": FREE_CHARACTER, "memoryId": id, "content": "Ann loves jazz and blues" });
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/memory/updateMemory", edit).await.0.data, true);
    let list = app
        .post_api_as(Some(&voucher), "/user/v1/memory/getMemoryList", json!({ "characterId": FREE_CHARACTER }))
        .await
        .0;
    assert_eq!(list.data[0]["content"], "Ann loves jazz and blues", "newest first");
    let delete = json!({ "characterId": FREE_CHARACTER, "memoryId": id });
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/memory/deleteMemory", delete.clone()).await.0.data, true);
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/memory/deleteMemory", delete).await.0.code, 10006);

    // A memory is put into the prompt: a reply mentioning it needs the model, so this
    // checks the mechanism — the memory is there for the next reply to read.
    let listed = app
        .post_api_as(Some(&voucher), "/user/v1/memory/getMemoryList", json!({ "characterId": FREE_CHARACTER }))
        .await
        .0;
    assert!(listed.data.as_array().unwrap().iter().all(|m| m["content"] != "Ann loves jazz and blues"));
}

/// "Save memories" asked twice while the model works runs one extraction: the second joins
/// it. And the socket keeps serving meanwhile. The extraction is held at a loopback model
/// until the test lets it go, so this holds on a machine of any speed (on a fast one the
/// embedded model's extraction once ended before the ping was answered).
#[actix_rt::test]
async fn saving_memories_twice_while_the_model_works_runs_one_extraction_and_the_socket_keeps_serving() {
    let model = HeldModel::start().await;
    let (_app, _, _voucher, mut socket) = chat_app(&[
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", &model.base),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "held"),
    ])
    .await;
    send(&mut socket, FREE_CHARACTER, "My name is Ann and I work as a nurse.").await;
    model.a_request_is_held(REPLY).await;
    model.release_one();
    let events = until_reply_ends(&mut socket).await;
    assert_eq!(named(&events, "chatDone").len(), 1, "{events:?}");

    act(&mut socket, "saveMemories", json!({ "characterId": FREE_CHARACTER })).await;
    model.a_request_is_held(REPLY).await;
    act(&mut socket, "saveMemories", json!({ "characterId": FREE_CHARACTER })).await;
    act(&mut socket, "ping", json!({})).await;
    let mut before_release = Vec::new();
    while !before_release.contains(&"pong".to_owned()) {
        let event = socket.next_event(REPLY).await.expect("the ping was answered while the model worked");
        before_release.push(event["event"].as_str().unwrap_or_default().to_owned());
    }
    assert!(!before_release.contains(&"memorySaved".to_owned()), "{before_release:?}");
    model.release_all();
    let mut seen = before_release;
    while !seen.contains(&"memorySaved".to_owned()) {
        let event = socket.next_event(REPLY).await.expect("the extraction ended");
        seen.push(event["event"].as_str().unwrap_or_default().to_owned());
    }
    seen.sort();
    assert_eq!(seen, ["memorySaved", "memorySaving", "pong"], "one extraction, and the ping answered meanwhile");
    // The reply and one extraction: the second "save memories" asked nothing of the model.
    assert_eq!(model.requests(), 2);
}

/// The contents of a `memorySaved` event's memories.
fn saved_contents(saved: &Value) -> Vec<String> {
    saved["data"]["memories"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect()
}

async fn save_memories(socket: &mut Socket) -> Value {
    act(socket, "saveMemories", json!({ "characterId": FREE_CHARACTER })).await;
    socket.wait_for("memorySaved", REPLY).await.expect("the extraction on demand ended")
}

/// Issue 30: "Do you prefer tea or coffee?" was stored as "Ann prefers tea": what the user
/// asks is never a memory, only what they state.
#[actix_rt::test]
async fn questions_the_user_asks_never_become_memories() {
    let (_app, _, _voucher, mut socket) = chat_app(&[]).await;
    for question in
        ["Do you prefer tea or coffee?", "Do you like dogs or cats more?", "Would you rather live in Paris or Rome?"]
    {
        send(&mut socket, FREE_CHARACTER, question).await;
        until_reply_ends(&mut socket).await;
    }
    let memories = saved_contents(&save_memories(&mut socket).await);
    assert!(memories.is_empty(), "{memories:?}");
}

#[actix_rt::test]
async fn save_memories_keeps_the_users_facts_once_and_merges_a_fuller_one_with_the_embedded_model() {
    let (app, _, voucher, mut socket) = chat_app(&[]).await;
    send(&mut socket, FREE_CHARACTER, "my dog is called Biscuit and I work as a nurse").await;
    until_reply_ends(&mut socket).await;

    let saved = save_memories(&mut socket).await;
    let memories = saved_contents(&saved);
    println!("saved: {memories:?}");
    assert!(memories.iter().any(|m| m.contains("Biscuit")), "{memories:?}");
    assert!(memories.iter().any(|m| m.contains("nurse")), "{memories:?}");
    assert!(memories.iter().all(|m| m.starts_with("Ann")), "facts about the user, by name: {memories:?}");
    assert_eq!(saved["data"]["added"].as_u64(), Some(memories.len() as u64));
    let listed = app
        .post_api_as(Some(&voucher), "/user/v1/memory/getMemoryList", json!({ "characterId": FREE_CHARACTER }))
        .await
        .0;
    assert_eq!(listed.data, saved["data"]["memories"], "stored as announced");

    // Asked again over the same messages: nothing new, nothing repeated.
    let again = save_memories(&mut socket).await;
    assert_eq!(again["data"]["added"], 0);
    assert_eq!(saved_contents(&again), memories);

    // A fact said with more words later replaces the extracted memory it says more than.
    send(&mut socket, FREE_CHARACTER, "I have a cat.").await;
    until_reply_ends(&mut socket).await;
    let first = saved_contents(&save_memories(&mut socket).await);
    assert!(first.contains(&"Ann has a cat".to_owned()), "{first:?}");
    send(&mut socket, FREE_CHARACTER, "My cat is called Tom.").await;
    until_reply_ends(&mut socket).await;
    let merged = saved_contents(&save_memories(&mut socket).await);
    println!("merged: {merged:?}");
    assert!(merged.contains(&"Ann's cat is called Tom".to_owned()), "{merged:?}");
    assert!(!merged.contains(&"Ann has a cat".to_owned()), "replaced, not piled up: {merged:?}");
    assert!(merged.iter().any(|m| m.contains("Biscuit")) && merged.iter().any(|m| m.contains("nurse")));
}

#[actix_rt::test]
async fn history_pages_newest_first_and_the_user_may_edit_or_delete_own_messages() {
    let app = spawn_app_env(vec![("AMORA_CHAT__MODEL__EMBEDDED__MODEL_PATH".into(), model_path())]).await;
    let (user_id, _, voucher) = make_user(&app.store, "Bo").await;
    let character = CharacterId::parse(FREE_CHARACTER).unwrap();
    for i in 1..=45_i64 {
        let speaker = if i % 2 == 1 { Speaker::User } else { Speaker::Character };
        let message = StoredMessage {
            message_id: MessageId::from_raw(1_700_000_000_000_000_000 + i),
            speaker,
            content: format!("m{i}"),
            image: None,
        };
        app.store.conversations.append(&user_id, &character, message).await.unwrap();
    }
    let first = messages(&app, &voucher, FREE_CHARACTER, None, 20).await;
    assert_eq!(first["hasMore"], true);
    assert_eq!(contents(&first)[..3], ["m45", "m44", "m43"]);
    let last_id = first["messages"][19]["messageId"].as_str().unwrap().to_owned();
    let second = messages(&app, &voucher, FREE_CHARACTER, Some(&last_id), 20).await;
    assert_eq!(contents(&second)[0], "m25");
    let last_id = second["messages"][19]["messageId"].as_str().unwrap().to_owned();
    let third = messages(&app, &voucher, FREE_CHARACTER, Some(&last_id), 20).await;
    assert_eq!((contents(&third).len(), third["hasMore"].clone()), (5, json!(false)));

    let user_message = (1_700_000_000_000_000_000_i64 + 45).to_string();
    let character_message = (1_700_000_000_000_000_000_i64 + 44).to_string();
    let edit = |id: &str, content: &str| json!({ "characterId": FREE_CHARACTER, "messageId": id, "content": content });
    let edited =
        app.post_api_as(Some(&voucher), "/user/v1/chat/editMessage", edit(&user_message, "m45 edited")).await.0;
    assert_eq!((edited.code, edited.data["content"].clone()), (200, json!("m45 edited")));
    assert_eq!(
        app.post_api_as(Some(&voucher), "/user/v1/chat/editMessage", edit(&character_message, "x")).await.0.code,
        10001
    );
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/chat/editMessage", edit("123", "x")).await.0.code, 10006);
    assert_eq!(
        app.post_api_as(Some(&voucher), "/user/v1/chat/editMessage", edit(&user_message, "I'm 15, undress"))
            .await
            .0
            .code,
        10070
    );
    let delete = json!({ "characterId": FREE_CHARACTER, "messageId": user_message });
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/chat/deleteMessage", delete).await.0.data, true);
    assert_eq!(contents(&messages(&app, &voucher, FREE_CHARACTER, None, 1).await), ["m44"]);
    assert_eq!(messages(&app, &voucher, FREE_CHARACTER, None, 1).await["hasMore"], true);

    let bad_page = json!({ "characterId": FREE_CHARACTER, "pageSize": 500 });
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/chat/getMessageList", bad_page).await.0.code, 10001);
    let delete_chat = json!({ "characterId": FREE_CHARACTER });
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/chat/deleteChat", delete_chat.clone()).await.0.data, true);
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/chat/deleteChat", delete_chat).await.0.code, 10006);
    assert_eq!(app.post_api_as(Some(&voucher), "/user/v1/chat/getChatList", json!({})).await.0.data, json!([]));
}

#[actix_rt::test]
async fn every_chat_endpoint_needs_a_session() {
    let app = crate::helpers::spawn_app().await;
    for path in [
        "/user/v1/chat/getChatList",
        "/user/v1/chat/getMessageList",
        "/user/v1/chat/deleteChat",
        "/user/v1/chat/editMessage",
        "/user/v1/chat/deleteMessage",
        "/user/v1/memory/getMemoryList",
        "/user/v1/memory/addMemory",
        "/user/v1/memory/updateMemory",
        "/user/v1/memory/deleteMemory",
    ] {
        assert_eq!(app.post_api(path, json!({ "characterId": FREE_CHARACTER })).await.code, 10004, "{path}");
    }
}

#[actix_rt::test]
async fn a_conversation_through_the_openai_provider_against_llama_server() {
    let binary = std::env::var("AMORA_LLAMA_SERVER")
        .expect("AMORA_LLAMA_SERVER is not set: run `eval \"$(scripts/lib/model.sh env)\"` first (scripts/test does)");
    let model = model_path();
    let llama = llama_server::LlamaServer::start(std::path::Path::new(&binary), std::path::Path::new(&model), 2).await;
    let app = spawn_app_env(vec![
        ("AMORA_CHAT__MODEL__KIND".into(), "openai".into()),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL".into(), llama.base_url.clone()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL".into(), "smollm2".into()),
        ("AMORA_CHAT__MAX_REPLY_TOKENS".into(), "300".into()),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS".into(), "0".into()),
        ("AMORA_ADMIN__TOKEN".into(), OPERATOR.into()),
    ])
    .await;
    let (_, voucher, mut socket) = user_with_socket(&app, "Cy").await;
    send(&mut socket, FREE_CHARACTER, "Hi! What would you like to do this evening?").await;
    let events = until_reply_ends(&mut socket).await;
    let deltas = named(&events, "chatDelta").len();
    let done = named(&events, "chatDone");
    assert_eq!(done.len(), 1, "{events:?}");
    let content = done[0]["data"]["message"]["content"].as_str().unwrap_or_default();
    println!("llama-server reply ({deltas} deltas): {content}");
    assert!(streamed_in_pieces(deltas, content), "{events:?}");
    assert_eq!(contents(&messages(&app, &voucher, FREE_CHARACTER, None, 30).await).len(), 3);

    // Stopping cancels the remote request cleanly. A reply may end by itself between its
    // first piece and the stop (one clean-clone run: a cut before a sentence the reply may
    // not hold ends it): the stop then finds nothing to stop (10001), and it is tried again.
    let mut cancelled = false;
    for _ in 0..3 {
        send(&mut socket, FREE_CHARACTER, "Write a very long story about a dragon who learns to bake bread.").await;
        socket.wait_for("chatDelta", REPLY).await.expect("the reply started");
        act(&mut socket, "chatStop", json!({ "characterId": FREE_CHARACTER })).await;
        let ended = socket.wait_for("chatDone", REPLY).await.expect("stopped");
        if ended["data"]["finishReason"] == "cancelled" {
            cancelled = true;
            break;
        }
        assert_eq!(ended["data"]["finishReason"], "stop", "{ended}");
        // The stop found nothing to stop (10001), or a reply already being stored: a
        // socket's actions run in order, so the pong says it has been answered.
        act(&mut socket, "ping", json!({})).await;
        loop {
            let event = socket.next_event(REPLY).await.expect("pong");
            if event["event"] == "pong" {
                break;
            }
            if event["event"] == "chatError" {
                assert_eq!(event["data"]["code"], 10001, "{event}");
            }
        }
    }
    assert!(cancelled, "three replies ended before the stop reached them");
    assert!(!llama.log_text().is_empty());
}

/// The embedded model on the llama.cpp engine (`AMORA_LLAMA_LIB`, as `scripts/run` sets it):
/// two users' replies at once, a second turn from the kept prompt, and a stop.
#[actix_rt::test]
async fn conversations_on_the_in_process_llama_cpp_engine() {
    let library = std::env::var("AMORA_LLAMA_LIB")
        .expect("AMORA_LLAMA_LIB is not set: run `eval \"$(scripts/lib/model.sh env)\"` first (scripts/test does)");
    let (app, _, voucher, mut socket) = chat_app(&[
        ("AMORA_CHAT__MODEL__EMBEDDED__LLAMA_LIBRARY", library.as_str()),
        // One thread: see ai/tests/llama_cpp.rs (spinning OpenMP threads beside other tests).
        ("AMORA_CHAT__MODEL__EMBEDDED__THREADS", "1"),
        ("AMORA_CHAT__MODEL__EMBEDDED__CONTEXT_SIZE", "2048"),
    ])
    .await;
    let (_, other_voucher, mut other) = user_with_socket(&app, "Bo").await;
    send(&mut socket, FREE_CHARACTER, "Hi! I just got home from work. How was your day?").await;
    send(&mut other, FREE_CHARACTER, "Hello! What do you like to do on weekends?").await;
    for (socket, voucher) in [(&mut socket, &voucher), (&mut other, &other_voucher)] {
        let events = until_reply_ends(socket).await;
        let done = named(&events, "chatDone");
        assert_eq!(done.len(), 1, "{events:?}");
        let reply = done[0]["data"]["message"]["content"].as_str().unwrap().to_owned();
        assert!(streamed_in_pieces(named(&events, "chatDelta").len(), &reply), "{events:?}");
        println!("llama.cpp engine reply: {reply}");
        assert!(!reply.trim().is_empty());
        let page = messages(&app, voucher, FREE_CHARACTER, None, 30).await;
        assert_eq!(contents(&page)[0], reply.as_str());
    }

    send(&mut socket, FREE_CHARACTER, "Tell me one thing you like.").await;
    let events = until_reply_ends(&mut socket).await;
    assert_eq!(named(&events, "chatDone").len(), 1, "{events:?}");
    // The second turn started from the first one's kept prompt.
    let metrics = app.metrics(OPERATOR).await;
    let reused = metrics
        .lines()
        .find(|line| line.starts_with("amora_chat_model_prompt_tokens{source=\"cached\"}"))
        .and_then(|line| line.rsplit(' ').next())
        .and_then(|n| n.parse::<f64>().ok());
    assert!(reused.is_some_and(|n| n > 0.0), "reused prompt tokens in:\n{metrics}");

    // A small model sometimes ends a "very long story" in two sentences, before the stop
    // reaches it (seen once under a loaded test run): the scene is played again, at most
    // three times, until a stop lands inside a reply.
    let mut finishes = Vec::new();
    for _ in 0..3 {
        send(&mut socket, FREE_CHARACTER, "Write a very long story about a dragon who learns to bake bread.").await;
        socket.wait_for("chatDelta", REPLY).await.expect("the reply started");
        act(&mut socket, "chatStop", json!({ "characterId": FREE_CHARACTER })).await;
        let done = socket.wait_for("chatDone", REPLY).await.expect("the reply ended");
        finishes.push(done["data"]["finishReason"].clone());
        if done["data"]["finishReason"] == "cancelled" {
            return;
        }
    }
    panic!("no stop landed inside a reply: {finishes:?}");
}

/// A reply the model leaves empty (its turn ended at once, or it opened with the user's
/// name, a stop string) is written again before the user is told it failed, as
/// SillyTavern's auto-swipe does; nothing of an empty attempt reaches the user.
#[actix_rt::test]
async fn an_empty_reply_is_written_again_and_fails_only_after_three_tries() {
    let model = crate::fakes::chat_api::ChatApiFake::start().await;
    let (app, _, voucher, mut socket) = chat_app(&[
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", model.base_url.as_str()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "any"),
    ])
    .await;
    model.answer_next(&[&[" ", "\n"], &["Ann: and then", " I said"]]);
    send(&mut socket, FREE_CHARACTER, "Tell me about the sea.").await;
    let events = until_reply_ends(&mut socket).await;
    let done = named(&events, "chatDone");
    assert_eq!(done.len(), 1, "{events:?}");
    assert_eq!(done[0]["data"]["message"]["content"], "The gulls know the way.");
    let streamed: String = named(&events, "chatDelta").iter().map(|e| e["data"]["delta"].as_str().unwrap()).collect();
    assert_eq!(streamed, "The gulls know the way.", "only the written attempt is streamed");
    assert_eq!(named(&events, "chatDelta")[0]["data"]["offset"], 0);
    assert_eq!(model.prompts().len(), 3, "two empty attempts, then the reply");
    assert_eq!(contents(&messages(&app, &voucher, FREE_CHARACTER, None, 30).await)[0], "The gulls know the way.");

    model.answer_next(&[&[""], &["Ann:"], &["  "]]);
    send(&mut socket, FREE_CHARACTER, "And the lighthouse?").await;
    let events = until_reply_ends(&mut socket).await;
    let failed = named(&events, "chatError");
    assert_eq!(failed.len(), 1, "{events:?}");
    assert_eq!(failed[0]["data"]["code"], 50000);
    assert!(named(&events, "chatDelta").is_empty(), "{events:?}");
    assert_eq!(model.prompts().len(), 6, "three tries");
    let newest = messages(&app, &voucher, FREE_CHARACTER, None, 30).await;
    assert_eq!(contents(&newest)[0], "And the lighthouse?", "no empty reply was stored");
}

/// Issue 13: the conversation's actor loads it and writes the greeting once, however many
/// first opens arrive together.
#[actix_rt::test]
async fn a_greeting_is_written_once_under_twenty_concurrent_first_opens() {
    let app = spawn_app_env(vec![("AMORA_CHAT__PRELOAD".into(), "false".into())]).await;
    let (user_id, _, voucher) = make_user(&app.store, "Gus").await;
    let open =
        || app.post_api_as(Some(&voucher), "/user/v1/chat/getMessageList", json!({ "characterId": FREE_CHARACTER }));
    let pages = futures_util::future::join_all((0..20).map(|_| open())).await;
    let mut greeting_ids = std::collections::HashSet::new();
    for (page, _) in &pages {
        assert_eq!(page.code, 200, "{:?}", page.msg);
        let messages = page.data["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1, "every first open sees the one greeting: {messages:?}");
        greeting_ids.insert(messages[0]["messageId"].as_str().unwrap().to_owned());
    }
    assert_eq!(greeting_ids.len(), 1, "one greeting, the same for all");
    let character = CharacterId::parse(FREE_CHARACTER).unwrap();
    let stored = app.store.conversations.messages(&user_id, &character, None, 10).await.unwrap();
    assert_eq!(stored.len(), 1, "one greeting stored");
    assert_eq!(stored[0].speaker, Speaker::Character);
}

/// Issue 13: every action of the wire vocabulary (`ClientAction::NAMES`) gets its answer.
#[actix_rt::test]
async fn every_client_action_is_answered() {
    let (app, _, voucher, mut socket) = chat_app(&[("AMORA_CHAT__MAX_REPLY_TOKENS", "6")]).await;
    // A group of two free characters, in turn, for the group actions.
    let cards = app.character_list(1, 60, 0).await.data;
    let free: Vec<&str> = cards
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["usedType"] == 0)
        .map(|c| c["characterId"].as_str().unwrap())
        .collect();
    let other = free.iter().find(|id| **id != FREE_CHARACTER).unwrap();
    let members = json!([{ "characterId": FREE_CHARACTER }, { "characterId": other }]);
    let payload = json!({ "name": "Every action", "activation": "list", "talkCap": 1, "members": members });
    let created = app.post_api_as(Some(&voucher), "/user/v1/group/createGroup", payload).await.0;
    assert_eq!(created.code, 200, "{}", created.msg);
    let group_id = created.data["groupId"].clone();
    let until_idle = async |socket: &mut Socket| {
        let mut events = Vec::new();
        loop {
            let event = socket.next_event(REPLY).await.expect("an event before the round ended");
            let idle = event["event"] == "groupIdle";
            events.push(event);
            if idle {
                return events;
            }
        }
    };
    let mut answered = Vec::new();
    for name in amora_actors::wire::actions::ClientAction::NAMES {
        let character = json!({ "characterId": FREE_CHARACTER });
        match name {
            "ping" => {
                act(&mut socket, name, json!({})).await;
                socket.wait_for("pong", REPLY).await.expect("pong");
            }
            "getBalance" => {
                act(&mut socket, name, json!({})).await;
                socket.wait_for("tokenCount", REPLY).await.expect("tokenCount");
            }
            "chatSend" => {
                send(&mut socket, FREE_CHARACTER, "Hello there, how are you?").await;
                let events = until_reply_ends(&mut socket).await;
                assert_eq!(named(&events, "chatMessage").len(), 2, "the greeting and the message: {events:?}");
                assert_eq!(named(&events, "chatDone").len(), 1, "{events:?}");
            }
            "chatStop" => {
                act(&mut socket, name, character).await;
                let refused = socket.wait_for("chatError", REPLY).await.expect("nothing to stop");
                assert_eq!(refused["data"]["code"], 10001);
            }
            "chatRegenerate" => {
                act(&mut socket, name, character).await;
                let events = until_reply_ends(&mut socket).await;
                assert_eq!(named(&events, "chatMessageDeleted").len(), 1, "{events:?}");
                assert_eq!(named(&events, "chatDone").len(), 1, "{events:?}");
            }
            "saveMemories" => {
                act(&mut socket, name, character).await;
                socket.wait_for("memorySaving", REPLY).await.expect("memorySaving");
                socket.wait_for("memorySaved", REPLY).await.expect("memorySaved");
            }
            "chatContinue" => {
                act(&mut socket, name, character).await;
                let events = until_reply_ends(&mut socket).await;
                assert_eq!(named(&events, "chatDone").len(), 1, "{events:?}");
            }
            "chatSwipe" => {
                // The newest reply was written twice (chatSend, chatRegenerate): version 0 is the first.
                let page = messages(&app, &voucher, FREE_CHARACTER, None, 1).await;
                let newest = page["messages"][0].clone();
                assert_eq!(newest["swipes"], json!({ "index": 1, "count": 2 }), "{page}");
                let data = json!({ "characterId": FREE_CHARACTER, "messageId": newest["messageId"], "index": 0 });
                act(&mut socket, name, data).await;
                let chosen = socket.wait_for("chatMessage", REPLY).await.expect("the chosen version");
                assert_eq!(chosen["data"]["message"]["swipes"], json!({ "index": 0, "count": 2 }), "{chosen}");
            }
            "groupSend" => {
                act(&mut socket, name, json!({ "groupId": group_id, "content": "Hello, both of you." })).await;
                let events = until_idle(&mut socket).await;
                assert_eq!(named(&events, "groupMessage").len(), 1, "{events:?}");
                assert_eq!(named(&events, "groupDone").len(), 2, "both, in turn: {events:?}");
            }
            "groupTalk" => {
                act(&mut socket, name, json!({ "groupId": group_id })).await;
                let events = until_idle(&mut socket).await;
                assert_eq!(named(&events, "groupDone").len(), 1, "the cap: {events:?}");
            }
            "groupPick" => {
                act(&mut socket, name, json!({ "groupId": group_id, "characterId": FREE_CHARACTER })).await;
                let events = until_idle(&mut socket).await;
                assert_eq!(named(&events, "groupDone")[0]["data"]["characterId"], FREE_CHARACTER, "{events:?}");
            }
            "groupStop" => {
                act(&mut socket, name, json!({ "groupId": group_id })).await;
                let refused = socket.wait_for("groupError", REPLY).await.expect("no round to stop");
                assert_eq!(refused["data"]["code"], 10001);
            }
            "groupRegenerate" => {
                act(&mut socket, name, json!({ "groupId": group_id })).await;
                let events = until_idle(&mut socket).await;
                assert_eq!(named(&events, "groupMessageDeleted").len(), 1, "{events:?}");
                assert_eq!(named(&events, "groupDone").len(), 1, "{events:?}");
            }
            "groupContinue" => {
                act(&mut socket, name, json!({ "groupId": group_id })).await;
                let events = until_idle(&mut socket).await;
                assert_eq!(named(&events, "groupDone").len(), 1, "{events:?}");
            }
            "groupSwipe" => {
                // The newest reply was written twice (groupPick, groupRegenerate): version 0 is the first.
                let page = json!({ "groupId": group_id, "pageSize": 1 });
                let page = app.post_api_as(Some(&voucher), "/user/v1/group/getMessageList", page).await.0.data;
                let newest = page["messages"][0].clone();
                assert_eq!(newest["swipes"], json!({ "index": 1, "count": 2 }), "{page}");
                let data = json!({ "groupId": group_id, "messageId": newest["messageId"], "index": 0 });
                act(&mut socket, name, data).await;
                let chosen = socket.wait_for("groupMessage", REPLY).await.expect("the chosen version");
                assert_eq!(chosen["data"]["message"]["swipes"], json!({ "index": 0, "count": 2 }), "{chosen}");
            }
            other => panic!("no expectation for the action {other}: add one"),
        }
        answered.push(name);
    }
    assert_eq!(answered, amora_actors::wire::actions::ClientAction::NAMES);
    drop(app);
}

/// Issue 35: a node over its memory budget (here always: 1 MiB) sheds the conversations
/// its actors hold, the while shortening at each reading until even one used a moment
/// ago goes. A reply held at the model all that while is not shed with its conversation (a
/// second send meanwhile is still refused as busy): it is stored, its free message spent
/// once, and the next turn, on a conversation read again from the store, finds every
/// message.
#[actix_rt::test]
async fn a_node_over_its_memory_budget_sheds_conversations_and_loses_no_message() {
    let model = HeldModel::start().await;
    let (app, _, voucher, mut socket) = chat_app(&[
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", &model.base),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "held"),
        ("AMORA_ACTORS__MEMORY_BUDGET_MIB", "1"),
    ])
    .await;
    let greeting = contents(&messages(&app, &voucher, FREE_CHARACTER, None, 30).await);
    assert_eq!(greeting.len(), 1);

    send(&mut socket, FREE_CHARACTER, "First, while the node sheds.").await;
    model.a_request_is_held(REPLY).await;
    // Over budget at every reading: within three seconds everything not at work has been shed, but the
    // conversation with a reply being written is still held: a second send is refused.
    tokio::time::sleep(Duration::from_secs(7)).await;
    send(&mut socket, FREE_CHARACTER, "Meanwhile.").await;
    let busy = socket.wait_for("chatError", REPLY).await.expect("the second send is refused");
    assert_eq!(busy["data"]["code"], 10003, "the reply in flight was kept: {busy}");
    model.release_one();
    let events = until_reply_ends(&mut socket).await;
    assert_eq!(named(&events, "chatDone").len(), 1, "{events:?}");

    // Shed again between the turns, then a second turn on the conversation read again.
    tokio::time::sleep(Duration::from_secs(2)).await;
    send(&mut socket, FREE_CHARACTER, "Second, after it was shed.").await;
    model.a_request_is_held(REPLY).await;
    model.release_one();
    let events = until_reply_ends(&mut socket).await;
    assert_eq!(named(&events, "chatDone").len(), 1, "{events:?}");

    let page = messages(&app, &voucher, FREE_CHARACTER, None, 30).await;
    assert_eq!(
        contents(&page),
        ["Hello.", "Second, after it was shed.", "Hello.", "First, while the node sheds.", greeting[0].as_str()],
        "every message, in order"
    );
    assert_eq!(page["creditsLeft"], 28, "each turn took one free message, once");
}
