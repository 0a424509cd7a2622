//! Facts taken from the user's words by rule, with no model: the statements a user makes
//! about themself ("my dog is called Biscuit", "I work as a nurse"). A small model misses
//! many of them and invents others; these rules find the plain ones every time.
//!
//! A message is cut into sentences, and an English sentence into clauses where a new one
//! starts with the user speaking of themself ("…, and I live in Oslo"). A clause is a
//! statement when it is not a question, has the user as its subject or owner ("I", "my"),
//! does not speak to or of the character ("you"), is not small talk ("I think", "I'm
//! fine") and says something (a word that is not a function word). English clauses are
//! turned to the third person with the user's name ("Ann works as a nurse"); a sentence in
//! another language is kept as the user said it ("Ann said: “Ich wohne in Hamburg.”").
//! Actions written between asterisks (role play) are left out.

use super::words::{content_words, is_latin, words};

/// English words that make the user the subject or owner of a clause.
/// ("im" and "ive", as typed in a hurry, are left out: "im" is German too.)
const FIRST_PERSON: &[&str] = &["i", "i'm", "i've", "i'd", "i'll", "my", "mine"];

/// Common English words, and common words of the other languages that English does not
/// share: a sentence is read as English when it holds more of the first. ("i" is Italian
/// and Polish too, "my" Polish.)
const ENGLISH_HINTS: &[&str] = &[
    "the", "and", "is", "to", "of", "my", "i", "i'm", "i've", "i'd", "i'll", "have", "with", "at", "for", "it", "that",
    "was", "on", "this", "am", "are", "work", "live", "called", "named", "but", "just", "like", "love", "me", "an",
    "very", "really", "we", "she", "he", "they", "from", "since", "been", "because", "going", "has", "got",
];
const OTHER_HINTS: &[&str] = &[
    "der", "das", "und", "ist", "nicht", "ein", "eine", "mit", "auf", "le", "les", "et", "est", "une", "des", "avec",
    "el", "los", "las", "y", "es", "una", "con", "il", "lo", "gli", "e", "è", "di", "che", "per", "os", "um", "uma",
    "não", "com", "w", "z", "na", "się", "jest", "nie", "yang", "dan", "ini", "itu", "tidak",
];

/// Words that speak to or of the character: a clause holding one is about them, or both.
const SECOND_PERSON: &[&str] = &[
    // English
    "you", "your", "you're", "youre", "yours", "you've", "you'd", "you'll", "u", "ur", "yourself",
    // German, French, Spanish, Italian, Portuguese, Polish, Indonesian
    "du", "dich", "dir", "dein", "deine", "deinen", "deinem", "deiner", "tu", "toi", "ton", "ta", "tes", "vous",
    "votre", "vos", "tú", "usted", "tuo", "tua", "ti", "você", "voce", "teu", "tua", "ty", "ciebie", "twój", "twoja",
    "kamu", "anda", "kau",
];
const SECOND_PERSON_CJK: &[&str] = &["あなた", "君", "きみ", "당신", "너는", "너의", "네가"];

/// Words that make the user the subject or owner of a sentence in the other nine languages
/// (in Spanish, Italian, Portuguese and Polish the verb's own form says "I", so the common
/// first-person verbs are listed).
const FIRST_PERSON_OTHER: &[&str] = &[
    // German
    "ich", "mein", "meine", "meinen", "meinem", "meiner", "mich", "mir",
    // French (j' and m' come as "j" and "m" after splitting at the apostrophe)
    "je", "j", "mon", "ma", "mes", "moi", // Spanish
    "yo", "mi", "mis", "soy", "estoy", "tengo", "vivo", "trabajo", "estudio", "llamo", // Italian
    "io", "mio", "mia", "miei", "mie", "sono", "ho", "lavoro", "abito", "chiamo", // Portuguese
    "eu", "meu", "meus", "minha", "minhas", "sou", "estou", "tenho", "moro", "trabalho", "chamo", // Polish
    "mam", "jestem", "mieszkam", "pracuję", "pracuje", "mój", "moja", "moje", "mojego", "mojej", "nazywam",
    // Indonesian
    "saya", "aku", "ku",
];
const FIRST_PERSON_CJK: &[&str] = &["私", "僕", "俺", "わたし", "저는", "저의", "제가", "나는", "내가", "제 "];

