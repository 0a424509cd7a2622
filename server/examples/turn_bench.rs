//! The server's added latency per chat turn: the real server (this process, the settings of
//! `config/default.toml` plus `AMORA_*` overrides from the environment), the real chat
//! model, a real WebSocket client on loopback. For every turn the client times `chatSend`
//! to the first `chatDelta` and to `chatDone`; between turns it reads the server's
//! `/metrics`, whose per-phase sums grow by exactly that turn's phases. The model's own time
//! (`generate`: its stream opening to its end) taken from the turn's wall time is what the
//! server added: the socket, the actors, accepting and storing the message, the prompt,
//! storing the reply and the events back.
//!
//! With `--nodes 2` a second node runs in this process on the same store and event bus
//! (Redis must be set: `AMORA_REDIS__URL`), and the user has a socket on each: the turns
//! are sent on the first, and each turn also waits for its `chatDone` on the second, as a
//! deployment of two nodes serves a user with a tab on each.
//!
//! Run by `scripts/bench-turn` (see BENCHMARKS.md). Options: `--turns N` (30),
//! `--characters N` (conversations the turns rotate over, so history stays short: 5),
//! `--max-tokens N` (reply length, 24), `--nodes N` (1 or 2), `--baseline-out FILE` (writes
//! the added latency's p99 there), `--baseline FILE` (records the row `turn.two`: this run's
//! p99 against the one in FILE, `scripts/lib/bench_record.rs`).
//!
//! The embedded model's prompt cache: each turn's prompt tokens and how many of them came
//! from the cache (`amora_chat_model_prompt_tokens` on `/metrics`); the hit rate is the
//! cached share of all prompt tokens, and the share of turns that took most of their
//! prompt from the cache.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../scripts/lib/bench_record.rs"]
mod bench_record;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use amora_domain::account::{UserId, UserNo};
use amora_server::settings::Settings;
use amora_server::startup::Application;
use amora_store::{NewUser, SessionRecord, Store, UserChange};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const PHASES: [&str; 6] = ["accept", "recall", "prepare", "first_token", "generate", "store_reply"];
const WAIT: Duration = Duration::from_secs(300);

struct Options {
    turns: usize,
    characters: usize,
    max_tokens: u32,
    nodes: usize,
    baseline_out: Option<std::path::PathBuf>,
    baseline: Option<std::path::PathBuf>,
}

fn options() -> Options {
    let mut options =
        Options { turns: 30, characters: 5, max_tokens: 24, nodes: 1, baseline_out: None, baseline: None };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = || pair.get(1).and_then(|v| v.parse::<usize>().ok()).expect("a number after the option");
        let path = || std::path::PathBuf::from(pair.get(1).expect("a path after the option"));
        match pair[0].as_str() {
            "--turns" => options.turns = value(),
            "--characters" => options.characters = value().max(1),
            "--max-tokens" => options.max_tokens = value() as u32,
            "--nodes" => options.nodes = value().clamp(1, 2),
            "--baseline-out" => options.baseline_out = Some(path()),
            "--baseline" => options.baseline = Some(path()),
            other => panic!(
                "unknown option {other}: --turns N, --characters N, --max-tokens N, --nodes N, \
                 --baseline-out FILE, --baseline FILE"
            ),
        }
    }
    options
}

/// One measured turn, in milliseconds.
struct Turn {
    /// `chatSend` sent to `chatDone` read, on the client.
    total: f64,
    /// `chatSend` sent to the first `chatDelta` read, on the client.
    first_delta: f64,
    /// Round trips to the store (reads and writes) the turn made, from `Health::round_trips`.
    store_round_trips: f64,
    /// This turn's growth of each phase's sum on `/metrics`.
    phases: HashMap<&'static str, f64>,
    prompt_history: usize,
    /// The turn's prompt tokens, and how many the model's prompt cache held.
    prompt_tokens: f64,
    cached_tokens: f64,
    /// `chatSend` sent to `chatDone` read on the user's socket on the second node.
    elsewhere: Option<f64>,
}

impl Turn {
    fn phase(&self, name: &str) -> f64 {
        self.phases.get(name).copied().unwrap_or(0.0)
    }

    /// The turn's wall time less the model's.
    fn added(&self) -> f64 {
        self.total - self.phase("generate")
    }

    /// The added latency no phase accounts for: the socket, the actors' mailboxes, the events.
    fn unaccounted(&self) -> f64 {
        self.added() - ["accept", "recall", "prepare", "store_reply"].iter().map(|p| self.phase(p)).sum::<f64>()
    }

