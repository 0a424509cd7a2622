//! `Voices`: the door to spoken replies for the transports (docs/api.md "Voice").
//!
//! A character message is spoken once and kept: the first play of a message debits
//! `price` through the user's actor (txn `voice:<userId>:<messageId>`) before anything is
//! synthesised, claims the message's clip in the store (compare-and-set, so of concurrent
//! first plays on any nodes one synthesises and the others wait for its first part), and
//! speaks the text in parts: the answer carries the first part as soon as it is stored,
//! the rest follow as `voicePart` events. A failure refunds the debit with a compensating
//! credit (`voice-refund:<userId>:<messageId>`), marks the attempt failed and sends
//! `voiceFailed`; the next play starts a new attempt (txn ids then end in `:<attempt>`).
//! Later plays answer the stored parts and cost nothing.
//!
//! Each attempt is in the pending-debit journal (`pending.rs`) from before its debit until
//! it is complete or refunded: after a node is killed mid-play, a recovery marks the
//! attempt failed and refunds it (the same `voice-refund:…` row, so never twice), and the
//! next play, a new attempt, is the one charge left for the message.

pub mod text;

use std::sync::Arc;
use std::time::Duration;

use actix::Addr;
pub use amora_ai::voice::Voice as ModelVoice;
use amora_ai::voice::{Voice, choose_voice};
/// The voice model's settings and its builder, for the server to configure.
pub use amora_ai::voice::{VoiceModel, VoiceModelSettings, build as build_model};
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId};
use amora_domain::chat::{MessageId, Speaker};
use amora_domain::code::ApiCode;
use amora_domain::money::{Coins, TxnId};
use amora_store::{LedgerOutcome, MediaObject, Store, VoiceClip, VoiceClipKey, VoiceClipPart, VoiceClipState};
use serde::Serialize;
use ts_rs::TS;

use crate::chat::ChatError;
use crate::conversations::Conversations;
use crate::pending::{Journal, Owed};
use crate::registry::Registry;
use crate::user::UserAddr;
use crate::user::{Balance, Credit, Debit};
use crate::wire::events::ServerEvent;
use crate::wire::voice::{VoicePart, VoiceView};

/// How voice is priced and paced.
#[derive(Debug, Clone)]
pub struct VoiceSettings {
    /// The first play of a message costs this (`genVoiceCoin`).
    pub price: Coins,
    /// At most this many characters of a message are spoken.
    pub max_chars: usize,
    /// Parts after the first hold whole sentences up to this many characters.
    pub part_chars: usize,
    /// Longest wait for one part (synthesis and storing); past it the play fails.
    pub part_timeout: Duration,
    /// An attempt still speaking after this long is taken to have died with its node, and
    /// the next play starts over.
    pub stalled_after: Duration,
}

/// The answer to `voice/speak`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "SpeakAnswer")]
pub struct SpokenMessage {
    #[ts(type = "string")]
    pub message_id: MessageId,
    /// The voice it is spoken in (the character's).
    pub voice_id: String,
    /// The parts stored so far, in order.
    pub parts: Vec<VoicePart>,
    /// False while more parts follow as `voicePart` events.
    pub complete: bool,
    /// The balance after the play (after the debit on a first play).
    pub coin: Coins,
}

#[derive(Debug, thiserror::Error)]
pub enum VoiceError {
    /// The message, the conversation or the character is not there for this user, or the
    /// message is the user's own: only a character's messages are spoken.
    #[error("no such message of the character")]
    NoMessage,
    /// Nothing is left to say once actions and markup are left out.
    #[error("this message has nothing to say aloud")]
    NothingToSay,
    #[error("not enough tokens to play this message")]
    NeedPay,
    /// The synthesiser is overloaded; nothing was charged (or it was refunded).
    #[error("the voice is busy, please try again in a moment")]
    Busy,
    /// Synthesis failed; what was charged was refunded.
    #[error("voice: {0}")]
    Failed(String),
    #[error(transparent)]
    Chat(#[from] ChatError),
}

impl VoiceError {
    pub fn code(&self) -> ApiCode {
        match self {
            VoiceError::NoMessage => ApiCode::NotFound,
            VoiceError::NothingToSay => ApiCode::ParamError,
            VoiceError::NeedPay => ApiCode::NeedPay,
            VoiceError::Busy => ApiCode::RateLimited,
            VoiceError::Failed(_) => ApiCode::ServerError,
            VoiceError::Chat(error) => error.code(),
        }
    }

