//! One call: its task, its turns, and the speaking of each answer (module docs of
//! `calls`). The task owns everything of the call; the socket reaches it only through its
//! inputs, and slow work (recognising a turn, sending it to the chat, speaking the answer)
//! runs on tasks of its own that report back, so audio keeps flowing while a turn runs.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use amora_ai::AiError;
use amora_ai::transcription::vad::{VadEvent, VadSettings, VoiceActivityDetector};
use amora_ai::transcription::{SpeechStream, Transcript, primary_language};
use amora_domain::account::UserId;
use amora_domain::character::{CharacterId, UsedType};
use amora_domain::chat::{EntryId, MessageText, sentence_ends};
use amora_domain::code::ApiCode;
use amora_domain::group::GroupId;
use amora_domain::money::{Coins, TxnId};
use amora_store::{LedgerOutcome, VoiceClipKey};
use serde::Deserialize;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::time::Instant;

use super::{ENCODING, Inner, Input, SAMPLE_RATE};
use crate::chat::ChatError;
use crate::user::Balance;
use crate::voice::{VoiceError, text};
use crate::wire::actions::ClientAction;
use crate::wire::calls::{CallEndReason, CallEvent};
use crate::wire::events::{Frame, ServerEvent};
use crate::wire::voice::VoicePart;

/// Utterances heard while a turn runs wait for it, at most this many (older ones dropped).
const WAITING_TURNS: usize = 2;

/// What the call reads of the chat events its socket sends: the reply of its turn.
#[derive(Debug)]
pub(super) enum ChatNews {
    Delta { character_id: String, reply_id: String, delta: String },
    Done { character_id: String, reply_id: String },
    Failed { character_id: String, reply_id: Option<String> },
}

