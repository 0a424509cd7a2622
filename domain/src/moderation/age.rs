//! Ages under 18, as people write them in the languages Amora serves and beyond (issue
//! 27): digits or number words ("14", "fourteen", "vierzehn", "catorce", "quatorze",
//! "четырнадцать", "十四", "열네"), with each language's forms ("14 years old", "14yo",
//! "14 Jahre alt", "14-jährige", "de 14 años", "14 ans", "14 anni", "14 jaar", "14 lat",
//! "14 yaşında", "ей 14 лет", "14-летняя", "14歳", "14岁", "14살", "age: 14").
//!
//! A number followed by a word for years is an age only when the construction says so:
//! a unit that means "aged" on its own ("jährig", "yaşında", "летняя", "歳"), "old" after
//! it ("years old", "Jahre alt", "jaar oud"), or a word before it that states an age ("she
//! is", "tiene", "elle a", "ей", "age:"). "For 5 years", "hace 5 años", "il y a 5 ans" and
//! "5 lat temu" are times, not ages. To add a language, add its number words, year units,
//! age-stating words and "ago" words below.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::lexicon::relative_near;
use super::text::{Views, fold, words};

/// A list's words as the views hold them (folded: Hindi and Arabic lose their marks).
fn folded(list: &[&str]) -> Vec<String> {
    list.iter().map(|word| words(&fold(word)).trim().to_string()).collect()
}

static NUMBERS: LazyLock<HashMap<String, u32>> = LazyLock::new(|| {
    NUMBER_WORDS.iter().chain(MORE_NUMBER_WORDS).map(|(word, n)| (words(&fold(word)).trim().to_string(), *n)).collect()
});
static AGED_F: LazyLock<Vec<String>> = LazyLock::new(|| folded(AGED));
static YEARS_F: LazyLock<Vec<String>> = LazyLock::new(|| folded(YEARS));
static STATES_F: LazyLock<Vec<String>> = LazyLock::new(|| folded(STATES_AGE));
static LABELS_F: LazyLock<Vec<String>> = LazyLock::new(|| folded(AGE_LABELS));
static PERSONS_F: LazyLock<Vec<String>> = LazyLock::new(|| folded(PERSON_NOUNS));
static TIME_AFTER_F: LazyLock<Vec<String>> = LazyLock::new(|| folded(TIME_AFTER));
static CLASSES_F: LazyLock<Vec<String>> = LazyLock::new(|| folded(CLASS_WORDS));

fn number_word(word: &str) -> Option<u32> {
    NUMBERS.get(word).copied()
}

/// More number words: Hindi, Arabic, Indonesian, Vietnamese.
const MORE_NUMBER_WORDS: &[(&str, u32)] = &[
    ("एक", 1),
    ("दो", 2),
    ("तीन", 3),
    ("चार", 4),
    ("पांच", 5),
    ("पाँच", 5),
    ("छह", 6),
    ("सात", 7),
    ("आठ", 8),
    ("नौ", 9),
    ("दस", 10),
    ("ग्यारह", 11),
    ("बारह", 12),
    ("तेरह", 13),
    ("चौदह", 14),
    ("पंद्रह", 15),
    ("सोलह", 16),
    ("सत्रह", 17),
    ("الثانية عشرة", 12),
    ("الثالثة عشرة", 13),
    ("الرابعة عشرة", 14),
    ("الخامسة عشرة", 15),
    ("السادسة عشرة", 16),
    ("السابعة عشرة", 17),
    ("العاشرة", 10),
    ("الحادية عشرة", 11),
    ("sebelas", 11),
    ("dua belas", 12),
    ("tiga belas", 13),
    ("empat belas", 14),
    ("lima belas", 15),
    ("enam belas", 16),
    ("tujuh belas", 17),
    ("sepuluh", 10),
    ("muoi hai", 12),
    ("muoi ba", 13),
    ("muoi bon", 14),
    ("muoi lam", 15),
    ("muoi sau", 16),
    ("muoi bay", 17),
];

