//! Spoken character messages against the real server (issue 16, docs/api.md "Voice"):
//! `voice/speak` debits once through the user's actor and replays free, concurrent first
//! plays charge and synthesise once, a long reply arrives in parts (the first in the answer,
//! the rest as `voicePart` events in order), the audio under `/media` is real MP3, and every
//! refusal or failure leaves the ledger whole (balance = ledger sum after every test).
//! The embedded synthesiser (flite + lame, installed by scripts/test) speaks unless a test
//! points the server at a loopback OpenAI-compatible speech service.

use std::time::Duration;

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MessageId, Speaker};
use amora_domain::money::{Coins, TxnId};
use amora_server::settings::Settings;
use amora_store::{LedgerEntry, StoredMessage};
use futures_util::future::join_all;
use serde_json::{Value, json};

use crate::cluster::{Socket, make_user};
use crate::fakes::speech::SpeechFake;
use crate::helpers::{TestApp, spawn_app_customised, spawn_app_env};

const WAIT: Duration = Duration::from_secs(60);
const GIRL: &str = "gf-002";
const LONG_REPLY: &str = "*smiles and leans closer* Hello again! I was hoping you would come by today. \
    The café was quiet all morning, so I read the book you left behind. It is about a lighthouse keeper \
    who writes letters to the sea, and I could not put it down. Tell me, have you ever wanted to live \
    somewhere that remote? I think I would miss the city, but only a little. **Really**, only a little. \
    Anyway, sit down and tell me everything about your week.";

/// Which store the server runs on.
#[derive(Clone, Copy)]
enum Backend {
    Sqlite,
    Cql,
}

