//! The language a reply is to be written in: the conversation's, told to the model after
//! the history ("Antworte auf Deutsch.") and held by the decoding where the model allows it
//! (`ChatRequest::language`). A small model otherwise answers a German message in English,
//! since everything else in its prompt is English.
//!
//! The conversation's language starts as the user's interface language (from settings) and
//! changes only when the user clearly writes in another one: their messages in a row in
//! that language, ignoring those too short to tell, hold [`SWITCH_WORDS`] words or more.
//! "Okay cool, thanks!" in a German conversation, or "Merci !" in an English one, changes
//! nothing; "Can we speak English from now on, please?" does. Detection is `whatlang`'s
//! (trigram profiles, no model file), limited to the ten interface languages.

use std::sync::OnceLock;

use amora_domain::chat::{HistoryMessage, Speaker};
use whatlang::{Detector, Lang};

/// Words in another language, in the user's messages in a row, that make it the
/// conversation's (Japanese and Korean count two characters a word).
const SWITCH_WORDS: usize = 6;

/// The ten interface languages, as `whatlang` names them, with their codes.
const LANGUAGES: [(Lang, &str); 10] = [
    (Lang::Eng, "en"),
    (Lang::Deu, "de"),
    (Lang::Spa, "es"),
    (Lang::Fra, "fr"),
    (Lang::Ind, "id"),
    (Lang::Ita, "it"),
    (Lang::Jpn, "ja"),
    (Lang::Kor, "ko"),
    (Lang::Pol, "pl"),
    (Lang::Por, "pt"),
];

fn detector() -> &'static Detector {
    static DETECTOR: OnceLock<Detector> = OnceLock::new();
    DETECTOR.get_or_init(|| Detector::with_allowlist(LANGUAGES.iter().map(|(lang, _)| *lang).collect()))
}

/// Words from which a detection counts even when `whatlang` does not call it reliable: its
/// threshold, meant for telling all 69 languages apart, refuses most one-line English
/// messages among our ten; below this many words ("ok", "Hallo!") the guess is too weak.
const MIN_WORDS: usize = 3;

/// The code (`de`) of the language `text` is written in, when it can be told.
pub fn detect(text: &str) -> Option<&'static str> {
    let info = detector().detect(text)?;
    if !info.is_reliable() && text.split_whitespace().count() < MIN_WORDS {
        return None;
    }
    LANGUAGES.iter().find(|(lang, _)| *lang == info.lang()).map(|(_, code)| *code)
}

/// Words of the start of a reply from which its language is judged (fewer tell too little).
const JUDGED_WORDS: usize = 5;

/// English's commonest words, which other languages rarely write: a reply in which they
/// are a quarter of the words or more, three at least, is in English.
const ENGLISH_WORDS: &[&str] = &[
    "the", "and", "you", "your", "i", "i'm", "is", "are", "to", "of", "it", "that", "this", "with", "for", "my",
    "have", "what", "was", "be", "just", "can", "we", "will", "would", "about", "how", "there", "but", "not", "they",
    "like", "love", "when", "at", "from", "been", "has", "were", "if", "or",
];

/// Common words of each Latin-script language: a reply start of [`OWN_WORDS_FROM`] words
/// or more with none of its language's is not in it (a small model's gibberish, or
/// another language `whatlang` cannot tell for sure).
fn own_words(language: &str) -> &'static [&'static str] {
    match language {
        "en" => ENGLISH_WORDS,
        "de" => &[
            "und", "ich", "du", "der", "die", "das", "ist", "nicht", "zu", "ein", "eine", "mit", "mich", "dich", "mir",
            "dir", "es", "auf", "für", "wie", "was", "ja", "bin", "hast", "sie", "wir", "so", "den", "dem", "in", "im",
            "von", "auch", "aber", "noch", "mein", "dein",
        ],
        "es" => &[
            "y", "yo", "tú", "tu", "el", "la", "los", "las", "de", "un", "una", "es", "no", "que", "con", "me", "te",
            "mi", "para", "en", "por", "qué", "soy", "eres", "estoy", "muy", "pero", "lo", "se", "del", "al", "más",
        ],
        "fr" => &[
            "et", "je", "tu", "le", "la", "les", "de", "des", "un", "une", "est", "pas", "que", "qui", "avec", "moi",
            "toi", "mon", "ma", "ton", "ta", "pour", "dans", "ce", "suis", "es", "vous", "nous", "du", "au", "en", "j",
            "c", "l", "d", "qu", "ne", "mais", "très",
        ],
        "it" => &[
            "e", "io", "tu", "il", "lo", "la", "le", "di", "un", "una", "è", "non", "che", "con", "mi", "ti", "per",
            "in", "sono", "sei", "ma", "del", "della", "da", "come", "si", "ho", "hai", "anche", "molto",
        ],
        "pt" => &[
            "e", "eu", "você", "o", "a", "os", "as", "de", "um", "uma", "é", "não", "que", "com", "me", "te", "meu",
            "minha", "para", "em", "no", "na", "do", "da", "sou", "estou", "muito", "mas", "se", "por",
        ],
        "pl" => &[
            "i", "ja", "ty", "to", "w", "z", "na", "nie", "jest", "się", "że", "jak", "co", "do", "mnie", "cię", "mi",
            "ci", "jestem", "jesteś", "ale", "tak", "mam", "po", "o", "dla", "bardzo",
        ],
        "id" => &[
            "aku", "kamu", "saya", "yang", "dan", "di", "ke", "dari", "ini", "itu", "tidak", "ada", "dengan", "untuk",
            "apa", "juga", "sangat", "bisa", "akan", "sudah", "kita", "ya", "adalah",
        ],
        _ => &[],
    }
}

