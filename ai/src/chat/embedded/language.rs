//! What keeps an embedded reply in the language asked for (`ChatRequest::language`): a
//! bias added to the logits of every token, built once per language from the vocabulary.
//!
//! A model as small as SmolLM2-135M, trained mostly on English, drifts into English (or,
//! asked for Japanese, into English or Chinese) whatever the prompt says. So the decoding
//! holds it: a token holding a letter of a script the language is not written in can never
//! be sampled (Latin letters in a Korean reply, kana or Hangul in a German one), and the
//! tokens of English's commonest words ("the", "you", "and") are made much less likely in a
//! reply in another Latin-script language. Emoji are made somewhat less likely everywhere:
//! runs of them are what a small model ends replies with.

/// The bias of a token that must never be sampled (finite, so softmax stays exact).
const NEVER: f32 = -1.0e4;
/// The bias of an English function word in a reply in another Latin-script language.
const ENGLISH_WORD: f32 = -6.0;
/// The bias of a token holding an emoji or pictograph.
const EMOJI: f32 = -2.0;

/// English's commonest words. A token that is one of them, alone (" the", "You"), is made
/// unlikely in a reply in another Latin-script language, unless that language has the same
/// word ([`SHARED_WORDS`]).
const ENGLISH_WORDS: &[&str] = &[
    "the", "and", "you", "your", "you're", "i", "i'm", "i've", "i'll", "is", "are", "to", "of", "it", "it's", "that",
    "this", "with", "for", "my", "me", "have", "what", "was", "be", "so", "just", "can", "do", "we", "will", "would",
    "about", "how", "there", "here", "but", "not", "all", "they", "he", "she", "our", "like", "love", "when", "at",
    "on", "an", "as", "from", "been", "has", "had", "were", "if", "or", "by", "out", "up", "some", "more", "time",
    "really", "know", "think", "great", "hello", "hi", "hey", "oh", "well", "yes", "let", "let's", "want", "feel",
    "day", "today", "too", "very", "always", "thank", "thanks", "please", "sure", "okay", "who", "where", "why",
    "which", "make", "see", "get", "go", "going", "one", "good", "new", "now", "also", "than", "then", "them", "their",
    "could", "should", "did", "don't", "can't", "its", "into", "over", "us", "him", "her", "his", "am",
    // The contractions' second halves, tokens of their own: "I" + "'m", "I" + "'ll".
    "'m", "'ll", "'re", "'ve", "'d", "n't", "’m", "’ll", "’re", "’ve", "glad", "excited", "awesome", "amazing",
];

/// Words of [`ENGLISH_WORDS`] that are also words of the language (so never held against it).
fn shared_words(language: &str) -> &'static [&'static str] {
    match language {
        "de" => &["was", "so", "will", "hi", "hey", "oh", "am", "an", "also", "um", "die", "war"],
        "es" => &["me", "he", "has", "sure", "no", "a"],
        "fr" => &["me", "on", "as", "est"],
        "it" => &["me", "so", "ho", "hi", "oh", "come", "era", "a"],
        "pt" => &["me", "do", "as", "has", "um", "no", "a", "sou"],
        "pl" => &["to", "i", "a", "on", "no", "tak", "mi", "go", "jak", "co", "ale", "do", "we"],
        "id" => &["di", "hi", "oh", "ya", "a"],
        _ => &[],
    }
}

/// What a token's letters are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Kana,
    Han,
    Hangul,
    /// Any other script's letters (Cyrillic, Greek, Arabic, Thai…).
    Other,
    Emoji,
}

/// The script of a code point that is a letter or a pictograph; `None` for digits,
/// punctuation, spaces and symbols, which any language may use.
fn script_of(c: char) -> Option<Script> {
    let code = c as u32;
    Some(match code {
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Script::Kana,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF => Script::Han,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xAC00..=0xD7AF | 0xD7B0..=0xD7FF => Script::Hangul,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF => Script::Emoji,
        _ if c.is_alphabetic() => {
            if c.is_ascii_alphabetic() || (0xC0..=0x24F).contains(&code) || (0x1E00..=0x1EFF).contains(&code) {
                Script::Latin
            } else {
                Script::Other
            }
        }
        _ => return None,
    })
}

/// The script a cut multi-byte character may be in, from the bytes of it a token holds (its
/// first, and its second when there): `None` when it may be in several the languages tell apart.
fn script_of_partial(bytes: &[u8]) -> Option<Script> {
    let lead = *bytes.first()?;
    let second = bytes.get(1).copied();
    match lead {
        // Two bytes: U+0080–U+02FF is Latin (and symbols), past it Greek, Cyrillic, Hebrew, Arabic…
        0xC2..=0xCA => Some(Script::Latin),
        0xCB..=0xDF => Some(Script::Other),
        // U+3000–U+3FFF: CJK punctuation (0x80), kana (0x81–0x83), Hangul jamo (0x84–0x86).
        0xE3 => match second {
            Some(0x81..=0x83) => Some(Script::Kana),
            Some(0x84..=0x86) => Some(Script::Hangul),
            _ => None,
        },
        0xE4..=0xE9 => Some(Script::Han),
        0xEA => match second {
            Some(0xB0..=0xBF) => Some(Script::Hangul),
            _ => None,
        },
        0xEB..=0xED => Some(Script::Hangul),
        0xF0 => match second {
            Some(0x9F) => Some(Script::Emoji),
            Some(0xA0..=0xAF) => Some(Script::Han),
            _ => None,
        },
        _ => None,
    }
}

