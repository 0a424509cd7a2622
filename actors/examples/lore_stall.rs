//! How long a regex-heavy lorebook holds the thread that drives the character actors and
//! the model's streams (BENCHMARKS.md "Lorebook"): on that thread (an actix arbiter: one
//! thread for many actors) a ticker wakes every millisecond, standing for another user's
//! reply being streamed; the longest gap between its ticks is how long that user waited.
//! Measured while one reply's lore is chosen for the card of issue 28 (22,500 regex keys):
//! before, three scans on that thread, each compiling every key; after, one scan on the
//! blocking pool (`lore::choose_off_thread`) of the keys compiled once when the card was
//! read (within the limits a card stored before them is held to).
//!
//! `cargo run --release -p amora-actors --example lore_stall [-- --after-only]`

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use amora_actors::chat::lore::{MAX_SCANS_AT_ONCE, choose_off_thread};
use amora_cards::{CompiledLorebook, Limits, LoreScan, Lorebook, LorebookEntry};
use amora_domain::chat::{EntryId, HistoryMessage, Speaker};

/// Before: three scans a turn on the actors' thread, each compiling all 22,500 keys.
async fn before(book: &Lorebook, recent: &[&str], scan: LoreScan, words: fn(&str) -> usize) {
    let unbounded = Limits { max_regex_keys: usize::MAX, max_lorebook_keys: usize::MAX, ..Limits::default() };
    let started = Instant::now();
    let held = longest_gap(async {
        for _ in 0..3 {
            let compiled = CompiledLorebook::new(book.clone(), &unbounded);
            std::hint::black_box(compiled.scan(recent, scan, None, words).entries.len());
        }
    })
    .await;
    println!("before: the turn's scans took {:?}; the actors' thread was held {held:?}", started.elapsed());
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The longest gap between the ticker's ticks while `work` runs on this thread.
async fn longest_gap<F: std::future::Future<Output = ()>>(work: F) -> Duration {
    let longest = Rc::new(Cell::new(Duration::ZERO));
    let running = Rc::new(Cell::new(true));
    let ticker = {
        let (longest, running) = (Rc::clone(&longest), Rc::clone(&running));
        actix_rt::spawn(async move {
            let mut last = Instant::now();
            while running.get() {
                actix_rt::time::sleep(Duration::from_millis(1)).await;
                let now = Instant::now();
                longest.set(longest.get().max(now - last));
                last = now;
            }
        })
    };
    actix_rt::time::sleep(Duration::from_millis(20)).await;
    work.await;
    actix_rt::time::sleep(Duration::from_millis(20)).await;
    running.set(false);
    let _ = ticker.await;
    longest.get()
}

#[actix_rt::main]
async fn main() {
    let entries: Vec<LorebookEntry> = (0..900)
        .map(|e| LorebookEntry {
            keys: (0..25).map(|k| format!(r"/\bname{e}x{k}\w*\b/i")).collect(),
            content: format!("Entry {e}."),
            use_regex: true,
            ..LorebookEntry::default()
        })
        .collect();
    let book = Lorebook { entries, ..Lorebook::default() };
    let history: Vec<HistoryMessage> = (0..4)
        .map(|i| HistoryMessage {
            id: EntryId::from_raw(i),
            speaker: Speaker::User,
            content: "The lighthouse keeper talks of name17x3 and the storm, at length. ".repeat(8),
        })
        .collect();
    let scan = LoreScan { default_scan_depth: 2, token_budget: 400 };
    let recent: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();

    // Before: three scans a turn on the actors' thread, each compiling all 22,500 keys
    // (minutes: `--after-only` skips it; the thread is held for all of it by construction).
    if !std::env::args().any(|arg| arg == "--after-only") {
        before(&book, &recent, scan, words).await;
    }

    // After: compiled once when the card is read (a stored card: within the limits)...
    let started = Instant::now();
    let compiled = Arc::new(CompiledLorebook::new(book, &Limits::default()));
    println!("after: compiled once in {:?} ({} regex keys kept)", started.elapsed(), compiled.regex_keys());
    // ...and one scan a reply, off the thread.
    let scans = tokio::sync::Semaphore::new(MAX_SCANS_AT_ONCE);
    let started = Instant::now();
    let after = longest_gap(async {
        let chosen = choose_off_thread(&scans, Some(Arc::clone(&compiled)), history.clone(), 400, words).await;
        std::hint::black_box(chosen.entries().len());
    })
    .await;
    println!("after: the reply's scan took {:?}; the actors' thread was held {after:?}", started.elapsed());
}
