//! A reply's text as it is kept, whatever the model wrote around it: a small model opens
//! with its own name as a speaker label ("Hana Mori: …"), goes on with a line of the
//! user's or a new turn of its own ("\nAnn: Yes…", "\nHana Mori: Hello and welcome…"), and
//! ends with hashtags or a run of emoji, as the chat logs and social posts it learnt from do.

/// What ends a speaker label: "Name:" with a space or the end of the line after it.
const LABEL_END: char = ':';
/// A label is a name of at most this many words ("Hana Mori", "User", "{{user}}").
const LABEL_WORDS: usize = 3;
/// …and of at most this many characters.
const LABEL_CHARS: usize = 32;

/// What opens a model's note about its reply ("Here's a sample response:"), as a chat
/// assistant's habit would have it: the note's first words…
const PREAMBLE_OPENERS: &[&str] =
    &["here's", "here’s", "here is", "sure", "okay", "ok", "certainly", "of course", "alright", "below is"];
/// …and one of these words in it, so that a line of the character's own ending in a colon
/// ("Here's what I think:") stays.
const PREAMBLE_SUBJECTS: &[&str] = &[
    "response",
    "responses",
    "reply",
    "replies",
    "example",
    "sample",
    "answer",
    "message",
    "version",
    "continuation",
    "roleplay",
];
/// A note is one short line: at most this many words.
const PREAMBLE_WORDS: usize = 12;
/// A start with no line break yet is held back as a possible note until this many
/// characters at most.
pub const PREAMBLE_CHARS: usize = 120;

/// Whether `line` is a model's note about the reply that follows, not the reply: a short
/// line ending with a colon that opens like an assistant's answer and names what it
/// introduces ("Here's a sample response:", "Sure! Here is a reply as Hana Mori:"). Seen
/// in a phone journey opening "Here's a sample response:\n\nHi Hana,…".
fn is_preamble(line: &str) -> bool {
    let line = line.trim().trim_matches('*').trim_end();
    line.strip_suffix(':').is_some_and(could_open_a_preamble)
        && line.to_lowercase().split(|c: char| !c.is_alphanumeric()).any(|w| PREAMBLE_SUBJECTS.contains(&w))
}

/// Whether `start`, a line not yet ended, may still become a note (`is_preamble`): it
/// opens like one and is short enough.
pub fn could_open_a_preamble(start: &str) -> bool {
    let start = start.trim_start().trim_start_matches('*');
    let lower = start.to_lowercase();
    let opens = PREAMBLE_OPENERS.iter().any(|opener| {
        lower
            .strip_prefix(opener)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric()))
    });
    opens
        && !start.contains('\n')
        && start.split_whitespace().count() <= PREAMBLE_WORDS
        && start.len() <= PREAMBLE_CHARS
}

/// `text` without a note about the reply on its first line (`is_preamble`): what follows
/// it, nothing when the model stopped there ("Here's a reply as Hana Mori:", cut by the
/// stop string "\nHana Mori:"), which is written again as an empty reply is.
fn without_preamble(text: &str) -> &str {
    let trimmed = text.trim_start();
    let (first, rest) = trimmed.split_once('\n').unwrap_or((trimmed, ""));
    if is_preamble(first) { rest.trim_start() } else { text }
}

/// `text` with a speaker label at its start removed ("Hana Mori: Hi!" → "Hi!"): a label
/// naming `character` (its full name or first name), or `user`; and before it, a note
/// about the reply on a line of its own ("Here's a sample response:").
pub fn without_opening_label<'a>(text: &'a str, character: &str, user: &str) -> &'a str {
    let text = without_preamble(text);
    let trimmed = text.trim_start();
    let Some((label, rest)) = trimmed.split_once(LABEL_END) else { return text };
    let label = label.trim().trim_matches('*');
    let first_name = character.split_whitespace().next().unwrap_or(character);
    let named = [character, first_name, user, "{{char}}", "{{user}}"].iter().any(|n| label.eq_ignore_ascii_case(n));
    // Another name as a label ("Bali: Salaam…", "Sam: Aku…") opens no reply either.
    let a_label = named || opens_with_label(trimmed);
    if a_label && (rest.is_empty() || rest.starts_with(char::is_whitespace)) { rest.trim_start() } else { text }
}

