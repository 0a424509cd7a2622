//! The language a reply is to be written in: the language of the user's own messages, told
//! to the model after the history ("Antworte auf Deutsch."). A small model otherwise
//! answers a German message in English, since everything else in its prompt is English.
//!
//! Detection is `whatlang`'s (trigram profiles, no model file), limited to the ten
//! languages of the interface so that a short message cannot come out as a language the
//! prompt has no instruction for. A message too short to tell ("ok", "haha") is read
//! together with the user's previous messages; failing that, the user's interface language
//! from settings decides.

use std::sync::OnceLock;

use amora_domain::chat::{HistoryMessage, Speaker};
use whatlang::{Detector, Lang};

/// How many of the user's newest messages are read together when the newest alone does
/// not tell its language.
const MESSAGES_READ_TOGETHER: usize = 3;

/// The ten interface languages, as `whatlang` names them, with their codes.
const LANGUAGES: [(Lang, &str); 10] = [
    (Lang::Eng, "en"),
    (Lang::Deu, "de"),
    (Lang::Spa, "es"),
    (Lang::Fra, "fr"),
    (Lang::Ind, "id"),
    (Lang::Ita, "it"),
    (Lang::Jpn, "ja"),
    (Lang::Kor, "ko"),
    (Lang::Pol, "pl"),
    (Lang::Por, "pt"),
];

fn detector() -> &'static Detector {
    static DETECTOR: OnceLock<Detector> = OnceLock::new();
    DETECTOR.get_or_init(|| Detector::with_allowlist(LANGUAGES.iter().map(|(lang, _)| *lang).collect()))
}

/// Words from which a detection counts even when `whatlang` does not call it reliable: its
/// threshold, meant for telling all 69 languages apart, refuses most one-line English
/// messages among our ten; below this many words ("ok", "Hallo!") the guess is too weak.
const MIN_WORDS: usize = 3;

/// The code (`de`) of the language `text` is written in, when it can be told.
pub fn detect(text: &str) -> Option<&'static str> {
    let info = detector().detect(text)?;
    if !info.is_reliable() && text.split_whitespace().count() < MIN_WORDS {
        return None;
    }
    LANGUAGES.iter().find(|(lang, _)| *lang == info.lang()).map(|(_, code)| *code)
}

/// The language to reply in: the newest user message's, else that of the user's newest
/// few messages read together, else `fallback` (the interface language).
pub fn reply_language<'a>(history: &[HistoryMessage], fallback: &'a str) -> &'a str {
    let mut theirs = history.iter().rev().filter(|m| m.speaker == Speaker::User).map(|m| m.content.as_str());
    let Some(newest) = theirs.next() else { return fallback };
    if let Some(code) = detect(newest) {
        return code;
    }
    let mut together = newest.to_owned();
    for older in theirs.take(MESSAGES_READ_TOGETHER - 1) {
        together.push('\n');
        together.push_str(older);
    }
    detect(&together).unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use amora_domain::chat::EntryId;

    use super::*;

    fn said(texts: &[&str]) -> Vec<HistoryMessage> {
        texts
            .iter()
            .enumerate()
            .map(|(i, text)| HistoryMessage {
                id: EntryId::from_raw(i as i64 + 1),
                speaker: if i % 2 == 0 { Speaker::User } else { Speaker::Character },
                content: (*text).to_owned(),
            })
            .collect()
    }

    #[test]
    fn the_language_of_a_sentence_is_told() {
        for (text, code) in [
            ("Wie heißt du eigentlich, und was machst du beruflich?", "de"),
            ("Comment tu t'appelles et qu'est-ce que tu fais dans la vie ?", "fr"),
            ("¿Cómo te llamas y a qué te dedicas en la vida?", "es"),
            ("What is your name and what do you do for a living?", "en"),
            ("Come ti chiami e che lavoro fai nella vita?", "it"),
            ("Como você se chama e o que você faz da vida?", "pt"),
            ("Jak masz na imię i czym się zajmujesz w życiu?", "pl"),
            ("Siapa namamu dan apa pekerjaanmu sehari-hari?", "id"),
            ("お名前は何ですか？お仕事は何をしていますか？", "ja"),
            ("이름이 뭐예요? 무슨 일을 하세요?", "ko"),
        ] {
            assert_eq!(detect(text), Some(code), "{text}");
        }
    }

    #[test]
    fn a_short_message_is_read_with_the_earlier_ones_and_else_the_interface_language_decides() {
        let history = said(&["Ich arbeite als Krankenschwester in der Nachtschicht.", "Oh, wie spannend!", "ok"]);
        assert_eq!(reply_language(&history, "en"), "de", "the earlier German message tells");
        assert_eq!(reply_language(&said(&["ok"]), "fr"), "fr", "nothing tells: the interface language");
        assert_eq!(reply_language(&said(&["Hallo!"]), "de"), "de");
        assert_eq!(reply_language(&[], "pl"), "pl");
        let switched =
            said(&["Ich arbeite als Krankenschwester.", "Schön!", "Can we speak English from now on, please?"]);
        assert_eq!(reply_language(&switched, "de"), "en", "the newest message wins when it tells");
    }

    #[test]
    fn a_few_words_in_another_language_do_not_switch_the_conversations() {
        let german = said(&[
            "Ich arbeite als Krankenschwester in der Nachtschicht.",
            "Oh, wie spannend!",
            "Okay cool, thanks!",
        ]);
        assert_eq!(reply_language(&german, "en"), "de", "three English words keep a German conversation German");
        assert_eq!(reply_language(&said(&["Hi! How was your day?"]), "en"), "en");
        assert_eq!(reply_language(&said(&["I live in Porto."]), "en"), "en");
        assert_eq!(reply_language(&said(&["Merci !"]), "en"), "en", "one word is no new language");
        let switched = said(&[
            "Ich arbeite als Krankenschwester.",
            "Schön!",
            "Can we speak English from now on, please? My German is not that good.",
        ]);
        assert_eq!(reply_language(&switched, "de"), "en", "a new language once it is clear");
    }
}
