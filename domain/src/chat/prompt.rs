//! The prompt a reply is written from: persona, card, scenario, the user's name and persona,
//! example dialogue, rules, memories, lore, recall and as much recent history as fits a
//! token budget, ordered so that its start stays the same from turn to turn.

use super::message::{EntryId, MemoryId, MessageId, Speaker};
use super::placeholders::fill_placeholders;

/// One message of a prompt, in the roles chat models know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    pub role: PromptRole,
    pub content: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptRole {
    System,
    User,
    Assistant,
}

/// A message of the conversation so far, as the prompt needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryMessage {
    pub id: MessageId,
    pub speaker: Speaker,
    pub content: String,
}

impl HistoryMessage {
    /// Whether the history of a prompt may start here when older messages must be left
    /// out: a user's message, one in `CUT_EVERY` of them, picked by its id so that the
    /// choice never changes as the conversation grows.
    fn is_cut_point(&self) -> bool {
        // splitmix64's finaliser: ids differ mostly in their low digits.
        let mut x = self.id.raw() as u64;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        self.speaker == Speaker::User && x.is_multiple_of(CUT_EVERY)
    }
}

/// On average one user message in this many is a place where a trimmed history may start.
const CUT_EVERY: u64 = 4;

/// Who the character is, for its system message.
#[derive(Debug, Clone, Copy)]
pub struct Persona<'a> {
    pub name: &'a str,
    pub age: u8,
    /// The card's one-line introduction ("A fiddler who plays in a Galway pub…"): the job
    /// and who the character is to the user, for the identity line.
    pub introduction: &'a str,
    pub personality: &'a str,
    pub scenario: &'a str,
}

/// What a character card adds to the prompt (Character Card V2/V3); empty strings where the
/// card sets nothing (seeded and builder-made characters).
#[derive(Debug, Clone, Copy, Default)]
pub struct CardPrompt<'a> {
    /// Replaces the default first line of the system message; the rules still follow.
    pub system_prompt: &'a str,
    /// A system message after the history, just before the reply.
    pub post_history_instructions: &'a str,
    /// Example dialogue (`mes_example`): blocks separated by `<START>`.
    pub example_dialogue: &'a str,
}

/// Where a lorebook entry goes, relative to the character's description (the card's `position`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LorePosition {
    BeforeCharacter,
    AfterCharacter,
}

/// A lorebook entry chosen for this reply (the chat engine picks them with
/// `amora_cards::activate`: keys in the recent messages, within the lorebook's budget),
/// in the order they go in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoreEntry<'a> {
    pub content: &'a str,
    pub position: LorePosition,
    /// Always active (`constant`): the same in every prompt of the conversation.
    pub constant: bool,
}

/// Everything a reply's prompt is made of.
#[derive(Debug, Clone, Copy)]
pub struct PromptParts<'a> {
    pub persona: Persona<'a>,
    /// What the character's card adds (system prompt, post-history instructions, examples).
    pub card: CardPrompt<'a>,
    /// Lorebook entries chosen for this reply, in insertion order.
    pub lore: &'a [LoreEntry<'a>],
    pub user_name: &'a str,
    /// The user's adult-content preference: it decides which system rules apply.
    pub nsfw: bool,
    /// Facts about the user, most relevant first.
    pub memories: &'a [String],
    /// The conversation so far, oldest first; the last one is what the reply answers.
    pub history: &'a [HistoryMessage],
    /// Whether `history` is the whole conversation (false when only its newest part was read).
    pub history_is_whole: bool,
    /// Most prompt tokens: the system message, the lore, the post-history instructions and
    /// the last message always go in; example dialogue within its share; history as far as it fits.
    pub budget_tokens: usize,
    /// What the user wrote about themselves (their persona's description; empty: nothing).
    pub user_description: &'a str,
    /// The language the reply is to be in (one of `account::LANGUAGES`), told after the
    /// history; `None` leaves it to the model.
    pub reply_language: Option<&'a str>,
    /// What recall found for this reply (`recall`): it goes after the history, within its
    /// own budget, and never changes what comes before it.
    pub recall: Recall<'a>,
}

/// A memory or an earlier message of the user's that recall found, as it may enter a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecallItem<'a> {
    pub id: EntryId,
    pub content: &'a str,
}

/// What recall (`crate::recall`) found for the user's new message: the pair's memories and
/// the user's earlier messages that match it, most relevant first. Messages the prompt's
/// history holds anyway are left out when the prompt is built.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recall<'a> {
    pub memories: &'a [RecallItem<'a>],
    pub messages: &'a [RecallItem<'a>],
    /// The terms of the user's message: a long recalled message is cut to its sentences that hold one.
    pub terms: &'a [String],
    /// Most tokens the recalled part of the prompt takes, apart from `PromptParts::budget_tokens`.
    pub budget_tokens: usize,
}

/// A prompt and what recall put into it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prompt {
    pub messages: Vec<PromptMessage>,
    /// The ids of the history messages the prompt holds.
    pub history: Vec<MessageId>,
    /// The recalled memories that went in, as written there.
    pub recalled_memories: Vec<(MemoryId, String)>,
    /// The recalled messages that went in, as written there (a long one cut to its matching sentences).
    pub recalled_messages: Vec<(MessageId, String)>,
}

