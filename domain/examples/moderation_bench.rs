//! How long one moderation check takes (issue 27), on a short chat line, an image prompt
//! and a long character card field, for BENCHMARKS.md "Moderation":
//! `cargo run --release -p amora-domain --example moderation_bench`.

use std::time::Instant;

use amora_domain::moderation::{Policy, check_with};

fn main() {
    let chat = "Hi! How was your day? I missed you so much, tell me everything.";
    let prompt = "photo of a woman, 25, red dress, rooftop at sunset, soft light, 4k";
    let paragraph = "She is a 27-year-old painter from Lisbon who loves jazz, long walks by the river and \
        late-night conversations about art. Her childhood friends call her Bea. ";
    let card = paragraph.repeat(64); // about 10 KiB, a long card description
    for (name, policy, text, runs) in [
        ("chat line (64 B)", Policy::Chat, chat, 20_000),
        ("image prompt (66 B)", Policy::Image, prompt, 20_000),
        ("card field (10 KiB)", Policy::Character, card.as_str(), 300),
    ] {
        assert!(check_with(policy, text).is_none(), "{name} was refused");
        let started = Instant::now();
        for _ in 0..runs {
            std::hint::black_box(check_with(policy, std::hint::black_box(text)));
        }
        let each = started.elapsed() / runs;
        println!("{name:<22} {policy:?}: {each:?} a check ({runs} runs)");
    }
}
