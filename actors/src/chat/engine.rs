//! The chat engine: the model's side of a conversation. It loads the model, builds the
//! prompt from what the `CharacterActor` holds (persona, the recent window, the memories),
//! writes a reply while streaming `chatDelta`, and extracts memories. It keeps no
//! conversation state and reads no conversation from the store (but for recall,
//! `recall.rs`, which looks up the pair's recall index): the actor hands it what a turn
//! needs and stores what comes back.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use amora_ai::AiError;
use amora_ai::chat::{CancellationToken, ChatMessage, ChatModel, ChatRequest, FinishReason, Role, StreamEvent};
use amora_cards::CompiledLorebook;
use amora_domain::account::UserId;
use amora_domain::character::{Character, CharacterId};
use amora_domain::chat::{
    CardPrompt, EntryId, HistoryMessage, LoreEntry, Persona, Prompt, PromptMessage, PromptParts, PromptRole, Recall,
    RecallItem, Speaker, assemble_prompt, clean_reply, could_open_a_preamble, end_reply, last_sentence_end,
    says_only_names, says_too_little, sentence_ends, speaker_turn_at, without_opening_label,
};
use amora_domain::group::GroupId;
use amora_store::{Memory, Store, StoredMessage};
use futures_util::StreamExt;

use super::Found;
use super::fair::{FairQueue, Refused};
use super::memory::{self, Layers};
use super::metrics::{ChatMetrics, Phase};
use super::{ChatError, ChatSettings, Chatter};
use crate::bus::EventBus;
use crate::moderation::{Moderator, Surface};
use crate::wire::events::ServerEvent;

/// Messages the model reads for one memory extraction.
pub const EXTRACTION_WINDOW: usize = 12;

/// Times a reply is written before an empty one is reported as the model's failure.
const REPLY_TRIES: u32 = 3;

/// Attempts dropped by the checks (language, a repeated opening) before one is kept as it
/// comes, besides the [`REPLY_TRIES`] an empty reply has. A drop costs the held-back start
/// only (a fraction of a second): on the bench, one reply in four was dropped once, and one
/// in twenty-five still after three drops, so a wrong language gets five more chances.
const MAX_DROPPED: u32 = 5;

/// Tokens a continuation writes at least before the model may end its turn.
const MIN_CONTINUATION_TOKENS: u32 = 8;

/// Tokens any other reply writes at least before the model may end its turn.
const MIN_REPLY_TOKENS: u32 = 4;

/// Characters of a reply held back before any is sent, so that its language and its
/// opening are checked while it can still be written again unseen: about fifteen tokens (ten words or so, enough to tell a language by), a
/// fraction of a second on the embedded model.
const HELD_BACK_CHARS: usize = 60;

/// Words at the start of a reply that, the same as the previous reply's, make it a repeat.
const REPEATED_OPENING_WORDS: usize = 5;

/// Why an attempt at a reply was dropped before any of it was sent.
#[derive(Debug)]
enum Dropped {
    /// The model wrote in another language than the conversation's (the one detected,
    /// for the log).
    Language(#[allow(dead_code)] &'static str),
    /// It opened with the words the previous reply opened with.
    Repeat,
    /// It wrote figures and signs rather than words ("(2024-8-5) 31:27:06.95 …").
    Figures,
    /// The content rules refused what it wrote before any of it was sent: the user asked
    /// for nothing refused, so the model is asked again rather than the user refused.
    Refused,
}

/// What one attempt at a reply came to.
enum Attempt {
    /// The text the model wrote (after the reply's opening) and why it ended.
    Written(String, FinishReason),
    Dropped(Dropped),
}

/// What an attempt is checked against while its start is held back.
struct Checks<'a> {
    /// The conversation's language (`language::reply_language`).
    language: &'a str,
    /// The previous reply of the character's, if any.
    previous: Option<&'a str>,
    /// Whether a failed check drops the attempt (not on the last try, nor for a continuation).
    enforced: bool,
}

/// What a reply is written from: the conversation as the character's actor holds it.
pub struct ReplyContext<'a> {
    pub chatter: &'a Chatter,
    pub character: &'a Character,
    /// The newest messages, oldest first, ending with the user's message to answer.
    pub window: &'a [StoredMessage],
    /// True when the window holds the whole conversation.
    pub window_is_whole: bool,
    /// Every memory of the pair, newest first.
    pub memories: &'a [Memory],
    /// The entries of the card's lorebook this reply's prompt takes, chosen once for the
    /// reply, off the actors' thread (`lore::choose_off_thread`).
    pub lore: &'a [LoreEntry<'a>],
    /// Where the text written so far is kept for the actor (a page reloaded mid-reply
    /// shows it); `None` when nobody reads it.
    pub partial: Option<&'a Mutex<String>>,
    /// Write the rest of the window's newest message (the character's reply, `chatContinue`)
    /// rather than a reply to it.
    pub continues: bool,
    /// What recall found for the newest user message (`ChatEngine::recall`).
    pub recall: &'a Found,
    /// Where the reply's pieces are published: a one-to-one conversation's `chatDelta`,
    /// or a group's `groupDelta` naming the speaking character (issue 31).
    pub reply_to: ReplyTo,
}

