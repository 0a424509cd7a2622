//! A character card's lorebook (`character_book`) in the prompt. The card's JSON (up to
//! 2 MB) is read once per card version by the character's actor, which keeps the parsed
//! book; at each turn `choose` picks the entries whose keys appear in the recent messages,
//! within `chat.lorebook_budget_tokens`, by the rules of `amora_cards::activate`.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use amora_cards::{DEFAULT_SCAN_DEPTH, EntryPosition, Limits, LoreScan, Lorebook, activate};
use amora_domain::character::Character;
use amora_domain::chat::{HistoryMessage, LoreEntry, LorePosition};

/// The lorebook of one version of a character's card.
#[derive(Debug, Clone)]
pub struct CardLore {
    /// Of the card JSON it was read from: a changed card is read again, the same one never.
    fingerprint: Option<u64>,
    /// `None` when the card has no lorebook (or no card, or one that no longer reads).
    book: Option<Arc<Lorebook>>,
}

impl CardLore {
    /// The lorebook of `character`'s card, reusing `held` when it was read from the same JSON.
    pub fn of(character: &Character, held: Option<&CardLore>) -> CardLore {
        let Some(json) = character.extras.card_json.as_deref() else {
            return CardLore { fingerprint: None, book: None };
        };
        let fingerprint = Some(fingerprint(json));
        if let Some(held) = held.filter(|held| held.fingerprint == fingerprint) {
            return held.clone();
        }
        let book = match amora_cards::json::parse_card_json(json.as_bytes(), &Limits::default()) {
            Ok((card, _)) => card.data.character_book.filter(|book| !book.entries.is_empty()).map(Arc::new),
            Err(error) => {
                // It read on import; a card that no longer does (tighter limits) chats without its lore.
                tracing::warn!(character = %character.card.character_id, %error, "the card's lorebook could not be read");
                None
            }
        };
        CardLore { fingerprint, book }
    }

    pub fn book(&self) -> Option<&Arc<Lorebook>> {
        self.book.as_ref()
    }
}

fn fingerprint(json: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    json.hash(&mut hasher);
    hasher.finish()
}

/// The entries of `book` for a reply to `history` (oldest first): those whose keys appear in
/// the last `scan_depth` messages (the book's, else `amora_cards::DEFAULT_SCAN_DEPTH`) and the
/// constant ones, within `budget_tokens` (and the book's own `token_budget` when smaller),
/// in insertion order.
pub fn choose<'a>(
    book: &'a Lorebook,
    history: &[HistoryMessage],
    budget_tokens: usize,
    count_tokens: impl Fn(&str) -> usize,
) -> Vec<LoreEntry<'a>> {
    if budget_tokens == 0 {
        return Vec::new();
    }
    let recent: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    let scan = LoreScan { default_scan_depth: DEFAULT_SCAN_DEPTH, token_budget: budget_tokens };
    activate(book, &recent, scan, count_tokens)
        .into_iter()
        .map(|active| LoreEntry {
            content: &active.entry.content,
            position: match active.position {
                EntryPosition::BeforeChar => LorePosition::BeforeCharacter,
                EntryPosition::AfterChar => LorePosition::AfterCharacter,
            },
            constant: active.entry.is_constant(),
        })
        .collect()
}

/// Characters as tests build them, with a real card from `cards/tests/data`.
#[cfg(test)]
pub(crate) mod samples {
    use amora_cards::Limits;
    use amora_domain::character::{
        CardExtras, Character, CharacterAge, CharacterCard, CharacterId, CharacterStatus, Exposure, UsedType,
    };
    use amora_domain::gender::Gender;

