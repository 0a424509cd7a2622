//! Which lorebook entries go into the prompt: the rules of the V2/V3 specs for
//! `character_book`, as the prompt builder needs them.
//!
//! - An enabled entry is active when it is `constant`, or when one of its `keys` appears in
//!   the last `scan_depth` messages (and, when `selective`, its `secondary_keys` agree by
//!   SillyTavern's `selectiveLogic`: any, not all, none, all).
//! - Keys match as whole words when they start and end with a letter or digit (so `Al` does
//!   not fire on "also"), as substrings otherwise; without case unless `case_sensitive`.
//!   SillyTavern's per-entry overrides in `extensions` are honoured: `case_sensitive`,
//!   `match_whole_words` (false: substrings) and `scan_depth`.
//! - `probability` (SillyTavern's random activation) is not applied: the prompt stays
//!   reproducible for the same conversation.
//! - `use_regex` keys are regular expressions (`/pattern/flags` or bare) run by the regex
//!   crate, whose matching is linear in the text and whose compiled size is capped here, so
//!   a card cannot make a key that stalls the server. A key that does not compile matches
//!   nothing. As the V3 spec says, `secondary_keys` are ignored for regex entries.
//! - Over budget, entries are dropped lowest `priority` first (constants last, later
//!   entries first among equals); the rest come back ordered by `insertion_order`.
//! - Not done: `recursive_scanning` (entries activating entries) and V3 `@@decorators`;
//!   both are optional in the spec and their text is left in `content` as written.

use std::collections::BTreeMap;

use regex::RegexBuilder;
use serde_json::Value;

use crate::model::{EntryPosition, Lorebook, LorebookEntry};

/// Regex programs are capped at this many bytes of compiled form (the crate's default is
/// 10 MiB per regex; a thousand entries could otherwise pin a lot of memory).
const REGEX_SIZE_LIMIT: usize = 256 * 1024;

/// Messages scanned when the book sets no `scan_depth`: SillyTavern's default world-info
/// scan depth (the newest message and the one before it).
pub const DEFAULT_SCAN_DEPTH: usize = 2;

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
    let book_depth = book.scan_depth.map_or(scan.default_scan_depth, |d| d as usize);
    // The scanned text per depth, built once for each depth some entry asks for.
    let mut windows: BTreeMap<usize, Haystack> = BTreeMap::new();
    let mut active: Vec<ActiveEntry<'a>> = Vec::new();
    for (index, entry) in book.entries.iter().enumerate() {
        if !entry.enabled {
            continue;
        }
        let on = entry.is_constant() || {
            // SillyTavern keeps per-entry overrides in extensions (null when unset).
            let depth = ext_u64(entry, "scan_depth").map_or(book_depth, |d| d as usize);
            depth > 0 && {
                let text = windows.entry(depth).or_insert_with(|| Haystack::window(recent, depth));
                matches(entry, text)
            }
        };
        if on {
            active.push(ActiveEntry { index, entry, position: entry.position(), tokens: count_tokens(&entry.content) });
        }
    }

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
    /// The last `depth` messages.
    fn window<S: AsRef<str>>(recent: &[S], depth: usize) -> Self {
        let start = recent.len().saturating_sub(depth);
        let exact = recent[start..].iter().map(AsRef::as_ref).collect::<Vec<_>>().join("\n");
        let lower = exact.to_lowercase();
        Self { exact, lower }
    }
}

fn ext_u64(entry: &LorebookEntry, key: &str) -> Option<u64> {
    entry.extensions.get(key).and_then(Value::as_u64)
}

fn ext_bool(entry: &LorebookEntry, key: &str) -> Option<bool> {
    entry.extensions.get(key).and_then(Value::as_bool)
}

/// How one entry's keys compare with the text.
#[derive(Clone, Copy)]
struct KeyRules {
    case_sensitive: bool,
    /// `Some(false)`: always substrings (SillyTavern's `match_whole_words: false`).
    whole_words: Option<bool>,
}

fn matches(entry: &LorebookEntry, text: &Haystack) -> bool {
    let case_sensitive = entry.case_sensitive.or_else(|| ext_bool(entry, "case_sensitive")) == Some(true);
    if entry.use_regex {
        return entry.keys.iter().any(|k| regex_matches(k, case_sensitive, &text.exact));
    }
    let rules = KeyRules { case_sensitive, whole_words: ext_bool(entry, "match_whole_words") };
    if !entry.keys.iter().any(|k| key_matches(k, rules, text)) {
        return false;
    }
    let secondary: Vec<&String> = entry.secondary_keys.iter().flatten().filter(|k| !k.trim().is_empty()).collect();
    if entry.selective != Some(true) || secondary.is_empty() {
        return true;
    }
    let hits = secondary.iter().filter(|k| key_matches(k, rules, text)).count();
    // SillyTavern's world_info_logic: 0 AND ANY (the V2 spec's meaning), 1 NOT ALL, 2 NOT ANY, 3 AND ALL.
    match ext_u64(entry, "selectiveLogic") {
        Some(1) => hits < secondary.len(),
        Some(2) => hits == 0,
        Some(3) => hits == secondary.len(),
        _ => hits > 0,
    }
}

fn key_matches(key: &str, rules: KeyRules, text: &Haystack) -> bool {
    let key = key.trim();
    if key.is_empty() {
        return false;
    }
    let (needle, hay) =
        if rules.case_sensitive { (key.to_owned(), &text.exact) } else { (key.to_lowercase(), &text.lower) };
    let whole_word = rules.whole_words != Some(false)
        && needle.chars().next().is_some_and(char::is_alphanumeric)
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