/// Nouns for a person before "N years" ("Kind, 8 Jahre", "girl 14 years").
const PERSON_NOUNS: &[&str] = &[
    "girl",
    "boy",
    "child",
    "kid",
    "nina",
    "nino",
    "chica",
    "chico",
    "madchen",
    "junge",
    "kind",
    "fille",
    "garcon",
    "ragazza",
    "ragazzo",
    "menina",
    "menino",
    "meisje",
    "jongen",
    "dziewczyna",
    "dziewczynka",
    "chlopak",
    "kiz",
    "девушка",
    "девочка",
    "парень",
    "мальчик",
    "anak",
    "gadis",
    "be",
    "em",
];
/// A school class after its number ("7 класса", "8. Klasse", "7 sinif", "grade 7").
const CLASS_WORDS: &[&str] = &[
    "класса",
    "класс",
    "классе",
    "klasse",
    "klasa",
    "klasy",
    "klasie",
    "sinif",
    "sinifta",
    "grade",
    "grader",
    "graders",
    "grado",
    "serie",
    "ano do ensino fundamental",
    "classe",
    "media",
    "kelas",
    "lop",
];

/// An age under 18 found in a text.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ages {
    /// Some age under 18 is stated.
    pub any: bool,
    /// One is stated with no relative or past time near it: the person's own.
    pub own: bool,
}

