//! The embedded recogniser: PocketSphinx 0.8 (Debian's `pocketsphinx`, CMU Sphinx's
//! small decoder) run as a child process on Debian's US English model
//! (`pocketsphinx-en-us`: a continuous acoustic model, a 3-gram language model and CMUdict).
//! No network and nothing downloaded: the program and the model come from the packages
//! that the set-up commands install.
//!
//! **English only.** The only model Debian ships is US English. A call whose language is
//! not English is refused with [`AiError::BadRequest`] (and [`SpeechToText::understands`]
//! says no beforehand) rather than decoded: PocketSphinx would force French or Japanese
//! speech onto English words, and a user would see nonsense put in their mouth in the chat
//! history. Such calls need the OpenAI-compatible backend (Whisper understands about a
//! hundred languages). Without a hint the speech is taken to be English.
//!
//! Accuracy is that of a 2015 HMM recogniser: good on clear speech with common words
//! (about 7 % word error rate on flite's natural voice, 38 % on espeak-ng's robotic one,
//! this module's tests), weak on names, noise and accents. It is the default because it
//! needs nothing but packages; a deployment that cares about accuracy runs Whisper behind
//! the OpenAI-compatible backend.
//!
//! The decoder (`pocketsphinx_continuous -infile /dev/stdin`) reads raw 16-bit samples
//! from its stdin until it closes, segments them into utterances with its own silence
//! detector and prints each one's words on a line of stdout; it logs a few hundred lines on
//! stderr, kept only to explain a failure. A child still running when the call is dropped
//! or times out is killed (`kill_on_drop`).
//!
//! **Heard as it is spoken.** A call streams the utterance to the decoder from the moment
//! speech starts ([`SpeechToText::stream`]): the decoder keeps up with speech (it decodes
//! faster than real time), so when the user stops only the last words and the final search
//! remain, instead of the whole utterance (about 0.8 s per second of speech on this
//! machine's two cores).
//!
//! **A decoder waits ready.** Loading the model takes the decoder about a second, which a
//! caller would otherwise wait through at the end of every turn (BENCHMARKS.md, "A call's
//! time to first sound"). So one decoder is started ahead, blocked on its empty stdin with
//! the model loaded: [`SpeechToText::prepare`] starts it when a call begins, and each
//! utterance that takes it starts the next one. It costs one idle process (about 20 MiB)
//! per node once a call has been made.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::{
    EmbeddedTranscriptionSettings, SAMPLE_RATE, SpeechStream, SpeechToText, Transcript, check_audio, primary_language,
};
use crate::AiError;

/// The model's files under `model_dir`, as `pocketsphinx-en-us` lays them out.
const ACOUSTIC_MODEL: &str = "en-us";
const LANGUAGE_MODEL: &str = "en-us.lm.bin";
const DICTIONARY: &str = "cmudict-en-us.dict";

/// Silence put around the utterance: PocketSphinx's own silence detector needs a little
/// before the first word to start an utterance cleanly, and the VAD may have cut close.
const PADDING_MS: usize = 200;

/// The embedded speech-to-text model.
pub struct EmbeddedSpeechToText {
    settings: EmbeddedTranscriptionSettings,
    permits: Arc<Semaphore>,
    /// The decoder started for the next utterance (module documentation).
    ready: Mutex<Option<Child>>,
}

impl std::fmt::Debug for EmbeddedSpeechToText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedSpeechToText").field("settings", &self.settings).finish()
    }
}

impl EmbeddedSpeechToText {
    pub fn new(settings: &EmbeddedTranscriptionSettings) -> Self {
        Self {
            settings: settings.clone(),
            permits: Arc::new(Semaphore::new(settings.concurrent.max(1))),
            ready: Mutex::new(None),
        }
    }

    fn ready(&self) -> std::sync::MutexGuard<'_, Option<Child>> {
        self.ready.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A decoder for one utterance: the one waiting ready when it is still alive, a new one
    /// otherwise; either way the next one starts loading its model now.
    fn take_decoder(&self) -> Result<Child, AiError> {
        let waiting = self.ready().take().and_then(|mut child| running(&mut child).then_some(child));
        let decoder = match waiting {
            Some(child) => child,
            None => self.start_decoder()?,
        };
        self.prepare();
        Ok(decoder)
    }

