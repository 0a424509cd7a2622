//! The catalogue at scale (issue 19): seeds a store with N characters and times home-grid
//! pages 1 and 2 and one deep in the listing, as markdown rows for BENCHMARKS.md.
//!
//! ```sh
//! cargo run --release -p amora-store --example catalogue_scale -- embedded
//! cargo run --release -p amora-store --example catalogue_scale -- cql 127.0.0.1:9042
//! # options: --characters 100000 --deep-page 3000 --page-size 30 --runs 200
//! #          --data-dir DIR (embedded: keep the SQLite file there instead of a temporary folder)
//! ```
//!
//! The seeded catalogue: 95 % girls and 5 % guys (so that page 3,000 of 30 cards exists in
//! one gender at 100,000 characters), one in 50 restricted, one in 1,000 hidden by the
//! operator; ranks are shuffled against insertion order. Each timed page is also checked
//! against the order the catalogue must list in (rank, then id), so a fast wrong answer
//! fails the run. (`scripts/bench-catalogue` runs both stores; the test command runs a
//! small catalogue of each as a smoke.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../scripts/lib/bench_record.rs"]
mod bench_record;

use std::time::{Duration, Instant};

use amora_domain::character::{
    CardExtras, Character, CharacterAge, CharacterCard, CharacterId, CharacterStatus, Exposure, UsedType,
};
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::viewer::Viewer;
use amora_store::cql::{CqlSettings, CqlStore};
use amora_store::embedded::EmbeddedStore;
use amora_store::{CatalogueEntry, Store};
use futures_util::StreamExt;

struct Options {
    store: String,
    node: String,
    characters: u64,
    deep_page: u32,
    page_size: u32,
    runs: usize,
    data_dir: Option<std::path::PathBuf>,
}

fn options() -> Options {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        store: String::new(),
        node: "127.0.0.1:9042".into(),
        characters: 100_000,
        deep_page: 3_000,
        page_size: 30,
        runs: 200,
        data_dir: None,
    };
    let usage = "usage: catalogue_scale embedded|cql [host:port] [--characters N] [--deep-page P] [--page-size S] \
                 [--runs R] [--data-dir DIR]";
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value; {usage}"));
        match arg.as_str() {
            "--characters" => options.characters = value().parse().expect(usage),
            "--deep-page" => options.deep_page = value().parse().expect(usage),
            "--page-size" => options.page_size = value().parse().expect(usage),
            "--runs" => options.runs = value().parse().expect(usage),
            "--data-dir" => options.data_dir = Some(value().into()),
            "embedded" | "cql" if options.store.is_empty() => options.store = arg,
            node if options.store == "cql" && !node.starts_with("--") => options.node = node.to_owned(),
            _ => panic!("{usage}"),
        }
    }
    if options.store.is_empty() {
        panic!("{usage}");
    }
    options
}

/// The n-th seeded character: its gender, exposure, whether the operator hides it, and its
/// rank (a bijection of 0..count, so insertion order is not listing order).
struct Seeded {
    n: u64,
    rank: i64,
    gender: Gender,
    restricted: bool,
    hidden: bool,
}