/// Where the pieces of a reply go out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ReplyTo {
    /// `chatDelta` of the conversation with the character.
    #[default]
    Conversation,
    /// `groupDelta` of this group chat.
    Group(GroupId),
}

pub struct ChatEngine {
    store: Store,
    bus: EventBus,
    settings: ChatSettings,
    model: tokio::sync::OnceCell<Arc<dyn ChatModel>>,
    metrics: ChatMetrics,
    /// Shares the model fairly between users (`fair`).
    fair: FairQueue,
    /// The node's moderation service: replies and extracted memories pass it.
    moderator: Moderator,
    /// Turns for lorebook scans on the blocking pool (`lore::choose_off_thread`).
    lore_scans: tokio::sync::Semaphore,
}

impl ChatEngine {
    pub fn new(store: Store, bus: EventBus, settings: ChatSettings, moderator: Moderator) -> Self {
        let fair = FairQueue::new(settings.fair_limits());
        let model = tokio::sync::OnceCell::new();
        Self { store, bus, settings, model, metrics: ChatMetrics::new(), fair, moderator, lore_scans: lore_scans() }
    }

    /// A ready model, e.g. one shared by several nodes of a test (the settings' model is not loaded then).
    pub fn with_model(
        store: Store,
        bus: EventBus,
        settings: ChatSettings,
        model: Arc<dyn ChatModel>,
        moderator: Moderator,
    ) -> Self {
        let fair = FairQueue::new(settings.fair_limits());
        let model = tokio::sync::OnceCell::new_with(Some(model));
        Self { store, bus, settings, model, metrics: ChatMetrics::new(), fair, moderator, lore_scans: lore_scans() }
    }

    /// The entries of `book` a reply to `window` takes, chosen on the blocking pool (never
    /// on the actors' thread), within `chat.lorebook_budget_tokens` counted by the model's
    /// tokenizer. No lore when the model cannot be had (the reply fails on it anyway).
    pub async fn choose_lore(
        &self,
        book: Option<Arc<CompiledLorebook>>,
        window: &[StoredMessage],
    ) -> super::lore::ChosenLore {
        if book.is_none() {
            return super::lore::ChosenLore::default();
        }
        let Ok(model) = self.model().await else {
            return super::lore::ChosenLore::default();
        };
        let history: Vec<HistoryMessage> = window.iter().cloned().map(history_message).collect();
        let count = move |text: &str| model.count_tokens(text);
        super::lore::choose_off_thread(&self.lore_scans, book, history, self.settings.lorebook_budget_tokens, count)
            .await
    }

    /// How many replies wait for the model on this node now.
    pub fn waiting_replies(&self) -> usize {
        self.fair.waiting()
    }

    /// Whether the model would take a reply of `user_id` now (`FairQueue::would_admit`): a
    /// send it would refuse is refused at the door, before its message is stored and its
    /// free message taken, and the socket counts it against the sender (`rate_limit`).
    pub fn has_room_for(&self, user_id: &UserId) -> Result<(), ChatError> {
        self.fair.would_admit(user_id).map_err(refusal_error)
    }

    /// The node's moderation service.
    pub fn moderator(&self) -> &Moderator {
        &self.moderator
    }

    pub fn settings(&self) -> &ChatSettings {
        &self.settings
    }

