//! Merging new facts with what a character knows, so memories do not pile up: a fact whose
//! content words are all in a memory already (or nearly all, by overlap) adds nothing; a
//! fact that holds all of an extracted memory's words and more replaces it ("Ann has a
//! dog" + "Ann's dog is called Biscuit" → the second only), when what it adds is in the
//! user's words (a small model extended "Ann has a cat named Tom" to "…, which is a symbol
//! of Lyon"). Memories the user wrote or edited are never replaced: a fact beside one is
//! only skipped or added.

use amora_domain::chat::MemoryId;
use amora_store::{Memory, MemoryOrigin};

use super::words::{content_words, grounded};

/// Two facts sharing this share of their content words (Jaccard) say the same.
const SAME_OVERLAP: f64 = 0.6;

/// What to do with a new fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryChange {
    /// Store it as a new memory.
    Add(String),
    /// Store it as a new memory and delete `old`, which it says more than.
    Replace { old: Vec<MemoryId>, content: String },
}

impl MemoryChange {
    pub fn content(&self) -> &str {
        match self {
            Self::Add(content) | Self::Replace { content, .. } => content,
        }
    }
}

/// How a fact stands to another, by content words.
#[derive(Debug, PartialEq, Eq)]
enum Overlap {
    /// Says nothing the other does not (all its words are the other's, or nearly).
    Covered,
    /// Says all the other does and more.
    Covers,
    Apart,
}

fn overlap(new: &[String], old: &[String]) -> Overlap {
    let shared = new.iter().filter(|w| old.contains(w)).count();
    if shared == new.len() {
        return Overlap::Covered;
    }
    if shared == old.len() {
        return Overlap::Covers;
    }
    let union = new.len() + old.len() - shared;
    if shared as f64 / union as f64 >= SAME_OVERLAP { Overlap::Covered } else { Overlap::Apart }
}

/// New facts, in order, without those another of them says more than or the same as (the
/// first of equals stays).
pub fn distinct(facts: Vec<String>, name: &str) -> Vec<String> {
    let keyed: Vec<(String, Vec<String>)> = facts
        .into_iter()
        .map(|f| {
            let words = content_words(&f, name);
            (f, words)
        })
        .filter(|(_, words)| !words.is_empty())
        .collect();
    let mut kept: Vec<usize> = Vec::new();
    for (i, (_, words)) in keyed.iter().enumerate() {
        let outdone = keyed.iter().enumerate().any(|(j, (_, other))| {
            j != i
                && match overlap(words, other) {
                    // Equal sets cover each other: the earlier one stays.
                    Overlap::Covered => overlap(other, words) != Overlap::Covered || j < i,
                    _ => false,
                }
        });
        if !outdone {
            kept.push(i);
        }
    }
    kept.into_iter().map(|i| keyed[i].0.clone()).collect()
}

/// The changes that bring `facts` (new, from [`distinct`]) into `known` (the pair's
/// memories): skipped when known, replacing the extracted memories they say more than when
/// each word they add is in `said` (the user's messages they were taken from; else
/// skipped: the memory stays as it was), added otherwise.
pub fn merge(facts: &[String], known: &[Memory], name: &str, said: &str) -> Vec<MemoryChange> {
    let known: Vec<(&Memory, Vec<String>)> = known.iter().map(|m| (m, content_words(&m.content, name))).collect();
    let mut replaced: Vec<MemoryId> = Vec::new();
    let mut changes = Vec::new();
    for fact in facts {
        let words = content_words(fact, name);
        if words.is_empty() {
            continue;
        }
        let standing: Vec<(&Memory, Overlap)> = known
            .iter()
            .filter(|(m, _)| !replaced.contains(&m.memory_id))
            .map(|(m, old)| (*m, if old.is_empty() { Overlap::Apart } else { overlap(&words, old) }))
            .collect();
        if standing.iter().any(|(_, o)| *o == Overlap::Covered) {
            continue;
        }
        let old: Vec<MemoryId> = standing
            .iter()
            // The user's own memories and the pinned ones stay as they are.
            .filter(|(m, o)| *o == Overlap::Covers && m.origin == MemoryOrigin::Extracted && !m.pinned)
            .map(|(m, _)| m.memory_id)
            .collect();
        if old.is_empty() {
            changes.push(MemoryChange::Add(fact.clone()));
        } else {
            let replaced_words: Vec<&String> =
                known.iter().filter(|(m, _)| old.contains(&m.memory_id)).flat_map(|(_, w)| w).collect();
            let invented = words.iter().any(|w| !replaced_words.contains(&w) && !grounded(w, said));
            if invented {
                continue;
            }
            replaced.extend(&old);
            changes.push(MemoryChange::Replace { old, content: fact.clone() });
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(id: i64, content: &str, origin: MemoryOrigin) -> Memory {
        Memory { memory_id: MemoryId::from_raw(id), content: content.into(), origin, pinned: false }
    }

    #[test]
    fn new_facts_do_not_repeat_each_other() {
        let facts = vec![
            "Ann's dog is called Biscuit".to_owned(),
            "Ann has a dog".to_owned(),
            "Ann has a dog named Biscuit".to_owned(),
            "Ann works as a nurse".to_owned(),
            "Ann is a nurse".to_owned(),
            "Ann".to_owned(),
        ];
        assert_eq!(distinct(facts, "Ann"), ["Ann's dog is called Biscuit", "Ann works as a nurse"]);
    }

    #[test]
    fn a_fact_is_skipped_when_known_and_replaces_the_extracted_memory_it_says_more_than() {
        let known = [
            memory(1, "Ann has a dog", MemoryOrigin::Extracted),
            memory(2, "Ann lives in Lyon", MemoryOrigin::User),
            memory(3, "Ann loves jazz and blues", MemoryOrigin::Extracted),
        ];
        let facts: Vec<String> = [
            "Ann's dog is called Biscuit",
            "Ann lives in Lyon with her two cats",
            "Ann loves jazz",
            "Ann works as a nurse",
        ]
        .map(String::from)
        .to_vec();
        let said = "My dog is called Biscuit. I live in Lyon with my two cats. I work as a nurse.";
        assert_eq!(
            merge(&facts, &known, "Ann", said),
            [
                MemoryChange::Replace {
                    old: vec![MemoryId::from_raw(1)],
                    content: "Ann's dog is called Biscuit".into()
                },
                // The user's own memory stays as they wrote it.
                MemoryChange::Add("Ann lives in Lyon with her two cats".into()),
                MemoryChange::Add("Ann works as a nurse".into()),
            ]
        );
        assert!(merge(&["ann HAS a DOG.".into()], &known, "Ann", said).is_empty(), "case and punctuation aside, known");
    }

    /// Seen in the chat tests: saving again on the same messages, the model extended a
    /// memory with words the user never wrote; it replaced the memory and counted as new.
    #[test]
    fn a_fact_adding_words_the_user_never_wrote_replaces_nothing() {
        let known = [memory(1, "Ann has a cat named Tom", MemoryOrigin::Extracted)];
        let said = "My name is Ann, I work as a nurse in Lyon and I have a cat named Tom.";
        let facts = ["Ann has a cat named Tom, which is a symbol of Lyon".to_owned()];
        assert!(merge(&facts, &known, "Ann", said).is_empty());
        let grounded = ["Ann has a cat named Tom and works in Lyon".to_owned()];
        assert_eq!(merge(&grounded, &known, "Ann", said).len(), 1, "what it adds is the user's: it replaces");
    }
}
