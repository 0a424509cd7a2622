//! Group chats on the wire (issue 31, docs/api.md "Group chats"), on both stores: a group of
//! catalogue characters is created, listed, changed (settings, members added, removed,
//! muted) and deleted; it is its owner's alone; a private character of another user can
//! never join, by creation or by adding; bad input names its field and stores nothing; a
//! SillyTavern group chat export imports as a new group with its history.

use serde_json::{Value, json};

use crate::cluster::make_user;
use crate::creation::{StoreKind, cql_available, creation_app, draft};
use crate::helpers::TestApp;

/// Calls an endpoint as the user of `voucher`: (code, data, msg).
async fn call(app: &TestApp, voucher: &str, path: &str, payload: Value) -> (u64, Value, String) {
    let (envelope, _) = app.post_api_as(Some(voucher), path, payload).await;
    (envelope.code, envelope.data, envelope.msg)
}

async fn ok(app: &TestApp, voucher: &str, path: &str, payload: Value) -> Value {
    let (code, data, msg) = call(app, voucher, path, payload.clone()).await;
    assert_eq!(code, 200, "{path} {payload}: {msg}");
    data
}

async fn refused(app: &TestApp, voucher: &str, path: &str, payload: Value) -> (u64, String) {
    let (code, data, msg) = call(app, voucher, path, payload.clone()).await;
    assert_ne!(code, 200, "{path} {payload} was accepted: {data}");
    (code, msg)
}

fn members(group: &Value) -> Vec<(String, bool, u64)> {
    group["members"]
        .as_array()
        .unwrap_or_else(|| panic!("no members in {group}"))
        .iter()
        .map(|m| {
            assert!(m["characterName"].as_str().is_some_and(|n| !n.is_empty()), "a catalogue name: {m}");
            (
                m["characterId"].as_str().unwrap_or_default().to_owned(),
                m["muted"].as_bool().unwrap_or_default(),
                m["talkativeness"].as_u64().unwrap_or(999),
            )
        })
        .collect()
}

fn m(id: &str, muted: bool, talkativeness: u64) -> (String, bool, u64) {
    (id.to_owned(), muted, talkativeness)
}

