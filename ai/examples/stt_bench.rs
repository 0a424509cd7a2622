//! The embedded speech-to-text model's real-time factor: seconds of decoding / seconds of
//! speech, on a sentence of about five seconds spoken by espeak-ng (made here, resampled to
//! 16 kHz). Lower is faster; below 1 the recogniser keeps up with the speaker. It also
//! prints each run's transcript and word error rate.
//!
//! ```sh
//! cargo run --release -p amora-ai --example stt_bench -- --runs 3
//! ```

use std::time::Instant;

use amora_ai::transcription::embedded::EmbeddedSpeechToText;
use amora_ai::transcription::{EmbeddedTranscriptionSettings, SAMPLE_RATE, SpeechToText, pcm};

const SENTENCE: &str = "I would like to talk about the weather today and what we should cook for dinner";

/// `text` spoken by espeak-ng's Klatt voice at 140 words a minute, as 16 kHz samples.
fn espeak(text: &str) -> Result<Vec<i16>, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let wav = dir.path().join("speech.wav");
    let status = std::process::Command::new("espeak-ng")
        .args(["-v", "en-us+klatt", "-s", "140", "-w"])
        .arg(&wav)
        .arg(text)
        .status()?;
    if !status.success() {
        return Err(format!("espeak-ng exited with {status}").into());
    }
    let (rate, samples) = pcm::read_wav(&std::fs::read(&wav)?)?;
    Ok(pcm::resample(&samples, rate, SAMPLE_RATE))
}

/// Word-level edit distance over the words said.
fn word_error_rate(said: &str, heard: &str) -> f64 {
    let words = |s: &str| s.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>();
    let (said, heard) = (words(said), words(heard));
    let mut row: Vec<usize> = (0..=heard.len()).collect();
    for (i, s) in said.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, h) in heard.iter().enumerate() {
            let substitution = diagonal + usize::from(s != h);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[heard.len()] as f64 / said.len().max(1) as f64
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize =
        std::env::args().skip_while(|a| a != "--runs").nth(1).map(|n| n.parse()).transpose()?.unwrap_or(3);
    let model = EmbeddedSpeechToText::new(&EmbeddedTranscriptionSettings::default());
    let samples = espeak(SENTENCE)?;
    let audio_s = pcm::duration_ms(&samples) as f64 / 1000.0;
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    println!("CPU: {cpu}; PocketSphinx 0.8 (pocketsphinx_continuous), en-us model; {audio_s:.2} s of espeak-ng speech");
    println!("| run | decode s | real-time factor | WER | transcript |");
    println!("|---|---|---|---|---|");
    let mut factors = Vec::new();
    for run in 1..=runs {
        let started = Instant::now();
        let transcript = model.transcribe(&samples, Some("en")).await?;
        let seconds = started.elapsed().as_secs_f64();
        factors.push(seconds / audio_s);
        println!(
            "| {run} | {seconds:.2} | {:.2} | {:.2} | {} |",
            seconds / audio_s,
            word_error_rate(SENTENCE, &transcript.text),
            transcript.text
        );
    }
    factors.sort_by(f64::total_cmp);
    println!("median real-time factor: {:.2}", factors[factors.len() / 2]);
    Ok(())
}