/// Rules every character follows, whatever the preference.
const ALWAYS_RULES: &str = "Stay in character and speak in the first person. Keep replies short: two to four sentences. \
Everyone in the story is an adult. Never describe or imply minors in any romantic or sexual way, and refuse anything \
non-consensual or illegal.";
/// Rules when the user has not opted into adult content.
const SAFE_RULES: &str = "Keep the conversation romantic but free of sexual or explicit content.";
/// Rules when the user has opted into adult content (an 18+ user's choice).
const ADULT_RULES: &str = "The user is an adult who opted into adult content: flirting and explicit themes between \
consenting adults are allowed.";
/// Opens the system message that carries the lorebook entries activated by the conversation.
const LORE_HEADING: &str = "What matters for your next reply:";
/// Open the recalled part of a prompt. They say whose facts these are: a small model
/// otherwise takes the user's dog or job for the character's own.
fn recalled_memories_heading(user: &str) -> String {
    format!("What you remember about {user} (facts about {user}, not about you):")
}
fn recalled_messages_heading(user: &str) -> String {
    format!("Things {user} said earlier (about {user}, not about you):")
}
/// Example dialogue takes at most this part of the budget (one in four tokens)…
const EXAMPLE_SHARE: usize = 4;

/// Builds the prompt of a reply, in this order:
///
/// 1. The system message: the first line (the card's `system_prompt`, else the identity
///    line "You are NAME, AGE, <introduction>. You are chatting with USER."), constant
///    lorebook entries placed before the description, personality, scenario, constant
///    entries placed after it, what the user wrote about themselves ("About USER: …"), the
///    example dialogue (the character saying who it is, then the card's `mes_example`),
///    Amora's rules and the memories. Every part of it changes rarely, so it is a stable prefix.
/// 2. The newest history that fits `budget_tokens` as counted by `count_tokens`, oldest
///    first. The last history message is always kept.
/// 3. What recall found (`parts.recall`, below), as a system message, when it found anything.
/// 4. The reply guide, as a system message: whose reply comes next (name and age again, so
///    a small model that lost the system message in a long history still has them near)
///    and the language to answer in ("Antworte auf Deutsch.").
/// 5. The lorebook entries the recent messages activated, as a system message (those placed
///    before the description first, then those after it).
/// 6. The card's post-history instructions, as a system message.
///
/// When older messages must be left out, the history starts at a cut point (a user's
/// message, about one in `CUT_EVERY`, fixed by its id) rather than at the oldest message
/// that fits: the start of the prompt then stays the same for several turns instead of
/// moving at every one, and a model that cached the previous prompt (the embedded one
/// does) feeds only the new messages. The price is a few messages less of context.
///
/// Why the activated lore comes after the history: a cached prompt is reused up to the
/// first token that differs, and keyed entries come and go as their keys enter and leave
/// the scan depth, often from one turn to the next. In the system message, each change
/// would make the model read the whole history again; after the history it costs only the
/// entries themselves and the last reply, which are read again at every turn anyway (the
/// previous prompt ended with its own lore, where the new one has the reply and the new
/// message). Constant entries never change, so they keep their place around the description.
///
/// The example dialogue gets its own share of the budget: whole `<START>` blocks, in order,
/// while they fit in a quarter of the budget and in half of what the system message and the
/// post-history instructions leave; so when the budget is tight the examples go before the
/// history does. The share depends neither on the history nor on the lore, so the system
/// message stays the same from turn to turn.
///
/// Recall (`parts.recall`) goes right after the history, as a system message of its own
/// within its own budget: the memories and the user's earlier messages that match the new
/// message (those the history holds anyway left out), each line naming the user. It
/// changes with every message, so, like the activated lore and for the same reason, it
/// never goes before the history; pinned memories, which enter every prompt, are in the
/// system message's memories.
pub fn build_prompt(parts: &PromptParts<'_>, count_tokens: impl Fn(&str) -> usize) -> Vec<PromptMessage> {
    assemble_prompt(parts, count_tokens).messages
}