/// Number words from 1 to 17, by language (after folding: no diacritics).
const NUMBER_WORDS: &[(&str, u32)] = &[
    // English.
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("thirteen", 13),
    ("fourteen", 14),
    ("fifteen", 15),
    ("sixteen", 16),
    ("seventeen", 17),
    // Spanish.
    ("uno", 1),
    ("una", 1),
    ("dos", 2),
    ("tres", 3),
    ("cuatro", 4),
    ("cinco", 5),
    ("seis", 6),
    ("siete", 7),
    ("ocho", 8),
    ("nueve", 9),
    ("diez", 10),
    ("once", 11),
    ("doce", 12),
    ("trece", 13),
    ("catorce", 14),
    ("quince", 15),
    ("dieciseis", 16),
    ("diecisiete", 17),
    // Portuguese.
    ("um", 1),
    ("uma", 1),
    ("dois", 2),
    ("duas", 2),
    ("tres", 3),
    ("quatro", 4),
    ("cinco", 5),
    ("sete", 7),
    ("oito", 8),
    ("nove", 9),
    ("dez", 10),
    ("onze", 11),
    ("doze", 12),
    ("treze", 13),
    ("catorze", 14),
    ("quatorze", 14),
    ("quinze", 15),
    ("dezesseis", 16),
    ("dezasseis", 16),
    ("dezessete", 17),
    ("dezassete", 17),
    // German.
    ("eins", 1),
    ("zwei", 2),
    ("drei", 3),
    ("vier", 4),
    ("funf", 5),
    ("fuenf", 5),
    ("sechs", 6),
    ("sieben", 7),
    ("acht", 8),
    ("neun", 9),
    ("zehn", 10),
    ("elf", 11),
    ("zwolf", 12),
    ("zwoelf", 12),
    ("dreizehn", 13),
    ("vierzehn", 14),
    ("funfzehn", 15),
    ("fuenfzehn", 15),
    ("sechzehn", 16),
    ("siebzehn", 17),
    // French.
    ("un", 1),
    ("une", 1),
    ("deux", 2),
    ("trois", 3),
    ("quatre", 4),
    ("cinq", 5),
    ("sept", 7),
    ("huit", 8),
    ("neuf", 9),
    ("dix", 10),
    ("douze", 12),
    ("treize", 13),
    ("seize", 16),
    ("dixsept", 17),
    // Italian.
    ("due", 2),
    ("tre", 3),
    ("quattro", 4),
    ("cinque", 5),
    ("sei", 6),
    ("sette", 7),
    ("otto", 8),
    ("dieci", 10),
    ("undici", 11),
    ("dodici", 12),
    ("tredici", 13),
    ("quattordici", 14),
    ("quindici", 15),
    ("sedici", 16),
    ("diciassette", 17),
    // Dutch.
    ("een", 1),
    ("twee", 2),
    ("drie", 3),
    ("vijf", 5),
    ("zes", 6),
    ("zeven", 7),
    ("negen", 9),
    ("tien", 10),
    ("twaalf", 12),
    ("dertien", 13),
    ("veertien", 14),
    ("vijftien", 15),
    ("zestien", 16),
    ("zeventien", 17),
    // Polish.
    ("jeden", 1),
    ("dwa", 2),
    ("trzy", 3),
    ("cztery", 4),
    ("piec", 5),
    ("szesc", 6),
    ("siedem", 7),
    ("osiem", 8),
    ("dziewiec", 9),
    ("dziesiec", 10),
    ("jedenascie", 11),
    ("dwanascie", 12),
    ("trzynascie", 13),
    ("czternascie", 14),
    ("pietnascie", 15),
    ("szesnascie", 16),
    ("siedemnascie", 17),
    // Turkish (tens are "on" and a unit: "on dort", read as two words below).
    ("bir", 1),
    ("iki", 2),
    ("uc", 3),
    ("dort", 4),
    ("bes", 5),
    ("alti", 6),
    ("yedi", 7),
    ("sekiz", 8),
    ("dokuz", 9),
    // Russian, nominative and the genitive of "-летний".
    ("один", 1),
    ("два", 2),
    ("три", 3),
    ("четыре", 4),
    ("пять", 5),
    ("шесть", 6),
    ("семь", 7),
    ("восемь", 8),
    ("девять", 9),
    ("десять", 10),
    ("одиннадцать", 11),
    ("двенадцать", 12),
    ("тринадцать", 13),
    ("четырнадцать", 14),
    ("пятнадцать", 15),
    ("шестнадцать", 16),
    ("семнадцать", 17),
    ("пяти", 5),
    ("шести", 6),
    ("семи", 7),
    ("восьми", 8),
    ("девяти", 9),
    ("десяти", 10),
    ("одиннадцати", 11),
    ("двенадцати", 12),
    ("тринадцати", 13),
    ("четырнадцати", 14),
    ("пятнадцати", 15),
    ("шестнадцати", 16),
    ("семнадцати", 17),
    // Korean native numbers, counted with "살".
    ("한", 1),
    ("두", 2),
    ("세", 3),
    ("네", 4),
    ("다섯", 5),
    ("여섯", 6),
    ("일곱", 7),
    ("여덟", 8),
    ("아홉", 9),
    ("열", 10),
    ("열한", 11),
    ("열두", 12),
    ("열세", 13),
    ("열네", 14),
    ("열다섯", 15),
    ("열여섯", 16),
    ("열일곱", 17),
];