    /// Time to the first delta less the model's time to its first token.
    fn added_before_first_delta(&self) -> f64 {
        self.first_delta - self.phase("first_token")
    }
}

#[actix_rt::main]
async fn main() {
    let options = options();
    let temp = tempfile::tempdir().unwrap();
    let mut env: Vec<(String, String)> = vec![
        ("AMORA_HTTP__HOST".into(), "127.0.0.1".into()),
        ("AMORA_HTTP__PORT".into(), "0".into()),
        ("AMORA_STORE__DATA_DIR".into(), temp.path().join("data").display().to_string()),
        ("AMORA_LOG__FILTER".into(), "warn".into()),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS".into(), "0".into()),
        ("AMORA_CHAT__MAX_REPLY_TOKENS".into(), options.max_tokens.to_string()),
        // `/metrics` is the operator's: it answers this token only.
        ("AMORA_ADMIN__TOKEN".into(), "turn-bench-operator".into()),
    ];
    // The caller's settings win (the model path, another store, Redis).
    env.extend(std::env::vars());
    let settings = Settings::load_from(None, env.clone()).expect("settings");
    amora_server::observability::init_logging(&settings.log);
    let described = describe(&settings);
    let operator = settings.admin.token.clone();

    let app = Application::build(settings.clone()).await.expect("the server starts");
    let address = format!("127.0.0.1:{}", app.port());
    let store = app.store();
    actix_rt::spawn(app.run_until_stopped());
    // The second node: the same store and bus; the model loads there only if asked.
    let second = if options.nodes > 1 {
        assert!(!settings.redis.url.is_empty(), "two nodes share events through Redis: set AMORA_REDIS__URL");
        env.push(("AMORA_CHAT__PRELOAD".into(), "false".into()));
        let settings = Settings::load_from(None, env).expect("settings");
        let app = Application::build(settings).await.expect("the second node starts");
        let address = format!("127.0.0.1:{}", app.port());
        actix_rt::spawn(app.run_until_stopped());
        Some(address)
    } else {
        None
    };

    let voucher = paid_user(&store).await;
    let mut socket = open_socket(&address, &voucher).await;
    let mut elsewhere = match &second {
        Some(address) => Some(open_socket(address, &voucher).await),
        None => None,
    };
    let mut operator_headers = reqwest::header::HeaderMap::new();
    operator_headers.insert(reqwest::header::AUTHORIZATION, format!("Bearer {operator}").parse().unwrap());
    let http = reqwest::Client::builder().default_headers(operator_headers).build().unwrap();
    let characters: Vec<String> = (1..=options.characters).map(|n| format!("gf-{n:03}")).collect();

    // Warm-up: loads the model, opens every conversation.
    for character in &characters {
        let _ =
            turn(&mut socket, elsewhere.as_mut(), &http, &address, &store, character, "Hi! Nice to meet you.").await;
    }
    let lines = [
        "I just got home from work, it was a long day.",
        "What did you do today?",
        "Tell me one thing you like about rainy evenings.",
        "I am thinking of cooking pasta tonight. Any ideas?",
        "Do you like music? I play the guitar a little.",
        "Good night, talk to you tomorrow!",
    ];
    let mut turns = Vec::with_capacity(options.turns);
    let mut failed = Vec::new();
    for n in 0..options.turns {
        let character = &characters[n % characters.len()];
        match turn(&mut socket, elsewhere.as_mut(), &http, &address, &store, character, lines[n % lines.len()]).await {
            Ok(mut measured) => {
                measured.prompt_history = 2 + 2 * (1 + n / characters.len());
                turns.push(measured);
            }
            // A reply can fail (a small model may end its turn at once): the turn is left
            // out of the figures and counted, as a user would just write again.
            Err(error) => failed.push(format!("turn {}: {}", n + 1, error["data"]["msg"])),
        }
    }
    let described = if second.is_some() { format!("two nodes, {described}") } else { described };
    report(&options, &described, &turns);
    if !failed.is_empty() {
        println!("\n{} of {} turns failed and are left out: {}", failed.len(), options.turns, failed.join("; "));
    }
    if turns.is_empty() {
        panic!("every turn failed: {}", failed.join("; "));
    }
    let p99 = percentile(&mut turns.iter().map(Turn::added).collect::<Vec<f64>>(), 99.0);
    if let Some(path) = &options.baseline_out {
        std::fs::write(path, p99.to_string()).expect("the baseline is written");
    }
    if let Some(path) = &options.baseline {
        let baseline: f64 = std::fs::read_to_string(path).expect("the baseline").trim().parse().expect("a number");
        bench_record::record(
            "turn.two",
            p99,
            baseline,
            "ms",
            &format!(
                "{} turns over {} conversations, replies up to {} tokens, {described}; the peer: the same turns on \
                 one node with the embedded store and bus; failed turns left out: {}",
                turns.len(),
                options.characters,
                options.max_tokens,
                failed.len()
            ),
        );
    }
}

