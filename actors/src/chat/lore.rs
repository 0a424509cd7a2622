//! A character card's lorebook (`character_book`) in the prompt. The card's JSON (up to
//! 2 MB) is read once per card version by the character's actor, which keeps the book with
//! its keys compiled (`amora_cards::CompiledLorebook`: a regex key is compiled then, never
//! at a scan); at each reply `choose_off_thread` picks the entries whose keys appear in the
//! recent messages, within `chat.lorebook_budget_tokens`, by the rules of
//! `amora_cards::lorebook`, once per reply (the prompt is assembled up to three times a
//! turn: recall twice, the reply once; they all take that one choice).
//!
//! The scan runs on tokio's blocking pool, at most `MAX_SCANS_AT_ONCE` at a time and for at
//! most `SCAN_BUDGET`, never on the thread that drives the character actors and the model's
//! streams: a heavy book slows its own replies, not everyone's (issue 28).

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use amora_cards::{CompiledLorebook, DEFAULT_SCAN_DEPTH, EntryPosition, Limits, LoreScan};
use amora_domain::character::Character;
use amora_domain::chat::{HistoryMessage, LoreEntry, LorePosition};
use tokio::sync::Semaphore;

/// Lorebook scans running at once on a node; more wait for a turn. Each is short (the
/// keys are compiled already and bounded in number), so two keep up with many chats while
/// leaving the blocking pool to the other tasks that use it.
pub const MAX_SCANS_AT_ONCE: usize = 2;

/// How long one scan may look for keys; past it only the constant entries are taken, and
/// the log says so. A book within the import limits scans in well under a millisecond per
/// hundred keys, so this is reached only by a card stored before the limits.
pub const SCAN_BUDGET: Duration = Duration::from_millis(200);

/// The lorebook of one version of a character's card.
#[derive(Debug, Clone)]
pub struct CardLore {
    /// Of the card JSON it was read from: a changed card is read again, the same one never.
    fingerprint: Option<u64>,
    /// `None` when the card has no lorebook (or no card, or one that no longer reads).
    book: Option<Arc<CompiledLorebook>>,
}

impl CardLore {
    /// The lorebook of `character`'s card, reusing `held` when it was read from the same
    /// JSON; its keys are compiled here, once per card version.
    pub fn of(character: &Character, held: Option<&CardLore>) -> CardLore {
        let Some(json) = character.extras.card_json.as_deref() else {
            return CardLore { fingerprint: None, book: None };
        };
        let fingerprint = Some(fingerprint(json));
        if let Some(held) = held.filter(|held| held.fingerprint == fingerprint) {
            return held.clone();
        }
        let limits = Limits::default();
        let book = match amora_cards::json::parse_card_json(json.as_bytes(), &limits) {
            Ok((card, _)) => card.data.character_book.filter(|book| !book.entries.is_empty()).map(|book| {
                let compiled = CompiledLorebook::new(book, &limits);
                if let Some(first) = compiled.skipped().first() {
                    // A card stored before the key limits: it chats with the keys within them.
                    tracing::warn!(
                        character = %character.card.character_id, skipped = compiled.skipped().len(),
                        first = %first.path, reason = %first.reason, "lorebook keys left out"
                    );
                }
                Arc::new(compiled)
            }),
            Err(error) => {
                // It read on import; a card that no longer does (tighter limits) chats without its lore.
                tracing::warn!(character = %character.card.character_id, %error, "the card's lorebook could not be read");
                None
            }
        };
        CardLore { fingerprint, book }
    }

    /// [`CardLore::of`] on tokio's blocking pool when the card changed (parsing up to 2 MB
    /// and compiling up to 500 regex keys is not work for the actors' thread); `held`
    /// itself when it did not.
    pub async fn of_off_thread(character: &Character, held: Option<CardLore>) -> CardLore {
        let Some(fingerprint) = character.extras.card_json.as_deref().map(fingerprint) else {
            return CardLore { fingerprint: None, book: None };
        };
        let fingerprint = Some(fingerprint);
        if let Some(held) = held.filter(|held| held.fingerprint == fingerprint) {
            return held;
        }
        let character = character.clone();
        match tokio::task::spawn_blocking(move || CardLore::of(&character, None)).await {
            Ok(lore) => lore,
            Err(error) => {
                tracing::error!(%error, "reading the card's lorebook failed: it chats without its lore");
                CardLore { fingerprint, book: None }
            }
        }
    }

