//! Group chat rounds over the socket (issue 31, docs/api.md "Group chats"), on the real
//! embedded model and on both stores: a message naming a member is answered by that member
//! first (natural order), a muted member stays silent, "in turn" answers in seating order,
//! "let them talk" writes at most the group's cap, a manual group answers only the member
//! the user picks (a muted one is refused), each reply costs a free user one free message,
//! and a premium member's turn ends the round with 40004, the replies before it kept.

use serde_json::{Value, json};

use crate::chat::{FREE_CHARACTER, REPLY, act, chat_app, messages, model_path, named, user_with_socket};
use crate::cluster::Socket;
use crate::creation::{StoreKind, cql_available, creation_app};
use crate::fakes::held_model::HeldModel;
use crate::helpers::TestApp;

/// A server on the embedded model (short replies) on `kind`'s store.
async fn group_app(kind: StoreKind) -> TestApp {
    let model = model_path();
    let library = std::env::var("AMORA_LLAMA_LIB").ok();
    let mut env = vec![
        ("AMORA_CHAT__MODEL__EMBEDDED__MODEL_PATH", model.as_str()),
        ("AMORA_CHAT__MAX_REPLY_TOKENS", "16"),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS", "0"),
    ];
    if let Some(library) = &library {
        env.push(("AMORA_CHAT__MODEL__EMBEDDED__LLAMA_LIBRARY", library.as_str()));
    }
    creation_app(kind, &env).await
}

pub(crate) async fn ok(app: &TestApp, voucher: &str, path: &str, payload: Value) -> Value {
    let (envelope, _) = app.post_api_as(Some(voucher), path, payload.clone()).await;
    assert_eq!(envelope.code, 200, "{path} {payload}: {}", envelope.msg);
    envelope.data
}

/// Catalogue characters a free user may chat with (`usedType` 0), and one only paid users may.
pub(crate) async fn catalogue(app: &TestApp) -> (Vec<String>, String) {
    let cards = app.character_list(1, 60, 0).await.data;
    let cards = cards.as_array().unwrap();
    let id = |card: &Value| card["characterId"].as_str().unwrap().to_owned();
    let free = cards.iter().filter(|c| c["usedType"] == 0).map(id).collect();
    let premium = cards.iter().find(|c| c["usedType"] == 1).map(id).expect("a premium character");
    (free, premium)
}

/// Events until `groupIdle` (inclusive): the round is over.
pub(crate) async fn until_idle(socket: &mut Socket) -> Vec<Value> {
    let mut events = Vec::new();
    loop {
        let event = socket.next_event(REPLY).await.expect("an event before the round ended");
        let idle = event["event"] == "groupIdle";
        events.push(event);
        if idle {
            return events;
        }
    }
}

/// Who spoke in a round, in order (`groupDone` with a stored message).
fn speakers(events: &[Value]) -> Vec<String> {
    named(events, "groupDone")
        .into_iter()
        .filter(|e| !e["data"]["message"].is_null())
        .map(|e| e["data"]["characterId"].as_str().unwrap().to_owned())
        .collect()
}

fn idle_replies(events: &[Value]) -> u64 {
    named(events, "groupIdle")[0]["data"]["replies"].as_u64().unwrap()
}

/// Every piece streamed names the group and a speaker who then finished that reply.
fn streamed_by_speakers(events: &[Value], group_id: &str) {
    let done = speakers(events);
    for delta in named(events, "groupDelta") {
        assert_eq!(delta["data"]["groupId"], group_id);
        let by = delta["data"]["characterId"].as_str().unwrap();
        assert!(done.iter().any(|s| s == by), "a piece of {by}, who never finished: {events:?}");
    }
    assert!(named(events, "chatDelta").is_empty(), "group replies never stream as one-to-one chat");
}

pub(crate) async fn credits_left(app: &TestApp, voucher: &str) -> Value {
    messages(app, voucher, FREE_CHARACTER, None, 1).await["creditsLeft"].clone()
}

