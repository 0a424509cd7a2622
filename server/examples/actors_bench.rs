//! Memory per idle user actor (issue 35, "actors at scale"): a release `amora` process on
//! a SQLite store, and N users who each opened a WebSocket (which starts their actor and
//! reads their account), waited for `hello` and left. The server's resident memory grows
//! by what N idle actors hold: the actor and its mailbox, the registry's entry, the cached
//! account and session. The peer is actix's floor: the same number of actors that hold
//! nothing, spread over two arbiters, their addresses kept in a map by a 20-character id as
//! the registry keeps ours (this program run with `--empty-actors N`, in its own process).
//!
//! Run by `scripts/bench-actors`. Options: `--server PATH` (the `amora` binary), `--users N`
//! (100,000), `--concurrency N` (sockets opening at once: 32).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../scripts/lib/bench_record.rs"]
mod bench_record;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use actix::{Actor, Addr, Arbiter, Context};
use amora_domain::account::{UserId, UserNo};
use amora_store::embedded::EmbeddedStore;
use amora_store::{NewUser, SessionRecord, Store};
use futures_util::StreamExt;
use tokio_tungstenite::tungstenite::Message;

/// Time for the actors to start before memory is read.
const SETTLE: Duration = Duration::from_secs(3);
/// mimalloc hands freed memory back over seconds (RSS fell for ~13 s after sockets opened,
/// BENCHMARKS.md "Memory per idle socket"): memory is read once it has not fallen for this
/// long…
const STEADY: Duration = Duration::from_secs(5);
/// …or after this long at most.
const SETTLE_AT_MOST: Duration = Duration::from_secs(60);

struct Options {
    server: PathBuf,
    users: usize,
    concurrency: usize,
}

fn options() -> Options {
    let mut options = Options { server: PathBuf::from("target/release/amora"), users: 100_000, concurrency: 32 };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).expect("a value after the option");
        match pair[0].as_str() {
            "--server" => options.server = PathBuf::from(value),
            "--users" => options.users = value.parse().expect("a number of users"),
            "--concurrency" => options.concurrency = value.parse::<usize>().expect("a number").max(1),
            other => panic!("unknown option {other}: --server PATH, --users N, --concurrency N"),
        }
    }
    options
}

/// Resident memory of a process once it stopped falling (`STEADY`), in KiB.
async fn settled_rss_kib(pid: u32) -> u64 {
    let deadline = Instant::now() + SETTLE_AT_MOST;
    let mut lowest = rss_kib(pid);
    let mut since = Instant::now();
    while since.elapsed() < STEADY && Instant::now() < deadline {
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

    let port = free_port();
    let mut server = start_server(&options.server, &data, port, options.users);
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
    tokio::time::sleep(SETTLE).await;
    let after = settled_rss_kib(server.id()).await;
    let idle = options.users - 1;
    let per_actor = (after.saturating_sub(before) * 1024) as f64 / idle as f64;
    let _ = server.kill();
    let _ = server.wait();

    let peer = peer_bytes(idle);
    println!(
        "{idle} users came and left ({:.0} sockets/s): server RSS {before} KiB → {after} KiB, \
         {per_actor:.0} bytes an idle user actor; actix's empty actor kept in a map: {peer:.0} bytes",
        idle as f64 / opened.as_secs_f64()
    );
    bench_record::record(
        "actors.user",
        per_actor / 1024.0,
        peer / 1024.0,
        "KiB",
        &format!(
            "{idle} users each opened a socket, waited for hello and left; RSS growth of the server \
             over them once it stopped falling (the account, session and registry entry included)"
        ),
    );
}

/// `count` users with a session each, straight in the store: their vouchers.
async fn make_users(store: &Store, count: usize) -> Vec<String> {
    let mut vouchers = Vec::with_capacity(count);
    for n in 0..count {
        let user_id = UserId::parse(&format!("ubench{n:014}")).unwrap();
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

fn start_server(binary: &Path, data: &Path, port: u16, users: usize) -> Child {
    Command::new(binary)
        .env("AMORA_HTTP__HOST", "127.0.0.1")
        .env("AMORA_HTTP__PORT", port.to_string())
        .env("AMORA_STORE__DATA_DIR", data)
        .env("AMORA_LOG__FILTER", "warn")
        .env("AMORA_CHAT__PRELOAD", "false")
        // Every actor stays: the figure is of actors held, not of eviction.
        .env("AMORA_ACTORS__MAX_USERS", (users + 1000).to_string())
        .env("AMORA_ACTORS__IDLE_SECS", "86400")
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
