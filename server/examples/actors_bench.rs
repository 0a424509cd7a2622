//! Memory per idle user actor (issue 35, "actors at scale"): a release `amora` process on
//! a SQLite store, and N users who each opened a WebSocket (which starts their actor and
//! reads their account), waited for `hello` and left. The server's resident memory grows
//! by what N idle actors hold: the actor and its mailbox, the registry's entry, the cached
//! account and session. The peer is actix's floor: the same number of actors that hold
//! nothing, spread over two arbiters, their addresses kept in a map by a 20-character id as
//! the registry keeps ours (this program run with `--empty-actors N`, in its own process).
//!
//! Memory is read twice: just after the last user left (the actors warm, each holding the
//! account it read), and once they have cooled (`actors.cool_secs`, 60 by default: an
//! actor without sockets gives back the account it caches) and the node's sessions cache
//! has given back sessions that can no longer answer (read 30 s ago). The row is the
//! second: an idle actor is one nobody has used for that long.
//!
//! Then resident conversations: N of the users (20,000) each have a conversation of 40
//! messages with a catalogue character in the store, and open it (`chat/getMessageList`,
//! which loads its newest 60 messages and its memories into the character's actor). The
//! growth of RSS over them, once the users' actors have cooled again, is what a resident
//! conversation holds; the peer is the text of its messages. Last, a fresh server with a
//! memory budget (`actors.memory_budget_mib`) between its start and what the conversations
//! would take opens them all: its RSS once settled against the budget, and every
//! conversation read again whole afterwards (none lost by shedding).
//!
//! Run by `scripts/bench-actors`. Options: `--server PATH` (the `amora` binary), `--users N`
//! (100,000), `--concurrency N` (sockets opening at once: 32), `--cool-secs N` (the
//! server's `actors.cool_secs`: 60, its default), `--conversations N` (20,000),
//! `--messages N` (40 a conversation).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../scripts/lib/bench_record.rs"]
mod bench_record;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use actix::{Actor, Addr, Arbiter, Context};
use amora_domain::account::{UserId, UserNo};
use amora_domain::character::CharacterId;
use amora_domain::chat::Speaker;
use amora_store::embedded::EmbeddedStore;
use amora_store::{NewUser, SessionRecord, Store, StoredMessage};
use futures_util::StreamExt;
use tokio_tungstenite::tungstenite::Message;

/// Time for the actors to start before memory is read.
const SETTLE: Duration = Duration::from_secs(3);
/// mimalloc hands freed memory back over seconds (RSS fell for ~13 s after sockets opened,
/// BENCHMARKS.md "Memory per idle socket"): memory is read once it has not fallen for this
/// long…
/// (`--steady-secs`: a smoke run takes less.)
static STEADY: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
/// …or after this long at most.
const SETTLE_AT_MOST: Duration = Duration::from_secs(60);
/// What shedding gives back reaches the system only once the threads that allocated it
/// allocate again or end: the messages of a conversation are read on tokio's blocking
/// threads, which end after 10 s idle (its `thread_keep_alive`), and mimalloc takes back a
/// block freed on another thread through its owner. RSS under a budget fell ~10 s after
/// the last conversation was opened, so it is read once it has held still this much longer.
const BLOCKING_THREADS_END: Duration = Duration::from_secs(11);
/// The registry sweeps its actors (cooling them) and the node's sessions this often, or
/// as often as they cool when that is sooner.
const SWEEP: Duration = Duration::from_secs(10);

struct Options {
    server: PathBuf,
    users: usize,
    concurrency: usize,
    cool_secs: u64,
    conversations: usize,
    messages: usize,
}

fn options() -> Options {
    let mut options = Options {
        server: PathBuf::from("target/release/amora"),
        users: 100_000,
        concurrency: 32,
        cool_secs: 60,
        conversations: 20_000,
        messages: 40,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).expect("a value after the option");
        match pair[0].as_str() {
            "--server" => options.server = PathBuf::from(value),
            "--users" => options.users = value.parse().expect("a number of users"),
            "--concurrency" => options.concurrency = value.parse::<usize>().expect("a number").max(1),
            "--cool-secs" => options.cool_secs = value.parse().expect("seconds"),
            "--steady-secs" => {
                let _ = STEADY.set(Duration::from_secs(value.parse().expect("seconds")));
            }
            "--conversations" => options.conversations = value.parse().expect("a number of conversations"),
            "--messages" => options.messages = value.parse().expect("a number of messages"),
            other => panic!(
                "unknown option {other}: --server PATH, --users N, --concurrency N, --cool-secs N, \
                 --conversations N, --messages N, --steady-secs N"
            ),
        }
    }
    options
}

