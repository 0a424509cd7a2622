//! An honest user's time to first token while many accounts flood the model (issue 28,
//! item 10): the real server (this process, `config/default.toml` plus `AMORA_*` overrides
//! from the environment), the real chat model, real WebSocket clients on loopback.
//!
//! Two phases of `--seconds` each. In the first the honest user chats alone; in the second
//! `--flooders` accounts flood: each keeps a reply running in each of two conversations and
//! sends again the moment a reply ends or a send is refused (after `--resend-ms`, so that
//! the clients, which share this machine, do not eat the model's CPU). In both phases the
//! honest user sends one message every `--interval-ms` to one of five conversations and
//! times `chatSend` to the first `chatDelta`; a send refused as busy or rate-limited is sent
//! again a second later, and the time counts from the first send (what the user waits).
//!
//! The clients run on their own thread (their own runtime), apart from the server's actors.
//! Run by `scripts/bench-flood` (see BENCHMARKS.md, "Many accounts flooding the model").

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use amora_domain::account::{UserId, UserNo};
use amora_server::settings::Settings;
use amora_server::startup::Application;
use amora_store::{NewUser, SessionRecord, Store, UserChange};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Longest an honest user waits for one reply before it counts as never answered.
const GIVE_UP: Duration = Duration::from_secs(180);

#[derive(Clone, Copy)]
struct Options {
    seconds: u64,
    flooders: usize,
    interval_ms: u64,
    resend_ms: u64,
}

fn options() -> Options {
    let mut options = Options { seconds: 40, flooders: 12, interval_ms: 3000, resend_ms: 20 };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = || pair.get(1).and_then(|v| v.parse::<u64>().ok()).expect("a number after the option");
        match pair[0].as_str() {
            "--seconds" => options.seconds = value().max(1),
            "--flooders" => options.flooders = value() as usize,
            "--interval-ms" => options.interval_ms = value(),
            "--resend-ms" => options.resend_ms = value(),
            other => {
                panic!("unknown option {other}: --seconds N, --flooders N, --interval-ms N, --resend-ms N")
            }
        }
    }
    options
}

/// What the flooders did, counted across all of them.
#[derive(Default)]
struct FloodCounts {
    sends: AtomicU64,
    /// Replies whose first `chatDelta` came: the model's turns the flood got.
    replies_started: AtomicU64,
    /// `chatError` answers by code.
    refused: std::sync::Mutex<HashMap<u64, u64>>,
}

/// The honest user's phase: first-token times in seconds, and sends refused on the way.
struct Phase {
    first_tokens: Vec<f64>,
    refused: usize,
    unanswered: usize,
}

#[actix_rt::main]
async fn main() {
    let options = options();
    let temp = tempfile::tempdir().unwrap();
    let mut env: Vec<(String, String)> = vec![
        ("AMORA_HTTP__HOST".into(), "127.0.0.1".into()),
        ("AMORA_HTTP__PORT".into(), "0".into()),
        ("AMORA_STORE__DATA_DIR".into(), temp.path().join("data").display().to_string()),
        ("AMORA_LOG__FILTER".into(), "warn,amora=error".into()),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS".into(), "0".into()),
        // Every client here is 127.0.0.1: the per-address limit of refused sends would shut
        // the honest user out with the flooders, as it would behind one NAT. The per-account
        // limit still holds; a real honest user comes from an address of their own.
        ("AMORA_LIMITS__REFUSED_SENDS_PER_IP_PER_MINUTE".into(), "1000000".into()),
    ];
    // The caller's settings win (the model path, its library, another store).
    env.extend(std::env::vars());
    let settings = Settings::load_from(None, env).expect("settings");
    amora_server::observability::init_logging(&settings.log);
    let limits = settings.chat.fair_limits();
    let described = format!(
        "{:?} model, {} replies at once, {} waiting, {} per user, replies up to {} tokens",
        settings.chat.model.kind, limits.slots, limits.waiting, limits.per_user, settings.chat.max_reply_tokens
    )
    .to_lowercase();

    let app = Application::build(settings).await.expect("the server starts");
    let address = format!("127.0.0.1:{}", app.port());
    let store = app.store();
    actix_rt::spawn(app.run_until_stopped());

    let honest = paid_user(&store, "honest").await;
    let mut flooders = Vec::new();
    for n in 0..options.flooders {
        flooders.push(paid_user(&store, &format!("flood{n}")).await);
    }

    // The clients on a thread of their own, so that their work does not queue behind the
    // server's actors on this one.
    let client = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(clients(options, address, honest, flooders))
    });
    let (alone, flooded, counts) = tokio::task::spawn_blocking(move || client.join().unwrap()).await.unwrap();
    report(&options, &described, &alone, &flooded, &counts);
}

