//! The embedded voice's real-time factor: (synthesis + MP3 encoding seconds) / seconds of
//! speech, for a short and a long reply, in each voice family. Lower is faster; below 1 the
//! synthesiser keeps ahead of playback.
//!
//! ```sh
//! cargo run --release -p amora-ai --example voice_bench -- --runs 5
//! ```

use std::time::Instant;

use amora_ai::voice::embedded::EmbeddedVoiceModel;
use amora_ai::voice::{EmbeddedVoiceSettings, VoiceModel};

const SHORT: &str = "Hello there! I missed you today.";
const LONG: &str = "Hello again! I was hoping you would come by today. The café was quiet all morning, \
    so I read the book you left behind. It is about a lighthouse keeper who writes letters to the sea, and \
    I could not put it down. Tell me, have you ever wanted to live somewhere that remote? I think I would \
    miss the city, but only a little. Anyway, sit down and tell me everything about your week, from the \
    start, and do not leave out the boring parts, because those are usually my favourite.";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(5);
    let model = EmbeddedVoiceModel::new(&EmbeddedVoiceSettings::default());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| info.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned()))
        .unwrap_or_else(|| "unknown".into());
    println!("CPU: {cpu}; {runs} runs each; one synthesis at a time");
    println!("| text | voice | chars | audio s | synth+encode s (median) | real-time factor | MP3 bytes |");
    println!("|---|---|---|---|---|---|---|");
    for (name, text) in [("short", SHORT), ("long", LONG)] {
        for voice in ["slt", "rms", "awb"] {
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..runs {
                let started = Instant::now();
                let speech = model.speak(text, voice).await?;
                times.push(started.elapsed().as_secs_f64());
                last = Some(speech);
            }
            times.sort_by(f64::total_cmp);
            let median = times[times.len() / 2];
            let speech = last.ok_or("no run")?;
            let audio = speech.duration_ms as f64 / 1000.0;
            println!(
                "| {name} | {voice} | {} | {audio:.2} | {median:.3} | {:.3} | {} |",
                text.chars().count(),
                median / audio,
                speech.bytes.len()
            );
        }
    }
    Ok(())
}