/// [`build_prompt`], also telling which history messages and which recalled items went in.
pub fn assemble_prompt(parts: &PromptParts<'_>, count_tokens: impl Fn(&str) -> usize) -> Prompt {
    let persona = parts.persona;
    let card = parts.card;
    let fill = |text: &str| fill_placeholders(text, parts.user_name, persona.name);
    let mut system = if card.system_prompt.trim().is_empty() {
        identity_line(persona, parts.user_name, &fill)
    } else {
        fill(card.system_prompt.trim())
    };
    let constant_lore = |system: &mut String, position: LorePosition| {
        for entry in parts.lore.iter().filter(|e| e.constant && e.position == position) {
            if !entry.content.trim().is_empty() {
                system.push('\n');
                system.push_str(&fill(entry.content.trim()));
            }
        }
    };
    constant_lore(&mut system, LorePosition::BeforeCharacter);
    if !persona.personality.trim().is_empty() {
        system.push_str(&format!("\nPersonality: {}", fill(persona.personality.trim())));
    }
    if !persona.scenario.trim().is_empty() {
        system.push_str(&format!("\nScenario: {}", fill(persona.scenario.trim())));
    }
    constant_lore(&mut system, LorePosition::AfterCharacter);
    if !parts.user_description.trim().is_empty() {
        system.push_str(&format!("\nAbout {}: {}", parts.user_name, fill(parts.user_description.trim())));
    }
    let examples_at = system.len();
    system.push('\n');
    system.push_str(ALWAYS_RULES);
    system.push(' ');
    system.push_str(if parts.nsfw { ADULT_RULES } else { SAFE_RULES });
    if !parts.memories.is_empty() {
        system.push_str(&format!("\nWhat you remember about {}:", parts.user_name));
        for memory in parts.memories {
            system.push_str("\n- ");
            system.push_str(memory);
        }
    }

    let post_history = Some(card.post_history_instructions.trim()).filter(|t| !t.is_empty()).map(fill);
    let post_cost = post_history.as_deref().map_or(0, |text| count_tokens(text) + MESSAGE_OVERHEAD_TOKENS);
    // The character introducing itself comes first and always: the example a small model
    // copies when asked who it is. Like the description, it is outside the examples' share.
    let heading = format!("\nExample dialogue of {} (its style only; not part of this conversation):\n", persona.name);
    let identity = identity_example(persona, parts.user_name, &fill);
    let always = count_tokens(&system) + count_tokens(&heading) + count_tokens(&identity) + post_cost;
    let room = parts.budget_tokens.saturating_sub(always);
    let allowance = (parts.budget_tokens / EXAMPLE_SHARE).min(room / 2);
    let mut examples: Vec<String> = vec![identity];
    let mut spent = 0;
    for block in example_blocks(card.example_dialogue) {
        let block = fill(block);
        let cost = count_tokens(&block);
        if spent + cost > allowance {
            break;
        }
        spent += cost;
        examples.push(block);
    }
    system.insert_str(examples_at, &(heading + &examples.join("\n\n")));

    let keyed = |position: LorePosition| {
        parts.lore.iter().filter(move |e| !e.constant && e.position == position && !e.content.trim().is_empty())
    };
    let activated: Vec<String> = keyed(LorePosition::BeforeCharacter)
        .chain(keyed(LorePosition::AfterCharacter))
        .map(|entry| fill(entry.content.trim()))
        .collect();
    let lore = (!activated.is_empty()).then(|| format!("{LORE_HEADING}\n{}", activated.join("\n")));
    let lore_cost = lore.as_deref().map_or(0, |text| count_tokens(text) + MESSAGE_OVERHEAD_TOKENS);
    let guide = reply_guide(persona, parts.user_name, parts.reply_language);
    let guide_cost = count_tokens(&guide) + MESSAGE_OVERHEAD_TOKENS;

    let mut used = count_tokens(&system) + post_cost + lore_cost + guide_cost;
    let mut kept = Vec::new();
    for (index, message) in parts.history.iter().enumerate().rev() {
        let content = fill(&message.content);
        let cost = count_tokens(&content) + MESSAGE_OVERHEAD_TOKENS;
        let is_last = index + 1 == parts.history.len();
        if !is_last && used + cost > parts.budget_tokens {
            break;
        }
        used += cost;
        let role = match message.speaker {
            Speaker::User => PromptRole::User,
            Speaker::Character => PromptRole::Assistant,
        };
        kept.push(PromptMessage { role, content });
    }
    kept.reverse();
    let first_kept = parts.history.len() - kept.len();
    if first_kept > 0 || !parts.history_is_whole {
        // Never at the cost of more than half of what fits.
        let cut = parts.history[first_kept..].iter().position(HistoryMessage::is_cut_point);
        if let Some(cut) = cut.filter(|&cut| cut <= kept.len() / 2) {
            kept.drain(..cut);
        }
    }
    // Chat templates expect the first turn after the system message to be the user's.
    while kept.len() > 1
        && kept.first().is_some_and(|m| m.role == PromptRole::Assistant)
        && parts.history.len() > kept.len()
    {
        kept.remove(0);
    }
    let history: Vec<MessageId> = parts.history[parts.history.len() - kept.len()..].iter().map(|m| m.id).collect();
    let (recalled, recalled_memories, recalled_messages) = recall_section(parts, &history, &count_tokens);
    let mut prompt = vec![PromptMessage { role: PromptRole::System, content: system }];
    prompt.extend(kept);
    for late in [recalled, Some(guide), lore, post_history].into_iter().flatten() {
        prompt.push(PromptMessage { role: PromptRole::System, content: late });
    }
    Prompt { messages: prompt, history, recalled_memories, recalled_messages }
}

type Recalled = (Option<String>, Vec<(MemoryId, String)>, Vec<(MessageId, String)>);

/// The recalled part of a prompt: memories first (short, and already facts), then the
/// user's earlier messages not in `history`, each whole or cut to its matching sentences,
/// while the part fits `parts.recall.budget_tokens`.
fn recall_section(parts: &PromptParts<'_>, history: &[MessageId], count_tokens: &impl Fn(&str) -> usize) -> Recalled {
    let recall = parts.recall;
    let user = parts.user_name;
    let mut left = recall.budget_tokens.saturating_sub(MESSAGE_OVERHEAD_TOKENS);
    let mut lines: Vec<String> = Vec::new();
    let mut memories = Vec::new();
    let memories_heading = recalled_memories_heading(user);
    let mut heading_cost = count_tokens(&memories_heading);
    for memory in recall.memories {
        let content = memory.content.trim();
        let line = format!("- {content}");
        let cost = count_tokens(&line) + heading_cost;
        if content.is_empty() || cost > left {
            continue;
        }
        if memories.is_empty() {
            lines.push(memories_heading.clone());
            heading_cost = 0;
        }
        left -= cost;
        lines.push(line);
        memories.push((memory.id, content.to_owned()));
    }
    let mut messages = Vec::new();
    let messages_heading = recalled_messages_heading(user);
    let mut heading_cost = count_tokens(&messages_heading);
    let prefix = format!("- {user}: ");
    let prefix_cost = count_tokens(&prefix);
    for message in recall.messages.iter().filter(|m| !history.contains(&m.id)) {
        let text = fill_placeholders(message.content, user, parts.persona.name);
        let room = left.saturating_sub(heading_cost + prefix_cost);
        let Some(excerpt) = crate::recall::excerpt(&text, recall.terms, |part| count_tokens(part) <= room) else {
            continue;
        };
        if messages.is_empty() {
            lines.push(messages_heading.clone());
            left = left.saturating_sub(heading_cost);
            heading_cost = 0;
        }
        let line = format!("{prefix}{excerpt}");
        left = left.saturating_sub(count_tokens(&line));
        lines.push(line);
        messages.push((message.id, excerpt));
    }
    ((!lines.is_empty()).then(|| lines.join("\n")), memories, messages)
}

