//! Answers that are known words: asked which sport they do, which instrument they play,
//! which languages they speak, what they study or teach, what they drive, the answer is a
//! word of a short, closed list, wherever it stands in what the user told ("eu **surfo**
//! desde os 15 anos", "gw main **bass** di band kampus", "매일 아침 **수영**하거든").
//! Looking the word up is surer than taking the words after the topic's, which the
//! sentence need not even hold ("qual esporte eu pratico?" told with no sport word).
//!
//! Latin-script entries match a word that starts with them ("surf" in "surfo", "surfe"),
//! so each is the shortest form that names only that thing; Japanese and Korean entries
//! match anywhere in the sentence (particles and endings are written onto the word).

/// What a question asks for, when its answer is a word of one of the lists below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Sport,
    Instrument,
    Language,
    Subject,
    Vehicle,
}

/// Words that make a question ask for a sport (besides "which hobby": a hobby need not be
/// a sport, so it is not asked for by these).
#[rustfmt::skip]
const SPORT_QUESTION: &[&str] = &[
    "sport", "sports", "sportart", "deporte", "deportes", "esporte", "esportes", "desporto", "olahraga", "スポーツ",
    "운동", "trenuję", "trenujesz", "treinas", "treino", "pratico", "pratiques", "pratica", "practico",
    "practicas",
];

/// Words that make a question ask for a language.
#[rustfmt::skip]
const LANGUAGE_QUESTION: &[&str] = &[
    "language", "languages", "sprache", "sprachen", "idioma", "idiomas", "langue", "langues", "lingua",
    "lingue", "língua", "línguas", "język", "języki", "języków", "bahasa", "言語", "언어",
];

/// Words that make a question ask for a subject studied or taught.
#[rustfmt::skip]
const SUBJECT_QUESTION: &[&str] = &[
    "subject", "teach", "study", "studies", "major", "fach", "unterrichte", "studiere", "studierst", "studium",
    "materia", "asignatura", "enseño", "estudio", "estudias", "carrera", "matière", "enseigne", "étudie",
    "études", "materia", "insegno", "studio", "studi", "disciplina", "ensino", "estudo", "estudas", "curso",
    "przedmiot", "uczę", "studiuję", "kierunek", "mengajar", "pelajaran", "jurusan", "kuliah", "belajar", "専攻",
    "教科", "科目", "勉強", "전공", "과목", "가르", "공부",
];

/// Words that make a question ask for a vehicle.
#[rustfmt::skip]
const VEHICLE_QUESTION: &[&str] = &[
    "car", "bike", "motorbike", "motorcycle", "drive", "ride", "auto", "wagen", "fahr", "fahre", "fährst",
    "motorrad", "fahrrad", "coche", "carro", "moto", "voiture", "vélo", "macchina", "bici", "samochód", "auto",
    "rower", "motor", "mobil", "sepeda", "車", "バイク", "자전거", "오토바이", "차",
];

#[rustfmt::skip]
const SPORTS: &[&str] = &[
    // Ball games.
    "football", "soccer", "fußball", "fussball", "fútbol", "futbol", "futebol", "calcio", "piłk", "sepak bola",
    "futsal", "サッカー", "축구", "handball", "balonmano", "handebol", "pallamano", "basketball", "baloncesto",
    "basquete", "pallacanestro", "koszyków", "bola basket", "バスケ", "농구", "volleyball", "voleibol", "vôlei",
    "volei", "pallavolo", "siatków", "voli", "バレーボール", "배구", "tennis", "tenis", "tênis", "テニス", "테니스",
    "badminton", "bulu tangkis", "バドミントン", "배드민턴", "baseball", "béisbol", "野球", "야구", "rugby", "cricket",
    "hockey", "hóquei", "ホッケー", "하키", "golf", "ゴルフ", "골프", "squash", "padel", "pádel", "ping pong",
    "tischtennis", "卓球", "탁구",
    // On one's own.
    "swim", "schwimm", "natación", "nado", "natation", "nuoto", "natação", "pływa", "renang", "水泳", "수영",
    "surf", "サーフィン", "서핑", "climb", "kletter", "boulder", "escalad", "arrampic", "wspina", "panjat", "ボルダリング",
    "クライミング", "클라이밍", "running", "jogging", "laufen", "joggen", "correr", "corrida", "corsa", "bieganie",
    "biegam", "lari", "ランニング", "ジョギング", "달리기", "러닝", "마라톤", "marathon", "maratón", "maratona", "yoga", "ヨガ",
    "요가", "pilates", "ピラティス", "필라테스", "crossfit", "cycling", "radfahren", "ciclismo", "cyclisme", "kolarstw",
    "bersepeda", "サイクリング", "사이클", "box", "boxeo", "boks", "tinju", "ボクシング", "복싱", "judo", "柔道", "유도", "karate",
    "空手", "가라테", "taekwondo", "테권도", "태권도", "kendo", "剣道", "검도", "fencing", "fechten", "esgrima", "escrime",
    "scherma", "szermierk", "フェンシング", "펜싱", "ski", "esquí", "sci", "narciarst", "narty", "スキー", "스키",
    "snowboard", "スノーボード", "스노보드", "skat", "patin", "pattin", "łyżw", "スケート", "스케이트", "rowing", "rudern",
    "remo", "aviron", "canottaggio", "wioślarst", "ボート", "조정", "hiking", "wandern", "senderismo", "randonnée",
    "escursion", "trilha", "wędrówk", "mendaki", "hiking", "登山", "ハイキング", "등산", "dance", "dancing", "tanz",
    "baile", "bailar", "danse", "danza", "dança", "dançar", "taniec", "tańcz", "menari", "ダンス", "춤", "댄스",
    "ballet", "balé", "balletto", "balet", "バレエ", "발레", "gym", "musculação", "palestra", "siłowni", "fitness",
    "ジム", "헬스", "parkour", "paddl", "kayak", "kajak", "カヤック", "카약", "sail", "segeln", "vela", "voile",
    "żeglarst", "ヨット", "요트", "muay thai", "mma", "jiu", "capoeira", "silat",
];

