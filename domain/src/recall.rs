//! Recall beyond the window: the words a text is indexed by, and Okapi BM25, which ranks
//! what a conversation holds (the user's earlier messages, the pair's memories) against the
//! user's new message. The stores keep the inverted index (per conversation: each term's
//! postings and each document's length); the scoring is here, once, so both stores rank
//! alike.
//!
//! Why not the `bm25` crate: it embeds and scores documents held in memory with an average
//! length fitted beforehand, and hashes terms into ids; here the documents live in a store,
//! the statistics come from it at every lookup, and the scoring is the few lines below.
//! Its tokenizer (language detection, per-language stemmers and stop-word lists) is more
//! than a lexical recall over chat messages needs, and the domain takes no dependencies.

use std::collections::HashMap;

/// The words a text is indexed and looked up by, in order, repeats kept: lower-cased
/// letters and digits of any script, English stop words left out, a plural `s` and a
/// possessive `'s` taken off. Scripts written without spaces (Chinese, Japanese) give
/// overlapping pairs of characters, which match like words do without a dictionary.
/// Languages other than English keep all their words: common ones weigh little in BM25
/// anyway, because they appear in many documents.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut dense: Vec<char> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_dense(c) {
            flush_word(&mut word, &mut out);
            dense.push(c);
            continue;
        }
        flush_dense(&mut dense, &mut out);
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else if is_apostrophe(c) && !word.is_empty() && chars.peek().is_some_and(|n| n.is_alphanumeric()) {
            // "Ann's", "don't": one word; `normalise` takes the possessive off.
            word.push('\'');
        } else {
            flush_word(&mut word, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_dense(&mut dense, &mut out);
    out
}

/// The distinct terms of a text with how often each occurs, and its length in terms: what
/// the index keeps of a document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TermCounts {
    /// Sorted by term.
    pub counts: Vec<(String, u32)>,
    pub length: u32,
}

pub fn term_counts(text: &str) -> TermCounts {
    let all = terms(text);
    let length = u32::try_from(all.len()).unwrap_or(u32::MAX);
    let mut counts: HashMap<String, u32> = HashMap::new();
    for term in all {
        *counts.entry(term).or_default() += 1;
    }
    let mut counts: Vec<(String, u32)> = counts.into_iter().collect();
    counts.sort();
    TermCounts { counts, length }
}

/// The distinct terms of a query, in the order they first occur, at most `MAX_QUERY_TERMS`.
pub fn query_terms(text: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for term in terms(text) {
        if !seen.contains(&term) {
            seen.push(term);
        }
        if seen.len() == MAX_QUERY_TERMS {
            break;
        }
    }
    seen
}

/// A message of 2,000 characters has a few hundred terms; a lookup reads the postings of
/// the first this many distinct ones.
pub const MAX_QUERY_TERMS: usize = 32;

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}')
}

/// Characters of scripts written without spaces between words.
fn is_dense(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x0E00..=0x0E7F    // Thai
        | 0x20000..=0x2FFFF) // CJK Extensions B–F
}

fn flush_word(word: &mut String, out: &mut Vec<String>) {
    if word.is_empty() {
        return;
    }
    let taken = std::mem::take(word);
    if let Some(term) = normalise(&taken) {
        out.push(term);
    }
}

fn flush_dense(run: &mut Vec<char>, out: &mut Vec<String>) {
    match run.len() {
        0 => {}
        1 => out.push(run[0].to_string()),
        _ => out.extend(run.windows(2).map(|pair| pair.iter().collect::<String>())),
    }
    run.clear();
}

/// A lower-cased word as a term, or `None` for a stop word or a lone letter.
fn normalise(word: &str) -> Option<String> {
    let word = word.strip_suffix("'s").unwrap_or(word);
    let word = word.trim_end_matches('\'');
    if word.chars().count() < 2 && !word.chars().all(|c| c.is_numeric()) {
        return None;
    }
    if STOP_WORDS.binary_search(&word).is_ok() {
        return None;
    }
    Some(stem(word))
}