    /// The per-phase timings of replies, for the server's `/metrics`.
    pub fn metrics(&self) -> &ChatMetrics {
        &self.metrics
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn bus(&self) -> &EventBus {
        &self.bus
    }

    /// The chat model, loaded on first use (reading and converting the embedded model takes
    /// a second or two, so chat-less processes never pay for it).
    pub async fn model(&self) -> Result<Arc<dyn ChatModel>, ChatError> {
        let model = self
            .model
            .get_or_try_init(|| async {
                let started = Instant::now();
                let model = amora_ai::chat::build_async(&self.settings.model).await?;
                tracing::info!(model = ?model.info(), took_ms = started.elapsed().as_millis() as u64, "chat model loaded");
                Ok::<_, AiError>(model)
            })
            .await
            .map_err(|error| {
                tracing::error!(%error, "the chat model could not be loaded");
                ChatError::Model(error.to_string())
            })?;
        Ok(model.clone())
    }

    /// The character as the catalogue has it now; `None` when it is gone or hidden by the
    /// operator (gone for everyone).
    pub async fn load_character(&self, id: &CharacterId) -> Result<Option<Character>, ChatError> {
        let Some(character) = self.store.characters.get(id).await? else {
            return Ok(None);
        };
        let hidden = self.store.characters.is_hidden(id).await?;
        Ok((!hidden).then_some(character))
    }

    /// Writes the reply, streaming `chatDelta` to the user's sockets; moderates the text as
    /// it grows. Answers the reply's text and why it ended, or `None` when it was stopped
    /// before any text. Storing it is the caller's.
    pub async fn write_reply(
        &self,
        context: &ReplyContext<'_>,
        reply_id: EntryId,
        cancel: CancellationToken,
    ) -> Result<Option<(String, FinishReason)>, ChatError> {
        let chatter = context.chatter;
        let character_id = &context.character.card.character_id;
        let started = Instant::now();
        let model = self.model().await?;
        let prompt = assembled_prompt(&self.settings, context, context.recall, |text| model.count_tokens(text));
        let language = conversation_language(context);
        // Where the reply starts: a continuation goes on from the reply's own text; a
        // question about what the user told starts with the answer (`answer`).
        let opening = if context.continues {
            context.window.last().map(|m| m.content.trim_end().to_owned()).unwrap_or_default()
        } else {
            answer_opening(context, language).unwrap_or_default()
        };
        // The system message and the history are the next turn's start; what comes after
        // them (recall, the reply guide, activated lore, the card's instructions) changes
        // from turn to turn.
        let stable = 1 + prompt.history.len();
        let mut request = ChatRequest::new(prompt.messages.into_iter().map(to_model_message).collect());
        if stable < request.messages.len() {
            request = request.cache_prefix(stable);
        }
        let character_name = &context.character.card.character_name;
        let request = request
            .max_tokens(self.settings.max_reply_tokens)
            .language(language)
            .prefill(opening.clone())
            // A reply says something: a small model sometimes ends its turn at once (three
            // times in a row failed a first reply in the journeys), and asked to continue a
            // reply that had ended, it does so most of the time.
            .min_tokens(if context.continues { MIN_CONTINUATION_TOKENS } else { MIN_REPLY_TOKENS })
            // The model must not write the user's next line for them, nor a next turn of its own.
            .stop([
                format!("\n{}:", chatter.user_name),
                format!("{}:", chatter.user_name),
                format!("\n{character_name}:"),
                "\nUser:".to_owned(),
            ])
            .cancel(cancel.clone());
        // Held until the reply is written: the model's turn, shared fairly between users.
        let _slot = tokio::select! {
            slot = self.fair.acquire(&chatter.user_id) => slot.map_err(refusal_error)?,
            () = cancel.cancelled() => return Ok(None),
        };
        let model_started = Instant::now();
        self.metrics.observe(Phase::Prepare, model_started - started);
        let previous = previous_reply(context);
        // A small model sometimes ends its turn at once, opens with the user's name (a stop
        // string), writes in another language or repeats its previous reply: like
        // SillyTavern's auto-swipe, the reply is written again, with a fresh seed, before
        // the user sees any of it (`stream_reply` holds the start back).
        // Empty attempts and dropped ones are counted apart: a reply dropped for its language
        // or its opening never takes away one of the tries an empty reply has.
        let (mut empty, mut dropped) = (0, 0);
        let mut dropped_for_language = false;
        for attempt in 1.. {
            let checks = Checks { language, previous, enforced: dropped < MAX_DROPPED && !context.continues };
            let shown = if context.continues { "" } else { opening.as_str() };
            // An attempt is dropped by cancelling its own token, never the reply's. After one
            // was dropped for its language, the decoding holds the language harder.
            // After an attempt that said nothing (most often the user's label or a blank line
            // first, stopped at once), the next may not open so.
            let attempt_request = request
                .clone()
                .cancel(cancel.child_token())
                .strict_language(dropped_for_language)
                .avoid_stop_openings(empty > 0);
            let attempt_result = self
                .stream_reply(model.as_ref(), attempt_request, context, reply_id, model_started, shown, &checks)
                .await?;
            if let Some(cache) = model.prompt_cache() {
                self.metrics.prompt_cache(cache);
            }
            let (text, finish) = match attempt_result {
                Attempt::Written(text, finish) => (text, finish),
                Attempt::Dropped(why) => {
                    dropped += 1;
                    dropped_for_language |= matches!(why, Dropped::Language(_));
                    tracing::info!(attempt, ?why, user = %chatter.user_id, character = %character_id, "a reply was written again");
                    continue;
                }
            };
            if finish == FinishReason::Cancelled && text.trim().is_empty() {
                self.metrics.observe(Phase::Generate, model_started.elapsed());
                return Ok(None);
            }
            let content = kept_text(&opening, &text, finish, character_name, &chatter.user_name, context.continues);
            // A reply of nothing but a name ("Lena,") is as empty as none (for a
            // continuation, the new text alone may be a name: it is kept).
            let says_nothing = if context.continues {
                content.trim().is_empty()
            } else {
                says_too_little(&content, character_name, &chatter.user_name)
            };
            if !says_nothing {
                // One generate phase per turn, however many attempts it took.
                self.metrics.observe(Phase::Generate, model_started.elapsed());
                return Ok(Some((content, finish)));
            }
            tracing::warn!(attempt, user = %chatter.user_id, character = %character_id, written = %text, "the model wrote an empty reply");
            empty += 1;
            if empty == REPLY_TRIES {
                break;
            }
        }
        Err(ChatError::NothingWritten(REPLY_TRIES))
    }

    /// One attempt at a reply: streams `chatDelta` of `shown` (the reply's opening, when
    /// the client does not have it) and what the model writes after it, holding the start
    /// back until [`HELD_BACK_CHARS`] are written (or the model is done) and `checks` pass:
    /// a dropped attempt sent nothing. A speaker label the model opens with is never sent.
    /// Whitespace before the first visible character is sent with it, so an empty attempt
    /// sends nothing either. Moderates the text as it grows. Answers what the model wrote
    /// and why it ended.
    #[allow(clippy::too_many_arguments)]
    async fn stream_reply(
        &self,
        model: &dyn ChatModel,
        request: ChatRequest,
        context: &ReplyContext<'_>,
        reply_id: EntryId,
        model_started: Instant,
        shown: &str,
        checks: &Checks<'_>,
    ) -> Result<Attempt, ChatError> {
        let chatter = context.chatter;
        let character_id = &context.character.card.character_id;
        let character_name = &context.character.card.character_name;
        let cancel = request.cancel.clone();
        let mut stream = model.stream(request).await?;
        let mut written = String::new();
        // What the user sees: `shown`, then what the model wrote past a label it opened with.
        let mut text = shown.to_owned();
        // How much of `text` was sent, in bytes and as JavaScript counts a string (UTF-16
        // units: where the next piece starts for the client).
        let mut sent = 0;
        let mut offset: u32 = 0;
        let mut held_back = true;
        // How much of `text` may be sent: past the held-back start, whole sentences judged
        // in the conversation's language (`off_language_sentence`); a sentence in another
        // one ends the reply before it.
        let mut approved = 0;
        let names = (character_name.as_str(), chatter.user_name.as_str());
        let mut finish = FinishReason::Stop;
        loop {
            let (delta, mut ended) = match stream.next().await {
                Some(event) => match event? {
                    StreamEvent::Delta(delta) => (delta, false),
                    StreamEvent::Done(done) => {
                        finish = done.reason;
                        (String::new(), true)
                    }
                },
                None => (String::new(), true),
            };
            written.push_str(&delta);
            if held_back {
                let own = if shown.is_empty() {
                    without_opening_label(&written, character_name, &chatter.user_name)
                } else {
                    written.as_str()
                };
                text = after_opening(shown, own);
                // The model's own words are what is judged: an opening written here does not count.
                // A first line that may yet be a note about the reply ("Here's a sample
                // response:") waits for its end, so that the note is never sent.
                let may_be_note = shown.is_empty() && could_open_a_preamble(own);
                if !ended && (own.trim().chars().count() < HELD_BACK_CHARS || may_be_note) {
                    continue;
                }
                held_back = false;
                // A reply that ended saying only a name, or a single word, is written
                // again, nothing of it sent.
                let too_little = if context.continues {
                    says_only_names(&text, character_name, &chatter.user_name)
                } else {
                    says_too_little(&text, character_name, &chatter.user_name)
                };
                if ended && too_little {
                    return Ok(Attempt::Written(written, finish));
                }
                if checks.enforced
                    && let Some(dropped) = failed_check(own, checks)
                {
                    cancel.cancel();
                    return Ok(Attempt::Dropped(dropped));
                }
                // The start passed: it is sent up to its last complete sentence (all of it
                // when it has none), its sentences after the first judged as the rest are.
                approved = shown.len();
                let ready = match last_sentence_end(&text) {
                    Some(end) if !ended && end > shown.len() => end,
                    _ => text.len(),
                };
                // Its first sentence is what the checks judged.
                approved += sentence_ends(&text[approved..ready]).first().copied().unwrap_or(ready - approved);
                if cut_off_language(&mut text, &mut written, &mut approved, ready, checks.language, names) && !ended {
                    cancel.cancel();
                    ended = true;
                }
            } else {
                text.push_str(&delta);
                let ready = if ended { text.len() } else { sentences_ready(&text) };
                if cut_off_language(&mut text, &mut written, &mut approved, ready, checks.language, names) && !ended {
                    cancel.cancel();
                    ended = true;
                }
            }
            if approved > sent && !text[..approved].trim().is_empty() {
                if sent == 0 {
                    self.metrics.observe(Phase::FirstToken, model_started.elapsed());
                }
                // The rules at every piece, so nothing refused reaches the user's screen.
                if let Err(refusal) = self.moderator.check_reply_rules(Some(&chatter.user_id), &text, character_name) {
                    cancel.cancel();
                    if sent == 0 && checks.enforced {
                        return Ok(Attempt::Dropped(Dropped::Refused));
                    }
                    if sent == 0 || !cut_back(&mut text, &mut written, sent) {
                        return Err(ChatError::Refused(refusal));
                    }
                    // What was sent passed the rules: the reply ends there, the refused
                    // sentence never shown.
                    tracing::info!(user = %chatter.user_id, character = %character_id, "a reply ended before a refused sentence");
                    finish = FinishReason::Stop;
                    break;
                }
                let delta = text[sent..approved].to_owned();
                sent = approved;
                if let Some(partial) = context.partial
                    && let Ok(mut partial) = partial.lock()
                {
                    partial.push_str(&delta);
                }
                let at = offset;
                offset = offset.saturating_add(delta.encode_utf16().count() as u32);
                let event = match &context.reply_to {
                    ReplyTo::Conversation => {
                        ServerEvent::ChatDelta { character_id: character_id.clone(), reply_id, delta, offset: at }
                    }
                    ReplyTo::Group(group_id) => ServerEvent::GroupDelta {
                        group_id: group_id.clone(),
                        character_id: character_id.clone(),
                        reply_id,
                        delta,
                        offset: at,
                    },
                };
                self.bus.publish(&chatter.user_id, event).await;
            }
            if ended {
                break;
            }
        }
        // The second layer once the reply is whole (asking it at every piece would cost a
        // call per token); a refusal here drops the reply before it is stored.
        self.moderator
            .check_classifier(Surface::ChatReply, Some(&chatter.user_id), &text)
            .await
            .map_err(ChatError::Refused)?;
        Ok(Attempt::Written(written, finish))
    }

    /// The facts the user stated in `recent` (oldest first), by rule and by the model
    /// (`memory::extract`), moderated. Merging them with what is known and storing them is
    /// the caller's (`memory::merge`).
    pub async fn extract_facts(
        &self,
        chatter: &Chatter,
        character: &Character,
        recent: &[StoredMessage],
    ) -> Result<Vec<String>, ChatError> {
        if !recent.iter().any(|m| m.speaker == Speaker::User) {
            return Ok(Vec::new());
        }
        let history: Vec<HistoryMessage> = recent.iter().cloned().map(history_message).collect();
        let model = self.model().await?;
        let facts =
            memory::extract(model.as_ref(), &chatter.user_name, &character.card.character_name, &history, Layers::ALL)
                .await?;
        // What the user said about themselves goes back into prompts: held to the rule of
        // what users write about themselves; a refused fact is dropped (and logged).
        let mut kept = Vec::with_capacity(facts.len());
        for fact in facts {
            if self.moderator.check(Surface::ExtractedMemory, Some(&chatter.user_id), &fact).await.is_ok() {
                kept.push(fact);
            }
        }
        Ok(kept)
    }
}

/// What the user is told when the fair queue does not let a reply in.
fn refusal_error(refused: Refused) -> ChatError {
    match refused {
        Refused::UserBusy => ChatError::TooManyReplies,
        Refused::QueueFull => ChatError::ModelBusy,
    }
}

/// The opening of the reply `context` asks for, when its newest message asks about what
/// the user told (`answer`): looked up in the user's earlier messages of the window, the
/// memories and what recall found.
fn answer_opening(context: &ReplyContext<'_>, language: &str) -> Option<String> {
    // In a group every line not the speaker's is a user turn, labelled ("Hana Mori: …"):
    // another member's line is no question of the user's, and the members' lines are no
    // facts of theirs (a group journey had "Of course I remember — stayed and Breezy Lark!"
    // answering a member's reply from the greetings).
    if matches!(context.reply_to, ReplyTo::Group(_)) {
        return None;
    }
    let (question, earlier) = context.window.split_last()?;
    if question.speaker != Speaker::User {
        return None;
    }
    let mut sources: Vec<&str> =
        earlier.iter().rev().filter(|m| m.speaker == Speaker::User).map(|m| m.content.as_str()).collect();
    sources.extend(context.recall.messages.iter().map(|(_, text)| text.as_str()));
    sources.extend(context.recall.memories.iter().map(|(_, text)| text.as_str()));
    sources.extend(context.memories.iter().map(|m| m.content.as_str()));
    let previous = earlier.iter().rev().find(|m| m.speaker == Speaker::Character).map(|m| m.content.as_str());
    super::answer::answer_opening(&question.content, &sources, &context.chatter.user_name, language, previous)
}

/// The language the conversation is in (`language::reply_language`): the reply's.
fn conversation_language(context: &ReplyContext<'_>) -> &'static str {
    let history: Vec<HistoryMessage> = context.window.iter().cloned().map(history_message).collect();
    let language = super::language::reply_language(&history, &context.chatter.language);
    amora_domain::account::LANGUAGES.iter().copied().find(|code| *code == language).unwrap_or("en")
}

/// The character's reply before the one being written, when the window has one.
fn previous_reply<'a>(context: &ReplyContext<'a>) -> Option<&'a str> {
    let mut replies = context.window.iter().rev().filter(|m| m.speaker == Speaker::Character);
    if context.continues {
        replies.next();
    }
    replies.next().map(|m| m.content.as_str())
}

