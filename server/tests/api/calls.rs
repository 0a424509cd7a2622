//! Voice calls against the real server (issue 32, docs/api.md "Voice calls"): a sentence
//! spoken by espeak-ng is streamed as the browser streams it (16 kHz μ-law in 100 ms
//! `callAudio` frames), heard by the real recogniser (embedded PocketSphinx, or an
//! OpenAI-compatible service on loopback), answered through the chat path (the model is a
//! loopback OpenAI-compatible chat API, so the reply is known), spoken by the embedded
//! voice (flite + lame) and paid through the user's actor. Balance = ledger sum throughout.

use std::time::{Duration, Instant};

use amora_actors::ai::transcription::{mulaw, pcm};
use amora_domain::account::UserId;
use amora_domain::money::{Coins, TxnId};
use amora_server::settings::Settings;
use amora_store::LedgerEntry;
use base64::Engine;
use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::chat::FREE_CHARACTER;
use crate::cluster::{Socket, make_user};
use crate::fakes::chat_api::ChatApiFake;
use crate::fakes::transcription::TranscriptionFake;
use crate::helpers::{TestApp, spawn_app_customised};

/// Long enough for PocketSphinx on a busy two-core machine.
const WAIT: Duration = Duration::from_secs(120);
/// What the user says, and the reply the model writes (two sentences, so the answer is
/// spoken in two parts, the first before the reply is done).
const SAID: &str = "I would like to hear a story about the sea";
const REPLY: [&str; 3] = ["Of course, my dear. ", "Once there was a lighthouse by the water. ", "It had a keeper."];

async fn call_app(model: &ChatApiFake, customise: impl FnOnce(&mut Settings)) -> TestApp {
    let env = [
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", model.base_url.as_str()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "any"),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS", "0"),
    ];
    Box::pin(spawn_app_customised(env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(), customise)).await
}

struct Caller {
    user_id: UserId,
    voucher: String,
}

/// A user with `coins` (a grant row, as a purchase leaves).
async fn caller(app: &TestApp, name: &str, coins: i64) -> Caller {
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
    Caller { user_id, voucher }
}

async fn socket(app: &TestApp, who: &Caller) -> Socket {
    let url = format!("{}/lust/api/ws?voucher={}", app.address.replacen("http", "ws", 1), who.voucher);
    let mut socket = Socket { stream: tokio_tungstenite::connect_async(url).await.unwrap().0 };
    socket.wait_for("hello", WAIT).await.expect("hello");
    socket
}

async fn act(socket: &mut Socket, action: &str, data: Value) {
    let frame = json!({ "action": action, "data": data }).to_string();
    socket.stream.send(Message::Text(frame.into())).await.unwrap();
}

/// Balance = sum of the ledger rows; answers the balance and the rows' txn ids.
async fn ledger(app: &TestApp, who: &Caller) -> (i64, Vec<String>) {
    let rows = app.store.ledger.rows(&who.user_id).await.unwrap();
    let sum: i64 = rows.iter().map(|row| row.delta.units()).sum();
    let balance = app.store.users.by_id(&who.user_id).await.unwrap().unwrap().coin.units();
    assert_eq!(balance, sum, "balance = sum of the ledger rows");
    (balance, rows.iter().map(|row| row.txn_id.as_str().to_owned()).collect())
}

/// `text` spoken by espeak-ng's Klatt voice, as the browser sends it: 16 kHz μ-law, with
/// half a second of silence before and a second and a half after (the turn ends on 700 ms).
fn spoken(text: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("said.wav");
    let status = std::process::Command::new("espeak-ng")
        .args(["-v", "en-us+klatt", "-s", "150", "-w"])
        .arg(&wav)
        .arg(text)
        .status()
        .expect("espeak-ng is installed by scripts/test");
    assert!(status.success());
    let (rate, samples) = pcm::read_wav(&std::fs::read(&wav).unwrap()).unwrap();
    let samples = pcm::resample(&samples, rate, 16_000);
    let mut audio = vec![0i16; 8_000];
    audio.extend(samples);
    audio.extend(vec![0i16; 24_000]);
    mulaw::encode(&audio)
}

