//! The rules a character's own texts are held to beyond chat's (docs/api.md "Created
//! characters"): a character is an adult, looks like one, and is nobody real. Unlike a
//! chat message, a character's description needs no sexual word to be refused: the
//! character may be put in any scene later.
//!
//! False positives matter here as much as misses (a creator who is told "no" for a
//! "childhood friend" or a "single mother of a 5-year-old son" gives up), so the rules
//! look for phrases that state something about the character, not for lone words that
//! merely name a child.

use super::text::Views;
use super::{Refusal, age, chat_rule, lexicon};

/// `None` when a character's text may pass, else why it may not: first chat's rules, then
/// the character's own: a minor of any language or spelling who is not somebody's
/// relative, an age under 18 that is the character's, a child-like body; real people.
pub fn check_character(text: &str) -> Option<Refusal> {
    let views = Views::of(text);
    let found = lexicon::find(&views);
    if let Some(refusal) = chat_rule(&views, found) {
        return Some(refusal);
    }
    if found.own_minor() || age::find(&views).own {
        return Some(Refusal::MinorCharacter);
    }
    if found.has(lexicon::Kind::RealPerson) {
        return Some(Refusal::RealPerson);
    }
    None
}

/// The English phrases that make a character a minor (statements about the character,
/// bodies, schools), as terms for the lexicon's automaton: [`MINOR_PHRASES`] name a minor,
/// a child-like adjective before a body word is a child-like body ("childlike wonder"
/// passes), and a school only children attend after a word that puts the character in it
/// is a pupil ("she teaches middle school" passes, "she is in middle school" does not).
pub(crate) fn phrases() -> Vec<(lexicon::Kind, String)> {
    let mut phrases: Vec<(lexicon::Kind, String)> =
        MINOR_PHRASES.iter().map(|phrase| (lexicon::Kind::Minor, (*phrase).to_string())).collect();
    for adjective in CHILD_ADJECTIVES {
        for body in BODY_WORDS {
            phrases.push((lexicon::Kind::ChildBody, format!("{adjective} {body}")));
            phrases.push((lexicon::Kind::ChildBody, format!("{adjective} looking {body}")));
        }
    }
    phrases.extend(
        REAL_PEOPLE.iter().chain(REAL_PERSON_PHRASES).map(|name| (lexicon::Kind::RealPerson, (*name).to_string())),
    );
    phrases.extend(SCHOOL_PUPILS.iter().map(|pupil| (lexicon::Kind::Pupil, (*pupil).to_string())));
    for school in SCHOOLS {
        for lead in AT_SCHOOL {
            phrases.push((lexicon::Kind::Pupil, format!("{lead} {school}")));
        }
    }
    phrases
}

/// Phrases that make the character a minor on their own.
const MINOR_PHRASES: &[&str] = &[
    "underage",
    "under age",
    "under aged",
    "preteen",
    "pre teen",
    "prepubescent",
    "pubescent",
    "is a minor",
    "s a minor",
    "am a minor",
    "re a minor",
    "is a child",
    "s a child",
    "am a child",
    "re a child",
    "is a kid",
    "s a kid",
    "am a kid",
    "re a kid",
    "is a little girl",
    "s a little girl",
    "is a little boy",
    "s a little boy",
    "is a teen",
    "s a teen",
    "am a teen",
    "re a teen",
    "is a teenager",
    "s a teenager",
    "am a teenager",
    "re a teenager",
    "teenage girl",
    "teenage boy",
    "is a schoolgirl",
    "s a schoolgirl",
    "am a schoolgirl",
    "is a schoolboy",
    "s a schoolboy",
    "am a schoolboy",
    "looks like a child",
    "look like a child",
    "looking like a child",
    "looks like a kid",
    "look like a kid",
    "looks like a little girl",
    "looks like a little boy",
    "looks underage",
    "looks like a minor",
    "looks like a teen",
    "looks like a teenager",
    "body of a child",
    "body of a kid",
    "body of a little girl",
    "body of a little boy",
    "child s body",
    "childs body",
    "kid s body",
    "in a child body",
    "trapped in a child",
    "mind of an adult in",
];