/// Judges the sentences of `text` (what the user sees) from `approved` to `ready` for the
/// conversation's `language` (`off_language_sentence`) and moves `approved` past them; at
/// the first in another language, or one opening with a speaker's label, cuts `text` and `written` (the model's text, which ends
/// as `text` does) before it and answers true: the reply ends there.
fn cut_off_language(
    text: &mut String,
    written: &mut String,
    approved: &mut usize,
    ready: usize,
    language: &str,
    (character_name, user_name): (&str, &str),
) -> bool {
    if ready <= *approved {
        return false;
    }
    // A made-up speaker's turn inside a line ends the reply too (`speaker_turn_at`).
    let piece = &text[*approved..ready];
    let speaker = speaker_turn_at(piece).filter(|&at| at > 0);
    let cut_at = match (super::language::off_language_sentence(piece, language), speaker) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    // A cut that would leave nothing but names ("Ann!") leaves the reply as it is: such a
    // reply is as good as empty and would be written again (`says_only_names`).
    let cut_at = cut_at.filter(|&at| !says_only_names(&text[..*approved + at], character_name, user_name));
    match cut_at {
        Some(at) => {
            let cut = *approved + at;
            // Past the approved start, so never inside the opening `written` lacks.
            cut_back(text, written, cut);
            *approved = cut;
            true
        }
        None => {
            *approved = ready;
            false
        }
    }
}