fn seeded(n: u64, count: u64) -> Seeded {
    // Multiplying by a number coprime with `count` permutes 0..count.
    let mut step = 7_919u64;
    while gcd(step, count) != 1 {
        step += 2;
    }
    Seeded {
        n,
        rank: ((n * step) % count) as i64,
        gender: if n % 20 == 19 { Gender::Guys } else { Gender::Girls },
        restricted: n % 50 == 7,
        hidden: n % 1_000 == 500,
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn id_of(n: u64) -> String {
    format!("scale-{n:07}")
}

fn entry(seed: &Seeded) -> CatalogueEntry {
    let n = seed.n;
    let character = Character {
        card: CharacterCard {
            character_id: CharacterId::parse(&id_of(n)).unwrap(),
            character_name: format!("Character {n}"),
            character_age: CharacterAge::parse(18 + (n % 40) as i64).unwrap(),
            introduction: format!(
                "Character {n} of the catalogue at scale: a short introduction of about the length the home grid \
                 shows under a card, two sentences long. Likes long walks and longer talks."
            ),
            character_photo: format!("/media/scale-{n}.webp"),
            character_image_list: vec![format!("/media/scale-{n}-1.webp"), format!("/media/scale-{n}-2.webp")],
            used_type: UsedType::from_code((n % 2) as i64).unwrap(),
            gender: seed.gender,
        },
        personality: "warm, curious".into(),
        scenario: "a café at closing time".into(),
        greeting: "Hi {{user}}".into(),
        tags: vec![],
        creator_id: None,
        exposure: if seed.restricted { Exposure::Restricted } else { Exposure::Everyone },
        status: CharacterStatus::Public,
        extras: CardExtras::default(),
    };
    CatalogueEntry { character, rank: seed.rank }
}

#[tokio::main]
async fn main() {
    let options = options();
    let temporary = tempfile::tempdir().unwrap();
    let (label, store) = match options.store.as_str() {
        "embedded" => {
            let path = options.data_dir.clone().unwrap_or_else(|| temporary.path().to_owned());
            let store = tokio::task::spawn_blocking(move || EmbeddedStore::open(&path)).await.unwrap().unwrap();
            ("embedded (SQLite file)".to_owned(), store.into_store())
        }
        _ => {
            let keyspace = format!("catalogue_{}", std::process::id());
            let store = CqlStore::connect(CqlSettings::local(&options.node, &keyspace)).await.unwrap();
            (format!("Cassandra 5.0 ({})", options.node), store.into_store())
        }
    };
    let count = options.characters;
    let seeds: Vec<Seeded> = (0..count).map(|n| seeded(n, count)).collect();
    let started = Instant::now();
    // SQLite takes one writer at a time: big transactions one after another; CQL takes
    // many small writes at once.
    let (batch, parallel) = if options.store == "embedded" { (5_000, 1) } else { (100, 32) };
    seed(&store, &seeds, batch, parallel).await;
    let seeding = started.elapsed();
    eprintln!("seeded {count} characters in {:.1} s", seeding.as_secs_f64());

    let size = options.page_size;
    let mut member_p50_ms = Vec::new();
    println!("| store | characters | viewer | page (size {size}) | p50 ms | p99 ms | max ms | runs |");
    println!("|---|---|---|---|---|---|---|---|");
    for viewer in [Viewer::Member, Viewer::SignedOut] {
        let expected = listing(&seeds, viewer);
        // Page 2 as well: like a deep page (and unlike page 1) its first card sits inside a
        // block of the listing, so page 2 against the deep page is the cost of depth alone.
        for page_no in [1, 2, options.deep_page] {
            let page = PageRequest::parse(i64::from(page_no), i64::from(size)).unwrap();
            let start = page.offset() as usize;
            let want: Vec<&str> = expected.iter().skip(start).take(size as usize).map(|id| id.as_str()).collect();
            let times = measure(options.runs, || async {
                let cards = store.characters.list_cards(Gender::Girls, viewer, page).await.unwrap();
                let got: Vec<&str> = cards.iter().map(|card| card.character_id.as_str()).collect();
                assert_eq!(got, want, "page {page_no} for {viewer:?} lists what the catalogue holds");
            })
            .await;
            println!("| {label} | {count} | {viewer:?} | {page_no} | {} |", row(&times));
            if viewer == Viewer::Member {
                member_p50_ms.push(times[times.len() / 2].as_secs_f64() * 1000.0);
            }
        }
    }
    println!("\nseeding {count} characters: {:.1} s", seeding.as_secs_f64());
    // The row of issue 19's targets table: the deep page's cost against page 1's.
    let row_id = if options.store == "embedded" { "catalogue.sqlite" } else { "catalogue.cql" };
    let note = format!(
        "{count} characters, page {} against page 2 of {size} cards (page 1: {:.2} ms), p50 of {} runs, a member viewing",
        options.deep_page, member_p50_ms[0], options.runs
    );
    bench_record::record(row_id, member_p50_ms[2], member_p50_ms[1], "ms", &note);
}

/// Writes the catalogue through `CharacterRepo::upsert` in batches, several at once, then
/// hides the characters the operator hides.
async fn seed(store: &Store, seeds: &[Seeded], batch: usize, parallel: usize) {
    let batches: Vec<Vec<CatalogueEntry>> =
        seeds.chunks(batch).map(|chunk| chunk.iter().map(entry).collect()).collect();
    futures_util::stream::iter(batches)
        .map(|batch| store.characters.upsert(batch))
        .buffer_unordered(parallel)
        .for_each(|written| async move { written.unwrap() })
        .await;
    let hidden = seeds.iter().filter(|seed| seed.hidden);
    futures_util::stream::iter(hidden)
        .map(|seed| async move {
            assert!(store.characters.set_hidden(&CharacterId::parse(&id_of(seed.n)).unwrap(), true).await.unwrap())
        })
        .buffer_unordered(parallel)
        .collect::<Vec<()>>()
        .await;
}

/// The girls' catalogue as `viewer` must see it: listed, not hidden, by rank then id.
fn listing(seeds: &[Seeded], viewer: Viewer) -> Vec<String> {
    let mut visible: Vec<(i64, String)> = seeds
        .iter()
        .filter(|s| s.gender == Gender::Girls && !s.hidden && (viewer == Viewer::Member || !s.restricted))
        .map(|s| (s.rank, id_of(s.n)))
        .collect();
    visible.sort();
    visible.into_iter().map(|(_, id)| id).collect()
}

/// Runs `query` a tenth of `runs` times unmeasured, then `runs` times; the sorted latencies.
async fn measure<F, Fut>(runs: usize, mut query: F) -> Vec<Duration>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..runs.div_ceil(10) {
        query().await;
    }
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
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
