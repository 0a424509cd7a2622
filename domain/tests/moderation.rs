//! Runs the moderation corpus (`moderation_corpus.txt`) through `domain::moderation`.

use amora_domain::moderation::{Refusal, check, check_character};

#[test]
fn the_corpus_is_judged_as_written() {
    let corpus = include_str!("moderation_corpus.txt");
    let mut wrong = Vec::new();
    let mut counted = (0, 0);
    for (number, line) in corpus.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((verdict, text)) = line.split_once(" | ") else {
            panic!("line {}: not `verdict | text`: {line}", number + 1);
        };
        let expected = match verdict.trim() {
            "allow" => None,
            "refuse minors" => Some(Refusal::Minors),
            "refuse nonconsent" => Some(Refusal::NonConsent),
            "refuse bestiality" => Some(Refusal::Bestiality),
            other => panic!("line {}: unknown verdict {other:?}", number + 1),
        };
        if expected.is_some() {
            counted.1 += 1
        } else {
            counted.0 += 1
        }
        let got = check(text);
        if got != expected {
            wrong.push(format!("line {}: {text:?}: expected {expected:?}, got {got:?}", number + 1));
        }
    }
    assert!(counted.0 >= 20 && counted.1 >= 15, "the corpus shrank: {counted:?}");
    assert!(wrong.is_empty(), "{} of the corpus judged wrongly:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn the_character_corpus_is_judged_as_written() {
    let corpus = include_str!("character_moderation_corpus.txt");
    let mut wrong = Vec::new();
    let mut counted = (0, 0);
    for (number, line) in corpus.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((verdict, text)) = line.split_once(" | ") else {
            panic!("line {}: not `verdict | text`: {line}", number + 1);
        };
        let expected = match verdict.trim() {
            "allow" => None,
            "refuse minors" => Some(Refusal::Minors),
            "refuse nonconsent" => Some(Refusal::NonConsent),
            "refuse bestiality" => Some(Refusal::Bestiality),
            "refuse minor-character" => Some(Refusal::MinorCharacter),
            "refuse real-person" => Some(Refusal::RealPerson),
            other => panic!("line {}: unknown verdict {other:?}", number + 1),
        };
        if expected.is_some() {
            counted.1 += 1
        } else {
            counted.0 += 1
        }
        let got = check_character(text);
        if got != expected {
            wrong.push(format!("line {}: {text:?}: expected {expected:?}, got {got:?}", number + 1));
        }
        // A character's text is held to chat's rules too: what chat refuses, characters do.
        if check(text).is_some() {
            assert_eq!(got, check(text), "line {}", number + 1);
        }
    }
    assert!(counted.0 >= 20 && counted.1 >= 20, "the corpus shrank: {counted:?}");
    assert!(wrong.is_empty(), "{} of the corpus judged wrongly:\n{}", wrong.len(), wrong.join("\n"));
}