/// Cuts `text` (and `written`, the model's text it ends with) back to its first `at`
/// bytes. False, cutting nothing, when that cut would fall inside the opening `text`
/// starts with and `written` does not hold.
fn cut_back(text: &mut String, written: &mut String, at: usize) -> bool {
    let dropped = text.len() - at;
    if dropped > written.len() {
        return false;
    }
    written.truncate(written.len() - dropped);
    text.truncate(at);
    true
}

/// How much of `text`, a reply still being written, is whole sentences: up to its last
/// sentence end that something follows (a full stop at the very end may yet be "3.5").
fn sentences_ready(text: &str) -> usize {
    sentence_ends(text).into_iter().rev().find(|&end| end < text.len()).unwrap_or(0)
}

/// Why the start of an attempt (`own`: what the model wrote, its opening label left out)
/// fails `checks`, if it does: clearly written in another language than the conversation's
/// (`language::clearly_other`), or opening with the previous reply's first words.
fn failed_check(own: &str, checks: &Checks<'_>) -> Option<Dropped> {
    if mostly_figures(own) {
        return Some(Dropped::Figures);
    }
    if let Some(detected) = super::language::clearly_other(own, checks.language) {
        return Some(Dropped::Language(detected));
    }
    // English of names and content words ("In Germany, Fiona, 29, meets Ann, an American
    // balloon pilot") has none of the function words `clearly_other` counts.
    if super::language::english_rather_than(own, checks.language) {
        return Some(Dropped::Language("en"));
    }
    let opening = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(REPEATED_OPENING_WORDS)
            .map(str::to_lowercase)
            .collect()
    };
    let mine = opening(own);
    if mine.len() == REPEATED_OPENING_WORDS && checks.previous.is_some_and(|previous| opening(previous) == mine) {
        return Some(Dropped::Repeat);
    }
    None
}

