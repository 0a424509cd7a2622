//! Lorebook entries entering and leaving the prompt as their keys appear in the recent
//! messages, within the token budget; and the name macros.

use amora_cards::{EntryPosition, Limits, LoreScan, Lorebook, LorebookEntry, activate, import, replace_macros};
use serde_json::{Number, json};

/// Words, as a stand-in tokenizer the caller passes in.
fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

const WIDE: LoreScan = LoreScan { default_scan_depth: 4, token_budget: 10_000 };

fn entry(keys: &[&str], content: &str) -> LorebookEntry {
    LorebookEntry {
        keys: keys.iter().map(|k| (*k).to_owned()).collect(),
        content: content.into(),
        ..LorebookEntry::default()
    }
}

fn book(entries: Vec<LorebookEntry>) -> Lorebook {
    Lorebook { entries, ..Lorebook::default() }
}

/// Indices of the active entries, in the order given.
fn active(book: &Lorebook, recent: &[&str], scan: LoreScan) -> Vec<usize> {
    activate(book, recent, scan, words).iter().map(|a| a.index).collect()
}

fn sample_book() -> Lorebook {
    let path = format!("{}/tests/data/v2.png", env!("CARGO_MANIFEST_DIR"));
    let file = std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    let card = import(&file, &Limits::default()).unwrap_or_else(|e| panic!("import: {e}")).card;
    card.data.character_book.unwrap_or_else(|| panic!("no lorebook"))
}

#[test]
fn entries_enter_as_their_keys_appear_and_leave_past_the_scan_depth() {
    let book = sample_book(); // scan_depth 4: 0 lighthouse/lamp, 1 storm+(boat|ship), 2 constant
    let mut chat = vec!["Hello there.", "Cold night."];
    assert_eq!(active(&book, &chat, WIDE), [2], "only the constant entry");

    chat.push("Is that the LIGHTHOUSE up there?");
    // Ordered by insertion_order: the constant (10) before the lighthouse (100).
    assert_eq!(active(&book, &chat, WIDE), [2, 0]);

    chat.push("The storm was awful.");
    assert_eq!(active(&book, &chat, WIDE), [2, 0], "storm alone: its secondary keys are not there");
    chat.push("Our boat sank.");
    assert_eq!(active(&book, &chat, WIDE), [2, 1, 0], "storm and boat: the wreck comes in, ordered 50");

    // Four quiet messages later the lighthouse mention is past the book's scan_depth of 4.
    chat.extend(["Tea?", "Yes please.", "Here.", "Thanks."]);
    assert_eq!(active(&book, &chat, WIDE), [2]);

    let got = activate(&book, &["storm and a ship"], WIDE, words);
    let wreck = got.iter().find(|a| a.index == 1).unwrap_or_else(|| panic!("no wreck"));
    assert_eq!(wreck.position, EntryPosition::AfterChar);
    assert_eq!(wreck.tokens, words(&book.entries[1].content));
    assert_eq!(got.iter().find(|a| a.index == 2).map(|a| a.position), Some(EntryPosition::BeforeChar));
}

#[test]
fn the_scan_depth_comes_from_the_book_or_the_caller() {
    let mut b = book(vec![entry(&["key"], "found")]);
    let chat = ["the key", "a", "b"];
    assert_eq!(active(&b, &chat, LoreScan { default_scan_depth: 3, ..WIDE }), [0]);
    assert_eq!(active(&b, &chat, LoreScan { default_scan_depth: 2, ..WIDE }), Vec::<usize>::new());
    b.scan_depth = Some(3);
    assert_eq!(active(&b, &chat, LoreScan { default_scan_depth: 1, ..WIDE }), [0]);
    b.scan_depth = Some(0);
    b.entries.push(LorebookEntry { constant: Some(true), ..entry(&[], "always") });
    assert_eq!(active(&b, &chat, WIDE), [1], "depth 0 scans nothing; constants stay");
}