async fn group_flow(kind: StoreKind) {
    let app = creation_app(kind, &[]).await;
    let (_, _, ann) = make_user(&app.store, "Ann").await;
    let (_, _, bob) = make_user(&app.store, "Bob").await;

    let created = ok(
        &app,
        &ann,
        "/user/v1/group/createGroup",
        json!({
            "name": "  Night shift ",
            "scenario": "A quiet ward at 3 a.m.",
            "activation": "list",
            "talkCap": 4,
            "members": [{"characterId": "gf-001"}, {"characterId": "gf-002", "talkativeness": 80}, {"characterId": "bf-001"}],
        }),
    )
    .await;
    let id = created["groupId"].as_str().unwrap_or_else(|| panic!("no groupId in {created}")).to_owned();
    assert_eq!(created["name"], "Night shift", "trimmed");
    assert_eq!(created["scenario"], "A quiet ward at 3 a.m.");
    assert_eq!((created["activation"].clone(), created["talkCap"].clone()), (json!("list"), json!(4)));
    assert_eq!(created["allowSelfResponses"], false);
    assert_eq!(members(&created), [m("gf-001", false, 50), m("gf-002", false, 80), m("bf-001", false, 50)]);
    // It opens with the members' greetings in seating order, the user's name filled in.
    let page = ok(&app, &ann, "/user/v1/group/getMessageList", json!({"groupId": id})).await;
    let greetings: Vec<&Value> = page["messages"].as_array().unwrap_or_else(|| panic!("{page}")).iter().rev().collect();
    let speakers: Vec<&str> = greetings.iter().map(|g| g["characterId"].as_str().unwrap_or_default()).collect();
    assert_eq!(speakers, ["gf-001", "gf-002", "bf-001"], "{page}");
    for greeting in &greetings {
        let text = greeting["content"].as_str().unwrap_or_default();
        assert!(!text.trim().is_empty() && !text.contains("{{"), "a filled greeting: {text:?}");
    }
    assert_eq!(&created["lastMessage"], greetings[2], "the last member's greeting is the newest message");

    let list = ok(&app, &ann, "/user/v1/group/getGroupList", json!({})).await;
    assert_eq!(list, json!([created.clone()]), "listed as created");
    assert_eq!(ok(&app, &ann, "/user/v1/group/getGroup", json!({"groupId": id})).await, created);

    // Bob sees none of it and changes none of it.
    assert_eq!(ok(&app, &bob, "/user/v1/group/getGroupList", json!({})).await, json!([]));
    for (path, payload) in [
        ("/user/v1/group/getGroup", json!({"groupId": id})),
        ("/user/v1/group/updateGroup", json!({"groupId": id, "name": "Mine now"})),
        ("/user/v1/group/addMember", json!({"groupId": id, "characterId": "gf-003"})),
        ("/user/v1/group/removeMember", json!({"groupId": id, "characterId": "gf-001"})),
        ("/user/v1/group/updateMember", json!({"groupId": id, "characterId": "gf-001", "muted": true})),
        ("/user/v1/group/deleteGroup", json!({"groupId": id})),
    ] {
        assert_eq!(refused(&app, &bob, path, payload).await.0, 10006, "{path}: not bob's");
    }
    assert_eq!(ok(&app, &ann, "/user/v1/group/getGroup", json!({"groupId": id})).await, created, "untouched");

    // Settings: what is given changes, the rest stays; bad values name their field.
    let updated = ok(
        &app,
        &ann,
        "/user/v1/group/updateGroup",
        json!({"groupId": id, "name": "Day shift", "activation": "natural", "allowSelfResponses": true}),
    )
    .await;
    assert_eq!((updated["name"].clone(), updated["activation"].clone()), (json!("Day shift"), json!("natural")));
    assert_eq!((updated["scenario"].clone(), updated["talkCap"].clone()), (created["scenario"].clone(), json!(4)));
    assert_eq!(updated["allowSelfResponses"], true);
    for (payload, field) in [
        (json!({"groupId": id, "talkCap": 11}), "talkCap"),
        (json!({"groupId": id, "talkCap": 0}), "talkCap"),
        (json!({"groupId": id, "name": "   "}), "name"),
        (json!({"groupId": id, "scenario": "x".repeat(2001)}), "scenario"),
        (json!({"groupId": "../x", "name": "x"}), "groupId"),
    ] {
        let (code, msg) = refused(&app, &ann, "/user/v1/group/updateGroup", payload).await;
        assert_eq!(code, 10001);
        assert!(msg.contains(field), "{field}: {msg}");
    }
    let (code, _) =
        refused(&app, &ann, "/user/v1/group/updateGroup", json!({"groupId": id, "activation": "pooled"})).await;
    assert_eq!(code, 10001);
    let (code, _) = refused(
        &app,
        &ann,
        "/user/v1/group/updateGroup",
        json!({"groupId": id, "scenario": "She is a 12 year old girl who wants sex."}),
    )
    .await;
    assert_eq!(code, 10070, "the scenario is moderated as a character's text");
    assert_eq!(
        ok(&app, &ann, "/user/v1/group/getGroup", json!({"groupId": id})).await,
        updated,
        "refusals store nothing"
    );

    // Members: muted, added last, removed; the others keep their seats.
    let muted =
        ok(&app, &ann, "/user/v1/group/updateMember", json!({"groupId": id, "characterId": "gf-002", "muted": true}))
            .await;
    assert_eq!(members(&muted), [m("gf-001", false, 50), m("gf-002", true, 80), m("bf-001", false, 50)]);
    let talkative = ok(
        &app,
        &ann,
        "/user/v1/group/updateMember",
        json!({"groupId": id, "characterId": "bf-001", "talkativeness": 0}),
    )
    .await;
    assert_eq!(members(&talkative)[2], m("bf-001", false, 0));
    let added = ok(
        &app,
        &ann,
        "/user/v1/group/addMember",
        json!({"groupId": id, "characterId": "gf-003", "talkativeness": 10}),
    )
    .await;
    assert_eq!(members(&added)[3], m("gf-003", false, 10), "seated last");
    let (code, msg) =
        refused(&app, &ann, "/user/v1/group/addMember", json!({"groupId": id, "characterId": "gf-003"})).await;
    assert_eq!((code, msg.contains("characterId")), (10001, true), "already seated: {msg}");
    let removed = ok(&app, &ann, "/user/v1/group/removeMember", json!({"groupId": id, "characterId": "gf-001"})).await;
    assert_eq!(members(&removed), [m("gf-002", true, 80), m("bf-001", false, 0), m("gf-003", false, 10)]);
    let (code, _) = refused(
        &app,
        &ann,
        "/user/v1/group/updateMember",
        json!({"groupId": id, "characterId": "gf-001", "muted": true}),
    )
    .await;
    assert_eq!(code, 10001, "no longer a member");

    // Deleted: gone from the list, and again is 10006.
    assert_eq!(ok(&app, &ann, "/user/v1/group/deleteGroup", json!({"groupId": id})).await, json!(true));
    assert_eq!(refused(&app, &ann, "/user/v1/group/deleteGroup", json!({"groupId": id})).await.0, 10006);
    assert_eq!(ok(&app, &ann, "/user/v1/group/getGroupList", json!({})).await, json!([]));
}