/// Visible characters of a reply start from which its share of letters is judged.
const FIGURES_JUDGED_FROM: usize = 20;

/// Whether a reply start is mostly figures and signs: fewer letters (of any script) than
/// half its visible characters. A small model sometimes writes dates and times, not words.
fn mostly_figures(text: &str) -> bool {
    let visible = text.chars().filter(|c| !c.is_whitespace()).count();
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    visible >= FIGURES_JUDGED_FROM && letters * 2 < visible
}

/// The text kept of an attempt: the reply's `opening` and what the model wrote after it,
/// cleaned of speaker labels, next turns and tails (`clean_reply`), and cut back to its
/// last sentence when the token limit stopped it (`end_reply`). For a continuation, only
/// what comes after the opening (the reply so far), its leading space kept.
fn kept_text(
    opening: &str,
    written: &str,
    finish: FinishReason,
    character_name: &str,
    user_name: &str,
    continues: bool,
) -> String {
    // The model's own text opens after the opening; a label it starts with goes either way.
    let own = without_opening_label(written, character_name, user_name);
    let whole = if continues { format!("{opening}{own}") } else { after_opening(opening, own) };
    let whole = clean_reply(&whole, character_name, user_name);
    let hit_limit = finish == FinishReason::Length;
    if !continues {
        return end_reply(&whole, hit_limit).0;
    }
    // The opening has no space at its end, and cleaning touches only the ends of the whole:
    // what follows the opening is the continuation as written, the space it opened with kept.
    // Cleaning that reached into the opening (a speaker's turn right after it) left nothing new.
    let Some(new) = whole.strip_prefix(opening) else {
        return String::new();
    };
    // A continuation the limit stopped ends at its own last sentence end, never one in the
    // reply it continues (the user has that part already): one with none is kept whole.
    let space = &new[..new.len() - new.trim_start().len()];
    let (ended, _cut) = end_reply(new, hit_limit);
    if ended.is_empty() { ended } else { format!("{space}{ended}") }
}

/// A reply's answer opening ("Of course I remember — Lyon!") and what the model wrote after
/// it, a space between them when the model's text opens with a word: a model given the
/// opening as the assistant's last message (an OpenAI-compatible one) often starts without
/// one ("— Lyon!The harbour…"). Japanese and Chinese text goes on without a space.
fn after_opening(opening: &str, own: &str) -> String {
    let ends_a_sentence = opening.trim_end().ends_with(['!', '.', '?', '…', ':']) && opening == opening.trim_end();
    let starts_a_word = own.chars().next().is_some_and(|c| c.is_alphanumeric() && !is_cjk(c));
    if ends_a_sentence && starts_a_word { format!("{opening} {own}") } else { format!("{opening}{own}") }
}

/// Han, kana and the full-width forms: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x30FF | 0x3400..=0x9FFF | 0xFF00..=0xFFEF)
}

/// The node's lorebook scans at once (`lore::MAX_SCANS_AT_ONCE`), each on the blocking pool.
fn lore_scans() -> tokio::sync::Semaphore {
    tokio::sync::Semaphore::new(super::lore::MAX_SCANS_AT_ONCE)
}

/// The prompt of a reply: persona and what the card adds, rules, the pinned and newest
/// memories, the lorebook entries the recent messages activate, the newest history that
/// fits the budget, counted by `count_tokens` (the model's tokenizer), and what recall
/// found (`context.recall`).
pub fn reply_prompt(
    settings: &ChatSettings,
    context: &ReplyContext<'_>,
    count_tokens: impl Fn(&str) -> usize,
) -> Vec<PromptMessage> {
    assembled_prompt(settings, context, context.recall, count_tokens).messages
}