/// Whether `line` opens with a speaker label: one to three words, the first capitalised
/// (or a `{{placeholder}}`), then a colon and a space, the line's end or a smiley's mouth
/// ("Außle:)"). "Note: …" is one too; a reply has no use for such a line either.
fn opens_with_label(line: &str) -> bool {
    let line = line.trim_start().trim_start_matches('*');
    let Some((label, rest)) = line.split_once(LABEL_END) else { return false };
    let words: Vec<&str> = label.split_whitespace().collect();
    let first = words.first().and_then(|w| w.chars().next());
    // "Außle:)" on a line of its own (held-out-5, run 15): a label run into a smiley.
    let smiley = rest.starts_with([')', '(']) && !label.ends_with(char::is_whitespace);
    (rest.is_empty() || rest.starts_with(char::is_whitespace) || smiley)
        && !words.is_empty()
        && words.len() <= LABEL_WORDS
        && label.chars().count() <= LABEL_CHARS
        && (first.is_some_and(char::is_uppercase) || label.trim().starts_with("{{"))
        && words.iter().all(|w| w.chars().all(|c| c.is_alphanumeric() || "{}'’.-_".contains(c)))
}

/// `text` up to the first line, after its first, that opens with a speaker label: what
/// follows is someone's next turn, the user's or the character's own, never this reply;
/// or that is a note about another one ("Here's another version:").
pub fn before_next_speaker(text: &str) -> &str {
    let mut at = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if index > 0 && (opens_with_label(line) || is_preamble(line)) {
            return text[..at].trim_end();
        }
        at += line.len();
    }
    text
}

/// Whether `c` is an emoji or a pictograph, or what joins and varies them.
fn is_emoji(c: char) -> bool {
    matches!(c as u32, 0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0xFE0F | 0x200D)
}

/// `text` without what a post ends with: hashtags ("#stars") and emoji at its end, with
/// the spaces between them. One emoji after a sentence stays ("See you! 😊"); two or more,
/// or any hashtag, go.
pub fn without_tail(text: &str) -> &str {
    let mut end = text.trim_end().len();
    let mut emoji = 0;
    let mut hashtags = 0;
    loop {
        let rest = text[..end].trim_end();
        if let Some(c) = rest.chars().next_back().filter(|&c| is_emoji(c)) {
            emoji += usize::from(c != '\u{FE0F}' && c != '\u{200D}');
            end = rest.len() - c.len_utf8();
            continue;
        }
        // A hashtag: '#' and a word, at the end, with the punctuation after it
        // ("#EuInformadoresBrasils!").
        // (After the character that ends the word, whatever its length in bytes: "–" is three.)
        let whole = rest;
        let rest = rest.trim_end_matches(['!', '.', '?', '…', ')', '"', '”']);
        let word_start = rest
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |(at, c)| at + c.len_utf8());
        let is_word = rest[word_start..].starts_with(char::is_alphabetic);
        if word_start > 0 && is_word && rest[..word_start].ends_with('#') {
            let hash = word_start - 1;
            if hash == 0 || rest[..hash].ends_with(char::is_whitespace) {
                hashtags += 1;
                end = hash;
                continue;
            }
        }
        end = whole.len();
        break;
    }
    if hashtags == 0 && emoji < 2 { text.trim_end() } else { text[..end].trim_end() }
}

/// `text` up to where, inside a line, the character or the user is named as a speaker
/// ("…every day Sofia Marin: Hello and welcome…"): a turn begun without a line break.
pub fn before_named_speaker<'a>(text: &'a str, character: &str, user: &str) -> &'a str {
    let mut cut = text.len();
    for name in [character, user] {
        let label = format!("{}:", name.trim());
        if label.len() < 3 {
            continue;
        }
        let found = text
            .match_indices(&label)
            .map(|(at, _)| at)
            .find(|&at| at > 0 && text[..at].ends_with(|c: char| c.is_whitespace() || ".!?…*\"".contains(c)));
        if let Some(at) = found {
            cut = cut.min(at);
        }
    }
    text[..cut].trim_end()
}