async fn rounds_flow(kind: StoreKind) {
    let app = group_app(kind).await;
    let (_, voucher, mut socket) = user_with_socket(&app, "Ann").await;
    let (free, premium) = catalogue(&app).await;
    let (a, b, c) = (free[0].clone(), free[1].clone(), free[2].clone());
    let group = ok(
        &app,
        &voucher,
        "/user/v1/group/createGroup",
        json!({
            "name": "Night shift",
            "members": [
                {"characterId": a, "talkativeness": 100},
                {"characterId": b, "talkativeness": 100},
                {"characterId": c, "talkativeness": 100},
            ],
        }),
    )
    .await;
    let group_id = group["groupId"].as_str().unwrap().to_owned();
    let b_name = group["members"][1]["characterName"].as_str().unwrap().to_owned();
    ok(&app, &voucher, "/user/v1/group/updateMember", json!({"groupId": group_id, "characterId": c, "muted": true}))
        .await;
    assert_eq!(credits_left(&app, &voucher).await, 30);

    // Natural order: the member the message names answers first; every other unmuted one
    // is talkative enough to follow; the muted one stays silent.
    let text = format!("{b_name}, how was your night?");
    act(&mut socket, "groupSend", json!({"groupId": group_id, "content": text})).await;
    let round = until_idle(&mut socket).await;
    let sent = named(&round, "groupMessage");
    assert_eq!(sent.len(), 1, "{round:?}");
    assert_eq!(sent[0]["data"]["message"]["content"], text);
    assert_eq!(sent[0]["data"]["message"]["characterId"], Value::Null, "the user's");
    assert_eq!(speakers(&round), [b.clone(), a.clone()], "named first, muted never: {round:?}");
    assert_eq!(idle_replies(&round), 2);
    streamed_by_speakers(&round, &group_id);
    assert_eq!(credits_left(&app, &voucher).await, 28, "one free message per reply");

    // In turn: seating order, the muted member passed over.
    ok(&app, &voucher, "/user/v1/group/updateGroup", json!({"groupId": group_id, "activation": "list", "talkCap": 2}))
        .await;
    act(&mut socket, "groupSend", json!({"groupId": group_id, "content": "Good morning, everyone."})).await;
    let round = until_idle(&mut socket).await;
    assert_eq!(speakers(&round), [a.clone(), b.clone()], "{round:?}");

    // Let them talk: at most the cap (2), going on from the seat after the last speaker.
    act(&mut socket, "groupTalk", json!({"groupId": group_id})).await;
    let round = until_idle(&mut socket).await;
    let talked = speakers(&round);
    assert!(talked.len() <= 2, "the cap: {round:?}");
    assert_eq!(talked, [a.clone(), b.clone()], "in turn after {b}, the muted {c} passed over");
    assert!(named(&round, "groupMessage").is_empty(), "the user said nothing");
    assert_eq!(credits_left(&app, &voucher).await, 24);

    // Manual: a message gets no reply; the member picked speaks; a muted one is refused.
    ok(&app, &voucher, "/user/v1/group/updateGroup", json!({"groupId": group_id, "activation": "manual"})).await;
    act(&mut socket, "groupSend", json!({"groupId": group_id, "content": "Who wants to go first?"})).await;
    let round = until_idle(&mut socket).await;
    assert_eq!((speakers(&round), idle_replies(&round)), (vec![], 0), "{round:?}");
    act(&mut socket, "groupPick", json!({"groupId": group_id, "characterId": c})).await;
    let refused = socket.wait_for("groupError", REPLY).await.expect("a muted member refused");
    assert_eq!(refused["data"]["code"], 10001, "{refused}");
    act(&mut socket, "groupPick", json!({"groupId": group_id, "characterId": b})).await;
    let round = until_idle(&mut socket).await;
    assert_eq!(speakers(&round), vec![b.clone()], "{round:?}");
    assert_eq!(credits_left(&app, &voucher).await, 23);

    // The history holds every message in order, each character's naming its speaker.
    let page = ok(&app, &voucher, "/user/v1/group/getMessageList", json!({"groupId": group_id, "pageSize": 100})).await;
    let said: Vec<Value> =
        page["messages"].as_array().unwrap().iter().rev().map(|m| m["characterId"].clone()).collect();
    let user = Value::Null;
    let who = |id: &String| json!(id);
    assert_eq!(said[..3], [who(&a), who(&b), who(&c)], "the greetings, in seating order");
    let said = &said[3..];
    assert_eq!(said, [user.clone(), who(&b), who(&a), user.clone(), who(&a), who(&b), who(&a), who(&b), user, who(&b)]);
    assert!(!said.contains(&who(&c)), "the muted member never spoke");

    // A premium member for a free user: its turn ends the round with 40004, the reply
    // before it kept and paid for, its own never charged.
    let mixed = ok(
        &app,
        &voucher,
        "/user/v1/group/createGroup",
        json!({"name": "Mixed", "activation": "list", "members": [{"characterId": a}, {"characterId": premium}]}),
    )
    .await;
    let mixed_id = mixed["groupId"].as_str().unwrap().to_owned();
    act(&mut socket, "groupSend", json!({"groupId": mixed_id, "content": "Hello both of you."})).await;
    let round = until_idle(&mut socket).await;
    assert_eq!(speakers(&round), vec![a.clone()], "{round:?}");
    let failed = named(&round, "groupError");
    assert_eq!(failed.len(), 1, "{round:?}");
    assert_eq!(
        (failed[0]["data"]["code"].clone(), failed[0]["data"]["characterId"].clone()),
        (json!(40004), json!(premium))
    );
    assert_eq!(idle_replies(&round), 1);
    assert_eq!(credits_left(&app, &voucher).await, 22);

    // Another user's group is no group of theirs.
    let (_, bob, mut bob_socket) = user_with_socket(&app, "Bob").await;
    act(&mut bob_socket, "groupSend", json!({"groupId": group_id, "content": "Hi"})).await;
    let refused = bob_socket.wait_for("groupError", REPLY).await.expect("refused");
    assert_eq!(refused["data"]["code"], 10006);
    assert_eq!(credits_left(&app, &bob).await, 30);
}

