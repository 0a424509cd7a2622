//! Chat polish of issue 18 against the real server, on SQLite and on the CQL store at
//! `AMORA_CQL_NODE` (docs/api.md "Chat polish"): a deleted conversation or message leaves
//! the user's other tabs; a page read mid-reply holds the words already streamed; merely
//! opening a character lists no chat; the seeded catalogue answers in the request's
//! language, and a new conversation's greeting is written in the user's. Replies come from
//! a loopback OpenAI-compatible API (`ChatApiFake`), quick or piece by piece.

use std::time::Duration;

use amora_store::seed::seed_texts;
use serde_json::{Value, json};

use crate::chat::{send, until_reply_ends};
use crate::cluster::{Socket, make_user};
use crate::creation::{StoreKind, cql_available, creation_app};
use crate::fakes::chat_api::ChatApiFake;
use crate::helpers::TestApp;

const WAIT: Duration = Duration::from_secs(30);
const SOFIA: &str = "gf-001";
const MARCO: &str = "gf-002";

/// A server on `kind`'s store whose chat model is `model`.
async fn polish_app(kind: StoreKind, model: &ChatApiFake) -> TestApp {
    let settings = [
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", model.base_url.as_str()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "any"),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS", "0"),
    ];
    creation_app(kind, &settings).await
}

async fn socket(app: &TestApp, voucher: &str) -> Socket {
    let url = format!("{}/lust/api/ws?voucher={voucher}", app.address.replacen("http", "ws", 1));
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut socket = Socket { stream };
    socket.wait_for("hello", WAIT).await.expect("hello");
    socket
}

/// An API call as the holder of `voucher` with `headers` that must succeed; its data.
async fn ok(app: &TestApp, voucher: &str, headers: &[(&str, &str)], path: &str, payload: Value) -> Value {
    let (envelope, _) = app.post_api_with(Some(voucher), headers, path, payload.clone()).await;
    assert_eq!(envelope.code, 200, "{path} {payload}: {}", envelope.msg);
    envelope.data
}

fn listed(list: &Value) -> Vec<&str> {
    list.as_array().unwrap().iter().map(|s| s["characterId"].as_str().unwrap()).collect()
}

/// Skips a CQL test (with a note) when no CQL server is given.
fn on(kind: StoreKind) -> bool {
    let run = matches!(kind, StoreKind::Sqlite) || cql_available();
    if !run {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
    }
    run
}

async fn deletes_reach_the_other_tabs(kind: StoreKind) {
    let model = ChatApiFake::start().await;
    let app = polish_app(kind, &model).await;
    let (_, _, voucher) = make_user(&app.store, "Ann").await;
    let mut writing = socket(&app, &voucher).await;
    let mut other_tab = socket(&app, &voucher).await;

    send(&mut writing, SOFIA, "Good morning!").await;
    let events = until_reply_ends(&mut writing).await;
    assert!(events.iter().any(|e| e["event"] == "chatDone"), "{events:?}");
    let page = ok(&app, &voucher, &[], "/user/v1/chat/getMessageList", json!({ "characterId": SOFIA })).await;
    let mine = page["messages"].as_array().unwrap().iter().find(|m| m["speaker"] == "user").unwrap().clone();

    let delete = json!({ "characterId": SOFIA, "messageId": mine["messageId"] });
    assert_eq!(ok(&app, &voucher, &[], "/user/v1/chat/deleteMessage", delete).await, json!(true));
    let gone = other_tab.wait_for("chatMessageDeleted", WAIT).await.expect("the other tab hears of the message");
    assert_eq!(gone["data"], json!({ "characterId": SOFIA, "messageIds": [mine["messageId"]] }), "{kind:?}");

    assert_eq!(ok(&app, &voucher, &[], "/user/v1/chat/deleteChat", json!({ "characterId": SOFIA })).await, json!(true));
    let gone = other_tab.wait_for("chatDeleted", WAIT).await.expect("the other tab hears of the conversation");
    assert_eq!(gone["data"], json!({ "characterId": SOFIA }), "{kind:?}");
    let also = writing.wait_for("chatDeleted", WAIT).await.expect("every tab does, the deleting one too");
    assert_eq!(also["data"]["characterId"], SOFIA);
}

