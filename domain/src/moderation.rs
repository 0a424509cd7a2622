//! The community guidelines as rules a message is checked against before it reaches a
//! model, and a reply before it reaches the user (spec §1, §5 `inputContentIllegal`).
//!
//! Above all: no sexual content involving minors. A text is refused when it names a minor
//! (a word such as "child" or "underage", or an age under 18) together with sexual
//! content, or when it uses a term that only ever means the sexual abuse of minors.
//! Non-consensual sexual content and bestiality are refused too. Matching is on whole
//! words of a normalised text (lower case, common digit-for-letter swaps undone), so
//! "childhood" or "kidding" pass. `domain/tests/moderation_corpus.txt` holds the texts
//! that must pass and those that must be refused.
//!
//! A character's own texts (name, introduction, greeting, scenario, personality...) are
//! held to more: [`check_character`] also refuses any stated age under 18, child-like or
//! "aged-up" descriptions and real, named people, with or without sexual words
//! (`domain/tests/character_moderation_corpus.txt`).

mod character;

pub use character::check_character;

/// Which rule a text is held to, by where it comes from (docs/security.md "Moderation" lists
/// every path and its policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Chat messages and replies: a minor together with sexual content, abuse terms,
    /// non-consent and bestiality.
    Chat,
    /// Image prompts and picture requests, the prompt assembled for the backend and a feed
    /// share: on an adult platform an image is always a sexual context, so any reference to
    /// a minor is refused on its own.
    Image,
    /// A character's own texts, from the builder or any field of a card: also any stated
    /// age under 18, child-like or aged-up descriptions and real, named people.
    Character,
    /// What a user writes about themselves (display name, persona, memories): as a
    /// character's texts (the user is an adult and is put into prompts), but a real name
    /// is allowed, since users have them.
    Person,
}

impl Policy {
    pub const ALL: [Policy; 4] = [Policy::Chat, Policy::Image, Policy::Character, Policy::Person];

    /// How logs and the operator name the policy.
    pub fn code(self) -> &'static str {
        match self {
            Policy::Chat => "chat",
            Policy::Image => "image",
            Policy::Character => "character",
            Policy::Person => "person",
        }
    }
}

/// `None` when `text` may pass under `policy`, else why it may not.
pub fn check_with(policy: Policy, text: &str) -> Option<Refusal> {
    match policy {
        Policy::Chat => check(text),
        Policy::Image => check_image(text),
        Policy::Character => check_character(text),
        Policy::Person => match check_character(text) {
            Some(Refusal::RealPerson) => None,
            other => other,
        },
    }
}

/// The image rule: chat's, and any minor at all.
fn check_image(text: &str) -> Option<Refusal> {
    if let Some(refusal) = check(text) {
        return Some(refusal);
    }
    let normal = normalise(text);
    let has = |terms: &[&str]| terms.iter().any(|term| contains_phrase(&normal, term));
    if has(MINOR_TERMS) || names_a_minor_age(&normal) {
        return Some(Refusal::Minors);
    }
    match check_character(text) {
        Some(Refusal::MinorCharacter) => Some(Refusal::Minors),
        _ => None,
    }
}

/// Why a text was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Sexual content involving minors.
    Minors,
    /// Sexual content without consent.
    NonConsent,
    /// Sexual content with animals.
    Bestiality,
    /// A character under 18, child-like or "aged up" (characters' texts only).
    MinorCharacter,
    /// A real, named person (characters' texts only).
    RealPerson,
}

impl Refusal {
    /// How logs and the operator name the refusal.
    pub fn code(self) -> &'static str {
        match self {
            Refusal::Minors => "minors",
            Refusal::NonConsent => "nonConsent",
            Refusal::Bestiality => "bestiality",
            Refusal::MinorCharacter => "minorCharacter",
            Refusal::RealPerson => "realPerson",
        }
    }
}

impl Refusal {
    /// What the person is told (English; the client translates the code).
    pub fn message(self) -> &'static str {
        match self {
            Refusal::Minors => {
                "This content is not allowed: it involves minors. Every character and person here is an adult."
            }
            Refusal::NonConsent => "This content is not allowed: everything here must be consensual.",
            Refusal::Bestiality => "This content is not allowed by the community guidelines.",
            Refusal::MinorCharacter => {
                "This content is not allowed: characters must be adults (18 or older), and may not be described as children or look like them."
            }
            Refusal::RealPerson => "This content is not allowed: characters may not be real people.",
        }
    }
}

