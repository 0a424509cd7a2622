//! Voice activity detection for calls: from the microphone's 16 kHz samples, when the user
//! started speaking (the character stops talking: barge-in) and when they stopped (their
//! words go to the recogniser and the character answers).
//!
//! A streaming detector over 20 ms frames. A frame is *voiced* when its energy stands
//! [`VadSettings::threshold_db`] above the noise floor (and above an absolute
//! [`VadSettings::min_level_dbfs`], so a silent room's hiss never counts). The noise floor
//! is the 10th percentile of the frame energies of the last two seconds: speech has gaps
//! between syllables and words, so the floor stays near the room's noise while someone
//! talks, yet it rises within two seconds when a steady noise starts (a fan, a car), which
//! then stops counting as speech. Speech starts once [`VadSettings::min_speech_ms`] of
//! voiced frames came with no long gap (a click, a knock or a cough's tail is shorter), and
//! ends after [`VadSettings::hangover_ms`] without a voiced frame (pauses inside a sentence
//! are shorter).
//!
//! Written here rather than taken from a crate: WebRTC's VAD (the `webrtc-vad` crate)
//! builds C code and classifies frames only, and Silero's (`voice_activity_detector`)
//! needs ONNX Runtime and a model file; the start/end logic around a frame classifier
//! would be needed either way, and energy against an adaptive floor is enough for a
//! browser's microphone with its own noise suppression.
//! (Neither was in the offline crate cache, and `cargo search` could not reach the
//! registry's index to weigh a pure-Rust one such as `earshot`.)

use std::collections::VecDeque;

use super::SAMPLE_RATE;

/// The detector's frame length.
pub const FRAME_MS: u64 = 20;
const FRAME: usize = (SAMPLE_RATE as u64 * FRAME_MS / 1000) as usize;
/// Frames of energy history the noise floor is taken from (two seconds).
const FLOOR_WINDOW: usize = 100;
/// Energy of digital silence, in dBFS (the log of zero has none).
const SILENCE_DBFS: f32 = -100.0;

/// How the detector decides. The defaults suit a call: an utterance ends after 700 ms of
/// silence, about what people leave at the end of a turn and longer than a pause for breath.
#[derive(Debug, Clone, PartialEq)]
pub struct VadSettings {
    /// How far above the noise floor a frame's energy must be to be voiced, in dB.
    pub threshold_db: f32,
    /// Frames quieter than this are never voiced, in dB below full scale.
    pub min_level_dbfs: f32,
    /// Voiced time before it counts as speech; also the longest gap in it before that.
    pub min_speech_ms: u64,
    /// Silence that ends an utterance.
    pub hangover_ms: u64,
    /// Audio kept before the first voiced frame, for the recogniser: a soft first
    /// consonant is often below the threshold.
    pub pre_roll_ms: u64,
    /// Audio kept after the last voiced frame, for the same reason.
    pub post_roll_ms: u64,
    /// An utterance this long ends even if the user goes on (the recognisers' limit).
    pub max_utterance_ms: u64,
}

impl Default for VadSettings {
    fn default() -> Self {
        Self {
            threshold_db: 10.0,
            min_level_dbfs: -50.0,
            min_speech_ms: 200,
            hangover_ms: 700,
            pre_roll_ms: 300,
            post_roll_ms: 200,
            max_utterance_ms: 30_000,
        }
    }
}

/// What the detector found. Times are from the start of the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VadEvent {
    /// The user started speaking at `at_ms` (the first voiced frame; told once
    /// `min_speech_ms` of speech confirmed it).
    SpeechStarted { at_ms: u64 },
    /// The user stopped: voiced frames from `start_ms` to `end_ms`. `samples` is the
    /// utterance for the recogniser, from `pre_roll_ms` before the start to `post_roll_ms`
    /// after the end.
    SpeechEnded { start_ms: u64, end_ms: u64, samples: Vec<i16> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No speech.
    Quiet,
    /// Voiced frames began at `start` (a sample index) but not yet `min_speech_ms` of them.
    Maybe { start: u64, voiced_frames: u64, silent_frames: u64 },
    /// Speech from `start`; the last voiced frame ended at `last_voiced_end`.
    Speech { start: u64, last_voiced_end: u64, silent_frames: u64 },
}