    /// Marisol of `cards/tests/data/v3.png` (a V3 PNG card with a lorebook and two alternate
    /// greetings), as an imported character keeps her: the card as V3 JSON in `card_json`.
    pub(crate) fn marisol() -> Character {
        let path = format!("{}/../cards/tests/data/v3.png", env!("CARGO_MANIFEST_DIR"));
        let file = std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
        let card = amora_cards::import(&file, &Limits::default()).unwrap_or_else(|e| panic!("import: {e}")).card;
        let json = amora_cards::export_json(&card, &Limits::default()).unwrap_or_else(|e| panic!("export: {e}"));
        let data = &card.data;
        Character {
            card: CharacterCard {
                character_id: CharacterId::parse("c-marisol").unwrap_or_else(|e| panic!("{e}")),
                character_name: data.name.clone(),
                character_age: CharacterAge::parse(34).unwrap_or_else(|e| panic!("{e}")),
                introduction: data.creator_notes.clone(),
                character_photo: "/media/marisol".into(),
                character_image_list: Vec::new(),
                used_type: UsedType::Free,
                gender: Gender::Girls,
            },
            personality: format!("{} {}", data.description, data.personality),
            scenario: data.scenario.clone(),
            greeting: data.first_mes.clone(),
            tags: data.tags.clone(),
            creator_id: Some("creator1".into()),
            exposure: Exposure::Everyone,
            status: CharacterStatus::Private,
            extras: CardExtras {
                system_prompt: data.system_prompt.clone(),
                post_history_instructions: data.post_history_instructions.clone(),
                example_dialogue: data.mes_example.clone(),
                alternate_greetings: data.alternate_greetings.clone(),
                has_lorebook: data.character_book.is_some(),
                card_json: Some(String::from_utf8(json).unwrap_or_else(|e| panic!("{e}"))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use amora_domain::account::UserId;
    use amora_domain::chat::{PromptMessage, PromptRole, Speaker};
    use amora_domain::viewer::Viewer;
    use amora_store::StoredMessage;

    use super::samples::marisol;
    use super::*;
    use crate::chat::engine::{ReplyContext, reply_prompt};
    use crate::chat::{ChatSettings, Chatter, new_entry_id};

    fn words(text: &str) -> usize {
        text.split_whitespace().count()
    }

    const CONSTANT: &str = "Marisol never leaves the rock in winter.";
    const LIGHTHOUSE: &str = "The Gull Rock light is a first-order Fresnel lens, lit since 1871.";
    const WRECK: &str = "A trawler, the Kittiwake, broke up on the reef last winter.";

    struct Chat {
        character: Character,
        lore: CardLore,
        window: Vec<StoredMessage>,
        chatter: Chatter,
        settings: ChatSettings,
    }

    impl Chat {
        fn new() -> Self {
            let character = marisol();
            let lore = CardLore::of(&character, None);
            let chatter = Chatter {
                user_id: UserId::parse("ann1").unwrap_or_else(|e| panic!("{e}")),
                user_name: "Ann".into(),
                persona: String::new(),
                language: "en".into(),
                nsfw: false,
                paid: false,
                viewer: Viewer::Member,
            };
            Self { character, lore, window: Vec::new(), chatter, settings: ChatSettings::default() }
        }

        fn say(&mut self, speaker: Speaker, content: &str) -> Vec<PromptMessage> {
            let message = StoredMessage { message_id: new_entry_id(), speaker, content: content.into(), image: None };
            self.window.push(message);
            let context = ReplyContext {
                chatter: &self.chatter,
                character: &self.character,
                window: &self.window,
                window_is_whole: true,
                memories: &[],
                lorebook: self.lore.book().map(|book| book.as_ref()),
                partial: None,
                continues: false,
                recall: &crate::chat::recall::Found::default(),
            };
            reply_prompt(&self.settings, &context, words)
        }
    }

    /// The late system message holding the activated entries, if any.
    fn activated(prompt: &[PromptMessage]) -> Option<&str> {
        let last = prompt.last().filter(|m| m.role == PromptRole::System && prompt.len() > 1)?;
        Some(last.content.as_str()).filter(|lore| lore.starts_with("What matters for your next reply:"))
    }

    #[test]
    fn a_cards_lorebook_entries_enter_the_prompt_as_their_keys_appear_and_leave_past_the_scan_depth() {
        let mut chat = Chat::new();
        let prompt = chat.say(Speaker::Character, "You look half drowned. Come in, Ann.");
        let system = &prompt[0].content;
        assert!(system.contains(CONSTANT), "the constant entry, macros replaced, is in the system message: {system}");
        assert!(
            system.find(CONSTANT) < system.find("Personality:"),
            "before the description, as the entry's position says: {system}"
        );
        assert!(system.contains("Ann: Do you ever get lonely?\nMarisol: The gulls talk more"), "{system}");
        assert_eq!(activated(&prompt), None, "no key was mentioned");

        let prompt = chat.say(Speaker::User, "Is that the LIGHTHOUSE lamp up there?");
        let lore = activated(&prompt).unwrap_or_else(|| panic!("no lore after the key: {prompt:?}"));
        assert!(lore.contains(LIGHTHOUSE) && !lore.contains(WRECK), "{lore}");
        assert_eq!(prompt[prompt.len() - 3].content, "Is that the LIGHTHOUSE lamp up there?", "after the history");
        assert!(prompt[prompt.len() - 2].content.starts_with("Reply as Marisol"), "and the reply guide");

        chat.say(Speaker::Character, "It is. Sit by the fire.");
        let prompt = chat.say(Speaker::User, "The storm wrecked our boat.");
        let lore = activated(&prompt).unwrap_or_else(|| panic!("no lore: {prompt:?}"));
        assert!(lore.contains(LIGHTHOUSE) && lore.contains(WRECK), "storm with boat brings the wreck in: {lore}");
        assert!(lore.find(LIGHTHOUSE) < lore.find(WRECK), "before_char entries first: {lore}");

        // The book's scan_depth is 4: four messages later the lighthouse is out of reach.
        chat.say(Speaker::Character, "Tea?");
        chat.say(Speaker::User, "Yes please.");
        let prompt = chat.say(Speaker::Character, "Here.");
        let lore = activated(&prompt).unwrap_or_else(|| panic!("no lore: {prompt:?}"));
        assert!(!lore.contains(LIGHTHOUSE) && lore.contains(WRECK), "{lore}");
        let prompt = chat.say(Speaker::User, "Thanks.");
        assert_eq!(activated(&prompt), None, "every keyed entry scrolled out: {prompt:?}");
        assert!(prompt[0].content.contains(CONSTANT), "the constant one stays");
    }

    #[test]
    fn the_lorebook_budget_leaves_out_the_entries_that_do_not_fit() {
        let mut chat = Chat::new();
        chat.settings.lorebook_budget_tokens = words(CONSTANT) + words(LIGHTHOUSE);
        let prompt = chat.say(Speaker::User, "A storm sank my boat; I swam to the lighthouse.");
        let lore = activated(&prompt).unwrap_or_else(|| panic!("no lore: {prompt:?}"));
        assert!(prompt[0].content.contains(CONSTANT));
        assert!(lore.contains(LIGHTHOUSE) && !lore.contains(WRECK), "the later entry does not fit: {lore}");

        chat.settings.lorebook_budget_tokens = 0;
        let prompt = chat.say(Speaker::User, "The lighthouse again.");
        assert!(activated(&prompt).is_none() && !prompt[0].content.contains(CONSTANT), "0 leaves the lorebook out");
    }

    #[test]
    fn a_card_is_parsed_once_and_again_only_when_it_changes() {
        let mut character = marisol();
        let first = CardLore::of(&character, None);
        let book = first.book().unwrap_or_else(|| panic!("no lorebook read")).clone();
        assert_eq!(book.entries.len(), 3);
        let again = CardLore::of(&character, Some(&first));
        assert!(again.book().is_some_and(|b| Arc::ptr_eq(b, &book)), "the same card is not parsed again");

        let json = character.extras.card_json.take().unwrap_or_default();
        character.extras.card_json = Some(json.replace("first-order Fresnel lens", "second-order lens"));
        let changed = CardLore::of(&character, Some(&first));
        let changed = changed.book().unwrap_or_else(|| panic!("no lorebook"));
        assert!(!Arc::ptr_eq(changed, &book) && changed.entries[0].content.contains("second-order lens"));

        character.extras.card_json = None;
        assert!(CardLore::of(&character, Some(&first)).book().is_none(), "no card, no lorebook");
        character.extras.card_json = Some("{\"spec\": \"nonsense\"}".into());
        assert!(CardLore::of(&character, None).book().is_none(), "a card that does not read chats without lore");
    }
}