async fn clients(
    options: Options,
    address: String,
    honest: String,
    flooders: Vec<String>,
) -> (Phase, Phase, Arc<FloodCounts>) {
    let mut socket = open(&address, &honest).await;
    // Warm-up: the model loaded, the honest user's conversations opened.
    for n in 1..=5 {
        let _ = first_token(&mut socket, &format!("gf-{n:03}"), "Hi! Nice to meet you.").await;
        drain(&mut socket, Duration::from_secs(60)).await;
    }
    let alone = honest_phase(&mut socket, &options).await;

    let counts = Arc::new(FloodCounts::default());
    let running = Arc::new(AtomicBool::new(true));
    let mut tasks = Vec::new();
    for (n, voucher) in flooders.into_iter().enumerate() {
        let flood_socket = open(&address, &voucher).await;
        // Two conversations each, none of them the honest user's.
        let characters = [format!("gf-{:03}", 6 + (2 * n) % 20), format!("gf-{:03}", 7 + (2 * n) % 20)];
        tasks.push(tokio::spawn(flood(flood_socket, characters, options.resend_ms, counts.clone(), running.clone())));
    }
    // Let the flood fill the model's slots and queue first.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let flooded = honest_phase(&mut socket, &options).await;
    running.store(false, Ordering::Relaxed);
    for task in tasks {
        task.abort();
    }
    (alone, flooded, counts)
}

/// One message every `interval_ms` for `seconds`, each timed to its first token.
async fn honest_phase(socket: &mut Socket, options: &Options) -> Phase {
    let lines = [
        "I just got home from work, it was a long day.",
        "What did you do today?",
        "Tell me one thing you like about rainy evenings.",
        "I am thinking of cooking pasta tonight. Any ideas?",
        "Do you like music? I play the guitar a little.",
    ];
    let mut phase = Phase { first_tokens: Vec::new(), refused: 0, unanswered: 0 };
    let ends = Instant::now() + Duration::from_secs(options.seconds);
    let mut n = 0;
    while Instant::now() < ends {
        let next = Instant::now() + Duration::from_millis(options.interval_ms);
        let character = format!("gf-{:03}", 1 + n % 5);
        match first_token(socket, &character, lines[n % lines.len()]).await {
            Ok((waited, refused)) => {
                phase.first_tokens.push(waited.as_secs_f64());
                phase.refused += refused;
            }
            Err(refused) => {
                phase.unanswered += 1;
                phase.refused += refused;
            }
        }
        // The reply's end, before the next message (a user reads before writing again).
        drain(socket, GIVE_UP).await;
        n += 1;
        tokio::time::sleep_until(next.into()).await;
    }
    phase
}

/// Sends `line` to `character` until a reply starts: the wait from the first send to the
/// first `chatDelta`, and how many sends were refused on the way (`Err` past `GIVE_UP`).
async fn first_token(socket: &mut Socket, character: &str, line: &str) -> Result<(Duration, usize), usize> {
    let frame = json!({ "action": "chatSend", "data": { "characterId": character, "content": line } }).to_string();
    let sent = Instant::now();
    let mut refused = 0;
    socket.send(Message::Text(frame.clone().into())).await.unwrap();
    while sent.elapsed() < GIVE_UP {
        let Some(event) = next_event(socket, GIVE_UP.saturating_sub(sent.elapsed())).await else { break };
        if event["data"]["characterId"] != character {
            continue;
        }
        match event["event"].as_str() {
            Some("chatDelta") => return Ok((sent.elapsed(), refused)),
            Some("chatError") => {
                refused += 1;
                tokio::time::sleep(Duration::from_secs(1)).await;
                socket.send(Message::Text(frame.clone().into())).await.unwrap();
            }
            _ => {}
        }
    }
    Err(refused)
}

/// Reads events until the reply in flight is done (or failed), or `wait` passes.
async fn drain(socket: &mut Socket, wait: Duration) {
    let until = Instant::now() + wait;
    while let Some(event) = next_event(socket, until.saturating_duration_since(Instant::now())).await {
        if matches!(event["event"].as_str(), Some("chatDone" | "chatError")) {
            return;
        }
    }
}

