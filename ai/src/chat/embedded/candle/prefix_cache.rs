//! Prompts the worker has already fed, kept with the model state after them, so that a
//! prompt starting with one of them skips that part of the prefill. The next turn of a
//! conversation starts with the previous turn's prompt (persona, history, last message)
//! and a regenerate repeats it whole; on this CPU prefill costs about 5 ms a token, so a
//! 300-token persona and history would otherwise delay every reply by a second and a half.
//!
//! Only the worker thread touches it. For the model the state is a clone of `ModelWeights`
//! and the logits after the prompt: the KV tensors are shared, never copied (candle makes a
//! new tensor at every append), so a snapshot stays valid while its reply goes on.

use std::collections::VecDeque;

struct Entry<S> {
    tokens: Vec<u32>,
    state: S,
}

/// A cached prompt that a new one starts with.
pub(super) struct Reuse<S> {
    pub state: S,
    /// How many of the new prompt's tokens the state has seen.
    pub fed: usize,
}

pub(super) struct PrefixCache<S> {
    /// Least recently used first.
    entries: VecDeque<Entry<S>>,
    /// Tokens held over all entries, at most `budget`.
    held: usize,
    budget: usize,
}

impl<S: Clone> PrefixCache<S> {
    /// A cache of at most `budget` tokens in all (0 turns it off).
    pub fn new(budget: usize) -> Self {
        Self { entries: VecDeque::new(), held: 0, budget }
    }

    /// The longest cached prompt that `prompt` starts with, if any; it becomes the most
    /// recently used.
    pub fn reuse(&mut self, prompt: &[u32]) -> Option<Reuse<S>> {
        let (index, _) = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| prompt.starts_with(&entry.tokens))
            .max_by_key(|(_, entry)| entry.tokens.len())?;
        let entry = self.entries.remove(index)?;
        let reuse = Reuse { state: entry.state.clone(), fed: entry.tokens.len() };
        self.entries.push_back(entry);
        Some(reuse)
    }

    /// Keeps a prompt just fed. Entries it extends go (it answers for them, so a
    /// conversation holds one entry, its latest turn); then the least recently used go
    /// until the budget holds.
    pub fn keep(&mut self, tokens: &[u32], state: S) {
        if tokens.is_empty() || tokens.len() > self.budget {
            return;
        }
        let held = &mut self.held;
        self.entries.retain(|entry| {
            let covered = tokens.starts_with(&entry.tokens);
            if covered {
                *held -= entry.tokens.len();
            }
            !covered
        });
        self.entries.push_back(Entry { tokens: tokens.to_vec(), state });
        self.held += tokens.len();
        while self.held > self.budget {
            match self.entries.pop_front() {
                Some(evicted) => self.held -= evicted.tokens.len(),
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompts(cache: &PrefixCache<&'static str>) -> Vec<Vec<u32>> {
        cache.entries.iter().map(|entry| entry.tokens.clone()).collect()
    }

    #[test]
    fn the_longest_cached_prefix_is_reused() {
        let mut cache = PrefixCache::new(100);
        cache.keep(&[1, 2], "short");
        cache.keep(&[7, 8, 9], "other");
        assert!(cache.reuse(&[1, 3]).is_none(), "a prompt that parts before the end of an entry");
        let reuse = cache.reuse(&[7, 8, 9, 10]).unwrap_or_else(|| panic!("a prefix"));
        assert_eq!((reuse.state, reuse.fed), ("other", 3));
        let whole = cache.reuse(&[1, 2]).unwrap_or_else(|| panic!("the same prompt"));
        assert_eq!((whole.state, whole.fed), ("short", 2));
    }

    #[test]
    fn a_longer_turn_of_the_same_conversation_replaces_the_earlier_one() {
        let mut cache = PrefixCache::new(100);
        cache.keep(&[1, 2, 3], "turn 1");
        cache.keep(&[5, 6], "someone else");
        cache.keep(&[1, 2, 3, 4, 5], "turn 2");
        assert_eq!(prompts(&cache), [vec![5, 6], vec![1, 2, 3, 4, 5]]);
        assert_eq!(cache.held, 7);
    }

    #[test]
    fn the_least_recently_used_go_past_the_budget_and_oversized_prompts_are_not_kept() {
        let mut cache = PrefixCache::new(6);
        cache.keep(&[1, 1], "a");
        cache.keep(&[2, 2], "b");
        cache.keep(&[3, 3], "c");
        assert!(cache.reuse(&[1, 1, 9]).is_some(), "a is now the most recent");
        cache.keep(&[4, 4], "d");
        assert_eq!(prompts(&cache), [vec![3, 3], vec![1, 1], vec![4, 4]], "b went");
        cache.keep(&[5; 7], "too big");
        assert_eq!(prompts(&cache).len(), 3);
        assert_eq!(cache.held, 6);
        let mut off = PrefixCache::new(0);
        off.keep(&[1], "x");
        assert!(off.reuse(&[1]).is_none());
    }
}