/// Light stemming: a plural's `s` (`dogs` → `dog`, `stories` → `story`). Documents and
/// queries are stemmed alike, so a wrong cut only merges two words, never loses one.
fn stem(word: &str) -> String {
    if word.chars().count() <= 3 || !word.is_ascii() {
        return word.to_owned();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return word.to_owned();
    }
    word.strip_suffix('s').unwrap_or(word).to_owned()
}

/// English function words, sorted (a test checks) for `binary_search`; contractions are
/// written without the apostrophe's tail (`don't` is `don't`).
const STOP_WORDS: &[&str] = &[
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "can't",
    "could",
    "did",
    "didn't",
    "do",
    "does",
    "doesn't",
    "doing",
    "don't",
    "down",
    "during",
    "each",
    "even",
    "few",
    "for",
    "from",
    "further",
    "get",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i'd",
    "i'll",
    "i'm",
    "i've",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "it'll",
    "its",
    "itself",
    "just",
    "let",
    "let's",
    "me",
    "more",
    "most",
    "much",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "oh",
    "ok",
    "okay",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "really",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "wasn't",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "won't",
    "would",
    "yeah",
    "yes",
    "you",
    "you'd",
    "you'll",
    "you're",
    "you've",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// How big a collection of documents is: how many, and their total length in terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CollectionSize {
    pub docs: u64,
    pub length: u64,
}

/// One document's entry in one term's postings: how often the term occurs in it and how
/// long the document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting<Id> {
    pub doc: Id,
    pub count: u32,
    pub length: u32,
}

/// BM25's usual parameters: term frequency saturates around `K1`, and `B` says how much a
/// long document is penalised.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Ranks documents by Okapi BM25: for each query term (its postings given, one list per
/// distinct term), `idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avgdl))`, with the idf that
/// never goes negative, `ln(1 + (N − n + 0.5)/(n + 0.5))`. Answers the documents with a
/// score of at least `min_score`, best first (ties: the later id first).
pub fn bm25<Id: Copy + Ord + std::hash::Hash>(
    size: CollectionSize,
    postings: &[Vec<Posting<Id>>],
    min_score: f64,
) -> Vec<(Id, f64)> {
    if size.docs == 0 {
        return Vec::new();
    }
    let docs = size.docs as f64;
    let average = (size.length as f64 / docs).max(1.0);
    let mut scores: HashMap<Id, f64> = HashMap::new();
    for list in postings {
        let with_term = list.len() as f64;
        let idf = (1.0 + (docs - with_term + 0.5) / (with_term + 0.5)).ln();
        for posting in list {
            let tf = f64::from(posting.count);
            let norm = K1 * (1.0 - B + B * f64::from(posting.length) / average);
            *scores.entry(posting.doc).or_default() += idf * tf * (K1 + 1.0) / (tf + norm);
        }
    }
    let mut ranked: Vec<(Id, f64)> = scores.into_iter().filter(|(_, score)| *score >= min_score).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    ranked
}

/// The part of a long text worth recalling: its sentences that hold one of `wanted` (terms
/// of the query), in order, joined by " … "; the whole text when `fits` it. `None` when not
/// even the matching sentences fit.
pub fn excerpt(text: &str, wanted: &[String], fits: impl Fn(&str) -> bool) -> Option<String> {
    let text = text.trim();
    if fits(text) {
        return Some(text.to_owned());
    }
    let mut kept: Vec<&str> = Vec::new();
    for sentence in sentences(text) {
        if terms(sentence).iter().any(|t| wanted.contains(t)) {
            let mut trial = kept.clone();
            trial.push(sentence);
            if fits(&trial.join(" … ")) {
                kept = trial;
            }
        }
    }
    (!kept.is_empty()).then(|| kept.join(" … "))
}