async fn voice_app(backend: Backend, customise: impl FnOnce(&mut Settings)) -> TestApp {
    let mut env = Vec::new();
    if let Backend::Cql = backend {
        let node = std::env::var("AMORA_CQL_NODE")
            .expect("AMORA_CQL_NODE is not set: scripts/test starts Cassandra and sets it (scripts/lib/cassandra.sh)");
        let keyspace = format!(
            "voice_{}",
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
    // Boxed: the in-process server on CQL is a large future in a debug build, too large for
    // a test thread's stack.
    Box::pin(spawn_app_customised(env, customise)).await
}

struct Listener {
    user_id: UserId,
    voucher: String,
}

/// A user with `coins` (a grant row in the ledger, as a purchase would leave).
async fn listener(app: &TestApp, name: &str, coins: i64) -> Listener {
    let (user_id, _, voucher) = make_user(&app.store, name).await;
    if coins > 0 {
        let grant = LedgerEntry {
            user_id: user_id.clone(),
            txn_id: TxnId::parse(&format!("grant:{}", user_id.as_str())).unwrap(),
            delta: Coins::stored(coins),
            reason: "test grant".into(),
            created_at: 0,
        };
        app.store.ledger.apply(grant).await.unwrap();
    }
    Listener { user_id, voucher }
}

/// Writes a message into the user's conversation, as the chat would have stored it.
async fn said(app: &TestApp, who: &Listener, character: &str, speaker: Speaker, content: &str) -> MessageId {
    let micros = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as i64;
    let message_id = EntryId::new(micros, rand_salt());
    let message = StoredMessage { message_id, speaker, content: content.into(), image: None };
    app.store.conversations.append(&who.user_id, &CharacterId::parse(character).unwrap(), message).await.unwrap();
    message_id
}

fn rand_salt() -> u16 {
    (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() % 1000) as u16
}

async fn speak(app: &TestApp, who: &Listener, character: &str, message_id: &str) -> (u64, Value, String) {
    let payload = json!({ "characterId": character, "messageId": message_id });
    let (envelope, _) = app.post_api_as(Some(&who.voucher), "/user/v1/voice/speak", payload).await;
    (envelope.code, envelope.data, envelope.msg)
}

async fn socket(app: &TestApp, who: &Listener) -> Socket {
    let url = format!("{}/lust/api/ws?voucher={}", app.address.replacen("http", "ws", 1), who.voucher);
    let mut socket = Socket { stream: tokio_tungstenite::connect_async(url).await.unwrap().0 };
    socket.wait_for("hello", WAIT).await.expect("hello");
    socket
}

/// Balance = sum of the ledger rows; answers the balance and the rows' txn ids.
async fn ledger(app: &TestApp, who: &Listener) -> (i64, Vec<String>) {
    let rows = app.store.ledger.rows(&who.user_id).await.unwrap();
    let sum: i64 = rows.iter().map(|row| row.delta.units()).sum();
    let balance = app.store.users.by_id(&who.user_id).await.unwrap().unwrap().coin.units();
    assert_eq!(balance, sum, "balance = sum of the ledger rows");
    (balance, rows.iter().map(|row| row.txn_id.as_str().to_owned()).collect())
}

/// Fetches a part's audio and checks it is MP3 that plays for about its stated duration.
async fn check_audio(app: &TestApp, part: &Value) -> Vec<u8> {
    let url = part["url"].as_str().unwrap();
    assert!(url.starts_with("/media/voice-"), "{url}");
    let response = app.client.get(app.url(url)).send().await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    assert_eq!(response.headers()["content-type"], "audio/mpeg");
    let bytes = response.bytes().await.unwrap().to_vec();
    let sync = bytes.len() > 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0;
    assert!(sync || bytes.starts_with(b"ID3"), "an MP3 frame sync or ID3 tag first: {:02x?}", &bytes[..4]);
    let duration = part["durationMs"].as_u64().unwrap();
    assert!(duration > 300, "a part speaks for a while: {duration} ms");
    // 32 kbps mono: 4 bytes a millisecond, give or take the last frame and the tag.
    assert!((bytes.len() as u64) < duration * 6 + 2_000, "{} bytes for {duration} ms", bytes.len());
    assert!((bytes.len() as u64) > duration, "{} bytes for {duration} ms", bytes.len());
    bytes
}

async fn a_long_reply_is_spoken_in_parts_once_and_replays_free(backend: Backend) {
    let app = voice_app(backend, |_| {}).await;
    let ann = listener(&app, "Ann", 10).await;
    let message = said(&app, &ann, GIRL, Speaker::Character, LONG_REPLY).await;
    let mut socket = socket(&app, &ann).await;

    let (code, first, msg) = speak(&app, &ann, GIRL, &message.to_string()).await;
    assert_eq!(code, 200, "{msg}");
    assert_eq!(first["messageId"], message.to_string());
    assert_eq!(first["coin"], 8, "2 coins taken");
    assert_eq!(first["complete"], false, "a long reply: more parts follow");
    let parts = first["parts"].as_array().unwrap().clone();
    assert_eq!(parts.len(), 1, "the answer comes with the first part");
    assert_eq!(parts[0]["index"], 0);
    assert_eq!(parts[0]["last"], false);
    check_audio(&app, &parts[0]).await;

    // The rest, in order, as voicePart events; the last says so.
    let mut streamed = Vec::new();
    loop {
        let event = socket.wait_for("voicePart", WAIT).await.expect("a voicePart event");
        assert_eq!(event["data"]["characterId"], GIRL);
        assert_eq!(event["data"]["messageId"], message.to_string());
        let part = event["data"]["part"].clone();
        assert_eq!(part["index"], streamed.len() as u64 + 1, "in order");
        check_audio(&app, &part).await;
        let last = part["last"] == true;
        streamed.push(part);
        if last {
            break;
        }
    }
    assert!(streamed.len() >= 2, "a reply this long is three parts or more: {}", streamed.len() + 1);

    // Replays answer every stored part, complete, and cost nothing.
    for _ in 0..2 {
        let (code, again, msg) = speak(&app, &ann, GIRL, &message.to_string()).await;
        assert_eq!(code, 200, "{msg}");
        assert_eq!(again["complete"], true);
        assert_eq!(again["coin"], 8);
        let urls: Vec<&Value> = again["parts"].as_array().unwrap().iter().map(|p| &p["url"]).collect();
        let expected: Vec<&Value> = parts.iter().chain(&streamed).map(|p| &p["url"]).collect();
        assert_eq!(urls, expected, "the same audio");
        assert_eq!(again["parts"].as_array().unwrap().last().unwrap()["last"], true);
    }
    let (balance, txns) = ledger(&app, &ann).await;
    assert_eq!(balance, 8);
    let voice_rows: Vec<&String> = txns.iter().filter(|t| t.starts_with("voice")).collect();
    assert_eq!(voice_rows, vec![&format!("voice:{}:{message}", ann.user_id.as_str())], "debited once");

    // Deleting the conversation takes the clip and its audio with it.
    let (envelope, _) =
        app.post_api_as(Some(&ann.voucher), "/user/v1/chat/deleteChat", json!({ "characterId": GIRL })).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    let url = parts[0]["url"].as_str().unwrap();
    assert_eq!(app.client.get(app.url(url)).send().await.unwrap().status(), 404, "the audio is gone");
    let (code, _, _) = speak(&app, &ann, GIRL, &message.to_string()).await;
    assert_eq!(code, 10006, "and so is the message");
}

#[actix_rt::test]
async fn a_long_reply_is_spoken_in_parts_once_and_replays_free_on_sqlite() {
    Box::pin(a_long_reply_is_spoken_in_parts_once_and_replays_free(Backend::Sqlite)).await;
}

#[actix_rt::test]
async fn a_long_reply_is_spoken_in_parts_once_and_replays_free_on_cql() {
    Box::pin(a_long_reply_is_spoken_in_parts_once_and_replays_free(Backend::Cql)).await;
}

async fn concurrent_first_plays_charge_and_speak_once(backend: Backend) {
    let app = voice_app(backend, |_| {}).await;
    let bob = listener(&app, "Bob", 5).await;
    let message = said(&app, &bob, GIRL, Speaker::Character, "Good morning, sleepyhead. Coffee is ready.").await;
    let id = message.to_string();
    let plays = join_all((0..6).map(|_| speak(&app, &bob, GIRL, &id))).await;
    let mut first_urls = Vec::new();
    for (code, data, msg) in &plays {
        assert_eq!(*code, 200, "{msg}");
        first_urls.push(data["parts"][0]["url"].clone());
    }
    first_urls.dedup();
    assert_eq!(first_urls.len(), 1, "one synthesis, one audio: {first_urls:?}");
    let (balance, txns) = ledger(&app, &bob).await;
    assert_eq!(balance, 3, "charged once");
    assert_eq!(txns.iter().filter(|t| t.starts_with("voice:")).count(), 1);

    // Deleting the account leaves no clip reachable.
    let url = first_urls[0].as_str().unwrap().to_owned();
    assert_eq!(app.delete_user(&bob.voucher).await.code, 200);
    assert_eq!(app.client.get(app.url(&url)).send().await.unwrap().status(), 404, "the audio went with the account");
}

#[actix_rt::test]
async fn concurrent_first_plays_charge_and_speak_once_on_sqlite() {
    Box::pin(concurrent_first_plays_charge_and_speak_once(Backend::Sqlite)).await;
}

#[actix_rt::test]
async fn concurrent_first_plays_charge_and_speak_once_on_cql() {
    Box::pin(concurrent_first_plays_charge_and_speak_once(Backend::Cql)).await;
}

#[actix_rt::test]
async fn too_few_coins_is_need_pay_with_nothing_debited() {
    let app = spawn_app_env(vec![]).await;
    let cal = listener(&app, "Cal", 1).await;
    let message = said(&app, &cal, GIRL, Speaker::Character, "Hi there.").await;
    let (code, data, msg) = speak(&app, &cal, GIRL, &message.to_string()).await;
    assert_eq!(code, 40004, "{msg}");
    assert_eq!(data, Value::Null);
    let (balance, txns) = ledger(&app, &cal).await;
    assert_eq!(balance, 1);
    assert!(txns.iter().all(|t| !t.starts_with("voice")), "{txns:?}");
}

#[actix_rt::test]
async fn only_character_messages_of_the_users_own_conversation_are_spoken() {
    let app = spawn_app_env(vec![]).await;
    let (dee, eve) = (listener(&app, "Dee", 10).await, listener(&app, "Eve", 10).await);
    let own = said(&app, &dee, GIRL, Speaker::User, "Hello, Mia!").await;
    let theirs = said(&app, &eve, GIRL, Speaker::Character, "Hi Eve.").await;
    let mine = said(&app, &dee, GIRL, Speaker::Character, "*waves*").await;

    // The user's own message, another user's, an unknown one, an unknown character: 10006.
    for (character, message) in [
        (GIRL, own.to_string()),
        (GIRL, theirs.to_string()),
        (GIRL, "123456789".to_owned()),
        ("gf-999", theirs.to_string()),
    ] {
        let (code, _, msg) = speak(&app, &dee, character, &message).await;
        assert_eq!(code, 10006, "{character} {message}: {msg}");
    }
    // A message of nothing but an action has nothing to say: 10001, nothing charged.
    let (code, _, msg) = speak(&app, &dee, GIRL, &mine.to_string()).await;
    assert_eq!(code, 10001, "{msg}");
    // Malformed ids: 10001.
    for (character, message) in [(GIRL, "abc"), ("../x", "1")] {
        let (code, _, _) = speak(&app, &dee, character, message).await;
        assert_eq!(code, 10001);
    }
    // Signed out: 10004.
    let (envelope, _) = app
        .post_api_as(None, "/user/v1/voice/speak", json!({ "characterId": GIRL, "messageId": theirs.to_string() }))
        .await;
    assert_eq!(envelope.code, 10004);
    assert_eq!(ledger(&app, &dee).await.0, 10, "nothing was charged");

    // The voices on offer, both genders.
    let (envelope, _) = app.post_api_as(Some(&dee.voucher), "/user/v1/voice/getVoices", json!({})).await;
    let voices = envelope.data.as_array().unwrap().clone();
    assert!(voices.iter().any(|v| v["gender"] == 0) && voices.iter().any(|v| v["gender"] == 1), "{voices:?}");
    assert!(voices.iter().all(|v| v["voiceId"].is_string() && v["label"].is_string()));
}

#[actix_rt::test]
async fn a_failing_speech_service_refunds_and_the_next_play_is_a_new_attempt() {
    let speech = SpeechFake::start();
    speech.failing.store(true, std::sync::atomic::Ordering::SeqCst);
    let model = speech.settings();
    let app = voice_app(Backend::Sqlite, move |settings| settings.voice.model = model).await;
    let fay = listener(&app, "Fay", 10).await;
    let message = said(&app, &fay, GIRL, Speaker::Character, "I made you a playlist. Want to hear it?").await;
    let mut socket = socket(&app, &fay).await;

    let (code, _, msg) = speak(&app, &fay, GIRL, &message.to_string()).await;
    assert_eq!(code, 50000, "{msg}");
    let failed = socket.wait_for("voiceFailed", WAIT).await.expect("voiceFailed");
    assert_eq!(failed["data"]["messageId"], message.to_string());
    assert_eq!(failed["data"]["refunded"], 2);
    assert_eq!(failed["data"]["code"], 50000);
    let (balance, txns) = ledger(&app, &fay).await;
    assert_eq!(balance, 10, "refunded");
    let user = fay.user_id.as_str();
    assert!(
        txns.contains(&format!("voice:{user}:{message}")) && txns.contains(&format!("voice-refund:{user}:{message}"))
    );

    // The service is back: the next play is the second attempt, charged under its own txn.
    speech.failing.store(false, std::sync::atomic::Ordering::SeqCst);
    let (code, data, msg) = speak(&app, &fay, GIRL, &message.to_string()).await;
    assert_eq!(code, 200, "{msg}");
    assert_eq!(data["coin"], 8);
    check_audio(&app, &data["parts"][0]).await;
    let (balance, txns) = ledger(&app, &fay).await;
    assert_eq!(balance, 8);
    assert!(txns.contains(&format!("voice:{user}:{message}:1")), "{txns:?}");
    assert!(speech.requests.load(std::sync::atomic::Ordering::SeqCst) >= 2);
}