#[derive(Deserialize)]
struct NewsFrame {
    event: String,
    data: NewsData,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NewsData {
    character_id: String,
    reply_id: Option<String>,
    #[serde(default)]
    delta: String,
}

impl ChatNews {
    /// The news in a frame, for the three chat events a call follows; `None` for any other.
    pub(super) fn read(frame: &Frame) -> Option<ChatNews> {
        let text = frame.as_str();
        let wanted = ["{\"event\":\"chatDelta\"", "{\"event\":\"chatDone\"", "{\"event\":\"chatError\""];
        if !wanted.iter().any(|start| text.starts_with(start)) {
            return None;
        }
        let NewsFrame { event, data } = serde_json::from_str(text).ok()?;
        let character_id = data.character_id;
        match event.as_str() {
            "chatDelta" => Some(ChatNews::Delta { character_id, reply_id: data.reply_id?, delta: data.delta }),
            "chatDone" => Some(ChatNews::Done { character_id, reply_id: data.reply_id? }),
            "chatError" => Some(ChatNews::Failed { character_id, reply_id: data.reply_id }),
            _ => None,
        }
    }
}

/// What the call's own tasks report.
enum Report {
    Heard {
        result: Result<Transcript, AiError>,
        turn: u64,
    },
    /// `chatSend` ran: its refusal, if any.
    Sent {
        refusal: Option<ServerEvent>,
        turn: u64,
    },
    /// The answer of the turn was spoken as far as it went.
    Spoken {
        turn: u64,
        out_of_coin: bool,
    },
}

/// A piece of the answer for its speaker.
enum Piece {
    Sentence(String),
    /// The reply is stored: the rest of its text, the last part.
    End(String),
}

/// Where the call's current turn is.
enum Turn {
    Idle,
    /// The recogniser is at work on the user's words.
    Hearing,
    Replying(Reply),
}

/// The reply to the user's turn as it streams.
struct Reply {
    /// Known from its first `chatDelta` (or its `chatDone`).
    reply_id: Option<String>,
    text: String,
    /// Bytes of `text` handed to the speaker.
    queued: usize,
    /// `chatSend` answered without a refusal.
    sent: bool,
    /// The reply is stored, stopped or failed.
    done: bool,
    speaker: Option<Speaker>,
    /// Barge-in or the end of the call: nothing more of it is said.
    cancelled: Arc<AtomicBool>,
}

struct Speaker {
    /// Dropped when the reply fails or is cancelled: the speaker stops.
    pieces: Option<UnboundedSender<Piece>>,
    ended: bool,
}

/// Turns in a row the recogniser may fail on before the call ends (`reason: "error"`).
const FAILED_TURNS: u32 = 2;

/// The shortest opening said on its own before its sentence ends, in characters: a clause
/// shorter than this ("Oh," "Eve,") is not worth a pause after it.
const FIRST_CLAUSE_CHARS: usize = 24;

/// Where the first clause of `text` ends (after a comma, semicolon, colon or dash followed
/// by a space) once it is at least [`FIRST_CLAUSE_CHARS`] long, outside an `*action*`.
fn first_clause_end(text: &str) -> Option<usize> {
    let mut in_action = false;
    let mut chars = text.char_indices().peekable();
    let mut count = 0;
    while let Some((at, c)) = chars.next() {
        count += 1;
        if c == '*' {
            in_action = !in_action;
        }
        let breaks = matches!(c, ',' | ';' | ':' | '—' | '–');
        if breaks
            && !in_action
            && count >= FIRST_CLAUSE_CHARS
            && chars.peek().is_some_and(|(_, next)| next.is_whitespace())
        {
            return Some(at + c.len_utf8());
        }
    }
    None
}

/// What was settled when the call opened.
struct Opened {
    character_id: CharacterId,
    voice_id: String,
    language: String,
}

pub(super) struct Call {
    inner: Arc<Inner>,
    user_id: UserId,
    call_id: String,
    events: UnboundedSender<Frame>,
    open: Arc<AtomicBool>,
    /// Answers whose speech started; each cost `price`.
    answers: Arc<AtomicU32>,
    turn: Turn,
    /// Turns are numbered, so a late report of an abandoned turn is told apart.
    turn_no: u64,
    /// Turns in a row the recogniser failed on: at [`FAILED_TURNS`] the call ends.
    failed_turns: u32,
    waiting: VecDeque<Vec<i16>>,
    /// The utterance under way, heard by the recogniser as it is spoken (when it can).
    hearing: Option<Box<dyn SpeechStream>>,
    next_seq: u64,
}

impl Call {
    pub(super) fn new(
        inner: Arc<Inner>,
        user_id: UserId,
        call_id: String,
        events: UnboundedSender<Frame>,
        open: Arc<AtomicBool>,
    ) -> Self {
        Self {
            inner,
            user_id,
            call_id,
            events,
            open,
            answers: Arc::new(AtomicU32::new(0)),
            turn: Turn::Idle,
            turn_no: 0,
            failed_turns: 0,
            waiting: VecDeque::new(),
            hearing: None,
            next_seq: 0,
        }
    }

    fn tell(&self, event: CallEvent) {
        let _ = self.events.send(Frame::from(event));
    }

    fn refuse(&self, call_id: Option<&str>, code: ApiCode, msg: impl Into<String>) {
        self.tell(CallEvent::error(call_id, code, msg));
    }