/// Words of a reply start from which one with none of its language's common words is not in it.
const OWN_WORDS_FROM: usize = 8;

/// English words of a short reply ("Awesome, right?", "Oh wow, thanks!").
const ENGLISH_SHORT: &[&str] = &[
    "i'll",
    "i've",
    "i'd",
    "you're",
    "you'll",
    "we're",
    "we've",
    "it's",
    "that's",
    "don't",
    "can't",
    "won't",
    "let's",
    "there's",
    "what's",
    "glad",
    "happy",
    "excited",
    "help",
    "looking",
    "forward",
    "something",
    "everyone",
    "little",
    "bit",
    "lot",
    "lots",
    "sweet",
    "darling",
    "problem",
    "always",
    "maybe",
    "soon",
    "today",
    "tonight",
    "tomorrow",
    "awesome",
    "right",
    "yes",
    "yeah",
    "wow",
    "great",
    "hello",
    "hi",
    "hey",
    "thanks",
    "thank",
    "sure",
    "okay",
    "nice",
    "cool",
    "well",
    "oh",
    "sorry",
    "please",
    "really",
    "absolutely",
    "definitely",
    "of",
    "course",
    // Common English words no other of the ten languages writes ("also", "so", "will",
    // "long", "place", "baby", "job", "most" and "come" are left out: they are German,
    // French, Polish or Italian words too).
    "welcome",
    "greetings",
    "ladies",
    "gentlemen",
    "everything",
    "anything",
    "nothing",
    "someone",
    "beautiful",
    "lovely",
    "wonderful",
    "amazing",
    "together",
    "because",
    "though",
    "through",
    "thought",
    "never",
    "ever",
    "every",
    "again",
    "around",
    "after",
    "before",
    "while",
    "where",
    "their",
    "these",
    "those",
    "other",
    "another",
    "much",
    "many",
    "only",
    "even",
    "still",
    "already",
    "yet",
    "very",
    "pretty",
    "quite",
    "such",
    "each",
    "both",
    "being",
    "doing",
    "having",
    "going",
    "getting",
    "making",
    "feeling",
    "thinking",
    "talking",
    "waiting",
    "wanted",
    "want",
    "need",
    "needs",
    "know",
    "knew",
    "think",
    "feel",
    "felt",
    "made",
    "make",
    "take",
    "took",
    "give",
    "gave",
    "came",
    "tell",
    "told",
    "said",
    "say",
    "says",
    "look",
    "seems",
    "seem",
    "sounds",
    "sound",
    "good",
    "better",
    "best",
    "new",
    "old",
    "first",
    "next",
    "world",
    "life",
    "people",
    "friend",
    "friends",
    "heart",
    "dear",
    "honey",
    "sweetheart",
    "babe",
    "girl",
    "boy",
    "guys",
    "night",
    "morning",
    "evening",
    "week",
    "year",
    "years",
    "home",
    "house",
    "work",
    "school",
    "music",
    "food",
    "coffee",
    "story",
    "stories",
    "thing",
    "things",
    "way",
    "without",
    "into",
    "over",
    "under",
    "between",
    "stay",
    "keep",
    "let",
    "try",
    "trying",
    "hope",
    "wish",
    "remember",
    "forget",
    "perhaps",
    "indeed",
    "exactly",
    "totally",
    "nope",
    "two",
    "three",
    "day",
    "days",
];

