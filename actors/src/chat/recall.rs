//! Recall beyond the window: before a reply is written, the pair's recall index (kept by
//! the store as messages and memories change) is asked for the words of the user's new
//! message; BM25 (`amora_domain::recall`) ranks the memories and the user's earlier
//! messages it finds, and those the prompt's history does not hold anyway go into the
//! prompt within `chat.recall_budget_tokens` (`amora_domain::chat::build_prompt`). The
//! reply's `chatDone` then says what was used, so a wrong memory can be fixed where it shows.
//!
//! Recall never stops a reply: when the index cannot be read, the reply is written without
//! it and the failure is logged.

use amora_domain::chat::{EntryId, MemoryId, MessageId, Speaker};
use amora_domain::recall::{Posting, bm25, query_terms};
use amora_store::{RecallKind, RecallMatches};

use super::engine::{ReplyContext, assembled_prompt};
use super::{ChatEngine, ChatError, Found};

/// A document scores at least this to be recalled: a term found in every document of a
/// collection (the user's name, a word said at every turn) scores below it, one in a
/// single document of even a two-document collection above.
const MIN_SCORE: f64 = 0.5;
/// Most memories and most earlier messages one prompt recalls.
const MAX_MEMORIES: usize = 4;
const MAX_MESSAGES: usize = 4;

impl ChatEngine {
    /// What the reply to the newest user message of `context.window` recalls (its
    /// `context.recall` is not read). Nothing when recall is off, the message has no words
    /// to look up, or the index cannot be read.
    pub async fn recall(&self, context: &ReplyContext<'_>) -> Found {
        if self.settings().recall_budget_tokens == 0 {
            return Found::default();
        }
        let Some(latest) = context.window.iter().rev().find(|m| m.speaker == Speaker::User) else {
            return Found::default();
        };
        let terms = query_terms(&latest.content);
        if terms.is_empty() {
            return Found::default();
        }
        match self.find(context, latest.message_id, terms).await {
            Ok(found) => found,
            Err(error) => {
                tracing::warn!(%error, user = %context.chatter.user_id, "recall failed: the reply is written without it");
                Found::default()
            }
        }
    }

    async fn find(
        &self,
        context: &ReplyContext<'_>,
        latest: MessageId,
        terms: Vec<String>,
    ) -> Result<Found, ChatError> {
        let (user, character) = (&context.chatter.user_id, &context.character.card.character_id);
        let matches = self.store().recall.recall(user, character, &terms).await?;
        let memories: Vec<(MemoryId, String)> = rank(&matches, RecallKind::Memory, &terms, None)
            .into_iter()
            .filter_map(|id| context.memories.iter().find(|m| m.memory_id == id))
            .take(MAX_MEMORIES)
            .map(|m| (m.memory_id, m.content.clone()))
            .collect();
        let ranked_messages = rank(&matches, RecallKind::Message, &terms, Some(latest));
        if memories.is_empty() && ranked_messages.is_empty() {
            return Ok(Found::default());
        }
        let model = self.model().await?;
        let count = |text: &str| model.count_tokens(text);
        let mut found = Found { terms, memories, messages: Vec::new() };
        // The messages the prompt's history holds are there already.
        let held = assembled_prompt(self.settings(), context, &found, count).history;
        for id in ranked_messages.into_iter().filter(|id| !held.contains(id)).take(MAX_MESSAGES) {
            let message = match context.window.iter().find(|m| m.message_id == id) {
                Some(message) => Some(message.clone()),
                None => {
                    // Older than the window: read it (the page just after its id starts with it).
                    let after = EntryId::from_raw(id.raw().saturating_add(1));
                    let page = self.store().conversations.messages(user, character, Some(after), 1).await?;
                    page.into_iter().next().filter(|m| m.message_id == id)
                }
            };
            if let Some(message) = message.filter(|m| m.speaker == Speaker::User && !m.content.trim().is_empty()) {
                found.messages.push((id, message.content));
            }
        }
        // Only what fits the budget goes in; keep that, as the prompt will write it.
        let prompt = assembled_prompt(self.settings(), context, &found, count);
        found.memories = prompt.recalled_memories;
        found.messages = prompt.recalled_messages;
        Ok(found)
    }
}

/// The documents of `kind` that match `terms`, best first, leaving `skip` out.
fn rank(matches: &RecallMatches, kind: RecallKind, terms: &[String], skip: Option<EntryId>) -> Vec<EntryId> {
    let size = match kind {
        RecallKind::Message => matches.messages,
        RecallKind::Memory => matches.memories,
    };
    let lists: Vec<Vec<Posting<EntryId>>> = terms
        .iter()
        .map(|term| {
            matches
                .postings
                .iter()
                .filter(|p| p.kind == kind && &p.term == term && Some(p.id) != skip)
                .map(|p| Posting { doc: p.id, count: p.count, length: p.length })
                .collect::<Vec<_>>()
        })
        .filter(|list| !list.is_empty())
        .collect();
    bm25(size, &lists, MIN_SCORE).into_iter().map(|(id, _)| id).collect()
}

#[cfg(test)]
mod tests {
    use amora_domain::recall::CollectionSize;
    use amora_store::RecallPosting;

    use super::*;
    use crate::wire::chat::{RECALLED_TEXT_CHARS, RecalledItem};

    fn posting(term: &str, kind: RecallKind, id: i64, count: u32, length: u32) -> RecallPosting {
        RecallPosting { term: term.into(), kind, id: EntryId::from_raw(id), count, length }
    }

    #[test]
    fn messages_and_memories_rank_apart_and_the_message_asking_is_left_out() {
        let matches = RecallMatches {
            postings: vec![
                posting("dog", RecallKind::Message, 1, 1, 5),
                posting("biscuit", RecallKind::Message, 1, 1, 5),
                posting("dog", RecallKind::Message, 9, 1, 3),
                posting("dog", RecallKind::Message, 4, 1, 8),
                posting("dog", RecallKind::Memory, 2, 1, 4),
            ],
            messages: CollectionSize { docs: 20, length: 100 },
            memories: CollectionSize { docs: 3, length: 12 },
        };
        let terms = vec!["dog".to_owned(), "biscuit".to_owned()];
        let ids = |ranked: Vec<EntryId>| ranked.into_iter().map(EntryId::raw).collect::<Vec<_>>();
        assert_eq!(ids(rank(&matches, RecallKind::Message, &terms, Some(EntryId::from_raw(9)))), [1, 4]);
        assert_eq!(ids(rank(&matches, RecallKind::Message, &terms, None)), [1, 9, 4]);
        assert_eq!(ids(rank(&matches, RecallKind::Memory, &terms, None)), [2]);
    }

    #[test]
    fn the_view_cuts_long_texts_and_is_none_when_nothing_was_recalled() {
        assert_eq!(Found::default().view(), None);
        let found = Found {
            terms: vec![],
            memories: vec![(EntryId::from_raw(5), "Ann's dog is Biscuit".into())],
            messages: vec![(EntryId::from_raw(7), "é".repeat(500))],
        };
        let view = found.view().unwrap_or_else(|| panic!("something was recalled"));
        assert_eq!(view.memories, [RecalledItem { id: EntryId::from_raw(5), content: "Ann's dog is Biscuit".into() }]);
        assert_eq!(view.messages[0].content.chars().count(), RECALLED_TEXT_CHARS);
    }
}