/// A flooder: a send to each of its conversations, and another the moment one's reply ends
/// or a send is refused.
async fn flood(
    mut socket: Socket,
    characters: [String; 2],
    resend_ms: u64,
    counts: Arc<FloodCounts>,
    running: Arc<AtomicBool>,
) {
    let send = |character: &str| {
        json!({ "action": "chatSend", "data": { "characterId": character, "content": "Tell me a long story." } })
            .to_string()
    };
    for character in &characters {
        counts.sends.fetch_add(1, Ordering::Relaxed);
        if socket.send(Message::Text(send(character).into())).await.is_err() {
            return;
        }
    }
    while running.load(Ordering::Relaxed) {
        let Some(event) = next_event(&mut socket, Duration::from_secs(60)).await else { return };
        let character = event["data"]["characterId"].as_str().unwrap_or_default().to_owned();
        let again = match event["event"].as_str() {
            Some("chatDelta") if event["data"]["offset"] == 0 => {
                counts.replies_started.fetch_add(1, Ordering::Relaxed);
                false
            }
            Some("chatDone") => true,
            Some("chatError") => {
                let code = event["data"]["code"].as_u64().unwrap_or(0);
                *counts.refused.lock().unwrap().entry(code).or_default() += 1;
                true
            }
            // A refusal without a conversation (the socket's own limit): again on the first.
            Some("error") => {
                let code = event["data"]["code"].as_u64().unwrap_or(0);
                *counts.refused.lock().unwrap().entry(code).or_default() += 1;
                tokio::time::sleep(Duration::from_millis(resend_ms)).await;
                counts.sends.fetch_add(1, Ordering::Relaxed);
                if socket.send(Message::Text(send(&characters[0]).into())).await.is_err() {
                    return;
                }
                false
            }
            _ => false,
        };
        if again && characters.contains(&character) {
            tokio::time::sleep(Duration::from_millis(resend_ms)).await;
            counts.sends.fetch_add(1, Ordering::Relaxed);
            if socket.send(Message::Text(send(&character).into())).await.is_err() {
                return;
            }
        }
    }
}

async fn open(address: &str, voucher: &str) -> Socket {
    let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{address}/lust/api/ws?voucher={voucher}"))
        .await
        .expect("the socket opens");
    while next_event(&mut socket, Duration::from_secs(30)).await.expect("hello")["event"] != "hello" {}
    socket
}

/// The next event, or `None` when none came within `wait` or the socket closed.
async fn next_event(socket: &mut Socket, wait: Duration) -> Option<Value> {
    let until = Instant::now() + wait;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let message = tokio::time::timeout(left, socket.next()).await.ok()?;
        match message {
            Some(Ok(Message::Text(text))) => return Some(serde_json::from_str(&text).unwrap()),
            // Closed or reset (a flooder's socket may be dropped as too slow): nothing more.
            None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return None,
            _ => continue,
        }
    }
}

/// A paid user (no message limit, every character) with a session, made in the store.
async fn paid_user(store: &Store, name: &str) -> String {
    let suffix: u32 = rand::random();
    let user_id = UserId::parse(&format!("u{name}{suffix}")).unwrap();
    let new_user = NewUser {
        user_id: user_id.clone(),
        user_no: UserNo::from_random(suffix),
        user_name: "Sam".into(),
        email: None,
        discord_email: None,
        google_subject: None,
        discord_id: None,
        utm_source: String::new(),
        language: "en".into(),
        created_at: 0,
    };
    store.users.create(new_user).await.unwrap();
    store.users.update(&user_id, UserChange::VipType(1)).await.unwrap();
    let voucher = amora_server::auth::random_token();
    let session = SessionRecord {
        token_hash: amora_server::auth::token_hash(&voucher),
        user_id,
        created_at: 0,
        expires_at: i64::MAX / 2,
    };
    store.sessions.create(session).await.unwrap();
    voucher
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (values.len() - 1) as f64).round() as usize;
    values[rank]
}

fn row(name: &str, phase: &Phase) -> String {
    let mut values = phase.first_tokens.clone();
    let (p50, p95) = (percentile(&mut values, 50.0), percentile(&mut values, 95.0));
    let max = values.last().copied().unwrap_or(f64::NAN);
    format!("| {name} | {} | {p50:.2} | {p95:.2} | {max:.2} | {} | {} |", values.len(), phase.refused, phase.unanswered)
}

fn report(options: &Options, described: &str, alone: &Phase, flooded: &Phase, counts: &FloodCounts) {
    println!(
        "{} s a phase, one honest message every {} ms; {} flooders, two conversations each, resending after {} ms ({described}).",
        options.seconds, options.interval_ms, options.flooders, options.resend_ms
    );
    println!();
    println!("| honest user | replies | first token p50 s | p95 s | max s | sends refused | unanswered |");
    println!("|---|---|---|---|---|---|---|");
    println!("{}", row("alone", alone));
    println!("{}", row(&format!("under a flood from {} accounts", options.flooders), flooded));
    let refused = counts.refused.lock().unwrap();
    let mut codes: Vec<_> = refused.iter().collect();
    codes.sort();
    let codes: Vec<String> = codes.iter().map(|(code, n)| format!("{code}: {n}")).collect();
    println!();
    println!(
        "Flood: {} sends, {} replies started, refusals by code {{{}}}.",
        counts.sends.load(Ordering::Relaxed),
        counts.replies_started.load(Ordering::Relaxed),
        codes.join(", ")
    );
}
