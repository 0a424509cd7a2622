//! Benchmark of the embedded chat model against llama.cpp's server on the same GGUF file
//! and the same thread count: time to first token and generation speed, one reply and
//! several at once, as a markdown table for BENCHMARKS.md. Ours is the llama.cpp engine
//! (`--engine llama_cpp`, the default) or candle (`--engine candle`).
//!
//! ```sh
//! eval "$(scripts/lib/model.sh env)"
//! CANDLE_NUM_THREADS=2 cargo run --release -p amora-ai --example bench -- --with-candle
//! ```
//!
//! Every run uses a fresh prompt (a run number leads the system message) so that neither
//! engine answers from a cached prefix; the figures are medians over the runs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../scripts/lib/bench_record.rs"]
mod bench_record;

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use amora_ai::chat::embedded::{candle_threads, converted_path};
use amora_ai::chat::{self, ChatMessage, ChatModel, ChatRequest, Engine, ModelSettings, Requantize, StreamEvent};
use clap::Parser;
use futures_util::StreamExt;
use support::llama_server::LlamaServer;

#[derive(Parser)]
struct Args {
    /// The GGUF file (default: $AMORA_MODEL_PATH).
    #[arg(long)]
    model: Option<PathBuf>,
    /// llama.cpp's server (default: $AMORA_LLAMA_SERVER).
    #[arg(long)]
    llama_server: Option<PathBuf>,
    /// Timed runs per engine (after one warm-up run).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Most tokens per reply.
    #[arg(long, default_value_t = 128)]
    max_tokens: u32,
    /// Also time the embedded model on the file as shipped (no conversion).
    #[arg(long)]
    with_unconverted: bool,
    /// Conversations replying at once in the batch rows (0: no batch rows).
    #[arg(long, default_value_t = 8)]
    batch: usize,
    /// Only the short prompt (the test command's smoke: seconds, not minutes).
    #[arg(long)]
    short_only: bool,
    /// Our engine: `llama_cpp` (the library at --llama-lib) or `candle`.
    #[arg(long, default_value = "llama_cpp")]
    engine: String,
    /// llama.cpp's in-process library (default: $AMORA_LLAMA_LIB).
    #[arg(long)]
    llama_lib: Option<PathBuf>,
    /// With the llama.cpp engine as ours, also time candle (rows only, not recorded).
    #[arg(long)]
    with_candle: bool,
    /// Our engine's prefix cache, in tokens (default: the setting's default).
    #[arg(long)]
    prefix_cache_tokens: Option<usize>,
}

struct Run {
    ttft: Duration,
    tokens: u32,
    tokens_per_s: f64,
    prompt_tokens: u32,
}

struct Row {
    engine: String,
    weights: String,
    runs: Vec<Run>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { f64::NAN } else { v[v.len() / 2] }
}

/// The conversation of one run: a short chat, or a long one (persona and history, about
/// 1,000 prompt tokens, like a chat a few dozen messages in).
fn request(run: usize, max_tokens: u32, long: bool) -> ChatRequest {
    let mut messages = vec![ChatMessage::system(format!(
        "Session {run}. You are Luna, a warm and playful storyteller who chats with the user. \
         Write vivid, flowing prose."
    ))];
    if long {
        let lines = [
            (
                "I just got back from the market, it was so crowded today.",
                "Oh no! Did you at least find the peaches you wanted? I remember you saying the ones last week were perfect.",
            ),
            (
                "Yes, I found them, and some fresh bread from the bakery on the corner.",
                "That bakery sounds lovely. I can almost smell the warm crust from here. What kind of bread did you pick?",
            ),
            (
                "A sourdough loaf with olives. My sister says it's the best in town.",
                "Your sister has excellent taste! Olive sourdough with a little butter is one of life's small joys.",
            ),
            (
                "She's visiting next weekend, we're planning a picnic by the river.",
                "A picnic by the river sounds wonderful. Are you going to bring the peaches and the bread along?",
            ),
            (
                "Probably, and maybe some cheese. Do you think it will rain?",
                "I hope not! But if it does, a picnic on the living room floor can be just as cozy, with the rain tapping on the windows.",
            ),
            (
                "Ha, that's true. We did that once when we were kids.",
                "That sounds like a precious memory. What do you remember most about that rainy day picnic?",
            ),
        ];
        for i in 0..3 {
            for (user, assistant) in lines {
                messages.push(ChatMessage::user(format!("{user} ({})", i + 1)));
                messages.push(ChatMessage::assistant(assistant));
            }
        }
    }
    messages.push(ChatMessage::user(
        "Tell me a long story about a lighthouse keeper and a cat who find a message in a bottle.",
    ));
    ChatRequest::new(messages).max_tokens(max_tokens).temperature(0.7).seed(42 + run as u64)
}