/// Words for years after a number that make it an age by themselves.
const AGED: &[&str] = &[
    "yo",
    "yrs old",
    "yr old",
    "years old",
    "year olds",
    "years olds",
    "year old",
    "years of age",
    "year of age",
    "y o",
    "jahrig",
    "jahrige",
    "jahrigen",
    "jahriger",
    "jahriges",
    "jahre alt",
    "jahr alt",
    "jarige",
    "jarig",
    "jaar oud",
    "yasinda",
    "yasindaki",
    "yasinda bir",
    "yaslarinda",
    "летняя",
    "летний",
    "летнюю",
    "летней",
    "летнего",
    "летних",
    "летнему",
    "летка",
    "лет от роду",
    "letnia",
    "letni",
    "letnie",
    "letniej",
    "letniego",
    "anos de idade",
    "anni di eta",
    "ans d age",
    "anos de edad",
    "years young",
    "살",
    "세",
    "歳",
    "岁",
    "歲",
    "才",
    "살이",
    "살의",
    "살인",
    "tuoi",
    "साल का",
    "साल की",
    "साल के",
    "वर्ष की",
    "वर्ष का",
    "من عمرها",
    "من عمره",
    "عاما",
    "عامًا",
    "سنة",
];
/// Words for years that make a number an age only after an age-stating word.
const YEARS: &[&str] = &[
    "year",
    "years",
    "yr",
    "yrs",
    "anos",
    "anitos",
    "aninhos",
    "jahre",
    "jahren",
    "ans",
    "anni",
    "anno",
    "jaar",
    "lat",
    "lata",
    "лет",
    "год",
    "года",
    "yas",
    "yil",
    "tahun",
    "साल",
    "ปี",
];
/// Words before a number that state an age.
const STATES_AGE: &[&str] = &[
    // English ("she is 14", "she's 14", "i'm 14", "aged 14", "age: 14").
    "is",
    "im",
    "m",
    "am",
    "are",
    "re",
    "s",
    "turned",
    "turns",
    "turning",
    "looks",
    "look",
    "appears",
    "aged",
    "age",
    "only",
    "just",
    "barely",
    "be",
    // Spanish, Portuguese.
    "tengo",
    "tiene",
    "tienes",
    "tenia",
    "cumple",
    "cumplio",
    "cumpli",
    "edad",
    "de",
    "con",
    "tenho",
    "tem",
    "tens",
    "tinha",
    "fez",
    "completou",
    "idade",
    "com",
    // French, Italian.
    "ai",
    "a",
    "as",
    "avait",
    "age",
    "ho",
    "ha",
    "hai",
    "aveva",
    "di",
    "compie",
    "eta",
    // German, Dutch, Polish, Turkish, Russian.
    "ist",
    "bin",
    "bist",
    "sind",
    "wird",
    "erst",
    "alter",
    "ben",
    "van",
    "leeftijd",
    "ma",
    "mam",
    "masz",
    "miala",
    "wiek",
    "yasi",
    "yas",
    "ей",
    "ему",
    "мне",
    "тебе",
    "исполнилось",
    "возраст",
    "всего",
    "только",
    "like",
    "around",
    "younger",
    "umur",
    "usia",
    "berumur",
    "berusia",
    "عمرها",
    "عمره",
    "عمر",
];
/// Words before a number of years that make them a time, not an age ("for 5 years").
const TIME_BEFORE: &[&str] = &[
    "for",
    "since",
    "past",
    "last",
    "next",
    "every",
    "in",
    "after",
    "within",
    "over",
    "hace",
    "desde",
    "durante",
    "hacia",
    "por",
    "faz",
    "vor",
    "seit",
    "fur",
    "nach",
    "depuis",
    "pendant",
    "dans",
    "da",
    "per",
    "tra",
    "sinds",
    "al",
    "na",
    "od",
    "przez",
    "za",
    "po",
    "через",
    "за",
    "уже",
    "hemen",
    "married",
    "casados",
    "verheiratet",
    "maries",
    "sposati",
    "casados",
    "together",
    "juntos",
    "zusammen",
];
/// Words after a number of years that make them a time ("5 years ago", "5 lat temu").
const TIME_AFTER: &[&str] = &[
    "ago",
    "later",
    "earlier",
    "before",
    "after",
    "fa",
    "temu",
    "geleden",
    "назад",
    "спустя",
    "once",
    "sonra",
    "despues",
    "depois",
    "apres",
    "dopo",
    "spater",
    "potem",
    "lang",
    "de casados",
    "de matrimonio",
    "of marriage",
    "of experience",
    "experience",
    "de experiencia",
    "together",
    "juntos",
    "zusammen",
];
/// Labels an age follows ("age: 14", "Alter 14").
const AGE_LABELS: &[&str] = &[
    "age",
    "aged",
    "edad",
    "idade",
    "alter",
    "eta",
    "leeftijd",
    "wiek",
    "yas",
    "возраст",
    "umur",
    "usia",
    "berumur",
    "berusia",
    "อายุ",
    "عمرها",
    "عمره",
    "उम्र",
];