/// Where, inside a line, a sentence opens with a label of one or two capitalised words
/// ("…überwiegen. Noziak: Möjim…", "…tonight. Hana Mori: Welcome…"): a turn of someone
/// the model made up, begun without a line break. `None` when there is none.
pub fn speaker_turn_at(text: &str) -> Option<usize> {
    let ends: Vec<usize> = super::sentence_ends(text);
    ends.into_iter().find_map(|end| {
        let rest = &text[end..];
        let start = end + (rest.len() - rest.trim_start().len());
        let (label, after) = text[start..].split_once(':')?;
        let words: Vec<&str> = label.split(' ').collect();
        let named = !words.is_empty()
            && words.len() <= 2
            && words.iter().all(|w| {
                w.chars().next().is_some_and(char::is_uppercase) && w.chars().all(|c| c.is_alphabetic() || c == '-')
            });
        (start > end && named && after.starts_with(char::is_whitespace)).then_some(start)
    })
}

/// A reply as it is kept: without a speaker label at its start, cut before a next
/// speaker's line or a speaker inside a line (named, or any label after a sentence's end),
/// without a hashtag or emoji tail.
pub fn clean_reply(text: &str, character: &str, user: &str) -> String {
    let text = without_opening_label(text, character, user);
    let text = before_next_speaker(text);
    let text = before_named_speaker(text, character, user);
    // Never cut down to nothing but names: such a reply would be written again as empty.
    let text = speaker_turn_at(text)
        .filter(|&at| !says_only_names(&text[..at], character, user))
        .map_or(text, |at| text[..at].trim_end());
    without_tail(text).to_owned()
}

/// Words that join names ("Hana and"), in the product's languages: between names they say
/// nothing either.
const NAME_JOINERS: &[&str] =
    &["and", "or", "und", "oder", "et", "ou", "y", "o", "e", "i", "и", "или", "と", "和", "그리고"];

/// Whether `text` says nothing but names: the character's or the user's, whole or first,
/// with punctuation or a joining word ("Lena,", "Hana Mori:", "Hana and"). A small model
/// sometimes writes a name and stops at the next speaker's label; such a reply is as good
/// as empty.
pub fn says_only_names(text: &str, character: &str, user: &str) -> bool {
    let names: Vec<String> =
        [character, user].iter().flat_map(|n| n.split_whitespace()).map(str::to_lowercase).collect();
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .all(|w| names.contains(&w) || NAME_JOINERS.contains(&w.as_str()))
}

/// Whether a reply says too little to be one: nothing but names (`says_only_names`), no
/// word at all ("1."), or one word that no sentence end closes ("Injurée,": a small model
/// stopped by a stop string). "Hello." and "はい！" are replies.
pub fn says_too_little(text: &str, character: &str, user: &str) -> bool {
    let text = text.trim();
    let words = text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().any(char::is_alphabetic)).count();
    let cjk = text.chars().any(|c| matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x9FFF | 0xAC00..=0xD7AF));
    let closed = text.ends_with(['.', '!', '?', '…', '。', '！', '？', '~']);
    says_only_names(text, character, user) || words == 0 || (words == 1 && !cjk && !closed)
}