    /// The model's three parts, each checked to exist: a missing package is named rather
    /// than left to the decoder's log.
    fn model_files(&self) -> Result<[PathBuf; 3], AiError> {
        let dir = Path::new(&self.settings.model_dir);
        let files = [dir.join(ACOUSTIC_MODEL), dir.join(LANGUAGE_MODEL), dir.join(DICTIONARY)];
        if let Some(missing) = files.iter().find(|f| !f.exists()) {
            return Err(AiError::Unavailable(format!(
                "the speech model is not installed: {} is missing (the set-up commands install \
                 Debian's pocketsphinx-en-us)",
                missing.display()
            )));
        }
        Ok(files)
    }

    /// A decoder reading raw samples from its stdin, loading its model as it starts.
    fn start_decoder(&self) -> Result<Child, AiError> {
        let program = &self.settings.program;
        let [hmm, lm, dict] = self.model_files()?;
        Command::new(program)
            .arg("-infile")
            .arg("/dev/stdin")
            .arg("-hmm")
            .arg(hmm)
            .arg("-lm")
            .arg(lm)
            .arg("-dict")
            .arg(dict)
            .arg("-samprate")
            .arg(SAMPLE_RATE.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    AiError::Unavailable(format!(
                        "{program} is not installed (the set-up commands install Debian's pocketsphinx)"
                    ))
                } else {
                    AiError::Unavailable(format!("cannot start {program}: {e}"))
                }
            })
    }

    /// Decodes `samples` within `deadline` and returns the decoder's stdout.
    async fn decode(&self, samples: &[i16], deadline: Instant) -> Result<String, AiError> {
        let program = &self.settings.program;
        let mut child = self.take_decoder()?;
        let bytes = le_bytes(samples);
        let mut stdin = child.stdin.take().ok_or_else(|| AiError::Internal(format!("{program} has no stdin")))?;
        // Written beside the wait: a long utterance fills the pipe before the decoder reads
        // it. A decoder that died early breaks the pipe; its exit status says why below.
        tokio::spawn(async move {
            let _ = stdin.write_all(&bytes).await;
            // Dropping stdin closes it: the decoder's end of input.
        });
        decoder_output(program, child, deadline, self.settings.timeout_ms).await
    }
}