/// Han numerals of 1 to 17 as written before 歳/岁.
fn han_number(text: &str) -> Option<u32> {
    let digit = |c: char| {
        Some(match c {
            '一' => 1,
            '二' | '两' | '兩' => 2,
            '三' => 3,
            '四' => 4,
            '五' => 5,
            '六' => 6,
            '七' => 7,
            '八' => 8,
            '九' => 9,
            _ => return None,
        })
    };
    let chars: Vec<char> = text.chars().collect();
    match chars.as_slice() {
        [c] if *c == '十' => Some(10),
        [c] => digit(*c),
        ['十', unit] => digit(*unit).map(|u| 10 + u),
        _ => None,
    }
}

fn minor(n: u32) -> bool {
    (1..18).contains(&n)
}

/// The number at word `i` (and how many words it takes): digits, a number word, or a
/// two-word number ("dix sept", "on dort").
fn number_at(words: &[&str], i: usize) -> Option<(u32, usize)> {
    let word = *words.get(i)?;
    if let Ok(n) = word.parse::<u32>() {
        return Some((n, 1));
    }
    let next = words.get(i + 1).copied().unwrap_or("");
    if word == "dix" && matches!(next, "sept" | "huit" | "neuf") {
        return None;
    }
    if word == "on" {
        // Turkish tens: "on dort" is 14; "on" alone is English.
        return matches!(next, "bir" | "iki" | "uc" | "dort" | "bes" | "alti" | "yedi")
            .then(|| number_word(next).map(|n| (10 + n, 2)))
            .flatten();
    }
    if word == "dix" && next == "sept" {
        return Some((17, 2));
    }
    // Two-word numbers ("dua belas", "muoi hai", Arabic ordinals).
    let two = format!("{word} {next}");
    if let Some(n) = number_word(&two) {
        return Some((n, 2));
    }
    number_word(word).map(|n| (n, 1))
}

/// Whether the words from `at` start with `phrase` (words separated by single spaces).
fn starts(words: &[&str], at: usize, phrase: &str) -> bool {
    let phrase = phrase.trim();
    if phrase.is_empty() {
        return false;
    }
    phrase.split(' ').enumerate().all(|(k, part)| words.get(at + k) == Some(&part))
}

fn any_starts(words: &[&str], at: usize, phrases: &[String]) -> Option<usize> {
    phrases.iter().find(|phrase| starts(words, at, phrase)).map(|phrase| phrase.split(' ').count())
}

fn listed(list: &[String], word: &str) -> bool {
    list.iter().any(|w| w == word)
}

/// Polish stems of "N-year-old" joined to "latka"/"latek" ("czternastolatka").
const POLISH_STEMS: &[(&str, u32)] = &[
    ("piecio", 5),
    ("szescio", 6),
    ("siedmio", 7),
    ("osmio", 8),
    ("dziewiecio", 9),
    ("dziesiecio", 10),
    ("jedenasto", 11),
    ("dwunasto", 12),
    ("trzynasto", 13),
    ("czternasto", 14),
    ("pietnasto", 15),
    ("szesnasto", 16),
    ("siedemnasto", 17),
];
/// What joins a number word into one word that is an age ("vierzehnjährige",
/// "twelveyearsold", "четырнадцатилетняя").
const JOINED_AGE: &[&str] = &[
    "jahrig",
    "jahrige",
    "jahrigen",
    "jahriger",
    "jahriges",
    "yearsold",
    "yearold",
    "yo",
    "летняя",
    "летний",
    "летнюю",
    "летней",
    "летнего",
    "jarige",
    "latka",
    "latek",
    "tuoi",
];

