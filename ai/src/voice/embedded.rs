//! The embedded voice: flite (Debian's `flite`, CMU's synthesiser) run as a child process
//! writes a WAV, and lame encodes it to MP3 for mobile data. No network, no model files:
//! the voices are compiled into flite.
//!
//! Why flite and not espeak-ng: flite's `slt` (US female) and `rms` / `awb` (male) are
//! clustergen voices trained on recorded speakers (CMU ARCTIC), which sound like a person
//! reading; espeak-ng is a formant synthesiser, clear but plainly robotic. flite is also
//! fast (about 0.02–0.03 of real time on this machine, BENCHMARKS.md) and small (about
//! 28 MB installed against espeak-ng's 13 MB, a fair price for the voices).
//!
//! flite seeks in its output, so it cannot write to a pipe: each call works in its own
//! temporary directory (text in, WAV, MP3), removed when the call ends. A child still
//! running when the call is dropped or times out is killed (`kill_on_drop`).

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::process::Command;
use tokio::sync::Semaphore;

use super::audio::wav_info;
use super::{EmbeddedVoiceSettings, Speech, Voice, VoiceModel};
use crate::AiError;

/// One of flite's voices, possibly with its pitch or pace changed, offered as a voice.
struct FliteVoice {
    id: &'static str,
    gender: u8,
    label: &'static str,
    /// flite's own voice name.
    base: &'static str,
    /// `--setf` features: mean pitch (Hz) and pace.
    features: &'static [&'static str],
}

/// What the embedded model offers: flite has one female voice, so two variants of her pitch
/// give female characters some variety (flite's `rms` ignores a pitch target, so its
/// variant changes the pace). `kal` is left out: an 8 kHz diphone voice, much rougher.
const VOICES: &[FliteVoice] = &[
    FliteVoice { id: "slt", gender: 0, label: "Sarah (US)", base: "slt", features: &[] },
    FliteVoice {
        id: "slt-bright",
        gender: 0,
        label: "Sarah, brighter (US)",
        base: "slt",
        features: &["int_f0_target_mean=215"],
    },
    FliteVoice {
        id: "slt-low",
        gender: 0,
        label: "Sarah, lower (US)",
        base: "slt",
        features: &["int_f0_target_mean=150", "duration_stretch=1.05"],
    },
    FliteVoice { id: "rms", gender: 1, label: "Robert (US)", base: "rms", features: &[] },
    FliteVoice {
        id: "rms-slow",
        gender: 1,
        label: "Robert, slower (US)",
        base: "rms",
        features: &["duration_stretch=1.1"],
    },
    FliteVoice { id: "awb", gender: 1, label: "Alan (Scottish)", base: "awb", features: &[] },
];

/// The embedded voice model.
pub struct EmbeddedVoiceModel {
    settings: EmbeddedVoiceSettings,
    permits: Semaphore,
}

impl std::fmt::Debug for EmbeddedVoiceModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedVoiceModel").field("settings", &self.settings).finish()
    }
}

impl EmbeddedVoiceModel {
    pub fn new(settings: &EmbeddedVoiceSettings) -> Self {
        Self { settings: settings.clone(), permits: Semaphore::new(settings.concurrent.max(1)) }
    }