/// After "I": what people say in passing, not about themselves.
const SMALL_TALK_VERBS: &[&str] = &[
    "think",
    "guess",
    "mean",
    "know",
    "see",
    "agree",
    "hope",
    "wonder",
    "suppose",
    "bet",
    "understand",
    "promise",
    "believe",
    "feel",
    "forgot",
    "forget",
    "missed",
    "miss",
    "said",
    "say",
    "told",
    "asked",
    "ask",
    "wanted",
    "would",
    "could",
    "should",
    "can't",
    "cant",
    "dunno",
];
/// "I don't …" in passing.
const SMALL_TALK_NEGATED: &[&str] = &["know", "think", "care", "mind", "remember", "understand", "get"];
/// After "I'm" / "I am": passing states.
const SMALL_TALK_STATES: &[&str] = &[
    "sorry",
    "fine",
    "ok",
    "okay",
    "good",
    "great",
    "well",
    "alright",
    "tired",
    "bored",
    "here",
    "back",
    "glad",
    "happy",
    "sad",
    "excited",
    "sure",
    "not",
    "so",
    "kidding",
    "joking",
    "curious",
    "confused",
    "lost",
    "done",
    "ready",
    "home",
    "listening",
    "waiting",
    "serious",
    "afraid",
    "thinking",
    "wondering",
    "doing",
    "feeling",
    "pretty",
    "very",
    "too",
];
/// Between "I" and its verb.
const ADVERBS: &[&str] = &[
    "only",
    "also",
    "really",
    "just",
    "still",
    "never",
    "always",
    "usually",
    "often",
    "sometimes",
    "even",
    "actually",
    "mostly",
    "currently",
    "now",
    "totally",
    "absolutely",
    "kinda",
    "basically",
    "recently",
    "finally",
    "already",
    "honestly",
    "literally",
    "definitely",
    "rarely",
    "seriously",
    "barely",
    "mainly",
    "hardly",
    "truly",
];
/// Verb forms that stay as they are after a third-person subject.
const UNCHANGED_VERBS: &[&str] = &[
    "can",
    "could",
    "will",
    "would",
    "should",
    "must",
    "might",
    "may",
    "shall",
    "was",
    "had",
    "did",
    "got",
    "went",
    "grew",
    "made",
    "met",
    "took",
    "saw",
    "left",
    "lost",
    "found",
    "gave",
    "came",
    "became",
    "bought",
    "thought",
    "told",
    "said",
    "knew",
    "kept",
    "felt",
    "ran",
    "began",
    "broke",
    "fell",
    "wrote",
    "won",
    "ate",
    "drank",
    "drove",
    "flew",
    "sold",
    "spent",
    "taught",
    "brought",
    "caught",
    "sat",
    "stood",
    "slept",
    "built",
    "sent",
    "heard",
    "paid",
    "understood",
    "can't",
    "cant",
    "couldn't",
    "won't",
    "wouldn't",
    "didn't",
    "wasn't",
    "shouldn't",
    "mustn't",
];
/// What leads a clause and can go: conjunctions and fillers.
const LEADING: &[&str] =
    &["and", "but", "so", "because", "cause", "cuz", "since", "while", "though", "although", "also", "plus", "or"];
const TRAILING: &[&str] = &["lol", "haha", "hahaha", "lmao", "xd", "xx", "tbh", "honestly", "btw"];

/// The statements about the user in `message`, written about `name`, in the order said.
pub fn statements(message: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (sentence, question) in sentences(&without_actions(message)) {
        if question {
            continue;
        }
        let tokens: Vec<&str> = sentence.split_whitespace().collect();
        if is_english(&tokens) {
            for clause in clauses(&tokens) {
                if let Some(fact) = english_statement(&clause, name) {
                    out.push(fact);
                }
            }
        } else if let Some(fact) = quoted_statement(&sentence, name) {
            out.push(fact);
        }
    }
    out
}

/// English words a question opens with even when its question mark is left out ("do you
/// prefer tea or coffee").
const QUESTION_OPENERS: &[&str] = &[
    "do", "does", "did", "are", "is", "am", "can", "could", "would", "will", "should", "shall", "what", "what's",
    "where", "who", "how", "why", "when", "which", "have", "has", "may", "might",
];

/// What of `message` states something: its sentences that are not questions (nor open as
/// one does), role-play actions left out; `None` when it only asks. Only this is given to
/// the model to find facts in: asked about "Do you prefer tea or coffee?", a small model
/// answers "The user prefers tea".
pub fn stated_part(message: &str) -> Option<String> {
    let stated: Vec<String> = sentences(&without_actions(message))
        .into_iter()
        .filter(|(sentence, question)| {
            let first = sentence.split_whitespace().next().map(key).unwrap_or_default();
            !question && !QUESTION_OPENERS.contains(&first.as_str())
        })
        .map(|(sentence, _)| sentence)
        .collect();
    (!stated.is_empty()).then(|| stated.join(". ") + ".")
}