/// Whether one word is a number joined to a word for "years old".
fn joined_age(word: &str) -> bool {
    JOINED_AGE.iter().any(|suffix| {
        word.strip_suffix(suffix)
            .is_some_and(|number| number.chars().count() >= 3 && number_word(number).is_some_and(minor))
    }) || POLISH_STEMS.iter().any(|(stem, _)| {
        word.strip_prefix(stem).is_some_and(|rest| matches!(rest, "latka" | "latek" | "letnia" | "letni"))
    })
}

/// Whether a word of `name` is followed in `text` by an age under 18 in apposition: a comma
/// or an opening bracket, the number, then the end of the phrase ("Harper Quinn, 17,",
/// "Harper (16)"). A number followed by a word ("Harper, 15 minutes") is `scan`'s to read.
pub(crate) fn after_name(text: &str, name: &str) -> bool {
    let lower = text.to_lowercase();
    name.split_whitespace().map(str::to_lowercase).filter(|word| word.chars().count() >= 2).any(|word| {
        lower.match_indices(&word).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let rest = &lower[at + word.len()..];
            if before.is_some_and(char::is_alphanumeric) || rest.starts_with(char::is_alphanumeric) {
                return false;
            }
            let rest = rest.trim_start_matches(|c: char| c.is_whitespace() && c != '\n');
            let Some(rest) = rest.strip_prefix([',', '(']) else { return false };
            let rest = rest.trim_start_matches(' ');
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            // "3.5" and "1,80" are not ages.
            let mut after = rest[digits..].chars();
            let ends = after.next().is_none_or(|c| matches!(c, ',' | '.' | ')' | '!' | '?' | ';'))
                && !after.next().is_some_and(|c| c.is_ascii_digit());
            digits > 0 && digits <= 2 && ends && rest[..digits].parse().is_ok_and(minor)
        })
    })
}

/// Ages under 18 in a text's views.
pub(crate) fn find(views: &Views) -> Ages {
    let mut ages = Ages::default();
    for view in views.all() {
        scan(view, &mut ages);
        if ages.own {
            break;
        }
    }
    ages
}

