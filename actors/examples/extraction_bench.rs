//! Memory extraction measured on a corpus: recall and precision of the facts the chat model
//! (through the engine's own extraction code) takes from the messages of
//! `actors/tests/data/extraction-corpus.json`, with the embedded model and with llama.cpp's
//! llama-server on the same GGUF file. Run by `scripts/bench-extraction` (see BENCHMARKS.md,
//! "Memory extraction").
//!
//! Each case is one exchange (the user's message and the character's reply). Six cases in a
//! row make one conversation of twelve messages, extracted as the engine extracts its window
//! of twelve (`--window N` cases; `--window 1` reads each case alone), with no memories known
//! yet; the facts of each message are scored against its case.
//!
//! Matching (documented in the corpus's `about`): a known fact is a list of keywords; an
//! extracted memory states it when, lower-cased, it holds every keyword, where `a|b` holds
//! when either does, and a Latin-script keyword must start a word ("cat" matches "cats", not
//! "scatter"). Recall: known facts stated by at least one extracted memory, over all known
//! facts. Precision: extracted memories that state a known fact of their case, over all
//! extracted memories. A leak: an extracted memory that states a fact of the character's
//! (`character`) and none of the user's.
//!
//! Every layer of the extraction is measured alone and then all together (`--product`: only
//! all together); the rules need no model and are measured once.
//!
//! Options: `--engines embedded,llama` (both by default), `--verbose` (every case's
//! memories), `--limit N` (the first N cases only), `--corpus PATH` (another corpus, such as
//! the held-out `extraction-heldout.json`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../ai/tests/support/mod.rs"]
mod support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use amora_actors::chat::memory::{self, Layers};
use amora_ai::chat::embedded::candle_threads;
use amora_ai::chat::{self, ChatModel, ModelSettings};
use amora_domain::chat::{EntryId, HistoryMessage, Speaker};
use serde::Deserialize;
use support::llama_server::LlamaServer;

#[derive(Deserialize)]
struct Corpus {
    user: String,
    character: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    lang: String,
    user: String,
    reply: String,
    facts: Vec<Vec<String>>,
    #[serde(default)]
    character: Vec<Vec<String>>,
}

struct Options {
    engines: Vec<String>,
    verbose: bool,
    limit: usize,
    corpus: PathBuf,
    /// Only the product's layers (all of them).
    product: bool,
    /// Only the variants whose name holds this.
    only: Option<String>,
    /// Print the model's raw answer to each case asked alone (for the parsing tests).
    raw: bool,
    /// Cases read as one conversation: 6, the user's messages of the engine's window of 12.
    window: usize,
}

fn options() -> Options {
    let mut options = Options {
        engines: vec!["embedded".into(), "llama".into()],
        verbose: false,
        product: false,
        only: None,
        raw: false,
        window: 6,
        limit: usize::MAX,
        corpus: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/extraction-corpus.json"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--engines" => options.engines = args.next().expect("engines").split(',').map(str::to_owned).collect(),
            "--verbose" => options.verbose = true,
            "--product" => options.product = true,
            "--only" => options.only = Some(args.next().expect("a part of a variant's name after --only")),
            "--raw" => options.raw = true,
            "--window" => options.window = args.next().and_then(|n| n.parse().ok()).expect("a number after --window"),
            "--limit" => options.limit = args.next().and_then(|n| n.parse().ok()).expect("a number after --limit"),
            "--corpus" => options.corpus = PathBuf::from(args.next().expect("a path after --corpus")),
            other => panic!(
                "unknown option {other}: --engines embedded,llama, --verbose, --limit N, --corpus PATH, --product, --only TEXT, --window N, --raw"
            ),
        }
    }
    options
}

/// Whether `keyword` (`a|b`: either) is in `text` (lower-cased), at a word's start for
/// Latin-script keywords.
fn holds(text: &str, keyword: &str) -> bool {
    keyword.split('|').any(|alternative| {
        let latin = alternative.chars().next().is_some_and(|c| c < '\u{0250}');
        text.match_indices(alternative)
            .any(|(at, _)| !latin || text[..at].chars().next_back().is_none_or(|before| !before.is_alphanumeric()))
    })
}

fn states(memory: &str, fact: &[String]) -> bool {
    let text = memory.to_lowercase();
    fact.iter().all(|keyword| holds(&text, keyword))
}

#[derive(Default)]
struct Score {
    known: usize,
    recalled: usize,
    extracted: usize,
    correct: usize,
    leaks: usize,
    /// Cases without a fact that got a memory anyway.
    empty_cases_with_memories: usize,
    seconds: f64,
}

impl Score {
    fn add(&mut self, case: &Case, memories: &[String]) {
        self.known += case.facts.len();
        self.recalled += case.facts.iter().filter(|f| memories.iter().any(|m| states(m, f))).count();
        self.extracted += memories.len();
        self.correct += memories.iter().filter(|m| case.facts.iter().any(|f| states(m, f))).count();
        self.leaks += memories
            .iter()
            .filter(|m| !case.facts.iter().any(|f| states(m, f)) && case.character.iter().any(|f| states(m, f)))
            .count();
        if case.facts.is_empty() && !memories.is_empty() {
            self.empty_cases_with_memories += 1;
        }
    }

    fn recall(&self) -> f64 {
        self.recalled as f64 / self.known.max(1) as f64
    }

    fn precision(&self) -> f64 {
        if self.extracted == 0 { 0.0 } else { self.correct as f64 / self.extracted as f64 }
    }
}

