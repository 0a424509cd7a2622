//! One row of issue 19's targets table ("Against the peers" in BENCHMARKS.md), for the
//! Rust benchmarks (`#[path]`-included by the examples that record rows): appended as a JSON
//! line to `$AMORA_BENCH_RESULTS` when `scripts/bench` runs them, nothing otherwise. The
//! shell parts record with `bench_record` of scripts/lib/bench.sh, in the same shape;
//! scripts/lib/bench_report.py dates the rows and defines each row's label and target.

/// `ours` and `peer` in `unit`; `note` is what the reader should know about this run.
pub fn record(row: &str, ours: f64, peer: f64, unit: &str, note: &str) {
    let Ok(path) = std::env::var("AMORA_BENCH_RESULTS") else { return };
    let line = serde_json::json!({
        "row": row, "ours": ours, "peer": peer, "unit": unit, "note": note,
        "command": std::env::var("AMORA_BENCH_COMMAND").unwrap_or_default(),
    });
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&path).expect("the results file opens");
    std::io::Write::write_all(&mut file, format!("{line}\n").as_bytes()).expect("the results file is written");
}