/// How long after their last use the users' actors have surely cooled: a sweep after
/// `cool_secs`, and a little slack.
fn cooling(cool_secs: u64) -> Duration {
    let cool = Duration::from_secs(cool_secs);
    cool + SWEEP.min(cool) + Duration::from_secs(2)
}

/// Resident memory of a process once it stopped falling (`STEADY`), in KiB.
async fn settled_rss_kib(pid: u32) -> u64 {
    settled_rss_kib_after(pid, Duration::ZERO).await
}

/// The same, the memory having to hold still `more` beyond `STEADY`.
async fn settled_rss_kib_after(pid: u32, more: Duration) -> u64 {
    let deadline = Instant::now() + SETTLE_AT_MOST;
    let mut lowest = rss_kib(pid);
    let mut since = Instant::now();
    let steady = *STEADY.get_or_init(|| Duration::from_secs(5)) + more;
    while since.elapsed() < steady && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = rss_kib(pid);
        if now < lowest {
            lowest = now;
            since = Instant::now();
        }
    }
    lowest
}

/// Resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process is alive");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .expect("VmRSS")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--empty-actors") {
        let count = args.get(2).and_then(|n| n.parse().ok()).expect("--empty-actors N");
        empty_actors(count);
        return;
    }
    actix_rt::System::new().block_on(ours(options()));
}

/// The peer: `count` actors holding nothing, kept in a map; prints the memory they took,
/// in bytes an actor.
fn empty_actors(count: usize) {
    struct Empty;
    impl Actor for Empty {
        type Context = Context<Self>;
    }
    actix_rt::System::new().block_on(async move {
        let arbiters: Vec<Arbiter> = (0..2).map(|_| Arbiter::new()).collect();
        let before = settled_rss_kib(std::process::id()).await;
        let mut actors: HashMap<String, Addr<Empty>> = HashMap::new();
        for n in 0..count {
            let home = arbiters[n % arbiters.len()].handle();
            actors.insert(format!("u{n:019}"), Empty::start_in_arbiter(&home, |_| Empty));
        }
        tokio::time::sleep(SETTLE).await;
        let after = settled_rss_kib(std::process::id()).await;
        println!("{}", (after.saturating_sub(before) * 1024) as f64 / count as f64);
        drop(actors);
        for arbiter in arbiters {
            arbiter.stop();
        }
    });
}