async fn time_reply(model: &dyn ChatModel, run: usize, max_tokens: u32, long: bool) -> Run {
    let started = Instant::now();
    // A kept-alive connection llama-server closed is retried inside the provider, on a new
    // loopback connection (well under a millisecond of the time to first token).
    let mut stream = model.stream(request(run, max_tokens, long)).await.expect("the reply starts");
    let mut first = None;
    let mut deltas = 0u32;
    let finish = loop {
        match stream.next().await.expect("the stream ends with Done").expect("no error") {
            StreamEvent::Delta(_) => {
                first.get_or_insert_with(Instant::now);
                deltas += 1;
            }
            StreamEvent::Done(finish) => break finish,
        }
    };
    let done = Instant::now();
    let first = first.expect("at least one token");
    let usage = finish.usage.unwrap_or_default();
    // Tokens generated: the provider's count when it has one, else one per delta.
    let tokens = if usage.completion_tokens > 0 { usage.completion_tokens } else { deltas };
    let span = done.duration_since(first).as_secs_f64();
    Run {
        ttft: first.duration_since(started),
        tokens,
        tokens_per_s: if span > 0.0 { f64::from(tokens.saturating_sub(1)) / span } else { f64::NAN },
        prompt_tokens: usage.prompt_tokens,
    }
}

async fn bench(model: &dyn ChatModel, args: &Args, engine: &str, weights: String) -> Vec<Row> {
    let mut rows = Vec::new();
    let prompts: &[bool] = if args.short_only { &[false] } else { &[false, true] };
    for &long in prompts {
        eprintln!("timing {engine} ({weights}), {} prompt", if long { "long" } else { "short" });
        time_reply(model, 0, args.max_tokens, long).await; // warm-up
        let mut runs = Vec::new();
        for run in 1..=args.runs {
            let r = time_reply(model, run, args.max_tokens, long).await;
            eprintln!(
                "  run {run}: ttft {:.0} ms, {} tokens, {:.1} tokens/s",
                r.ttft.as_secs_f64() * 1e3,
                r.tokens,
                r.tokens_per_s
            );
            runs.push(r);
        }
        rows.push(Row { engine: engine.into(), weights: weights.clone(), runs });
    }
    rows
}

/// `batch` short conversations started at once, timed to the end of the last reply: the
/// total reply tokens per second of wall time, the median over `runs` rounds.
async fn time_batch(model: &dyn ChatModel, args: &Args, engine: &str) -> f64 {
    let batch = args.batch;
    let round = |first_run: usize| async move {
        let started = Instant::now();
        let replies = (0..batch).map(|i| time_reply(model, first_run + i, args.max_tokens, false));
        let runs = futures_util::future::join_all(replies).await;
        let tokens: u32 = runs.iter().map(|r| r.tokens).sum();
        f64::from(tokens) / started.elapsed().as_secs_f64()
    };
    eprintln!("timing {engine}, {batch} conversations at once");
    round(1000).await; // warm-up
    let mut totals = Vec::new();
    for run in 1..=args.runs {
        let total = round(1000 + run * batch).await;
        eprintln!("  round {run}: {total:.1} tokens/s in all");
        totals.push(total);
    }
    median(totals)
}

fn embedded(path: &Path, requantize: Requantize, concurrent_replies: usize) -> Arc<dyn ChatModel> {
    let mut settings = ModelSettings::embedded(path);
    settings.embedded.engine = Engine::Candle;
    settings.embedded.requantize = requantize;
    settings.embedded.concurrent_replies = concurrent_replies;
    chat::build(&settings).expect("the embedded model loads")
}