    /// Runs one child to the end within `deadline`, killing it past that.
    async fn run(&self, program: &str, args: &[&std::ffi::OsStr], deadline: Instant) -> Result<(), AiError> {
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    AiError::Unavailable(format!(
                        "{program} is not installed (the set-up commands install it from Debian's packages)"
                    ))
                } else {
                    AiError::Unavailable(format!("cannot start {program}: {e}"))
                }
            })?;
        let left = deadline.saturating_duration_since(Instant::now());
        // On time-out the future, and with it the child, is dropped: kill_on_drop ends it.
        let output = tokio::time::timeout(left, child.wait_with_output())
            .await
            .map_err(|_| AiError::Unavailable(format!("{program} took longer than {} ms", self.settings.timeout_ms)))?
            .map_err(|e| AiError::Unavailable(format!("{program} failed: {e}")))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(AiError::Internal(format!("{program} exited with {}: {}", output.status, stderr.trim())));
        }
        Ok(())
    }

    async fn synthesise(
        &self,
        text: &str,
        voice: &FliteVoice,
        dir: &Path,
        deadline: Instant,
    ) -> Result<Speech, AiError> {
        let io = |e: std::io::Error| AiError::Internal(format!("voice scratch file: {e}"));
        let text_path = dir.join("text.txt");
        let wav_path = dir.join("speech.wav");
        let mp3_path = dir.join("speech.mp3");
        // The text goes in a file, never on the command line, where a leading `-` would be
        // read as an option.
        tokio::fs::write(&text_path, text).await.map_err(io)?;
        let mut args: Vec<&std::ffi::OsStr> = vec!["-voice".as_ref(), voice.base.as_ref()];
        for feature in voice.features {
            args.push("--setf".as_ref());
            args.push(feature.as_ref());
        }
        args.extend(["-f".as_ref(), text_path.as_os_str(), "-o".as_ref(), wav_path.as_os_str()]);
        self.run(&self.settings.flite, &args, deadline).await?;

        let wav = tokio::fs::read(&wav_path).await.map_err(io)?;
        let duration_ms = wav_info(&wav)?.duration_ms();
        let bitrate = self.settings.bitrate_kbps.to_string();
        // Mono, constant bitrate; lame reads the WAV header itself (rate, width).
        let args: Vec<&std::ffi::OsStr> = vec![
            "--quiet".as_ref(),
            "-m".as_ref(),
            "m".as_ref(),
            "-b".as_ref(),
            bitrate.as_ref(),
            wav_path.as_os_str(),
            mp3_path.as_os_str(),
        ];
        self.run(&self.settings.lame, &args, deadline).await?;
        let bytes = tokio::fs::read(&mp3_path).await.map_err(io)?;
        Ok(Speech { content_type: "audio/mpeg".into(), bytes, duration_ms })
    }
}

#[async_trait]
impl VoiceModel for EmbeddedVoiceModel {
    fn voices(&self) -> Vec<Voice> {
        VOICES.iter().map(|v| Voice { voice_id: v.id.into(), gender: v.gender, label: v.label.into() }).collect()
    }