    /// The call's life: opened (or refused), then its inputs and its tasks' reports until
    /// it ends.
    pub(super) async fn run(mut self, character_id: String, mut inputs: UnboundedReceiver<Input>) {
        let opened = match self.open_call(&character_id).await {
            Ok(opened) => opened,
            Err((code, msg)) => {
                self.open.store(false, Ordering::SeqCst);
                self.refuse(None, code, msg);
                return;
            }
        };
        self.tell(CallEvent::CallStarted {
            call_id: self.call_id.clone(),
            character_id: opened.character_id.as_str().to_owned(),
            voice_id: opened.voice_id.clone(),
            sample_rate: SAMPLE_RATE,
            encoding: ENCODING.to_owned(),
            coin_per_answer: self.inner.voices.price(),
            language: opened.language.clone(),
        });
        // The recogniser readies itself while the user starts talking (the embedded one
        // loads its model, about a second the first turn would otherwise wait through).
        self.inner.recogniser.prepare();
        let settings = &self.inner.settings;
        let mut vad = VoiceActivityDetector::new(VadSettings {
            hangover_ms: settings.silence_ms,
            max_utterance_ms: settings.max_turn_ms,
            ..VadSettings::default()
        });
        let idle_timeout = settings.idle_timeout;
        let (report_to, mut reports) = unbounded_channel::<Report>();
        let idle = tokio::time::sleep(idle_timeout);
        tokio::pin!(idle);
        let reason = loop {
            let busy = !matches!(self.turn, Turn::Idle);
            tokio::select! {
                input = inputs.recv() => match input {
                    // The socket closed: the call ends silently.
                    None => break None,
                    Some(Input::End) => break Some(CallEndReason::User),
                    Some(Input::Audio { seq, samples }) => {
                        if seq != self.next_seq {
                            tracing::debug!(call = %self.call_id, expected = self.next_seq, seq, "call audio: frames missing");
                        }
                        self.next_seq = seq + 1;
                        if let Some(hearing) = self.hearing.as_mut() {
                            hearing.push(&samples);
                        }
                        for event in vad.push(&samples) {
                            match event {
                                VadEvent::SpeechStarted { .. } => {
                                    idle.as_mut().reset(Instant::now() + idle_timeout);
                                    self.tell(CallEvent::CallHearing { call_id: self.call_id.clone() });
                                    // From here on the recogniser hears it as it is spoken.
                                    self.hearing = self.inner.recogniser.stream(Some(&opened.language));
                                    if let Some(hearing) = self.hearing.as_mut() {
                                        hearing.push(&vad.heard_so_far());
                                    }
                                }
                                VadEvent::SpeechEnded { samples, .. } => {
                                    let hearing = self.hearing.take();
                                    self.heard_utterance(samples, hearing, &opened, &report_to);
                                }
                            }
                        }
                    }
                    Some(Input::Interrupt) => self.interrupt(&opened),
                    Some(Input::Chat(news)) => self.follow_reply(news, &opened, &report_to),
                },
                Some(report) = reports.recv() => {
                    if let Some(reason) = self.on_report(report, &opened, &report_to) {
                        break Some(reason);
                    }
                },
                () = &mut idle, if matches!(self.turn, Turn::Idle) && !vad.in_speech() => break Some(CallEndReason::Idle),
            }
            // Idle time counts from the end of the last turn.
            if busy && matches!(self.turn, Turn::Idle) {
                idle.as_mut().reset(Instant::now() + idle_timeout);
            }
        };
        self.hang_up(&opened, reason);
    }

    /// The checks of `callStart`: the character (10006; a group's id 10001), who may talk
    /// with it, and that one answer can be paid (40004).
    async fn open_call(&self, raw_id: &str) -> Result<Opened, (ApiCode, String)> {
        let node = &self.inner.node;
        let fault = |error: ChatError| (error.code(), error.public_message());
        let Ok(character_id) = CharacterId::parse(raw_id) else {
            return Err((ApiCode::ParamError, format!("{raw_id:?} is not a character id")));
        };
        let character = match node.conversations.visible_character(&self.user_id, &character_id).await {
            Ok(character) => character,
            Err(ChatError::NoCharacter) => {
                let group = GroupId::parse(raw_id).ok();
                if let Some(group) = group
                    && node.groups.get(&self.user_id, &group).await.is_ok()
                {
                    return Err((ApiCode::ParamError, "calls are for one-to-one chats, not groups".into()));
                }
                return Err(fault(ChatError::NoCharacter));
            }
            Err(error) => return Err(fault(error)),
        };
        let chatter = node.conversations.chatter(&self.user_id, Some(&character_id)).await.map_err(fault)?;
        if character.card.used_type == UsedType::Premium && !chatter.paid {
            return Err(fault(ChatError::PremiumCharacter));
        }
        if node.conversations.credits_left(&chatter).await.map_err(fault)? == Some(0) {
            return Err(fault(ChatError::OutOfCredits));
        }
        if self.balance().await.map_err(fault)? < self.inner.voices.price() {
            return Err((
                ApiCode::NeedPay,
                "not enough tokens for an answer: each answer is spoken for a price".into(),
            ));
        }
        let voice_id = self.inner.voices.voice_id(&character).await.map_err(|e| (e.code(), e.public_message()))?;
        // The account's language when the recogniser understands it; else what it hears.
        let language = primary_language(&chatter.language).unwrap_or_else(|_| "en".into());
        let language = if self.inner.recogniser.understands(&language) { language } else { "en".into() };
        Ok(Opened { character_id, voice_id, language })
    }