fn scan(view: &str, ages: &mut Ages) {
    let words: Vec<&str> = view.split_whitespace().collect();
    let found = |i: usize, ages: &mut Ages| {
        ages.any = true;
        // An age that never changes is the person's, whatever is near it ("stuck at age 11
        // forever"); so is one whose relative noun is followed by "of" ("the 13-year-old
        // daughter of the innkeeper": the daughter is the one described).
        let near = |k: usize| words.get(i + k).copied().unwrap_or("");
        let forever = words[i.saturating_sub(3)..(i + 4).min(words.len())].iter().any(|w| {
            matches!(
                *w,
                "forever" | "stuck" | "frozen" | "eternally" | "eternal" | "immortal" | "ewig" | "siempre" | "toujours"
            )
        });
        let described = (1..5).any(|k| {
            near(k) == "of"
                && k > 1
                && matches!(near(k - 1), "daughter" | "son" | "sister" | "brother" | "niece" | "nephew")
        });
        if forever || described || !relative_near(view, i, 5) {
            ages.own = true;
        }
    };
    for i in 0..words.len() {
        let word = words[i];
        // One word: "14yo", "14yrs", "14jahrige", "14летняя", "14살", "14歳" (a space is
        // put between digits and CJK when the views are made).
        let digits: String = word.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && digits.len() < word.len() {
            let rest = &word[digits.len()..];
            if digits.parse::<u32>().is_ok_and(minor)
                && matches!(
                    rest,
                    "yo" | "yrs"
                        | "yr"
                        | "y"
                        | "jahrig"
                        | "jahrige"
                        | "jahrigen"
                        | "jarige"
                        | "летняя"
                        | "летний"
                        | "letnia"
                )
            {
                found(i, ages);
                continue;
            }
        }
        // Han numerals before 歳/岁/歲/才, and Korean native numbers joined to 살.
        let han_age = word.match_indices(['歳', '岁', '歲', '才']).any(|(unit_at, _)| {
            let before: String = word[..unit_at]
                .chars()
                .rev()
                .take_while(|c| han_number(&c.to_string()).is_some() || *c == '十')
                .collect();
            let before: String = before.chars().rev().collect();
            han_number(&before).is_some_and(minor)
        });
        if han_age || joined_age(word) {
            found(i, ages);
            continue;
        }
        if let Some(stem) = word.strip_suffix('살').or_else(|| word.strip_suffix("살이"))
            && number_word(stem).is_some_and(minor)
        {
            found(i, ages);
            continue;
        }
        // "grade 7", "lop 7" (Vietnamese), "7 класса", "8 Klasse": a pupil's class.
        let ordinal = word.trim_end_matches(|c: char| c.is_alphabetic());
        if let Ok(n) = ordinal.parse::<u32>()
            && (1..=11).contains(&n)
            && (listed(&CLASSES_F, words.get(i + 1).copied().unwrap_or(""))
                || (ordinal.len() == word.len()
                    && matches!(i.checked_sub(1).map(|j| words[j]), Some("grade" | "lop" | "kelas" | "klasa"))))
        {
            found(i, ages);
            continue;
        }
        let Some((n, length)) = number_at(&words, i) else { continue };
        if !minor(n) {
            continue;
        }
        let after = i + length;
        let before = |k: usize| i.checked_sub(k).and_then(|j| words.get(j)).copied().unwrap_or("");
        let is_digits = word.parse::<u32>().is_ok();
        // "age: 14", "Alter 14", "aged fourteen".
        if listed(&LABELS_F, before(1)) {
            found(i, ages);
            continue;
        }
        // "12 歳の女の子": a CJK unit opens the next word, which runs on without spaces.
        let cjk_unit = words.get(after).is_some_and(|next| next.starts_with(['歳', '岁', '歲', '才', '살', '세']));
        if cjk_unit || any_starts(&words, after, &AGED_F).is_some() {
            found(i, ages);
            continue;
        }
        let stated = listed(&STATES_F, before(1))
            // French "elle a 14 ans" but not "il y a 14 ans".
            && !(before(1) == "a" && before(2) == "y");
        if let Some(unit) = any_starts(&words, after, &YEARS_F) {
            // Portuguese "há 5 anos" is a time; Italian "ha 14 anni" an age.
            let portuguese_ago = before(1) == "ha" && words.get(after).is_some_and(|w| w.starts_with("ano"));
            let time = portuguese_ago
                || TIME_BEFORE.contains(&before(1))
                || any_starts(&words, after + unit, &TIME_AFTER_F).is_some();
            // Stated ("tiene 14 años"), of someone ("una niña de 14 años", "Kind, 8 Jahre"), or
            // a text that starts with it ("catorce años").
            // ("a 10-year reunion" is not an age: English "year" alone never starts one.)
            let starts_text = before(1).is_empty() && !matches!(words.get(after).copied(), Some("year" | "yr"));
            let of_someone = matches!(before(1), "de" | "di" | "van") || starts_text || listed(&PERSONS_F, before(1));
            if !time && (stated || of_someone) {
                found(i, ages);
            }
            continue;
        }
        // "she is 14", "i'm 15", "looks 14": digits only (a word like "one" is too common),
        // not followed by a unit or another number ("she is 5 feet", "he's 6 2").
        // Dutch "een meisje van 12": a person of a number.
        if before(1) == "van"
            && listed(&PERSONS_F, before(2))
            && words.get(after).is_none_or(|next| !UNITS.contains(next))
        {
            found(i, ages);
            continue;
        }
        // Number words from ten up are rarely a count right after "is" ("she's fifteen").
        let spelled_age = !is_digits && (10..18).contains(&n);
        if (is_digits || spelled_age) && stated && !matches!(before(1), "de" | "di" | "a" | "con" | "com" | "van") {
            let next = words.get(after).copied().unwrap_or("");
            let unit_follows = next.parse::<u32>().is_ok() || UNITS.contains(&next);
            if !unit_follows {
                found(i, ages);
            }
        }
    }
}