#[actix_rt::test]
async fn a_deleted_message_or_conversation_leaves_the_users_other_tabs_on_sqlite() {
    Box::pin(deletes_reach_the_other_tabs(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn a_deleted_message_or_conversation_leaves_the_users_other_tabs_on_cql() {
    if on(StoreKind::Cql) {
        Box::pin(deletes_reach_the_other_tabs(StoreKind::Cql)).await;
    }
}

async fn a_page_read_mid_reply_holds_the_streamed_words(kind: StoreKind) {
    // The first piece is longer than the start a reply holds back (docs/api.md "Held back,
    // then checked"): it is sent as soon as it is written, up to its sentence's end (the
    // space after it goes with the next sentence, "Then sent a sentence at a time").
    const PIECES: [&str; 4] =
        ["*She looks up from the counter, a cup still in her hands.* ", "Oh, it's you ", "again, ", "come in."];
    let model = ChatApiFake::start_with(&PIECES, Duration::from_millis(1500)).await;
    let app = polish_app(kind, &model).await;
    let (_, _, voucher) = make_user(&app.store, "Ann").await;
    let mut tab = socket(&app, &voucher).await;

    send(&mut tab, SOFIA, "Knock knock").await;
    let first = tab.wait_for("chatDelta", WAIT).await.expect("the reply starts");
    let reply_id = first["data"]["replyId"].clone();
    // The page a reload reads now: the user's message stored, the reply as written so far.
    let page = ok(&app, &voucher, &[], "/user/v1/chat/getMessageList", json!({ "characterId": SOFIA })).await;
    let replying = &page["replying"];
    assert_eq!(replying["replyId"], reply_id, "{kind:?} {page}");
    let so_far = replying["content"].as_str().unwrap_or_default();
    assert!(so_far.starts_with(PIECES[0].trim_end()) && PIECES.concat().starts_with(so_far), "{so_far:?}");
    assert!(so_far.len() < PIECES.concat().len(), "the reply is still being written: {so_far:?}");
    assert_eq!(page["messages"][0]["content"], "Knock knock");
    // An older page is no reload: it carries no reply.
    let older = json!({ "characterId": SOFIA, "beforeId": page["messages"][0]["messageId"] });
    assert_eq!(ok(&app, &voucher, &[], "/user/v1/chat/getMessageList", older).await["replying"], Value::Null);

    assert_eq!(first["data"]["offset"], 0);
    let events = until_reply_ends(&mut tab).await;
    let done = events.iter().find(|e| e["event"] == "chatDone").unwrap_or_else(|| panic!("{events:?}"));
    assert_eq!(done["data"]["message"]["content"], PIECES.concat().trim());
    // The page's text and the pieces after it, each put where its offset says, are the reply.
    let mut joined = so_far.to_owned();
    for delta in events.iter().filter(|e| e["event"] == "chatDelta") {
        let at = delta["data"]["offset"].as_u64().unwrap() as usize;
        assert!(at <= joined.len(), "a gap before {delta}");
        joined.truncate(at);
        joined.push_str(delta["data"]["delta"].as_str().unwrap());
    }
    assert_eq!(joined, PIECES.concat(), "{kind:?}");
    let page = ok(&app, &voucher, &[], "/user/v1/chat/getMessageList", json!({ "characterId": SOFIA })).await;
    assert_eq!(page["replying"], Value::Null, "the reply ended: {page}");
    assert_eq!(page["messages"][0]["messageId"], reply_id);
}

#[actix_rt::test]
async fn a_page_read_mid_reply_holds_the_words_already_streamed_on_sqlite() {
    Box::pin(a_page_read_mid_reply_holds_the_streamed_words(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn a_page_read_mid_reply_holds_the_words_already_streamed_on_cql() {
    if on(StoreKind::Cql) {
        Box::pin(a_page_read_mid_reply_holds_the_streamed_words(StoreKind::Cql)).await;
    }
}

async fn opening_lists_nothing(kind: StoreKind) {
    let model = ChatApiFake::start().await;
    let app = polish_app(kind, &model).await;
    let (_, _, voucher) = make_user(&app.store, "Ann").await;
    let mut tab = socket(&app, &voucher).await;

    // Opening a character stores its greeting; that alone is no chat.
    let page = ok(&app, &voucher, &[], "/user/v1/chat/getMessageList", json!({ "characterId": SOFIA })).await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 1, "{page}");
    ok(&app, &voucher, &[], "/user/v1/chat/getMessageList", json!({ "characterId": MARCO })).await;
    let list = ok(&app, &voucher, &[], "/user/v1/chat/getChatList", json!({})).await;
    assert!(listed(&list).is_empty(), "{kind:?}: {list}");

    send(&mut tab, MARCO, "Hi Marco").await;
    until_reply_ends(&mut tab).await;
    let list = ok(&app, &voucher, &[], "/user/v1/chat/getChatList", json!({})).await;
    assert_eq!(listed(&list), vec![MARCO], "{kind:?}: written to, it is a chat");
}

#[actix_rt::test]
async fn merely_opening_a_character_adds_no_chat_to_the_list_on_sqlite() {
    Box::pin(opening_lists_nothing(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn merely_opening_a_character_adds_no_chat_to_the_list_on_cql() {
    if on(StoreKind::Cql) {
        Box::pin(opening_lists_nothing(StoreKind::Cql)).await;
    }
}

async fn the_catalogue_speaks_the_request_language(kind: StoreKind) {
    let model = ChatApiFake::start().await;
    let app = polish_app(kind, &model).await;
    let (_, _, voucher) = make_user(&app.store, "Ann").await;
    let german = seed_texts(SOFIA, "de").expect("German texts of gf-001");
    let english = seed_texts(SOFIA, "en").expect("English texts of gf-001");
    let de = [("language", "de")];

    let list = json!({ "pageNo": 1, "pageSize": 30, "gender": 0 });
    let cards = ok(&app, &voucher, &de, "/user/v1/character/getCharacterList", list.clone()).await;
    let sofia = cards.as_array().unwrap().iter().find(|c| c["characterId"] == SOFIA).expect("gf-001 listed");
    assert_eq!(sofia["introduction"], german.introduction.as_str(), "{kind:?}");
    let cards = ok(&app, &voucher, &[], "/user/v1/character/getCharacterList", list).await;
    let sofia = cards.as_array().unwrap().iter().find(|c| c["characterId"] == SOFIA).expect("gf-001 listed");
    assert_eq!(sofia["introduction"], english.introduction.as_str(), "no header: English");

    let info = json!({ "characterId": SOFIA });
    let character = ok(&app, &voucher, &de, "/user/v1/character/getCharacterInfo", info).await;
    assert_eq!(character["introduction"], german.introduction.as_str());
    assert_eq!(character["greeting"], german.greeting.as_str());

    // A new conversation opened from a German page starts with the German greeting.
    let page = ok(&app, &voucher, &de, "/user/v1/chat/getMessageList", json!({ "characterId": SOFIA })).await;
    assert_eq!(page["messages"][0]["content"], german.greeting.replace("{{user}}", "Ann"), "{kind:?}");
    // Without a header, the account's language decides.
    ok(&app, &voucher, &[], "/user/v1/updateWebData", json!({ "language": "fr" })).await;
    let french = seed_texts(MARCO, "fr").expect("French texts of gf-002");
    let page = ok(&app, &voucher, &[], "/user/v1/chat/getMessageList", json!({ "characterId": MARCO })).await;
    assert_eq!(page["messages"][0]["content"], french.greeting.replace("{{user}}", "Ann"), "{kind:?}");
}

#[actix_rt::test]
async fn a_german_request_gets_the_seeded_catalogue_in_german_on_sqlite() {
    Box::pin(the_catalogue_speaks_the_request_language(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn a_german_request_gets_the_seeded_catalogue_in_german_on_cql() {
    if on(StoreKind::Cql) {
        Box::pin(the_catalogue_speaks_the_request_language(StoreKind::Cql)).await;
    }
}