/// Whether a sentence is English with the user speaking of themself.
fn is_english(tokens: &[&str]) -> bool {
    let keys: Vec<String> = tokens.iter().map(|t| key(t)).collect();
    let count = |list: &[&str]| keys.iter().filter(|k| list.contains(&k.as_str())).count();
    keys.iter().any(|k| FIRST_PERSON.contains(&k.as_str()))
        && count(ENGLISH_HINTS) > count(OTHER_HINTS) + count(FIRST_PERSON_OTHER)
}

/// The message without role-play actions (`*waves*`).
fn without_actions(message: &str) -> String {
    let mut out = String::new();
    for (i, part) in message.split('*').enumerate() {
        // Even parts are outside asterisks; an unclosed asterisk leaves the rest as text.
        if i % 2 == 0 || message.matches('*').count() < i + 1 {
            out.push_str(part);
            out.push(' ');
        }
    }
    out
}

/// Sentences and whether each is a question.
fn sentences(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '.' | '!' | '?' | ';' | '\n' | '。' | '！' | '？' | '…' => {
                let question = matches!(c, '?' | '？');
                let sentence = current.trim().to_owned();
                if !sentence.is_empty() {
                    out.push((sentence, question));
                } else if question && let Some(last) = out.last_mut() {
                    // "really?!" — the mark after another ends the same sentence.
                    last.1 = true;
                }
                current.clear();
            }
            _ => current.push(c),
        }
    }
    let sentence = current.trim().to_owned();
    if !sentence.is_empty() {
        out.push((sentence, false));
    }
    out
}

/// A token as the word lists hold it: lower case, curly apostrophes straight, no
/// punctuation around it.
fn key(token: &str) -> String {
    token.to_lowercase().replace(['’', '‘'], "'").trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_owned()
}