/// A socket of the holder of `voucher` on the node at `address`, once it said hello.
async fn open_socket(address: &str, voucher: &str) -> Socket {
    let url = format!("ws://{address}/lust/api/ws?voucher={voucher}");
    // As a browser opens it: without Nagle's algorithm.
    let (mut socket, _) =
        tokio_tungstenite::connect_async_with_config(url, None, true).await.expect("the socket opens");
    wait_for(&mut socket, "hello").await;
    socket
}

/// Sends one message and reads every event of its reply; the phases come from `/metrics`.
/// A failed reply answers its `chatError` event.
async fn turn(
    socket: &mut Socket,
    elsewhere: Option<&mut Socket>,
    http: &reqwest::Client,
    address: &str,
    store: &Store,
    character: &str,
    line: &str,
) -> Result<Turn, Value> {
    let before = phase_sums(http, address).await;
    let round_trips_before = store.health.round_trips();
    let frame = json!({ "action": "chatSend", "data": { "characterId": character, "content": line } });
    let sent = Instant::now();
    socket.send(Message::Text(frame.to_string().into())).await.unwrap();
    let mut first_delta = None;
    loop {
        let event = next_event(socket).await;
        match event["event"].as_str() {
            Some("chatDelta") if first_delta.is_none() => first_delta = Some(sent.elapsed()),
            Some("chatDone") => break,
            Some("chatError") => return Err(event),
            _ => {}
        }
    }
    let total = sent.elapsed();
    // The same reply's end on the user's socket on the other node.
    let elsewhere = match elsewhere {
        Some(other) => {
            loop {
                let event = next_event(other).await;
                if event["event"] == "chatDone" || event["event"] == "chatError" {
                    break;
                }
            }
            Some(ms(sent.elapsed()))
        }
        None => None,
    };
    let store_round_trips = (store.health.round_trips() - round_trips_before) as f64;
    let after = phase_sums(http, address).await;
    let phases = PHASES.iter().map(|&p| (p, 1000.0 * (after[p] - before.get(p).copied().unwrap_or(0.0)))).collect();
    let first_delta = ms(first_delta.expect("at least one delta"));
    let grew = |name: &str| after.get(name).copied().unwrap_or(0.0) - before.get(name).copied().unwrap_or(0.0);
    let (prompt_tokens, cached_tokens) = (grew(PROMPT_TOKENS), grew(CACHED_TOKENS));
    Ok(Turn {
        total: ms(total),
        first_delta,
        store_round_trips,
        phases,
        prompt_history: 0,
        prompt_tokens,
        cached_tokens,
        elsewhere,
    })
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

const PROMPT_TOKENS: &str = "prompt_tokens";
const CACHED_TOKENS: &str = "cached_tokens";

/// `amora_chat_turn_phase_seconds_sum` per phase, in seconds, and the model's prompt
/// tokens so far (`PROMPT_TOKENS`, `CACHED_TOKENS`).
async fn phase_sums(http: &reqwest::Client, address: &str) -> HashMap<&'static str, f64> {
    let text = http.get(format!("http://{address}/metrics")).send().await.unwrap().text().await.unwrap();
    let read =
        |prefix: &str| text.lines().find_map(|line| line.strip_prefix(prefix)).map_or(0.0, |v| v.parse().unwrap());
    let mut sums = HashMap::new();
    for phase in PHASES {
        sums.insert(phase, read(&format!("amora_chat_turn_phase_seconds_sum{{phase=\"{phase}\"}} ")));
    }
    sums.insert(PROMPT_TOKENS, read("amora_chat_model_prompt_tokens{source=\"all\"} "));
    sums.insert(CACHED_TOKENS, read("amora_chat_model_prompt_tokens{source=\"cached\"} "));
    sums
}

async fn next_event(socket: &mut Socket) -> Value {
    loop {
        let message = tokio::time::timeout(WAIT, socket.next()).await.expect("an event in time");
        match message.expect("the socket stays open").unwrap() {
            Message::Text(text) => return serde_json::from_str(&text).unwrap(),
            Message::Close(reason) => panic!("the server closed the socket: {reason:?}"),
            _ => continue,
        }
    }
}