    async fn balance(&self) -> Result<Coins, ChatError> {
        Ok(self
            .inner
            .node
            .user(&self.user_id)
            .await
            .map_err(|e| ChatError::Unavailable(e.to_string()))?
            .send(Balance)
            .await??)
    }

    /// The detector heard a turn end: it is recognised now, or after the turn running.
    /// A turn waiting its turn is recognised whole later: its stream (`hearing`) is dropped.
    fn heard_utterance(
        &mut self,
        samples: Vec<i16>,
        hearing: Option<Box<dyn SpeechStream>>,
        opened: &Opened,
        report_to: &UnboundedSender<Report>,
    ) {
        if matches!(self.turn, Turn::Idle) {
            self.recognise(samples, hearing, opened, report_to);
        } else {
            if self.waiting.len() == WAITING_TURNS {
                self.waiting.pop_front();
            }
            self.waiting.push_back(samples);
        }
    }

    fn recognise(
        &mut self,
        samples: Vec<i16>,
        hearing: Option<Box<dyn SpeechStream>>,
        opened: &Opened,
        report_to: &UnboundedSender<Report>,
    ) {
        self.turn_no += 1;
        self.turn = Turn::Hearing;
        let (recogniser, language, report_to, turn) =
            (self.inner.recogniser.clone(), opened.language.clone(), report_to.clone(), self.turn_no);
        tokio::spawn(async move {
            let result = match hearing {
                Some(hearing) => hearing.finish(&samples).await,
                None => recogniser.transcribe(&samples, Some(&language)).await,
            };
            let _ = report_to.send(Report::Heard { result, turn });
        });
    }

    /// A task reported; `Some` ends the call.
    fn on_report(
        &mut self,
        report: Report,
        opened: &Opened,
        report_to: &UnboundedSender<Report>,
    ) -> Option<CallEndReason> {
        match report {
            Report::Heard { turn, .. } | Report::Sent { turn, .. } | Report::Spoken { turn, .. }
                if turn != self.turn_no =>
            {
                None
            }
            Report::Heard { result, .. } => {
                let transcript = match result {
                    Ok(transcript) => transcript,
                    Err(error) => {
                        tracing::warn!(%error, call = %self.call_id, "a call turn could not be recognised");
                        self.refuse(Some(&self.call_id), ApiCode::ServerError, "Your words could not be recognised.");
                        self.failed_turns += 1;
                        // A recogniser that keeps failing (not installed, its service down)
                        // would leave the caller talking to nobody.
                        if self.failed_turns >= FAILED_TURNS {
                            return Some(CallEndReason::Error);
                        }
                        return self.turn_over(opened, report_to);
                    }
                };
                self.failed_turns = 0;
                self.tell(CallEvent::CallHeard {
                    call_id: self.call_id.clone(),
                    text: transcript.text.clone(),
                    duration_ms: transcript.duration_ms,
                });
                if transcript.text.is_empty() {
                    return self.turn_over(opened, report_to);
                }
                self.send_turn(transcript.text, opened, report_to)
            }
            Report::Sent { refusal: None, .. } => {
                if let Turn::Replying(reply) = &mut self.turn {
                    reply.sent = true;
                }
                None
            }
            Report::Sent { refusal: Some(refusal), .. } => {
                let need_pay =
                    matches!(&refusal, ServerEvent::ChatError { code, .. } if *code == ApiCode::NeedPay.value());
                let _ = self.events.send(Frame::from(refusal));
                if need_pay {
                    return Some(CallEndReason::Coin);
                }
                self.turn_over(opened, report_to)
            }
            Report::Spoken { out_of_coin, .. } => {
                if let Turn::Replying(reply) = &mut self.turn
                    && let Some(speaker) = &mut reply.speaker
                {
                    speaker.ended = true;
                }
                if out_of_coin {
                    return Some(CallEndReason::Coin);
                }
                self.maybe_turn_over(opened, report_to)
            }
        }
    }