/// Words after "is 15" that make it something other than an age ("is 15 minutes late").
const UNITS: &[&str] = &[
    "minutes",
    "minute",
    "min",
    "mins",
    "hours",
    "hour",
    "h",
    "days",
    "day",
    "weeks",
    "week",
    "months",
    "month",
    "feet",
    "foot",
    "ft",
    "inches",
    "inch",
    "in",
    "cm",
    "m",
    "mm",
    "kg",
    "g",
    "lbs",
    "lb",
    "pounds",
    "stone",
    "times",
    "percent",
    "miles",
    "km",
    "dollars",
    "euros",
    "eur",
    "usd",
    "points",
    "of",
    "out",
    "th",
    "st",
    "nd",
    "rd",
    "am",
    "pm",
    "o",
    "oclock",
    "x",
    "minutos",
    "horas",
    "dias",
    "metros",
    "minuten",
    "stunden",
    "tage",
    "meter",
    "heures",
    "jours",
    "minuti",
    "ore",
    "giorni",
    "euro",
    "uur",
    "dagen",
    "минут",
    "часов",
    "дней",
    "dakika",
    "saat",
    "gun",
    "minut",
    "godzin",
    "dni",
    "cups",
    "items",
    "people",
    "persons",
    "cats",
    "dogs",
    "kids",
    "children",
    "books",
    "stars",
    "floors",
    "floor",
    "rooms",
    "room",
    "pages",
    "chapters",
    "episodes",
    "seasons",
    "games",
    "goals",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn ages(text: &str) -> Ages {
        find(&Views::of(text))
    }

    #[test]
    fn ages_under_18_in_many_languages() {
        for minor in [
            "she is 14",
            "a 14-year-old",
            "fourteen years old",
            "14yo",
            "Sie ist 14 Jahre alt",
            "eine 14-jährige",
            "una niña de 14 años",
            "tiene catorce años",
            "elle a 14 ans",
            "ha 14 anni",
            "ela tem 14 anos",
            "ей 14 лет",
            "14-летняя",
            "14 yaşında",
            "on dört yaşında",
            "14歳",
            "十四歳",
            "十二岁",
            "14살",
            "열네 살",
            "age: 14",
            "ze is 14 jaar oud",
            "ma 14 lat",
        ] {
            assert!(ages(minor).own, "{minor}");
        }
    }

    #[test]
    fn times_and_grown_ups_are_not_ages() {
        for fine in [
            "I'm 25 years old",
            "for 15 years a nurse",
            "hace 5 años",
            "il y a 5 ans",
            "5 anni fa",
            "5 lat temu",
            "she is 5 feet tall",
            "room 14",
            "the 12th of May",
            "she has 3 cats",
            "18歳",
            "twelve years of marriage",
        ] {
            assert!(!ages(fine).any, "{fine}");
        }
        let relative = ages("my daughter is 7");
        assert!(relative.any && !relative.own);
    }

    #[test]
    fn an_age_after_a_name_is_the_named_one_s() {
        for (text, name) in [
            ("Harper Quinn, 17, speaking in French.", "Harper Quinn"),
            ("Je suis Harper (16) et j'adore Rennes.", "Harper Quinn"),
            ("Quinn, 15.", "Harper Quinn"),
        ] {
            assert!(after_name(text, name), "{text}");
        }
        for (text, name) in [
            ("Harper Quinn, 25, speaking in French.", "Harper Quinn"),
            ("Harper, 15 minutes from here.", "Harper Quinn"),
            ("Harper, 3.5 stars is fine", "Harper Quinn"),
            ("Harperville, 12, is a street.", "Harper Quinn"),
            ("Room 12, 14 and 15.", "Harper Quinn"),
            ("Harper, 170 cm.", "Harper Quinn"),
        ] {
            assert!(!after_name(text, name), "{text}");
        }
    }
}