    /// Whether trying again later may succeed: the store or an actor briefly away
    /// (docs/api.md "Try again").
    pub fn is_temporary(&self) -> bool {
        matches!(self, VoiceError::Chat(error) if error.is_temporary())
    }

    /// The text clients may show; internal causes stay in the log.
    pub fn public_message(&self) -> String {
        match self {
            VoiceError::Chat(error) => error.public_message(),
            VoiceError::Failed(_) => "The voice could not be made; nothing was charged.".to_owned(),
            other => other.to_string(),
        }
    }
}

impl From<amora_store::StoreError> for VoiceError {
    fn from(error: amora_store::StoreError) -> Self {
        VoiceError::Chat(ChatError::from(error))
    }
}

impl From<actix::MailboxError> for VoiceError {
    fn from(error: actix::MailboxError) -> Self {
        VoiceError::Chat(ChatError::from(error))
    }
}

impl From<crate::user::UserError> for VoiceError {
    fn from(error: crate::user::UserError) -> Self {
        VoiceError::Chat(ChatError::from(error))
    }
}

/// The voice a character speaks with, from the model's voices: for now every character's
/// is derived from its gender and id (stable while the model's voice list is). A created
/// character's chosen voice comes first (`Voices::speak`).
pub fn voice_for<'a>(character: &Character, voices: &'a [Voice]) -> Option<&'a Voice> {
    choose_voice(voices, character.card.gender.code(), character.card.character_id.as_str())
}

#[derive(Clone)]
pub struct Voices {
    inner: Arc<Inner>,
}

struct Inner {
    model: Arc<dyn VoiceModel>,
    store: Store,
    registry: Addr<Registry>,
    conversations: Conversations,
    bus: crate::bus::EventBus,
    settings: VoiceSettings,
    /// Pending debits: an attempt's row lives from before its debit until it is complete
    /// or refunded.
    journal: Journal,
}

/// What the synthesising play needs after it has answered.
struct Job {
    key: VoiceClipKey,
    attempt: u32,
    voice_id: String,
    texts: Vec<String>,
}

impl Voices {
    pub fn new(model: Arc<dyn VoiceModel>, store: Store, node: &crate::Node, settings: VoiceSettings) -> Self {
        let journal = Journal::new(store.clone(), &node.bus);
        let inner = Inner {
            journal,
            model,
            store,
            registry: node.registry.clone(),
            conversations: node.conversations.clone(),
            bus: node.bus.clone(),
            settings,
        };
        Self { inner: Arc::new(inner) }
    }

    /// The model's voices.
    pub fn voices(&self) -> Vec<VoiceView> {
        self.inner
            .model
            .voices()
            .into_iter()
            .map(|v| VoiceView { voice_id: v.voice_id, gender: v.gender, label: v.label })
            .collect()
    }

