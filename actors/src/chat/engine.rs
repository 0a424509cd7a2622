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
    RecallItem, Speaker, assemble_prompt, end_reply,
};
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
const EMPTY_REPLY_TRIES: u32 = 3;

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
        // The system message and the history are the next turn's start; what comes after
        // them (recall, the reply guide, activated lore, the card's instructions, a
        // continuation's nudge) changes from turn to turn.
        let stable = 1 + prompt.history.len();
        let mut request = ChatRequest::new(prompt.messages.into_iter().map(to_model_message).collect());
        if stable < request.messages.len() {
            request = request.cache_prefix(stable);
        }
        let request = request
            .max_tokens(self.settings.max_reply_tokens)
            // The model must not write the user's next line for them.
            .stop([format!("\n{}:", chatter.user_name), format!("{}:", chatter.user_name)])
            .cancel(cancel.clone());
        // Held until the reply is written: the model's turn, shared fairly between users.
        let _slot = tokio::select! {
            slot = self.fair.acquire(&chatter.user_id) => slot.map_err(refusal_error)?,
            () = cancel.cancelled() => return Ok(None),
        };
        let model_started = Instant::now();
        self.metrics.observe(Phase::Prepare, model_started - started);
        // A small model sometimes ends its turn at once, or opens with the user's name (a
        // stop string): the reply is empty. Like SillyTavern's auto-swipe, it is written
        // again, with a fresh seed, before the user is told it failed; nothing of an empty
        // attempt was sent (`stream_reply` holds back leading whitespace).
        for attempt in 1..=EMPTY_REPLY_TRIES {
            let (text, finish) =
                self.stream_reply(model.as_ref(), request.clone(), context, reply_id, model_started).await?;
            self.metrics.observe(Phase::Generate, model_started.elapsed());
            if let Some(cache) = model.prompt_cache() {
                self.metrics.prompt_cache(cache);
            }
            if finish == FinishReason::Cancelled && text.trim().is_empty() {
                return Ok(None);
            }
            // A reply the token limit stopped ends at its last whole sentence; one with none is
            // kept as written and `chatDone` says it was cut (`chat::reply_was_cut`).
            let (content, _cut) = end_reply(&text, finish == FinishReason::Length);
            if !content.is_empty() {
                return Ok(Some((content, finish)));
            }
            tracing::warn!(attempt, user = %chatter.user_id, character = %character_id, "the model wrote an empty reply");
        }
        Err(ChatError::Model(format!("the model wrote an empty reply {EMPTY_REPLY_TRIES} times")))
    }

    /// One attempt at a reply: streams `chatDelta` from the first visible character on
    /// (whitespace before it is sent with it, so an empty attempt sends nothing) and
    /// moderates the text as it grows. Answers the text as written and why it ended.
    async fn stream_reply(
        &self,
        model: &dyn ChatModel,
        request: ChatRequest,
        context: &ReplyContext<'_>,
        reply_id: EntryId,
        model_started: Instant,
    ) -> Result<(String, FinishReason), ChatError> {
        let chatter = context.chatter;
        let character_id = &context.character.card.character_id;
        let cancel = request.cancel.clone();
        let mut stream = model.stream(request).await?;
        let mut text = String::new();
        // How much of `text` was sent, in bytes and as JavaScript counts a string (UTF-16
        // units: where the next piece starts for the client).
        let mut sent = 0;
        let mut offset: u32 = 0;
        let mut finish = FinishReason::Stop;
        while let Some(event) = stream.next().await {
            match event? {
                StreamEvent::Delta(delta) => {
                    text.push_str(&delta);
                    if text.trim().is_empty() {
                        continue;
                    }
                    if sent == 0 {
                        self.metrics.observe(Phase::FirstToken, model_started.elapsed());
                    }
                    // The rules at every piece, so nothing refused reaches the user's screen.
                    if let Err(refusal) = self.moderator.check_rules(Surface::ChatReply, Some(&chatter.user_id), &text)
                    {
                        cancel.cancel();
                        return Err(ChatError::Refused(refusal));
                    }
                    let delta = text[sent..].to_owned();
                    sent = text.len();
                    if let Some(partial) = context.partial
                        && let Ok(mut partial) = partial.lock()
                    {
                        partial.push_str(&delta);
                    }
                    let at = offset;
                    offset = offset.saturating_add(delta.encode_utf16().count() as u32);
                    let event =
                        ServerEvent::ChatDelta { character_id: character_id.clone(), reply_id, delta, offset: at };
                    self.bus.publish(&chatter.user_id, event).await;
                }
                StreamEvent::Done(done) => finish = done.reason,
            }
        }
        // The second layer once the reply is whole (asking it at every piece would cost a
        // call per token); a refusal here drops the reply before it is stored.
        self.moderator
            .check_classifier(Surface::ChatReply, Some(&chatter.user_id), &text)
            .await
            .map_err(ChatError::Refused)?;
        Ok((text, finish))
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
    let history: Vec<HistoryMessage> = context.window.iter().cloned().map(history_message).collect();
    let memories = system_memories(context.memories, settings.memories_in_prompt);
    let recalled_memories: Vec<RecallItem<'_>> =
        recall.memories.iter().map(|(id, content)| RecallItem { id: *id, content }).collect();
    let recalled_messages: Vec<RecallItem<'_>> =
        recall.messages.iter().map(|(id, content)| RecallItem { id: *id, content }).collect();
    let character = context.character;
    let extras = &character.extras;
    let reply_language = super::language::reply_language(&history, &context.chatter.language);
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
    let mut prompt = assemble_prompt(&parts, count_tokens);
    // Continuing: the window ends with the reply, and the prompt asks for the rest of it, as
    // SillyTavern's continue nudge does. The prompt so far is the last one with the reply
    // after it, so the model's prefix cache still holds it.
    if context.continues {
        prompt.messages.push(PromptMessage { role: PromptRole::System, content: CONTINUE_NUDGE.to_owned() });
    }
    prompt
}