/// The llama.cpp engine on `path` as it is (the converted Q8_0 file, the peer's).
fn in_process_llama(
    path: &Path,
    library: &Path,
    threads: usize,
    concurrent_replies: usize,
    prefix_cache_tokens: Option<usize>,
) -> Arc<dyn ChatModel> {
    let mut settings = ModelSettings::embedded(path);
    if let Some(tokens) = prefix_cache_tokens {
        settings.embedded.prefix_cache_tokens = tokens;
    }
    settings.embedded.engine = Engine::LlamaCpp;
    settings.embedded.llama_library = Some(library.to_path_buf());
    settings.embedded.threads = Some(threads);
    settings.embedded.concurrent_replies = concurrent_replies;
    chat::build(&settings).expect("the llama.cpp engine loads")
}

/// The x86 extensions candle's CPU kernels pick at run time (`is_x86_feature_detected!`):
/// AVX2+FMA for the quantized dot products, AVX-512 VNNI for its repacked ones.
fn candle_cpu_features() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        let detected = [
            ("avx2", std::is_x86_feature_detected!("avx2")),
            ("fma", std::is_x86_feature_detected!("fma")),
            ("f16c", std::is_x86_feature_detected!("f16c")),
            ("avx512f", std::is_x86_feature_detected!("avx512f")),
            ("avx512vnni", std::is_x86_feature_detected!("avx512vnni")),
            ("avxvnni", std::is_x86_feature_detected!("avxvnni")),
        ];
        let names: Vec<&str> = detected.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect();
        names.join(" ")
    }
    #[cfg(not(target_arch = "x86_64"))]
    String::from("(not x86-64)")
}