/// How alike two replies are, 0 to 1: the share of word trigrams they have in common
/// (Jaccard). A small model repeats its previous reply nearly word for word.
pub fn likeness(a: &str, b: &str) -> f64 {
    fn trigrams(text: &str) -> std::collections::HashSet<String> {
        let words: Vec<String> =
            text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
        words.windows(3).map(|w| w.join(" ")).collect()
    }
    let (a, b) = (trigrams(a), trigrams(b));
    let union = a.union(&b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(&b).count() as f64 / union as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_at_the_start_goes() {
        assert_eq!(without_opening_label("Hana Mori: The sky is clear.", "Hana Mori", "Ann"), "The sky is clear.");
        assert_eq!(without_opening_label("  Hana: Hi!", "Hana Mori", "Ann"), "Hi!");
        assert_eq!(without_opening_label("*Hana Mori:* Hi!", "Hana Mori", "Ann"), "*Hana Mori:* Hi!");
        assert_eq!(without_opening_label("Sam: Aku senang.", "Hana Mori", "Ann"), "Aku senang.", "any name as a label");
        assert_eq!(without_opening_label("Time: 10:30 it is.", "Hana Mori", "Ann"), "10:30 it is.", "a label too");
        assert_eq!(without_opening_label("At 10:30 we meet.", "Hana Mori", "Ann"), "At 10:30 we meet.");
    }

    #[test]
    fn a_note_about_the_reply_goes_and_a_line_of_the_characters_own_stays() {
        let clean = |text| clean_reply(text, "Hana Mori", "Ann");
        assert_eq!(clean("Here's a sample response:\n\nHi Ann, the dome is open."), "Hi Ann, the dome is open.");
        assert_eq!(clean("Sure! Here is a reply as Hana Mori:\nHana Mori: Hi Ann!"), "Hi Ann!", "then a label");
        assert_eq!(clean("**Here's an example:**\nThe dome is open."), "The dome is open.");
        assert_eq!(
            clean("Of course! Here is a possible reply written as Hana Mori:\nHana Mori: The dome is open, Ann."),
            "The dome is open, Ann."
        );
        assert_eq!(clean("The dome is open.\n\nHere's another version:\nOpen is the dome."), "The dome is open.");
        // The character's own words ending in a colon are the reply.
        assert_eq!(clean("Here's what I think:\nwe should go."), "Here's what I think:\nwe should go.");
        assert_eq!(clean("My answer is simple:\nyes."), "My answer is simple:\nyes.");
        // A note alone says nothing: written again, as an empty reply is.
        assert_eq!(clean("Here's a sample response:"), "");
        assert_eq!(clean("Here's a sample response:\n\n"), "");
        assert!(could_open_a_preamble("Here's a sam"));
        assert!(could_open_a_preamble("Sure"));
        assert!(!could_open_a_preamble("Surely not"));
        assert!(!could_open_a_preamble("Hi Ann, here's a sample"));
        assert!(!could_open_a_preamble("Here's a sample response:\nHi"), "the line ended");
    }

    #[test]
    fn a_next_speakers_line_ends_the_reply() {
        assert_eq!(before_next_speaker("I love it.\nAnn: Yes, that's right."), "I love it.");
        assert_eq!(before_next_speaker("I love it.\n\nHana Mori: Hello and welcome!"), "I love it.");
        assert_eq!(before_next_speaker("Look:\n- Vega\n- Altair"), "Look:\n- Vega\n- Altair");
        assert_eq!(before_next_speaker("Ann: hi"), "Ann: hi", "the first line is not a next turn");
        assert_eq!(before_next_speaker("It was at 10:30.\nWe met then."), "It was at 10:30.\nWe met then.");
        assert_eq!(before_next_speaker("Hi!\n{{user}}: hey"), "Hi!");
        let garbled = "Lena,\n\"Hey Ann,\n<b>Hi!</b>\nAußle:)\nSo kudreres nicht ein Bäuerl zu haben...";
        assert_eq!(before_next_speaker(garbled), "Lena,\n\"Hey Ann,\n<b>Hi!</b>");
        assert_eq!(
            before_next_speaker("Schön!\nSo sehr :)"),
            "Schön!\nSo sehr :)",
            "a smiley after a space is no label"
        );
    }

    #[test]
    fn a_made_up_speaker_inside_a_line_ends_the_reply() {
        let text = "Die Künstlereibung kann überwiegen. Noziak: Möjimbaarfälle, die der bisher";
        assert_eq!(clean_reply(text, "Lena", "Ann"), "Die Künstlereibung kann überwiegen.");
        assert_eq!(clean_reply("Hi there! Hana Mori: Welcome.", "Lena", "Ann"), "Hi there!");
        assert_eq!(speaker_turn_at("We meet at 10:30. Then we go."), None, "a time is no label");
        assert_eq!(speaker_turn_at("My plan is simple. Step one: relax."), None, "a lower-case word: no name");
        assert_eq!(speaker_turn_at("So. Anna Lee: hi"), Some(4));
        assert_eq!(speaker_turn_at("Guess what. my answer: yes."), None, "not capitalised");
        assert_eq!(speaker_turn_at("Noziak: hi"), None, "the reply's start is without_opening_label's");
        let names_only = "Ann! Noziak: come in, the kettle is on.";
        assert_eq!(clean_reply(names_only, "Lena", "Ann"), names_only, "never cut down to nothing but a name");
    }

    #[test]
    fn hashtags_and_emoji_runs_at_the_end_go_and_one_emoji_stays() {
        assert_eq!(without_tail("Look at Vega! #stars #astronomy 😍😍🌟"), "Look at Vega!");
        assert_eq!(without_tail("Lembrar e ver. #EuInformadoresBrasils!"), "Lembrar e ver.");
        assert_eq!(without_tail("Really? Yes!"), "Really? Yes!");
        assert_eq!(without_tail("See you! 😊😊"), "See you!", "the sentence's own mark stays");
        assert_eq!(without_tail("See you tomorrow! 😊"), "See you tomorrow! 😊");
        assert_eq!(without_tail("See you tomorrow! 😊😊"), "See you tomorrow!");
        assert_eq!(without_tail("I love it ❤️❤️"), "I love it");
        assert_eq!(without_tail("We are #1 at this."), "We are #1 at this.");
        assert_eq!(without_tail("Room #4"), "Room #4", "a number is no hashtag");
        assert_eq!(without_tail("Tonight! #nofilter"), "Tonight!");
    }

    #[test]
    fn a_speaker_named_inside_a_line_starts_a_turn_that_is_not_the_reply() {
        let text = "Come see the stars every day Sofia Marin: Hello and welcome!";
        assert_eq!(before_named_speaker(text, "Sofia Marin", "Ann"), "Come see the stars every day");
        assert_eq!(before_named_speaker("Yes! Ann: no.", "Sofia Marin", "Ann"), "Yes!");
        assert_eq!(before_named_speaker("Sofia Marin: hi", "Sofia Marin", "Ann"), "Sofia Marin: hi", "at the start");
        assert_eq!(before_named_speaker("I told Ann:no", "Sofia Marin", "Ann"), "I told", "a name then a colon");
    }

    #[test]
    fn text_of_any_script_is_cleaned_without_a_panic() {
        // A reply ending "… –food" panicked the reply's task (a byte index inside "–").
        assert_eq!(without_tail("We are celebrating –food"), "We are celebrating –food");
        assert_eq!(without_tail("Tonight – #stars"), "Tonight –");
        let samples = [
            "Sofia – Café ☕☕",
            "星がきれい。#夜空 🌟🌟",
            "별이 예뻐요 – #밤",
            "Żółć – #łódź",
            "–",
            "#",
            "😀",
            "a:–",
            "Ann:–b",
            "—#—",
            "\u{200D}#é",
            "x\n– Ann: –",
            "ßẞ #ǅ",
            "Привет #мир 😀😀",
        ];
        for text in samples {
            let _ = clean_reply(text, "Sofia Marin", "Ann");
            let _ = clean_reply(text, "–", "é");
            let _ = likeness(text, "Sofia – Café");
        }
    }

    #[test]
    fn a_reply_of_names_only_says_nothing() {
        assert!(says_only_names("Lena,", "Lena Fischer", "Ann"));
        assert!(says_only_names("  Lena Fischer: Ann!", "Lena Fischer", "Ann"));
        assert!(says_only_names("", "Lena Fischer", "Ann"));
        assert!(!says_only_names("Lena, hi!", "Lena Fischer", "Ann"));
        assert!(says_only_names("Hana and", "Hana Mori", "Ann"), "a name and a joining word");
        assert!(says_only_names("Ann und Hana:", "Hana Mori", "Ann"));
        assert!(!says_only_names("Hana and you", "Hana Mori", "Ann"));
        for little in ["1.", "Injurée,", "(2018) 3:59", "", "Awesome"] {
            assert!(says_too_little(little, "Lena Fischer", "Ann"), "{little}");
        }
        for enough in ["Oh, really?", "はい！", "응.", "Jasne, chodźmy!", "Hello.", "Sure!"] {
            assert!(!says_too_little(enough, "Lena Fischer", "Ann"), "{enough}");
        }
    }

    #[test]
    fn a_reply_is_cleaned_of_all_three() {
        let written = "Hana Mori: The sky is so clear. Look at Vega! #stars 😍😍\nAnn: wow";
        assert_eq!(clean_reply(written, "Hana Mori", "Ann"), "The sky is so clear. Look at Vega!");
    }

    #[test]
    fn replies_alike_word_for_word_are_told() {
        let a = "I love the stars at night, they make me feel so small and happy.";
        let b = "I love the stars at night, they make me feel so small and calm.";
        assert!(likeness(a, b) > 0.6);
        assert!(likeness(a, "Tell me about your day, what did you do?") < 0.1);
        assert!(likeness("", "") == 0.0);
    }
}
