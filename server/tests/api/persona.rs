//! Issue 18 on the wire, on both stores: the user's persona (settings → `{{user}}` in a
//! greeting and the prompt), replies that end at a sentence or say they were cut, and the
//! instruction to answer in the user's language. The model is a loopback OpenAI-compatible
//! chat API that records every prompt (`fakes::chat_api`), so each test reads exactly what
//! the model was given.

use serde_json::{Value, json};

use crate::chat::{REPLY, messages, send, until_reply_ends};
use crate::cluster::{Socket, make_user};
use crate::fakes::chat_api::ChatApiFake;
use crate::helpers::{TestApp, spawn_app_customised};

#[derive(Clone, Copy)]
enum StoreKind {
    Sqlite,
    Cql,
}

/// A server on `kind`'s store whose chat model is `model`.
async fn persona_app(kind: StoreKind, model: &ChatApiFake) -> TestApp {
    let mut env: Vec<(String, String)> = [
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", model.base_url.as_str()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "any"),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS", "0"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    if let StoreKind::Cql = kind {
        let node = std::env::var("AMORA_CQL_NODE").expect("AMORA_CQL_NODE is not set");
        let keyspace = format!(
            "persona_{}",
            amora_server::auth::random_token().to_lowercase().replace(['-', '_'], "")[..12].to_owned()
        );
        env.extend([
            ("AMORA_STORE__KIND".to_owned(), "scylla".to_owned()),
            ("AMORA_STORE__SCYLLA__NODES".to_owned(), node),
            ("AMORA_STORE__SCYLLA__KEYSPACE".to_owned(), keyspace),
            (
                "AMORA_STORE__SCYLLA__REPLICATION".to_owned(),
                "{'class': 'SimpleStrategy', 'replication_factor': 1}".to_owned(),
            ),
        ]);
    }
    spawn_app_customised(env, |_| {}).await
}

fn cql_available() -> bool {
    std::env::var("AMORA_CQL_NODE").is_ok()
}

/// A signed-in user named `name` with a socket: (voucher, socket).
async fn person(app: &TestApp, name: &str) -> (String, Socket) {
    let (_, _, voucher) = make_user(&app.store, name).await;
    let url = format!("{}/lust/api/ws?voucher={voucher}", app.address.replacen("http", "ws", 1));
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut socket = Socket { stream };
    socket.wait_for("hello", REPLY).await.expect("hello");
    (voucher, socket)
}

/// Calls an endpoint: (code, data, msg).
async fn call(app: &TestApp, voucher: Option<&str>, path: &str, payload: Value) -> (u64, Value, String) {
    let (envelope, _) = app.post_api_as(voucher, path, payload).await;
    (envelope.code, envelope.data, envelope.msg)
}

async fn ok(app: &TestApp, voucher: &str, path: &str, payload: Value) -> Value {
    let (code, data, msg) = call(app, Some(voucher), path, payload.clone()).await;
    assert_eq!(code, 200, "{path} {payload}: {msg}");
    data
}

/// Sends `text` to `character` and answers the prompt the model got and the `chatDone` event.
async fn turn(socket: &mut Socket, model: &ChatApiFake, character: &str, text: &str) -> (Vec<String>, Value) {
    send(socket, character, text).await;
    let events = until_reply_ends(socket).await;
    let done = events.iter().find(|e| e["event"] == "chatDone").cloned();
    let done = done.unwrap_or_else(|| panic!("no chatDone: {events:?}"));
    (model.prompts().pop().expect("the model was asked"), done)
}

fn system(prompt: &[String]) -> &str {
    assert!(prompt[0].starts_with("system: "), "{prompt:?}");
    &prompt[0]
}

const EVERYONE: &str = "gf-001";
const OVERRIDDEN: &str = "gf-004";

async fn the_persona_names_the_user_in_greetings_and_prompts(kind: StoreKind) {
    let model = ChatApiFake::start().await;
    let app = persona_app(kind, &model).await;
    let (ann, mut socket) = person(&app, "Ann").await;
    assert_eq!(ok(&app, &ann, "/user/v1/persona/getPersonaList", json!({})).await, json!([]));

    let everyone = ok(
        &app,
        &ann,
        "/user/v1/persona/setPersona",
        json!({"name": "  Captain Ann ", "description": "A night nurse who sails the Kittiwake; {{char}} met her at the harbour."}),
    )
    .await;
    assert_eq!(
        everyone,
        json!({"characterId": null, "name": "Captain Ann",
               "description": "A night nurse who sails the Kittiwake; {{char}} met her at the harbour."})
    );
    let own = ok(
        &app,
        &ann,
        "/user/v1/persona/setPersona",
        json!({"characterId": OVERRIDDEN, "name": "Dr Ann", "description": "Her new neighbour."}),
    )
    .await;
    assert_eq!(own["characterId"], OVERRIDDEN);
    let list = ok(&app, &ann, "/user/v1/persona/getPersonaList", json!({})).await;
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{list}");
    assert_eq!(list[0]["characterId"], Value::Null, "the one for every character first: {list}");
    assert_eq!(list[1]["name"], "Dr Ann");

    // {{user}} in a new conversation's greeting is the persona's name.
    let page = messages(&app, &ann, EVERYONE, None, 30).await;
    let greeting = page["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(greeting.contains("Captain Ann") && !greeting.contains("{{user}}"), "{greeting}");
    let page = messages(&app, &ann, OVERRIDDEN, None, 30).await;
    let greeting = page["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(greeting.contains("Dr Ann") && !greeting.contains("Captain"), "the character's own persona: {greeting}");

    // The prompt names and describes the user as the persona says.
    let (prompt, _) = turn(&mut socket, &model, EVERYONE, "Good morning! The usual, please.").await;
    let head = system(&prompt);
    assert!(head.contains("You are chatting with Captain Ann."), "{head}");
    assert!(
        head.contains("About Captain Ann: A night nurse who sails the Kittiwake; Sofia Marin met her at the harbour."),
        "{head}"
    );
    let (prompt, _) = turn(&mut socket, &model, OVERRIDDEN, "Hello neighbour!").await;
    assert!(system(&prompt).contains("About Dr Ann: Her new neighbour."), "{prompt:?}");
    assert!(!system(&prompt).contains("Captain Ann"), "{prompt:?}");

    // Removing the character's own persona falls back to the one for every character; removing
    // that one to the account's name, with no description.
    let removed = ok(&app, &ann, "/user/v1/persona/deletePersona", json!({"characterId": OVERRIDDEN})).await;
    assert_eq!(removed, json!(true));
    let (prompt, _) = turn(&mut socket, &model, OVERRIDDEN, "Are you still there?").await;
    assert!(system(&prompt).contains("About Captain Ann:"), "{prompt:?}");
    ok(&app, &ann, "/user/v1/persona/deletePersona", json!({})).await;
    let (prompt, _) = turn(&mut socket, &model, EVERYONE, "Still there?").await;
    assert!(
        system(&prompt).contains("You are chatting with Ann.") && !system(&prompt).contains("About "),
        "{prompt:?}"
    );
    assert_eq!(ok(&app, &ann, "/user/v1/persona/getPersonaList", json!({})).await, json!([]));

    // Bad input: a clear code, nothing stored.
    for (payload, code, field) in [
        (json!({"name": "   "}), 10001, "name"),
        (json!({"name": "a".repeat(31)}), 10001, "name"),
        (json!({"name": "Ann", "description": "é".repeat(501)}), 10001, "description"),
        (json!({"name": "Ann", "characterId": "not an id!"}), 10001, "characterId"),
        (json!({"name": "Ann", "characterId": "gf-999"}), 10006, ""),
        (json!({"name": "Ann", "description": "I am a 12 year old girl who wants sex."}), 10070, ""),
    ] {
        let (got, _, msg) = call(&app, Some(&ann), "/user/v1/persona/setPersona", payload.clone()).await;
        assert_eq!(got, code, "{payload}: {msg}");
        assert!(msg.contains(field), "{payload}: {msg}");
    }
    assert_eq!(ok(&app, &ann, "/user/v1/persona/getPersonaList", json!({})).await, json!([]), "nothing was kept");
    let (code, _, _) = call(&app, Some(&ann), "/user/v1/persona/deletePersona", json!({})).await;
    assert_eq!(code, 10006, "none to delete");
    let (code, _, _) = call(&app, None, "/user/v1/persona/getPersonaList", json!({})).await;
    assert_eq!(code, 10004, "signed out");
}

#[actix_rt::test]
async fn the_persona_names_the_user_in_greetings_and_prompts_on_sqlite() {
    Box::pin(the_persona_names_the_user_in_greetings_and_prompts(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn the_persona_names_the_user_in_greetings_and_prompts_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    Box::pin(the_persona_names_the_user_in_greetings_and_prompts(StoreKind::Cql)).await;
}

async fn replies_end_at_a_sentence_or_are_marked_cut(kind: StoreKind) {
    let model = ChatApiFake::start().await;
    let app = persona_app(kind, &model).await;
    let (ann, mut socket) = person(&app, "Ann").await;

    // The token limit stopped it after a whole sentence: what follows is not kept.
    model.reply_with(&["I love the rain. ", "It makes the café feel like"], "length");
    let (_, done) = turn(&mut socket, &model, EVERYONE, "Do you like rainy days?").await;
    assert_eq!(done["data"]["message"]["content"], "I love the rain.", "{done}");
    assert_eq!(done["data"]["finishReason"], "length");
    assert_eq!(done["data"]["cut"], false);

    // No sentence end at all: kept whole, and marked cut.
    model.reply_with(&["*leans on the counter* I was walking ", "along the harbour when I"], "length");
    let (_, cut) = turn(&mut socket, &model, EVERYONE, "What happened yesterday?").await;
    // The action closes with its asterisk: that is a place to end.
    assert_eq!(cut["data"]["message"]["content"], "*leans on the counter*", "{cut}");
    assert_eq!(cut["data"]["cut"], false);
    model.reply_with(&["I was walking along the harbour when I"], "length");
    let (_, cut) = turn(&mut socket, &model, EVERYONE, "And then?").await;
    assert_eq!(cut["data"]["message"]["content"], "I was walking along the harbour when I", "{cut}");
    assert_eq!(cut["data"]["cut"], true);

    // A reply the model ended itself is kept as written.
    model.reply_with(&["Fine, you win"], "stop");
    let (_, done) = turn(&mut socket, &model, EVERYONE, "Admit it.").await;
    assert_eq!(done["data"]["message"]["content"], "Fine, you win");
    assert_eq!(done["data"]["cut"], false);

    // The history holds what chatDone said, newest first.
    let page = messages(&app, &ann, EVERYONE, None, 30).await;
    let stored: Vec<&str> =
        page["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(
        stored[..7],
        [
            "Fine, you win",
            "Admit it.",
            "I was walking along the harbour when I",
            "And then?",
            "*leans on the counter*",
            "What happened yesterday?",
            "I love the rain.",
        ]
    );
}

#[actix_rt::test]
async fn replies_end_at_a_sentence_or_are_marked_cut_on_sqlite() {
    Box::pin(replies_end_at_a_sentence_or_are_marked_cut(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn replies_end_at_a_sentence_or_are_marked_cut_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    Box::pin(replies_end_at_a_sentence_or_are_marked_cut(StoreKind::Cql)).await;
}

async fn the_character_is_told_to_answer_in_the_users_language(kind: StoreKind) {
    let model = ChatApiFake::start().await;
    let app = persona_app(kind, &model).await;
    let (ann, mut socket) = person(&app, "Ann").await;

    // The instruction follows the user's message, after the history: the system message,
    // which the model caches, stays as it was.
    let (english, _) = turn(&mut socket, &model, EVERYONE, "Hi! What is your name, and what do you do?").await;
    assert!(english.last().unwrap().ends_with("Reply in English."), "{english:?}");
    let (german, _) =
        turn(&mut socket, &model, EVERYONE, "Hallo! Wie heißt du eigentlich, und was machst du beruflich?").await;
    let n = german.len();
    assert_eq!(german[n - 2], "user: Hallo! Wie heißt du eigentlich, und was machst du beruflich?");
    assert!(german[n - 1].starts_with("system: Reply as Sofia Marin"), "{german:?}");
    assert!(german[n - 1].ends_with("Antworte auf Deutsch."), "{german:?}");
    assert_eq!(german[0], english[0], "the system message did not change");
    let (french, _) =
        turn(&mut socket, &model, EVERYONE, "Et maintenant en français : qu'est-ce que tu aimes faire le soir ?").await;
    assert!(french.last().unwrap().ends_with("Réponds en français."), "{french:?}");
    let (spanish, _) = turn(&mut socket, &model, EVERYONE, "¿Y en español? ¿Qué te gusta hacer los domingos?").await;
    assert!(spanish.last().unwrap().ends_with("Responde en español."), "{spanish:?}");

    // A message too short to tell: the interface language from settings decides.
    ok(&app, &ann, "/user/v1/updateWebData", json!({"language": "de"})).await;
    let (short, _) = turn(&mut socket, &model, OVERRIDDEN, "ok").await;
    assert!(short.last().unwrap().ends_with("Antworte auf Deutsch."), "{short:?}");
}

#[actix_rt::test]
async fn the_character_is_told_to_answer_in_the_users_language_on_sqlite() {
    Box::pin(the_character_is_told_to_answer_in_the_users_language(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn the_character_is_told_to_answer_in_the_users_language_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    Box::pin(the_character_is_told_to_answer_in_the_users_language(StoreKind::Cql)).await;
}