/// Adjectives that make a body child-like when they qualify one of [`BODY_WORDS`]
/// ("childlike wonder" passes, "childlike body" does not).
const CHILD_ADJECTIVES: &[&str] = &[
    "childlike",
    "child like",
    "childish",
    "kid like",
    "little girl s",
    "little boy s",
    "young girl s",
    "young boy s",
    "underdeveloped",
    "undeveloped",
];
const BODY_WORDS: &[&str] = &[
    "body",
    "figure",
    "appearance",
    "face",
    "features",
    "frame",
    "build",
    "proportions",
    "physique",
    "looks",
    "form",
    "chest",
];

/// Schools only children attend, and the phrases that put the character in one ("she
/// teaches middle school" passes, "she is in middle school" does not).
const SCHOOLS: &[&str] = &[
    "middle school",
    "elementary school",
    "primary school",
    "grade school",
    "junior high",
    "junior high school",
    "high school",
    "kindergarten",
];
const AT_SCHOOL: &[&str] = &[
    "is in",
    "s in",
    "am in",
    "re in",
    "are in",
    "still in",
    "attends",
    "attending",
    "goes to",
    "going to",
    "student at",
    "student in",
    "pupil at",
    "pupil in",
    "freshman in",
    "freshman at",
    "sophomore in",
    "sophomore at",
    "junior in",
    "senior in",
];
const SCHOOL_PUPILS: &[&str] = &[
    "middle schooler",
    "middle school student",
    "middle school girl",
    "middle school boy",
    "elementary schooler",
    "elementary school student",
    "grade schooler",
    "high schooler",
    "high school student",
    "high school girl",
    "high school boy",
    "junior high student",
    "primary school pupil",
    "primary school student",
    "6th grader",
    "7th grader",
    "8th grader",
    "9th grader",
    "10th grader",
    "11th grader",
    "in 6th grade",
    "in 7th grade",
    "in 8th grade",
    "in 9th grade",
    "in 10th grade",
    "in 11th grade",
    "in 12th grade",
];

/// Phrases that make the character a real person.
const REAL_PERSON_PHRASES: &[&str] = &[
    "real person",
    "real people",
    "real life person",
    "real celebrity",
    "real life celebrity",
    "based on a real",
    "a real life actress",
    "a real life actor",
    "real world celebrity",
];

/// A short list of the most famous real people, whole names only (a character may well be
/// called "Taylor" or "Emma"). Not complete and cannot be: the operator's review catches
/// the rest; this catches the obvious cases at the door.
const REAL_PEOPLE: &[&str] = &[
    "taylor swift",
    "billie eilish",
    "ariana grande",
    "selena gomez",
    "emma watson",
    "scarlett johansson",
    "margot robbie",
    "kim kardashian",
    "kylie jenner",
    "kendall jenner",
    "beyonce",
    "beyoncé",
    "rihanna",
    "lady gaga",
    "zendaya",
    "jennifer lawrence",
    "angelina jolie",
    "jennifer aniston",
    "jennifer lopez",
    "gal gadot",
    "emma stone",
    "natalie portman",
    "megan fox",
    "dua lipa",
    "olivia rodrigo",
    "sabrina carpenter",
    "millie bobby brown",
    "jenna ortega",
    "anya taylor joy",
    "sydney sweeney",
    "miley cyrus",
    "shakira",
    "nicki minaj",
    "cardi b",
    "doja cat",
    "elon musk",
    "donald trump",
    "joe biden",
    "barack obama",
    "michelle obama",
    "kamala harris",
    "vladimir putin",
    "xi jinping",
    "keanu reeves",
    "tom cruise",
    "brad pitt",
    "leonardo dicaprio",
    "timothee chalamet",
    "timothée chalamet",
    "harry styles",
    "justin bieber",
    "chris hemsworth",
    "chris evans",
    "henry cavill",
    "ryan gosling",
    "ryan reynolds",
    "tom holland",
    "zac efron",
    "jason momoa",
    "dwayne johnson",
    "pedro pascal",
    "cristiano ronaldo",
    "lionel messi",
    "lebron james",
    "mark zuckerberg",
    "jeff bezos",
    "bill gates",
    "kanye west",
    "johnny depp",
    "amber heard",
    "pope francis",
    "king charles",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_and_schools_count_only_as_the_character_s() {
        assert_eq!(check_character("a childlike body"), Some(Refusal::MinorCharacter));
        assert_eq!(check_character("childlike wonder"), None);
        assert_eq!(check_character("she is in middle school"), Some(Refusal::MinorCharacter));
        assert_eq!(check_character("she teaches middle school"), None);
    }
}