    pub fn book(&self) -> Option<&Arc<CompiledLorebook>> {
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
/// in insertion order. Looks for keys for at most [`SCAN_BUDGET`]. Runs where it is called:
/// the chat calls it through [`choose_off_thread`].
pub fn choose<'a>(
    book: &'a CompiledLorebook,
    history: &[HistoryMessage],
    budget_tokens: usize,
    count_tokens: impl Fn(&str) -> usize,
) -> Vec<LoreEntry<'a>> {
    entries_of(book, &chosen(book, history, budget_tokens, count_tokens))
}

/// Where an entry goes in the prompt: its index in the book, its position, whether it is constant.
type Chosen = (usize, LorePosition, bool);

fn chosen(
    book: &CompiledLorebook,
    history: &[HistoryMessage],
    budget_tokens: usize,
    count_tokens: impl Fn(&str) -> usize,
) -> Vec<Chosen> {
    if budget_tokens == 0 {
        return Vec::new();
    }
    let recent: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    let scan = LoreScan { default_scan_depth: DEFAULT_SCAN_DEPTH, token_budget: budget_tokens };
    let scanned = book.scan(&recent, scan, Some(SCAN_BUDGET), count_tokens);
    if scanned.out_of_time {
        tracing::warn!(
            entries = book.book().entries.len(),
            budget_ms = SCAN_BUDGET.as_millis() as u64,
            "the lorebook scan ran out of time: only its constant entries and those found so far go in"
        );
    }
    scanned
        .entries
        .into_iter()
        .map(|active| {
            let position = match active.position {
                EntryPosition::BeforeChar => LorePosition::BeforeCharacter,
                EntryPosition::AfterChar => LorePosition::AfterCharacter,
            };
            (active.index, position, active.entry.is_constant())
        })
        .collect()
}

fn entries_of<'a>(book: &'a CompiledLorebook, chosen: &[Chosen]) -> Vec<LoreEntry<'a>> {
    chosen
        .iter()
        .filter_map(|&(index, position, constant)| {
            let entry = book.book().entries.get(index)?;
            Some(LoreEntry { content: &entry.content, position, constant })
        })
        .collect()
}

/// The entries a reply's prompt takes, chosen once for the reply; it holds the book they
/// come from.
#[derive(Debug, Clone, Default)]
pub struct ChosenLore {
    book: Option<Arc<CompiledLorebook>>,
    chosen: Vec<Chosen>,
}

impl ChosenLore {
    pub fn entries(&self) -> Vec<LoreEntry<'_>> {
        self.book.as_deref().map(|book| entries_of(book, &self.chosen)).unwrap_or_default()
    }
}