/// The memories of a prompt's system message: every pinned one, then the newest others up
/// to `limit` in all. They change only when the memories do, so the system message (the
/// start of every prompt, which the model may have cached) holds from turn to turn; the
/// memories that match a message come back through recall, after the history.
pub fn system_memories(memories: &[Memory], limit: usize) -> Vec<String> {
    let pinned = memories.iter().filter(|m| m.pinned);
    let others = memories.iter().filter(|m| !m.pinned).take(limit.saturating_sub(pinned.clone().count()));
    pinned.chain(others).map(|m| m.content.clone()).collect()
}

/// [`reply_prompt`] with `recall` in place of `context.recall`, also telling which history
/// messages and recalled items went in.
pub fn assembled_prompt(
    settings: &ChatSettings,
    context: &ReplyContext<'_>,
    recall: &Found,
    count_tokens: impl Fn(&str) -> usize,
) -> Prompt {
    // A continuation is written from the prompt the reply was written from (the window
    // without the reply), the reply so far its prefill (`write_reply`): the model's prefix
    // cache still holds that prompt, and the model goes on from the reply's last word
    // rather than starting over.
    let window = match context.window.split_last() {
        Some((last, before)) if context.continues && last.speaker == Speaker::Character => before,
        _ => context.window,
    };
    let history: Vec<HistoryMessage> = window.iter().cloned().map(history_message).collect();
    let memories = system_memories(context.memories, settings.memories_in_prompt);
    let recalled_memories: Vec<RecallItem<'_>> =
        recall.memories.iter().map(|(id, content)| RecallItem { id: *id, content }).collect();
    let recalled_messages: Vec<RecallItem<'_>> =
        recall.messages.iter().map(|(id, content)| RecallItem { id: *id, content }).collect();
    let character = context.character;
    let extras = &character.extras;
    let reply_language = conversation_language(context);
    let parts = PromptParts {
        persona: Persona {
            name: &character.card.character_name,
            age: character.card.character_age.years(),
            introduction: &character.card.introduction,
            personality: &character.personality,
            scenario: &character.scenario,
        },
        card: CardPrompt {
            system_prompt: &extras.system_prompt,
            post_history_instructions: &extras.post_history_instructions,
            example_dialogue: &extras.example_dialogue,
        },
        lore: context.lore,
        user_name: &context.chatter.user_name,
        nsfw: context.chatter.nsfw,
        memories: &memories,
        history: &history,
        history_is_whole: context.window_is_whole,
        budget_tokens: settings.history_budget_tokens,
        user_description: &context.chatter.persona,
        reply_language: Some(reply_language),
        recall: Recall {
            memories: &recalled_memories,
            messages: &recalled_messages,
            terms: &recall.terms,
            budget_tokens: settings.recall_budget_tokens,
        },
    };
    assemble_prompt(&parts, count_tokens)
}

/// A reply's text so far with its continuation after it, as the model wrote it from the
/// reply as its prefill: a space it opened with stays one space; text it glued on (the rest
/// of a word, punctuation, Japanese) is glued. A provider that ignored the prefill and
/// started over with what was already written has that part dropped, and its fresh
/// sentence gets a space.
pub fn join_continuation(before: &str, more: &str) -> String {
    let before = before.trim_end();
    let more = more.trim_end();
    let (more, spaced) = match more.trim_start().strip_prefix(before) {
        Some(rest) if !before.is_empty() => (rest.trim_start(), rest.starts_with(char::is_whitespace)),
        _ => (more.trim_start(), more.starts_with(char::is_whitespace)),
    };
    if more.is_empty() {
        return before.to_owned();
    }
    let glued_punctuation =
        more.starts_with(['.', ',', '!', '?', ';', ':', ')', '…', '\'', '’', '。', '、', '！', '？']);
    let rest_of_a_word = before.ends_with(char::is_alphabetic) && more.starts_with(char::is_lowercase);
    let cjk = |c: char| matches!(c as u32, 0x3000..=0x9FFF | 0xAC00..=0xD7AF | 0xFF00..=0xFFEF);
    let no_spaces = before.ends_with(cjk) || more.starts_with(cjk);
    if before.is_empty() || (!spaced && (glued_punctuation || rest_of_a_word || no_spaces)) {
        format!("{before}{more}")
    } else {
        format!("{before} {more}")
    }
}

/// What a picture message says in the prompt's history.
const PICTURE_IN_HISTORY: &str = "*sends you a picture*";

fn history_message(message: StoredMessage) -> HistoryMessage {
    // A picture sent in chat has no text: the model reads that one was sent.
    let content = match (&message.image, message.content.is_empty()) {
        (Some(_), true) => PICTURE_IN_HISTORY.to_owned(),
        _ => message.content,
    };
    HistoryMessage { id: message.message_id, speaker: message.speaker, content }
}

fn to_model_message(message: PromptMessage) -> ChatMessage {
    let role = match message.role {
        PromptRole::System => Role::System,
        PromptRole::User => Role::User,
        PromptRole::Assistant => Role::Assistant,
    };
    ChatMessage::new(role, message.content)
}