/// The blocks of a card's example dialogue: the text between `<START>` markers (any case),
/// trimmed, empty ones left out.
fn example_blocks(dialogue: &str) -> Vec<&str> {
    // ASCII lower-casing keeps every byte offset, so the markers found in `lower` cut `dialogue`.
    let lower = dialogue.to_ascii_lowercase();
    let mut blocks = Vec::new();
    let mut start = 0;
    for (at, marker) in lower.match_indices("<start>") {
        blocks.push(&dialogue[start..at]);
        start = at + marker.len();
    }
    blocks.push(&dialogue[start..]);
    blocks.into_iter().map(str::trim).filter(|b| !b.is_empty()).collect()
}

/// The character's introduction made to follow "You are NAME, AGE": "A fiddler who…" reads
/// ", a fiddler who…"; an introduction that is not a noun phrase ("Loves the sea.") gets a
/// sentence of its own. Empty when there is none.
fn introduction_clause(introduction: &str) -> String {
    let introduction = introduction.trim().trim_end_matches(['.', ' ']);
    if introduction.is_empty() {
        return ".".to_owned();
    }
    let article = ["A ", "An ", "The "].iter().any(|a| introduction.starts_with(a));
    if article {
        let mut chars = introduction.chars();
        let first: String = chars.next().map(|c| c.to_lowercase().collect()).unwrap_or_default();
        format!(", {first}{}.", chars.as_str())
    } else {
        format!(". {introduction}.")
    }
}

/// The first line of the system message when the card has no system prompt: the name, the
/// age and the introduction (the job, who the character is to the user) in one compact
/// sentence, which a small model keeps better than the same facts spread over paragraphs.
fn identity_line(persona: Persona<'_>, user_name: &str, fill: &impl Fn(&str) -> String) -> String {
    let clause = introduction_clause(&fill(persona.introduction));
    format!("You are {}, {}{clause} You are chatting with {user_name}.", persona.name, persona.age)
}

/// An example of the character saying who it is, in its own voice: the first block of the
/// example dialogue, whether or not the card has one (seeded characters have none). Asked
/// their name, small models otherwise answer with a name of their own.
fn identity_example(persona: Persona<'_>, user_name: &str, fill: &impl Fn(&str) -> String) -> String {
    let clause = introduction_clause(&fill(persona.introduction));
    format!("{user_name}: Who are you?\n{name}: I'm {name}, {}{clause}", persona.age, name = persona.name)
}

/// The short system message after the history (and recall): whose reply comes next, and in which
/// language. After the history, so the start of the prompt stays the same when the user
/// changes language; near the reply, where a small model still reads it.
fn reply_guide(persona: Persona<'_>, user_name: &str, language: Option<&str>) -> String {
    let mut guide = format!("Reply as {}, {}, to {user_name}, in two to four sentences.", persona.name, persona.age);
    if let Some(instruction) = language.and_then(reply_language_instruction) {
        guide.push(' ');
        guide.push_str(instruction);
    }
    guide
}

/// "Answer in this language", written in that language (a model follows an instruction in
/// the language asked for more readily than "Reply in German"); one of `account::LANGUAGES`.
pub fn reply_language_instruction(language: &str) -> Option<&'static str> {
    Some(match language {
        "en" => "Reply in English.",
        "de" => "Antworte auf Deutsch.",
        "es" => "Responde en español.",
        "fr" => "Réponds en français.",
        "id" => "Balas dalam bahasa Indonesia.",
        "it" => "Rispondi in italiano.",
        "ja" => "日本語で答えてください。",
        "ko" => "한국어로 대답해 주세요.",
        "pl" => "Odpowiadaj po polsku.",
        "pt" => "Responda em português.",
        _ => return None,
    })
}

/// Tokens a chat template adds around each message (role markers, separators).
const MESSAGE_OVERHEAD_TOKENS: usize = 4;

/// Picks the memories worth putting in a prompt, at most `limit`: those sharing the most
/// words with `latest`, then the newest. `memories` come newest first, and so do the ones
/// picked: the order does not follow the message, so a prompt's memories (and with them
/// the start of the prompt, which the model may have cached) stay the same from one
/// message to the next unless the pick changes.
pub fn relevant_memories(memories: &[String], latest: &str, limit: usize) -> Vec<String> {
    let wanted = content_words(latest);
    let mut scored: Vec<(usize, usize, &String)> = memories
        .iter()
        .enumerate()
        .map(|(age, memory)| (content_words(memory).iter().filter(|w| wanted.contains(w)).count(), age, memory))
        .collect();
    // More shared words first; among equals, the newer (lower age) first.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(limit);
    scored.sort_by_key(|&(_, age, _)| age);
    scored.into_iter().map(|(_, _, memory)| memory.clone()).collect()
}