    /// Sends the user's words as `chatSend` does, once the next answer can be paid.
    fn send_turn(
        &mut self,
        words: String,
        opened: &Opened,
        report_to: &UnboundedSender<Report>,
    ) -> Option<CallEndReason> {
        let content = match MessageText::parse(&words) {
            Ok(content) => content,
            Err(error) => {
                self.refuse(Some(&self.call_id), ApiCode::ParamError, error.to_string());
                return self.turn_over(opened, report_to);
            }
        };
        self.turn = Turn::Replying(Reply {
            reply_id: None,
            text: String::new(),
            queued: 0,
            sent: false,
            done: false,
            speaker: None,
            cancelled: Arc::new(AtomicBool::new(false)),
        });
        let node = self.inner.node.clone();
        let price = self.inner.voices.price();
        let (user_id, character_id, report_to, turn) =
            (self.user_id.clone(), opened.character_id.clone(), report_to.clone(), self.turn_no);
        tokio::spawn(async move {
            // The voice of the answer is paid after it is written, per sentence spoken; a
            // balance already short of it ends the call before the model is asked.
            let balance = match node.user(&user_id).await {
                Ok(user) => user.send(Balance).await.ok().and_then(Result::ok),
                Err(_) => None,
            };
            if balance.is_some_and(|coin| coin < price) {
                let refusal = ServerEvent::ChatError {
                    character_id,
                    reply_id: None,
                    code: ApiCode::NeedPay.value(),
                    msg: "not enough tokens for the next answer".into(),
                };
                let _ = report_to.send(Report::Sent { refusal: Some(refusal), turn });
                return;
            }
            // The very path of the `chatSend` action.
            let refusal = node.run_action(&user_id, ClientAction::ChatSend { character_id, content }).await;
            let _ = report_to.send(Report::Sent { refusal, turn });
        });
        None
    }

    /// The reply of the turn as the chat events tell it: sentences go to the speaker as
    /// they end.
    fn follow_reply(&mut self, news: ChatNews, opened: &Opened, report_to: &UnboundedSender<Report>) {
        let Turn::Replying(reply) = &mut self.turn else { return };
        if reply.done {
            return;
        }
        let ours = |character_id: &str| character_id == opened.character_id.as_str();
        match news {
            ChatNews::Delta { character_id, reply_id, delta } if ours(&character_id) => {
                if reply.reply_id.get_or_insert_with(|| reply_id.clone()) != &reply_id {
                    return;
                }
                reply.text.push_str(&delta);
                if reply.cancelled.load(Ordering::SeqCst) {
                    return;
                }
                // A sentence is whole once something follows its end, and at the end of a
                // piece: the engine sends pieces up to a sentence end it saw followed, so
                // waiting for the next piece would only hold the sentence back (a few
                // hundred ms of every answer's first sound, BENCHMARKS.md).
                let mut ends: Vec<usize> =
                    sentence_ends(&reply.text).into_iter().filter(|&end| end > reply.queued).collect();
                // Nothing said yet and the first sentence still going: its first clause is
                // said now, so a long opening sentence does not keep the caller waiting.
                if ends.is_empty() && reply.queued == 0 && reply.speaker.is_none() {
                    ends.extend(first_clause_end(&reply.text));
                }
                let mut sentences = Vec::new();
                for end in ends {
                    let sentence = reply.text[reply.queued..end].trim().to_owned();
                    reply.queued = end;
                    if !text::speakable(&sentence, usize::MAX).is_empty() {
                        sentences.push(sentence);
                    }
                }
                // Spoken once the reply is no longer borrowed: `speak` reaches it through `self`.
                for sentence in sentences {
                    self.speak(Piece::Sentence(sentence), opened, report_to);
                }
            }
            ChatNews::Done { character_id, reply_id } if ours(&character_id) => {
                if reply.reply_id.get_or_insert_with(|| reply_id.clone()) != &reply_id {
                    return;
                }
                reply.done = true;
                let mut rest = reply.text[reply.queued..].trim().to_owned();
                reply.queued = reply.text.len();
                let cancelled = reply.cancelled.load(Ordering::SeqCst);
                let speaking = reply.speaker.is_some();
                // A reply that is all narration ("*she laughs and looks at the sea*") would
                // leave the caller in silence: on a call its narration is read instead.
                if !speaking && text::speakable(&reply.text, usize::MAX).is_empty() {
                    rest = reply.text.replace('*', " ").trim().to_owned();
                }
                if !cancelled && (speaking || !text::speakable(&rest, usize::MAX).is_empty()) {
                    self.speak(Piece::End(rest), opened, report_to);
                } else if let Some(speaker) = &mut reply.speaker {
                    speaker.pieces = None;
                }
                let _ = self.maybe_turn_over(opened, report_to);
            }
            ChatNews::Failed { character_id, reply_id } if ours(&character_id) => {
                let same = match (&reply.reply_id, &reply_id) {
                    (Some(ours), Some(theirs)) => ours == theirs,
                    (None, _) => reply.sent,
                    (Some(_), None) => false,
                };
                if !same {
                    return;
                }
                reply.done = true;
                if let Some(speaker) = &mut reply.speaker {
                    speaker.pieces = None;
                }
                let _ = self.maybe_turn_over(opened, report_to);
            }
            _ => {}
        }
    }