#[actix_rt::test]
async fn a_group_is_created_changed_and_deleted_by_its_owner_alone_on_sqlite() {
    group_flow(StoreKind::Sqlite).await;
}

#[actix_rt::test]
async fn a_group_is_created_changed_and_deleted_by_its_owner_alone_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    group_flow(StoreKind::Cql).await;
}

async fn who_may_join(kind: StoreKind) {
    let app = creation_app(kind, &[]).await;
    let (_, _, ann) = make_user(&app.store, "Ann").await;
    let (_, _, bob) = make_user(&app.store, "Bob").await;
    let draft = draft(&app, 0, "Bobbie").await;
    let bobs = ok(&app, &bob, "/user/v1/character/create", json!({ "draft": draft })).await;
    assert_eq!(bobs["status"], "private", "{bobs}");
    let private = bobs["character"]["characterId"].as_str().unwrap_or_else(|| panic!("no id in {bobs}")).to_owned();

    let with = |third: &str| json!({"name": "Trio", "members": [{"characterId": "gf-001"}, {"characterId": "gf-002"}, {"characterId": third}]});
    let (code, _) = refused(&app, &ann, "/user/v1/group/createGroup", with(&private)).await;
    assert_eq!(code, 10006, "another user's private character cannot join, and is not told to exist");
    assert_eq!(refused(&app, &ann, "/user/v1/group/createGroup", with("gf-999")).await.0, 10006, "no such character");
    assert_eq!(ok(&app, &ann, "/user/v1/group/getGroupList", json!({})).await, json!([]), "nothing stored");

    let pair = json!({"name": "Pair", "members": [{"characterId": "gf-001"}, {"characterId": "gf-002"}]});
    let anns = ok(&app, &ann, "/user/v1/group/createGroup", pair).await;
    let id = anns["groupId"].as_str().unwrap_or_default().to_owned();
    let (code, _) =
        refused(&app, &ann, "/user/v1/group/addMember", json!({"groupId": id, "characterId": private})).await;
    assert_eq!(code, 10006, "nor by adding");
    assert_eq!(members(&ok(&app, &ann, "/user/v1/group/getGroup", json!({"groupId": id})).await).len(), 2);

    // Its creator may seat it.
    let bobs_group = ok(&app, &bob, "/user/v1/group/createGroup", with(&private)).await;
    assert_eq!(bobs_group["members"][2]["characterId"], json!(private));

    // Two to six characters, each once; talkativeness 0-100.
    let seats = |ids: &[&str]| ids.iter().map(|id| json!({"characterId": id})).collect::<Vec<_>>();
    for (group_members, field) in [
        (seats(&["gf-001"]), "members"),
        (seats(&["gf-001", "gf-002", "gf-003", "gf-004", "gf-005", "gf-006", "gf-007"]), "members"),
        (seats(&["gf-001", "gf-001"]), "members"),
        (
            vec![json!({"characterId": "gf-001", "talkativeness": 101}), json!({"characterId": "gf-002"})],
            "talkativeness",
        ),
    ] {
        let (code, msg) =
            refused(&app, &ann, "/user/v1/group/createGroup", json!({"name": "x", "members": group_members})).await;
        assert_eq!(code, 10001);
        assert!(msg.contains(field), "{field}: {msg}");
    }
    let (code, _) =
        refused(&app, &ann, "/user/v1/group/removeMember", json!({"groupId": id, "characterId": "gf-001"})).await;
    assert_eq!(code, 10001, "a group keeps two members");
}

#[actix_rt::test]
async fn a_private_character_of_another_user_never_joins_on_sqlite() {
    who_may_join(StoreKind::Sqlite).await;
}

#[actix_rt::test]
async fn a_private_character_of_another_user_never_joins_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    who_may_join(StoreKind::Cql).await;
}

