//! What the speech-to-text tests share: speech made by espeak-ng at test time (no audio
//! files in the repository) and the word error rate.

use super::{SAMPLE_RATE, pcm};

/// True when `program` is an executable file on PATH.
pub fn found_on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// `text` spoken by espeak-ng in `voice` at `words_per_minute`, as 16 kHz mono samples.
/// espeak-ng writes 22 050 Hz; [`pcm::resample`] brings it down, deterministically (sox
/// would dither with random noise, and the word error rate would change from run to run).
pub fn espeak(text: &str, voice: &str, words_per_minute: u32) -> Vec<i16> {
    assert!(found_on_path("espeak-ng"), "espeak-ng is not on PATH: run scripts/test (or apt-get install espeak-ng)");
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let wav = dir.path().join("speech.wav");
    let status = std::process::Command::new("espeak-ng")
        .args(["-v", voice, "-s", &words_per_minute.to_string(), "-w"])
        .arg(&wav)
        .arg(text)
        .status()
        .unwrap_or_else(|e| panic!("espeak-ng: {e}"));
    assert!(status.success(), "espeak-ng exited with {status}");
    let bytes = std::fs::read(&wav).unwrap_or_else(|e| panic!("{e}"));
    let (rate, samples) = pcm::read_wav(&bytes).unwrap_or_else(|e| panic!("{e}"));
    pcm::resample(&samples, rate, SAMPLE_RATE)
}

/// `text` spoken by flite's `slt` voice (the embedded voice model's default), as 16 kHz
/// mono samples: speech closer to a person's than espeak-ng's.
pub fn flite(text: &str) -> Vec<i16> {
    assert!(found_on_path("flite"), "flite is not on PATH: run scripts/test (or apt-get install flite)");
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let wav = dir.path().join("speech.wav");
    let status = std::process::Command::new("flite")
        .args(["-voice", "slt", "-t", text, "-o"])
        .arg(&wav)
        .status()
        .unwrap_or_else(|e| panic!("flite: {e}"));
    assert!(status.success(), "flite exited with {status}");
    let bytes = std::fs::read(&wav).unwrap_or_else(|e| panic!("{e}"));
    let (rate, samples) = pcm::read_wav(&bytes).unwrap_or_else(|e| panic!("{e}"));
    pcm::resample(&samples, rate, SAMPLE_RATE)
}

/// Word error rate: the word-level edit distance (substitutions, insertions, deletions)
/// between what was said and what was heard, over the words said. Case and punctuation
/// other than apostrophes are ignored.
pub fn word_error_rate(said: &str, heard: &str) -> f64 {
    let words = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| w.chars().filter(|c| c.is_alphanumeric() || *c == '\'').collect::<String>().to_lowercase())
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (said, heard) = (words(said), words(heard));
    if said.is_empty() {
        return if heard.is_empty() { 0.0 } else { 1.0 };
    }
    // One row of the edit-distance table at a time.
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
    row[heard.len()] as f64 / said.len() as f64
}

#[test]
fn word_error_rate_counts_edits_over_the_words_said() {
    assert_eq!(word_error_rate("Hello, how are you?", "hello how are you"), 0.0);
    assert_eq!(word_error_rate("hello how are you", "hello who are you"), 0.25);
    assert_eq!(word_error_rate("hello how are you", "hello are you"), 0.25);
    assert_eq!(word_error_rate("hello how are you", "well hello how are you"), 0.25);
    assert_eq!(word_error_rate("hello how are you", ""), 1.0);
    assert_eq!(word_error_rate("a b", "c d e f"), 2.0);
    assert_eq!(word_error_rate("", ""), 0.0);
}