/// The features llama.cpp reports as compiled in and on (`... | AVX2 = 1 | ...`), from the
/// `system_info` line of its log.
fn llama_cpu_features(log: &str) -> String {
    let Some(line) = log.lines().find(|l| l.contains("system_info")) else {
        return String::from("(no system_info line in its log)");
    };
    let on: Vec<&str> = line
        .split('|')
        .filter_map(|part| part.trim().rsplit_once(" = "))
        .filter(|(_, value)| value.trim() == "1")
        .map(|(name, _)| name.rsplit(':').next().unwrap_or(name).trim())
        .collect();
    on.join(" ")
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let model = args.model.clone().unwrap_or_else(support::model_path);
    let server = args.llama_server.clone().unwrap_or_else(support::llama_server_binary);
    let threads = candle_threads();
    let mut rows = Vec::new();
    let llama_lib = match args.engine.as_str() {
        "llama_cpp" => Some(args.llama_lib.clone().unwrap_or_else(support::llama_library)),
        "candle" => None,
        other => panic!("--engine {other}: llama_cpp or candle"),
    };
    // The candle engine converts the file to Q8_0 once; the llama.cpp engine and the peer
    // read that same converted file, so the three compute on the same weights.
    let converted = {
        drop(embedded(&model, Requantize::Q8_0, 1));
        converted_path(&model, Requantize::Q8_0).unwrap()
    };
    let ours = |concurrent: usize| match &llama_lib {
        Some(library) => in_process_llama(&converted, library, threads, concurrent, args.prefix_cache_tokens),
        None => embedded(&model, Requantize::Q8_0, concurrent),
    };
    let our_engine = if llama_lib.is_some() { "embedded (llama.cpp in-process)" } else { "embedded (candle)" };
    {
        let m = ours(1);
        rows.extend(bench(m.as_ref(), &args, our_engine, format!("{} (converted once)", file_name(&converted))).await);
    }
    let mut candle_rows = Vec::new();
    if args.with_candle && llama_lib.is_some() {
        let m = embedded(&model, Requantize::Q8_0, 1);
        candle_rows =
            bench(m.as_ref(), &args, "embedded (candle)", format!("{} (converted once)", file_name(&converted))).await;
    }
    if args.with_unconverted {
        let m = embedded(&model, Requantize::None, 1);
        rows.extend(bench(m.as_ref(), &args, "embedded (candle)", format!("{} (as shipped)", file_name(&model))).await);
    }
    let mut llama_system_info = String::new();
    for file in [model.clone(), converted_path(&model, Requantize::Q8_0).unwrap()] {
        let llama = LlamaServer::start(&server, &file, threads).await;
        let m = chat::build(&ModelSettings::openai(llama.base_url.clone(), "smollm2")).unwrap();
        rows.extend(bench(m.as_ref(), &args, "llama.cpp llama-server", file_name(&file)).await);
        llama_system_info = llama_cpu_features(&llama.log_text());
    }
    // Several conversations at once: ours writes up to `concurrent_replies` replies a token
    // of each in turn; llama-server decodes its slots together in one batch.
    let mut batch = None;
    if args.batch > 0 {
        let ours = time_batch(ours(args.batch).as_ref(), &args, our_engine).await;
        let llama = LlamaServer::start_with_slots(&server, &converted, threads, args.batch).await;
        let m = chat::build(&ModelSettings::openai(llama.base_url.clone(), "smollm2")).unwrap();
        let peer = time_batch(m.as_ref(), &args, "llama.cpp llama-server").await;
        batch = Some((ours, peer));
    }

    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_default();
    println!(
        "{} runs per row after a warm-up, medians; {threads} threads for both engines; CPU: {cpu}; \
         up to {} reply tokens, temperature 0.7.\n",
        args.runs, args.max_tokens
    );
    // Which instruction sets each engine computed with: the two are only comparable when
    // both use what the CPU has (llama-server is built for it less AMX; see scripts/lib/model.sh).
    println!("CPU features used: candle (chosen at run time): {}.", candle_cpu_features());
    println!("llama-server (compiled in, from its system_info): {llama_system_info}.\n");
    println!("| engine | weights | threads | prompt tokens | time to first token | reply tokens | tokens/s |");
    println!("|---|---|---|---|---|---|---|");
    for row in rows.iter().chain(&candle_rows) {
        let ttft = median(row.runs.iter().map(|r| r.ttft.as_secs_f64() * 1e3).collect());
        let tps = median(row.runs.iter().map(|r| r.tokens_per_s).collect());
        let tokens = median(row.runs.iter().map(|r| f64::from(r.tokens)).collect());
        let prompt = row.runs.iter().map(|r| r.prompt_tokens).max().unwrap_or(0);
        println!("| {} | {} | {threads} | {prompt} | {ttft:.0} ms | {tokens:.0} | {tps:.1} |", row.engine, row.weights);
    }
    let tps = |i: usize| median(rows[i].runs.iter().map(|r| r.tokens_per_s).collect());
    let ttft = |i: usize| median(rows[i].runs.iter().map(|r| r.ttft.as_secs_f64()).collect());
    // Rows: embedded Q8_0 (short[, long]), [embedded Q4_1 (short[, long])], llama Q4_1
    // (short[, long]), llama Q8_0 (short[, long]).
    let prompts = if args.short_only { 1 } else { 2 };
    let llama_q8 = rows.len() - prompts;
    let llama_q4 = rows.len() - 2 * prompts;
    println!();
    for (i, prompt) in [(0, "short"), (1, "long")].into_iter().take(prompts) {
        let prompt_tokens = rows[i].runs.iter().map(|r| r.prompt_tokens).max().unwrap_or(0);
        let size = if i == 0 { "60" } else { "1000" };
        let note = format!("{prompt_tokens} prompt tokens, {threads} threads, same Q8_0 GGUF; {cpu}");
        bench_record::record(&format!("model.tps.{size}"), tps(i), tps(llama_q8 + i), "tokens/s", &note);
        bench_record::record(&format!("model.ttft.{size}"), ttft(i) * 1e3, ttft(llama_q8 + i) * 1e3, "ms", &note);
        println!(
            "- {prompt} prompt, same Q8_0 file: {our_engine}/llama-server = {:.2}× the tokens/s, {:.2}× the time to \
             first token; against llama-server on the Q4_1 file as shipped: {:.2}× the tokens/s.",
            tps(i) / tps(llama_q8 + i),
            ttft(i) / ttft(llama_q8 + i),
            tps(i) / tps(llama_q4 + i)
        );
    }
    if let Some((ours, peer)) = batch {
        println!(
            "- {} short conversations at once, same Q8_0 file: {our_engine} {ours:.1} tokens/s in all, llama-server \
             --parallel {} {peer:.1}: {:.2}×.",
            args.batch,
            args.batch,
            ours / peer
        );
        let note = format!("{} conversations, {threads} threads, same Q8_0 GGUF; {cpu}", args.batch);
        bench_record::record(&format!("model.batch{}", args.batch), ours, peer, "tokens/s", &note);
    }
}
