//! Long-term memory: facts about the user that a character keeps, extracted from the
//! conversation by the chat model every few turns or when the user asks (`saveMemories`).

use amora_domain::chat::{HistoryMessage, PromptMessage, PromptRole, Speaker};

/// Longest memory kept, in characters.
pub const MAX_MEMORY_CHARS: usize = 200;
/// Most memories a pair keeps; the user deletes one to add another.
pub const MAX_MEMORIES: usize = 100;
/// Most facts taken from one extraction.
const MAX_FACTS_PER_EXTRACTION: usize = 5;

/// The prompt that asks the model for facts about the user in the recent conversation.
pub fn extraction_prompt(user_name: &str, character_name: &str, recent: &[HistoryMessage]) -> Vec<PromptMessage> {
    let mut transcript = String::new();
    for message in recent {
        let who = match message.speaker {
            Speaker::User => user_name,
            Speaker::Character => character_name,
        };
        transcript.push_str(&format!("{who}: {}\n", message.content));
    }
    vec![
        PromptMessage {
            role: PromptRole::System,
            content: format!(
                "You take notes about {user_name}. List facts that {user_name} said about themselves \
                 (name, age, job, home, likes, family, plans), one per line, each starting with \"- \". \
                 Write only facts stated by {user_name}. If there are none, write NONE."
            ),
        },
        PromptMessage {
            role: PromptRole::User,
            content: format!("Conversation:\n{transcript}\nFacts about {user_name}:"),
        },
    ]
}

/// The facts in a model's answer to [`extraction_prompt`]: bullet lines, trimmed, at most
/// [`MAX_MEMORY_CHARS`] characters, without those already `known` (case-insensitive).
pub fn parse_facts(answer: &str, known: &[String]) -> Vec<String> {
    let known: Vec<String> = known.iter().map(|k| normal(k)).collect();
    let mut facts: Vec<String> = Vec::new();
    for line in answer.lines() {
        let line = line.trim();
        let Some(fact) =
            line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")).or_else(|| line.strip_prefix("• "))
        else {
            continue;
        };
        let fact = fact.trim().trim_end_matches('.').trim();
        if fact.chars().count() < 3 || fact.eq_ignore_ascii_case("none") {
            continue;
        }
        let fact: String = amora_domain::text::truncate_chars(fact, MAX_MEMORY_CHARS).to_owned();
        let key = normal(&fact);
        if known.contains(&key) || facts.iter().any(|f| normal(f) == key) {
            continue;
        }
        facts.push(fact);
        if facts.len() == MAX_FACTS_PER_EXTRACTION {
            break;
        }
    }
    facts
}

/// A memory the user wrote: trimmed, 1 to [`MAX_MEMORY_CHARS`] characters, line breaks and
/// tabs but no other control characters (they would reach the prompt and other tabs' screens
/// as they are), and allowed by the community guidelines.
pub fn memory_text(raw: &str) -> Result<String, super::ChatError> {
    let text = raw.trim();
    let count = text.chars().count();
    if count == 0 || count > MAX_MEMORY_CHARS {
        return Err(super::ChatError::Invalid(format!("content: must be 1 to {MAX_MEMORY_CHARS} characters")));
    }
    if text.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')) {
        return Err(super::ChatError::Invalid("content: must not hold control characters".into()));
    }
    if let Some(refusal) = amora_domain::moderation::check(text) {
        return Err(super::ChatError::Refused(refusal));
    }
    Ok(text.to_owned())
}

fn normal(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use amora_domain::chat::EntryId;

    use super::*;

    #[test]
    fn facts_are_bullet_lines_without_repeats() {
        let answer = "Here are the facts:\n- Ann has a cat named Tom.\n* Ann works as a nurse\n- ann has a cat named tom\nNONE\n- ok\n- None";
        assert_eq!(parse_facts(answer, &[]), ["Ann has a cat named Tom", "Ann works as a nurse"]);
        assert_eq!(parse_facts(answer, &["Ann works as a  NURSE".into()]), ["Ann has a cat named Tom"]);
        assert!(parse_facts("NONE", &[]).is_empty());
        let long = format!("- {}", "x".repeat(500));
        assert_eq!(parse_facts(&long, &[])[0].chars().count(), MAX_MEMORY_CHARS);
    }

    #[test]
    fn the_extraction_prompt_shows_the_conversation_with_names() {
        let recent = [
            HistoryMessage { id: EntryId::from_raw(1), speaker: Speaker::User, content: "I'm a nurse".into() },
            HistoryMessage { id: EntryId::from_raw(2), speaker: Speaker::Character, content: "Lovely!".into() },
        ];
        let prompt = extraction_prompt("Ann", "Mia", &recent);
        assert_eq!(prompt.len(), 2);
        assert!(prompt[1].content.contains("Ann: I'm a nurse\nMia: Lovely!"));
    }
}