/// The exchange of a case as the engine hands it to the extraction.
fn exchange(case: &Case) -> [HistoryMessage; 2] {
    [
        HistoryMessage { id: EntryId::from_raw(1), speaker: Speaker::User, content: case.user.clone() },
        HistoryMessage { id: EntryId::from_raw(2), speaker: Speaker::Character, content: case.reply.clone() },
    ]
}

/// The layers measured: each alone, then together as the product runs them.
const VARIANTS: &[(&str, Layers)] = &[
    (
        "model: zero-shot prompt, every line kept",
        Layers { rules: false, model: true, few_shot: false, validate: false },
    ),
    ("model: few-shot prompt, every line kept", Layers { rules: false, model: true, few_shot: true, validate: false }),
    ("model: few-shot prompt, validated", Layers { rules: false, model: true, few_shot: true, validate: true }),
    ("rules only (no model)", Layers { rules: true, model: false, few_shot: false, validate: false }),
    ("rules + model (the product)", Layers::ALL),
];

async fn run(model: &dyn ChatModel, corpus: &Corpus, options: &Options, engine: &str, layers: Layers) -> Score {
    let mut score = Score::default();
    let started = Instant::now();
    let cases: Vec<&Case> = corpus.cases.iter().take(options.limit).collect();
    for (window, chunk) in cases.chunks(options.window).enumerate() {
        // As `ChatEngine::extract_facts` runs it (it adds moderation, which no case meets,
        // and merges the facts of the messages, which would hide which case gave which).
        let recent: Vec<HistoryMessage> = chunk.iter().flat_map(|case| exchange(case)).collect();
        let per_message = memory::facts_per_message(model, &corpus.user, &corpus.character, &recent, layers)
            .await
            .expect("the extraction runs");
        for (n, (case, memories)) in chunk.iter().zip(per_message).enumerate() {
            let memories = memory::distinct(memories, &corpus.user);
            if options.verbose {
                let at = window * options.window + n;
                eprintln!("[{engine}] #{at} ({}) {:?}\n    -> {memories:?}", case.lang, case.user);
            }
            score.add(case, &memories);
        }
    }
    score.seconds = started.elapsed().as_secs_f64();
    score
}

/// The model's answers as they come, each case asked alone after the worked examples.
async fn print_raw(model: &dyn ChatModel, corpus: &Corpus, options: &Options, engine: &str) {
    for case in corpus.cases.iter().take(options.limit) {
        let mut conversation = memory::fact_conversation(true);
        conversation.push(memory::fact_question(&case.user));
        let reply = model.stream(memory::fact_request(&conversation)).await.expect("a reply").collect_reply().await;
        eprintln!("[{engine}] {:?}\n    raw: {:?}", case.user, reply.expect("a reply").text);
    }
}

async fn run_variants(model: &dyn ChatModel, corpus: &Corpus, options: &Options, engine: &str) -> Vec<(String, Score)> {
    let mut rows = Vec::new();
    if options.raw {
        print_raw(model, corpus, options, engine).await;
    }
    for (name, layers) in VARIANTS {
        if (options.product && *layers != Layers::ALL)
            || options.only.as_ref().is_some_and(|only| !name.contains(only.as_str()))
        {
            continue;
        }
        // Rules need no model: measured once, with the first engine.
        if !layers.model && options.engines.first().is_some_and(|first| first != engine) {
            continue;
        }
        eprintln!("{engine}: {name}");
        let label = if layers.model { format!("{engine}: {name}") } else { (*name).to_owned() };
        rows.push((label, run(model, corpus, options, engine, *layers).await));
    }
    rows
}

#[tokio::main]
async fn main() {
    let options = options();
    let corpus: Corpus =
        serde_json::from_slice(&std::fs::read(&options.corpus).expect("the corpus")).expect("corpus JSON");
    let model_file = support::model_path();
    let threads = candle_threads();
    let mut rows = Vec::new();
    for engine in &options.engines {
        let scores = match engine.as_str() {
            "embedded" => {
                let model: Arc<dyn ChatModel> =
                    chat::build(&ModelSettings::embedded(&model_file)).expect("the embedded model loads");
                run_variants(model.as_ref(), &corpus, &options, "embedded").await
            }
            "llama" => {
                let llama = LlamaServer::start(&support::llama_server_binary(), &model_file, threads).await;
                let model = chat::build(&ModelSettings::openai(llama.base_url.clone(), "smollm2")).unwrap();
                run_variants(model.as_ref(), &corpus, &options, "llama-server").await
            }
            other => panic!("unknown engine {other}"),
        };
        rows.extend(scores);
    }
    let cases = corpus.cases.len().min(options.limit);
    let empty = corpus.cases.iter().take(options.limit).filter(|c| c.facts.is_empty()).count();
    println!(
        "{}: {cases} cases ({empty} without a fact about the user), model {}, {threads} threads.\n",
        options.corpus.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        model_file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    );
    println!(
        "| engine and layers | known facts | recalled | recall | memories | correct | precision | character leaks | fact-less cases with memories | seconds |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (engine, s) in &rows {
        println!(
            "| {engine} | {} | {} | {:.0}% | {} | {} | {:.0}% | {} | {} of {empty} | {:.0} |",
            s.known,
            s.recalled,
            s.recall() * 100.0,
            s.extracted,
            s.correct,
            s.precision() * 100.0,
            s.leaks,
            s.empty_cases_with_memories,
            s.seconds
        );
    }
}