#[test]
fn over_budget_the_lowest_priority_goes_first_and_constants_last() {
    let prio = |keys: &[&str], content: &str, priority: i64, order: i64| LorebookEntry {
        priority: Some(Number::from(priority)),
        insertion_order: Number::from(order),
        ..entry(keys, content)
    };
    let b = book(vec![
        prio(&["alpha"], "one two three", 10, 3),    // 3 tokens
        prio(&["beta"], "one two three four", 5, 2), // 4 tokens
        prio(&["gamma"], "one two", 1, 1),           // 2 tokens
        LorebookEntry { constant: Some(true), ..prio(&[], "c c c c c", 0, 0) }, // 5 tokens, constant
    ]);
    let chat = ["alpha beta gamma"];
    let budget = |token_budget| LoreScan { default_scan_depth: 4, token_budget };
    assert_eq!(active(&b, &chat, budget(14)), [3, 2, 1, 0], "all fit; by insertion_order");
    assert_eq!(active(&b, &chat, budget(13)), [3, 1, 0], "gamma (priority 1) goes first");
    assert_eq!(active(&b, &chat, budget(11)), [3, 0], "then beta (5)");
    assert_eq!(active(&b, &chat, budget(7)), [3], "then alpha (10); the constant stays");
    assert_eq!(active(&b, &chat, budget(4)), Vec::<usize>::new(), "a constant over budget goes too");
    let total: usize = activate(&b, &chat, budget(13), words).iter().map(|a| a.tokens).sum();
    assert!(total <= 13);

    // The book's own token_budget wins when smaller than the caller's.
    let mut small = b.clone();
    small.token_budget = Some(7);
    assert_eq!(active(&small, &chat, budget(100)), [3]);
}

#[test]
fn selective_logic_follows_sillytaverns_four_modes() {
    let sel = |logic: Option<u64>| {
        let mut e = entry(&["sword"], "lore");
        e.selective = Some(true);
        e.secondary_keys = Some(vec!["fire".into(), "ice".into()]);
        if let Some(l) = logic {
            e.extensions.insert("selectiveLogic".into(), json!(l));
        }
        book(vec![e])
    };
    let on = |b: &Lorebook, text: &str| !active(b, &[text], WIDE).is_empty();
    // 0 / absent: AND ANY.
    for b in [sel(None), sel(Some(0))] {
        assert!(!on(&b, "a sword"));
        assert!(on(&b, "a sword of fire"));
    }
    let not_all = sel(Some(1));
    assert!(on(&not_all, "a sword of fire") && on(&not_all, "a sword") && !on(&not_all, "a sword of fire and ice"));
    let not_any = sel(Some(2));
    assert!(on(&not_any, "a sword") && !on(&not_any, "a sword of ice"));
    let and_all = sel(Some(3));
    assert!(!on(&and_all, "a sword of ice") && on(&and_all, "a sword of fire and ice"));
    // Without the primary key nothing fires, whatever the secondary ones say.
    assert!(!on(&not_any, "fire"));
    // selective false: secondary keys ignored.
    let mut plain = sel(Some(3));
    plain.entries[0].selective = Some(false);
    assert!(on(&plain, "a sword"));
}

#[test]
fn keys_match_whole_words_without_case_unless_told() {
    let b = book(vec![entry(&["Al"], "al"), entry(&["#gull"], "tag"), entry(&["rock"], "rock")]);
    assert_eq!(active(&b, &["I also know"], WIDE), Vec::<usize>::new(), "Al is not in also");
    assert_eq!(active(&b, &["al said so"], WIDE), [0]);
    assert_eq!(active(&b, &["see #gulls"], WIDE), [1], "keys with symbols match as substrings");
    assert_eq!(active(&b, &["ROCK!"], WIDE), [2]);
    assert_eq!(active(&b, &["rocky"], WIDE), Vec::<usize>::new());

    let mut cs = book(vec![entry(&["Rock"], "x")]);
    cs.entries[0].case_sensitive = Some(true);
    assert!(active(&cs, &["the rock"], WIDE).is_empty());
    assert_eq!(active(&cs, &["the Rock"], WIDE), [0]);
    // Empty and blank keys never match everything.
    assert!(active(&book(vec![entry(&["", "  "], "x")]), &["anything"], WIDE).is_empty());
}

#[test]
fn disabled_entries_never_enter() {
    let mut b = book(vec![entry(&["key"], "x"), LorebookEntry { constant: Some(true), ..entry(&[], "y") }]);
    for e in &mut b.entries {
        e.enabled = false;
    }
    assert!(active(&b, &["key"], WIDE).is_empty());
}

#[test]
fn regex_keys_match_safely() {
    let re = |keys: &[&str]| {
        let mut e = entry(keys, "r");
        e.use_regex = true;
        book(vec![e])
    };
    assert_eq!(active(&re(&["/light(house)?s?/i"]), &["LIGHTS out"], WIDE), [0]);
    assert_eq!(active(&re(&["/Light/"]), &["light"], WIDE), [0], "no case unless case_sensitive");
    let mut cs = re(&["/Light/"]);
    cs.entries[0].case_sensitive = Some(true);
    assert!(active(&cs, &["light"], WIDE).is_empty());
    assert!(active(&cs, &["light"], WIDE).is_empty());
    assert_eq!(active(&re(&[r"\bgull\w*"]), &["gulls"], WIDE), [0], "bare patterns too");
    // Patterns that do not compile, or compile too big, match nothing and do not stall.
    assert!(active(&re(&["(unclosed"]), &["(unclosed"], WIDE).is_empty());
    let started = std::time::Instant::now();
    assert!(active(&re(&["(a{1000}){1000}"]), &["aaaa"], WIDE).is_empty());
    // A pattern that backtracks exponentially elsewhere runs in linear time here.
    let text = format!("{}!", "a".repeat(5000));
    assert!(active(&re(&["(a+)+$b"]), &[text.as_str()], WIDE).is_empty());
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
}