#[rustfmt::skip]
const INSTRUMENTS: &[&str] = &[
    "piano", "pianoforte", "klavier", "fortepian", "pianin", "ピアノ", "피아노", "guitar", "gitarr", "guitarra",
    "guitare", "chitarr", "gitar", "ギター", "기타", "bass", "bajo", "basse", "basso", "baixo", "ベース", "베이스", "drum",
    "schlagzeug", "batería", "batterie", "batteria", "bateria", "perkusj", "ドラム", "드럼", "violin", "geige",
    "violine", "violín", "violon", "violino", "skrzyp", "biola", "バイオリン", "ヴァイオリン", "바이올린", "cello",
    "violoncell", "violonchelo", "wiolonczel", "チェロ", "첼로", "flute", "flöte", "flauta", "flûte", "flauto",
    "flet", "suling", "フルート", "플루트", "saxo", "sassofon", "saksofon", "サックス", "색소폰", "trumpet", "trompete",
    "trompeta", "trompette", "tromba", "trąbk", "terompet", "トランペット", "트럼펫", "ukulele", "ウクレレ", "우쿨렐레",
    "clarinet", "klarinette", "clarinete", "clarinette", "clarinetto", "klarnet", "クラリネット", "클라리넷", "harp",
    "harfe", "arpa", "harpe", "harpa", "harf", "ハープ", "하프", "accordion", "akkordeon", "acordeón", "accordéon",
    "fisarmonica", "acordeão", "akordeon", "アコーディオン", "아코디언", "keyboard", "teclado", "tastiera", "キーボード", "키보드",
    "organ", "orgel", "órgano", "orgue", "organo", "órgão", "organy", "オルガン", "오르간", "cajón", "cajon",
    "harmonica", "mundharmonika", "armónica", "harmonijk", "ハーモニカ", "하모니카", "trombone", "posaune", "trombón",
    "puzon", "トロンボーン", "트롬본", "banjo", "mandolin", "mandolin", "sitar", "kalimba", "ocarina", "gamelan",
    "angklung", "三味線", "琴", "가야금", "해금", "장구",
];

