//! `chat/chooseGreeting` end to end (docs/api.md "Created characters"): the greeting of a
//! conversation that holds nothing else is replaced, by id, and told to the user's sockets;
//! out of range, once the conversation went on, and for a character the user may not see,
//! it is refused and nothing changes. The real server and the embedded model (for the reply
//! that makes the conversation go on).

use std::time::Duration;

use amora_domain::character::{CharacterId, Exposure};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::viewer::Viewer;
use serde_json::{Value, json};

use crate::chat::{FREE_CHARACTER, REPLY, messages, model_path, send, until_reply_ends};
use crate::cluster::{Socket, make_user};
use crate::helpers::{Envelope, TestApp, spawn_app_env};

async fn choose(app: &TestApp, voucher: Option<&str>, character: &str, index: i64) -> Envelope {
    let payload = json!({ "characterId": character, "index": index });
    app.post_api_as(voucher, "/user/v1/chat/chooseGreeting", payload).await.0
}

/// The conversation's messages as stored, newest first: (id, speaker, content).
async fn stored(app: &TestApp, voucher: &str, character: &str) -> Vec<(String, String, String)> {
    let page = messages(app, voucher, character, None, 30).await;
    let text = |m: &Value, k: &str| m[k].as_str().unwrap_or_default().to_owned();
    page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (text(m, "messageId"), text(m, "speaker"), text(m, "content")))
        .collect()
}

/// Catalogue characters of one exposure, seen through the store.
async fn characters_with(app: &TestApp, exposure: Exposure) -> Vec<String> {
    let mut found = Vec::new();
    for page in 1..=2 {
        let cards = app
            .store
            .characters
            .list_cards(Gender::Girls, Viewer::Member, PageRequest::parse(page, 60).unwrap())
            .await
            .unwrap();
        for card in cards {
            let character = app.store.characters.get(&card.character_id).await.unwrap().unwrap();
            if character.exposure == exposure {
                found.push(card.character_id.to_string());
            }
        }
    }
    found
}

#[actix_rt::test]
async fn choose_greeting_replaces_a_lone_greeting_and_refuses_out_of_range_later_or_unseen() {
    let app = spawn_app_env(vec![
        ("AMORA_CHAT__MODEL__EMBEDDED__MODEL_PATH".to_owned(), model_path()),
        ("AMORA_CHAT__MAX_REPLY_TOKENS".to_owned(), "16".to_owned()),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS".to_owned(), "0".to_owned()),
        // The test accounts date from 1970: no account is old enough to see restricted characters.
        ("AMORA_ACCOUNTS__ESTABLISHED_AFTER_SECS".to_owned(), "100000000000".to_owned()),
    ])
    .await;
    let (ann, _, voucher) = make_user(&app.store, "Ann").await;
    let url = format!("{}/lust/api/ws?voucher={voucher}", app.address.replacen("http", "ws", 1));
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut socket = Socket { stream };
    socket.wait_for("hello", Duration::from_secs(10)).await.expect("hello");

    assert_eq!(choose(&app, None, FREE_CHARACTER, 0).await.code, 10004, "signed in only");

    // The first call on a new conversation writes the greeting, then answers it as chosen.
    let others = characters_with(&app, Exposure::Everyone).await;
    let fresh = others.iter().find(|id| *id != FREE_CHARACTER).expect("a second open character");
    let chosen = choose(&app, Some(&voucher), fresh, 0).await;
    assert_eq!(chosen.code, 200, "{}", chosen.msg);
    let lone = stored(&app, &voucher, fresh).await;
    assert_eq!(lone.len(), 1, "{lone:?}");
    assert_eq!(
        (chosen.data["messageId"].as_str(), chosen.data["speaker"].as_str()),
        (Some(lone[0].0.as_str()), Some("character"))
    );
    assert_eq!(chosen.data["content"].as_str(), Some(lone[0].2.as_str()));

    // A conversation holding only its greeting: the main one again, same id, names filled in.
    let greeting = stored(&app, &voucher, FREE_CHARACTER).await;
    assert_eq!(greeting.len(), 1);
    let chosen = choose(&app, Some(&voucher), FREE_CHARACTER, 0).await;
    assert_eq!(chosen.code, 200, "{}", chosen.msg);
    assert_eq!(chosen.data["messageId"].as_str(), Some(greeting[0].0.as_str()), "the greeting keeps its id");
    let content = chosen.data["content"].as_str().unwrap();
    assert_eq!(content, greeting[0].2);
    assert!(!content.contains("{{user}}") && !content.contains("{user}") && !content.contains("<USER>"), "{content}");
    let told = loop {
        let event = socket.wait_for("chatMessage", REPLY).await.expect("chatMessage for the chosen greeting");
        if event["data"]["characterId"] == FREE_CHARACTER
            && event["data"]["message"]["messageId"] == chosen.data["messageId"]
        {
            break event;
        }
    };
    assert_eq!(told["data"]["message"], chosen.data, "the user's other tabs hear of it");

    // Out of range: seeded characters have no alternate greetings. Nothing changes.
    let refused = choose(&app, Some(&voucher), FREE_CHARACTER, 1).await;
    assert_eq!(refused.code, 10001);
    assert!(refused.msg.contains("index") && refused.msg.contains("from 0 to 0"), "{}", refused.msg);
    assert_eq!(choose(&app, Some(&voucher), FREE_CHARACTER, -1).await.code, 10001);
    let bad = app
        .post_api_as(Some(&voucher), "/user/v1/chat/chooseGreeting", json!({ "characterId": FREE_CHARACTER }))
        .await
        .0;
    assert_eq!(bad.code, 10001, "the index is required");
    assert_eq!(stored(&app, &voucher, FREE_CHARACTER).await, greeting);

    // A character this account may not see (restricted, for a new account): 10006, and no conversation is started.
    let restricted = characters_with(&app, Exposure::Restricted).await;
    let unseen = restricted.first().expect("the catalogue has restricted characters");
    assert_eq!(choose(&app, Some(&voucher), unseen, 0).await.code, 10006);
    assert_eq!(choose(&app, Some(&voucher), "no-such-character", 0).await.code, 10006);
    let unseen_id = CharacterId::parse(unseen).unwrap();
    assert!(
        app.store.conversations.messages(&ann, &unseen_id, None, 10).await.unwrap().is_empty(),
        "no greeting written"
    );

    // Once the conversation went on, the greeting stays.
    send(&mut socket, FREE_CHARACTER, "Hello! Nice to meet you.").await;
    let events = until_reply_ends(&mut socket).await;
    assert!(events.iter().any(|e| e["event"] == "chatDone"), "{events:?}");
    let before = stored(&app, &voucher, FREE_CHARACTER).await;
    assert_eq!(before.len(), 3, "{before:?}");
    let refused = choose(&app, Some(&voucher), FREE_CHARACTER, 0).await;
    assert_eq!(refused.code, 10001);
    assert!(refused.msg.contains("went on"), "{}", refused.msg);
    assert_eq!(stored(&app, &voucher, FREE_CHARACTER).await, before, "nothing changed");
}
