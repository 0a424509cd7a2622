//! Long-term memory: facts about the user that a character keeps, extracted from the
//! conversation every few turns or when the user asks (`saveMemories`), and merged with
//! what the character knows.
//!
//! Extraction works with a model as small as the embedded one (SmolLM2-135M): the user's
//! plain statements about themself are taken by rule (`statements`), the model is asked
//! about one message at a time in a short few-shot prompt, what it answers is kept only
//! when it is grounded in the user's words, and the facts are merged with the memories
//! (`merge`). BENCHMARKS.md ("Memory extraction") has what each layer brings.

mod merge;
mod statements;
mod words;

use amora_ai::AiError;
use amora_ai::chat::{ChatMessage, ChatModel, ChatRequest};
use amora_domain::chat::{HistoryMessage, Speaker};

pub use merge::{MemoryChange, distinct, merge};
pub use statements::{stated_part, statements};

/// Longest memory kept, in characters.
pub const MAX_MEMORY_CHARS: usize = 200;
/// Most memories a pair keeps; the user deletes one to add another.
pub const MAX_MEMORIES: usize = 100;
/// Most facts taken from one extraction.
const MAX_FACTS_PER_EXTRACTION: usize = 10;
/// Most tokens of the model's answer about one message: a few short lines.
pub const EXTRACTION_MAX_TOKENS: u32 = 64;
/// Most characters of a message the model reads for facts (a long message's start).
const MESSAGE_CHARS_FOR_MODEL: usize = 600;

/// The layers of an extraction. The product runs them all ([`Layers::ALL`]); the
/// extraction bench (`actors/examples/extraction_bench.rs`) measures each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layers {
    /// The user's plain statements about themself, taken by rule (`statements`).
    pub rules: bool,
    /// The chat model, asked about each of the user's messages.
    pub model: bool,
    /// Worked examples before the message (small models follow examples better than rules).
    pub few_shot: bool,
    /// The model's lines are kept only when they are facts about the user grounded in the
    /// user's words ([`model_facts`]).
    pub validate: bool,
}

impl Layers {
    pub const ALL: Layers = Layers { rules: true, model: true, few_shot: true, validate: true };
}

/// The system message of [`fact_conversation`].
const FACT_INSTRUCTIONS: &str = "You write down facts about the user from their message. Write each fact on its own \
     line as a short sentence that starts with \"The user\". Write only what the message says about the user. If it \
     says nothing about the user, write \"None\".";

/// Worked examples of [`fact_conversation`]: a message with facts, one without, one with a name.
/// Their words are in no message of the extraction corpus, and the validation drops a fact
/// copied from them (its words are not in the user's message).
const FACT_EXAMPLES: &[(&str, &str)] = &[
    (
        "I have two hamsters and I work as a plumber in Leeds.",
        "The user has two hamsters.\nThe user works as a plumber.\nThe user lives in Leeds.",
    ),
    ("haha what are you up to tonight?", "None"),
    (
        "My cousin Max is visiting next week, I really enjoy gardening.",
        "The user has a cousin named Max.\nThe user enjoys gardening.",
    ),
];

/// The start of the conversation that asks the model for the facts about the user, one of
/// their messages at a time ([`fact_question`]): short instructions (one fact a line, in the
/// third person, "The user …") and, when `few_shot`, worked examples. The character's lines
/// are never shown: a small model takes what it reads for the user's, and the character's
/// facts are not the user's.
pub fn fact_conversation(few_shot: bool) -> Vec<ChatMessage> {
    let mut prompt = vec![ChatMessage::system(FACT_INSTRUCTIONS)];
    if few_shot {
        for (message, facts) in FACT_EXAMPLES {
            prompt.push(fact_question(message));
            prompt.push(ChatMessage::assistant(*facts));
        }
    }
    prompt
}

/// One of the user's messages, as [`fact_conversation`] asks about it.
pub fn fact_question(message: &str) -> ChatMessage {
    ChatMessage::user(format!(
        "Message: {}\nFacts:",
        amora_domain::text::truncate_chars(message, MESSAGE_CHARS_FOR_MODEL)
    ))
}

/// The answer the conversation shows for a message once it is read: the facts found in
/// it, by rule or by the model, in the examples' form ("The user …", or "None"). The next
/// message is asked after it, so the prompt of each question starts with the previous one
/// (the embedded model's prefix cache feeds only what is new), and the user's own facts
/// become further examples. Quoted statements (other languages) are not that form: left out.
fn shown_answer(facts: &[String], user_name: &str) -> String {
    let lines: Vec<String> = facts
        .iter()
        .filter(|f| !f.contains("said: “"))
        .filter_map(|f| f.strip_prefix(user_name))
        .map(|rest| format!("The user{}.", rest.trim_end_matches('.')))
        .collect();
    if lines.is_empty() { "None".to_owned() } else { lines.join("\n") }
}

/// Words that show a line is not a fact about the user in the third person: the first
/// and second person, and the character's side.
const NOT_ABOUT_THE_USER: &[&str] =
    &["i", "i'm", "me", "my", "mine", "you", "your", "you're", "assistant", "character", "ai", "bot", "chatbot"];