    async fn speak(&self, text: &str, voice_id: &str) -> Result<Speech, AiError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(AiError::BadRequest("nothing to say".into()));
        }
        let chars = text.chars().count();
        if chars > self.settings.max_chars {
            return Err(AiError::BadRequest(format!(
                "{chars} characters is over the limit of {}",
                self.settings.max_chars
            )));
        }
        let voice = VOICES
            .iter()
            .find(|v| v.id == voice_id)
            .ok_or_else(|| AiError::BadRequest(format!("no voice {voice_id:?}")))?;
        // The time limit covers the wait for a turn too: a caller is never held longer.
        let deadline = Instant::now() + Duration::from_millis(self.settings.timeout_ms);
        let left = deadline.saturating_duration_since(Instant::now());
        let _permit = tokio::time::timeout(left, self.permits.acquire())
            .await
            .map_err(|_| AiError::Busy("the synthesiser is busy".into()))?
            .map_err(|_| AiError::Unavailable("the synthesiser is shutting down".into()))?;
        let dir = tempfile::Builder::new()
            .prefix("amora-voice-")
            .tempdir()
            .map_err(|e| AiError::Internal(format!("voice scratch directory: {e}")))?;
        self.synthesise(text, voice, dir.path(), deadline).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voice::audio::mp3_duration_ms;

    /// The synthesiser and encoder are set-up requirements: missing ones fail here, loudly.
    fn model() -> EmbeddedVoiceModel {
        for program in ["flite", "lame"] {
            let found = std::env::var_os("PATH")
                .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()));
            assert!(found, "{program} is not on PATH: run scripts/test (or apt-get install flite lame)");
        }
        EmbeddedVoiceModel::new(&EmbeddedVoiceSettings::default())
    }

    #[tokio::test]
    async fn speaks_each_voice_to_an_mp3_of_the_right_length() {
        let model = model();
        let voices = model.voices();
        assert!(voices.iter().any(|v| v.gender == 0) && voices.iter().any(|v| v.gender == 1));
        let mut sizes = Vec::new();
        for voice in &voices {
            let speech = model
                .speak("Hello there! I missed you today.", &voice.voice_id)
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", voice.voice_id));
            assert_eq!(speech.content_type, "audio/mpeg");
            assert_eq!(&speech.bytes[..2], &[0xFF, 0xF3], "{}: an MPEG-2 Layer III frame first", voice.voice_id);
            assert!((1000..4000).contains(&speech.duration_ms), "{}: {} ms", voice.voice_id, speech.duration_ms);
            let encoded = mp3_duration_ms(&speech.bytes).unwrap_or_else(|e| panic!("{e}"));
            // The encoder's delay and padding of the last frame: within a few 36 ms frames.
            assert!(encoded.abs_diff(speech.duration_ms) <= 150, "mp3 {encoded} ms, pcm {} ms", speech.duration_ms);
            // 32 kbps: about 4 KB a second.
            assert!(speech.bytes.len() as u64 <= speech.duration_ms * 5, "{} bytes", speech.bytes.len());
            sizes.push(speech.bytes);
        }
        assert_ne!(sizes[0], sizes[1], "a pitch variant differs from its voice");
    }

    #[tokio::test]
    async fn longer_text_speaks_longer() {
        let model = model();
        let short = model.speak("Hi.", "slt").await.unwrap_or_else(|e| panic!("{e}"));
        let long = model
            .speak("Hi. It is lovely to see you again; tell me everything about your day, from the start.", "slt")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(long.duration_ms > short.duration_ms * 3, "{} vs {}", long.duration_ms, short.duration_ms);
    }

    #[tokio::test]
    async fn refuses_bad_requests_and_reports_a_missing_program() {
        let model = model();
        assert!(matches!(model.speak("  ", "slt").await, Err(AiError::BadRequest(_))));
        assert!(matches!(model.speak("Hi", "nobody").await, Err(AiError::BadRequest(m)) if m.contains("nobody")));
        let long = "a".repeat(1001);
        assert!(matches!(model.speak(&long, "slt").await, Err(AiError::BadRequest(m)) if m.contains("limit")));
        // A leading dash is text, not an option.
        assert!(model.speak("-voice kal -- hello", "slt").await.is_ok());

        let settings =
            EmbeddedVoiceSettings { flite: "amora-no-such-flite".into(), ..EmbeddedVoiceSettings::default() };
        let missing = EmbeddedVoiceModel::new(&settings).speak("Hi", "slt").await;
        assert!(matches!(missing, Err(AiError::Unavailable(m)) if m.contains("not installed")));
    }

    #[tokio::test]
    async fn a_synthesiser_past_its_time_is_killed() {
        // A "synthesiser" that never ends stands for a stuck flite: the call ends at the
        // time limit and the child does not outlive it.
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let script = dir.path().join("slow-flite");
        let pid_file = dir.path().join("pid");
        std::fs::write(&script, format!("#!/bin/sh\necho $$ > {}\nexec sleep 30\n", pid_file.display()))
            .unwrap_or_else(|e| panic!("{e}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap_or_else(|e| panic!("{e}"));
        let settings = EmbeddedVoiceSettings {
            flite: script.display().to_string(),
            timeout_ms: 300,
            ..EmbeddedVoiceSettings::default()
        };
        let started = Instant::now();
        let result = EmbeddedVoiceModel::new(&settings).speak("Hi", "slt").await;
        assert!(matches!(result, Err(AiError::Unavailable(m)) if m.contains("longer than")));
        assert!(started.elapsed() < Duration::from_secs(5));
        tokio::time::sleep(Duration::from_millis(200)).await;
        let pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
        assert!(!pid.trim().is_empty());
        // Gone, or a zombie waiting to be reaped: either way no longer running.
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or_default().trim_start().chars().next();
        assert!(matches!(state, None | Some('Z') | Some('X')), "the child was killed: {stat}");
    }
}
