//! The age a card states. Cards have no age field, but most say it somewhere, and card apps
//! (Chub's and JanitorAI's pages, SillyTavern's character list) show it from there: an `age`
//! in `extensions`, a tag such as `25 years old`, or the text — "Age: 25", "{{char}} is a
//! 25-year-old nurse", "She is 31, calm and precise.". The importer uses it instead of asking,
//! and must still refuse any age under 18 (community guidelines: no minors, no aged-up
//! characters), so a stated age counts whatever it is: the caller validates it.
//!
//! Only the character's own age is wanted. The text patterns are, in order of trust: a label
//! (`Age: 25`, `aged 25`), the character as subject (`{{char}} is 25`, `she is 25,` — the
//! number closing the clause, so "she is 5 feet tall" does not count), and a bare
//! `25 years old` / `25-year-old` / `25yo` not owned by someone else ("her 8-year-old son"
//! is not the character's age).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::Card;

/// `age: 25`, `Age = 25`, `aged 25` (not "at the age of 5", a backstory's).
static LABELLED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bage(?:d|\s*[:=])\s*(\d{1,3})\b").unwrap_or_else(|e| panic!("{e}")));
/// `{{char}} is 25`, `she's 25`, `I am 25`, `<name> is 25`, ending the clause (present tense:
/// "when she was 16, …" is a backstory).
static SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(\{\{char\}\}|<bot>|<char>|\b(?:she|he|i|they)\b|\b[\p{L}]+\b)(?:\s+(?:is|am|are)|'s|’s|'m|’m)\s+(?:now\s+|only\s+|just\s+)?(\d{1,3})(?:\s*(?:years?|yrs?)(?:\s+old)?)?\s*(?:[,.;!?)\n]|$|\s+(?:and|but|with|yet|so)\b)",
    )
    .unwrap_or_else(|e| panic!("{e}"))
});
/// `25 years old`, `25-year-old`, `25 yrs old`, `25yo`, `25 y/o`, with the word before it.
static YEARS_OLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\b(\p{L}+)\s+)?\b(\d{1,3})\s*(?:-\s*)?(?:(?:years?|yrs?)\s*-?\s*old\b|yo\b|y/o\b|y\.o\.)")
        .unwrap_or_else(|e| panic!("{e}"))
});
/// Words that make a following age someone else's.
const OTHERS: [&str; 9] = ["her", "his", "my", "their", "your", "our", "its", "whose", "with"];

/// The age the card states, if it states one (the first found, most trusted place first).
pub fn stated_age(card: &Card) -> Option<i64> {
    let data = &card.data;
    if let Some(age) = extension_age(&data.extensions) {
        return Some(age);
    }
    let name = data.nickname.as_deref().filter(|n| !n.trim().is_empty()).unwrap_or(&data.name);
    let texts = [&data.description, &data.personality, &data.creator_notes, &data.scenario];
    data.tags
        .iter()
        .find_map(|tag| labelled(tag).or_else(|| years_old(tag)))
        .or_else(|| texts.iter().find_map(|text| labelled(text)))
        .or_else(|| texts.iter().find_map(|text| as_subject(text, name)))
        .or_else(|| texts.iter().find_map(|text| years_old(text)))
}

/// `extensions.age` (a number or a numeric string), as some exporters write it.
fn extension_age(extensions: &serde_json::Map<String, Value>) -> Option<i64> {
    match extensions.get("age")? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn labelled(text: &str) -> Option<i64> {
    LABELLED.captures(text).and_then(|c| c[1].parse().ok())
}

fn as_subject(text: &str, name: &str) -> Option<i64> {
    let name_words: Vec<String> = name.split_whitespace().map(str::to_lowercase).collect();
    SUBJECT.captures_iter(text).find_map(|c| {
        let subject = c[1].to_lowercase();
        let ours = matches!(subject.as_str(), "{{char}}" | "<bot>" | "<char>" | "she" | "he" | "i" | "they")
            || name_words.contains(&subject);
        if ours { c[2].parse().ok() } else { None }
    })
}

fn years_old(text: &str) -> Option<i64> {
    YEARS_OLD.captures_iter(text).find_map(|c| {
        let before = c.get(1).map(|m| m.as_str().to_lowercase());
        if before.is_some_and(|word| OTHERS.contains(&word.as_str())) {
            return None;
        }
        c[2].parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CardData;

    fn card(edit: impl FnOnce(&mut CardData)) -> Card {
        let mut card = Card::default();
        card.data.name = "Captain Ines".into();
        edit(&mut card.data);
        card
    }

    fn age_in_description(text: &str) -> Option<i64> {
        stated_age(&card(|d| d.description = text.into()))
    }

    #[test]
    fn reads_the_age_a_description_states() {
        assert_eq!(age_in_description("{{char}} sails a small schooner. She is 31, calm and precise."), Some(31));
        assert_eq!(age_in_description("Age: 24\nHeight: 170 cm"), Some(24));
        assert_eq!(age_in_description("A 27-year-old nurse who works nights."), Some(27));
        assert_eq!(age_in_description("{{char}} is 45 years old and runs the bakery."), Some(45));
        assert_eq!(age_in_description("Ines is 38 and has sailed for twenty years."), Some(38));
        assert_eq!(age_in_description("I'm 22. I study law."), Some(22));
        assert_eq!(age_in_description("Name: Ines (29yo), a pilot"), Some(29));
        assert_eq!(age_in_description("aged 33, a widow"), Some(33));
    }

    #[test]
    fn states_an_age_under_18_as_it_is_so_the_importer_refuses_it() {
        assert_eq!(age_in_description("{{char}} is 16, a high-school student."), Some(16));
        assert_eq!(age_in_description("Age: 15"), Some(15));
    }

    #[test]
    fn ignores_numbers_that_are_not_the_characters_age() {
        assert_eq!(age_in_description("She is 5 feet tall and has 3 cats."), None);
        assert_eq!(age_in_description("She has been sailing for 20 years."), None);
        assert_eq!(age_in_description("She lives with her 8-year-old son."), None);
        assert_eq!(age_in_description("Room 12 is hers. Tom is 40, her neighbour."), None);
        assert_eq!(age_in_description("A warm, curious lighthouse keeper."), None);
        assert_eq!(age_in_description("At the age of 5 she lost her parents; when she was 16, she ran."), None);
    }

    #[test]
    fn the_extension_then_tags_then_the_text() {
        let mut from_extension = card(|d| d.description = "She is 31.".into());
        from_extension.data.extensions.insert("age".into(), serde_json::json!(26));
        assert_eq!(stated_age(&from_extension), Some(26));
        let from_string = card(|d| {
            d.extensions.insert("age".into(), serde_json::json!(" 41 "));
        });
        assert_eq!(stated_age(&from_string), Some(41));
        let from_tag = card(|d| {
            d.tags = vec!["18+".into(), "25 years old".into()];
            d.description = "She is 31.".into();
        });
        assert_eq!(stated_age(&from_tag), Some(25));
        let from_personality = card(|d| d.personality = "Age: 52; stern".into());
        assert_eq!(stated_age(&from_personality), Some(52));
    }

    #[test]
    fn a_card_without_an_age_states_none() {
        assert_eq!(stated_age(&card(|d| d.tags = vec!["18+".into(), "sea".into()])), None);
    }
}