/// [`choose`] on tokio's blocking pool, once `scans` grants a turn: the calling thread (the
/// one that drives the actors) only waits. A scan that fails (it panicked) gives no lore.
pub async fn choose_off_thread(
    scans: &Semaphore,
    book: Option<Arc<CompiledLorebook>>,
    history: Vec<HistoryMessage>,
    budget_tokens: usize,
    count_tokens: impl Fn(&str) -> usize + Send + 'static,
) -> ChosenLore {
    let Some(book) = book.filter(|_| budget_tokens > 0) else {
        return ChosenLore::default();
    };
    let Ok(_turn) = scans.acquire().await else {
        return ChosenLore::default();
    };
    let scanned = Arc::clone(&book);
    let chosen = tokio::task::spawn_blocking(move || chosen(&scanned, &history, budget_tokens, count_tokens)).await;
    match chosen {
        Ok(chosen) => ChosenLore { book: Some(book), chosen },
        Err(error) => {
            tracing::error!(%error, "the lorebook scan failed: the reply is written without its lore");
            ChosenLore::default()
        }
    }
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
            let history: Vec<HistoryMessage> = self
                .window
                .iter()
                .map(|m| HistoryMessage { id: m.message_id, speaker: m.speaker, content: m.content.clone() })
                .collect();
            let lore = self
                .lore
                .book()
                .map(|book| choose(book, &history, self.settings.lorebook_budget_tokens, words))
                .unwrap_or_default();
            let context = ReplyContext {
                chatter: &self.chatter,
                character: &self.character,
                window: &self.window,
                window_is_whole: true,
                memories: &[],
                lore: &lore,
                partial: None,
                continues: false,
                recall: &crate::chat::Found::default(),
                reply_to: crate::chat::engine::ReplyTo::Conversation,
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

    /// The card that stalled the chat engine (issue 28) scanned its 22,500 regex keys by
    /// compiling each one at every scan, three scans a turn. Its keys are compiled when the
    /// card is read, once; a scan compiles nothing.
    #[test]
    fn a_cards_regex_keys_are_compiled_once_when_it_is_read_not_at_each_scan() {
        let mut character = marisol();
        let json = character.extras.card_json.take().unwrap_or_default();
        let mut card: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        let entries = card["data"]["character_book"]["entries"].as_array_mut().unwrap_or_else(|| panic!("no entries"));
        for i in 0..300 {
            entries.push(serde_json::json!({
                "keys": [format!(r"/\bbeacon{i}\w*/i")], "content": format!("Beacon {i}."), "use_regex": true,
                "enabled": true, "insertion_order": 10, "extensions": {},
            }));
        }
        character.extras.card_json = Some(card.to_string());
        let start = amora_cards::lorebook::regex_compilations_on_this_thread();
        let lore = CardLore::of(&character, None);
        let loaded = amora_cards::lorebook::regex_compilations_on_this_thread();
        let book = lore.book().unwrap_or_else(|| panic!("no lorebook read"));
        let history = vec![HistoryMessage {
            id: crate::chat::new_entry_id(),
            speaker: Speaker::User,
            content: "Is beacon7 lit? And the lighthouse?".into(),
        }];
        for _ in 0..3 {
            let chosen = choose(book, &history, 400, words);
            assert!(chosen.iter().any(|e| e.content == "Beacon 7."), "the regex key still matches");
            assert!(chosen.iter().any(|e| e.content.contains("Fresnel")), "and the plain one");
        }
        let scanned = amora_cards::lorebook::regex_compilations_on_this_thread();
        assert_eq!((loaded - start, scanned - loaded), (300, 0), "compiled on reading the card, not on scanning");
    }

    /// The scan runs on the blocking pool, never on the thread that awaits it (the one that
    /// drives the actors and the model's streams), and only when the semaphore grants a turn.
    #[tokio::test]
    async fn the_scan_runs_off_the_calling_thread_and_waits_for_a_turn() {
        let lore = CardLore::of(&marisol(), None);
        let book = lore.book().cloned();
        let history = vec![HistoryMessage {
            id: crate::chat::new_entry_id(),
            speaker: Speaker::User,
            content: "The lighthouse, in the storm.".into(),
        }];
        let caller = std::thread::current().id();
        let counted_on = Arc::new(std::sync::Mutex::new(Vec::new()));
        let count = {
            let counted_on = Arc::clone(&counted_on);
            move |text: &str| {
                counted_on.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(std::thread::current().id());
                words(text)
            }
        };
        let scans = Semaphore::new(1);
        let held = scans.try_acquire().unwrap_or_else(|e| panic!("{e}"));
        let chosen = choose_off_thread(&scans, book.clone(), history.clone(), 400, count);
        tokio::pin!(chosen);
        assert!(futures_util::poll!(chosen.as_mut()).is_pending(), "no turn, no scan");
        assert!(counted_on.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty());
        drop(held);
        let chosen = chosen.await;
        let entries = chosen.entries();
        assert!(entries.iter().any(|e| e.content.contains("Fresnel")), "{entries:?}");
        let threads = counted_on.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        assert!(
            !threads.is_empty() && threads.iter().all(|t| *t != caller),
            "scanned on {threads:?}, called on {caller:?}"
        );
        let book = book.unwrap_or_else(|| panic!("no lorebook"));
        assert_eq!(entries, choose(&book, &history, 400, words), "the same choice as a scan in place");
    }

    #[test]
    fn a_card_is_parsed_once_and_again_only_when_it_changes() {
        let mut character = marisol();
        let first = CardLore::of(&character, None);
        let book = first.book().unwrap_or_else(|| panic!("no lorebook read")).clone();
        assert_eq!(book.book().entries.len(), 3);
        let again = CardLore::of(&character, Some(&first));
        assert!(again.book().is_some_and(|b| Arc::ptr_eq(b, &book)), "the same card is not parsed again");

        let json = character.extras.card_json.take().unwrap_or_default();
        character.extras.card_json = Some(json.replace("first-order Fresnel lens", "second-order lens"));
        let changed = CardLore::of(&character, Some(&first));
        let changed = changed.book().unwrap_or_else(|| panic!("no lorebook"));
        assert!(!Arc::ptr_eq(changed, &book) && changed.book().entries[0].content.contains("second-order lens"));

        character.extras.card_json = None;
        assert!(CardLore::of(&character, Some(&first)).book().is_none(), "no card, no lorebook");
        character.extras.card_json = Some("{\"spec\": \"nonsense\"}".into());
        assert!(CardLore::of(&character, None).book().is_none(), "a card that does not read chats without lore");
    }
}