/// An English sentence's clauses: a new one starts where, after a comma or a conjunction,
/// the user speaks of themself again.
fn clauses<'a>(tokens: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut out: Vec<Vec<&'a str>> = vec![Vec::new()];
    for (i, token) in tokens.iter().enumerate() {
        let word = key(token);
        let previous_ends_clause = i > 0 && tokens[i - 1].ends_with(',');
        let starts_anew = FIRST_PERSON.contains(&word.as_str()) && word != "mine";
        let conjunction = LEADING.contains(&word.as_str())
            && tokens.get(i + 1).is_some_and(|next| FIRST_PERSON.contains(&key(next).as_str()));
        let current_is_empty = out.last().is_none_or(Vec::is_empty);
        if !current_is_empty && (conjunction || (starts_anew && previous_ends_clause)) {
            out.push(Vec::new());
        }
        if let Some(current) = out.last_mut() {
            current.push(token);
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

/// An English clause as a fact about `name`, or `None` when it is not one.
fn english_statement(clause: &[&str], name: &str) -> Option<String> {
    let mut tokens: Vec<String> = clause.iter().map(|t| t.trim_end_matches(',').to_owned()).collect();
    while tokens.first().is_some_and(|t| LEADING.contains(&key(t).as_str())) {
        tokens.remove(0);
    }
    while tokens.last().is_some_and(|t| TRAILING.contains(&key(t).as_str()) || key(t).is_empty()) {
        tokens.pop();
    }
    let keys: Vec<String> = tokens.iter().map(|t| key(t)).collect();
    let subject = keys.iter().position(|k| FIRST_PERSON.contains(&k.as_str()))?;
    if keys.iter().any(|k| SECOND_PERSON.contains(&k.as_str())) {
        return None;
    }
    if small_talk(&keys[subject..]) || says_own_name(&keys[subject..], name) {
        return None;
    }
    let fact = third_person(&tokens, &keys, name);
    if content_words(&fact, name).is_empty() {
        return None;
    }
    Some(capitalised(&fact))
}

/// "I think…", "I'm fine", "I am so tired": said in passing.
fn small_talk(keys: &[String]) -> bool {
    let (first, rest) = match keys.split_first() {
        Some((first, rest)) => (first.as_str(), rest),
        None => return true,
    };
    let next = rest.first().map_or("", String::as_str);
    match first {
        "i" if next == "am" => rest.get(1).is_none_or(|state| SMALL_TALK_STATES.contains(&state.as_str())),
        "i" => {
            let Some(at) = rest.iter().position(|w| !ADVERBS.contains(&w.as_str())) else {
                return true;
            };
            let verb = rest[at].as_str();
            let in_passing = |w: Option<&String>| w.is_some_and(|w| SMALL_TALK_NEGATED.contains(&w.as_str()));
            let negated = (matches!(verb, "don't" | "dont") && in_passing(rest.get(at + 1)))
                || (verb == "do" && rest.get(at + 1).is_some_and(|w| w == "not") && in_passing(rest.get(at + 2)));
            SMALL_TALK_VERBS.contains(&verb) || negated
        }
        "i'm" | "im" => SMALL_TALK_STATES.contains(&next) || next.is_empty(),
        _ => false,
    }
}

/// "I'm Ann" when the user is Ann: nothing new.
fn says_own_name(keys: &[String], name: &str) -> bool {
    let name = name.to_lowercase();
    matches!(keys, [i, n] if (i == "i'm" || i == "im") && *n == name)
        || matches!(keys, [i, am, n] if i == "i" && am == "am" && *n == name)
        || matches!(keys, [my, nm, is, n] if my == "my" && nm == "name" && is == "is" && *n == name)
}

/// The clause with the user as "`name`": "I work" → "Ann works", "my dog" → "Ann's dog".
fn third_person(tokens: &[String], keys: &[String], name: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut named = false;
    let mut conjugate_next = false;
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        let key = keys[i].as_str();
        // Punctuation after the word (a comma inside the clause) stays.
        let tail: String = token.chars().rev().take_while(|c| !c.is_alphanumeric() && *c != '\'').collect();
        let tail: String = tail.chars().rev().collect();
        let mut push = |word: String| out.push(format!("{word}{tail}"));
        match key {
            "i'm" | "im" => {
                push(format!("{name} is"));
                named = true;
            }
            "i've" | "ive" => {
                push(format!("{name} has"));
                named = true;
            }
            "i'd" => {
                push(format!("{name} would"));
                named = true;
            }
            "i'll" => {
                push(format!("{name} will"));
                named = true;
            }
            "i" if keys.get(i + 1).is_some_and(|k| k == "am") => {
                push(format!("{name} is"));
                named = true;
                i += 1;
            }
            "i" => {
                push(name.to_owned());
                named = true;
                conjugate_next = true;
            }
            "my" | "mine" if !named => {
                push(format!("{name}'s"));
                named = true;
            }
            "my" => push("their".to_owned()),
            "mine" => push("theirs".to_owned()),
            "me" => push(name.to_owned()),
            "myself" => push("themself".to_owned()),
            _ if conjugate_next && ADVERBS.contains(&key) => push(token.trim_end_matches(tail.as_str()).to_owned()),
            _ if conjugate_next => {
                conjugate_next = false;
                push(third_person_verb(token.trim_end_matches(tail.as_str())));
            }
            _ => push(token.trim_end_matches(tail.as_str()).to_owned()),
        }
        i += 1;
    }
    out.join(" ")
}

/// A verb after "I" as it goes after "she": "work" → "works", "have" → "has".
fn third_person_verb(verb: &str) -> String {
    let lower = key(verb);
    let irregular = match lower.as_str() {
        "am" => Some("is"),
        "have" => Some("has"),
        "do" => Some("does"),
        "go" => Some("goes"),
        "don't" | "dont" => Some("doesn't"),
        "haven't" | "havent" => Some("hasn't"),
        "wanna" => Some("wants to"),
        "gotta" => Some("has to"),
        "were" => Some("was"),
        "aren't" => Some("isn't"),
        _ => None,
    };
    if let Some(word) = irregular {
        return word.to_owned();
    }
    if UNCHANGED_VERBS.contains(&lower.as_str()) || lower.ends_with("ed") || !lower.chars().all(char::is_alphabetic) {
        return verb.to_owned();
    }
    let ends = |s: &str| lower.ends_with(s);
    if ends("s") || ends("sh") || ends("ch") || ends("x") || ends("z") || ends("o") {
        format!("{verb}es")
    } else if ends("y") && !["ay", "ey", "oy", "uy"].iter().any(|v| lower.ends_with(v)) {
        format!("{}ies", &verb[..verb.len() - 1])
    } else {
        format!("{verb}s")
    }
}

/// A sentence in another language about the user, quoted: the user's own words are what
/// is sure, and the character's model reads them in that language.
fn quoted_statement(sentence: &str, name: &str) -> Option<String> {
    let lower = sentence.to_lowercase();
    let tokens = words(&lower.replace('\'', " "));
    let first_person = tokens.iter().any(|t| FIRST_PERSON_OTHER.contains(&t.as_str()))
        || FIRST_PERSON_CJK.iter().any(|m| lower.contains(m));
    let second_person = tokens.iter().any(|t| SECOND_PERSON.contains(&t.as_str()))
        || SECOND_PERSON_CJK.iter().any(|m| lower.contains(m));
    if !first_person || second_person {
        return None;
    }
    // Something beyond the pronouns: a word of four letters or more, or a run of another script.
    let says_something = tokens.iter().any(|t| {
        (!is_latin(t) && t.chars().count() >= 2)
            || (t.chars().count() >= 4 && !FIRST_PERSON_OTHER.contains(&t.as_str()))
    });
    if !says_something {
        return None;
    }
    let text = sentence.trim();
    let end = if text.chars().last().is_some_and(|c| c.is_alphanumeric()) && is_latin(text) { "." } else { "" };
    Some(format!("{name} said: “{text}{end}”"))
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_statements_become_facts_about_the_user() {
        assert_eq!(
            statements("My dog is called Biscuit and I work as a nurse.", "Ann"),
            ["Ann's dog is called Biscuit", "Ann works as a nurse"]
        );
        assert_eq!(
            statements("I'm Ann, I'm 34, I'm a vet and I live in Oslo with my boyfriend.", "Ann"),
            ["Ann is 34", "Ann is a vet", "Ann lives in Oslo with their boyfriend"]
        );
        assert_eq!(
            statements("I don't have any pets, but I want a rabbit someday.", "Ann"),
            ["Ann doesn't have any pets", "Ann wants a rabbit someday"]
        );
        assert_eq!(statements("Honestly, I hate mornings.", "Ann"), ["Ann hates mornings"]);
        assert_eq!(statements("I drink way too much coffee lol", "Ann"), ["Ann drinks way too much coffee"]);
        assert_eq!(
            statements("I work night shifts at the hospital and my cat Mochi keeps me company.", "Ann"),
            ["Ann works night shifts at the hospital", "Ann's cat Mochi keeps Ann company"]
        );
        assert_eq!(
            statements("I've been running marathons for five years.", "Ann"),
            ["Ann has been running marathons for five years"]
        );
        assert_eq!(statements("I only draw a little.", "Ann"), ["Ann only draws a little"]);
        assert_eq!(statements("I used to be a chef", "Ann"), ["Ann used to be a chef"]);
        assert_eq!(statements("I study law, I fly often", "Ann"), ["Ann studies law", "Ann flies often"]);
    }

    #[test]
    fn questions_small_talk_and_words_about_the_character_are_not_statements() {
        for message in [
            "hey, how are you today?",
            "lol that's so funny",
            "Mia, you said you live in Rome, right?",
            "Oh, you're a painter? That's cool.",
            "I love you",
            "I think so",
            "I'm fine, thanks!",
            "I am so tired",
            "I don't know",
            "Tell me a story about dragons.",
            "Do I have a dog?",
            "*I smile at you* hello",
            "I'm Ann",
        ] {
            assert_eq!(statements(message, "Ann"), Vec::<String>::new(), "{message}");
        }
    }

    #[test]
    fn only_what_is_stated_is_read_for_facts() {
        assert_eq!(stated_part("Do you prefer tea or coffee?"), None);
        assert_eq!(stated_part("do you prefer tea or coffee"), None, "no question mark, still a question");
        assert_eq!(stated_part("I love tea! Do you?").as_deref(), Some("I love tea."));
        assert_eq!(stated_part("*waves* My dog is called Pixel").as_deref(), Some("My dog is called Pixel."));
    }

    #[test]
    fn other_languages_are_quoted_as_said() {
        assert_eq!(
            statements("Ich heiße Jonas und wohne in Hamburg.", "Ann"),
            ["Ann said: “Ich heiße Jonas und wohne in Hamburg.”"]
        );
        assert_eq!(
            statements("Trabajo como profesora en Madrid", "Ann"),
            ["Ann said: “Trabajo como profesora en Madrid.”"]
        );
        assert_eq!(
            statements("J'ai deux enfants, Léo et Chloé.", "Ann"),
            ["Ann said: “J'ai deux enfants, Léo et Chloé.”"]
        );
        assert_eq!(statements("私は東京に住んでいます。", "Ann"), ["Ann said: “私は東京に住んでいます”"]);
        assert!(statements("Bonjour ! Ça va ?", "Ann").is_empty());
        assert!(statements("Wie geht es dir?", "Ann").is_empty());
        assert!(statements("Ich liebe dich", "Ann").is_empty());
    }
}