/// A SillyTavern group chat export: metadata, a greeting of each member, the user, a hidden
/// system line, a reply with swipes.
const EXPORT: &str = r#"{"user_name":"Ann","character_name":"unused","create_date":"2024-09-28@01h02m03s","chat_metadata":{}}
{"name":"Sofia","is_user":false,"is_system":false,"send_date":"September 28, 2024 1:02am","mes":"Oat flat white again?","extra":{}}
{"name":"Hana Mori","is_user":false,"send_date":"September 28, 2024 1:02am","mes":"Hi! I saved you a seat."}
{"name":"Ann","is_user":true,"is_system":false,"send_date":"September 28, 2024 1:03am","mes":"Hi both!"}
{"name":"SillyTavern System","is_user":false,"is_system":true,"mes":"hidden"}
{"name":"Sofia","is_user":false,"mes":"Coming right up.","swipes":["Coming right up.","Sure!"],"swipe_id":0}
"#;

fn import_payload(name: &str, chat: &str) -> Value {
    json!({"name": name, "members": [{"characterId": "gf-001"}, {"characterId": "gf-002"}], "chat": chat})
}

async fn import_flow(kind: StoreKind) {
    let app = creation_app(kind, &[]).await;
    let (_, _, ann) = make_user(&app.store, "Ann").await;
    let (_, _, bob) = make_user(&app.store, "Bob").await;

    let group = ok(&app, &ann, "/user/v1/group/importChat", import_payload("Café", EXPORT)).await;
    let id = group["groupId"].as_str().unwrap_or_else(|| panic!("no groupId in {group}")).to_owned();
    assert_eq!(group["lastMessage"]["content"], "Coming right up.");
    assert_eq!(group["lastMessage"]["characterId"], "gf-001");

    // The history, newest first, each line said by the member of that (first) name.
    let page = ok(&app, &ann, "/user/v1/group/getMessageList", json!({"groupId": id})).await;
    let said: Vec<(Value, Value)> = page["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("no messages in {page}"))
        .iter()
        .map(|m| (m["characterId"].clone(), m["content"].clone()))
        .collect();
    assert_eq!(
        said,
        [
            (json!("gf-001"), json!("Coming right up.")),
            (Value::Null, json!("Hi both!")),
            (json!("gf-002"), json!("Hi! I saved you a seat.")),
            (json!("gf-001"), json!("Oat flat white again?")),
        ]
    );
    assert_eq!(page["hasMore"], false);
    let first = ok(&app, &ann, "/user/v1/group/getMessageList", json!({"groupId": id, "pageSize": 2})).await;
    assert_eq!(first["hasMore"], true);
    let oldest = first["messages"][1]["messageId"].clone();
    let rest = ok(&app, &ann, "/user/v1/group/getMessageList", json!({"groupId": id, "beforeId": oldest})).await;
    assert_eq!(rest["messages"].as_array().map(Vec::len), Some(2));
    assert_eq!(rest["messages"][1]["content"], "Oat flat white again?");
    let (code, _) = refused(&app, &ann, "/user/v1/group/getMessageList", json!({"groupId": id, "pageSize": 101})).await;
    assert_eq!(code, 10001);
    assert_eq!(refused(&app, &bob, "/user/v1/group/getMessageList", json!({"groupId": id})).await.0, 10006);

    // Refused imports store nothing: a speaker no member answers to, a broken line, a text
    // moderation refuses.
    let stranger = EXPORT.replace("\"Hana Mori\"", "\"Seraphina\"");
    let (code, msg) = refused(&app, &ann, "/user/v1/group/importChat", import_payload("x", &stranger)).await;
    assert_eq!(code, 10001);
    assert!(msg.contains("chat") && msg.contains("Seraphina"), "{msg}");
    let broken = format!("{EXPORT}not json\n");
    let (code, msg) = refused(&app, &ann, "/user/v1/group/importChat", import_payload("x", &broken)).await;
    assert_eq!(code, 10001);
    assert!(msg.contains("chat: line 7"), "{msg}");
    let minor =
        format!("{EXPORT}{}\n", json!({"name": "Ann", "is_user": true, "mes": "I'm 16 years old, let's have sex."}));
    assert_eq!(refused(&app, &ann, "/user/v1/group/importChat", import_payload("x", &minor)).await.0, 10070);
    let list = ok(&app, &ann, "/user/v1/group/getGroupList", json!({})).await;
    assert_eq!(list.as_array().map(Vec::len), Some(1), "only the first import: {list}");
}

#[actix_rt::test]
async fn a_sillytavern_group_chat_export_imports_with_its_history_on_sqlite() {
    import_flow(StoreKind::Sqlite).await;
}

#[actix_rt::test]
async fn a_sillytavern_group_chat_export_imports_with_its_history_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    import_flow(StoreKind::Cql).await;
}