#[cfg(test)]
mod tests {
    use amora_domain::account::UserId;
    use amora_domain::viewer::Viewer;

    use super::*;
    use crate::chat::lore::samples::marisol;
    use crate::chat::new_entry_id;

    #[test]
    fn a_continuation_joins_the_reply_with_one_space_or_none_and_drops_a_repeat() {
        assert_eq!(join_continuation("She smiles", " and waves."), "She smiles and waves.");
        assert_eq!(join_continuation("She smiles ", "  and waves. "), "She smiles and waves.");
        assert_eq!(join_continuation("She wav", "es."), "She waves.", "the rest of a word");
        assert_eq!(join_continuation("She waves.", "Then she smiles."), "She waves. Then she smiles.");
        assert_eq!(join_continuation("星がきれい", "ですね。"), "星がきれいですね。");
        assert_eq!(join_continuation("She smiles", ", then waves."), "She smiles, then waves.");
        assert_eq!(join_continuation("She smiles", "She smiles and waves."), "She smiles and waves.");
        assert_eq!(join_continuation("She smiles", "She smiles"), "She smiles");
        assert_eq!(join_continuation("", "Hello."), "Hello.");
    }

    #[test]
    fn a_start_of_figures_and_signs_is_not_a_reply() {
        assert!(mostly_figures("(2024-8-5) 31:27:06.95  2008-10-11 0:21.28  2012-12-02"));
        assert!(mostly_figures("#2018-04-29 6:57:58,1368,354 (2018) #2019"));
        assert!(!mostly_figures("It costs 3.50 euros, and 2 more for the bus."));
        assert!(!mostly_figures("오늘 저녁은 2024년 8월 5일, 정말 좋았어."));
        assert!(!mostly_figures("12:30?"), "too short to judge");
    }

    #[test]
    fn a_continuation_the_limit_stopped_keeps_its_own_text() {
        let kept = |written: &str, finish| kept_text("She walked to the", written, finish, "Mia", "Ann", true);
        assert_eq!(kept(" old lighthouse and looked at", FinishReason::Length), " old lighthouse and looked at");
        assert_eq!(kept(" harbour. Then she sat and", FinishReason::Length), " harbour.");
        assert_eq!(kept(" harbour. Then she sat.", FinishReason::Stop), " harbour. Then she sat.");
        // No sentence end in the new text, one in the reply before: the old code cut back to
        // that one, before the opening's end, and kept nothing (three such tries failed the turn).
        assert_eq!(
            kept_text("Hi. She walked to the", " old pier and", FinishReason::Length, "Mia", "Ann", true),
            " old pier and"
        );
    }

    /// Seen with the loopback model: "Of course I remember — Lyon!The harbour…".
    #[test]
    fn a_reply_s_answer_opening_and_the_model_s_words_are_a_space_apart() {
        let kept = |opening: &str, written: &str| kept_text(opening, written, FinishReason::Stop, "Mia", "Ann", false);
        let lyon = "Of course I remember — Lyon!";
        assert_eq!(kept(lyon, "The harbour is lovely."), "Of course I remember — Lyon! The harbour is lovely.");
        assert_eq!(kept(lyon, " The harbour is lovely."), "Of course I remember — Lyon! The harbour is lovely.");
        assert_eq!(
            kept("もちろん覚えてるよ、札幌でしょ！", "寒いよね。"),
            "もちろん覚えてるよ、札幌でしょ！寒いよね。"
        );
        assert_eq!(kept("물론 기억하지, 부산!", "바다 좋지."), "물론 기억하지, 부산! 바다 좋지.");
        assert_eq!(kept("", "Hello there."), "Hello there.", "no opening, nothing added");
        assert_eq!(after_opening(lyon, "!"), format!("{lyon}!"), "punctuation stays glued");
    }

    #[test]
    fn a_continued_reply_is_written_from_the_prompt_the_reply_was_written_from() {
        let character = marisol();
        let chatter = Chatter {
            user_id: UserId::parse("ann1").unwrap_or_else(|e| panic!("{e}")),
            user_name: "Ann".into(),
            persona: String::new(),
            language: "en".into(),
            nsfw: false,
            paid: false,
            viewer: Viewer::Member,
        };
        let said = |speaker, content: &str| StoredMessage {
            message_id: new_entry_id(),
            speaker,
            content: content.into(),
            image: None,
        };
        let window =
            [said(Speaker::User, "Tell me about the light."), said(Speaker::Character, "It was lit in 1871 and")];
        let nothing = crate::chat::Found::default();
        let context = |window, continues| ReplyContext {
            chatter: &chatter,
            character: &character,
            window,
            window_is_whole: true,
            memories: &[],
            lore: &[],
            partial: None,
            continues,
            recall: &nothing,
            reply_to: ReplyTo::Conversation,
        };
        let words = |text: &str| text.split_whitespace().count();
        let settings = ChatSettings::default();
        let answered = reply_prompt(&settings, &context(&window[..1], false), words);
        let continued = reply_prompt(&settings, &context(&window, true), words);
        assert_eq!(continued, answered, "the same prompt, so the prefix cache holds; the reply is its prefill");
        assert!(continued.iter().all(|m| !m.content.contains("It was lit in 1871")));
    }
}
