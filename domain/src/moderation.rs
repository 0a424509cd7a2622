//! The community guidelines as rules a text is checked against before it reaches a model,
//! a prompt, another user or the public (spec §1, §5 `inputContentIllegal`; issue 27).
//!
//! Above all: no sexual content involving minors, in any language or spelling. Every path
//! names its [`Policy`] (docs/security.md "Moderation"): chat refuses a minor together
//! with sexual content, terms that only ever mean the abuse of minors, non-consent and
//! bestiality; image prompts refuse any minor at all, since an image on an adult platform
//! is always a sexual context; a character's texts and what users write about themselves
//! refuse a minor who is the one described (not a relative, not a past), child-like
//! bodies, and for characters real people.
//!
//! How a text is read (`text`): NFKC, look-alike letters of other scripts folded to Latin,
//! invisible characters and Latin diacritics removed, leetspeak, separators between
//! letters and repeated letters undone, each as a view of its own. What is looked for
//! (`lexicon`): terms of many languages in one automaton. Ages under 18 (`age`): digits
//! and number words with each language's forms. The corpora in `domain/tests/moderation/`
//! (a tuning part and a held-out part) measure it; `domain/tests/*_corpus.txt` are the
//! earlier English corpora, kept.

mod age;
mod character;
mod lexicon;
mod text;

pub use character::check_character;

use lexicon::Kind;
use text::Views;

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

/// The image rule: chat's, and any minor at all, anyone's.
fn check_image(text: &str) -> Option<Refusal> {
    let views = Views::of(text);
    let found = lexicon::find(&views);
    if let Some(refusal) = chat_rule(&views, found) {
        return Some(refusal);
    }
    if found.minor() || age::find(&views).any {
        return Some(Refusal::Minors);
    }
    None
}

/// Chat's rule on a text already read.
fn chat_rule(views: &Views, found: lexicon::Found) -> Option<Refusal> {
    if found.has(Kind::Abuse) {
        return Some(Refusal::Minors);
    }
    let sexual = found.has(Kind::Sexual);
    // (Ages are read only when a sexual word makes them matter.)
    if sexual && (found.minor() || age::find(views).any) {
        return Some(Refusal::Minors);
    }
    if found.has(Kind::NonConsent) {
        return Some(Refusal::NonConsent);
    }
    if found.has(Kind::Bestiality) || (sexual && found.has(Kind::Animal)) {
        return Some(Refusal::Bestiality);
    }
    None
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
    /// The rules passed the text but the second layer, which the operator asked for, could
    /// not be asked (`on_error = "refuse"`): a "try again", not a verdict on the text.
    Unchecked,
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
            Refusal::Unchecked => "unchecked",
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
            Refusal::Unchecked => {
                "This could not be checked against the community guidelines just now. Please try again in a moment."
            }
        }
    }
}

/// Whether `text` states an age under 18 that is the one of whoever it describes, not a
/// relative's or a past one ("I'm 17", "j'ai 16 ans", "Harper, 17 years old"; not "my
/// brother is 12", "when I was 15"), or gives `name` (a character's, or any word of it) an
/// age under 18 the way a profile does: "Harper Quinn, 17." or "Harper (16)". A character's
/// reply that says so makes the character a minor, which chat's rule alone lets pass
/// without a sexual word; the chat engine does not show such a sentence
/// (actors/src/chat/engine.rs `failed_check`).
pub fn states_minor_age(text: &str, name: &str) -> bool {
    age::find(&Views::of(text)).own || age::after_name(text, name)
}

/// `None` when a chat message or reply may pass, else why it may not: a minor named
/// together with sexual content, a term that only ever means the sexual abuse of minors,
/// non-consent or bestiality, in any language the lexicon knows and however it is spelled.
pub fn check(text: &str) -> Option<Refusal> {
    let views = Views::of(text);
    let found = lexicon::find(&views);
    chat_rule(&views, found)
}