    /// Plays a character message of the user's conversation (module docs).
    pub async fn speak(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
    ) -> Result<SpokenMessage, VoiceError> {
        let inner = &self.inner;
        let character = inner.conversations.visible_character(user_id, character_id).await.map_err(|e| match e {
            ChatError::NoCharacter => VoiceError::NoMessage,
            other => VoiceError::Chat(other),
        })?;
        let message =
            inner.conversations.find_message(user_id, character_id, message_id).await.map_err(|e| match e {
                ChatError::NoMessage | ChatError::NoConversation => VoiceError::NoMessage,
                other => VoiceError::Chat(other),
            })?;
        let message = message.filter(|m| m.speaker == Speaker::Character).ok_or(VoiceError::NoMessage)?;
        let voice_id = self.voice_id(&character).await?;
        let spoken = text::speakable(&message.content, inner.settings.max_chars);
        let texts = text::parts(&spoken, inner.settings.part_chars);
        if texts.is_empty() {
            return Err(VoiceError::NothingToSay);
        }
        let key = VoiceClipKey { user_id: user_id.clone(), character_id: character_id.clone(), message_id };

        // A few rounds: a lost claim reads the clip again and waits for the winner.
        for _ in 0..4 {
            let clip = inner.store.voice_clips.clip(&key).await?;
            let (attempt, replacing) = match &clip {
                Some(clip) if clip.state == VoiceClipState::Complete => {
                    let coin = self.balance(user_id).await?;
                    return Ok(answer(message_id, &voice_id, clip, coin));
                }
                Some(clip) if clip.state == VoiceClipState::Speaking && !self.stalled(clip) => {
                    return self.wait_for_first_part(&key, &voice_id, clip.attempt).await;
                }
                Some(clip) => (clip.attempt + 1, Some((clip.attempt, clip.state))),
                None => (0, None),
            };
            // The journal's row first (one per attempt, shared by concurrent plays of it): a
            // node killed after the debit leaves it, and a recovery marks the attempt failed
            // and refunds it unless every part was stored (`pending.rs`).
            let debit_id = txn("voice", &key, attempt)?;
            let owed = Owed::Voice {
                character_id: character_id.as_str().to_owned(),
                message_id: message_id.raw(),
                attempt,
                parts: texts.len() as u32,
                price: inner.settings.price.units(),
                refund_txn: txn("voice-refund", &key, attempt)?.to_string(),
            };
            inner.journal.open(debit_id.as_str(), user_id, &owed).await?;
            // Debit before the claim: concurrent plays of one attempt share the txn id, so
            // the ledger takes the coins once whoever wins the claim.
            let balance = match self.debit(&key, attempt).await {
                Ok(balance) => balance,
                Err(error) => {
                    inner.journal.close(debit_id.as_str()).await;
                    return Err(error);
                }
            };
            if !inner.store.voice_clips.start_clip(&key, attempt, replacing, now_secs()).await? {
                continue;
            }
            // The winner delivers the outcome, so the row is its own whoever opened it.
            if let Err(error) = inner.journal.own(debit_id.as_str()).await {
                tracing::error!(%error, "a voice play's pending debit could not be taken over");
            }
            let job = Job { key, attempt, voice_id: voice_id.clone(), texts };
            return self.synthesise(job, balance).await;
        }
        Err(VoiceError::Busy)
    }

    /// The voice `character` speaks with: a created character's chosen one while the model
    /// has it, else the one derived from its gender and id.
    pub async fn voice_id(&self, character: &Character) -> Result<String, VoiceError> {
        let inner = &self.inner;
        let voices = inner.model.voices();
        let chosen = match character.creator_id {
            Some(_) => Box::pin(inner.store.created.get(&character.card.character_id))
                .await?
                .map(|created| created.draft.voice_id),
            None => None,
        };
        chosen
            .filter(|chosen| voices.iter().any(|voice| &voice.voice_id == chosen))
            .or_else(|| voice_for(character, &voices).map(|v| v.voice_id.clone()))
            .ok_or_else(|| VoiceError::Failed("the voice model offers no voice".into()))
    }

    /// What speaking a message costs (`genVoiceCoin`).
    pub fn price(&self) -> Coins {
        self.inner.settings.price
    }

    /// Calls (issue 32): claims the clip of a reply spoken during a call, before its first
    /// part, so a later Listen of the message plays what the call said and charges nothing.
    /// False when the message has a clip already.
    pub async fn start_answer_clip(&self, key: &VoiceClipKey) -> Result<bool, VoiceError> {
        Ok(self.inner.store.voice_clips.start_clip(key, 0, None, now_secs()).await?)
    }