async fn ours(options: Options) {
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let store = EmbeddedStore::open(&data).unwrap().into_store();
    let started = Instant::now();
    let vouchers = make_users(&store, options.users).await;
    println!("{} users and sessions made in the store in {:.1} s", options.users, started.elapsed().as_secs_f64());
    assert!(options.conversations < options.users, "fewer conversations than users (one each, the first user aside)");
    let started = Instant::now();
    let conversations = make_conversations(&store, options.conversations, options.messages).await;
    println!(
        "{} conversations of {} messages made in the store in {:.1} s",
        conversations.len(),
        options.messages,
        started.elapsed().as_secs_f64()
    );
    drop(store);

    let port = free_port();
    let mut server = start_server(&options.server, &data, port, options.users, options.cool_secs, None);
    wait_ready(&mut server, port).await;
    // One socket first, so that what every node holds once (the catalogue, the session
    // table's first pages, the socket machinery) is in the baseline.
    open_and_leave(port, &vouchers[0]).await;
    let before = settled_rss_kib(server.id()).await;

    let started = Instant::now();
    let mut next = 1;
    let mut running = futures_util::stream::FuturesUnordered::new();
    while next < vouchers.len() || !running.is_empty() {
        while running.len() < options.concurrency && next < vouchers.len() {
            running.push(open_and_leave(port, &vouchers[next]));
            next += 1;
        }
        running.next().await;
    }
    let opened = started.elapsed();
    let last_left = Instant::now();
    tokio::time::sleep(SETTLE).await;
    let warm = settled_rss_kib(server.id()).await;
    let idle = options.users - 1;
    let bytes_each = |after: u64| (after.saturating_sub(before) * 1024) as f64 / idle as f64;
    println!(
        "{idle} users came and left ({:.0} sockets/s): server RSS {before} KiB → {warm} KiB, \
         {:.0} bytes a user actor still warm",
        idle as f64 / opened.as_secs_f64(),
        bytes_each(warm)
    );
    // A sweep past the cooling time, then memory again (the sessions' recheck, 30 s, is
    // within the default cooling time; a smoke run with less does not wait for it).
    let cooled_by = last_left + cooling(options.cool_secs);
    tokio::time::sleep(cooled_by.saturating_duration_since(Instant::now())).await;
    let cooled = settled_rss_kib(server.id()).await;
    let per_actor = bytes_each(cooled);

    // Resident conversations: each opened by its user, then memory once the users' actors
    // (warmed by the requests) have cooled again.
    let client = reqwest::Client::new();
    let started = Instant::now();
    let opened = open_conversations(&client, port, &vouchers, &conversations, options.concurrency).await;
    let opening = started.elapsed();
    let last_opened = Instant::now();
    let cooled_by = last_opened + cooling(options.cool_secs);
    tokio::time::sleep(cooled_by.saturating_duration_since(Instant::now())).await;
    let resident = settled_rss_kib(server.id()).await;
    let per_conversation = (resident.saturating_sub(cooled) * 1024) as f64 / conversations.len() as f64;
    let text_each = opened.text_bytes as f64 / conversations.len() as f64;
    let _ = server.kill();
    let _ = server.wait();
    println!(
        "{} conversations opened in {:.1} s ({} messages held): server RSS {cooled} KiB → {resident} KiB, \
         {per_conversation:.0} bytes a resident conversation; the text of its messages {text_each:.0} bytes",
        conversations.len(),
        opening.as_secs_f64(),
        opened.messages
    );

    // Under a budget: a fresh server, room for about half of the conversations.
    let start_kib = {
        let port = free_port();
        let mut probe = start_server(&options.server, &data, port, options.users, options.cool_secs, None);
        wait_ready(&mut probe, port).await;
        open_and_leave(port, &vouchers[0]).await;
        let kib = settled_rss_kib(probe.id()).await;
        let _ = probe.kill();
        let _ = probe.wait();
        kib
    };
    let budget_mib = (start_kib * 1024 + (per_conversation * conversations.len() as f64 / 2.0) as u64) / (1024 * 1024);
    let port = free_port();
    let mut server = start_server(&options.server, &data, port, options.users, options.cool_secs, Some(budget_mib));
    wait_ready(&mut server, port).await;
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let watch = {
        let (peak, pid) = (peak.clone(), server.id());
        tokio::spawn(async move {
            loop {
                peak.fetch_max(rss_kib(pid), std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    open_conversations(&client, port, &vouchers, &conversations, options.concurrency).await;
    tokio::time::sleep(SETTLE).await;
    let under_budget = settled_rss_kib_after(server.id(), BLOCKING_THREADS_END).await;
    watch.abort();
    // Every conversation again, whole: shedding lost nothing.
    let again = open_conversations(&client, port, &vouchers, &conversations, options.concurrency).await;
    assert_eq!(again.messages, opened.messages, "every message of every conversation read again after shedding");
    let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
    let _ = server.kill();
    let _ = server.wait();
    println!(
        "under a budget of {budget_mib} MiB (started at {} MiB): RSS {} MiB once settled, {} MiB at the peak; \
         all {} messages read again",
        start_kib / 1024,
        under_budget / 1024,
        peak / 1024,
        again.messages
    );

    let peer = peer_bytes(idle);
    println!(
        "once cooled: server RSS {cooled} KiB, {per_actor:.0} bytes an idle user actor; \
         actix's empty actor kept in a map: {peer:.0} bytes"
    );
    bench_record::record(
        "actors.user",
        per_actor / 1024.0,
        peer / 1024.0,
        "KiB",
        &format!(
            "{idle} users each opened a socket, waited for hello and left; RSS growth of the server \
             over them once it stopped falling, after the actors cooled ({} s without use: the \
             cached account given back); while still warm {:.2} KiB",
            options.cool_secs,
            bytes_each(warm) / 1024.0
        ),
    );
    bench_record::record(
        "actors.conversation",
        per_conversation / 1024.0,
        text_each / 1024.0,
        "KiB",
        &format!(
            "{} conversations of {} messages, each opened by its user (its newest 60 messages and its memories \
             held by the character's actor); RSS growth once the users' actors cooled again",
            conversations.len(),
            options.messages
        ),
    );
    bench_record::record(
        "actors.budget",
        (under_budget / 1024) as f64,
        budget_mib as f64,
        "MiB",
        &format!(
            "a fresh server started at {} MiB with actors.memory_budget_mib = {budget_mib} (room for about half of \
             them) opened the {} conversations: RSS once settled; peak {} MiB; every one read again whole afterwards",
            start_kib / 1024,
            conversations.len(),
            peak / 1024
        ),
    );
}

fn bench_user_id(n: usize) -> UserId {
    UserId::parse(&format!("ubench{n:014}")).unwrap()
}

/// `count` users with a session each, straight in the store: their vouchers.
async fn make_users(store: &Store, count: usize) -> Vec<String> {
    let mut vouchers = Vec::with_capacity(count);
    for n in 0..count {
        let user_id = bench_user_id(n);
        store
            .users
            .create(NewUser {
                user_id: user_id.clone(),
                user_no: UserNo::from_random(n as u32),
                user_name: format!("User {n}"),
                email: None,
                discord_email: None,
                google_subject: None,
                discord_id: None,
                utm_source: String::new(),
                language: "en".into(),
                created_at: 0,
            })
            .await
            .unwrap();
        let voucher = amora_server::auth::random_token();
        store
            .sessions
            .create(SessionRecord {
                token_hash: amora_server::auth::token_hash(&voucher),
                user_id,
                created_at: 0,
                expires_at: i64::MAX / 2,
            })
            .await
            .unwrap();
        vouchers.push(voucher);
    }
    vouchers
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn start_server(
    binary: &Path,
    data: &Path,
    port: u16,
    users: usize,
    cool_secs: u64,
    memory_budget_mib: Option<u64>,
) -> Child {
    Command::new(binary)
        .env("AMORA_HTTP__HOST", "127.0.0.1")
        .env("AMORA_HTTP__PORT", port.to_string())
        .env("AMORA_STORE__DATA_DIR", data)
        .env("AMORA_LOG__FILTER", "warn")
        .env("AMORA_CHAT__PRELOAD", "false")
        // Every actor stays: the figure is of actors held, not of eviction.
        .env("AMORA_ACTORS__MAX_USERS", (users + 1000).to_string())
        .env("AMORA_ACTORS__IDLE_SECS", "86400")
        .env("AMORA_ACTORS__COOL_SECS", cool_secs.to_string())
        .env("AMORA_ACTORS__MEMORY_BUDGET_MIB", memory_budget_mib.unwrap_or(0).to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the amora binary starts (--server PATH)")
}

async fn wait_ready(server: &mut Child, port: u16) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(response) = reqwest::get(format!("http://127.0.0.1:{port}/readyz")).await
            && response.status() == 200
        {
            return;
        }
        assert!(server.try_wait().unwrap().is_none(), "the server exited");
        assert!(Instant::now() < deadline, "the server did not become ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Opens a socket as the holder of `voucher`, waits for `hello`, and closes it.
async fn open_and_leave(port: u16, voucher: &str) {
    let url = format!("ws://127.0.0.1:{port}/lust/api/ws?voucher={voucher}");
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.expect("the socket opens");
    while let Some(message) = socket.next().await {
        if let Message::Text(text) = message.expect("a frame")
            && text.contains("\"hello\"")
        {
            break;
        }
    }
    let _ = socket.close(None).await;
    while socket.next().await.is_some() {}
}

/// The peer's figure: this program again, with `--empty-actors`.
fn peer_bytes(count: usize) -> f64 {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--empty-actors", &count.to_string()])
        .output()
        .expect("the peer runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().parse().expect("the peer prints bytes an actor")
}

/// The bench's secret key (`secretKey`): 32 letters and digits, as browsers make them.
const SECRET: &str = "BenchSecretKey0123456789abcdefXY";

/// The free characters of the catalogue (`store/src/seed/characters.json`).
fn free_characters() -> Vec<CharacterId> {
    let seeds: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("../../store/src/seed/characters.json")).expect("the seed catalogue");
    seeds
        .iter()
        .filter(|seed| seed["usedType"] == 0 && seed["restricted"] != true)
        .map(|seed| CharacterId::parse(seed["key"].as_str().expect("a key")).expect("a character id"))
        .collect()
}

/// A message of a conversation: the lengths chat messages have, from a line to a paragraph.
fn message_text(conversation: usize, index: usize) -> String {
    const SENTENCES: [&str; 6] = [
        "I just got home and the rain has not stopped all afternoon.",
        "Tell me about the place you grew up, I keep thinking about it.",
        "We should go to that little cafe by the river again this weekend.",
        "My sister called, she is moving to Porto next month for work.",
        "Honestly I missed talking to you today, it was a long one.",
        "The cat knocked my plant over again, so now it lives on the shelf.",
    ];
    let sentences = 1 + (conversation * 7 + index * 3) % 4;
    (0..sentences).map(|k| SENTENCES[(conversation + index + k) % SENTENCES.len()]).collect::<Vec<_>>().join(" ")
}

/// `count` conversations in the store, conversation `n` of user `n + 1` with a free
/// catalogue character, `messages` long (user and character in turn): their characters.
async fn make_conversations(store: &Store, count: usize, messages: usize) -> Vec<CharacterId> {
    amora_actors::seeding::seed_catalogue(store).await.unwrap();
    let characters = free_characters();
    let mut chosen = Vec::with_capacity(count);
    for n in 0..count {
        let user_id = bench_user_id(n + 1);
        let character = characters[n % characters.len()].clone();
        for index in 0..messages {
            let speaker = if index % 2 == 0 { Speaker::User } else { Speaker::Character };
            let message = StoredMessage {
                message_id: amora_actors::chat::new_entry_id(),
                speaker,
                content: message_text(n, index),
                image: None,
            };
            store.conversations.append(&user_id, &character, message).await.unwrap();
        }
        chosen.push(character);
    }
    chosen
}

/// What opening conversations answered: messages and the bytes of their text.
#[derive(Default)]
struct Opened {
    messages: usize,
    text_bytes: usize,
}

/// Opens conversation `n` as user `n + 1` (the newest 60 messages), `concurrency` at once.
async fn open_conversations(
    client: &reqwest::Client,
    port: u16,
    vouchers: &[String],
    characters: &[CharacterId],
    concurrency: usize,
) -> Opened {
    let key = amora_server::envelope::EnvelopeKey::from_secret(SECRET).unwrap();
    let mut total = Opened::default();
    let mut next = 0;
    let mut running = futures_util::stream::FuturesUnordered::new();
    while next < characters.len() || !running.is_empty() {
        while running.len() < concurrency && next < characters.len() {
            running.push(open_conversation(client, &key, port, &vouchers[next + 1], &characters[next]));
            next += 1;
        }
        if let Some((messages, text_bytes)) = running.next().await {
            total.messages += messages;
            total.text_bytes += text_bytes;
        }
    }
    total
}

/// `chat/getMessageList` of one conversation, 60 messages: how many came and their text's bytes.
async fn open_conversation(
    client: &reqwest::Client,
    key: &amora_server::envelope::EnvelopeKey,
    port: u16,
    voucher: &str,
    character: &CharacterId,
) -> (usize, usize) {
    let payload = serde_json::json!({ "characterId": character.as_str(), "pageSize": 60 });
    let body = serde_json::json!({ "requestData": key.encrypt(payload.to_string().as_bytes()) });
    let response = client
        .post(format!("http://127.0.0.1:{port}/lust/api/user/v1/chat/getMessageList"))
        .header("secretKey", SECRET)
        .header("voucher", voucher)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("the request is answered");
    let sealed: serde_json::Value = response.json().await.expect("a JSON answer");
    let plain = key.decrypt(sealed["responseData"].as_str().expect("responseData")).expect("decrypts");
    let envelope: serde_json::Value = serde_json::from_slice(&plain).expect("the envelope");
    assert_eq!(envelope["code"], 200, "{envelope}");
    let messages = envelope["data"]["messages"].as_array().expect("messages");
    let text = messages.iter().map(|m| m["content"].as_str().map_or(0, str::len)).sum();
    (messages.len(), text)
}