/// What a decoder whose input is closed (or closing) printed, once it ended within
/// `deadline`; on time-out it is dropped, and `kill_on_drop` ends it.
async fn decoder_output(program: &str, child: Child, deadline: Instant, timeout_ms: u64) -> Result<String, AiError> {
    let left = deadline.saturating_duration_since(Instant::now());
    let output = tokio::time::timeout(left, child.wait_with_output())
        .await
        .map_err(|_| AiError::Unavailable(format!("{program} took longer than {timeout_ms} ms")))?
        .map_err(|e| AiError::Unavailable(format!("{program} failed: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(AiError::Internal(format!("{program} exited with {}: {}", output.status, why(&stderr))));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Samples as the decoder reads them: 16-bit little-endian.
fn le_bytes(samples: &[i16]) -> Vec<u8> {
    samples.iter().flat_map(|s| s.to_le_bytes()).collect()
}

fn padding() -> Vec<i16> {
    vec![0i16; SAMPLE_RATE as usize * PADDING_MS / 1000]
}

/// An utterance streamed to a decoder of its own as it is spoken.
struct EmbeddedStream {
    /// Chunks for the task writing the decoder's stdin; dropped, it closes the input.
    chunks: UnboundedSender<Vec<i16>>,
    decoder: Child,
    program: String,
    timeout_ms: u64,
    max_audio_ms: u64,
    /// A decoder running counts against `concurrent` as long as it runs.
    _permit: OwnedSemaphorePermit,
}

#[async_trait]
impl SpeechStream for EmbeddedStream {
    fn push(&mut self, samples: &[i16]) {
        // A decoder gone (it crashed) leaves the writer ended: `finish` says why.
        let _ = self.chunks.send(samples.to_vec());
    }

    /// `elapsed_ms` is the time from the end of the utterance to its words: what the
    /// caller waited.
    async fn finish(self: Box<Self>, utterance: &[i16]) -> Result<Transcript, AiError> {
        let started = Instant::now();
        let Self { chunks, decoder, program, timeout_ms, max_audio_ms, _permit } = *self;
        let duration_ms = check_audio(utterance, max_audio_ms)?;
        drop(chunks);
        let deadline = started + Duration::from_millis(timeout_ms);
        let stdout = decoder_output(&program, decoder, deadline, timeout_ms).await?;
        Ok(Transcript {
            text: tidy(&words_of(&stdout)),
            duration_ms,
            language: Some("en".into()),
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }
}

/// Whether a decoder is still waiting (one that died, a broken install say, is replaced).
fn running(child: &mut Child) -> bool {
    matches!(child.try_wait(), Ok(None))
}

/// The lines of the decoder's log that explain a failure (it writes hundreds of INFO lines).
fn why(stderr: &str) -> String {
    let errors: Vec<&str> =
        stderr.lines().filter(|l| l.starts_with("ERROR") || l.starts_with("FATAL")).take(3).collect();
    if errors.is_empty() { stderr.lines().rev().take(3).collect::<Vec<_>>().join(" / ") } else { errors.join(" / ") }
}

/// The words in the decoder's stdout: one line per utterance it found. Log lines that
/// reach stdout, filler and silence tokens (`<sil>`, `[NOISE]`, `++BREATH++`) and
/// alternative-pronunciation marks (`read(2)`) are dropped, so only words remain.
fn words_of(stdout: &str) -> Vec<String> {
    let log_line =
        |line: &str| ["INFO:", "WARN:", "WARNING:", "ERROR:", "FATAL:", "DEBUG:"].iter().any(|p| line.starts_with(p));
    stdout
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !log_line(line))
        .flat_map(str::split_whitespace)
        .filter(|word| !(word.starts_with('<') || word.starts_with('[') || word.starts_with("++")))
        .map(|word| match word.find('(') {
            Some(at) if word.ends_with(')') && word[at + 1..word.len() - 1].chars().all(|c| c.is_ascii_digit()) => {
                &word[..at]
            }
            _ => word,
        })
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The decoder writes lower case without punctuation; a chat message reads better with a
/// capital at the start and on the pronoun I (`i'm` → `I'm`).
fn tidy(words: &[String]) -> String {
    let mut out = String::new();
    for (n, word) in words.iter().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        let pronoun = word == "i" || word.starts_with("i'");
        let mut chars = word.chars();
        match chars.next() {
            Some(first) if n == 0 || pronoun => {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
            _ => out.push_str(word),
        }
    }
    out
}

#[async_trait]
impl SpeechToText for EmbeddedSpeechToText {
    fn understands(&self, language: &str) -> bool {
        primary_language(language).is_ok_and(|l| l == "en")
    }

    fn stream(&self, language: Option<&str>) -> Option<Box<dyn SpeechStream>> {
        if language.is_some_and(|tag| !self.understands(tag)) {
            return None;
        }
        let permit = self.permits.clone().try_acquire_owned().ok()?;
        let mut decoder = self.take_decoder().ok()?;
        let mut stdin = decoder.stdin.take()?;
        let (chunks, mut received) = unbounded_channel::<Vec<i16>>();
        tokio::spawn(async move {
            let padding = le_bytes(&padding());
            if stdin.write_all(&padding).await.is_err() {
                return;
            }
            while let Some(chunk) = received.recv().await {
                if stdin.write_all(&le_bytes(&chunk)).await.is_err() {
                    return;
                }
            }
            // The utterance ended (or was abandoned): silence after it, then the end of input.
            let _ = stdin.write_all(&padding).await;
        });
        Some(Box::new(EmbeddedStream {
            chunks,
            decoder,
            program: self.settings.program.clone(),
            timeout_ms: self.settings.timeout_ms,
            max_audio_ms: self.settings.max_audio_ms,
            _permit: permit,
        }))
    }

    fn prepare(&self) {
        let mut ready = self.ready();
        if ready.as_mut().is_some_and(running) {
            return;
        }
        // A missing program or model is reported by the utterance that needs it.
        *ready = self.start_decoder().ok();
    }

    async fn transcribe(&self, samples: &[i16], language: Option<&str>) -> Result<Transcript, AiError> {
        let started = Instant::now();
        if let Some(tag) = language
            && primary_language(tag)? != "en"
        {
            return Err(AiError::BadRequest(format!(
                "the embedded speech recogniser understands English only, not {tag:?}; \
                 other languages need the OpenAI-compatible backend"
            )));
        }
        let duration_ms = check_audio(samples, self.settings.max_audio_ms)?;
        // The time limit covers the wait for a turn too: a caller is never held longer.
        let deadline = started + Duration::from_millis(self.settings.timeout_ms);
        let left = deadline.saturating_duration_since(Instant::now());
        let _permit = tokio::time::timeout(left, self.permits.acquire())
            .await
            .map_err(|_| AiError::Busy("the speech recogniser is busy".into()))?
            .map_err(|_| AiError::Unavailable("the speech recogniser is shutting down".into()))?;
        let padding = padding();
        let padded: Vec<i16> = [&padding[..], samples, &padding[..]].concat();
        let stdout = self.decode(&padded, deadline).await?;
        Ok(Transcript {
            text: tidy(&words_of(&stdout)),
            duration_ms,
            language: Some("en".into()),
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::transcription::pcm;
    use crate::transcription::testing::{espeak, flite, found_on_path, word_error_rate};

    /// The decoder and its model are set-up requirements: missing ones fail here, loudly.
    fn model() -> EmbeddedSpeechToText {
        for program in ["pocketsphinx_continuous", "espeak-ng"] {
            assert!(
                found_on_path(program),
                "{program} is not on PATH: run scripts/test (or apt-get install pocketsphinx pocketsphinx-en-us espeak-ng)"
            );
        }
        // The tests check what is heard, not how fast: on a machine shared with a whole CI
        // run a 5 s sentence has taken 45 s of wall time (4.5 s of CPU).
        let settings =
            EmbeddedTranscriptionSettings { timeout_ms: 600_000, ..EmbeddedTranscriptionSettings::default() };
        let model = EmbeddedSpeechToText::new(&settings);
        if let Err(e) = model.model_files() {
            panic!("{e}: run scripts/test (or apt-get install pocketsphinx-en-us)");
        }
        model
    }

    #[test]
    fn only_words_are_kept_from_the_decoders_output() {
        let stdout =
            "INFO: continuous.c(307): compiled\n\nhello there <sil> [NOISE] read(2) ++BREATH++\n  how are you\n";
        assert_eq!(words_of(stdout), ["hello", "there", "read", "how", "are", "you"]);
        assert!(words_of("").is_empty());
        // Only a whole trailing "(digits)" is a pronunciation mark.
        assert_eq!(words_of("c(3)po (2)"), ["c(3)po"]);
        let words: Vec<String> = ["i'm", "sure", "i", "said", "hi"].map(String::from).to_vec();
        assert_eq!(tidy(&words), "I'm sure I said hi");
        assert_eq!(tidy(&[]), "");
    }

    /// Sentences a user might say on a call, spoken by espeak-ng's Klatt voice: the
    /// formant voice espeak-ng uses by default is recognised far worse (WER about 0.8 against
    /// about 0.4 for Klatt, measured while writing this), being further from human speech.
    pub(crate) const SENTENCES: [&str; 5] = [
        "I would like to talk about the weather today and what we should cook for dinner",
        "Hello how are you doing this evening",
        "Tell me a story about your favorite place in the city",
        "I had a long day at work and I am very tired",
        "Can you remind me to call my mother tomorrow morning",
    ];

    #[tokio::test]
    async fn transcribes_espeak_speech_with_most_words_right() {
        let model = model();
        let (mut errors, mut words) = (0.0, 0usize);
        for sentence in SENTENCES {
            let samples = espeak(sentence, "en-us+klatt", 140);
            let transcript = model.transcribe(&samples, Some("en-US")).await.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(transcript.duration_ms, pcm::duration_ms(&samples));
            assert_eq!(transcript.language.as_deref(), Some("en"));
            let wer = word_error_rate(sentence, &transcript.text);
            println!("WER {wer:.2}: {sentence:?} → {:?} ({} ms)", transcript.text, transcript.elapsed_ms);
            let n = sentence.split_whitespace().count();
            errors += wer * n as f64;
            words += n;
        }
        let wer = errors / words as f64;
        println!("espeak-ng (en-us+klatt, 140 wpm): WER {wer:.3} over {words} words");
        // Measured 0.375 on these sentences; above 0.6 something broke (the model, the WAV
        // header, the sample rate), since a wrong rate or header gives WER near 1.
        assert!(wer < 0.6, "word error rate {wer:.3}");
    }

    #[tokio::test]
    async fn transcribes_flite_speech_nearly_word_for_word() {
        let model = model();
        let (mut errors, mut words) = (0.0, 0usize);
        for sentence in SENTENCES {
            let samples = flite(sentence);
            let transcript = model.transcribe(&samples, None).await.unwrap_or_else(|e| panic!("{e}"));
            let wer = word_error_rate(sentence, &transcript.text);
            println!(
                "WER {wer:.2}: {sentence:?} → {:?} (real-time factor {:.2})",
                transcript.text,
                transcript.elapsed_ms as f64 / transcript.duration_ms as f64
            );
            let n = sentence.split_whitespace().count();
            errors += wer * n as f64;
            words += n;
        }
        let wer = errors / words as f64;
        println!("flite (slt): WER {wer:.3} over {words} words");
        // Measured 0.07 (the pocketsphinx command on the same WAVs): four words of 56 wrong.
        assert!(wer < 0.2, "word error rate {wer:.3}");
    }

    #[tokio::test]
    async fn silence_is_no_words_and_bad_requests_are_refused() {
        let model = model();
        let silence = model.transcribe(&[0; 16_000], None).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((silence.text.as_str(), silence.duration_ms), ("", 1000));
        assert!(matches!(model.transcribe(&[], None).await, Err(AiError::BadRequest(m)) if m.contains("no audio")));
        let french = model.transcribe(&[0; 1600], Some("fr-FR")).await;
        assert!(matches!(french, Err(AiError::BadRequest(m)) if m.contains("English only")));
        let long = vec![0; 16 * 30_001]; // max_audio_ms is 30 000 by default
        assert!(matches!(model.transcribe(&long, None).await, Err(AiError::BadRequest(m)) if m.contains("limit")));

        let settings = EmbeddedTranscriptionSettings {
            program: "amora-no-such-pocketsphinx".into(),
            ..EmbeddedTranscriptionSettings::default()
        };
        let missing = EmbeddedSpeechToText::new(&settings).transcribe(&[0; 1600], None).await;
        assert!(matches!(missing, Err(AiError::Unavailable(m)) if m.contains("not installed")));
        let settings = EmbeddedTranscriptionSettings {
            model_dir: "/nonexistent".into(),
            ..EmbeddedTranscriptionSettings::default()
        };
        let missing = EmbeddedSpeechToText::new(&settings).transcribe(&[0; 1600], None).await;
        assert!(matches!(missing, Err(AiError::Unavailable(m)) if m.contains("pocketsphinx-en-us")));
    }

    #[tokio::test]
    async fn a_decoder_past_its_time_is_killed() {
        // A "decoder" that never ends stands for a stuck one: the call ends at the time
        // limit and the child does not outlive it.
        model();
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let script = dir.path().join("slow-pocketsphinx");
        let pid_file = dir.path().join("pid");
        std::fs::write(&script, format!("#!/bin/sh\necho $$ >> {}\nexec sleep 30\n", pid_file.display()))
            .unwrap_or_else(|e| panic!("{e}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap_or_else(|e| panic!("{e}"));
        let settings = EmbeddedTranscriptionSettings {
            program: script.display().to_string(),
            timeout_ms: 300,
            ..EmbeddedTranscriptionSettings::default()
        };
        let started = Instant::now();
        let model = EmbeddedSpeechToText::new(&settings);
        let result = model.transcribe(&[0; 1600], None).await;
        assert!(matches!(result, Err(AiError::Unavailable(m)) if m.contains("longer than")));
        assert!(started.elapsed() < Duration::from_secs(5));
        tokio::time::sleep(Duration::from_millis(200)).await;
        // Gone, or a zombie waiting to be reaped: either way no longer running.
        let running = || -> Vec<String> {
            let pids = std::fs::read_to_string(&pid_file).unwrap_or_default();
            pids.lines()
                .filter(|pid| {
                    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                    let state = stat.rsplit(')').next().unwrap_or_default().trim_start().chars().next();
                    !matches!(state, None | Some('Z') | Some('X'))
                })
                .map(str::to_owned)
                .collect()
        };
        let started_decoders = std::fs::read_to_string(&pid_file).unwrap_or_default().lines().count();
        assert_eq!(started_decoders, 2, "the one that took too long and the next one, waiting ready");
        assert_eq!(running().len(), 1, "only the decoder waiting ready runs on");
        drop(model);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(running().is_empty(), "the waiting decoder ends with the model");
    }

    #[tokio::test]
    async fn an_utterance_streamed_as_it_is_spoken_is_recognised() {
        let model = model();
        assert!(model.stream(Some("fr-FR")).is_none(), "English only: transcribe says why");
        let samples = flite(SENTENCES[3]);
        let mut stream = model.stream(Some("en-US")).unwrap_or_else(|| panic!("a stream"));
        assert!(model.stream(None).is_none(), "one decoder at a time (concurrent = 1)");
        for chunk in samples.chunks(1_600) {
            stream.push(chunk);
        }
        let transcript = stream.finish(&samples).await.unwrap_or_else(|e| panic!("{e}"));
        let wer = word_error_rate(SENTENCES[3], &transcript.text);
        println!("streamed: WER {wer:.2}: {:?} ({} ms after the end)", transcript.text, transcript.elapsed_ms);
        assert!(wer < 0.5, "{:?}", transcript.text);
        assert_eq!(transcript.duration_ms, pcm::duration_ms(&samples));
        assert!(model.stream(None).is_some(), "the decoder's turn ended with the utterance");
        let too_long = model.stream(None).unwrap_or_else(|| panic!("a stream")).finish(&vec![0; 16 * 30_001]).await;
        assert!(matches!(too_long, Err(AiError::BadRequest(m)) if m.contains("limit")));
    }

    #[tokio::test]
    async fn the_next_utterance_finds_a_decoder_ready() {
        let model = model();
        model.prepare();
        let first = model.ready().as_ref().and_then(Child::id);
        assert!(first.is_some(), "prepare starts a decoder");
        model.prepare();
        assert_eq!(model.ready().as_ref().and_then(Child::id), first, "and leaves a live one in place");
        let samples = flite(SENTENCES[1]);
        let transcript = model.transcribe(&samples, None).await.unwrap_or_else(|e| panic!("{e}"));
        assert!(word_error_rate(SENTENCES[1], &transcript.text) < 0.5, "{:?}", transcript.text);
        let next = model.ready().as_ref().and_then(Child::id);
        assert!(next.is_some() && next != first, "the utterance took the ready decoder and started the next");
    }

    #[tokio::test]
    async fn a_failing_decoder_says_why() {
        model();
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let script = dir.path().join("broken-pocketsphinx");
        std::fs::write(
            &script,
            "#!/bin/sh\necho 'INFO: starting' >&2\necho 'FATAL: \"x.c\", line 1: out of luck' >&2\nexit 1\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap_or_else(|e| panic!("{e}"));
        let settings = EmbeddedTranscriptionSettings {
            program: script.display().to_string(),
            ..EmbeddedTranscriptionSettings::default()
        };
        let result = EmbeddedSpeechToText::new(&settings).transcribe(&[0; 1600], None).await;
        assert!(matches!(result, Err(AiError::Internal(m)) if m.contains("out of luck") && !m.contains("starting")));
    }
}