/// A streaming voice activity detector: [`push`](Self::push) the samples as they come.
#[derive(Debug, Clone)]
pub struct VoiceActivityDetector {
    settings: VadSettings,
    state: State,
    /// Samples not yet making a whole frame.
    pending: Vec<i16>,
    /// Samples consumed in whole frames so far.
    position: u64,
    /// Energies of the last frames (dBFS), for the noise floor.
    levels: VecDeque<f32>,
    /// The audio that may become an utterance: the pre-roll while quiet, the utterance so
    /// far otherwise. `buffer_start` is the sample index of its first sample.
    buffer: VecDeque<i16>,
    buffer_start: u64,
}

fn ms_to_samples(ms: u64) -> u64 {
    ms * u64::from(SAMPLE_RATE) / 1000
}

fn samples_to_ms(samples: u64) -> u64 {
    samples * 1000 / u64::from(SAMPLE_RATE)
}

fn ms_to_frames(ms: u64) -> u64 {
    ms.div_ceil(FRAME_MS).max(1)
}

/// A frame's energy in dB below full scale.
fn level_dbfs(frame: &[i16]) -> f32 {
    let power = frame.iter().map(|&s| f64::from(s).powi(2)).sum::<f64>() / frame.len().max(1) as f64;
    if power <= 0.0 {
        return SILENCE_DBFS;
    }
    ((10.0 * (power / (32768.0 * 32768.0)).log10()) as f32).max(SILENCE_DBFS)
}

impl VoiceActivityDetector {
    pub fn new(settings: VadSettings) -> Self {
        Self {
            settings,
            state: State::Quiet,
            pending: Vec::with_capacity(FRAME),
            position: 0,
            levels: VecDeque::with_capacity(FLOOR_WINDOW + 1),
            buffer: VecDeque::new(),
            buffer_start: 0,
        }
    }

    /// True while the user is speaking (after `SpeechStarted`, before `SpeechEnded`).
    pub fn in_speech(&self) -> bool {
        matches!(self.state, State::Speech { .. })
    }

    /// How much of the stream has been looked at, in milliseconds.
    pub fn position_ms(&self) -> u64 {
        samples_to_ms(self.position)
    }

    /// The noise floor now, in dBFS: the 10th percentile of recent frames' energies.
    pub fn noise_floor_dbfs(&self) -> f32 {
        if self.levels.is_empty() {
            return SILENCE_DBFS;
        }
        let mut sorted: Vec<f32> = self.levels.iter().copied().collect();
        sorted.sort_by(f32::total_cmp);
        sorted[sorted.len() / 10]
    }

    /// The audio of the utterance under way, from its pre-roll up to the last whole frame
    /// pushed (empty when quiet): what a recogniser hearing it as it is spoken starts from.
    pub fn heard_so_far(&self) -> Vec<i16> {
        if matches!(self.state, State::Quiet) { Vec::new() } else { self.buffer.iter().copied().collect() }
    }

    /// Feeds `samples` (16 kHz mono, any count) and returns what they showed, in order.
    pub fn push(&mut self, samples: &[i16]) -> Vec<VadEvent> {
        let mut events = Vec::new();
        let mut rest = samples;
        while !rest.is_empty() {
            let take = (FRAME - self.pending.len()).min(rest.len());
            self.pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.pending.len() == FRAME {
                let frame = std::mem::take(&mut self.pending);
                events.extend(self.frame(&frame));
                self.pending = frame;
                self.pending.clear();
            }
        }
        events
    }

    /// The stream has ended (the call, or the microphone): an utterance in progress ends
    /// here. The detector starts afresh after.
    pub fn finish(&mut self) -> Option<VadEvent> {
        let event = match self.state {
            State::Speech { start, last_voiced_end, .. } => Some(self.end(start, last_voiced_end)),
            _ => None,
        };
        *self = Self::new(self.settings.clone());
        event
    }

