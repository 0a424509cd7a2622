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
//! - `use_regex` keys are regular expressions (`/pattern/flags`, SillyTavern's form, or
//!   bare) run by the regex crate, whose matching is linear in the text. A key the crate
//!   cannot read (JavaScript's look-around, say) matches nothing, as in SillyTavern when a
//!   pattern does not parse. As the V3 spec says, `secondary_keys` are ignored for regex
//!   entries.
//! - Cost is bounded (issue 28: a card of 22,500 regex keys, compiled at every scan, held
//!   the chat engine for a minute): a [`CompiledLorebook`] compiles its keys once, when the
//!   card is read, and is scanned as often as needed; import ([`check`]) refuses a book of
//!   more keys or regex keys than [`Limits`] allow, a regex key longer than
//!   `max_regex_key_bytes` or compiling past `max_regex_compiled_bytes`; a scan may be given
//!   a time budget, past which only constant entries are taken.
//! - Over budget, entries are dropped lowest `priority` first (constants last, later
//!   entries first among equals); the rest come back ordered by `insertion_order`.
//! - Not done: `recursive_scanning` (entries activating entries) and V3 `@@decorators`;
//!   both are optional in the spec and their text is left in `content` as written.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use regex::{Regex, RegexBuilder};
use serde_json::Value;

use crate::error::CardError;
use crate::limits::Limits;
use crate::model::{EntryPosition, Lorebook, LorebookEntry};

/// The lazy DFA's cache for one regex (the crate's default is 2 MiB). Past it the crate
/// falls back to slower engines that are still linear in the text.
const REGEX_DFA_LIMIT: usize = 256 * 1024;

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

/// What one scan found.
#[derive(Debug, Clone, PartialEq)]
pub struct Scanned<'a> {
    /// The entries to insert, ordered by `insertion_order`.
    pub entries: Vec<ActiveEntry<'a>>,
    /// The time budget ran out before every keyed entry was looked at: those left were not
    /// taken (constant entries always are).
    pub out_of_time: bool,
}

/// A key left out of a [`CompiledLorebook`], and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedKey {
    /// `character_book.entries[3].keys[1]`.
    pub path: String,
    pub reason: String,
}

/// A lorebook ready to scan: its regex keys compiled and its plain keys prepared, once,
/// when the card is read (the chat keeps it with the character, per card version).
#[derive(Debug)]
pub struct CompiledLorebook {
    book: Lorebook,
    prepared: Vec<Prepared>,
    skipped: Vec<SkippedKey>,
}

impl CompiledLorebook {
    /// Compiles `book` within `limits`. A card imported since the limits exist is within
    /// them ([`check`]); of one stored before, the keys past `max_regex_keys` or
    /// `max_lorebook_keys` and those too big to compile are left out ([`Self::skipped`]).
    pub fn new(book: Lorebook, limits: &Limits) -> Self {
        let (prepared, skipped) = prepare(&book, limits);
        Self { book, prepared, skipped }
    }

    pub fn book(&self) -> &Lorebook {
        &self.book
    }

    /// The keys left out, and why (for the log).
    pub fn skipped(&self) -> &[SkippedKey] {
        &self.skipped
    }

    /// The compiled regex keys it holds.
    pub fn regex_keys(&self) -> usize {
        self.prepared.iter().map(|p| if let Keys::Regex(keys) = &p.keys { keys.len() } else { 0 }).sum()
    }

    /// The entries to insert for a chat whose messages are `recent` (oldest first), within
    /// `time_budget` when one is given; `count_tokens` is the prompt's tokenizer.
    pub fn scan<S: AsRef<str>>(
        &self,
        recent: &[S],
        scan: LoreScan,
        time_budget: Option<Duration>,
        count_tokens: impl Fn(&str) -> usize,
    ) -> Scanned<'_> {
        let deadline = time_budget.map(|budget| Instant::now() + budget);
        scan_prepared(&self.book, &self.prepared, recent, scan, deadline, count_tokens)
    }
}

/// The entries to insert, ordered by `insertion_order`. `recent` is the conversation,
/// oldest first; `count_tokens` is the prompt's tokenizer. Compiles the book's keys at each
/// call: what scans a book more than once holds a [`CompiledLorebook`] instead.
pub fn activate<'a, S: AsRef<str>>(
    book: &'a Lorebook,
    recent: &[S],
    scan: LoreScan,
    count_tokens: impl Fn(&str) -> usize,
) -> Vec<ActiveEntry<'a>> {
    let (prepared, _) = prepare(book, &Limits::default());
    scan_prepared(book, &prepared, recent, scan, None, count_tokens).entries
}