    /// Hands a piece of the answer to its speaker, started with the first.
    fn speak(&mut self, piece: Piece, opened: &Opened, report_to: &UnboundedSender<Report>) {
        let Turn::Replying(reply) = &mut self.turn else { return };
        let Some(reply_id) = reply.reply_id.as_deref().and_then(|id| EntryId::parse(id, "replyId").ok()) else {
            return;
        };
        let speaker = reply.speaker.get_or_insert_with(|| {
            let (pieces, received) = unbounded_channel();
            let job = SpeakJob {
                inner: self.inner.clone(),
                key: VoiceClipKey {
                    user_id: self.user_id.clone(),
                    character_id: opened.character_id.clone(),
                    message_id: reply_id,
                },
                voice_id: opened.voice_id.clone(),
                call_id: self.call_id.clone(),
                events: self.events.clone(),
                cancelled: reply.cancelled.clone(),
                answers: self.answers.clone(),
            };
            let (report_to, turn) = (report_to.clone(), self.turn_no);
            tokio::spawn(async move {
                let out_of_coin = job.run(received).await;
                let _ = report_to.send(Report::Spoken { turn, out_of_coin });
            });
            Speaker { pieces: Some(pieces), ended: false }
        });
        let last = matches!(piece, Piece::End(_));
        if let Some(pieces) = &speaker.pieces {
            let _ = pieces.send(piece);
        }
        if last {
            speaker.pieces = None;
        }
    }

    /// `callInterrupt`: the reply stops as `chatStop` stops it, and nothing more of it is said.
    fn interrupt(&mut self, opened: &Opened) {
        let saying = match &mut self.turn {
            Turn::Replying(reply) if !reply.cancelled.load(Ordering::SeqCst) => {
                let speaking = reply.speaker.as_ref().is_some_and(|s| !s.ended);
                if reply.done && !speaking {
                    false
                } else {
                    reply.cancelled.store(true, Ordering::SeqCst);
                    if let Some(speaker) = &mut reply.speaker {
                        speaker.pieces = None;
                    }
                    if !reply.done {
                        self.stop_reply(opened);
                    }
                    true
                }
            }
            _ => false,
        };
        if !saying {
            self.refuse(Some(&self.call_id), ApiCode::ParamError, "nothing is being said");
        }
    }

    /// Stops the reply being written, by the path of the `chatStop` action.
    fn stop_reply(&self, opened: &Opened) {
        let (node, user_id, character_id) =
            (self.inner.node.clone(), self.user_id.clone(), opened.character_id.clone());
        tokio::spawn(async move {
            if let Some(answer) = node.run_action(&user_id, ClientAction::ChatStop { character_id }).await {
                tracing::debug!(?answer, "a call's reply could not be stopped");
            }
        });
    }

    /// The turn is over once its reply is done and its speaker has finished.
    fn maybe_turn_over(&mut self, opened: &Opened, report_to: &UnboundedSender<Report>) -> Option<CallEndReason> {
        let over = match &self.turn {
            Turn::Replying(reply) => reply.done && reply.speaker.as_ref().is_none_or(|s| s.ended),
            _ => false,
        };
        if over { self.turn_over(opened, report_to) } else { None }
    }