    fn frame(&mut self, frame: &[i16]) -> Option<VadEvent> {
        let level = level_dbfs(frame);
        let floor = if self.levels.is_empty() { level } else { self.noise_floor_dbfs() };
        let voiced = level >= self.settings.min_level_dbfs && level >= floor + self.settings.threshold_db;
        self.levels.push_back(level);
        if self.levels.len() > FLOOR_WINDOW {
            self.levels.pop_front();
        }
        let frame_start = self.position;
        self.position += FRAME as u64;
        self.buffer.extend(frame);

        let min_speech = ms_to_frames(self.settings.min_speech_ms);
        let mut event = None;
        self.state = match self.state {
            State::Quiet if voiced => State::Maybe { start: frame_start, voiced_frames: 1, silent_frames: 0 },
            State::Quiet => State::Quiet,
            State::Maybe { start, voiced_frames, silent_frames } => {
                let (voiced_frames, silent_frames) =
                    if voiced { (voiced_frames + 1, 0) } else { (voiced_frames, silent_frames + 1) };
                if voiced_frames >= min_speech {
                    event = Some(VadEvent::SpeechStarted { at_ms: samples_to_ms(start) });
                    State::Speech { start, last_voiced_end: self.position, silent_frames: 0 }
                } else if silent_frames >= min_speech {
                    State::Quiet // a click: too little sound before a gap
                } else {
                    State::Maybe { start, voiced_frames, silent_frames }
                }
            }
            State::Speech { start, last_voiced_end, silent_frames } => {
                let (last_voiced_end, silent_frames) =
                    if voiced { (self.position, 0) } else { (last_voiced_end, silent_frames + 1) };
                let too_long = self.position - start >= ms_to_samples(self.settings.max_utterance_ms);
                if silent_frames >= ms_to_frames(self.settings.hangover_ms) || too_long {
                    event = Some(self.end(start, last_voiced_end));
                    State::Quiet
                } else {
                    State::Speech { start, last_voiced_end, silent_frames }
                }
            }
        };
        if !matches!(self.state, State::Speech { .. } | State::Maybe { .. }) {
            // Quiet: keep only the pre-roll.
            let keep = ms_to_samples(self.settings.pre_roll_ms) as usize;
            while self.buffer.len() > keep {
                self.buffer.pop_front();
                self.buffer_start += 1;
            }
        }
        event
    }