#[actix_rt::test]
async fn group_rounds_follow_the_turn_order_mute_caps_and_charge_per_reply_on_sqlite() {
    Box::pin(rounds_flow(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn group_rounds_follow_the_turn_order_mute_caps_and_charge_per_reply_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    Box::pin(rounds_flow(StoreKind::Cql)).await;
}

/// One round at a time, and `groupStop` ends it: the first member's reply is held at a
/// loopback model until the test lets it go, so a second send meanwhile is refused (10003,
/// nothing stored) and the stop lands while that reply is being written, whatever the
/// machine's speed. After the stop nobody else speaks: the model is asked once.
#[actix_rt::test]
async fn a_group_runs_one_round_at_a_time_and_stop_ends_it() {
    let model = HeldModel::start().await;
    let (app, _, voucher, mut socket) = chat_app(&[
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", &model.base),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "held"),
    ])
    .await;
    let (free, _) = catalogue(&app).await;
    let members = json!([{"characterId": free[0]}, {"characterId": free[1]}]);
    let group = ok(
        &app,
        &voucher,
        "/user/v1/group/createGroup",
        json!({"name": "Held", "activation": "list", "members": members}),
    )
    .await;
    let group_id = group["groupId"].as_str().unwrap().to_owned();

    act(&mut socket, "groupSend", json!({"groupId": group_id, "content": "Hello, both of you."})).await;
    model.a_request_is_held(REPLY).await;
    act(&mut socket, "groupSend", json!({"groupId": group_id, "content": "Are you there?"})).await;
    let busy = socket.wait_for("groupError", REPLY).await.expect("a second round refused");
    assert_eq!((busy["data"]["code"].clone(), busy["data"]["characterId"].clone()), (json!(10003), Value::Null));

    act(&mut socket, "groupStop", json!({"groupId": group_id})).await;
    // A socket's actions run in order: the pong says the stop has run. The round may end
    // before it (its events are kept).
    act(&mut socket, "ping", json!({})).await;
    let mut round = Vec::new();
    loop {
        let event = socket.next_event(REPLY).await.expect("pong");
        if event["event"] == "pong" {
            break;
        }
        round.push(event);
    }
    model.release_all();
    if named(&round, "groupIdle").is_empty() {
        round.extend(until_idle(&mut socket).await);
    }
    let done = named(&round, "groupDone");
    assert_eq!(done.len(), 1, "the first member's reply ends the round: {round:?}");
    assert_eq!(done[0]["data"]["characterId"], json!(free[0]));
    assert!(idle_replies(&round) <= 1, "{round:?}");
    assert_eq!(model.requests(), 1, "the second member was never asked");
    // A reply stopped before any text costs nothing; one with text costs a free message.
    let stored = done[0]["data"]["message"].is_null() as u64;
    assert_eq!(credits_left(&app, &voucher).await, json!(29 + stored), "{round:?}");

    let page = ok(&app, &voucher, "/user/v1/group/getMessageList", json!({"groupId": group_id})).await;
    let users: Vec<&Value> =
        page["messages"].as_array().unwrap().iter().filter(|m| m["characterId"].is_null()).collect();
    assert_eq!(users.len(), 1, "the refused send stored nothing: {page}");

    // The group is free again: nothing to stop, and a new round runs.
    act(&mut socket, "groupStop", json!({"groupId": group_id})).await;
    let refused = socket.wait_for("groupError", REPLY).await.expect("nothing to stop");
    assert_eq!(refused["data"]["code"], 10001);
    act(&mut socket, "groupPick", json!({"groupId": group_id, "characterId": free[1]})).await;
    let round = until_idle(&mut socket).await;
    assert_eq!(speakers(&round), vec![free[1].clone()], "{round:?}");
}

/// Seen in the group journey: the second member's reply opened "Of course I remember —
/// stayed and Breezy Lark!": the answer opening (one-to-one chat's, for a question about
/// what the user told) ran on the first member's question, with the members' lines as facts.
#[actix_rt::test]
async fn a_member_s_question_gets_no_answer_opening_from_another_member() {
    let model = crate::fakes::chat_api::ChatApiFake::start().await;
    let env = [
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", model.base_url.as_str()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "any"),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS", "0"),
    ];
    let app = creation_app(StoreKind::Sqlite, &env).await;
    let (_, voucher, mut socket) = user_with_socket(&app, "Ann").await;
    let (free, _) = catalogue(&app).await;
    let members = json!([{"characterId": free[0]}, {"characterId": free[1]}]);
    let group = ok(
        &app,
        &voucher,
        "/user/v1/group/createGroup",
        json!({"name": "Pair", "activation": "list", "members": members}),
    )
    .await;
    let group_id = group["groupId"].as_str().unwrap().to_owned();
    let second = "The harbour lights look lovely tonight.";
    model.answer_next(&[&["Do you remember where I live? I told you about my flat by the sea."], &[second]]);
    act(
        &mut socket,
        "groupSend",
        json!({"groupId": group_id, "content": "My dog is called Pixel and I live in Lyon."}),
    )
    .await;
    let round = until_idle(&mut socket).await;
    let done = named(&round, "groupDone");
    assert_eq!(done.len(), 2, "{round:?}");
    assert_eq!(done[1]["data"]["message"]["content"], second, "no opening answering the first member");
}
