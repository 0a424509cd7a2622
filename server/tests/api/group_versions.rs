//! Versions of a group member's reply, continuing it, and the user's edits and deletes
//! (issue 31, docs/api.md "Group chats"), on both stores: `groupRegenerate` has the newest
//! reply's member write it again and keeps the old text as a version, `groupSwipe` switches
//! between them for free, `groupContinue` writes the rest under the same id, a new version
//! that fails puts the old reply back and costs nothing, and only the user's own messages
//! are edited and deleted. The model is a loopback OpenAI-compatible API so each text is
//! known and the prompts can be read.

use serde_json::{Value, json};

use crate::chat::{REPLY, act, named, user_with_socket};
use crate::creation::{StoreKind, cql_available, creation_app};
use crate::fakes::chat_api::{ChatApiFake, FAIL_MARK};
use crate::group_rounds::{catalogue, credits_left, ok, until_idle};
use crate::helpers::TestApp;

async fn refused(app: &TestApp, voucher: &str, path: &str, payload: Value) -> u64 {
    let (envelope, _) = app.post_api_as(Some(voucher), path, payload.clone()).await;
    assert_ne!(envelope.code, 200, "{path} {payload} went through");
    envelope.code
}

/// The one `groupDone` of a round that stored a reply.
fn done_message(round: &[Value]) -> Value {
    let done = named(round, "groupDone");
    assert_eq!(done.len(), 1, "{round:?}");
    done[0]["data"]["message"].clone()
}