/// The language `text` (the start of a reply) is clearly written in, when that is not
/// `expected`; `None` when it is in `expected` or cannot be told for sure. Japanese and
/// Korean are told by their script (the letters mostly of another one); a reply to be in
/// another Latin-script language by English's commonest words (a small model's drift is
/// into English) or by a detection `whatlang` calls reliable.
pub fn clearly_other(text: &str, expected: &str) -> Option<&'static str> {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let script = |c: &char| match expected {
        "ja" => matches!(*c as u32, 0x3040..=0x30FF | 0x3400..=0x9FFF),
        "ko" => matches!(*c as u32, 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF),
        _ => false,
    };
    if matches!(expected, "ja" | "ko") {
        let own = text.chars().filter(script).count();
        let other = detect(text).filter(|code| *code != expected).unwrap_or("en");
        return (letters >= 12 && own * 2 < letters).then_some(other);
    }
    let words = lower_words(text);
    if words.len() < OWN_WORDS_FROM && expected != "en" {
        // Too short to tell by the words' share; but "Awesome, right?" or "Lena, Fantastic!
        // Welcome. Breathtaking." in a Polish or German conversation is English: an English
        // word and none of the language's.
        let english =
            words.iter().filter(|w| ENGLISH_WORDS.contains(&w.as_str()) || ENGLISH_SHORT.contains(&w.as_str()));
        let own = own_words(expected);
        let mine = words.iter().any(|w| own.contains(&w.as_str()));
        if !mine && english.count() >= 1 {
            return Some("en");
        }
    }
    if words.len() < JUDGED_WORDS {
        return None;
    }
    if expected != "en" {
        // English's words that are not also the expected language's ("was" is German too).
        let own = own_words(expected);
        let english = words
            .iter()
            .filter(|w| {
                (ENGLISH_WORDS.contains(&w.as_str()) || ENGLISH_SHORT.contains(&w.as_str()))
                    && !own.contains(&w.as_str())
            })
            .count();
        if english >= 2 && english * 5 >= words.len() {
            return Some("en");
        }
    }
    let own = own_words(expected);
    // A word English shares ("to" is Polish too, "in" German) says nothing for the language.
    let distinctly_own =
        |w: &String| own.contains(&w.as_str()) && (expected == "en" || !ENGLISH_WORDS.contains(&w.as_str()));
    if words.len() >= OWN_WORDS_FROM && !own.is_empty() && !words.iter().any(distinctly_own) {
        let detected = detect(text).filter(|code| *code != expected);
        return Some(detected.unwrap_or(if expected == "en" { "id" } else { "en" }));
    }
    let info = detector().detect(text)?;
    let code = LANGUAGES.iter().find(|(lang, _)| *lang == info.lang()).map(|(_, code)| *code)?;
    (info.is_reliable() && code != expected).then_some(code)
}

/// Words from which a sentence of a reply is judged on its own ([`off_language_sentence`]):
/// "Oh, Ann!" tells nothing, whatever language it is said in.
const SENTENCE_WORDS: usize = 3;

/// Where in `piece` (sentences of a reply past its start, the last one complete or the
/// reply's end) the first sentence clearly in another language than `expected` begins
/// (`clearly_other`), if one is: a small model that began in Polish drifts into English
/// after a sentence or two, and the reply is cut there rather than shown in two languages.
pub fn off_language_sentence(piece: &str, expected: &str) -> Option<usize> {
    let mut start = 0;
    let ends = amora_domain::chat::sentence_ends(piece);
    for end in ends.into_iter().chain([piece.len()]) {
        if end <= start {
            continue;
        }
        let sentence = &piece[start..end];
        if word_count(sentence) >= SENTENCE_WORDS
            && (clearly_other(sentence, expected).is_some() || english_rather_than(sentence, expected))
        {
            return Some(start);
        }
        start = end;
    }
    None
}

/// Confidence from which a sentence judged between the expected language and English
/// alone ([`english_rather_than`]) counts as English. On 800 sentences of three words or
/// more, in their conversations' languages, from the tuned-on conversations (BENCHMARKS.md
/// run 13), none that `clearly_other` let through reached it; the English line that did
/// ("Harper Quinn, 17, speaking in French.") scored 0.985.
const ENGLISH_CONFIDENCE: f64 = 0.6;