/// Whether an imported book is within `limits`: how many keys and regex keys it has, and
/// each regex key's length and compiled size (compiled here, then dropped). A regex key
/// the crate cannot read is not refused: it matches nothing, as in SillyTavern.
pub fn check(book: &Lorebook, limits: &Limits) -> Result<(), CardError> {
    let regex_keys: usize = book.entries.iter().filter(|e| e.use_regex).map(|e| e.keys.len()).sum();
    if regex_keys > limits.max_regex_keys {
        return Err(CardError::TooManyRegexKeys { count: regex_keys, limit: limits.max_regex_keys });
    }
    let keys: usize = book.entries.iter().map(|e| e.keys.len() + e.secondary_keys.as_ref().map_or(0, Vec::len)).sum();
    if keys > limits.max_lorebook_keys {
        return Err(CardError::TooManyLorebookKeys { count: keys, limit: limits.max_lorebook_keys });
    }
    for (e, entry) in book.entries.iter().enumerate().filter(|(_, e)| e.use_regex) {
        let case_sensitive = case_sensitive(entry);
        for (k, key) in entry.keys.iter().enumerate() {
            compile_key(key, case_sensitive, limits)
                .map_err(|reason| CardError::RegexTooLarge { path: key_path(e, k), reason })?;
        }
    }
    Ok(())
}

fn key_path(entry: usize, key: usize) -> String {
    format!("character_book.entries[{entry}].keys[{key}]")
}

/// One entry's keys, ready to look for.
#[derive(Debug)]
struct Prepared {
    keys: Keys,
    /// The entry's own `scan_depth` (SillyTavern's override in `extensions`).
    depth: Option<usize>,
}

#[derive(Debug)]
enum Keys {
    /// Constant or disabled: nothing to look for.
    None,
    Plain {
        case_sensitive: bool,
        keys: Vec<Needle>,
        /// Only when `selective`, with SillyTavern's `selectiveLogic`.
        secondary: Option<(Vec<Needle>, Option<u64>)>,
    },
    Regex(Vec<Regex>),
}

/// A plain key: trimmed, lowercased unless the entry is case-sensitive.
#[derive(Debug)]
struct Needle {
    text: String,
    whole_word: bool,
}

fn prepare(book: &Lorebook, limits: &Limits) -> (Vec<Prepared>, Vec<SkippedKey>) {
    let mut skipped = Vec::new();
    let (mut keys_left, mut regex_left) = (limits.max_lorebook_keys, limits.max_regex_keys);
    let mut prepared = Vec::with_capacity(book.entries.len());
    for (e, entry) in book.entries.iter().enumerate() {
        let depth = ext_u64(entry, "scan_depth").map(|d| d as usize);
        if !entry.enabled || entry.is_constant() {
            prepared.push(Prepared { keys: Keys::None, depth });
            continue;
        }
        let case_sensitive = case_sensitive(entry);
        let keys = if entry.use_regex {
            let mut regexes = Vec::with_capacity(entry.keys.len());
            for (k, key) in entry.keys.iter().enumerate() {
                if regex_left == 0 || keys_left == 0 {
                    skipped.push(SkippedKey { path: key_path(e, k), reason: "over the lorebook's key limits".into() });
                    continue;
                }
                regex_left -= 1;
                keys_left -= 1;
                match compile_key(key, case_sensitive, limits) {
                    Ok(Some(regex)) => regexes.push(regex),
                    Ok(None) => {}
                    Err(reason) => skipped.push(SkippedKey { path: key_path(e, k), reason }),
                }
            }
            Keys::Regex(regexes)
        } else {
            let whole_words = ext_bool(entry, "match_whole_words");
            let mut needles = |keys: &[String], what: &str, skipped: &mut Vec<SkippedKey>| -> Vec<Needle> {
                let mut out = Vec::new();
                for (k, key) in keys.iter().enumerate() {
                    if keys_left == 0 {
                        let path = format!("character_book.entries[{e}].{what}[{k}]");
                        skipped.push(SkippedKey { path, reason: "over the lorebook's key limits".into() });
                        continue;
                    }
                    keys_left -= 1;
                    out.extend(needle(key, case_sensitive, whole_words));
                }
                out
            };
            let keys = needles(&entry.keys, "keys", &mut skipped);
            let secondary = (entry.selective == Some(true))
                .then(|| needles(entry.secondary_keys.as_deref().unwrap_or_default(), "secondary_keys", &mut skipped))
                .filter(|secondary| !secondary.is_empty())
                .map(|secondary| (secondary, ext_u64(entry, "selectiveLogic")));
            Keys::Plain { case_sensitive, keys, secondary }
        };
        prepared.push(Prepared { keys, depth });
    }
    (prepared, skipped)
}

