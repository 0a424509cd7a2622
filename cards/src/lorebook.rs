//! Which lorebook entries go into the prompt: the rules of the V2/V3 specs for
//! `character_book`, as the prompt builder needs them.
//!
//! - An enabled entry is active when it is `constant`, or when one of its `keys` appears in
//!   the last `scan_depth` messages (and, when `selective`, its `secondary_keys` agree by
//!   SillyTavern's `selectiveLogic`: any, not all, none, all).
//! - Keys match as whole words when they start and end with a letter or digit (so `Al` does
//!   not fire on "also"), as substrings otherwise; without case unless `case_sensitive`.
//! - `use_regex` keys are regular expressions (`/pattern/flags` or bare) run by the regex
//!   crate, whose matching is linear in the text and whose compiled size is capped here, so
//!   a card cannot make a key that stalls the server. A key that does not compile matches
//!   nothing. As the V3 spec says, `secondary_keys` are ignored for regex entries.
//! - Over budget, entries are dropped lowest `priority` first (constants last, later
//!   entries first among equals); the rest come back ordered by `insertion_order`.
//! - Not done: `recursive_scanning` (entries activating entries) and V3 `@@decorators`;
//!   both are optional in the spec and their text is left in `content` as written.

use regex::RegexBuilder;
use serde_json::Value;

use crate::model::{EntryPosition, Lorebook, LorebookEntry};

/// Regex programs are capped at this many bytes of compiled form (the crate's default is
/// 10 MiB per regex; a thousand entries could otherwise pin a lot of memory).
const REGEX_SIZE_LIMIT: usize = 256 * 1024;

/// How far and how much to scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoreScan {
    /// Messages scanned when the book sets no `scan_depth`.
    pub default_scan_depth: usize,
    /// Tokens the entries may take together; the book's own `token_budget`, when smaller, wins.
    pub token_budget: usize,
}

/// An entry going into the prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveEntry<'a> {
    /// Index in `character_book.entries`.
    pub index: usize,
    pub entry: &'a LorebookEntry,
    pub position: EntryPosition,
    /// What the entry's content costs, by the count function given.
    pub tokens: usize,
}

/// The entries to insert, ordered by `insertion_order`. `recent` is the conversation,
/// oldest first; `count_tokens` is the prompt's tokenizer.
pub fn activate<'a, S: AsRef<str>>(
    book: &'a Lorebook,
    recent: &[S],
    scan: LoreScan,
    count_tokens: impl Fn(&str) -> usize,
) -> Vec<ActiveEntry<'a>> {
    let depth = book.scan_depth.map_or(scan.default_scan_depth, |d| d as usize);
    let window: Vec<&str> = recent.iter().rev().take(depth).map(AsRef::as_ref).collect();
    let text = Haystack::new(&window.join("\n"));

    let mut active: Vec<ActiveEntry<'a>> = book
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.enabled && (e.is_constant() || (depth > 0 && matches(e, &text))))
        .map(|(index, entry)| ActiveEntry {
            index,
            entry,
            position: entry.position(),
            tokens: count_tokens(&entry.content),
        })
        .collect();

    let budget = book.token_budget.map_or(scan.token_budget, |b| scan.token_budget.min(b as usize));
    // Most worth keeping first: constants, then higher priority, then earlier in the book.
    active.sort_by(|a, b| {
        b.entry
            .is_constant()
            .cmp(&a.entry.is_constant())
            .then_with(|| number(&b.entry.priority).total_cmp(&number(&a.entry.priority)))
            .then_with(|| a.index.cmp(&b.index))
    });
    let mut total: usize = active.iter().map(|a| a.tokens).sum();
    while total > budget {
        match active.pop() {
            Some(dropped) => total -= dropped.tokens,
            None => break,
        }
    }
    active.sort_by(|a, b| {
        number_or_zero(&a.entry.insertion_order)
            .total_cmp(&number_or_zero(&b.entry.insertion_order))
            .then_with(|| a.index.cmp(&b.index))
    });
    active
}

fn number(n: &Option<serde_json::Number>) -> f64 {
    n.as_ref().and_then(serde_json::Number::as_f64).unwrap_or(0.0)
}

fn number_or_zero(n: &serde_json::Number) -> f64 {
    n.as_f64().unwrap_or(0.0)
}

/// The scanned text, and its lowercase form for the case-insensitive keys.
struct Haystack {
    exact: String,
    lower: String,
}

impl Haystack {
    fn new(text: &str) -> Self {
        Self { exact: text.to_owned(), lower: text.to_lowercase() }
    }
}

fn matches(entry: &LorebookEntry, text: &Haystack) -> bool {
    let case_sensitive = entry.case_sensitive == Some(true);
    if entry.use_regex {
        return entry.keys.iter().any(|k| regex_matches(k, case_sensitive, &text.exact));
    }
    if !entry.keys.iter().any(|k| key_matches(k, case_sensitive, text)) {
        return false;
    }
    let secondary: Vec<&String> = entry.secondary_keys.iter().flatten().filter(|k| !k.trim().is_empty()).collect();
    if entry.selective != Some(true) || secondary.is_empty() {
        return true;
    }
    let hits = secondary.iter().filter(|k| key_matches(k, case_sensitive, text)).count();
    // SillyTavern's world_info_logic: 0 AND ANY (the V2 spec's meaning), 1 NOT ALL, 2 NOT ANY, 3 AND ALL.
    match entry.extensions.get("selectiveLogic").and_then(Value::as_u64) {
        Some(1) => hits < secondary.len(),
        Some(2) => hits == 0,
        Some(3) => hits == secondary.len(),
        _ => hits > 0,
    }
}

fn key_matches(key: &str, case_sensitive: bool, text: &Haystack) -> bool {
    let key = key.trim();
    if key.is_empty() {
        return false;
    }
    let (needle, hay) = if case_sensitive { (key.to_owned(), &text.exact) } else { (key.to_lowercase(), &text.lower) };
    let whole_word = needle.chars().next().is_some_and(char::is_alphanumeric)
        && needle.chars().next_back().is_some_and(char::is_alphanumeric);
    if !whole_word {
        return hay.contains(&needle);
    }
    hay.match_indices(&needle).any(|(at, m)| {
        let before = hay[..at].chars().next_back();
        let after = hay[at + m.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// `/pattern/flags` (SillyTavern's form; flag `i` for no case) or a bare pattern.
fn regex_matches(key: &str, case_sensitive: bool, text: &str) -> bool {
    let (pattern, insensitive) = match key.strip_prefix('/').and_then(|rest| rest.rsplit_once('/')) {
        Some((pattern, flags)) => (pattern, flags.contains('i') || !case_sensitive),
        None => (key, !case_sensitive),
    };
    if pattern.is_empty() {
        return false;
    }
    RegexBuilder::new(pattern)
        .case_insensitive(insensitive)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .is_ok_and(|re| re.is_match(text))
}