/// A text cut after `.`, `!`, `?` (and their full-width forms) and at line breaks, trimmed.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n') {
            let end = at + c.len_utf8();
            out.push(text[start..end].trim());
            start = end;
        }
    }
    out.push(text[start..].trim());
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]), "{:?}", STOP_WORDS.windows(2).find(|w| w[0] >= w[1]));
    }

    #[test]
    fn terms_are_lower_cased_words_without_stop_words_and_plurals() {
        assert_eq!(
            terms("My dog is called Biscuit, and I work as a NURSE!"),
            ["dog", "called", "biscuit", "work", "nurse"]
        );
        assert_eq!(terms("Ann's dogs' stories; she's 29 in 2024"), ["ann", "dog", "story", "29", "2024"]);
        assert_eq!(
            terms("Ich heiße Jürgen und wohne in München"),
            ["ich", "heiße", "jürgen", "und", "wohne", "münchen"]
        );
        assert_eq!(terms("glass bus"), ["glass", "bus"], "no plural cut where the word ends in ss or us");
        assert!(terms("... !!! a I").is_empty());
    }

    #[test]
    fn scripts_without_spaces_give_pairs_of_characters() {
        assert_eq!(
            terms("犬の名前はビスケット"),
            ["犬の", "の名", "名前", "前は", "はビ", "ビス", "スケ", "ケッ", "ット"]
        );
        assert_eq!(terms("我 爱"), ["我", "爱"]);
        assert_eq!(terms("나는 간호사야"), ["나는", "간호사야"], "Hangul is written with spaces");
        let query = query_terms("名前は何？");
        assert!(query.contains(&"名前".to_owned()), "{query:?}");
    }

    #[test]
    fn counts_and_query_terms() {
        let counts = term_counts("Biscuit chased the biscuit tin. Biscuits!");
        assert_eq!(counts.length, 5);
        assert_eq!(counts.counts, [("biscuit".to_owned(), 3), ("chased".to_owned(), 1), ("tin".to_owned(), 1)]);
        assert_eq!(query_terms("dog dog cat dog"), ["dog", "cat"]);
        let long = (0..100).map(|i| format!("word{i}")).collect::<Vec<_>>().join(" ");
        assert_eq!(query_terms(&long).len(), MAX_QUERY_TERMS);
    }

    fn posting(doc: u32, count: u32, length: u32) -> Posting<u32> {
        Posting { doc, count, length }
    }

    #[test]
    fn bm25_prefers_rare_terms_more_occurrences_and_shorter_documents() {
        let size = CollectionSize { docs: 10, length: 100 };
        // "biscuit" is in doc 1 only; "dog" in docs 1, 2, 3, 4, 5.
        let biscuit = vec![posting(1, 1, 10)];
        let dog = vec![posting(1, 1, 10), posting(2, 1, 10), posting(3, 2, 10), posting(4, 1, 30), posting(5, 1, 5)];
        let ranked = bm25(size, &[biscuit, dog.clone()], 0.0);
        assert_eq!(ranked[0].0, 1, "both terms, one of them rare: {ranked:?}");
        let by_dog = bm25(size, &[dog], 0.0);
        let order: Vec<u32> = by_dog.iter().map(|(doc, _)| *doc).collect();
        assert_eq!(order[0], 3, "twice beats once: {by_dog:?}");
        assert_eq!(order[1], 5, "the shortest next");
        assert_eq!(order[4], 4, "the longest last");
        assert_eq!(order[2..4], [2, 1], "ties: the later id first");
        // A term in every document weighs almost nothing; nothing scores without documents.
        let everywhere: Vec<Posting<u32>> = (0..10).map(|d| posting(d, 1, 10)).collect();
        assert!(bm25(size, &[everywhere], 0.5).is_empty());
        assert!(bm25(CollectionSize::default(), &[vec![posting(1, 1, 1)]], 0.0).is_empty());
    }

    #[test]
    fn a_long_text_is_cut_to_its_sentences_that_match() {
        let fits = |limit: usize| move |text: &str| text.split_whitespace().count() <= limit;
        let text = "I had a long day at work. My dog is called Biscuit! He loves the beach. The nurse shift was hard.";
        let wanted = vec!["dog".to_owned(), "nurse".to_owned()];
        assert_eq!(excerpt(text, &wanted, fits(100)).as_deref(), Some(text));
        assert_eq!(
            excerpt(text, &wanted, fits(12)).as_deref(),
            Some("My dog is called Biscuit! … The nurse shift was hard.")
        );
        assert_eq!(excerpt(text, &wanted, fits(6)).as_deref(), Some("My dog is called Biscuit!"));
        assert_eq!(excerpt(text, &wanted, fits(2)), None);
    }
}
