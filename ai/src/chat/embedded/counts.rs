//! Token counts of the texts counted lately. A chat turn counts the same texts again and
//! again: the prompt is assembled three times (recall, then the reply; lore is chosen by
//! counting too), and every turn counts the conversation's history once more. Tokenizing
//! with the GGUF's byte-level BPE costs ~1 ms per thousand tokens here, which made the
//! prompt's assembly most of the server's added latency per turn (BENCHMARKS.md, "Two
//! nodes"). Counts are kept by a keyed hash of the text in two generations: when the
//! newer fills up, the older is dropped and the newer takes its place, so what was used
//! in the last two generations stays and memory stays bounded.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;

/// Texts a generation holds (two are kept: at most twice this many counts, ~400 KiB).
const PER_GENERATION: usize = 8192;

pub struct RecentCounts {
    /// Keyed per process, so no one can write two texts that share a slot on purpose.
    hasher: RandomState,
    generations: Mutex<Generations>,
    per_generation: usize,
}

#[derive(Default)]
struct Generations {
    newer: HashMap<u64, usize>,
    older: HashMap<u64, usize>,
}

impl Generations {
    fn insert(&mut self, key: u64, count: usize, per_generation: usize) {
        if self.newer.len() >= per_generation {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(key, count);
    }
}

impl Default for RecentCounts {
    fn default() -> Self {
        Self::with_capacity(PER_GENERATION)
    }
}

impl RecentCounts {
    fn with_capacity(per_generation: usize) -> Self {
        Self { hasher: RandomState::new(), generations: Mutex::default(), per_generation: per_generation.max(1) }
    }

    /// `text`'s count as `count` gives it, counted only when it was not counted lately.
    pub fn get_or_count(&self, text: &str, count: impl FnOnce(&str) -> usize) -> usize {
        let key = self.hasher.hash_one(text);
        if let Ok(mut generations) = self.generations.lock() {
            if let Some(&known) = generations.newer.get(&key) {
                return known;
            }
            // Used again: it moves to the newer generation, to outlive the older.
            if let Some(known) = generations.older.remove(&key) {
                generations.insert(key, known, self.per_generation);
                return known;
            }
        }
        // Counted outside the lock: other replies' counts do not wait for this one.
        let counted = count(text);
        if let Ok(mut generations) = self.generations.lock() {
            generations.insert(key, counted, self.per_generation);
        }
        counted
    }

    #[cfg(test)]
    fn held(&self) -> usize {
        self.generations.lock().map(|g| g.newer.len() + g.older.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[test]
    fn a_text_counted_lately_is_not_counted_again() {
        let counts = RecentCounts::default();
        let calls = Cell::new(0);
        let count = |text: &str| {
            calls.set(calls.get() + 1);
            text.split_whitespace().count()
        };
        assert_eq!(counts.get_or_count("one two three", count), 3);
        assert_eq!(counts.get_or_count("one two three", count), 3);
        assert_eq!(counts.get_or_count("one two", count), 2);
        assert_eq!(calls.get(), 2, "the repeated text was counted once");
    }

    #[test]
    fn memory_stays_bounded_and_what_is_in_use_stays() {
        let counts = RecentCounts::with_capacity(4);
        let calls = Cell::new(0);
        let count = |text: &str| {
            calls.set(calls.get() + 1);
            text.len()
        };
        counts.get_or_count("kept", count);
        for n in 0..100 {
            counts.get_or_count(&format!("text {n}"), count);
            // The system message of every turn: used all along, never counted again.
            counts.get_or_count("kept", count);
            assert!(counts.held() <= 8, "two generations of four at most, held {}", counts.held());
        }
        assert_eq!(calls.get(), 101, "each new text once, and the one in use once");
        // An old text was let go and is counted again.
        counts.get_or_count("text 0", count);
        assert_eq!(calls.get(), 102);
    }
}