/// The facts in the model's answer to [`fact_conversation`] for `message`, about `user_name`.
/// Bullets and numbering go, "The user" becomes the user's name. When `validate`, a line is
/// kept only when it is a statement about the user ("The user …" or their name; no
/// question, no "I" or "you", no word of the character's name) whose content words are
/// mostly in the message (half or more, and every number): a small model copies its
/// examples, repeats the character and invents, and none of that is in the user's words.
pub fn model_facts(answer: &str, message: &str, user_name: &str, character_name: &str, validate: bool) -> Vec<String> {
    let character: Vec<String> = words::words(character_name);
    let mut facts = Vec::new();
    for line in answer.lines() {
        let line = line.trim().trim_start_matches(['-', '*', '•', ' ']);
        let line = line.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches(['.', ')', ' ']);
        let line = line.trim().trim_end_matches('.').trim();
        if line.chars().count() < 3 || line.to_lowercase().starts_with("none") {
            continue;
        }
        let Some(rest) = strip_subject(line, user_name) else {
            if !validate {
                facts.push(line.to_owned());
            }
            continue;
        };
        let fact = format!("{user_name}{rest}");
        if validate {
            let lower = words::words(line);
            if line.ends_with('?')
                || lower.iter().any(|w| NOT_ABOUT_THE_USER.contains(&w.as_str()) || character.contains(w))
                || !grounded_in(&fact, message, user_name)
            {
                continue;
            }
        }
        facts.push(fact);
    }
    facts
}

/// What follows "The user" (or the user's name) at the start of `line`: " works as…", "'s dog…".
fn strip_subject<'a>(line: &'a str, user_name: &str) -> Option<&'a str> {
    for subject in ["the user", user_name] {
        if line.len() >= subject.len()
            && line.is_char_boundary(subject.len())
            && line[..subject.len()].eq_ignore_ascii_case(subject)
        {
            let rest = &line[subject.len()..];
            if rest.starts_with(' ') || rest.starts_with('\'') || rest.starts_with('’') {
                return Some(rest);
            }
        }
    }
    None
}

/// Half or more of a fact's content words, and each of its numbers and names, are in
/// `message`: numbers and names are what a small model invents ("I have a cat." came back
/// as "Ann has a cat named Luna").
fn grounded_in(fact: &str, message: &str, user_name: &str) -> bool {
    let content = words::content_words(fact, user_name);
    let found = content.iter().filter(|w| words::grounded(w, message)).count();
    let numbers_found =
        content.iter().filter(|w| w.chars().any(|c| c.is_ascii_digit())).all(|w| words::grounded(w, message));
    let names_found = names(fact, user_name).all(|name| words::grounded(&name.to_lowercase(), message));
    found > 0 && found * 2 >= content.len() && numbers_found && names_found
}

/// Whether the model's `fact` says something of `message` that none of the facts taken from
/// it by rule says: a fact whose words found in the message are all in one of them only
/// adds what it invented ("I have a cat." taken by rule as "Ann has a cat", by the model
/// as "Ann loves cats"), and would replace the rule's fact as the fuller one.
fn adds_to(fact: &str, by_rule: &[String], message: &str, user_name: &str) -> bool {
    let grounded: Vec<String> =
        words::content_words(fact, user_name).into_iter().filter(|w| words::grounded(w, message)).collect();
    !by_rule.iter().any(|rule| grounded.iter().all(|w| words::grounded(w, rule)))
}

/// The capitalised Latin-script words of `fact` after its first word, but `user_name`.
fn names<'a>(fact: &'a str, user_name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    fact.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()).skip(1).filter(move |word| {
        word.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && !word.eq_ignore_ascii_case(user_name)
    })
}

/// The facts about the user in their messages of `recent` (oldest first): by rule, then
/// by the model (see [`Layers`]); without repeats (see [`distinct`]), at most
/// [`MAX_FACTS_PER_EXTRACTION`], each at most [`MAX_MEMORY_CHARS`].
pub async fn extract(
    model: &dyn ChatModel,
    user_name: &str,
    character_name: &str,
    recent: &[HistoryMessage],
    layers: Layers,
) -> Result<Vec<String>, AiError> {
    let per_message = facts_per_message(model, user_name, character_name, recent, layers).await?;
    let facts = per_message
        .into_iter()
        .flatten()
        .map(|f| amora_domain::text::truncate_chars(&f, MAX_MEMORY_CHARS).to_owned())
        .collect();
    let mut facts = distinct(facts, user_name);
    facts.truncate(MAX_FACTS_PER_EXTRACTION);
    Ok(facts)
}