async fn wait_for(socket: &mut Socket, name: &str) {
    while next_event(socket).await["event"] != name {}
}

/// A paid user (no message limit, every character) with a session, made in the store.
async fn paid_user(store: &Store) -> String {
    let suffix: u32 = rand::random();
    let user_id = UserId::parse(&format!("ubench{suffix}")).unwrap();
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

fn describe(settings: &Settings) -> String {
    let store = match settings.store.kind {
        amora_server::settings::StoreKind::Embedded => "embedded store (SQLite)".to_owned(),
        amora_server::settings::StoreKind::Scylla => format!("CQL store ({})", settings.store.scylla.nodes),
    };
    let bus = if settings.redis.url.is_empty() { "in-process event bus" } else { "Redis event bus" };
    let model = format!("{:?}", settings.chat.model.kind).to_lowercase();
    format!("{store}, {bus}, {model} chat model")
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (values.len() - 1) as f64).round() as usize;
    values[rank]
}

fn row(name: &str, mut values: Vec<f64>) -> String {
    if values.is_empty() {
        return format!("| {name} | | | | | |");
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let (p50, p95, p99) = (percentile(&mut values, 50.0), percentile(&mut values, 95.0), percentile(&mut values, 99.0));
    let max = values.last().copied().unwrap_or(0.0);
    format!("| {name} | {p50:.2} | {p95:.2} | {p99:.2} | {max:.2} | {mean:.2} |")
}

fn report(options: &Options, described: &str, turns: &[Turn]) {
    let of = |f: &dyn Fn(&Turn) -> f64| turns.iter().map(f).collect::<Vec<f64>>();
    println!(
        "{} turns over {} conversations ({described}); replies up to {} tokens; conversations up to {} messages long.",
        turns.len(),
        options.characters,
        options.max_tokens,
        turns.iter().map(|t| t.prompt_history).max().unwrap_or(0),
    );
    println!();
    println!("| per turn | p50 ms | p95 ms | p99 ms | max ms | mean ms |");
    println!("|---|---|---|---|---|---|");
    println!("{}", row("**server's added latency** (turn wall time − model time)", of(&|t| t.added())));
    println!(
        "{}",
        row("added before the first delta (client − model first token)", of(&|t| t.added_before_first_delta()))
    );
    println!("{}", row("· accept (moderation, credit, store the message, `chatMessage`)", of(&|t| t.phase("accept"))));
    println!("{}", row("· recall (lorebook entries, recall index)", of(&|t| t.phase("recall"))));
    println!("{}", row("· prepare (prompt built and counted, the model's turn)", of(&|t| t.phase("prepare"))));
    println!("{}", row("· store the reply", of(&|t| t.phase("store_reply"))));
    println!("{}", row("· the rest (socket, actors' mailboxes, events)", of(&Turn::unaccounted)));
    println!("{}", row("model: first token", of(&|t| t.phase("first_token"))));
    println!("{}", row("model: whole reply", of(&|t| t.phase("generate"))));
    println!("{}", row("client: `chatSend` → first `chatDelta`", of(&|t| t.first_delta)));
    println!("{}", row("client: `chatSend` → `chatDone`", of(&|t| t.total)));
    let elsewhere: Vec<f64> = turns.iter().filter_map(|t| t.elsewhere).collect();
    if !elsewhere.is_empty() {
        println!("{}", row("client: `chatSend` → `chatDone` on the second node's socket", elsewhere));
    }
    println!();
    println!("| per turn | p50 | p95 | p99 | max | mean |");
    println!("|---|---|---|---|---|---|");
    println!(
        "{}",
        row("store round trips (reads and writes) from `chatSend` to `chatDone`", of(&|t| t.store_round_trips))
    );
    println!("{}", row("prompt tokens", of(&|t| t.prompt_tokens)));
    println!("{}", row("· of them from the prefix cache", of(&|t| t.cached_tokens)));
    let all: f64 = turns.iter().map(|t| t.prompt_tokens).sum();
    let cached: f64 = turns.iter().map(|t| t.cached_tokens).sum();
    let mostly = turns.iter().filter(|t| t.cached_tokens * 2.0 > t.prompt_tokens).count();
    println!();
    println!(
        "Prefix cache: {:.1}% of prompt tokens came from it; {mostly} of {} turns ({:.1}%) took most of their prompt from it.",
        100.0 * cached / all.max(1.0),
        turns.len(),
        100.0 * mostly as f64 / turns.len().max(1) as f64,
    );
}