#[test]
fn macros_are_replaced_in_every_form() {
    let r = |t: &str| replace_macros(t, "Marisol", "Sam");
    assert_eq!(r("{{char}} greets {{user}}."), "Marisol greets Sam.");
    assert_eq!(r("{{Char}}/{{User}}/{{CHAR}}/{{USER}}"), "Marisol/Sam/Marisol/Sam");
    assert_eq!(r("<BOT> and <USER>; <bot>, <char>, <user>"), "Marisol and Sam; Marisol, Marisol, Sam");
    assert_eq!(
        r("no macros {here} <b>bold</b> {{random}} {{ char }}"),
        "no macros {here} <b>bold</b> {{random}} {{ char }}"
    );
    assert_eq!(r("é{{user}}ü<{{char}}{"), "éSamü<Marisol{");
    assert_eq!(r(""), "");
    // Names are not expanded again: a card cannot inject through a name.
    assert_eq!(replace_macros("{{user}} and {{char}}", "{{user}}", "<BOT>"), "<BOT> and {{user}}");
}

#[test]
fn the_nickname_is_what_char_stands_for() {
    let path = format!("{}/tests/data/v3.png", env!("CARGO_MANIFEST_DIR"));
    let file = std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    let card = import(&file, &Limits::default()).unwrap_or_else(|e| panic!("import: {e}")).card;
    assert_eq!(
        replace_macros(&card.data.first_mes, card.prompt_name(), "Sam"),
        card.data.first_mes.replace("{{user}}", "Sam")
    );
    assert_eq!(replace_macros("{{char}}", card.prompt_name(), "Sam"), "Mari");
}

#[test]
fn sillytaverns_per_entry_overrides_in_extensions_apply() {
    let with_ext = |ext: serde_json::Value| {
        let mut e = entry(&["cat"], "x");
        e.extensions = ext.as_object().cloned().unwrap_or_default();
        book(vec![e])
    };
    // match_whole_words false: substrings.
    assert!(active(&with_ext(json!({})), &["concatenate"], WIDE).is_empty());
    assert_eq!(active(&with_ext(json!({"match_whole_words": false})), &["concatenate"], WIDE), [0]);
    assert!(active(&with_ext(json!({"match_whole_words": null})), &["concatenate"], WIDE).is_empty());
    // case_sensitive in extensions when the spec field is absent.
    assert!(active(&with_ext(json!({"case_sensitive": true})), &["CAT"], WIDE).is_empty());
    assert_eq!(active(&with_ext(json!({"case_sensitive": null})), &["CAT"], WIDE), [0]);
    // A per-entry scan_depth reaches further (or less far) than the book's.
    let chat = ["a cat", "b", "c", "d", "e"];
    assert!(active(&with_ext(json!({})), &chat, WIDE).is_empty(), "past the default depth of 4");
    assert_eq!(active(&with_ext(json!({"scan_depth": 5})), &chat, WIDE), [0]);
    assert!(active(&with_ext(json!({"scan_depth": 0})), &["cat"], WIDE).is_empty());
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn any_entry() -> impl Strategy<Value = LorebookEntry> {
        (
            proptest::collection::vec("(cat|dog|sea|rock|Al|#tag|x)", 0..3),
            "[a-z ]{0,30}",
            any::<bool>(),
            any::<Option<bool>>(),
            -5i64..5,
            proptest::option::of(-3i64..3),
            any::<Option<bool>>(),
            proptest::option::of(proptest::collection::vec("(cat|sea|fog)", 0..3)),
        )
            .prop_map(|(keys, content, enabled, constant, order, priority, selective, secondary_keys)| {
                LorebookEntry {
                    keys,
                    content,
                    enabled,
                    constant,
                    insertion_order: order.into(),
                    priority: priority.map(Into::into),
                    selective,
                    secondary_keys,
                    ..LorebookEntry::default()
                }
            })
    }

    proptest! {
        /// Whatever the book and the chat: within budget, only enabled entries, each once,
        /// in insertion order; and with room for all, every constant entry is there.
        #[test]
        fn activation_keeps_its_promises(
            entries in proptest::collection::vec(any_entry(), 0..12),
            chat in proptest::collection::vec("[a-zA-Z#, ]{0,40}", 0..6),
            budget in 0usize..40,
            depth in 0usize..6,
        ) {
            let b = book(entries);
            let scan = LoreScan { default_scan_depth: depth, token_budget: budget };
            let got = activate(&b, &chat, scan, words);
            prop_assert!(got.iter().map(|a| a.tokens).sum::<usize>() <= budget);
            prop_assert!(got.iter().all(|a| a.entry.enabled && std::ptr::eq(a.entry, &b.entries[a.index])));
            let mut seen: Vec<usize> = got.iter().map(|a| a.index).collect();
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen.len(), got.len());
            let orders: Vec<(i64, usize)> = got.iter().map(|a| (a.entry.insertion_order.as_i64().unwrap_or(0), a.index)).collect();
            let mut sorted = orders.clone();
            sorted.sort_unstable();
            prop_assert_eq!(orders, sorted);

            let roomy = activate(&b, &chat, LoreScan { token_budget: usize::MAX, ..scan }, words);
            for (i, e) in b.entries.iter().enumerate() {
                if e.enabled && e.is_constant() {
                    prop_assert!(roomy.iter().any(|a| a.index == i), "constant entry {} missing", i);
                }
            }
            // What the budget drops is never of higher priority than what it keeps, constants aside.
            let kept: Vec<usize> = got.iter().map(|a| a.index).collect();
            let prio = |a: &amora_cards::ActiveEntry| (a.entry.is_constant(), a.entry.priority.as_ref().and_then(serde_json::Number::as_i64).unwrap_or(0));
            for dropped in roomy.iter().filter(|a| !kept.contains(&a.index)) {
                for k in got.iter() {
                    prop_assert!(prio(k) >= prio(dropped), "kept {:?} over {:?}", k.index, dropped.index);
                }
            }
        }
    }
}

