//! Latency of the store's hot queries, one at a time, as a markdown row per query for
//! BENCHMARKS.md: a home-grid page of 30 cards, a chat history page of 30 messages, and a
//! coin debit (the ledger's compare-and-set).
//!
//! ```sh
//! cargo run --release -p amora-store --example store_bench -- embedded
//! cargo run --release -p amora-store --example store_bench -- cql 127.0.0.1:9042
//! ```
//! (`scripts/bench-store` runs both, starting Cassandra from the cache.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use amora_domain::account::{UserId, UserNo};
use amora_domain::character::CharacterId;
use amora_domain::chat::{MessageId, Speaker};
use amora_domain::gender::Gender;
use amora_domain::money::{Coins, TxnId};
use amora_domain::paging::PageRequest;
use amora_domain::viewer::Viewer;
use amora_store::cql::{CqlSettings, CqlStore};
use amora_store::embedded::EmbeddedStore;
use amora_store::{LedgerEntry, MediaObject, NewUser, Store, StoredMessage};

const WARM_UP: usize = 100;
const RUNS: usize = 2_000;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let _dir = tempfile::tempdir().unwrap();
    let (label, store) = match args.first().map(String::as_str) {
        Some("embedded") => {
            let path = _dir.path().to_owned();
            let store = tokio::task::spawn_blocking(move || EmbeddedStore::open(&path)).await.unwrap().unwrap();
            ("embedded (SQLite file)".to_owned(), store.into_store())
        }
        Some("cql") => {
            let node = args.get(1).cloned().unwrap_or_else(|| "127.0.0.1:9042".into());
            let keyspace = format!("bench_{}", std::process::id());
            let store = CqlStore::connect(CqlSettings::local(&node, &keyspace)).await.unwrap();
            (format!("Cassandra 5.0 ({node})"), store.into_store())
        }
        _ => panic!("usage: bench embedded | bench cql [host:port]"),
    };
    // The bench measures the store: the catalogue's pictures are blank SVGs of the right
    // size (the illustrator that draws them lives in the ai crate, not a store dependency).
    let blank = |_: &amora_domain::appearance::Look, _: Gender, _: amora_domain::appearance::Shot| MediaObject {
        content_type: "image/svg+xml".into(),
        bytes: br#"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800"/>"#.to_vec(),
    };
    amora_store::seed::ensure_catalogue(&store, &blank).await.unwrap();
    let user = bench_user(&store).await;
    let character = CharacterId::parse("gf-002").unwrap();
    for n in 0..200 {
        let speaker = if n % 2 == 0 { Speaker::User } else { Speaker::Character };
        let message = StoredMessage {
            message_id: MessageId::from_raw(1_000 + n),
            speaker,
            content: format!("message {n} of the bench"),
            image: None,
        };
        store.conversations.append(&user, &character, message).await.unwrap();
    }
    let credit = LedgerEntry {
        user_id: user.clone(),
        txn_id: TxnId::parse("grant").unwrap(),
        delta: Coins::stored(1_000_000),
        reason: "bench".into(),
        created_at: 0,
    };
    store.ledger.apply(credit).await.unwrap();

    let page = PageRequest::parse(2, 30).unwrap();
    let cards = measure(|| async {
        assert_eq!(store.characters.list_cards(Gender::Girls, Viewer::Member, page).await.unwrap().len(), 30)
    })
    .await;
    let history = measure(|| async {
        assert_eq!(store.conversations.messages(&user, &character, None, 30).await.unwrap().len(), 30)
    })
    .await;
    let mut n = 0;
    let debit = measure(|| {
        n += 1;
        let entry = LedgerEntry {
            user_id: user.clone(),
            txn_id: TxnId::parse(&format!("debit-{n}")).unwrap(),
            delta: Coins::stored(-1),
            reason: "bench".into(),
            created_at: 0,
        };
        let store = store.clone();
        async move {
            store.ledger.apply(entry).await.unwrap();
        }
    })
    .await;
    println!("| {label} | character page (30 cards, page 2) | {} |", row(&cards));
    println!("| {label} | chat history page (30 of 200 messages) | {} |", row(&history));
    println!("| {label} | coin debit (ledger compare-and-set) | {} |", row(&debit));
}

async fn bench_user(store: &Store) -> UserId {
    let user_id = UserId::parse("benchuser").unwrap();
    let user = NewUser {
        user_id: user_id.clone(),
        user_no: UserNo::from_random(4242),
        user_name: "Bench".into(),
        email: None,
        discord_email: None,
        google_subject: None,
        discord_id: None,
        utm_source: String::new(),
        language: "en".into(),
        created_at: 0,
    };
    store.users.create(user).await.unwrap();
    user_id
}

/// Runs `query` WARM_UP times unmeasured, then RUNS times; the sorted latencies.
async fn measure<F, Fut>(mut query: F) -> Vec<Duration>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..WARM_UP {
        query().await;
    }
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let start = Instant::now();
        query().await;
        times.push(start.elapsed());
    }
    times.sort();
    times
}

fn row(sorted: &[Duration]) -> String {
    let at = |q: f64| sorted[((sorted.len() as f64 * q) as usize).min(sorted.len() - 1)];
    let ms = |d: Duration| format!("{:.2}", d.as_secs_f64() * 1000.0);
    format!("{} | {} | {} | {}", ms(at(0.5)), ms(at(0.99)), ms(*sorted.last().unwrap()), sorted.len())
}