/// What ends the prompt of a continued reply. Works with every model and template: an
/// unfinished assistant turn at the end of the prompt (a prefill) is closed by ChatML
/// templates, the embedded model's among them.
pub const CONTINUE_NUDGE: &str =
    "[Continue your last message from exactly where it stopped. Do not repeat any of it; write only what comes next.]";

/// A reply's text so far with its continuation after it: the model may start over with
/// what was already written (dropped), and a word gets the space before it that the
/// trimmed continuation lost.
pub fn join_continuation(before: &str, more: &str) -> String {
    let before = before.trim_end();
    let more = more.trim();
    let more = more.strip_prefix(before).map(str::trim_start).unwrap_or(more);
    if more.is_empty() {
        return before.to_owned();
    }
    let glued = more.starts_with(['.', ',', '!', '?', ';', ':', ')', '…', '\'', '’']);
    if before.is_empty() || glued { format!("{before}{more}") } else { format!("{before} {more}") }
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
        assert_eq!(join_continuation("She smiles", "and waves."), "She smiles and waves.");
        assert_eq!(join_continuation("She smiles ", "  and waves. "), "She smiles and waves.");
        assert_eq!(join_continuation("She smiles", ", then waves."), "She smiles, then waves.");
        assert_eq!(join_continuation("She smiles", "She smiles and waves."), "She smiles and waves.");
        assert_eq!(join_continuation("She smiles", "She smiles"), "She smiles");
        assert_eq!(join_continuation("", "Hello."), "Hello.");
    }

    #[test]
    fn a_continued_reply_ends_its_prompt_with_the_reply_and_the_nudge() {
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
        let context = |continues| ReplyContext {
            chatter: &chatter,
            character: &character,
            window: &window,
            window_is_whole: true,
            memories: &[],
            lore: &[],
            partial: None,
            continues,
            recall: &nothing,
        };
        let words = |text: &str| text.split_whitespace().count();
        let settings = ChatSettings::default();
        let answered = reply_prompt(&settings, &context(false), words);
        let continued = reply_prompt(&settings, &context(true), words);
        assert_eq!(continued.len(), answered.len() + 1);
        assert_eq!(continued[..answered.len()], answered[..], "the same prompt, so the prefix cache holds");
        // The reply is the last turn (the reply guide follows it), and the nudge ends the prompt.
        let last_turn = continued.iter().rev().find(|m| m.role != PromptRole::System);
        assert_eq!(
            last_turn.map(|m| (m.role, m.content.as_str())),
            Some((PromptRole::Assistant, "It was lit in 1871 and"))
        );
        let end = &continued[continued.len() - 1];
        assert_eq!((end.role, end.content.as_str()), (PromptRole::System, CONTINUE_NUDGE));
        assert!(answered.iter().all(|m| m.content != CONTINUE_NUDGE));
    }
}