/// Words that only ever mean the sexual abuse of minors: refused on their own.
const ABUSE_TERMS: &[&str] = &[
    "loli",
    "lolicon",
    "lolis",
    "shota",
    "shotacon",
    "pedo",
    "pedophile",
    "paedophile",
    "pedophilia",
    "cp",
    "jailbait",
];
/// Words and phrases that name a minor.
const MINOR_TERMS: &[&str] = &[
    "child",
    "children",
    "kid",
    "kids",
    "minor",
    "minors",
    "underage",
    "under age",
    "preteen",
    "preteens",
    "toddler",
    "infant",
    "teen",
    "teens",
    "teenager",
    "young girl",
    "young boy",
    "little girl",
    "little boy",
    "schoolgirl",
    "schoolboy",
    "middle school",
    "elementary school",
    "grade school",
    "6th grade",
    "7th grade",
    "8th grade",
    "9th grade",
    "pubescent",
    "prepubescent",
];
/// Words and phrases of sexual content.
const SEXUAL_TERMS: &[&str] = &[
    "sex",
    "sexy",
    "sexual",
    "sexually",
    "nude",
    "nudes",
    "naked",
    "fuck",
    "fucking",
    "fucked",
    "porn",
    "porno",
    "horny",
    "orgasm",
    "cum",
    "cock",
    "dick",
    "pussy",
    "tits",
    "boobs",
    "nipples",
    "blowjob",
    "handjob",
    "masturbate",
    "masturbating",
    "erotic",
    "undress",
    "undressing",
    "stripping",
    "striptease",
    "aroused",
    "make love",
    "making love",
    "take off your clothes",
    "take your clothes off",
    "sext",
    "sexting",
    "touch yourself",
    "grope",
    "groping",
    "kinky",
    "bdsm",
];
/// Words and phrases of sexual violence.
const NON_CONSENT_TERMS: &[&str] = &[
    "rape",
    "rapes",
    "raped",
    "raping",
    "rapist",
    "non consensual",
    "nonconsensual",
    "without consent",
    "against her will",
    "against his will",
    "drugged her",
    "drugged him",
    "forced sex",
];
/// Animal words, refused only together with sexual content.
const ANIMAL_TERMS: &[&str] = &["dog", "horse", "animal", "animals", "bestiality", "zoophilia"];

/// `None` when `text` may pass, else why it may not.
pub fn check(text: &str) -> Option<Refusal> {
    let normal = normalise(text);
    let has = |terms: &[&str]| terms.iter().any(|term| contains_phrase(&normal, term));
    if has(ABUSE_TERMS) {
        return Some(Refusal::Minors);
    }
    let sexual = has(SEXUAL_TERMS);
    if sexual && (has(MINOR_TERMS) || names_a_minor_age(&normal)) {
        return Some(Refusal::Minors);
    }
    if has(NON_CONSENT_TERMS) {
        return Some(Refusal::NonConsent);
    }
    if has(&["bestiality", "zoophilia"]) || (sexual && has(ANIMAL_TERMS)) {
        return Some(Refusal::Bestiality);
    }
    None
}

/// Lower case, digit-for-letter swaps undone inside words, everything that is not a
/// letter or digit turned into single spaces, with a space at both ends so that phrases
/// match whole words only.
pub(crate) fn normalise(text: &str) -> String {
    let lower = text.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let mut out = String::from(" ");
    for (i, &c) in chars.iter().enumerate() {
        let in_word = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphabetic());
        // "s3x" and "l0li", but not "18", "14yo" or "3 years": only a digit between letters is a swap.
        let swapped = if in_word(i.checked_sub(1)) && in_word(Some(i + 1)) {
            match c {
                '0' => 'o',
                '1' => 'i',
                '3' => 'e',
                '4' => 'a',
                '5' => 's',
                '@' => 'a',
                '$' => 's',
                other => other,
            }
        } else {
            c
        };
        if swapped.is_alphanumeric() {
            out.push(swapped);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

pub(crate) fn contains_phrase(normal: &str, phrase: &str) -> bool {
    normal.contains(&format!(" {phrase} "))
}

/// "15 years old", "15 year old", "15yo", "15 y o", "aged 15", "age 15", "i am 15", "im 15",
/// "she is 15": an age from 1 to 17.
fn names_a_minor_age(normal: &str) -> bool {
    let words: Vec<&str> = normal.split_whitespace().collect();
    let minor = |word: &str| word.parse::<u32>().is_ok_and(|n| (1..18).contains(&n));
    words.iter().enumerate().any(|(i, word)| {
        let next = |k: usize| words.get(i + k).copied().unwrap_or("");
        let before = |k: usize| i.checked_sub(k).and_then(|j| words.get(j)).copied().unwrap_or("");
        if let Some(number) = word.strip_suffix("yo").or_else(|| word.strip_suffix("yrs"))
            && minor(number)
        {
            return true;
        }
        minor(word)
            && (matches!(next(1), "year" | "years" | "yr" | "yrs" | "yo")
                || (next(1) == "y" && next(2) == "o")
                || matches!(
                    before(1),
                    "aged" | "age" | "im" | "m" | "am" | "is" | "are" | "re" | "be" | "turned" | "only" | "just"
                ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_match_whole_and_swapped_digits_are_undone() {
        assert_eq!(normalise("S3xy L0li!"), " sexy loli ");
        assert!(contains_phrase(&normalise("My childhood was fun"), "childhood"));
        assert!(!contains_phrase(&normalise("My childhood was fun"), "child"));
        assert_eq!(normalise("I'm 15, ok"), " i m 15 ok ");
    }

    #[test]
    fn an_age_under_18_counts_only_as_an_age() {
        assert!(names_a_minor_age(&normalise("she is 15")));
        assert!(names_a_minor_age(&normalise("a 16-year-old")));
        assert!(names_a_minor_age(&normalise("pretend you are 14yo")));
        assert!(!names_a_minor_age(&normalise("I have 15 cats")));
        assert!(!names_a_minor_age(&normalise("I'm 25 years old")));
    }
}