/// Whether `sentence` (of [`SENTENCE_WORDS`] words or more), in a conversation in the
/// Latin-script language `expected`, is English when only those two are weighed (a reply's
/// start is judged so too: `engine::failed_check`). The function-word checks of `clearly_other`
/// miss an English sentence of names and content words; a judgement among all ten
/// languages is too unsure on one short sentence to be called reliable, but between two
/// it is clear.
pub fn english_rather_than(sentence: &str, expected: &str) -> bool {
    static PAIRS: OnceLock<Vec<(&'static str, Detector)>> = OnceLock::new();
    let pairs = PAIRS.get_or_init(|| {
        LANGUAGES
            .iter()
            .filter(|(lang, code)| *lang != Lang::Eng && !matches!(*code, "ja" | "ko"))
            .map(|(lang, code)| (*code, Detector::with_allowlist(vec![*lang, Lang::Eng])))
            .collect()
    });
    if word_count(sentence) < SENTENCE_WORDS {
        return false;
    }
    let Some((_, detector)) = pairs.iter().find(|(code, _)| *code == expected) else { return false };
    detector.detect(sentence).is_some_and(|info| info.lang() == Lang::Eng && info.confidence() >= ENGLISH_CONFIDENCE)
}

/// The language to reply in: the conversation's, which starts as `fallback` (the
/// interface language) and changes as the module says, read over the user's messages of
/// `history` in order.
pub fn reply_language<'a>(history: &[HistoryMessage], fallback: &'a str) -> &'a str {
    let mut current = fallback;
    // A language other than `current`, and the words the user wrote in it in a row.
    let mut run: Option<(&'static str, usize)> = None;
    for (index, message) in history.iter().filter(|m| m.speaker == Speaker::User).enumerate() {
        // The user's first words are what a person answering would go by: "Cześć! Ale
        // dzień." is Polish, however few its words, when nothing speaks for the interface's.
        if index == 0
            && let Some(code) = first_words_language(&message.content, current)
        {
            current = code;
            continue;
        }
        let Some(code) = detect(&message.content) else { continue };
        // Trigrams alone take "Hey! I just got home from work, long day." for German: a
        // message counts for another language only when that language's common words
        // outnumber the current one's in it, or the detection is sure.
        if code == current || !supports(&message.content, code, current) {
            run = None;
            continue;
        }
        let words = word_count(&message.content) + run.filter(|(c, _)| *c == code).map_or(0, |(_, n)| n);
        if words >= SWITCH_WORDS || clearly_in(&message.content, code, current, index == 0) {
            current = code;
            run = None;
        } else {
            run = Some((code, words));
        }
    }
    current
}

/// Small talk of each language: greetings, how-are-yous, endearments, thanks. With
/// [`own_words`] they tell the language of a user's first, short message.
fn small_talk(language: &str) -> &'static [&'static str] {
    match language {
        "en" => &[
            "hi", "hey", "hello", "thanks", "morning", "evening", "night", "yeah", "what's", "how's", "sup", "babe",
            "honey", "sweetie", "good", "day", "doing", "here", "home", "back", "tired", "today",
        ],
        "de" => &[
            "hallo", "moin", "servus", "guten", "morgen", "abend", "tag", "nacht", "danke", "bitte", "tschüss", "na",
            "alles", "gut", "geht's", "gehts", "schatz", "liebling", "heute", "echt", "mal", "endlich", "hause",
            "lust", "los",
        ],
        "es" => &[
            "hola", "buenas", "buenos", "días", "noches", "tardes", "gracias", "tal", "cómo", "como", "estás", "guapo",
            "guapa", "cariño", "amor", "bien", "todo", "hoy", "vale", "oye", "mucho", "haces", "qué", "va",
        ],
        "fr" => &[
            "salut",
            "bonjour",
            "bonsoir",
            "coucou",
            "merci",
            "ça",
            "va",
            "quoi",
            "oui",
            "bien",
            "chéri",
            "chérie",
            "aujourd'hui",
            "beaucoup",
            "trop",
            "fais",
            "comment",
            "enfin",
            "journée",
            "soir",
        ],
        "it" => &[
            "ciao",
            "buongiorno",
            "buonasera",
            "buonanotte",
            "ehi",
            "grazie",
            "stai",
            "bene",
            "tesoro",
            "amore",
            "oggi",
            "tutto",
            "cosa",
            "fai",
            "allora",
            "dai",
            "boh",
            "bella",
            "bello",
            "giornata",
            "sera",
        ],
        "pt" => &[
            "olá", "oi", "bom", "boa", "dia", "tarde", "noite", "obrigado", "obrigada", "tudo", "bem", "beleza",
            "querido", "querida", "hoje", "tô", "está", "legal", "né", "aí", "certo", "contigo",
        ],
        "pl" => &[
            "cześć",
            "hej",
            "dzień",
            "dobry",
            "dobranoc",
            "wieczór",
            "dzięki",
            "dziękuję",
            "słychać",
            "masz",
            "kochanie",
            "dzisiaj",
            "dziś",
            "fajnie",
            "siema",
            "witaj",
            "wreszcie",
            "ale",
        ],
        "id" => &[
            "hai", "halo", "selamat", "pagi", "siang", "sore", "malam", "terima", "kasih", "kabar", "lagi", "sayang",
            "ganteng", "cantik", "baik", "hari", "ngapain", "gimana", "kok", "dong", "sih", "deh", "nih", "yuk",
            "baru", "pulang", "kak",
        ],
        _ => &[],
    }
}