/// A compiled book is scanned without compiling again; a spent time budget takes only the
/// constant entries and says so.
#[test]
fn a_compiled_book_scans_without_compiling_and_stops_when_its_time_is_spent() {
    use amora_cards::CompiledLorebook;
    use amora_cards::lorebook::regex_compilations_on_this_thread;
    let mut entries: Vec<LorebookEntry> = (0..50)
        .map(|i| {
            let mut e = entry(&[&format!(r"/\bbeacon{i}\b/i")], &format!("beacon {i}"));
            e.use_regex = true;
            e
        })
        .collect();
    let mut always = entry(&[], "always");
    always.constant = Some(true);
    entries.push(always);
    entries.push(entry(&["storm"], "storm"));
    let start = regex_compilations_on_this_thread();
    let compiled = CompiledLorebook::new(book(entries), &Limits::default());
    assert_eq!((regex_compilations_on_this_thread() - start, compiled.regex_keys()), (50, 50));
    let chat = ["BEACON7 is lit", "a storm comes"];
    for _ in 0..3 {
        let scanned = compiled.scan(&chat, WIDE, Some(std::time::Duration::from_secs(3600)), words);
        let got: Vec<&str> = scanned.entries.iter().map(|a| a.entry.content.as_str()).collect();
        assert_eq!((got, scanned.out_of_time), (vec!["beacon 7", "always", "storm"], false));
    }
    assert_eq!(regex_compilations_on_this_thread() - start, 50, "scans compile nothing");
    let spent = compiled.scan(&chat, WIDE, Some(std::time::Duration::ZERO), words);
    let got: Vec<&str> = spent.entries.iter().map(|a| a.entry.content.as_str()).collect();
    assert_eq!((got, spent.out_of_time), (vec!["always"], true), "out of time: the constant entries only");
    assert_eq!(compiled.scan(&chat, WIDE, None, words).entries, activate(compiled.book(), &chat, WIDE, words));
}

/// A book stored before the key limits keeps the keys within them; the others are named.
#[test]
fn a_compiled_book_over_the_limits_keeps_the_keys_within_them() {
    use amora_cards::CompiledLorebook;
    let limits = Limits { max_regex_keys: 3, max_regex_compiled_bytes: 64 * 1024, ..Limits::default() };
    let mut e = entry(&["/a1/", "/a2/", "(x{1000}){1000}", "/a3/", "/a4/"], "r");
    e.use_regex = true;
    let compiled = CompiledLorebook::new(book(vec![e]), &limits);
    assert_eq!(compiled.regex_keys(), 2);
    let skipped: Vec<&str> = compiled.skipped().iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        skipped,
        ["character_book.entries[0].keys[2]", "character_book.entries[0].keys[3]", "character_book.entries[0].keys[4]"]
    );
    assert!(compiled.skipped()[0].reason.contains("compiles to more than"), "{:?}", compiled.skipped()[0]);
}