/// Streams μ-law audio in 100 ms frames (1,600 bytes), `paced` at the speed it plays.
async fn stream(socket: &mut Socket, call_id: &str, audio: &[u8], paced: bool) {
    for (seq, frame) in audio.chunks(1_600).enumerate() {
        let audio = base64::engine::general_purpose::STANDARD.encode(frame);
        act(socket, "callAudio", json!({ "callId": call_id, "seq": seq, "audio": audio })).await;
        if paced {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Word error rate: word-level edit distance over the words said (case and punctuation aside).
fn word_error_rate(said: &str, heard: &str) -> f64 {
    let words = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| w.chars().filter(|c| c.is_alphanumeric() || *c == '\'').collect::<String>().to_lowercase())
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (said, heard) = (words(said), words(heard));
    let mut row: Vec<usize> = (0..=heard.len()).collect();
    for (i, s) in said.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, h) in heard.iter().enumerate() {
            let substitution = diagonal + usize::from(s != h);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[heard.len()] as f64 / said.len().max(1) as f64
}

/// Every event until (and with) the first named `name`.
async fn until(socket: &mut Socket, name: &str) -> Vec<Value> {
    let deadline = Instant::now() + WAIT;
    let mut events = Vec::new();
    while Instant::now() < deadline {
        let Some(event) = socket.next_event(deadline - Instant::now()).await else { break };
        let done = event["event"] == name;
        events.push(event);
        if done {
            return events;
        }
    }
    panic!("no {name} within {WAIT:?}: {events:?}");
}

fn named<'a>(events: &'a [Value], name: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

async fn start_call(socket: &mut Socket, character: &str) -> Value {
    act(socket, "callStart", json!({ "characterId": character })).await;
    let event = socket.next_event(WAIT).await.expect("an answer to callStart");
    assert_eq!(event["event"], "callStarted", "{event}");
    event["data"].clone()
}

/// Fetches a part's audio: MP3 that plays about as long as it says.
async fn check_audio(app: &TestApp, part: &Value) {
    let url = part["url"].as_str().unwrap();
    assert!(url.starts_with("/media/voice-"), "{url}");
    let response = app.client.get(app.url(url)).send().await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    assert_eq!(response.headers()["content-type"], "audio/mpeg");
    let bytes = response.bytes().await.unwrap();
    let sync = bytes.len() > 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0;
    assert!(sync || bytes.starts_with(b"ID3"), "MP3: {:02x?}", &bytes[..4]);
    assert!(part["durationMs"].as_u64().unwrap() > 300, "{part}");
}

/// One whole turn: the words heard, the chat turn, the answer spoken in parts (the last
/// after chatDone), one answer's price debited with its ledger row; a later Listen of the
/// reply is free; callEnd answers callEnded with what the call cost.
async fn a_turn_is_heard_answered_and_spoken(app: &TestApp, model: &ChatApiFake, name: &str) -> (String, f64) {
    model.answer_next(&[&REPLY]);
    let ann = caller(app, name, 10).await;
    let mut socket = socket(app, &ann).await;
    let started = start_call(&mut socket, FREE_CHARACTER).await;
    assert_eq!((started["sampleRate"].as_u64(), started["encoding"].as_str()), (Some(16_000), Some("mulaw")));
    assert_eq!((started["coinPerAnswer"].as_i64(), started["language"].as_str()), (Some(2), Some("en")));
    assert!(!started["voiceId"].as_str().unwrap_or_default().is_empty(), "{started}");
    let call_id = started["callId"].as_str().unwrap().to_owned();

    stream(&mut socket, &call_id, &spoken(SAID), false).await;
    let events = until(&mut socket, "callHeard").await;
    assert_eq!(named(&events, "callHearing").len(), 1, "{events:?}");
    let heard = events.last().unwrap()["data"].clone();
    let text = heard["text"].as_str().unwrap().to_owned();
    let wer = word_error_rate(SAID, &text);
    eprintln!("call heard {text:?} for {SAID:?}: WER {wer:.3}");
    assert!(!text.is_empty() && wer <= 0.6, "heard {text:?}: WER {wer}");
    assert!(heard["durationMs"].as_u64().unwrap() > 1_500, "{heard}");

    // The chat turn, exactly as chatSend runs it, then the rest of the answer's speech.
    let mut events = until(&mut socket, "chatDone").await;
    // A new conversation's greeting is stored (and sent) first; the user's turn follows it.
    let message = named(&events, "chatMessage")
        .iter()
        .map(|e| e["data"]["message"].clone())
        .find(|m| m["speaker"] == "user")
        .unwrap_or_else(|| panic!("no chatMessage of the user's: {events:?}"));
    assert_eq!((message["content"].as_str(), message["speaker"].as_str()), (Some(text.as_str()), Some("user")));
    let done = events.last().unwrap()["data"].clone();
    assert_eq!(done["message"]["content"], REPLY.concat().trim(), "{done}");
    let reply_id = done["replyId"].as_str().unwrap().to_owned();
    let before_done = named(&events, "callSpeech").len();
    assert!(before_done >= 1, "the first sentence is spoken before the reply is done: {events:?}");
    if !events.iter().any(|e| e["event"] == "callSpeech" && e["data"]["part"]["last"] == true) {
        events.extend(until(&mut socket, "callSpeech").await);
        while !named(&events, "callSpeech").last().is_some_and(|e| e["data"]["part"]["last"] == true) {
            events.extend(until(&mut socket, "callSpeech").await);
        }
    }
    let mut parts: Vec<Value> = named(&events, "callSpeech").iter().map(|e| e["data"].clone()).collect();
    // A last sentence spoken before the reply ended is told again as the last part: same
    // index, same clip (docs/api.md, `callSpeech`).
    if let [.., before, last] = &parts[..]
        && before["part"]["index"] == last["part"]["index"]
    {
        assert_eq!(
            (&before["part"]["url"], &before["part"]["last"]),
            (&last["part"]["url"], &json!(false)),
            "{parts:?}"
        );
        parts.remove(parts.len() - 2);
    }
    assert!(parts.len() >= 2, "{parts:?}");
    for (index, part) in parts.iter().enumerate() {
        assert_eq!(
            (part["callId"].as_str(), part["replyId"].as_str()),
            (Some(call_id.as_str()), Some(reply_id.as_str()))
        );
        assert_eq!(part["part"]["index"].as_u64(), Some(index as u64), "{parts:?}");
        assert_eq!(part["part"]["last"], index + 1 == parts.len(), "{parts:?}");
        check_audio(app, &part["part"]).await;
    }

    // One answer: the voice's price, one row; the free message the chat took.
    let (balance, txns) = ledger(app, &ann).await;
    assert_eq!(balance, 8, "{txns:?}");
    let user = ann.user_id.as_str();
    assert!(txns.contains(&format!("call:{user}:{reply_id}")), "{txns:?}");
    assert!(!txns.iter().any(|t| t.starts_with("call-refund")), "{txns:?}");

    // Listen to the reply later: the call's clip, no charge.
    let payload = json!({ "characterId": FREE_CHARACTER, "messageId": reply_id });
    let (envelope, _) = app.post_api_as(Some(&ann.voucher), "/user/v1/voice/speak", payload).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    assert_eq!(envelope.data["complete"], true);
    assert_eq!(envelope.data["parts"].as_array().map(Vec::len), Some(parts.len()));
    assert_eq!(ledger(app, &ann).await.0, 8, "a Listen of a call's answer is not charged again");

    act(&mut socket, "callEnd", json!({ "callId": call_id })).await;
    let ended = until(&mut socket, "callEnded").await.last().unwrap()["data"].clone();
    assert_eq!(ended, json!({ "callId": call_id, "reason": "user", "answers": 1, "coinSpent": 2 }));
    (text, wer)
}

#[actix_rt::test]
async fn a_call_turn_is_heard_answered_spoken_and_paid() {
    let model = ChatApiFake::start_with(&["unused"], Duration::from_millis(1000)).await;
    let app = call_app(&model, |_| {}).await;
    a_turn_is_heard_answered_and_spoken(&app, &model, "Ann").await;
}

/// A reply that is all narration is read on a call rather than left silent, and spoken
/// once the reply is whole: one part, the last.
#[actix_rt::test]
async fn a_reply_that_is_all_narration_is_read_aloud() {
    let model = ChatApiFake::start_with(&["unused"], Duration::from_millis(200)).await;
    let app = call_app(&model, |_| {}).await;
    model.answer_next(&[&["*She laughs softly ", "and looks out at the sea.*"]]);
    let cleo = caller(&app, "Cleo", 10).await;
    let mut socket = socket(&app, &cleo).await;
    let call_id = start_call(&mut socket, FREE_CHARACTER).await["callId"].as_str().unwrap().to_owned();
    stream(&mut socket, &call_id, &spoken(SAID), false).await;
    let events = until(&mut socket, "callSpeech").await;
    let done = named(&events, "chatDone");
    assert_eq!(done.len(), 1, "{events:?}");
    assert!(done[0]["data"]["message"]["content"].as_str().unwrap_or_default().starts_with('*'), "{events:?}");
    let part = named(&events, "callSpeech")[0]["data"]["part"].clone();
    assert_eq!((part["index"].as_u64(), &part["last"]), (Some(0), &json!(true)), "{part}");
    check_audio(&app, &part).await;
    // "and looks out at the sea" read at flite's pace takes well over a second.
    assert!(part["durationMs"].as_u64().unwrap() > 1_500, "{part}");
}

/// The same turn with the recogniser an OpenAI-compatible service on loopback.
#[actix_rt::test]
async fn a_call_through_an_openai_compatible_recogniser() {
    let model = ChatApiFake::start_with(&["unused"], Duration::from_millis(1000)).await;
    let service = TranscriptionFake::start().await;
    let transcription = service.settings();
    let app = call_app(&model, move |settings| settings.call.transcription = transcription).await;
    a_turn_is_heard_answered_and_spoken(&app, &model, "Bea").await;
    let requests = service.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert!(requests[0].contains(&("model".to_owned(), "whisper-1".to_owned())), "{requests:?}");
    assert!(requests[0].contains(&("language".to_owned(), "en".to_owned())), "{requests:?}");
}

/// A recogniser that cannot run: each turn is told it was not recognised (50000), nothing is
/// charged, and the second such turn in a row ends the call with `reason: "error"`.
#[actix_rt::test]
async fn a_call_whose_recogniser_keeps_failing_ends_with_an_error() {
    let model = ChatApiFake::start().await;
    let app = call_app(&model, |settings| {
        settings.call.transcription.embedded.program = "amora-no-such-pocketsphinx".into();
    })
    .await;
    let dana = caller(&app, "Dana", 10).await;
    let before = ledger(&app, &dana).await;
    let mut socket = socket(&app, &dana).await;
    let call_id = start_call(&mut socket, FREE_CHARACTER).await["callId"].as_str().unwrap().to_owned();
    let audio = spoken(SAID);
    stream(&mut socket, &call_id, &audio, false).await;
    let events = until(&mut socket, "callError").await;
    let error = &events.last().unwrap()["data"];
    assert_eq!((error["code"].as_i64(), error["callId"].as_str()), (Some(50000), Some(call_id.as_str())), "{error}");
    assert!(named(&events, "callEnded").is_empty(), "one failed turn does not end the call: {events:?}");
    stream(&mut socket, &call_id, &audio, false).await;
    let events = until(&mut socket, "callEnded").await;
    assert_eq!(named(&events, "callError").len(), 1, "{events:?}");
    let ended = &events.last().unwrap()["data"];
    assert_eq!((ended["reason"].as_str(), ended["answers"].as_u64()), (Some("error"), Some(0)), "{ended}");
    assert!(named(&events, "chatMessage").is_empty(), "no chat turn: {events:?}");
    assert_eq!(ledger(&app, &dana).await, before, "nothing charged");
}

/// Each refusal of the protocol, the call going on after those made during it, and the
/// idle timeout.
#[actix_rt::test]
async fn calls_refuse_what_the_protocol_refuses_and_end_when_idle() {
    let model = ChatApiFake::start().await;
    let app = call_app(&model, |settings| settings.call.idle_timeout_secs = 4).await;
    let error = |event: &Value| (event["event"].as_str().map(str::to_owned), event["data"]["code"].as_u64());

    // Without the coins for one answer.
    let poor = caller(&app, "Poor", 1).await;
    let mut socket = crate::calls::socket(&app, &poor).await;
    act(&mut socket, "callStart", json!({ "characterId": FREE_CHARACTER })).await;
    let refused = socket.next_event(WAIT).await.unwrap();
    assert_eq!(error(&refused), (Some("callError".into()), Some(40004)), "{refused}");
    assert_eq!(refused["data"]["callId"], Value::Null);

    let cal = caller(&app, "Cal", 10).await;
    let mut socket = crate::calls::socket(&app, &cal).await;
    // No such character; bad data.
    act(&mut socket, "callStart", json!({ "characterId": "gf-999" })).await;
    assert_eq!(error(&socket.next_event(WAIT).await.unwrap()), (Some("callError".into()), Some(10006)));
    act(&mut socket, "callStart", json!({ "character": "gf-002" })).await;
    assert_eq!(error(&socket.next_event(WAIT).await.unwrap()), (Some("callError".into()), Some(10001)));

    let started = start_call(&mut socket, FREE_CHARACTER).await;
    let call_id = started["callId"].as_str().unwrap().to_owned();
    let opened_at = Instant::now();
    // A second call on the socket.
    act(&mut socket, "callStart", json!({ "characterId": FREE_CHARACTER })).await;
    assert_eq!(error(&socket.next_event(WAIT).await.unwrap()), (Some("callError".into()), Some(10003)));
    // Audio for another call; audio over 500 ms; an interrupt with nothing being said.
    let silence = base64::engine::general_purpose::STANDARD.encode([0xFFu8; 1_600]);
    act(&mut socket, "callAudio", json!({ "callId": "c-none", "seq": 0, "audio": silence })).await;
    let refused = socket.next_event(WAIT).await.unwrap();
    assert_eq!(error(&refused), (Some("callError".into()), Some(10001)), "{refused}");
    let long = base64::engine::general_purpose::STANDARD.encode([0xFFu8; 8_001]);
    act(&mut socket, "callAudio", json!({ "callId": call_id, "seq": 0, "audio": long })).await;
    let refused = socket.next_event(WAIT).await.unwrap();
    assert_eq!(error(&refused), (Some("callError".into()), Some(10001)), "{refused}");
    assert_eq!(refused["data"]["callId"], call_id.as_str());
    act(&mut socket, "callAudio", json!({ "callId": call_id, "seq": 1, "audio": silence })).await;
    act(&mut socket, "callInterrupt", json!({ "callId": call_id })).await;
    let refused = socket.next_event(WAIT).await.unwrap();
    assert_eq!(error(&refused), (Some("callError".into()), Some(10001)), "{refused}");

    // Nobody speaks: the call ends by itself, having cost nothing.
    let ended = until(&mut socket, "callEnded").await.last().unwrap()["data"].clone();
    assert_eq!(ended, json!({ "callId": call_id, "reason": "idle", "answers": 0, "coinSpent": 0 }));
    assert!(opened_at.elapsed() >= Duration::from_secs(3), "{:?}", opened_at.elapsed());
    assert_eq!(ledger(&app, &cal).await.0, 10);
    // Ended, the call takes no more actions and a new one may start.
    act(&mut socket, "callEnd", json!({ "callId": call_id })).await;
    assert_eq!(error(&socket.next_event(WAIT).await.unwrap()), (Some("callError".into()), Some(10001)));
    start_call(&mut socket, FREE_CHARACTER).await;
}

/// Barge-in: the reply stops as chatStop stops it, nothing more of it is spoken, and the
/// answer whose speech had started is the one paid.
#[actix_rt::test]
async fn an_interrupt_stops_the_reply_and_its_speech() {
    let slow: Vec<String> = std::iter::once("Let me tell you a long story. ".to_owned())
        .chain((0..30).map(|n| format!("Part {n} of it goes on. ")))
        .collect();
    let pieces: Vec<&str> = slow.iter().map(String::as_str).collect();
    let model = ChatApiFake::start_with(&pieces, Duration::from_millis(300)).await;
    let app = call_app(&model, |_| {}).await;
    let dee = caller(&app, "Dee", 10).await;
    let mut socket = socket(&app, &dee).await;
    let call_id = start_call(&mut socket, FREE_CHARACTER).await["callId"].as_str().unwrap().to_owned();
    stream(&mut socket, &call_id, &spoken("Tell me a story please"), false).await;
    let events = until(&mut socket, "callSpeech").await;
    assert!(named(&events, "chatDone").is_empty(), "still writing: {events:?}");
    act(&mut socket, "callInterrupt", json!({ "callId": call_id })).await;
    let events = until(&mut socket, "chatDone").await;
    let done = events.last().unwrap()["data"].clone();
    assert_eq!(done["finishReason"], "cancelled", "{done}");
    assert!(done["message"]["content"].as_str().is_some_and(|c| c.starts_with("Let me tell you")), "{done}");
    // Nothing more of it is said.
    let deadline = Instant::now() + Duration::from_secs(3);
    while let Some(event) = socket.next_event(deadline.saturating_duration_since(Instant::now())).await {
        assert_ne!(event["event"], "callSpeech", "{event}");
    }
    let (balance, txns) = ledger(&app, &dee).await;
    assert_eq!(balance, 8, "the answer whose speech started is paid: {txns:?}");
    act(&mut socket, "callEnd", json!({ "callId": call_id })).await;
    let ended = until(&mut socket, "callEnded").await.last().unwrap()["data"].clone();
    assert_eq!((ended["answers"].as_u64(), ended["coinSpent"].as_i64()), (Some(1), Some(2)), "{ended}");
}

/// BENCHMARKS.md "Voice calls": the time from the end of the user's speech to the first
/// `callSpeech` (the first sound of the answer), p50 and p95 over ten turns paced in real
/// time, on the embedded stack: PocketSphinx, the embedded chat model (llama.cpp when
/// AMORA_LLAMA_LIB is set), flite + lame. Run with `--ignored --nocapture`; it prints the figures.
#[actix_rt::test]
#[ignore = "a measurement for BENCHMARKS.md, not a check"]
async fn time_to_first_sound_on_the_embedded_stack() {
    let mut env = vec![
        ("AMORA_CHAT__MODEL__EMBEDDED__MODEL_PATH".to_owned(), crate::chat::model_path()),
        ("AMORA_CHAT__MAX_REPLY_TOKENS".to_owned(), "48".to_owned()),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS".to_owned(), "0".to_owned()),
        ("AMORA_CHAT__PRELOAD".to_owned(), "true".to_owned()),
    ];
    if let Ok(library) = std::env::var("AMORA_LLAMA_LIB") {
        env.push(("AMORA_CHAT__MODEL__EMBEDDED__LLAMA_LIBRARY".to_owned(), library));
    }
    let app = Box::pin(spawn_app_customised(env, |_| {})).await;
    let eve = caller(&app, "Eve", 1_000).await;
    let mut socket = socket(&app, &eve).await;
    let call_id = start_call(&mut socket, FREE_CHARACTER).await["callId"].as_str().unwrap().to_owned();
    let lines = [
        "Hello how are you today",
        "Tell me about your favorite book",
        "What did you do this morning",
        "I would like to hear a story",
        "Do you like the sea",
        "What is your favorite food",
        "Where would you like to travel",
        "Tell me something funny",
        "How was your weekend",
        "What music do you like",
    ];
    let mut latencies = Vec::new();
    for line in lines {
        let audio = spoken(line);
        // The speech ends at its last sound above 1 % of full scale (espeak-ng leaves some
        // silence of its own before the 1.5 s added): from the frame that holds it on, the
        // user is silent.
        let last_sound = mulaw::decode(&audio).iter().rposition(|s| s.unsigned_abs() > 328).unwrap_or_default();
        let speech_frames = (last_sound + 1).div_ceil(1_600);
        let mut speech_ended = Instant::now();
        let (mut first_sound, mut heard_at, mut heard) = (None, None, String::new());
        let answered = std::cell::Cell::new(false);
        // Events are read while the audio is still being sent, as a browser hears them: a
        // turn may be heard and answered within the trailing silence.
        let mut on_event = |event: Value, speech_ended: Instant| {
            let at = speech_ended.elapsed();
            match event["event"].as_str() {
                Some("callHeard") => {
                    heard = event["data"]["text"].as_str().unwrap_or_default().to_owned();
                    heard_at = Some(at);
                }
                Some("callSpeech") => {
                    first_sound.get_or_insert(at);
                    answered.set(answered.get() || event["data"]["part"]["last"] == true);
                }
                Some("chatError") | Some("callError") => panic!("{event}"),
                _ => {}
            }
            if std::env::var_os("CALL_EVENTS").is_some() {
                let event: String = event.to_string().chars().take(160).collect();
                eprintln!("{:>5} ms {event}", at.as_millis());
            }
        };
        for (seq, frame) in audio.chunks(1_600).enumerate() {
            let b64 = base64::engine::general_purpose::STANDARD.encode(frame);
            let next_frame = Instant::now() + Duration::from_millis(100);
            act(&mut socket, "callAudio", json!({ "callId": call_id, "seq": seq, "audio": b64 })).await;
            if seq + 1 == speech_frames {
                speech_ended = Instant::now();
            }
            while let Some(event) = socket.next_event(next_frame.saturating_duration_since(Instant::now())).await {
                on_event(event, speech_ended);
            }
        }
        let deadline = Instant::now() + WAIT;
        while !answered.get()
            && let Some(event) = socket.next_event(deadline.saturating_duration_since(Instant::now())).await
        {
            on_event(event, speech_ended);
        }
        let heard_at = heard_at.map_or(0, |at| at.as_millis());
        let first_sound = first_sound.expect("an answer was spoken");
        eprintln!(
            "{line:?} heard as {heard:?} {heard_at} ms after the speech ended, first sound at {} ms",
            first_sound.as_millis()
        );
        latencies.push(first_sound.as_millis() as u64);
    }
    latencies.sort_unstable();
    let p50 = latencies[latencies.len() / 2];
    let p95 = latencies[(latencies.len() * 95).div_ceil(100) - 1];
    eprintln!("time to first sound over {} turns: p50 {p50} ms, p95 {p95} ms ({latencies:?})", latencies.len());
}