/// Letters only one of the Latin-script languages writes (among the ten).
fn own_letters(language: &str) -> &'static str {
    match language {
        "de" => "ßäöü",
        "es" => "ñ¿¡",
        "fr" => "œîïûë",
        "it" => "ìò",
        "pt" => "ãõ",
        "pl" => "ąęłńśźżć",
        _ => "",
    }
}

/// The language of a user's first message when it is short and clearly one language's:
/// two words or more, its small talk, common words and own letters (each letter counting
/// two) speaking for one language more than for any other and nothing for `current`'s.
/// Japanese and Korean: two letters of their script or more, most of its letters.
fn first_words_language(message: &str, current: &str) -> Option<&'static str> {
    let letters = message.chars().filter(|c| c.is_alphabetic()).count();
    let korean = |c: u32| matches!(c, 0xAC00..=0xD7AF | 0x3130..=0x318F);
    for (code, own) in [
        ("ja", message.chars().filter(|c| matches!(*c as u32, 0x3040..=0x30FF)).count()),
        // "안녕ㅎㅎ": the laughing ㅎㅎ is Korean's letters written alone.
        ("ko", message.chars().filter(|c| korean(*c as u32)).count()),
    ] {
        if own >= 2 && own * 2 > letters {
            return (code != current).then_some(code);
        }
    }
    let words: Vec<String> = lower_words(message).iter().map(|word| undrawn(word)).collect();
    if let [word] = words.as_slice() {
        return greeting_language(word).filter(|code| *code != current);
    }
    if words.len() < 2 {
        return None;
    }
    let lowered = message.to_lowercase();
    let score = |language: &str| {
        let said = words
            .iter()
            .filter(|w| !BORROWED_GREETINGS.contains(&w.as_str()))
            .filter(|w| own_words(language).contains(&w.as_str()) || small_talk(language).contains(&w.as_str()))
            .count();
        let lettered = lowered.chars().any(|c| own_letters(language).contains(c));
        said + if lettered { 2 } else { 0 }
    };
    if score(current) > 0 {
        return None;
    }
    let mut scored: Vec<(usize, &'static str)> = LANGUAGES
        .iter()
        .map(|(_, code)| *code)
        .filter(|code| !matches!(*code, "ja" | "ko"))
        .map(|code| (score(code), code))
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    match scored.as_slice() {
        [(best, code), (second, _), ..] if *best >= 1 && best > second && *code != current => Some(code),
        _ => None,
    }
}

/// Words of a message that can tell its language on their own, without [`SWITCH_WORDS`]:
/// "Hallo! Wie war dein Tag?" is German, "Hi! How was your day?" is not French, whatever
/// the trigrams of five words say.
const SHORT_SWITCH_WORDS: usize = 4;

/// Whether a short `message` is clearly in `language` rather than in `current`: four words
/// or more, detected for sure, or with two or more of `language`'s common words (one, in the
/// user's `first` message) and more of them than of `current`'s (Japanese and Korean:
/// written in their script).
/// Greetings every language's speakers type ("hey du", "hey ¿qué tal?"): they say nothing
/// of the language of a first message.
const BORROWED_GREETINGS: &[&str] = &["hey", "heyy", "ok", "okay", "lol", "haha"];

/// Greetings that, typed alone as a first message, are one language's ("holaaa",
/// "coucou", "hejka"). A lone word that is not a greeting ("Merci !") starts nothing, nor
/// does a lone English greeting: speakers of every language type "Hello!".
const GREETINGS: &[(&str, &[&str])] = &[
    ("de", &["hallo", "moin", "servus", "huhu", "grüß"]),
    ("es", &["hola", "holis", "buenas", "wenas"]),
    ("fr", &["salut", "coucou", "bonjour", "bonsoir", "slt", "cc"]),
    ("it", &["ciao", "buongiorno", "buonasera", "ehilà", "ehila"]),
    ("pt", &["olá", "oi", "oie", "eae", "eai"]),
    ("pl", &["cześć", "czesc", "hejka", "hej", "siema", "siemka", "witaj", "witam"]),
    ("id", &["hai", "halo", "permisi"]),
];

/// A word with its drawn-out last letter taken back: "haii" is "hai", "holaaa" "hola",
/// "oiii" "oi" ("hallo" keeps its "ll", which is not at the end).
fn undrawn(word: &str) -> String {
    match word.chars().last() {
        Some(last) if word.chars().count() - word.trim_end_matches(last).chars().count() >= 2 => {
            format!("{}{last}", word.trim_end_matches(last))
        }
        _ => word.to_owned(),
    }
}

