//! What a regex-heavy lorebook costs (BENCHMARKS.md "Lorebook"): the card of issue 28
//! (22,500 `use_regex` keys) scanned the old way (every key compiled at every scan, three
//! scans a turn) and the new way (refused on import; a card stored before the limits
//! compiled once within them, then scanned within the time budget).
//!
//! `cargo run --release -p amora-cards --example lorebook_scan [-- --after-only]`

use std::time::{Duration, Instant};

use amora_cards::{CompiledLorebook, Limits, LoreScan, Lorebook, LorebookEntry, lorebook};

fn entry(keys: Vec<String>, use_regex: bool, n: usize) -> LorebookEntry {
    LorebookEntry { keys, content: format!("Entry {n}."), use_regex, ..LorebookEntry::default() }
}

fn main() {
    // 900 entries of 25 regex keys: 22,500, as in the card that stalled the engine.
    let entries = (0..900)
        .map(|e| entry((0..25).map(|k| format!(r"/\bname{e}x{k}\w*\b/i")).collect(), true, e))
        .collect::<Vec<_>>();
    let book = Lorebook { entries, ..Lorebook::default() };
    let chat: Vec<String> = (0..4)
        .map(|i| format!("Message {i}: the lighthouse keeper talks of name17x3 and the storm, at length. ").repeat(8))
        .collect();
    let scan = LoreScan { default_scan_depth: 4, token_budget: 400 };
    let words = |t: &str| t.split_whitespace().count();
    let unbounded = Limits { max_regex_keys: usize::MAX, max_lorebook_keys: usize::MAX, ..Limits::default() };

    // Before: each scan compiled every key; a turn made three scans (minutes: `--after-only`
    // skips it). Its compiled keys are dropped before the rest is timed, as the old code
    // dropped them after each scan.
    if !std::env::args().any(|arg| arg == "--after-only") {
        let started = Instant::now();
        let compiled = CompiledLorebook::new(book.clone(), &unbounded);
        let hits = compiled.scan(&chat, scan, None, words).entries.len();
        let old_scan = started.elapsed();
        drop(compiled);
        println!(
            "before: one scan (compile 22,500 keys + match) {old_scan:?}, a turn (3 scans) ~{:?}, hits {hits}",
            old_scan * 3
        );
    }

    // After: import refuses the card.
    let started = Instant::now();
    let refused = lorebook::check(&book, &Limits::default());
    println!("after: import check {:?} -> {:?}", started.elapsed(), refused.map_err(|e| e.code()));

    // After: a card stored before the limits is compiled once, within them...
    let started = Instant::now();
    let compiled = CompiledLorebook::new(book.clone(), &Limits::default());
    println!(
        "after: compile once (stored card, {} regex keys kept, {} skipped) {:?}",
        compiled.regex_keys(),
        compiled.skipped().len(),
        started.elapsed()
    );
    // ...and each scan only matches.
    let runs = 100;
    let started = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(compiled.scan(&chat, scan, Some(Duration::from_millis(200)), words));
    }
    println!("after: one scan {:?} (mean of {runs})", started.elapsed() / runs);

    // The largest book import takes: 500 regex keys and 9,500 plain keys.
    let mut entries: Vec<LorebookEntry> =
        (0..500).map(|e| entry(vec![format!(r"/\bname{e}\w*\b/i")], true, e)).collect();
    entries.extend((0..950).map(|e| entry((0..10).map(|k| format!("word{e}x{k}")).collect(), false, 500 + e)));
    let largest = Lorebook { entries, ..book.clone() };
    lorebook::check(&largest, &Limits::default()).unwrap_or_else(|e| panic!("within the limits: {e}"));
    let started = Instant::now();
    let compiled = CompiledLorebook::new(largest, &Limits::default());
    let compile = started.elapsed();
    let started = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(compiled.scan(&chat, scan, Some(Duration::from_millis(200)), words));
    }
    println!(
        "largest importable book: compile once {compile:?}, one scan {:?} (mean of {runs})",
        started.elapsed() / runs
    );
}