/// The facts of each of the user's messages in `recent` (oldest first), each message read
/// on its own: by rule, then by the model in one conversation ([`fact_conversation`]).
/// When the model fails, the facts found by rule are kept; with none, the model's error is
/// the answer.
pub async fn facts_per_message(
    model: &dyn ChatModel,
    user_name: &str,
    character_name: &str,
    recent: &[HistoryMessage],
    layers: Layers,
) -> Result<Vec<Vec<String>>, AiError> {
    let mut conversation = fact_conversation(layers.few_shot);
    let mut out = Vec::new();
    let mut failure = None;
    for message in recent.iter().filter(|m| m.speaker == Speaker::User) {
        let mut facts = if layers.rules { statements(&message.content, user_name) } else { Vec::new() };
        // The model reads what the message states, never what it asks (`stated_part`).
        let stated = if layers.validate { stated_part(&message.content) } else { Some(message.content.clone()) };
        if layers.model
            && failure.is_none()
            && let Some(stated) = stated
        {
            conversation.push(fact_question(&stated));
            match ask(model, fact_request(&conversation)).await {
                Ok(answer) => {
                    let by_rule = facts.len();
                    for fact in model_facts(&answer, &stated, user_name, character_name, layers.validate) {
                        if !layers.validate || adds_to(&fact, &facts[..by_rule], &stated, user_name) {
                            facts.push(fact);
                        }
                    }
                    conversation.push(ChatMessage::assistant(shown_answer(&facts, user_name)));
                }
                Err(error) => failure = Some(error),
            }
        }
        out.push(facts);
    }
    if let Some(error) = failure {
        if out.iter().all(Vec::is_empty) {
            return Err(error);
        }
        tracing::warn!(%error, "the model failed during a memory extraction: the facts found by rule are kept");
    }
    Ok(out)
}

/// The request of one question of [`fact_conversation`]: greedy (notes should not depend
/// on the dice), a few short lines at most.
pub fn fact_request(conversation: &[ChatMessage]) -> ChatRequest {
    ChatRequest::new(conversation.to_vec())
        .max_tokens(EXTRACTION_MAX_TOKENS)
        .temperature(0.0)
        .stop(["\n\n", "Message:"])
}

async fn ask(model: &dyn ChatModel, request: ChatRequest) -> Result<String, AiError> {
    Ok(model.stream(request).await?.collect_reply().await?.text)
}

/// A memory the user wrote: trimmed, 1 to [`MAX_MEMORY_CHARS`] characters, line breaks and
/// tabs but no other control characters (they would reach the prompt and other tabs' screens
/// as they are), and allowed by the rules of what users write about themselves (the door,
/// `Conversations::add_memory`, ran both layers of moderation before).
pub fn memory_text(
    raw: &str,
    moderator: &crate::moderation::Moderator,
    user_id: &amora_domain::account::UserId,
) -> Result<String, super::ChatError> {
    let text = raw.trim();
    let count = text.chars().count();
    if count == 0 || count > MAX_MEMORY_CHARS {
        return Err(super::ChatError::Invalid(format!("content: must be 1 to {MAX_MEMORY_CHARS} characters")));
    }
    if text.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')) {
        return Err(super::ChatError::Invalid("content: must not hold control characters".into()));
    }
    moderator
        .check_rules(crate::moderation::Surface::Memory, Some(user_id), text)
        .map_err(super::ChatError::Refused)?;
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_shows_one_message_with_worked_examples() {
        let prompt = fact_conversation(true);
        assert_eq!(prompt.len(), 1 + 2 * FACT_EXAMPLES.len());
        assert_eq!(fact_question("I'm a nurse").content, "Message: I'm a nurse\nFacts:");
        assert_eq!(fact_conversation(false).len(), 1);
        let long = "word ".repeat(500);
        assert!(fact_question(&long).content.chars().count() < MESSAGE_CHARS_FOR_MODEL + 20);
    }

    #[test]
    fn a_fact_holds_the_names_and_numbers_of_the_message_only() {
        assert!(grounded_in("Ann's dog is called Biscuit", "my dog is called Biscuit", "Ann"));
        assert!(grounded_in("Ann has a cat", "I have a cat.", "Ann"));
        assert!(!grounded_in("Ann has a cat named Luna", "I have a cat.", "Ann"));
        assert!(grounded_in("Ann lives in Oslo", "I live in oslo now", "Ann"));
        assert!(!grounded_in("Ann is 34 years old", "I'm 43 years old", "Ann"));
    }

    #[test]
    fn a_models_fact_must_add_a_word_of_the_message_to_the_rules_facts() {
        let by_rule = ["Ann has a cat".to_owned()];
        assert!(!adds_to("Ann loves cats", &by_rule, "I have a cat.", "Ann"));
        assert!(adds_to("Ann has a black cat", &by_rule, "I have a black cat.", "Ann"));
        assert!(adds_to("Ann loves cats", &[], "I have a cat.", "Ann"));
    }

    #[test]
    fn a_read_message_shows_its_facts_in_the_examples_form() {
        let facts = ["Ann's dog is called Biscuit".to_owned(), "Ann said: “Ich wohne in Hamburg.”".to_owned()];
        assert_eq!(shown_answer(&facts, "Ann"), "The user's dog is called Biscuit.");
        assert_eq!(shown_answer(&[], "Ann"), "None");
    }
}