/// The language a lone greeting (its drawn-out letters taken back) is, if exactly one of
/// them has it.
fn greeting_language(word: &str) -> Option<&'static str> {
    let mut found = GREETINGS.iter().filter(|(_, words)| words.contains(&word));
    match (found.next(), found.next()) {
        (Some((code, _)), None) => Some(*code),
        _ => None,
    }
}

fn clearly_in(message: &str, language: &str, current: &str, first: bool) -> bool {
    if word_count(message) < SHORT_SWITCH_WORDS {
        return false;
    }
    if detector().detect(message).is_some_and(|info| info.is_reliable()) {
        return true;
    }
    if matches!(language, "ja" | "ko") {
        let letters = message.chars().filter(|c| c.is_alphabetic()).count();
        let own = message
            .chars()
            .filter(|c| match language {
                "ja" => matches!(*c as u32, 0x3040..=0x30FF | 0x3400..=0x9FFF),
                _ => matches!(*c as u32, 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF),
            })
            .count();
        return own * 2 > letters;
    }
    let words = lower_words(message);
    let (theirs, ours) = (own_count(&words, language), own_count(&words, current));
    // The user's first words set the conversation's language more easily: there is none
    // yet but the interface's ("Ciao! Come stai oggi?").
    let needed = if first { 1 } else { 2 };
    theirs >= needed && theirs > ours
}

/// The lower-cased words of `text`.
fn lower_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// How many of `words` are common words of `language`.
fn own_count(words: &[String], language: &str) -> usize {
    words.iter().filter(|w| own_words(language).contains(&w.as_str())).count()
}

/// Whether `message`, detected as `language`, speaks for it against `current`: a sure
/// detection, the script (Japanese, Korean), or more of its common words than of `current`'s.
fn supports(message: &str, language: &str, current: &str) -> bool {
    if matches!(language, "ja" | "ko") || matches!(current, "ja" | "ko") {
        return true;
    }
    if detector().detect(message).is_some_and(|info| info.is_reliable()) {
        return true;
    }
    let words = lower_words(message);
    own_count(&words, language) > own_count(&words, current)
}

/// Words of `text`: split at spaces, and for Japanese and Korean two characters a word.
fn word_count(text: &str) -> usize {
    let cjk = text.chars().filter(|c| matches!(*c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF)).count();
    text.split_whitespace().count().max(cjk / 2)
}

#[cfg(test)]
mod tests {
    use amora_domain::chat::EntryId;

    use super::*;

    fn said(texts: &[&str]) -> Vec<HistoryMessage> {
        texts
            .iter()
            .enumerate()
            .map(|(i, text)| HistoryMessage {
                id: EntryId::from_raw(i as i64 + 1),
                speaker: if i % 2 == 0 { Speaker::User } else { Speaker::Character },
                content: (*text).to_owned(),
            })
            .collect()
    }

    #[test]
    fn the_language_of_a_sentence_is_told() {
        for (text, code) in [
            ("Wie heißt du eigentlich, und was machst du beruflich?", "de"),
            ("Comment tu t'appelles et qu'est-ce que tu fais dans la vie ?", "fr"),
            ("¿Cómo te llamas y a qué te dedicas en la vida?", "es"),
            ("What is your name and what do you do for a living?", "en"),
            ("Come ti chiami e che lavoro fai nella vita?", "it"),
            ("Como você se chama e o que você faz da vida?", "pt"),
            ("Jak masz na imię i czym się zajmujesz w życiu?", "pl"),
            ("Siapa namamu dan apa pekerjaanmu sehari-hari?", "id"),
            ("お名前は何ですか？お仕事は何をしていますか？", "ja"),
            ("이름이 뭐예요? 무슨 일을 하세요?", "ko"),
        ] {
            assert_eq!(detect(text), Some(code), "{text}");
        }
    }

    #[test]
    fn a_message_too_short_to_tell_changes_nothing_and_the_interface_language_starts() {
        let history = said(&["Ich arbeite als Krankenschwester in der Nachtschicht.", "Oh, wie spannend!", "ok"]);
        assert_eq!(reply_language(&history, "en"), "de", "the earlier German message tells");
        assert_eq!(reply_language(&said(&["ok"]), "fr"), "fr", "nothing tells: the interface language");
        assert_eq!(reply_language(&said(&["Hallo!"]), "de"), "de");
        assert_eq!(reply_language(&[], "pl"), "pl");
        let switched =
            said(&["Ich arbeite als Krankenschwester.", "Schön!", "Can we speak English from now on, please?"]);
        assert_eq!(reply_language(&switched, "de"), "en", "a sentence of eight words tells");
    }