fn needle(key: &str, case_sensitive: bool, whole_words: Option<bool>) -> Option<Needle> {
    let key = key.trim();
    if key.is_empty() {
        return None;
    }
    let text = if case_sensitive { key.to_owned() } else { key.to_lowercase() };
    let whole_word = whole_words != Some(false)
        && text.chars().next().is_some_and(char::is_alphanumeric)
        && text.chars().next_back().is_some_and(char::is_alphanumeric);
    Some(Needle { text, whole_word })
}

fn scan_prepared<'a, S: AsRef<str>>(
    book: &'a Lorebook,
    prepared: &[Prepared],
    recent: &[S],
    scan: LoreScan,
    deadline: Option<Instant>,
    count_tokens: impl Fn(&str) -> usize,
) -> Scanned<'a> {
    let book_depth = book.scan_depth.map_or(scan.default_scan_depth, |d| d as usize);
    // The scanned text per depth, built once for each depth some entry asks for.
    let mut windows: BTreeMap<usize, Haystack> = BTreeMap::new();
    let mut active: Vec<ActiveEntry<'a>> = Vec::new();
    let mut out_of_time = false;
    for ((index, entry), prepared) in book.entries.iter().enumerate().zip(prepared) {
        if !entry.enabled {
            continue;
        }
        let on = entry.is_constant() || {
            out_of_time = out_of_time || deadline.is_some_and(|deadline| Instant::now() >= deadline);
            let depth = prepared.depth.unwrap_or(book_depth);
            !out_of_time && depth > 0 && {
                let text = windows.entry(depth).or_insert_with(|| Haystack::window(recent, depth));
                matches(&prepared.keys, text)
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
    Scanned { entries: active, out_of_time }
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

fn case_sensitive(entry: &LorebookEntry) -> bool {
    // SillyTavern keeps per-entry overrides in extensions (null when unset).
    entry.case_sensitive.or_else(|| ext_bool(entry, "case_sensitive")) == Some(true)
}

fn matches(keys: &Keys, text: &Haystack) -> bool {
    match keys {
        Keys::None => false,
        Keys::Regex(regexes) => regexes.iter().any(|re| re.is_match(&text.exact)),
        Keys::Plain { case_sensitive, keys, secondary } => {
            let hay = if *case_sensitive { &text.exact } else { &text.lower };
            if !keys.iter().any(|k| key_matches(k, hay)) {
                return false;
            }
            let Some((secondary, logic)) = secondary else {
                return true;
            };
            let hits = secondary.iter().filter(|k| key_matches(k, hay)).count();
            // SillyTavern's world_info_logic: 0 AND ANY (the V2 spec's meaning), 1 NOT ALL, 2 NOT ANY, 3 AND ALL.
            match logic {
                Some(1) => hits < secondary.len(),
                Some(2) => hits == 0,
                Some(3) => hits == secondary.len(),
                _ => hits > 0,
            }
        }
    }
}

fn key_matches(needle: &Needle, hay: &str) -> bool {
    let needle_text = needle.text.as_str();
    if !needle.whole_word {
        return hay.contains(needle_text);
    }
    hay.match_indices(needle_text).any(|(at, m)| {
        let before = hay[..at].chars().next_back();
        let after = hay[at + m.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// A regex key compiled: `/pattern/flags` (SillyTavern's form; flag `i` for no case) or a
/// bare pattern. `Ok(None)` for a key that matches nothing (empty, or a pattern the crate
/// cannot read); `Err` with the reason for one over the size limits.
fn compile_key(key: &str, case_sensitive: bool, limits: &Limits) -> Result<Option<Regex>, String> {
    if key.len() > limits.max_regex_key_bytes {
        return Err(format!("the regex key is {} bytes, over the limit of {}", key.len(), limits.max_regex_key_bytes));
    }
    let (pattern, insensitive) = match key.strip_prefix('/').and_then(|rest| rest.rsplit_once('/')) {
        Some((pattern, flags)) => (pattern, flags.contains('i') || !case_sensitive),
        None => (key, !case_sensitive),
    };
    if pattern.is_empty() {
        return Ok(None);
    }
    COMPILED.with(|n| n.set(n.get() + 1));
    match RegexBuilder::new(pattern)
        .case_insensitive(insensitive)
        .size_limit(limits.max_regex_compiled_bytes)
        .dfa_size_limit(REGEX_DFA_LIMIT)
        .build()
    {
        Ok(regex) => Ok(Some(regex)),
        Err(regex::Error::CompiledTooBig(limit)) => {
            Err(format!("the regex compiles to more than {limit} bytes (a pattern like (a{{1000}}){{1000}})"))
        }
        Err(_) => Ok(None),
    }
}

thread_local! {
    static COMPILED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Regex keys compiled so far on the calling thread (a thread's own count, so tests
/// running side by side do not see each other's).
pub fn regex_compilations_on_this_thread() -> u64 {
    COMPILED.with(std::cell::Cell::get)
}