/// Lower-cased words of three letters or more: enough to tell what a text is about.
fn content_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3).map(str::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> usize {
        text.split_whitespace().count()
    }

    fn history(n: usize) -> Vec<HistoryMessage> {
        (0..n)
            .map(|i| HistoryMessage {
                id: EntryId::new(1_763_000_000_000_000 + 1_000_000 * i as i64, (i * 37 % 1000) as u16),
                speaker: if i % 2 == 0 { Speaker::Character } else { Speaker::User },
                content: format!("message number {i} for {{{{user}}}}"),
            })
            .collect()
    }

    fn parts<'a>(history: &'a [HistoryMessage], memories: &'a [String], nsfw: bool, budget: usize) -> PromptParts<'a> {
        PromptParts {
            persona: Persona {
                name: "Mia",
                age: 24,
                introduction: "The barista who saves {{user}} the window seat.",
                personality: "Warm; teases {{user}}.",
                scenario: "A café.",
            },
            card: CardPrompt::default(),
            lore: &[],
            user_name: "Ann",
            nsfw,
            memories,
            history,
            history_is_whole: true,
            budget_tokens: budget,
            user_description: "",
            reply_language: None,
            recall: Recall::default(),
        }
    }

    #[test]
    fn the_prompt_holds_persona_rules_memories_and_the_newest_history_that_fits() {
        let history = history(40);
        let memories = vec!["Ann has a cat called Tom".to_owned()];
        let prompt = build_prompt(&parts(&history, &memories, false, 170), words);
        let system = &prompt[0];
        assert_eq!(system.role, PromptRole::System);
        assert!(
            system.content.starts_with(
                "You are Mia, 24, the barista who saves Ann the window seat. You are chatting with Ann.\n"
            )
        );
        assert!(system.content.contains("teases Ann"));
        assert!(system.content.contains("A café."));
        assert!(system.content.contains(SAFE_RULES) && !system.content.contains(ADULT_RULES));
        assert!(system.content.contains("- Ann has a cat called Tom"));
        let total: usize =
            prompt.iter().map(|m| words(&m.content)).sum::<usize>() + (prompt.len() - 1) * MESSAGE_OVERHEAD_TOKENS;
        assert!(total <= 170, "{total} tokens");
        assert!(prompt.len() > 3 && prompt.len() < 42, "only the newest history fits");
        assert_eq!(at_end(&prompt, 1), "message number 39 for Ann");
        assert_eq!(prompt[1].role, PromptRole::User, "history starts with a user turn");
    }

    #[test]
    fn a_trimmed_history_starts_at_cut_points_so_the_prompt_start_holds_for_several_turns() {
        let conversation = history(200);
        let (mut turns, mut same_start, mut previous): (usize, usize, Option<Vec<PromptMessage>>) = (0, 0, None);
        for len in (40..200).step_by(2) {
            let seen = &conversation[..len];
            let prompt = build_prompt(&parts(seen, &[], false, 400), words);
            let total: usize =
                prompt.iter().map(|m| words(&m.content)).sum::<usize>() + (prompt.len() - 1) * MESSAGE_OVERHEAD_TOKENS;
            assert!(total <= 400, "{total} tokens");
            assert_eq!(prompt[1].role, PromptRole::User);
            assert_eq!(at_end(&prompt, 1), format!("message number {} for Ann", len - 1));
            if let Some(previous) = previous.replace(prompt.clone()) {
                turns += 1;
                // The previous prompt without its reply guide is where this one starts
                // when the cut held.
                if prompt.starts_with(&previous[..previous.len() - 1]) {
                    same_start += 1;
                }
            }
        }
        // Cutting at the oldest message that fits would move the start at every turn.
        println!("the start held in {same_start} of {turns} turns");
        assert!(same_start * 2 > turns, "the start held in {same_start} of {turns} turns");

        // The same holds when only the newest part of a long conversation was read.
        let window = &conversation[150..];
        let mut from_window = parts(window, &[], false, 10_000);
        from_window.history_is_whole = false;
        let prompt = build_prompt(&from_window, words);
        assert!(prompt.len() - 2 < window.len(), "a partial history starts at a cut point");
        assert!(prompt.len() > window.len() / 2);
    }

    #[test]
    fn the_adult_preference_changes_the_rules_and_the_last_message_always_fits() {
        let history = history(2);
        let prompt = build_prompt(&parts(&history, &[], true, 1), words);
        assert!(prompt[0].content.contains(ADULT_RULES));
        assert_eq!(prompt.len(), 3);
        assert_eq!(prompt[1].content, "message number 1 for Ann");
    }

    #[test]
    fn memories_sharing_words_with_the_message_come_first() {
        let memories =
            vec!["Ann works as a nurse".to_owned(), "Ann loves her cat Tom".to_owned(), "Ann lives in Lyon".to_owned()];
        assert_eq!(
            relevant_memories(&memories, "How is your cat today?", 2),
            ["Ann works as a nurse", "Ann loves her cat Tom"],
            "the cat wins a place; the picked ones are listed newest first"
        );
        assert_eq!(relevant_memories(&memories, "Lyon is rainy", 2), ["Ann works as a nurse", "Ann lives in Lyon"]);
        assert_eq!(relevant_memories(&memories, "hello", 5), memories, "all fit: the same order for any message");
        assert_eq!(relevant_memories(&memories, "my cat in Lyon", 5), memories);
    }

    const CARD: CardPrompt<'static> = CardPrompt {
        system_prompt: "You are {{char}}, a lighthouse keeper who flirts with <USER>.",
        post_history_instructions: "Answer {{user}} in the voice of <BOT>; mention the sea.",
        example_dialogue: "<START>\n{{user}}: Is it cold up there?\n{{char}}: Only when you are not here to warm the lamp room with me.\n<start>\n<USER>: Do you sleep?\n<BOT>: Between two flashes of the lamp.",
    };

    fn system_of(prompt: &[PromptMessage]) -> &str {
        assert_eq!(prompt[0].role, PromptRole::System);
        &prompt[0].content
    }

    /// The content of the message `from_end` places before the end (1: the last), skipping
    /// the reply guide that ends every prompt.
    fn at_end(prompt: &[PromptMessage], from_end: usize) -> String {
        assert!(prompt.last().is_some_and(|m| m.role == PromptRole::System && m.content.starts_with("Reply as ")));
        prompt[prompt.len() - 1 - from_end].content.clone()
    }

    fn total_tokens(prompt: &[PromptMessage]) -> usize {
        prompt.iter().map(|m| words(&m.content)).sum::<usize>() + (prompt.len() - 1) * MESSAGE_OVERHEAD_TOKENS
    }

    #[test]
    fn a_cards_system_prompt_replaces_the_first_line_and_the_rules_and_memories_still_follow() {
        let history = history(6);
        let memories = vec!["Ann has a cat called Tom".to_owned()];
        let mut with_card = parts(&history, &memories, true, 1000);
        with_card.card = CARD;
        let prompt = build_prompt(&with_card, words);
        let system = system_of(&prompt);
        assert!(system.starts_with("You are Mia, a lighthouse keeper who flirts with Ann.\n"), "{system}");
        assert!(!system.starts_with("You are Mia, 24,"), "the identity line is replaced: {system}");
        let rules = system.find(ALWAYS_RULES).unwrap_or_else(|| panic!("no rules: {system}"));
        assert!(system.contains(ADULT_RULES));
        let memory = system.find("- Ann has a cat called Tom").unwrap_or_else(|| panic!("no memory: {system}"));
        assert!(rules < memory && system.find("Personality: Warm; teases Ann.").is_some_and(|p| p < rules));

        // Without a card (or with a blank system prompt) the identity line is there.
        let mut blank = with_card;
        blank.card = CardPrompt { system_prompt: "  \n ", ..CARD };
        assert!(system_of(&build_prompt(&blank, words)).starts_with("You are Mia, 24, the barista"));
    }

    #[test]
    fn post_history_instructions_come_after_the_history_just_before_the_reply() {
        let history = history(6);
        let mut with_card = parts(&history, &[], false, 1000);
        with_card.card = CARD;
        let prompt = build_prompt(&with_card, words);
        let last = prompt.last().unwrap_or_else(|| panic!("empty prompt"));
        assert_eq!(last.role, PromptRole::System);
        assert_eq!(last.content, "Answer Ann in the voice of Mia; mention the sea.");
        assert_eq!(prompt[prompt.len() - 3].content, "message number 5 for Ann", "after the newest message");
        assert!(prompt[prompt.len() - 2].content.starts_with("Reply as Mia"), "and its reply guide");
        assert_eq!(prompt.iter().filter(|m| m.role == PromptRole::System).count(), 3);
        assert!(!system_of(&prompt).contains("mention the sea"));
        // None set: only the reply guide after the history.
        let plain = build_prompt(&parts(&history, &[], false, 1000), words);
        assert_eq!(plain[plain.len() - 2].role, PromptRole::User);
        assert!(plain[plain.len() - 1].content.starts_with("Reply as Mia"));
    }

    #[test]
    fn example_dialogue_goes_in_the_system_message_within_its_share_and_goes_before_history_does() {
        let history = history(40);
        let mut roomy = parts(&history, &[], false, 1000);
        roomy.card = CardPrompt { post_history_instructions: "", ..CARD };
        let prompt = build_prompt(&roomy, words);
        let system = system_of(&prompt);
        assert!(
            system
                .contains("Ann: Is it cold up there?\nMia: Only when you are not here to warm the lamp room with me."),
            "{system}"
        );
        assert!(system.contains("Ann: Do you sleep?\nMia: Between two flashes of the lamp."), "{system}");
        assert!(!system.to_lowercase().contains("<start>"), "the markers are not shown: {system}");
        assert!(
            system.find("Scenario:").is_some_and(|s| s < system.find("Example dialogue").unwrap_or(0))
                && system.find("Example dialogue").is_some_and(|e| e < system.find(ALWAYS_RULES).unwrap_or(0)),
            "after the description, before the rules: {system}"
        );
        assert_eq!(prompt.len(), 42, "all history fits too");

        // Tight: the system message takes most of the budget. The examples go, the history stays.
        let without_examples = PromptParts { card: CardPrompt { example_dialogue: "", ..roomy.card }, ..roomy };
        let base = words(system_of(&build_prompt(&without_examples, words)));
        let mut tight = roomy;
        tight.budget_tokens = base + 30;
        let prompt = build_prompt(&tight, words);
        assert!(!system_of(&prompt).contains("Is it cold up there?"), "{}", system_of(&prompt));
        assert!(system_of(&prompt).contains("Ann: Who are you?\nMia: I'm Mia, 24, the barista"), "always in");
        assert!(prompt.len() >= 3, "history still fills what is left: {prompt:?}");
        assert!(total_tokens(&prompt) <= tight.budget_tokens);

        // A share that holds the first block but not both: whole blocks, in order.
        let mut middling = roomy;
        middling.budget_tokens = base + 40;
        let system = build_prompt(&middling, words).swap_remove(0).content;
        assert!(system.contains("Is it cold up there?") && !system.contains("Do you sleep?"), "{system}");

        // The choice does not depend on the history, so the system message holds from turn to turn.
        let later = parts(&history[..20], &[], false, base + 40);
        let later = PromptParts { card: roomy.card, ..later };
        assert_eq!(build_prompt(&later, words)[0].content, system);
    }

    fn lore_entry(content: &'static str, position: LorePosition, constant: bool) -> LoreEntry<'static> {
        LoreEntry { content, position, constant }
    }

    #[test]
    fn lore_goes_by_its_position_constants_in_the_system_message_activated_entries_after_the_history() {
        let history = history(8);
        let lore = [
            lore_entry("The island is called Skerry; <BOT> was born there.", LorePosition::BeforeCharacter, true),
            lore_entry("The lamp of {{char}}'s lighthouse burns whale oil.", LorePosition::AfterCharacter, false),
            lore_entry("A storm sank the Mary Rose; {{user}} survived it.", LorePosition::BeforeCharacter, false),
            lore_entry("The fog horn sounds every minute.", LorePosition::AfterCharacter, true),
        ];
        let mut with_lore = parts(&history, &[], false, 1000);
        with_lore.card = CardPrompt { post_history_instructions: "Stay brief.", ..CardPrompt::default() };
        with_lore.lore = &lore;
        let prompt = build_prompt(&with_lore, words);
        let system = system_of(&prompt);
        let at = |text: &str| system.find(text).unwrap_or_else(|| panic!("{text:?} not in {system}"));
        assert!(at("You are Mia") < at("Skerry; Mia was born"), "macros replaced");
        assert!(at("Skerry") < at("Personality:"), "before the description");
        assert!(at("Scenario:") < at("fog horn") && at("fog horn") < at(ALWAYS_RULES), "after the description");
        assert!(!system.contains("whale oil") && !system.contains("Mary Rose"), "activated entries are not in it");

        let n = prompt.len();
        assert_eq!(prompt[n - 4].content, "message number 7 for Ann", "the history comes first");
        assert!(prompt[n - 3].content.starts_with("Reply as Mia"), "then the reply guide");
        assert_eq!(prompt[n - 2].role, PromptRole::System);
        assert_eq!(
            prompt[n - 2].content,
            format!(
                "{LORE_HEADING}\nA storm sank the Mary Rose; Ann survived it.\nThe lamp of Mia's lighthouse burns whale oil."
            ),
            "before-the-character entries first, then after"
        );
        assert_eq!(prompt[n - 1].content, "Stay brief.", "the post-history instructions stay last");

        // The lore counts against the budget: the history makes room for it.
        let without = PromptParts { lore: &[], ..with_lore };
        let budget = total_tokens(&build_prompt(&without, words));
        let tight = PromptParts { budget_tokens: budget, ..with_lore };
        let prompt = build_prompt(&tight, words);
        assert!(total_tokens(&prompt) <= budget, "{} > {budget}", total_tokens(&prompt));
        assert!(prompt.len() < n, "older history made room");
    }

    #[test]
    fn a_change_of_activated_lore_leaves_the_system_message_and_the_history_as_they_were() {
        let history = history(10);
        let one = [lore_entry("The lamp burns whale oil.", LorePosition::BeforeCharacter, false)];
        let two = [
            lore_entry("The lamp burns whale oil.", LorePosition::BeforeCharacter, false),
            lore_entry("A storm sank the Mary Rose.", LorePosition::AfterCharacter, false),
        ];
        let first = build_prompt(&PromptParts { lore: &one, ..parts(&history, &[], false, 1000) }, words);
        let second = build_prompt(&PromptParts { lore: &two, ..parts(&history, &[], false, 1000) }, words);
        assert_eq!(first.len(), second.len());
        let n = first.len();
        assert_eq!(first[..n - 1], second[..n - 1], "everything before the lore is the same prompt prefix");
        assert_ne!(first[n - 1], second[n - 1]);
    }

    #[test]
    fn the_users_persona_names_them_and_describes_them_in_the_system_message() {
        let history = history(4);
        let mut with_persona = parts(&history, &[], false, 1000);
        with_persona.user_name = "Captain Ann";
        with_persona.user_description = "  A night nurse who sails; {{char}} met her at the harbour. ";
        let prompt = build_prompt(&with_persona, words);
        let system = system_of(&prompt);
        assert!(system.contains("You are chatting with Captain Ann."), "{system}");
        assert!(
            system.contains("\nAbout Captain Ann: A night nurse who sails; Mia met her at the harbour.\n"),
            "{system}"
        );
        assert!(system.contains("teases Captain Ann"), "{{user}} is the persona's name");
        assert!(
            system.find("Scenario:").is_some_and(|s| s < system.find("About Captain Ann").unwrap_or(0))
                && system.find("About Captain Ann").is_some_and(|a| a < system.find(ALWAYS_RULES).unwrap_or(0)),
            "after the character, before the rules: {system}"
        );
        assert_eq!(at_end(&prompt, 1), "message number 3 for Captain Ann");
        // Nothing written, no line.
        let plain = build_prompt(&parts(&history, &[], false, 1000), words);
        assert!(!system_of(&plain).contains("About Ann"));
    }

    #[test]
    fn the_identity_line_and_example_carry_name_age_and_introduction() {
        let fill = |text: &str| fill_placeholders(text, "Ann", "Keira");
        let persona = |introduction| Persona { name: "Keira", age: 26, introduction, personality: "", scenario: "" };
        assert_eq!(
            identity_line(persona("A fiddler who plays in a Galway pub."), "Ann", &fill),
            "You are Keira, 26, a fiddler who plays in a Galway pub. You are chatting with Ann."
        );
        assert_eq!(
            identity_line(persona("Loves the sea and {{user}}"), "Ann", &fill),
            "You are Keira, 26. Loves the sea and Ann. You are chatting with Ann."
        );
        assert_eq!(identity_line(persona("  "), "Ann", &fill), "You are Keira, 26. You are chatting with Ann.");
        assert_eq!(
            identity_example(persona("The barista who knows your order."), "Ann", &fill),
            "Ann: Who are you?\nKeira: I'm Keira, 26, the barista who knows your order."
        );
    }

    #[test]
    fn the_reply_guide_asks_for_the_users_language_after_the_history_and_leaves_the_prefix_alone() {
        let history = history(6);
        let english = build_prompt(&parts(&history, &[], false, 1000), words);
        let mut in_german = parts(&history, &[], false, 1000);
        in_german.reply_language = Some("de");
        let german = build_prompt(&in_german, words);
        let n = german.len();
        assert_eq!(german[n - 1].role, PromptRole::System);
        assert_eq!(german[n - 1].content, "Reply as Mia, 24, to Ann, in two to four sentences. Antworte auf Deutsch.");
        assert_eq!(german[n - 2].content, "message number 5 for Ann", "right after the newest message");
        assert_eq!(english.len(), n);
        assert_eq!(english[..n - 1], german[..n - 1], "the language changes nothing before the history's end");
        for language in crate::account::LANGUAGES {
            assert!(reply_language_instruction(language).is_some(), "{language}");
        }
        assert_eq!(reply_language_instruction("xx"), None);
        let mut unknown = in_german;
        unknown.reply_language = Some("xx");
        assert_eq!(build_prompt(&unknown, words)[n - 1].content, "Reply as Mia, 24, to Ann, in two to four sentences.");
    }

    fn item(id: i64, content: &'static str) -> RecallItem<'static> {
        RecallItem { id: EntryId::from_raw(id), content }
    }

    #[test]
    fn recall_goes_after_the_history_names_the_user_and_leaves_out_what_the_history_holds() {
        let history = history(10);
        let memories = [item(7, "Ann's dog is called Biscuit")];
        let in_history = history[5].id.raw();
        let messages = [
            item(3, "My dog is called Biscuit and I work as a nurse."),
            RecallItem { id: EntryId::from_raw(in_history), content: "held by the history already" },
        ];
        let terms = vec!["dog".to_owned()];
        let recall = Recall { memories: &memories, messages: &messages, terms: &terms, budget_tokens: 200 };
        let mut with_recall = parts(&history, &[], false, 1000);
        with_recall.card = CardPrompt { post_history_instructions: "Stay brief.", ..CardPrompt::default() };
        let without = build_prompt(&with_recall, words);
        with_recall.recall = recall;
        let prompt = assemble_prompt(&with_recall, words);
        let n = prompt.messages.len();
        assert_eq!(n, without.len() + 1);
        // The reply guide and the post-history instructions stay last.
        assert_eq!(prompt.messages[..n - 3], without[..without.len() - 2], "everything before it stays as it was");
        assert_eq!(prompt.messages[n - 3].role, PromptRole::System);
        assert_eq!(
            prompt.messages[n - 3].content,
            "What you remember about Ann (facts about Ann, not about you):\n- Ann's dog is called Biscuit\n\
             Things Ann said earlier (about Ann, not about you):\n- Ann: My dog is called Biscuit and I work as a nurse."
        );
        assert_eq!(prompt.messages[n - 1].content, "Stay brief.", "the post-history instructions stay last");
        assert_eq!(prompt.recalled_memories, [(EntryId::from_raw(7), "Ann's dog is called Biscuit".to_owned())]);
        assert_eq!(prompt.recalled_messages.len(), 1, "the message the history holds is not recalled again");
        assert_eq!(prompt.history.len(), 10);
        assert!(prompt.history.contains(&EntryId::from_raw(in_history)));

        // Nothing recalled: no recalled part at all.
        let none = PromptParts { recall: Recall { budget_tokens: 200, ..Recall::default() }, ..with_recall };
        assert_eq!(build_prompt(&none, words).len(), without.len());
    }

    #[test]
    fn recall_keeps_to_its_budget_cutting_long_messages_to_their_matching_sentences() {
        let history = history(4);
        let long = "I had a long day at work today and the bus was late again and it rained all the way home. \
                    My dog Biscuit was waiting at the door.";
        let messages = [item(1, long), item(2, "Biscuit chewed my shoe and I was not happy about it at all")];
        let terms = vec!["biscuit".to_owned()];
        let budget = 30;
        let recall = Recall { memories: &[], messages: &messages, terms: &terms, budget_tokens: budget };
        let tight = PromptParts { recall, ..parts(&history, &[], false, 1000) };
        let prompt = assemble_prompt(&tight, words);
        let recalled = &prompt.messages[prompt.messages.len() - 2];
        assert!(words(&recalled.content) + MESSAGE_OVERHEAD_TOKENS <= budget, "{recalled:?}");
        assert_eq!(
            prompt.recalled_messages,
            [(EntryId::from_raw(1), "My dog Biscuit was waiting at the door.".to_owned())]
        );
        assert!(recalled.content.ends_with("- Ann: My dog Biscuit was waiting at the door."), "{recalled:?}");
        // No budget, no recall; the history's budget is untouched by recall.
        let none = PromptParts { recall: Recall { budget_tokens: 0, ..recall }, ..tight };
        let plain = assemble_prompt(&none, words);
        assert!(plain.recalled_messages.is_empty());
        assert_eq!(plain.messages, build_prompt(&parts(&history, &[], false, 1000), words));
    }
}