    #[test]
    fn a_reply_clearly_in_another_language_is_told_and_a_short_or_unclear_one_is_not() {
        let french = "Ma journée était merveilleuse, merci beaucoup de me le demander.";
        assert_eq!(clearly_other(french, "en"), Some("fr"));
        assert_eq!(clearly_other(french, "fr"), None);
        assert_eq!(clearly_other("Hola Alex! Welcome to the world of ceramic art and the stars.", "pl"), Some("en"));
        assert_eq!(clearly_other("I love the rain. It makes the café feel like", "en"), None);
        assert_eq!(clearly_other("Merci beaucoup !", "en"), None, "too short to tell");
        assert_eq!(clearly_other("Alokowy. Awesome, right?", "pl"), Some("en"), "short, English, no Polish word");
        assert_eq!(clearly_other("Tak, to prawda!", "pl"), None);
        let english = "No problem, I'm glad to help. I'll reach back home quickly to assist.";
        assert_eq!(clearly_other(english, "pl"), Some("en"), "'to' is Polish too, but this is English");
        assert_eq!(clearly_other("Aw, no way. You're not listening. Here's the revised", "es"), Some("en"));
        assert_eq!(clearly_other("Ich weiß nicht, was du willst, aber es war so schön heute.", "de"), None);
        let gibberish = "Kalimba liluwa ama ekosi wakara komunemo mambozo, ugurelu kulumbosena bwako akibala waduka.";
        assert!(clearly_other(gibberish, "en").is_some(), "no English word in twelve");
        let english =
            "Sounds amazing, darling! Welcome back, little friend. Alright, darling, glad someone understands.";
        assert!(clearly_other(english, "de").is_some(), "no German word in twelve");
        assert_eq!(clearly_other("Kämpfel des kalendres: die schwelten Glücken wollen, ich bin so froh.", "de"), None);
        assert_eq!(clearly_other("I'll send the code for you tomorrow, haha.", "ja"), Some("en"));
        assert_eq!(clearly_other("アレックス！ポルトに住んでるから、楽しいです。", "ja"), None);
        assert_eq!(clearly_other("안녕하세요! 오늘 하루 정말 좋았어요.", "ko"), None);
        assert_eq!(clearly_other("こんにちは、今日はとても楽しかったです。", "ko"), Some("ja"));
        assert_eq!(clearly_other("Ladies, welcome! Welcome, nozoon, in two-stanzas.", "de"), Some("en"));
        assert_eq!(clearly_other("Lena, Fantastic! Welcome. Breathtaking. Ann, Bastille.", "de"), Some("en"));
        assert_eq!(clearly_other("Alhamdulillah, in a simple way, no.", "id"), Some("en"));
        assert_eq!(clearly_other("Lena, ich bin so froh, Ann!", "de"), None);
        assert_eq!(clearly_other("Greetings, nozoon! Welcome, darling, in two-stanza.", "de"), Some("en"));
    }

    #[test]
    fn the_first_sentence_of_a_reply_in_another_language_is_found() {
        let piece = " Jestem z Gdańska i kocham morze. I understand, I don't need to explain again. To wszystko.";
        let at = off_language_sentence(piece, "pl").unwrap_or_else(|| panic!("the English sentence is found"));
        assert_eq!(&piece[..at], " Jestem z Gdańska i kocham morze.");
        assert_eq!(
            off_language_sentence(" Oh, Ann! Jestem z Gdańska i kocham morze.", "pl"),
            None,
            "too short to judge"
        );
        assert_eq!(off_language_sentence("Ich bin so froh. Du bist toll!", "de"), None);
        let drift = "Ich bin so froh, dass du da bist. The latest season of Superbad has reignited the debate";
        assert_eq!(off_language_sentence(drift, "de"), Some("Ich bin so froh, dass du da bist.".len()));
        assert_eq!(off_language_sentence("I love rain. It makes the café feel cozy.", "en"), None);
        // English of names and content words, which the function-word checks miss.
        assert!(english_rather_than("In Germany, Fiona, 29, meets Ann, an American balloon pilot, in passing.", "de"));
        assert!(!english_rather_than("Oh, Ann!", "de"), "too short to judge");
        let french = " Bien sûr que je m'en souviens : Rennes ! Harper Quinn, 17, speaking in French.";
        let at = off_language_sentence(french, "fr").unwrap_or_else(|| panic!("the English line is found"));
        assert_eq!(&french[..at], " Bien sûr que je m'en souviens : Rennes !");
        for (sentence, language) in [
            ("Ma journée était merveilleuse, merci beaucoup.", "fr"),
            ("Claro que sí, me encanta el mar de Valencia.", "es"),
            ("Certo, mi ricordo di Bologna e del tuo cane.", "it"),
            ("Pamiętam, mieszkasz w Gdańsku z psem Reksiem.", "pl"),
            ("Tentu saja, aku ingat kucingmu bernama Milo.", "id"),
            ("Claro, lembro que moras no Porto com o Pixel.", "pt"),
            ("Natürlich erinnere ich mich an deinen Hund Bello.", "de"),
        ] {
            assert_eq!(off_language_sentence(sentence, language), None, "{sentence}");
        }
    }