#[rustfmt::skip]
const LANGUAGES: &[&str] = &[
    "english", "englisch", "inglés", "anglais", "inglese", "inglês", "angielsk", "inggris", "英語", "영어",
    "german", "deutsch", "alemán", "allemand", "tedesco", "alemão", "niemieck", "jerman", "ドイツ語", "독일어",
    "spanish", "spanisch", "español", "castellano", "espagnol", "spagnolo", "espanhol", "hiszpańsk", "spanyol",
    "スペイン語", "스페인어", "french", "französisch", "francés", "français", "francese", "francês", "francusk",
    "prancis", "フランス語", "프랑스어", "italian", "italienisch", "italiano", "italien", "włosk", "italia", "イタリア語",
    "이탈리아어", "portuguese", "portugiesisch", "portugués", "portugais", "portoghese", "português", "portugalsk",
    "portugis", "ポルトガル語", "포르투갈어", "polish", "polnisch", "polaco", "polonais", "polacco", "polonês", "polsk",
    "polandia", "ポーランド語", "폴란드어", "indonesian", "indonesisch", "indonesio", "indonésien", "indonesiano",
    "indonésio", "indonezyjsk", "indonesia", "インドネシア語", "인도네시아어", "japanese", "japanisch", "japonés",
    "japonais", "giapponese", "japonês", "japońsk", "jepang", "日本語", "일본어", "korean", "koreanisch", "coreano",
    "coréen", "koreańsk", "korea", "韓国語", "한국어", "dutch", "niederländisch", "holländisch", "neerlandés",
    "holandés", "néerlandais", "olandese", "neerlandês", "holandês", "niderlandzk", "holendersk", "belanda",
    "オランダ語", "네덜란드어", "chinese", "chinesisch", "chino", "chinois", "cinese", "chinês", "chińsk", "mandarin",
    "mandarín", "mandarino", "中国語", "중국어", "russian", "russisch", "ruso", "russe", "russo", "rosyjsk", "rusia",
    "ロシア語", "러시아어", "arabic", "arabisch", "árabe", "arabe", "arabo", "arabsk", "arab", "アラビア語", "아랍어",
    "catalan", "catalán", "català", "catalano", "swedish", "schwedisch", "sueco", "suédois", "svedese",
    "szwedzk", "turkish", "türkisch", "turco", "turc", "tureck", "greek", "griechisch", "griego", "grec",
    "greco", "grego", "greck", "ukrainian", "ukrainisch", "ucraniano", "ukrainien", "ucraino", "ukraińsk",
    "hindi", "javanese", "jawa", "sunda", "latin", "latein", "latín", "latino", "łacin", "ラテン語", "라틴어", "thai",
    "vietnamese", "vietnamita", "vietnamien", "wietnamsk", "vietnam", "ベトナム語", "베트남어", "タイ語", "태국어",
];

#[rustfmt::skip]
const SUBJECTS: &[&str] = &[
    "math", "mathe", "matemátic", "mathématiques", "maths", "matematic", "matematyk", "matematik", "数学", "수학",
    "physics", "physik", "física", "physique", "fisica", "fizyk", "fisika", "物理", "물리", "chemistry", "chemie",
    "química", "chimie", "chimica", "chemi", "kimia", "化学", "화학", "biology", "biologie", "biología", "biologia",
    "biologi", "生物", "생물", "history", "geschichte", "historia", "histoire", "storia", "história", "sejarah",
    "歴史", "역사", "geography", "geografie", "geografía", "géographie", "geografia", "geograf", "地理", "지리",
    "philosoph", "philo", "filosof", "哲学", "철학", "informatik", "informátic", "informatique", "informatic",
    "informatyk", "informatika", "computer science", "ciência da computação", "情報", "컴퓨터", "psycholog",
    "psicolog", "psikolog", "心理", "심리", "economics", "wirtschaft", "economía", "économie", "economia", "ekonom",
    "経済", "경제", "law", "jura", "derecho", "droit", "giurisprudenza", "direito", "prawo", "hukum", "法学", "법학",
    "medicine", "medizin", "medicina", "médecine", "medycyn", "kedokteran", "医学", "의학", "nursing", "pflege",
    "enfermería", "infirmier", "infermieristica", "enfermagem", "pielęgniarstw", "keperawatan", "看護", "간호",
    "architect", "architektur", "arquitectura", "architettura", "arquitetura", "architektur", "arsitektur",
    "建築", "건축", "engineering", "ingenier", "ingegneria", "engenharia", "teknik", "maschinenbau",
    "elektrotechnik", "mechanical", "工学", "공학", "literature", "literatur", "literatura", "littérature",
    "letteratura", "sastra", "文学", "문학", "sociolog", "sosiolog", "社会学", "사회학", "art", "kunst", "arte", "sztuk",
    "seni", "美術", "미술", "music", "musik", "música", "musique", "musica", "muzyk", "音楽", "음악", "design",
    "diseño", "desain", "デザイン", "디자인", "marketing", "マーケティング", "마케팅", "accounting", "contabilidad",
    "comptabilité", "contabilità", "contabilidade", "rachunkowość", "akuntansi", "会計", "회계", "pharmac",
    "pharmaz", "farmac", "farmasi", "薬学", "약학", "veterinar", "vétérinaire", "獣医", "수의", "journalism",
    "journalistik", "periodismo", "journalisme", "giornalismo", "jornalismo", "dziennikarstw", "jurnalistik",
    "ジャーナリズム", "언론",
];

