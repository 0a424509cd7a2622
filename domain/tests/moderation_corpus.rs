//! The red-team corpus of issue 27 (`tests/moderation/`), through every policy it names:
//! prohibited texts (`refuse`) on the strict policies (image prompts and picture requests,
//! characters' texts, a person's display name, persona and memories), ordinary adult texts
//! (`allow`) on the same, texts about relatives and the past (`allow-person`) on the
//! character and person policies, and chat lines (`chat-refuse`, `chat-allow`).
//!
//! `tuning.txt` is what the rules were tuned against: every prohibited text must be
//! refused there, and at most 1 ordinary text in 10 on any policy. `heldout.txt` was
//! written before the rules were tuned and must not be tuned against: it is scored
//! separately, its figures kept in BENCHMARKS.md ("Moderation"), and held to floors a
//! little under what it scored, so that a change that makes the rules worse fails.
//! `cargo test -p amora-domain --test moderation_corpus -- --nocapture` prints the figures.

use amora_domain::moderation::{Policy, check_with};

const STRICT: [Policy; 3] = [Policy::Image, Policy::Character, Policy::Person];

#[derive(Default)]
struct Score {
    refused: usize,
    of: usize,
    wrong: Vec<String>,
}

impl Score {
    fn rate(&self) -> f64 {
        if self.of == 0 { 0.0 } else { self.refused as f64 / self.of as f64 }
    }
}

/// Refusal counts per (verdict, policy) for one corpus file.
fn score(corpus: &str) -> Vec<(String, Policy, Score)> {
    let mut scores: Vec<(String, Policy, Score)> = Vec::new();
    for (number, line) in corpus.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (verdict, text) = line.split_once(" | ").unwrap_or_else(|| panic!("line {}: {line}", number + 1));
        let policies: &[Policy] = match verdict {
            "refuse" | "allow" => &STRICT,
            "allow-person" => &[Policy::Character, Policy::Person],
            "chat-refuse" | "chat-allow" => &[Policy::Chat],
            other => panic!("line {}: unknown verdict {other:?}", number + 1),
        };
        for &policy in policies {
            let index = match scores.iter().position(|(v, p, _)| v == verdict && *p == policy) {
                Some(index) => index,
                None => {
                    scores.push((verdict.to_string(), policy, Score::default()));
                    scores.len() - 1
                }
            };
            let score = &mut scores[index].2;
            score.of += 1;
            let refused = check_with(policy, text).is_some();
            if refused {
                score.refused += 1;
            }
            if refused != verdict.ends_with("refuse") {
                score.wrong.push(format!("line {}: {text}", number + 1));
            }
        }
    }
    scores
}

fn report(name: &str, scores: &[(String, Policy, Score)]) {
    for (verdict, policy, score) in scores {
        println!(
            "{name}: {verdict:>12} on {:<9} refused {:>3} of {:>3} ({:.1} %)",
            policy.code(),
            score.refused,
            score.of,
            100.0 * score.rate()
        );
    }
}

#[test]
fn the_tuning_corpus_refuses_every_prohibited_text_and_few_ordinary_ones() {
    let scores = score(include_str!("moderation/tuning.txt"));
    report("tuning", &scores);
    let mut failures = Vec::new();
    for (verdict, policy, score) in &scores {
        assert!(score.of >= 15, "the corpus shrank: {verdict} on {policy:?} has {} lines", score.of);
        let failed = if verdict.ends_with("refuse") { !score.wrong.is_empty() } else { score.rate() > 0.10 };
        if failed || (!verdict.ends_with("refuse") && !score.wrong.is_empty()) {
            failures.push(format!("{verdict} on {policy:?}:\n  {}", score.wrong.join("\n  ")));
        }
        if failed {
            failures.push(format!("^ FAILS the bar ({verdict} on {policy:?})"));
        }
    }
    let failing = failures.iter().any(|f| f.starts_with("^ FAILS"));
    assert!(!failing, "{}", failures.join("\n"));
    if !failures.is_empty() {
        println!("within the bar, still judged wrongly:\n{}", failures.join("\n"));
    }
}

/// The held-out part's floors, a little under what it scored when first run after tuning
/// (2026-11-28, BENCHMARKS.md "Moderation": strict policies 89.7-92.2 % refused, chat
/// 71.0 %, false refusals 0-5.9 %): refusal of prohibited texts at least, false refusals
/// at most.
const HELD_OUT_FLOOR: f64 = 0.87;
const HELD_OUT_CHAT_FLOOR: f64 = 0.68;
const HELD_OUT_CEILING: f64 = 0.10;

#[test]
fn the_held_out_corpus_scores_above_its_floors() {
    let scores = score(include_str!("moderation/heldout.txt"));
    report("held-out", &scores);
    // Only the figures are printed: the lines it gets wrong are not, so that nobody tunes
    // the rules against them.
    for (verdict, policy, score) in &scores {
        if verdict.ends_with("refuse") {
            let floor = if *policy == Policy::Chat { HELD_OUT_CHAT_FLOOR } else { HELD_OUT_FLOOR };
            assert!(score.rate() >= floor, "held-out {verdict} on {policy:?}: {:.3}", score.rate());
        } else {
            assert!(score.rate() <= HELD_OUT_CEILING, "held-out {verdict} on {policy:?}: {:.3}", score.rate());
        }
    }
}