    /// The next turn waiting, if any.
    fn turn_over(&mut self, opened: &Opened, report_to: &UnboundedSender<Report>) -> Option<CallEndReason> {
        self.turn = Turn::Idle;
        if let Some(samples) = self.waiting.pop_front() {
            self.recognise(samples, None, opened, report_to);
        }
        None
    }

    /// Ends the call: the reply being written stops, nothing more is said, and `callEnded`
    /// tells the client (unless its socket is gone).
    fn hang_up(&mut self, opened: &Opened, reason: Option<CallEndReason>) {
        self.open.store(false, Ordering::SeqCst);
        if let Turn::Replying(reply) = &mut self.turn {
            reply.cancelled.store(true, Ordering::SeqCst);
            if let Some(speaker) = &mut reply.speaker {
                speaker.pieces = None;
            }
            if !reply.done {
                self.stop_reply(opened);
            }
        }
        self.turn = Turn::Idle;
        if let Some(reason) = reason {
            let answers = self.answers.load(Ordering::SeqCst);
            let price = self.inner.voices.price();
            self.tell(CallEvent::CallEnded {
                call_id: self.call_id.clone(),
                reason,
                answers,
                coin_spent: price.checked_mul(i64::from(answers)).unwrap_or(Coins::ZERO),
            });
        }
    }
}

/// Speaks one answer: debits it before its first part (`call:<userId>:<replyId>`), speaks
/// each sentence into the reply's voice clip and sends it as `callSpeech`, and refunds the
/// debit (`call-refund:…`) when no part was sent.
struct SpeakJob {
    inner: Arc<Inner>,
    key: VoiceClipKey,
    voice_id: String,
    call_id: String,
    events: UnboundedSender<Frame>,
    cancelled: Arc<AtomicBool>,
    answers: Arc<AtomicU32>,
}

impl SpeakJob {
    /// True when the answer could not be paid.
    async fn run(self, mut pieces: UnboundedReceiver<Piece>) -> bool {
        let price = self.inner.voices.price();
        let paid = match self.debit(price).await {
            Ok(paid) => paid,
            Err(DebitError::Insufficient) => return true,
            Err(DebitError::Failed(error)) => {
                tracing::error!(%error, call = %self.call_id, "a call answer could not be debited");
                self.fail();
                return false;
            }
        };
        let claimed = match self.inner.voices.start_answer_clip(&self.key).await {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::error!(%error, call = %self.call_id, "a call answer's clip could not be started");
                false
            }
        };
        let mut spoken: Option<VoicePart> = None;
        let mut complete = false;
        if claimed {
            let mut index = 0;
            while let Some(piece) = pieces.recv().await {
                if self.cancelled.load(Ordering::SeqCst) {
                    break;
                }
                let (text, last) = match piece {
                    Piece::Sentence(text) => (text, false),
                    Piece::End(text) => (text, true),
                };
                let part =
                    match self.inner.voices.speak_answer_part(&self.key, index, &text, &self.voice_id, last).await {
                        Ok(part) => part,
                        Err(VoiceError::NothingToSay) if last => match spoken.take() {
                            // Nothing after the last sentence: its part is told again as the last.
                            Some(part) => VoicePart { last: true, ..part },
                            None => break,
                        },
                        Err(VoiceError::NothingToSay) => continue,
                        Err(error) => {
                            tracing::warn!(%error, call = %self.call_id, "a call answer could not be spoken");
                            self.fail();
                            break;
                        }
                    };
                // Barge-in while it was made: it is not sent.
                if self.cancelled.load(Ordering::SeqCst) {
                    break;
                }
                if spoken.is_none() && index == 0 {
                    self.answers.fetch_add(1, Ordering::SeqCst);
                }
                index = part.index as usize + 1;
                let event = CallEvent::CallSpeech {
                    call_id: self.call_id.clone(),
                    reply_id: self.key.message_id,
                    part: part.clone(),
                };
                let _ = self.events.send(Frame::from(event));
                spoken = Some(part);
                if last {
                    complete = true;
                    break;
                }
            }
        } else {
            self.fail();
        }
        self.inner.voices.end_answer_clip(&self.key, complete).await;
        let started = spoken.is_some() || complete;
        if paid && !started {
            self.refund(price).await;
        }
        false
    }