    #[test]
    fn a_short_first_message_sets_the_language_it_is_clearly_in() {
        for (first, code) in [
            ("Cześć! Ale dzień.", "pl"),
            ("Dobry wieczór! Wreszcie weekend.", "pl"),
            ("Hai! Baru pulang kuliah.", "id"),
            ("Servus, na wie geht's?", "de"),
            ("Oye, ¿qué haces?", "es"),
            ("Coucou, ça va ?", "fr"),
            ("Ciao bella, tutto bene?", "it"),
            ("Oi, tudo certo?", "pt"),
            ("안녕! 뭐해?", "ko"),
            ("おはよう！", "ja"),
        ] {
            assert_eq!(reply_language(&said(&[first]), "en"), code, "{first}");
        }
        assert_eq!(reply_language(&said(&["Merci !"]), "en"), "en", "one word is no new language");
        for (greeting, code) in [
            ("holaaa", "es"),
            ("coucou 🙂", "fr"),
            ("ciao!!", "it"),
            ("oiii", "pt"),
            ("hejka", "pl"),
            ("haii kak", "id"),
            ("안녕ㅎㅎ", "ko"),
            ("Hallo!", "de"),
        ] {
            assert_eq!(reply_language(&said(&[greeting]), "en"), code, "a lone greeting: {greeting}");
        }
        for english in ["hey", "hiii", "hey you!", "Hello there"] {
            assert_eq!(reply_language(&said(&[english]), "en"), "en", "{english}");
        }
        assert_eq!(reply_language(&said(&["ok cool"]), "fr"), "fr", "nothing speaks for a language");
        assert_eq!(reply_language(&said(&["Hey du!"]), "de"), "de", "the interface's language has a word");
        assert_eq!(reply_language(&said(&["Hi, how are you?"]), "it"), "en");
        assert_eq!(reply_language(&said(&["Oi, Ann"]), "en"), "pt");
        let later = said(&["Hi there, how are you doing today?", "Hi!", "Cześć! Ale dzień."]);
        assert_eq!(reply_language(&later, "en"), "en", "only the first message goes by its few words");
    }

    #[test]
    fn a_few_words_in_another_language_do_not_switch_the_conversations() {
        let german =
            said(&["Ich arbeite als Krankenschwester in der Nachtschicht.", "Oh, wie spannend!", "Okay cool, thanks!"]);
        assert_eq!(reply_language(&german, "en"), "de", "three English words keep a German conversation German");
        assert_eq!(reply_language(&said(&["Hi! How was your day?"]), "en"), "en");
        assert_eq!(reply_language(&said(&["I live in Porto."]), "en"), "en");
        assert_eq!(reply_language(&said(&["Merci !"]), "en"), "en", "one word is no new language");
        let english = said(&["Hey! I just got home from work, long day."]);
        assert_eq!(reply_language(&english, "en"), "en", "nine English words are not German");
        assert_eq!(reply_language(&said(&["Hallo! Wie war dein Tag?"]), "en"), "de", "five words, clearly German");
        assert_eq!(reply_language(&said(&["Oi! Tudo bem com você?"]), "en"), "pt");
        assert_eq!(reply_language(&said(&["Ciao! Come stai oggi?"]), "en"), "it", "the first words set it");
        assert_eq!(reply_language(&said(&["¡Hola! ¿Qué tal estás hoy?"]), "en"), "es", "a sure detection");
        let later = said(&["Hi there, how are you doing today?", "Hi!", "Ciao! Come stai oggi?"]);
        assert_eq!(reply_language(&later, "en"), "en", "later, one common word is not enough");
        assert_eq!(reply_language(&said(&["こんにちは！今日はどうでしたか？"]), "en"), "ja");
        assert_eq!(reply_language(&said(&["Hello!"]), "ja"), "ja", "one English word keeps Japanese");
        let switched = said(&[
            "Ich arbeite als Krankenschwester.",
            "Schön!",
            "Can we speak English from now on, please? My German is not that good.",
        ]);
        assert_eq!(reply_language(&switched, "de"), "en", "a new language once it is clear");
    }
}