    /// The `SpeechEnded` of speech from `start` to `last_voiced_end` (sample indices).
    fn end(&mut self, start: u64, last_voiced_end: u64) -> VadEvent {
        let from = start.saturating_sub(ms_to_samples(self.settings.pre_roll_ms)).max(self.buffer_start);
        let to = (last_voiced_end + ms_to_samples(self.settings.post_roll_ms))
            .min(self.buffer_start + self.buffer.len() as u64);
        let samples = self
            .buffer
            .range((from - self.buffer_start) as usize..(to - self.buffer_start) as usize)
            .copied()
            .collect();
        VadEvent::SpeechEnded { start_ms: samples_to_ms(start), end_ms: samples_to_ms(last_voiced_end), samples }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcription::testing::espeak;

    /// White noise at about `dbfs`, the same every run (a linear congruential generator).
    fn noise(ms: u64, dbfs: f64, seed: u64) -> Vec<i16> {
        let rms = 32768.0 * 10f64.powf(dbfs / 20.0);
        let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (0..ms_to_samples(ms))
            .map(|_| {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                // Uniform in [-1, 1) has an RMS of 1/√3.
                let uniform = (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
                (uniform * rms * 3f64.sqrt()) as i16
            })
            .collect()
    }

    fn tone(ms: u64, hz: f64, dbfs: f64) -> Vec<i16> {
        let peak = 32768.0 * 10f64.powf(dbfs / 20.0) * 2f64.sqrt();
        (0..ms_to_samples(ms))
            .map(|i| (peak * (std::f64::consts::TAU * hz * i as f64 / f64::from(SAMPLE_RATE)).sin()) as i16)
            .collect()
    }

    /// `a` with `b` added in from `at_ms`.
    fn mix(mut a: Vec<i16>, b: &[i16], at_ms: u64) -> Vec<i16> {
        let at = ms_to_samples(at_ms) as usize;
        for (i, s) in b.iter().enumerate() {
            if let Some(x) = a.get_mut(at + i) {
                *x = x.saturating_add(*s);
            }
        }
        a
    }

    /// Feeds `samples` in chunks of `chunk` samples, as a socket would deliver them, and
    /// returns each event with the stream position (ms) at which it was told.
    fn run(samples: &[i16], chunk: usize, settings: VadSettings) -> Vec<(u64, VadEvent)> {
        let mut vad = VoiceActivityDetector::new(settings);
        let mut events = Vec::new();
        for piece in samples.chunks(chunk) {
            for event in vad.push(piece) {
                events.push((vad.position_ms(), event));
            }
        }
        let end = vad.position_ms();
        events.extend(vad.finish().map(|e| (end, e)));
        events
    }

    fn near(actual: u64, expected: u64, tolerance: u64) -> bool {
        actual.abs_diff(expected) <= tolerance
    }

    #[test]
    fn silence_and_steady_noise_are_not_speech() {
        assert!(run(&vec![0; 16_000 * 5], 320, VadSettings::default()).is_empty());
        assert!(run(&noise(5_000, -60.0, 1), 480, VadSettings::default()).is_empty());
        assert!(run(&noise(5_000, -30.0, 2), 1000, VadSettings::default()).is_empty(), "loud but steady");
    }

    #[test]
    fn a_tone_burst_in_noise_starts_and_ends_on_time() {
        let signal = mix(noise(4_000, -55.0, 3), &tone(1_500, 220.0, -20.0), 1_000);
        let events = run(&signal, 512, VadSettings::default());
        assert_eq!(events.len(), 2, "{events:?}");
        let (told, VadEvent::SpeechStarted { at_ms }) = &events[0] else { panic!("{events:?}") };
        assert!(near(*at_ms, 1_000, 20), "started at {at_ms}");
        // Told once min_speech_ms confirmed it (plus a chunk of delivery).
        assert!(near(*told, 1_200, 40), "told at {told}");
        let (told, VadEvent::SpeechEnded { start_ms, end_ms, samples }) = &events[1] else { panic!("{events:?}") };
        assert!(near(*start_ms, 1_000, 20) && near(*end_ms, 2_500, 20), "{start_ms}..{end_ms}");
        // Told after the hangover, not before.
        assert!(*told >= 2_500 + 700 && *told <= 2_500 + 700 + 60, "told at {told}");
        // The utterance with its pre-roll (300 ms) and post-roll (200 ms).
        assert!(near(samples.len() as u64, ms_to_samples(300 + 1_500 + 200), 400), "{}", samples.len());
        let expected = &signal[ms_to_samples(700) as usize..][..samples.len()];
        assert_eq!(&samples[..], expected, "the utterance is the stream's own samples");
    }

    #[test]
    fn a_click_is_not_speech_and_a_short_pause_does_not_end_it() {
        let clicks = mix(mix(noise(3_000, -60.0, 4), &tone(40, 1000.0, -10.0), 1_000), &tone(60, 1000.0, -10.0), 2_000);
        assert!(run(&clicks, 320, VadSettings::default()).is_empty());

        // Two phrases 400 ms apart: one utterance. 1 s apart: two.
        let phrase = tone(800, 180.0, -25.0);
        let one = mix(mix(noise(4_000, -60.0, 5), &phrase, 500), &phrase, 1_700);
        let events = run(&one, 320, VadSettings::default());
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(matches!(&events[1].1, VadEvent::SpeechEnded { start_ms, end_ms, .. }
            if near(*start_ms, 500, 20) && near(*end_ms, 2_500, 20)));
        let two = mix(mix(noise(5_000, -60.0, 6), &phrase, 500), &phrase, 2_300);
        let ends = run(&two, 320, VadSettings::default())
            .into_iter()
            .filter(|(_, e)| matches!(e, VadEvent::SpeechEnded { .. }))
            .count();
        assert_eq!(ends, 2);
    }

    #[test]
    fn a_steady_noise_that_starts_stops_counting_as_speech() {
        // A fan starts 25 dB above a quiet room at 1 s: at first it may pass for speech, but
        // within the floor's window it is the floor, and a voice above it is heard again.
        let mut signal = noise(1_000, -60.0, 7);
        signal.extend(mix(noise(8_000, -35.0, 8), &tone(1_000, 200.0, -15.0), 6_000));
        let events = run(&signal, 320, VadSettings::default());
        let ends: Vec<(u64, u64)> = events
            .iter()
            .filter_map(|(_, e)| match e {
                VadEvent::SpeechEnded { start_ms, end_ms, .. } => Some((*start_ms, *end_ms)),
                VadEvent::SpeechStarted { .. } => None,
            })
            .collect();
        let voice = ends.last().copied().unwrap_or_default();
        assert!(near(voice.0, 7_000, 40) && near(voice.1, 8_000, 40), "{ends:?}");
        assert!(ends.iter().all(|(_, end)| *end < 3_500 || *end >= 7_000), "the fan ended within the window: {ends:?}");
    }

    #[test]
    fn an_utterance_ends_at_the_limit_and_at_the_end_of_the_stream() {
        let settings = VadSettings { max_utterance_ms: 1_000, ..VadSettings::default() };
        let events = run(&mix(noise(3_000, -60.0, 9), &tone(2_500, 200.0, -20.0), 200), 320, settings);
        assert!(matches!(&events[1].1, VadEvent::SpeechEnded { start_ms: 200, end_ms: 1_200, .. }), "{events:?}");
        // Speech still going when the stream ends is told by finish().
        let events = run(&mix(noise(2_000, -60.0, 10), &tone(1_500, 200.0, -20.0), 500), 320, VadSettings::default());
        assert!(
            matches!(&events.last().map(|e| &e.1), Some(VadEvent::SpeechEnded { start_ms: 500, end_ms: 2_000, .. })),
            "{events:?}"
        );
    }

    #[test]
    fn what_was_heard_so_far_starts_at_the_pre_roll_and_holds_the_utterance() {
        // What a recogniser fed from SpeechStarted on gets: the utterance so far when speech
        // is told, then every later chunk; the VAD's own cut lies within it.
        let signal = mix(noise(4_000, -55.0, 3), &tone(1_500, 220.0, -20.0), 1_000);
        let mut vad = VoiceActivityDetector::new(VadSettings::default());
        let (mut fed, mut utterance, mut streaming) = (Vec::new(), None, false);
        assert!(vad.heard_so_far().is_empty());
        for piece in signal.chunks(1_600) {
            if streaming {
                fed.extend_from_slice(piece);
            }
            for event in vad.push(piece) {
                match event {
                    VadEvent::SpeechStarted { .. } => {
                        fed = vad.heard_so_far();
                        streaming = true;
                    }
                    VadEvent::SpeechEnded { samples, .. } => {
                        utterance = Some(samples);
                        streaming = false;
                    }
                }
            }
        }
        let utterance = utterance.unwrap_or_else(|| panic!("no utterance"));
        let from = ms_to_samples(700) as usize; // 300 ms of pre-roll before the tone at 1 s
        assert_eq!(&fed[..], &signal[from..from + fed.len()], "fed in order from the pre-roll");
        assert_eq!(&fed[..utterance.len()], &utterance[..], "the utterance is the start of what was fed");
        assert!(vad.heard_so_far().is_empty(), "quiet again");
    }

    #[test]
    fn espeak_speech_is_found_within_100_ms() {
        let speech = espeak("I would like to talk about the weather today", "en-us", 150);
        // Where the sound really is: the first and last sample above 1 % of full scale.
        let loud = |s: &i16| s.unsigned_abs() > 328;
        let first = speech.iter().position(loud).unwrap_or_else(|| panic!("espeak-ng made silence"));
        let last = speech.iter().rposition(loud).unwrap_or_default();
        let pad = 1_500;
        let mut signal = noise(pad, -58.0, 11);
        signal.extend(mix(noise(samples_to_ms(speech.len() as u64), -58.0, 12), &speech, 0));
        signal.extend(noise(pad, -58.0, 13));
        let (start, end) = (pad + samples_to_ms(first as u64), pad + samples_to_ms(last as u64));

        let events = run(&signal, 640, VadSettings::default());
        assert_eq!(events.len(), 2, "one utterance: {events:?}");
        let VadEvent::SpeechEnded { start_ms, end_ms, .. } = events[1].1 else { panic!("{events:?}") };
        println!("speech {start}..{end} ms, detected {start_ms}..{end_ms} ms");
        assert!(near(start_ms, start, 100), "start {start_ms}, speech from {start}");
        assert!(near(end_ms, end, 100), "end {end_ms}, speech to {end}");
    }
}