async fn versions_flow(kind: StoreKind) {
    let model = ChatApiFake::start().await;
    let env = [
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", model.base_url.as_str()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "any"),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS", "0"),
    ];
    let app = creation_app(kind, &env).await;
    let (_, voucher, mut socket) = user_with_socket(&app, "Ann").await;
    let (free, _) = catalogue(&app).await;
    let (a, b) = (free[0].clone(), free[1].clone());
    let members = json!([{"characterId": a}, {"characterId": b}]);
    let group = ok(
        &app,
        &voucher,
        "/user/v1/group/createGroup",
        json!({"name": "Tea", "activation": "manual", "members": members}),
    )
    .await;
    let group_id = group["groupId"].as_str().unwrap().to_owned();

    // A manual group answers nobody: it ends with the user's message, no reply to write
    // again or continue.
    act(&mut socket, "groupSend", json!({"groupId": group_id, "content": "Is the tea ready?"})).await;
    let round = until_idle(&mut socket).await;
    let asked = named(&round, "groupMessage")[0]["data"]["message"]["messageId"].as_str().unwrap().to_owned();
    act(&mut socket, "groupRegenerate", json!({"groupId": group_id})).await;
    let nothing = socket.wait_for("groupError", REPLY).await.expect("no reply to write again");
    assert_eq!(nothing["data"]["code"], 10001, "{nothing}");
    act(&mut socket, "groupContinue", json!({"groupId": group_id})).await;
    let nothing = socket.wait_for("groupError", REPLY).await.expect("no reply to continue");
    assert_eq!(nothing["data"]["code"], 10001, "{nothing}");

    model.answer_next(&[&["The tea ", "is ready."]]);
    act(&mut socket, "groupPick", json!({"groupId": group_id, "characterId": b})).await;
    let first = done_message(&until_idle(&mut socket).await);
    let first_id = first["messageId"].as_str().unwrap().to_owned();
    assert_eq!((first["content"].clone(), first["swipes"].clone()), (json!("The tea is ready."), Value::Null));
    assert_eq!(credits_left(&app, &voucher).await, 29);

    // Written again by the same member: the old reply leaves, the new one streams under a
    // new id and says where it stands among the versions; it costs a reply.
    model.answer_next(&[&["It needs ", "a minute more."]]);
    act(&mut socket, "groupRegenerate", json!({"groupId": group_id})).await;
    let round = until_idle(&mut socket).await;
    let deleted = named(&round, "groupMessageDeleted");
    assert_eq!(deleted.len(), 1, "{round:?}");
    assert_eq!(deleted[0]["data"]["messageIds"], json!([first_id]));
    let again = done_message(&round);
    let again_id = again["messageId"].as_str().unwrap().to_owned();
    assert_ne!(again_id, first_id);
    assert_eq!(named(&round, "groupDone")[0]["data"]["characterId"], json!(b));
    assert_eq!(again["content"], "It needs a minute more.");
    assert_eq!(again["swipes"], json!({"index": 1, "count": 2}));
    for delta in named(&round, "groupDelta") {
        assert_eq!(delta["data"]["replyId"], json!(again_id), "{delta}");
    }
    assert_eq!(named(&round, "groupIdle")[0]["data"]["replies"], 1);
    assert_eq!(credits_left(&app, &voucher).await, 28);
    let prompt = model.prompts().last().cloned().unwrap_or_default().join("\n");
    assert!(prompt.contains("Is the tea ready?"), "{prompt}");
    assert!(!prompt.contains("The tea is ready."), "a new version reads the history before the old one: {prompt}");

    // Back to the first version, free, in place.
    act(&mut socket, "groupSwipe", json!({"groupId": group_id, "messageId": again_id, "index": 0})).await;
    let swiped = socket.wait_for("groupMessage", REPLY).await.expect("the chosen version");
    let swiped = &swiped["data"]["message"];
    assert_eq!(swiped["messageId"], json!(again_id));
    assert_eq!(swiped["content"], "The tea is ready.");
    assert_eq!(swiped["swipes"], json!({"index": 0, "count": 2}));
    assert_eq!(credits_left(&app, &voucher).await, 28);
    for (message_id, index) in [(again_id.as_str(), 2), (asked.as_str(), 0)] {
        let payload = json!({"groupId": group_id, "messageId": message_id, "index": index});
        act(&mut socket, "groupSwipe", payload).await;
        let wrong = socket.wait_for("groupError", REPLY).await.expect("a version that is none");
        assert_eq!(wrong["data"]["code"], 10001, "{wrong}");
    }

    // The rest of it, under the same id, the versions kept.
    model.answer_next(&[&[" Milk ", "or lemon?"]]);
    act(&mut socket, "groupContinue", json!({"groupId": group_id})).await;
    let round = until_idle(&mut socket).await;
    let continued = done_message(&round);
    assert_eq!(continued["messageId"], json!(again_id));
    assert_eq!(continued["content"], "The tea is ready. Milk or lemon?");
    assert_eq!(continued["swipes"], json!({"index": 0, "count": 2}));
    assert!(named(&round, "groupMessageDeleted").is_empty(), "{round:?}");
    assert_eq!(credits_left(&app, &voucher).await, 27);
    let prompt = model.prompts().last().cloned().unwrap_or_default();
    assert!(
        prompt.last().is_some_and(|m| m.contains("The tea is ready.")),
        "the reply so far is the prefill: {prompt:?}"
    );

    // The history holds the chosen, continued text as the newest message.
    let page = ok(&app, &voucher, "/user/v1/group/getMessageList", json!({"groupId": group_id})).await;
    let newest = &page["messages"][0];
    assert_eq!(
        (newest["messageId"].clone(), newest["content"].clone(), newest["swipes"].clone()),
        (json!(again_id), json!("The tea is ready. Milk or lemon?"), json!({"index": 0, "count": 2}))
    );

    // Only the user's own messages are edited: a member's reply is not; the user's gets
    // its new text (and other tabs hear it). A text the model fails on makes the next
    // version fail: the old reply comes back as it was, and the reply costs nothing.
    let edit =
        |message_id: &str, content: &str| json!({"groupId": group_id, "messageId": message_id, "content": content});
    let code = refused(&app, &voucher, "/user/v1/group/editMessage", edit(&again_id, "Mine now")).await;
    assert_eq!(code, 10001);
    let failing = format!("Is the tea ready? {FAIL_MARK}");
    let edited = ok(&app, &voucher, "/user/v1/group/editMessage", edit(&asked, &failing)).await;
    assert_eq!((edited["messageId"].clone(), edited["content"].clone()), (json!(asked), json!(failing)));
    let heard = socket.wait_for("groupMessage", REPLY).await.expect("the edit, on the socket");
    assert_eq!(heard["data"]["message"]["content"], json!(failing));
    act(&mut socket, "groupRegenerate", json!({"groupId": group_id})).await;
    let round = until_idle(&mut socket).await;
    assert_eq!(named(&round, "groupError").len(), 1, "{round:?}");
    let back = named(&round, "groupMessage");
    assert_eq!(back.len(), 1, "the old reply put back: {round:?}");
    assert_eq!(back[0]["data"]["message"]["messageId"], json!(again_id));
    assert_eq!(back[0]["data"]["message"]["content"], "The tea is ready. Milk or lemon?");
    assert_eq!(named(&round, "groupIdle")[0]["data"]["replies"], 0);
    assert_eq!(credits_left(&app, &voucher).await, 27, "a version that never came costs nothing");
    let page = ok(&app, &voucher, "/user/v1/group/getMessageList", json!({"groupId": group_id})).await;
    assert_eq!(page["messages"][0]["messageId"], json!(again_id), "still stored: {page}");

    // Deleting: a member's reply is not the user's to delete; the user's own goes, and
    // other tabs hear it; one that is not there is none.
    let delete = |message_id: &str| json!({"groupId": group_id, "messageId": message_id});
    assert_eq!(refused(&app, &voucher, "/user/v1/group/deleteMessage", delete(&again_id)).await, 10001);
    assert_eq!(ok(&app, &voucher, "/user/v1/group/deleteMessage", delete(&asked)).await, json!(true));
    let heard = socket.wait_for("groupMessageDeleted", REPLY).await.expect("the delete, on the socket");
    assert_eq!(heard["data"]["messageIds"], json!([asked]));
    assert_eq!(refused(&app, &voucher, "/user/v1/group/deleteMessage", delete(&asked)).await, 10006);
    let page = ok(&app, &voucher, "/user/v1/group/getMessageList", json!({"groupId": group_id})).await;
    let ids: Vec<&Value> = page["messages"].as_array().unwrap().iter().map(|m| &m["messageId"]).collect();
    assert!(!ids.contains(&&json!(asked)), "{page}");

    // Another user's group is none of theirs, for each of these.
    let (_, bob, _) = user_with_socket(&app, "Bob").await;
    let code = refused(&app, &bob, "/user/v1/group/editMessage", edit(&again_id, "Hi")).await;
    assert_eq!(code, 10006);
}

#[actix_rt::test]
async fn group_replies_are_written_again_switched_continued_and_the_user_s_messages_edited_on_sqlite() {
    Box::pin(versions_flow(StoreKind::Sqlite)).await;
}

#[actix_rt::test]
async fn group_replies_are_written_again_switched_continued_and_the_user_s_messages_edited_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    Box::pin(versions_flow(StoreKind::Cql)).await;
}