    /// Calls: speaks one sentence of a reply as part `index` of its clip and stores it.
    pub async fn speak_answer_part(
        &self,
        key: &VoiceClipKey,
        index: usize,
        text: &str,
        voice_id: &str,
        last: bool,
    ) -> Result<VoicePart, VoiceError> {
        let spoken = text::speakable(text, self.inner.settings.max_chars);
        if spoken.is_empty() {
            return Err(VoiceError::NothingToSay);
        }
        self.speak_text(key, 0, index, &spoken, voice_id, last).await.map_err(|error| match error {
            PartError::Busy => VoiceError::Busy,
            PartError::Failed(cause) => VoiceError::Failed(cause),
        })
    }

    /// Calls: the clip of a reply is whole (`complete`), or was cut short (barge-in, a
    /// failure, the call ended): then it is marked failed, and a later Listen speaks the
    /// whole message anew as a first play.
    pub async fn end_answer_clip(&self, key: &VoiceClipKey, complete: bool) {
        let state = if complete { VoiceClipState::Complete } else { VoiceClipState::Failed };
        if let Err(error) = self.inner.store.voice_clips.finish_clip(key, 0, state).await {
            tracing::error!(%error, user = %key.user_id, "a call answer's voice clip could not be closed");
        }
    }

    fn stalled(&self, clip: &VoiceClip) -> bool {
        now_secs() - clip.started_at > self.inner.settings.stalled_after.as_secs() as i64
    }

    async fn balance(&self, user_id: &UserId) -> Result<Coins, VoiceError> {
        Ok(self.inner.registry.send(UserAddr(user_id.clone())).await?.send(Balance).await??)
    }

    /// Takes the price of `attempt` through the user's actor; the balance after it.
    async fn debit(&self, key: &VoiceClipKey, attempt: u32) -> Result<Coins, VoiceError> {
        let txn_id = txn("voice", key, attempt)?;
        let debit = Debit { amount: self.inner.settings.price, reason: "voice".into(), txn_id };
        let user = self.inner.registry.send(UserAddr(key.user_id.clone())).await?;
        match user.send(debit).await?? {
            LedgerOutcome::Applied { balance, .. } | LedgerOutcome::Replayed { balance, .. } => Ok(balance),
            LedgerOutcome::Insufficient { .. } => Err(VoiceError::NeedPay),
            LedgerOutcome::NoAccount => Err(VoiceError::Chat(ChatError::NoAccount)),
        }
    }

