//! Words of facts and messages as the extraction compares them: lower-cased, with function
//! words left out and plural and verb endings cut, so "Ann has a dog named Biscuit" and
//! "Ann's dog is called Biscuit" are the same two words (dog, biscuit).

/// Words that say nothing about what a fact is about: articles, pronouns, auxiliaries,
/// prepositions, and the words facts name things with. English, the language facts are
/// written in (a message in another language is quoted, and its words are its own).
const FUNCTION_WORDS: &[&str] = &[
    "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "being",
    "both", "but", "by", "call", "called", "can", "could", "did", "do", "does", "each", "every", "for", "from", "had",
    "has", "have", "he", "her", "here", "him", "his", "i", "if", "in", "into", "is", "it", "its", "just", "me", "more",
    "most", "my", "name", "named", "no", "not", "of", "on", "or", "our", "out", "over", "really", "said", "she",
    "should", "so", "some", "than", "that", "the", "their", "them", "themself", "then", "there", "these", "they",
    "this", "those", "to", "too", "up", "us", "user", "very", "was", "we", "were", "what", "when", "where", "which",
    "who", "will", "with", "would", "you", "your",
];

/// Latin-script text is compared word by word; other scripts (Japanese, Korean…) have no
/// spaces between words, so their runs are compared as substrings.
pub fn is_latin(word: &str) -> bool {
    word.chars().all(|c| c < '\u{0250}' || !c.is_alphabetic())
}

/// Lower-cased runs of letters and digits; apostrophes inside a word stay ("don't"), a
/// possessive "'s" goes ("ann's" is "ann").
pub fn words(text: &str) -> Vec<String> {
    let lower = text.to_lowercase().replace(['’', '‘'], "'");
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .map(|w| w.strip_suffix("'s").unwrap_or(w))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A word with its plural or third-person "s" cut ("cats" → "cat", "lives" → "live").
pub fn stem(word: &str) -> String {
    let n = word.chars().count();
    if n > 3 && is_latin(word) && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

/// The words of `text` that tell what it is about, stemmed, without function words and
/// without `name` (the user's name, which every fact about them holds).
pub fn content_words(text: &str, name: &str) -> Vec<String> {
    let name = name.to_lowercase();
    let mut out: Vec<String> = Vec::new();
    for word in words(text) {
        if FUNCTION_WORDS.contains(&word.as_str()) || word == name || word.contains('\'') {
            continue;
        }
        let word = stem(&word);
        if !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

/// Whether `word` (of a fact) is in `source` (a message): the same word, or one sharing its
/// first four letters, which covers other endings ("nurse" and "nursing", "work" and
/// "works"). Words of other scripts are looked for anywhere in the message.
pub fn grounded(word: &str, source: &str) -> bool {
    if !is_latin(word) {
        return source.to_lowercase().contains(word);
    }
    words(source).iter().any(|w| {
        let shared = w.chars().zip(word.chars()).take_while(|(a, b)| a == b).count();
        let shorter = w.chars().count().min(word.chars().count());
        shared >= shorter.min(4)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_words_leave_out_function_words_the_name_and_endings() {
        assert_eq!(content_words("Ann's dog is called Biscuit.", "Ann"), ["dog", "biscuit"]);
        assert_eq!(content_words("Ann has a dog named Biscuit", "ann"), ["dog", "biscuit"]);
        assert_eq!(content_words("Ann lives in Oslo with their two cats", "Ann"), ["live", "oslo", "two", "cat"]);
        assert_eq!(content_words("The user doesn't like mornings", "Ann"), ["like", "morning"]);
        assert_eq!(content_words("私は東京に住んでいます。", "Ann"), ["私は東京に住んでいます"]);
    }

    #[test]
    fn a_word_is_grounded_by_itself_or_another_ending() {
        assert!(grounded("nurse", "I work in nursing"));
        assert!(grounded("work", "she works a lot"));
        assert!(grounded("cat", "my two cats"));
        assert!(!grounded("dog", "Mein Hund heißt Bello"));
        assert!(!grounded("cat", "I love cake"));
        assert!(grounded("東京", "私は東京に住んでいます。"));
    }
}