#[rustfmt::skip]
const VEHICLES: &[&str] = &[
    "vw", "volkswagen", "golf", "polo", "passat", "bmw", "audi", "mercedes", "opel", "porsche", "toyota",
    "honda", "yamaha", "suzuki", "kawasaki", "nissan", "mazda", "subaru", "hyundai", "kia", "fiat", "panda",
    "ford", "tesla", "renault", "peugeot", "citroën", "citroen", "seat", "skoda", "škoda", "volvo", "mini",
    "jeep", "vespa", "ducati", "harley", "triumph", "bianchi", "trek", "specialized", "brompton", "prius",
    "civic", "corolla", "beat", "scoopy", "nmax", "トヨタ", "ホンダ", "ヤマハ", "スズキ", "ベスパ", "현대", "기아", "테슬라", "벤츠",
    "아반떼", "소나타",
];

/// What the question asks for, when its answer is a word of a list: `units` are its words
/// as [`super::units`] makes them, `instrument` whether it asks for an instrument.
pub(super) fn asked_kind(question: &str, units: &[super::Unit], instrument: bool) -> Option<Kind> {
    let holds = |words: &[&str]| super::says_any(question, units, words);
    if instrument {
        Some(Kind::Instrument)
    } else if holds(LANGUAGE_QUESTION) {
        Some(Kind::Language)
    } else if holds(SPORT_QUESTION) {
        Some(Kind::Sport)
    } else if holds(SUBJECT_QUESTION) {
        Some(Kind::Subject)
    } else if holds(VEHICLE_QUESTION) {
        Some(Kind::Vehicle)
    } else {
        None
    }
}

/// The lists a kind's answer is looked up in: a subject taught may be a language
/// ("guru bahasa **Inggris**").
fn lists(kind: Kind) -> &'static [&'static [&'static str]] {
    match kind {
        Kind::Sport => &[SPORTS],
        Kind::Instrument => &[INSTRUMENTS],
        Kind::Language => &[LANGUAGES],
        Kind::Subject => &[SUBJECTS, LANGUAGES],
        Kind::Vehicle => &[VEHICLES],
    }
}

/// The first word of `kind`'s list `sentence` holds and `question` does not ("À part le
/// français et l'espagnol, quelle autre langue je parle ?": **néerlandais**), as written,
/// with the words right after it that name the same thing ("Fiat **Panda**", "teknik
/// **informatika**"); in Japanese and Korean the list's word with the kanji or katakana
/// written on to it ("心理" in "**心理学**を勉強してる").
pub(super) fn known_answer_in(sentence: &str, question: &str, kind: Kind) -> Option<String> {
    // Offsets are taken in the lower-cased text; shown from the sentence when lower-casing
    // kept them ("İ" does not).
    let lower = sentence.to_lowercase();
    let shown = if lower.len() == sentence.len() { sentence } else { lower.as_str() };
    let question = question.to_lowercase();
    let (at, end) = first_entry(&lower, &question, kind, 0)?;
    let mut end = end;
    for _ in 0..2 {
        let next = end + 1;
        let follows = lower[end..].starts_with(' ')
            && (first_entry(&lower, &question, kind, next).is_some_and(|(a, _)| a == next)
                || shown[next..].chars().next().is_some_and(char::is_uppercase));
        if !follows {
            break;
        }
        end = next + word_len(&lower[next..]);
    }
    Some(shown[at..end].to_owned())
}

/// The length in bytes of the alphanumeric word `text` starts with.
fn word_len(text: &str) -> usize {
    text.char_indices().find(|&(_, c)| !c.is_alphanumeric()).map_or(text.len(), |(i, _)| i)
}

/// Where the earliest entry of `kind`'s lists starts in `lower` at or after `from`, and
/// where the word it names ends.
fn first_entry(lower: &str, question: &str, kind: Kind, from: usize) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for &word in lists(kind).iter().flat_map(|list| list.iter()) {
        if question.contains(word) {
            continue;
        }
        let cjk = word.chars().any(super::is_cjk);
        let mut search = from;
        while let Some(found) = lower.get(search..).and_then(|rest| rest.find(word)) {
            let at = search + found;
            search = at + word.len();
            if best.is_some_and(|(b, _)| b <= at) {
                break;
            }
            let end = if cjk {
                // Kanji and katakana written on to the word belong to it; Hangul endings do not.
                let last = word.chars().next_back().unwrap_or(' ');
                let same =
                    |c: char| (super::is_han(last) && super::is_han(c)) || (super::is_kana(last) && super::is_kana(c));
                search + lower[search..].chars().take_while(|&c| same(c)).map(char::len_utf8).sum::<usize>()
            } else {
                // A Latin-script entry starts a word ("surf" in "eu surfo", never in
                // "resurface"); short entries ("vw", "art", "box") must be the whole word.
                let starts_word = lower[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
                let end = at + word_len(&lower[at..]);
                if !starts_word || (end != at + word.len() && word.chars().count() < 4) {
                    continue;
                }
                end
            };
            if question.contains(&lower[at..end]) {
                continue;
            }
            best = Some((at, end));
            break;
        }
    }
    best
}
