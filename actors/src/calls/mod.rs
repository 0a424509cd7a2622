//! Voice calls (issue 32, docs/api.md "Voice calls"): `Calls`, the door the socket opens a
//! call through, and the call itself ([`call`]), one per call, owned by the socket that
//! opened it.
//!
//! A call is a loop over what the user says: the browser streams μ-law audio, voice
//! activity detection (`ai::transcription::vad`) finds where a turn ends, the recogniser
//! (`ai::transcription`, embedded PocketSphinx or an OpenAI-compatible service) turns it
//! into text, and that text is sent as the user's chat message along the very path of the
//! `chatSend` action (`Node::run_action`): moderation, free messages, the fair queue, the
//! reply streamed as `chatDelta`, stored, `chatDone`. As the reply streams, the call cuts
//! it into sentences and speaks each through the voice model (`Voices`), storing the parts
//! as the reply's voice clip, so the call's transcript is the chat history and a later
//! Listen replays what was said. What an answer costs is debited through the user's actor.

mod call;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use amora_ai::transcription::SpeechToText;
use amora_domain::account::UserId;
use base64::Engine;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use crate::Node;
use crate::voice::Voices;
use crate::wire::events::Frame;

/// The largest audio frame taken, in samples (500 ms at 16 kHz, one μ-law byte a sample).
pub const MAX_FRAME_SAMPLES: usize = 8_000;
/// The audio's sample rate and encoding, as `callStarted` tells them.
pub const SAMPLE_RATE: u32 = amora_ai::transcription::SAMPLE_RATE;
pub const ENCODING: &str = "mulaw";

/// How calls behave (`[call]` of the server's settings).
#[derive(Debug, Clone)]
pub struct CallSettings {
    /// A call in which nobody spoke for this long ends (`idle`).
    pub idle_timeout: Duration,
    /// Silence after speech that ends the user's turn.
    pub silence_ms: u64,
    /// A turn longer than this is cut and recognised.
    pub max_turn_ms: u64,
}

impl Default for CallSettings {
    fn default() -> Self {
        Self { idle_timeout: Duration::from_secs(120), silence_ms: 700, max_turn_ms: 30_000 }
    }
}

/// The node's door to calls: what every call runs with.
#[derive(Clone)]
pub struct Calls {
    inner: Arc<Inner>,
}

struct Inner {
    node: Node,
    voices: Voices,
    recogniser: Arc<dyn SpeechToText>,
    settings: CallSettings,
}

impl Calls {
    pub fn new(node: Node, voices: Voices, recogniser: Arc<dyn SpeechToText>, settings: CallSettings) -> Self {
        Self { inner: Arc::new(Inner { node, voices, recogniser, settings }) }
    }

    /// Opens a call of `user_id` with `character_id` for a socket: its answer (`callStarted`
    /// or `callError`) and every later event of the call go to `events`. The call runs on
    /// its own task until it ends or the handle is dropped (the socket closed).
    pub fn start(&self, user_id: UserId, character_id: String, events: UnboundedSender<Frame>) -> CallHandle {
        let call_id = format!("c{}", random_hex(16));
        let (inputs, received) = unbounded_channel();
        let open = Arc::new(AtomicBool::new(true));
        let call = call::Call::new(self.inner.clone(), user_id, call_id.clone(), events, open.clone());
        tokio::spawn(call.run(character_id, received));
        CallHandle { call_id, inputs, open }
    }
}

/// What the socket tells its call.
#[derive(Debug)]
enum Input {
    Audio { seq: u64, samples: Vec<i16> },
    Interrupt,
    End,
    Chat(call::ChatNews),
}

/// The socket's hold on its call. Dropping it ends the call silently.
pub struct CallHandle {
    call_id: String,
    inputs: UnboundedSender<Input>,
    open: Arc<AtomicBool>,
}

/// Why an audio frame was refused (`callError` 10001; the call goes on).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum AudioError {
    #[error("audio is base64 of μ-law bytes")]
    NotBase64,
    #[error("a frame holds at most 500 ms of audio ({MAX_FRAME_SAMPLES} samples); this one held {0}")]
    TooLong(usize),
}

impl CallHandle {
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// True from `callStart` until the call ended or was refused.
    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::SeqCst) && !self.inputs.is_closed()
    }

    /// A frame of the microphone: base64 μ-law, decoded here so that a bad frame is
    /// refused at once.
    pub fn audio(&self, seq: u64, audio: &str) -> Result<(), AudioError> {
        // A frame's base64 is at most 4/3 of its bytes: refuse a long one before decoding.
        if audio.len() > MAX_FRAME_SAMPLES.div_ceil(3) * 4 + 4 {
            return Err(AudioError::TooLong(audio.len() / 4 * 3));
        }
        let bytes = base64::engine::general_purpose::STANDARD.decode(audio).map_err(|_| AudioError::NotBase64)?;
        if bytes.len() > MAX_FRAME_SAMPLES {
            return Err(AudioError::TooLong(bytes.len()));
        }
        let samples = amora_ai::transcription::mulaw::decode(&bytes);
        let _ = self.inputs.send(Input::Audio { seq, samples });
        Ok(())
    }

    pub fn interrupt(&self) {
        let _ = self.inputs.send(Input::Interrupt);
    }

    pub fn end(&self) {
        let _ = self.inputs.send(Input::End);
    }

    /// An event the socket is sending its client: the call follows the reply of its turn
    /// in the chat events (`chatDelta`, `chatDone`, `chatError` of its character).
    pub fn observe(&self, frame: &Frame) {
        if let Some(news) = call::ChatNews::read(frame) {
            let _ = self.inputs.send(Input::Chat(news));
        }
    }
}

fn random_hex(len: usize) -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..len).map(|_| char::from_digit(rng.gen_range(0..16), 16).unwrap_or('0')).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handle() -> (CallHandle, tokio::sync::mpsc::UnboundedReceiver<Input>) {
        let (inputs, received) = unbounded_channel();
        (CallHandle { call_id: "c1".into(), inputs, open: Arc::new(AtomicBool::new(true)) }, received)
    }

    #[test]
    fn audio_frames_are_decoded_and_long_or_bad_ones_refused() {
        let (call, mut received) = handle();
        let b64 = |n: usize| base64::engine::general_purpose::STANDARD.encode(vec![0x80u8; n]);
        assert_eq!(call.audio(0, &b64(1_600)), Ok(()));
        match received.try_recv() {
            Ok(Input::Audio { seq: 0, samples }) => assert_eq!((samples.len(), samples[0]), (1_600, 32_124)),
            other => panic!("{other:?}"),
        }
        assert_eq!(call.audio(1, &b64(MAX_FRAME_SAMPLES)), Ok(()));
        assert_eq!(call.audio(2, &b64(MAX_FRAME_SAMPLES + 1)), Err(AudioError::TooLong(MAX_FRAME_SAMPLES + 1)));
        assert!(matches!(call.audio(3, &b64(100_000)), Err(AudioError::TooLong(_))));
        assert_eq!(call.audio(4, "not base64!"), Err(AudioError::NotBase64));
        assert!(call.is_open());
        drop(received);
        assert!(!call.is_open(), "a call whose task ended is not open");
    }
}