    fn fail(&self) {
        let msg = "The answer could not be spoken; it was not charged.";
        let _ = self.events.send(Frame::from(CallEvent::error(Some(&self.call_id), ApiCode::ServerError, msg)));
    }

    fn txn(&self, kind: &str) -> Result<TxnId, String> {
        TxnId::parse(&format!("{kind}:{}:{}", self.key.user_id.as_str(), self.key.message_id.raw()))
            .map_err(|e| e.to_string())
    }

    /// Debits the answer's voice; false when it is free.
    async fn debit(&self, price: Coins) -> Result<bool, DebitError> {
        if price == Coins::ZERO {
            return Ok(false);
        }
        let txn_id = self.txn("call").map_err(DebitError::Failed)?;
        match self.inner.node.debit(&self.key.user_id, price, "call answer", txn_id).await {
            Ok(LedgerOutcome::Applied { .. } | LedgerOutcome::Replayed { .. }) => Ok(true),
            Ok(LedgerOutcome::Insufficient { .. }) => Err(DebitError::Insufficient),
            Ok(LedgerOutcome::NoAccount) => Err(DebitError::Failed("no account".into())),
            Err(error) => Err(DebitError::Failed(error.to_string())),
        }
    }

    async fn refund(&self, price: Coins) {
        let txn_id = match self.txn("call-refund") {
            Ok(txn_id) => txn_id,
            Err(error) => {
                tracing::error!(%error, "a call refund's txn id");
                return;
            }
        };
        if let Err(error) = self.inner.node.credit(&self.key.user_id, price, "call answer refund", txn_id).await {
            // The debit stays; the refund's txn id is idempotent for an operator's retry.
            tracing::error!(%error, user = %self.key.user_id, "a call answer could not be refunded");
        }
    }
}

enum DebitError {
    Insufficient,
    Failed(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::events::ReplyEnd;

    #[test]
    fn a_long_first_sentence_is_said_from_its_first_clause() {
        let text = "When I was a young girl, I would only eat dinner with my family";
        assert_eq!(first_clause_end(text).map(|end| &text[..end]), Some("When I was a young girl,"));
        assert_eq!(
            first_clause_end("Eve, it's a pleasure to share that my favourite"),
            None,
            "too short to stand alone"
        );
        assert_eq!(first_clause_end("*She smiles, then takes a breath, slowly* and"), None, "inside an action");
        assert_eq!(
            first_clause_end("It cost 1,000,000 dollars, and the ship"),
            Some(26),
            "a comma inside a number is no break"
        );
        assert_eq!(first_clause_end("No clause breaks in this one at all"), None);
    }

    #[test]
    fn the_chat_events_of_a_reply_are_read_and_others_ignored() {
        let id = CharacterId::parse("gf-001").unwrap_or_else(|e| panic!("{e}"));
        let delta = Frame::from(ServerEvent::ChatDelta {
            character_id: id.clone(),
            reply_id: EntryId::from_raw(42),
            delta: "Hi there. ".into(),
            offset: 0,
        });
        assert!(matches!(
            ChatNews::read(&delta),
            Some(ChatNews::Delta { character_id, reply_id, delta }) if character_id == "gf-001" && reply_id == "42" && delta == "Hi there. "
        ));
        let done = Frame::from(ServerEvent::ChatDone {
            character_id: id.clone(),
            reply_id: EntryId::from_raw(42),
            message: None,
            finish_reason: ReplyEnd::Cancelled,
            cut: false,
            recalled: None,
        });
        assert!(matches!(ChatNews::read(&done), Some(ChatNews::Done { reply_id, .. }) if reply_id == "42"));
        let failed =
            Frame::from(ServerEvent::ChatError { character_id: id, reply_id: None, code: 1, msg: String::new() });
        assert!(matches!(ChatNews::read(&failed), Some(ChatNews::Failed { reply_id: None, .. })));
        assert!(ChatNews::read(&Frame::from(ServerEvent::Pong {})).is_none());
    }
}