/// The scripts of the letters in `bytes` (one token's), cut characters at either end included.
fn scripts_in(bytes: &[u8]) -> Vec<Script> {
    let mut scripts = Vec::new();
    let mut rest = bytes;
    // Continuation bytes at the start finish a character begun by the token before.
    while rest.first().is_some_and(|b| (0x80..0xC0).contains(b)) {
        rest = &rest[1..];
    }
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                scripts.extend(text.chars().filter_map(script_of));
                break;
            }
            Err(error) => {
                let (valid, after) = rest.split_at(error.valid_up_to());
                scripts.extend(std::str::from_utf8(valid).unwrap_or_default().chars().filter_map(script_of));
                let cut = error.error_len().unwrap_or(after.len());
                scripts.extend(script_of_partial(&after[..cut]));
                rest = &after[cut..];
            }
        }
    }
    scripts
}

/// Whether text in `script` may be in a reply in `language`.
fn allowed(language: &str, script: Script) -> bool {
    match (language, script) {
        (_, Script::Emoji) => true,
        ("ja", Script::Kana | Script::Han) => true,
        ("ko", Script::Hangul) => true,
        ("ja" | "ko", _) => false,
        (_, Script::Latin) => true,
        _ => false,
    }
}

/// The bias of each token of a vocabulary (`tokens[id]`: the token's bytes, `control[id]`:
/// whether it is a control token, which is never biased) for replies in `language`;
/// `None` for a language this does not know. `strict`: English's common words are never
/// sampled (nor "I", though Polish writes "i"), for a reply written again after one came in
/// English.
pub fn language_bias(tokens: &[Vec<u8>], control: &[bool], language: &str, strict: bool) -> Option<Vec<f32>> {
    if !matches!(language, "en" | "de" | "es" | "fr" | "id" | "it" | "ja" | "ko" | "pl" | "pt") {
        return None;
    }
    let latin_not_english = !matches!(language, "en" | "ja" | "ko");
    let shared = shared_words(language);
    let bias = tokens
        .iter()
        .enumerate()
        .map(|(id, bytes)| {
            if control.get(id).copied().unwrap_or(false) || bytes.is_empty() {
                return 0.0;
            }
            let scripts = scripts_in(bytes);
            if scripts.iter().any(|&s| !allowed(language, s)) {
                return NEVER;
            }
            if scripts.contains(&Script::Emoji) {
                return EMOJI;
            }
            if latin_not_english && let Ok(text) = std::str::from_utf8(bytes) {
                let word = text.trim().to_lowercase();
                if ENGLISH_WORDS.contains(&word.as_str()) && !shared.contains(&word.as_str()) {
                    return if strict { NEVER } else { ENGLISH_WORD };
                }
                if strict && text.trim() == "I" {
                    return NEVER;
                }
            }
            0.0
        })
        .collect();
    Some(bias)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bias_of(language: &str, tokens: &[&str]) -> Vec<f32> {
        let bytes: Vec<Vec<u8>> = tokens.iter().map(|t| t.as_bytes().to_vec()).collect();
        let control = vec![false; bytes.len()];
        language_bias(&bytes, &control, language, false).unwrap_or_else(|| panic!("{language} is known"))
    }

    #[test]
    fn a_token_of_another_script_is_never_sampled() {
        let tokens = [" Hallo", "こんにちは", "漢字", "안녕", "Привет", " 42", "!", "😀", " the"];
        let ja = bias_of("ja", &tokens);
        assert_eq!(ja[..5], [NEVER, 0.0, 0.0, NEVER, NEVER]);
        assert_eq!(ja[5..8], [0.0, 0.0, EMOJI]);
        let ko = bias_of("ko", &tokens);
        assert_eq!(ko[..5], [NEVER, NEVER, NEVER, 0.0, NEVER]);
        let de = bias_of("de", &tokens);
        assert_eq!(de[..5], [0.0, NEVER, NEVER, NEVER, NEVER]);
        assert_eq!(de[8], ENGLISH_WORD, "English's words are unlikely in German");
        assert_eq!(bias_of("en", &tokens)[8], 0.0);
    }

    #[test]
    fn a_word_the_language_shares_with_english_is_not_held_against_it() {
        assert_eq!(bias_of("pl", &[" to", " the"]), [0.0, ENGLISH_WORD]);
        assert_eq!(bias_of("de", &[" was", " and"]), [0.0, ENGLISH_WORD]);
    }

    #[test]
    fn a_strict_bias_never_samples_englishs_common_words() {
        let tokens: Vec<Vec<u8>> =
            [" the", " I", " i", " to", " morze"].iter().map(|t| t.as_bytes().to_vec()).collect();
        let control = vec![false; tokens.len()];
        let strict = language_bias(&tokens, &control, "pl", true).unwrap_or_default();
        assert_eq!(strict, [NEVER, NEVER, 0.0, 0.0, 0.0], "Polish 'i' and 'to' stay, English 'I' goes");
        let lenient = language_bias(&tokens, &control, "pl", false).unwrap_or_default();
        assert_eq!(lenient, [ENGLISH_WORD, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn a_cut_character_counts_by_the_bytes_it_has() {
        // "한" is ED 95 9C; "の" is E3 81 AE; "é" is C3 A9.
        let bytes = vec![vec![0xED, 0x95], vec![0xE3, 0x81], vec![0xC3], vec![0x9C, b'a'], vec![0xE3]];
        let control = vec![false; bytes.len()];
        let ko = language_bias(&bytes, &control, "ko", false).unwrap_or_default();
        assert_eq!(ko, [0.0, NEVER, NEVER, NEVER, 0.0]);
        let fr = language_bias(&bytes, &control, "fr", false).unwrap_or_default();
        assert_eq!(fr, [NEVER, NEVER, 0.0, 0.0, 0.0]);
        assert!(language_bias(&bytes, &control, "xx", false).is_none());
    }
}