    /// Another play is speaking the message: answer its first part once stored.
    async fn wait_for_first_part(
        &self,
        key: &VoiceClipKey,
        voice_id: &str,
        attempt: u32,
    ) -> Result<SpokenMessage, VoiceError> {
        let deadline = tokio::time::Instant::now() + self.inner.settings.part_timeout;
        loop {
            let clip = self.inner.store.voice_clips.clip(key).await?;
            match clip {
                Some(clip) if clip.attempt == attempt && clip.state != VoiceClipState::Failed => {
                    if !clip.parts.is_empty() {
                        let coin = self.balance(&key.user_id).await?;
                        return Ok(answer(key.message_id, voice_id, &clip, coin));
                    }
                }
                // Failed, replaced or deleted: the other play told the user (voiceFailed).
                _ => return Err(VoiceError::Failed("the play this one waited for failed".into())),
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(VoiceError::Busy);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The claimed attempt: the first part now, the rest in the background.
    async fn synthesise(&self, job: Job, balance: Coins) -> Result<SpokenMessage, VoiceError> {
        let first = match self.speak_part(&job, 0).await {
            Ok(part) => part,
            Err(error) => {
                self.fail(&job, &error).await;
                return Err(match error {
                    PartError::Busy => VoiceError::Busy,
                    PartError::Failed(cause) => VoiceError::Failed(cause),
                });
            }
        };
        let (message_id, voice_id) = (job.key.message_id, job.voice_id.clone());
        let complete = job.texts.len() == 1;
        if complete {
            self.finish(&job).await;
        } else {
            let voices = self.clone();
            tokio::spawn(async move { voices.speak_rest(job).await });
        }
        Ok(SpokenMessage { message_id, voice_id, parts: vec![first], complete, coin: balance })
    }

    /// Speaks part `index` of the job and stores it.
    async fn speak_part(&self, job: &Job, index: usize) -> Result<VoicePart, PartError> {
        let last = index + 1 == job.texts.len();
        self.speak_text(&job.key, job.attempt, index, &job.texts[index], &job.voice_id, last).await
    }

    /// Speaks `text` as part `index` of attempt `attempt` of the clip and stores it.
    async fn speak_text(
        &self,
        key: &VoiceClipKey,
        attempt: u32,
        index: usize,
        text: &str,
        voice_id: &str,
        last: bool,
    ) -> Result<VoicePart, PartError> {
        let inner = &self.inner;
        let work = async {
            let speech = inner.model.speak(text, voice_id).await.map_err(PartError::from)?;
            if speech.duration_ms == 0 {
                return Err(PartError::Failed("the voice model answered silence".into()));
            }
            let media_id = format!("voice-{}", random_hex(24));
            let audio = MediaObject { content_type: speech.content_type, bytes: speech.bytes };
            inner.store.media.put(&media_id, audio).await.map_err(|e| PartError::Failed(e.to_string()))?;
            let part = VoiceClipPart { index: index as u32, media_id, duration_ms: speech.duration_ms };
            inner
                .store
                .voice_clips
                .add_clip_part(key, attempt, part.clone())
                .await
                .map_err(|e| PartError::Failed(e.to_string()))?;
            // The message (its conversation, the account) may have been deleted, or the
            // attempt taken over, while this part was made: then nothing of it may stay.
            let current = inner.store.voice_clips.clip(key).await.map_err(|e| PartError::Failed(e.to_string()))?;
            match current {
                Some(clip) if clip.attempt == attempt => {}
                gone => {
                    // Deleted: remove the row just written with its audio. Taken over: the
                    // new attempt does not list this part; its audio goes now.
                    let _ = match gone {
                        None => inner.store.voice_clips.delete_clip(key).await,
                        Some(_) => inner.store.media.delete(&part.media_id).await,
                    };
                    return Err(PartError::Failed("the message or its clip went away while it was spoken".into()));
                }
            }
            Ok(view(&part, last))
        };
        tokio::time::timeout(inner.settings.part_timeout, work)
            .await
            .map_err(|_| PartError::Failed(format!("a part took longer than {:?}", inner.settings.part_timeout)))?
    }

    /// Parts 1.. of the job, each sent as `voicePart` once stored.
    async fn speak_rest(&self, job: Job) {
        for index in 1..job.texts.len() {
            match self.speak_part(&job, index).await {
                Ok(part) => {
                    // The clip is marked complete before its last part is announced: a play
                    // asked for on that event finds the clip whole (it found it unfinished
                    // once, when the mark came after the event).
                    if index + 1 == job.texts.len() {
                        self.finish(&job).await;
                    }
                    let event = ServerEvent::VoicePart {
                        character_id: job.key.character_id.clone(),
                        message_id: job.key.message_id,
                        part,
                    };
                    self.inner.bus.publish(&job.key.user_id, event).await;
                }
                Err(error) => {
                    self.fail(&job, &error).await;
                    return;
                }
            }
        }
    }

    async fn finish(&self, job: &Job) {
        match self.inner.store.voice_clips.finish_clip(&job.key, job.attempt, VoiceClipState::Complete).await {
            Ok(_) => {
                if let Ok(debit_id) = txn("voice", &job.key, job.attempt) {
                    self.inner.journal.close(debit_id.as_str()).await;
                }
            }
            // The parts are stored; a play after `stalled_after` starts over (and is charged
            // again under a new attempt's txn id only if this one was marked failed). The
            // pending row stays: a recovery finds every part and marks the clip complete.
            Err(error) => {
                tracing::error!(%error, user = %job.key.user_id, "a voice clip could not be marked complete")
            }
        }
    }

    /// Refunds the attempt, marks it failed and tells the user's sockets.
    async fn fail(&self, job: &Job, error: &PartError) {
        let inner = &self.inner;
        let cause = match error {
            PartError::Busy => "busy".to_owned(),
            PartError::Failed(cause) => cause.clone(),
        };
        tracing::warn!(%cause, user = %job.key.user_id, message = job.key.message_id.raw(), "a voice play failed");
        if let Err(error) = inner.store.voice_clips.finish_clip(&job.key, job.attempt, VoiceClipState::Failed).await {
            tracing::error!(%error, "a failed voice clip could not be marked failed");
        }
        let refunded = match self.refund(job).await {
            Ok(()) => {
                // Refunded: nothing is pending. (Not refunded: the row waits for a recovery.)
                if let Ok(debit_id) = txn("voice", &job.key, job.attempt) {
                    inner.journal.close(debit_id.as_str()).await;
                }
                inner.settings.price
            }
            Err(error) => {
                // The debit stays in the ledger; the refund's txn id is idempotent, so an
                // operator's retry cannot pay it twice.
                tracing::error!(%error, user = %job.key.user_id, "a failed voice play could not be refunded");
                Coins::ZERO
            }
        };
        let code = match error {
            PartError::Busy => ApiCode::RateLimited,
            PartError::Failed(_) => ApiCode::ServerError,
        };
        let event = ServerEvent::VoiceFailed {
            character_id: job.key.character_id.clone(),
            message_id: job.key.message_id,
            code: code.value(),
            msg: "The voice could not be made; the tokens went back.".into(),
            refunded,
        };
        inner.bus.publish(&job.key.user_id, event).await;
    }

    async fn refund(&self, job: &Job) -> Result<(), VoiceError> {
        let txn_id = txn("voice-refund", &job.key, job.attempt)?;
        let credit = Credit { amount: self.inner.settings.price, reason: "voice refund".into(), txn_id };
        let user = self.inner.registry.send(UserAddr(job.key.user_id.clone())).await?;
        match user.send(credit).await?? {
            LedgerOutcome::NoAccount => Err(VoiceError::Chat(ChatError::NoAccount)),
            _ => Ok(()),
        }
    }
}

/// Why a part was not made.
enum PartError {
    /// The synthesiser is overloaded (its queue, or the service's 429/503).
    Busy,
    Failed(String),
}

impl From<amora_ai::AiError> for PartError {
    fn from(error: amora_ai::AiError) -> Self {
        match error {
            amora_ai::AiError::QueueFull | amora_ai::AiError::Busy(_) => PartError::Busy,
            other => PartError::Failed(other.to_string()),
        }
    }
}

fn view(part: &VoiceClipPart, last: bool) -> VoicePart {
    VoicePart { index: part.index, url: format!("/media/{}", part.media_id), duration_ms: part.duration_ms, last }
}

/// The answer from a stored clip; `last` marks the final part once the clip is complete.
fn answer(message_id: MessageId, voice_id: &str, clip: &VoiceClip, coin: Coins) -> SpokenMessage {
    let complete = clip.state == VoiceClipState::Complete;
    let count = clip.parts.len();
    let parts = clip.parts.iter().enumerate().map(|(n, part)| view(part, complete && n + 1 == count)).collect();
    SpokenMessage { message_id, voice_id: voice_id.to_owned(), parts, complete, coin }
}

/// `voice:<userId>:<messageId>` for the first attempt, `…:<attempt>` for retries.
fn txn(prefix: &str, key: &VoiceClipKey, attempt: u32) -> Result<TxnId, VoiceError> {
    let base = format!("{prefix}:{}:{}", key.user_id.as_str(), key.message_id.raw());
    let id = if attempt == 0 { base } else { format!("{base}:{attempt}") };
    TxnId::parse(&id).map_err(|e| VoiceError::Failed(format!("txn id: {e}")))
}

fn random_hex(len: usize) -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..len).map(|_| char::from_digit(rng.gen_range(0..16), 16).unwrap_or('0')).collect()
}

fn now_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}
