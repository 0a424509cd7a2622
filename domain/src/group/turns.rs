//! Who speaks next in a group chat: SillyTavern's rules (`public/scripts/group-chats.js`:
//! `activateNaturalOrder`, `activateListOrder`, and the auto mode that lets the characters
//! go on among themselves), made pure: the random draws come from a seeded [`Draws`], so
//! a round is the same for the same seed and tests can pin it.
//!
//! - natural: the characters the message names come first, in the order the text names
//!   them; then each other character, in a shuffled order, whose roll falls under its
//!   talkativeness; when nobody is picked, one at random among those with a talkativeness
//!   above 0 (else among all). The last speaker is never picked unless the group allows
//!   self responses (a user's message has no character as last speaker);
//! - list ("in turn"): every unmuted member in seating order; going on, from the seat after
//!   the last speaker;
//! - manual: nobody answers a message by itself; the user picks one (`pick`); going on,
//!   one at random.
//!
//! Muted members are never picked by any rule.

use std::collections::VecDeque;

use super::{Activation, GroupMember, GroupSpeaker, Talkativeness};
use crate::character::CharacterId;

/// A member as the turn order sees it: its seat's settings and the name the text may use.
#[derive(Debug, Clone, Copy)]
pub struct Seat<'a> {
    pub character_id: &'a CharacterId,
    pub name: &'a str,
    pub muted: bool,
    pub talkativeness: Talkativeness,
}

impl<'a> Seat<'a> {
    pub fn of(member: &'a GroupMember, name: &'a str) -> Self {
        Self { character_id: &member.character_id, name, muted: member.muted, talkativeness: member.talkativeness }
    }
}

/// How the group chooses, as its settings say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    pub activation: Activation,
    pub allow_self_responses: bool,
}

/// What a round answers.
#[derive(Debug, Clone, Copy)]
pub enum Ask<'a> {
    /// The user just sent this text.
    UserMessage(&'a str),
    /// "Let them talk": go on after the group's last message.
    GoOn { speaker: &'a GroupSpeaker, text: &'a str },
}

/// Seeded random draws (splitmix64): small, dependency-free, and the same on every
/// platform, which is all a turn order needs.
#[derive(Debug, Clone)]
pub struct Draws(u64);

impl Draws {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A draw in `0..n` (`n` > 0); the modulo's bias is below 2^-50 for any group's sizes.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Fisher–Yates, as lodash's `shuffle` that SillyTavern uses.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// The words of a text as SillyTavern's `extractAllWords` finds them (`\b\w+\b`,
/// lower-cased), with letters and digits of every script, since names and messages come
/// in ten languages.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Who answers, in order, once each: one round.
pub fn round(rules: Rules, seats: &[Seat<'_>], ask: Ask<'_>, draws: &mut Draws) -> Vec<CharacterId> {
    let (text, last_speaker) = match ask {
        Ask::UserMessage(text) => (text, None),
        Ask::GoOn { speaker, text } => (text, speaker.character()),
    };
    // The last speaker does not answer itself unless the group allows it.
    let banned = last_speaker.filter(|_| !rules.allow_self_responses);
    let open: Vec<&Seat<'_>> = seats.iter().filter(|s| !s.muted && Some(s.character_id) != banned).collect();
    let picked = match (rules.activation, ask) {
        (Activation::Natural, _) => natural(&open, text, draws),
        (Activation::List, Ask::UserMessage(_)) => open.iter().map(|s| s.character_id.clone()).collect(),
        (Activation::List, Ask::GoOn { .. }) => after_last(seats, last_speaker, &open),
        (Activation::Manual, Ask::UserMessage(_)) => Vec::new(),
        (Activation::Manual, Ask::GoOn { .. }) => one_of(&open, draws),
    };
    unique(picked)
}

fn natural(open: &[&Seat<'_>], text: &str, draws: &mut Draws) -> Vec<CharacterId> {
    let mut picked = Vec::new();
    // Named first, in the order the text names them; for each word the first seat whose
    // name has it.
    for word in words(text) {
        if let Some(seat) = open.iter().find(|s| words(s.name).contains(&word)) {
            picked.push(seat.character_id.clone());
        }
    }
    // Then by talkativeness, in a shuffled order.
    let mut shuffled = open.to_vec();
    draws.shuffle(&mut shuffled);
    let mut chatty = Vec::new();
    for seat in shuffled {
        let talkativeness = seat.talkativeness.percent();
        if (draws.below(100) as u8) < talkativeness {
            picked.push(seat.character_id.clone());
        }
        if talkativeness > 0 {
            chatty.push(seat);
        }
    }
    // Nobody: one at random, of the chatty ones if any.
    if picked.is_empty() {
        let pool: Vec<&Seat<'_>> = if chatty.is_empty() { open.to_vec() } else { chatty };
        picked = one_of(&pool, draws);
    }
    picked
}

/// Seating order from the seat after the last speaker's, wrapping; the last speaker itself
/// comes last if `open` holds it (self responses allowed).
fn after_last(seats: &[Seat<'_>], last_speaker: Option<&CharacterId>, open: &[&Seat<'_>]) -> Vec<CharacterId> {
    let start = last_speaker.and_then(|last| seats.iter().position(|s| s.character_id == last)).map_or(0, |i| i + 1);
    (0..seats.len())
        .map(|k| seats[(start + k) % seats.len()].character_id)
        .filter(|id| open.iter().any(|s| s.character_id == *id))
        .cloned()
        .collect()
}

fn one_of(pool: &[&Seat<'_>], draws: &mut Draws) -> Vec<CharacterId> {
    if pool.is_empty() {
        return Vec::new();
    }
    vec![pool[draws.below(pool.len())].character_id.clone()]
}

fn unique(ids: Vec<CharacterId>) -> Vec<CharacterId> {
    let mut seen = Vec::with_capacity(ids.len());
    for id in ids {
        if !seen.contains(&id) {
            seen.push(id);
        }
    }
    seen
}

/// Why the user's pick (manual order, or "make this one speak" in any order) is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PickRefused {
    #[error("{0} is not in the group")]
    NotAMember(CharacterId),
    #[error("{0} is muted")]
    Muted(CharacterId),
}

/// The member the user picks to speak next: any unmuted member, even the last speaker (the
/// user asked for it).
pub fn pick(seats: &[Seat<'_>], chosen: &CharacterId) -> Result<CharacterId, PickRefused> {
    match seats.iter().find(|s| s.character_id == chosen) {
        None => Err(PickRefused::NotAMember(chosen.clone())),
        Some(seat) if seat.muted => Err(PickRefused::Muted(chosen.clone())),
        Some(seat) => Ok(seat.character_id.clone()),
    }
}

/// What the user is about to do, for the most it can cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Send a message.
    Send,
    /// Pick one member to speak.
    Pick,
    /// Let them talk, up to this many replies.
    LetThemTalk(u8),
}

/// The most replies `intent` can bring, each charged as a one-to-one reply: shown before
/// sending (docs/architecture.md "Group chats", what is charged).
pub fn most_replies(rules: Rules, seats: &[Seat<'_>], intent: Intent) -> usize {
    let unmuted = seats.iter().filter(|s| !s.muted).count();
    match intent {
        Intent::Send if rules.activation == Activation::Manual => 0,
        Intent::Send => unmuted,
        Intent::Pick => usize::from(unmuted > 0),
        // A lone speaker who may not answer itself speaks once at most.
        Intent::LetThemTalk(_) if unmuted == 1 && !rules.allow_self_responses => 1,
        Intent::LetThemTalk(_) if unmuted == 0 => 0,
        Intent::LetThemTalk(cap) => usize::from(cap),
    }
}

/// "Let them talk": round after round, each going on from the group's last message, until
/// `cap` replies were written or a round picks nobody (SillyTavern's auto mode, capped).
/// The caller writes each reply before asking for the next speaker.
#[derive(Debug, Clone)]
pub struct TalkPlan {
    left: u8,
    queue: VecDeque<CharacterId>,
}

impl TalkPlan {
    pub fn new(cap: u8) -> Self {
        Self { left: cap, queue: VecDeque::new() }
    }

    /// Replies still allowed.
    pub fn left(&self) -> u8 {
        self.left
    }

    /// The next speaker, given the group as it is now (a member muted or removed since the
    /// round was drawn is passed over) and its last message; `None`: the characters wait
    /// for the user.
    pub fn next(
        &mut self,
        rules: Rules,
        seats: &[Seat<'_>],
        last: (&GroupSpeaker, &str),
        draws: &mut Draws,
    ) -> Option<CharacterId> {
        if self.left == 0 {
            return None;
        }
        let speakable = |id: &CharacterId| seats.iter().any(|s| s.character_id == id && !s.muted);
        let mut next = self.queue.pop_front().filter(speakable);
        while next.is_none() && !self.queue.is_empty() {
            next = self.queue.pop_front().filter(speakable);
        }
        if next.is_none() {
            self.queue = round(rules, seats, Ask::GoOn { speaker: last.0, text: last.1 }, draws).into();
            next = self.queue.pop_front();
        }
        if next.is_some() {
            self.left -= 1;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Table {
        members: Vec<(GroupMember, &'static str)>,
    }

    impl Table {
        fn new(seats: &[(&'static str, &'static str, u8)]) -> Self {
            let members = seats
                .iter()
                .map(|(id, name, talk)| {
                    let member = GroupMember {
                        character_id: cid(id),
                        muted: false,
                        talkativeness: Talkativeness::parse(i64::from(*talk)).unwrap_or_else(|e| panic!("{e}")),
                    };
                    (member, *name)
                })
                .collect();
            Self { members }
        }

        fn mute(mut self, id: &str) -> Self {
            for (member, _) in &mut self.members {
                if member.character_id.as_str() == id {
                    member.muted = true;
                }
            }
            self
        }

        fn seats(&self) -> Vec<Seat<'_>> {
            self.members.iter().map(|(m, name)| Seat::of(m, name)).collect()
        }
    }

    fn cid(raw: &str) -> CharacterId {
        CharacterId::parse(raw).unwrap_or_else(|e| panic!("{e}"))
    }

    fn ids(raw: &[&str]) -> Vec<CharacterId> {
        raw.iter().map(|r| cid(r)).collect()
    }

    fn rules(activation: Activation, allow_self_responses: bool) -> Rules {
        Rules { activation, allow_self_responses }
    }

    const NATURAL: Rules = Rules { activation: Activation::Natural, allow_self_responses: false };

    /// Mia, Leo and Ann Marie, none of whom speaks up unasked.
    fn quiet_trio() -> Table {
        Table::new(&[("mia", "Mia", 0), ("leo", "Leo", 0), ("ann", "Ann Marie", 0)])
    }

    #[test]
    fn words_are_found_as_sillytavern_finds_them_in_every_script() {
        assert_eq!(words("Hey, MIA! How's Ann-Marie?"), ["hey", "mia", "how", "s", "ann", "marie"]);
        assert_eq!(words("Привет, Лео"), ["привет", "лео"]);
        assert_eq!(words("  "), Vec::<String>::new());
    }

    #[test]
    fn natural_order_answers_with_those_named_first_in_the_order_named() {
        let table = quiet_trio();
        for seed in 0..50 {
            let picked =
                round(NATURAL, &table.seats(), Ask::UserMessage("Leo, what does mia think?"), &mut Draws::new(seed));
            assert_eq!(picked, ids(&["leo", "mia"]), "seed {seed}: named only, nobody chatty");
        }
        // Any word of a name names it; case does not matter.
        let picked = round(NATURAL, &table.seats(), Ask::UserMessage("MARIE?"), &mut Draws::new(1));
        assert_eq!(picked, ids(&["ann"]));
    }

    #[test]
    fn natural_order_adds_the_talkative_by_their_rolls() {
        let table = Table::new(&[("mia", "Mia", 0), ("leo", "Leo", 100), ("ann", "Ann", 100)]);
        for seed in 0..50 {
            let picked = round(NATURAL, &table.seats(), Ask::UserMessage("Mia?"), &mut Draws::new(seed));
            assert_eq!(picked[0], cid("mia"), "the named one first");
            assert_eq!(picked.len(), 3, "talkativeness 100 always speaks, 0 only when named: {picked:?}");
        }
        // Half-talkative members speak about half the time.
        let half = Table::new(&[("mia", "Mia", 50), ("leo", "Leo", 50), ("ann", "Ann", 50)]);
        let spoke: usize = (0..2000)
            .map(|seed| round(NATURAL, &half.seats(), Ask::UserMessage("hello"), &mut Draws::new(seed)))
            .filter(|picked| picked.contains(&cid("leo")))
            .count();
        // P(Leo) = 0.5 by his roll, plus a third of the rounds where nobody rolled in (1/8).
        assert!((1000..1250).contains(&spoke), "Leo spoke in {spoke} of 2000 rounds");
    }

    #[test]
    fn natural_order_picks_one_at_random_when_nobody_is_named_or_rolls_in() {
        let table = quiet_trio();
        let mut seen = std::collections::HashSet::new();
        for seed in 0..200 {
            let picked = round(NATURAL, &table.seats(), Ask::UserMessage("hello there"), &mut Draws::new(seed));
            assert_eq!(picked.len(), 1, "exactly one when all talkativeness is 0");
            seen.insert(picked[0].clone());
        }
        assert_eq!(seen.len(), 3, "any of them");
        // The random pool is the chatty ones when there are some.
        let one_chatty = Table::new(&[("mia", "Mia", 0), ("leo", "Leo", 1), ("ann", "Ann", 0)]);
        for seed in 0..200 {
            let picked = round(NATURAL, &one_chatty.seats(), Ask::UserMessage("hello"), &mut Draws::new(seed));
            assert_eq!(picked, ids(&["leo"]), "seed {seed}");
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_round() {
        let table = Table::new(&[("mia", "Mia", 50), ("leo", "Leo", 50), ("ann", "Ann", 50), ("eve", "Eve", 50)]);
        let draw = |seed| round(NATURAL, &table.seats(), Ask::UserMessage("hi"), &mut Draws::new(seed));
        assert_eq!(draw(42), draw(42));
        assert!((0..20).map(draw).collect::<std::collections::HashSet<_>>().len() > 3, "seeds differ");
    }

    #[test]
    fn the_last_speaker_does_not_answer_itself_unless_allowed() {
        let table = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100), ("ann", "Ann", 100)]);
        let mia = GroupSpeaker::Character(cid("mia"));
        let ask = Ask::GoOn { speaker: &mia, text: "I'm Mia, and Mia says hi." };
        for seed in 0..50 {
            let picked = round(NATURAL, &table.seats(), ask, &mut Draws::new(seed));
            assert!(!picked.contains(&cid("mia")), "not even named: {picked:?}");
            assert_eq!(picked.len(), 2);
            let allowed = round(rules(Activation::Natural, true), &table.seats(), ask, &mut Draws::new(seed));
            assert_eq!(allowed[0], cid("mia"), "named first when self responses are allowed");
        }
        // A lone member who spoke last: nobody, unless it may answer itself.
        let lone = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100)]).mute("leo");
        assert_eq!(round(NATURAL, &lone.seats(), ask, &mut Draws::new(3)), vec![]);
        let quiet_lone = Table::new(&[("mia", "Mia", 0), ("leo", "Leo", 0)]).mute("leo");
        assert_eq!(round(NATURAL, &quiet_lone.seats(), ask, &mut Draws::new(3)), vec![], "not even at random");
        assert_eq!(round(rules(Activation::Natural, true), &lone.seats(), ask, &mut Draws::new(3)), ids(&["mia"]));
        // A user's message bans nobody.
        let user = GroupSpeaker::User;
        let after_user = round(NATURAL, &table.seats(), Ask::GoOn { speaker: &user, text: "hi" }, &mut Draws::new(1));
        assert_eq!(after_user.len(), 3);
    }

    #[test]
    fn a_muted_member_never_speaks_by_any_rule() {
        let table = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100), ("ann", "Ann", 0)]).mute("leo");
        let leo = cid("leo");
        let user = GroupSpeaker::User;
        for activation in [Activation::Natural, Activation::List, Activation::Manual] {
            for seed in 0..100 {
                for ask in [Ask::UserMessage("Leo! Leo?"), Ask::GoOn { speaker: &user, text: "Leo?" }] {
                    let picked = round(rules(activation, true), &table.seats(), ask, &mut Draws::new(seed));
                    assert!(!picked.contains(&leo), "{activation:?} seed {seed}: {picked:?}");
                }
            }
        }
        assert_eq!(pick(&table.seats(), &leo), Err(PickRefused::Muted(leo.clone())));
        let all_muted = quiet_trio().mute("mia").mute("leo").mute("ann");
        assert_eq!(round(NATURAL, &all_muted.seats(), Ask::UserMessage("Mia"), &mut Draws::new(0)), vec![]);
    }

    #[test]
    fn in_turn_every_unmuted_member_answers_in_seating_order() {
        let list = rules(Activation::List, false);
        let table =
            Table::new(&[("mia", "Mia", 0), ("leo", "Leo", 100), ("ann", "Ann", 50), ("eve", "Eve", 0)]).mute("ann");
        for seed in 0..20 {
            let picked = round(list, &table.seats(), Ask::UserMessage("Eve, hi"), &mut Draws::new(seed));
            assert_eq!(picked, ids(&["mia", "leo", "eve"]), "names and talkativeness do not matter");
        }
        // Going on: from the seat after the last speaker, wrapping, the speaker itself left out.
        let leo = GroupSpeaker::Character(cid("leo"));
        let go_on = Ask::GoOn { speaker: &leo, text: "Mia?" };
        assert_eq!(round(list, &table.seats(), go_on, &mut Draws::new(0)), ids(&["eve", "mia"]));
        let with_self = round(rules(Activation::List, true), &table.seats(), go_on, &mut Draws::new(0));
        assert_eq!(with_self, ids(&["eve", "mia", "leo"]), "the speaker last when allowed");
        let user = GroupSpeaker::User;
        let after_user = round(list, &table.seats(), Ask::GoOn { speaker: &user, text: "" }, &mut Draws::new(0));
        assert_eq!(after_user, ids(&["mia", "leo", "eve"]), "from the first seat after the user");
    }

    #[test]
    fn manual_order_answers_only_the_pick() {
        let manual = rules(Activation::Manual, false);
        let table = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100), ("ann", "Ann", 100)]);
        assert_eq!(round(manual, &table.seats(), Ask::UserMessage("Mia, Leo!"), &mut Draws::new(0)), vec![]);
        assert_eq!(pick(&table.seats(), &cid("leo")), Ok(cid("leo")));
        assert_eq!(pick(&table.seats(), &cid("bob")), Err(PickRefused::NotAMember(cid("bob"))));
        // Going on: one at random, never the last speaker.
        let mia = GroupSpeaker::Character(cid("mia"));
        let mut seen = std::collections::HashSet::new();
        for seed in 0..100 {
            let picked = round(manual, &table.seats(), Ask::GoOn { speaker: &mia, text: "Mia" }, &mut Draws::new(seed));
            assert_eq!(picked.len(), 1);
            assert_ne!(picked[0], cid("mia"));
            seen.insert(picked[0].clone());
        }
        assert_eq!(seen.len(), 2);
    }

    /// Runs a plan to its end, each reply written as `reply` says, from the user's `opening`.
    fn talk(
        table: &Table,
        rules: Rules,
        cap: u8,
        seed: u64,
        reply: impl Fn(&CharacterId) -> String,
    ) -> Vec<CharacterId> {
        let mut plan = TalkPlan::new(cap);
        let mut draws = Draws::new(seed);
        let (mut speaker, mut text) = (GroupSpeaker::User, "Hello everyone".to_owned());
        let mut spoken = Vec::new();
        while let Some(next) = plan.next(rules, &table.seats(), (&speaker, &text), &mut draws) {
            text = reply(&next);
            speaker = GroupSpeaker::Character(next.clone());
            spoken.push(next);
            assert!(spoken.len() <= 100, "the plan never ends");
        }
        spoken
    }

    #[test]
    fn let_them_talk_stops_at_the_cap_and_nobody_answers_itself() {
        let table = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100), ("ann", "Ann", 100)]);
        for activation in [Activation::Natural, Activation::List, Activation::Manual] {
            for cap in 1..=10 {
                for seed in 0..10 {
                    let spoken = talk(&table, rules(activation, false), cap, seed, |_| "Right.".into());
                    assert_eq!(spoken.len(), usize::from(cap), "{activation:?} cap {cap}: {spoken:?}");
                    assert!(spoken.windows(2).all(|w| w[0] != w[1]), "{activation:?}: {spoken:?}");
                }
            }
        }
        // In turn it goes round the table.
        let spoken = talk(&table, rules(Activation::List, false), 5, 0, |_| "Right.".into());
        assert_eq!(spoken, ids(&["mia", "leo", "ann", "mia", "leo"]));
    }

    #[test]
    fn let_them_talk_follows_who_each_reply_names() {
        let table = quiet_trio();
        // Each names another; natural order follows the names, whoever went first.
        let named = |id: &CharacterId| match id.as_str() {
            "mia" => cid("ann"),
            "ann" => cid("leo"),
            _ => cid("mia"),
        };
        for seed in 0..20 {
            let spoken =
                talk(&table, NATURAL, 4, seed, |id| format!("Over to you, {}.", named(id).as_str().to_uppercase()));
            assert_eq!(spoken.len(), 4);
            assert!(spoken.windows(2).all(|w| w[1] == named(&w[0])), "seed {seed}: {spoken:?}");
        }
    }

    #[test]
    fn let_them_talk_waits_for_the_user_when_nobody_may_speak() {
        // One unmuted member: it speaks once, then may not answer itself.
        let table = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100)]).mute("leo");
        assert_eq!(talk(&table, NATURAL, 3, 0, |_| "Hm.".into()), ids(&["mia"]));
        assert_eq!(talk(&table, rules(Activation::List, false), 3, 0, |_| "Hm.".into()), ids(&["mia"]));
        assert_eq!(talk(&table, rules(Activation::Natural, true), 3, 0, |_| "Hm.".into()).len(), 3);
        let silent = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100)]).mute("leo").mute("mia");
        assert_eq!(talk(&silent, NATURAL, 3, 0, |_| "Hm.".into()), vec![]);
    }

    #[test]
    fn a_member_muted_mid_plan_is_passed_over() {
        let mut table = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100), ("ann", "Ann", 100)]);
        let list = rules(Activation::List, false);
        let mut plan = TalkPlan::new(3);
        let mut draws = Draws::new(0);
        let user = GroupSpeaker::User;
        assert_eq!(plan.next(list, &table.seats(), (&user, "hi"), &mut draws), Some(cid("mia")));
        table = table.mute("leo");
        let mia = GroupSpeaker::Character(cid("mia"));
        assert_eq!(
            plan.next(list, &table.seats(), (&mia, "hm"), &mut draws),
            Some(cid("ann")),
            "Leo was next in the round"
        );
        assert_eq!(plan.left(), 1);
    }

    #[test]
    fn the_most_a_send_can_cost_is_known_before_sending() {
        let table = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100), ("ann", "Ann", 100)]).mute("ann");
        assert_eq!(most_replies(NATURAL, &table.seats(), Intent::Send), 2);
        assert_eq!(most_replies(rules(Activation::List, false), &table.seats(), Intent::Send), 2);
        assert_eq!(most_replies(rules(Activation::Manual, false), &table.seats(), Intent::Send), 0);
        assert_eq!(most_replies(NATURAL, &table.seats(), Intent::Pick), 1);
        assert_eq!(most_replies(NATURAL, &table.seats(), Intent::LetThemTalk(3)), 3);
        let lone = Table::new(&[("mia", "Mia", 100), ("leo", "Leo", 100)]).mute("leo");
        assert_eq!(most_replies(NATURAL, &lone.seats(), Intent::LetThemTalk(3)), 1);
        assert_eq!(most_replies(rules(Activation::Natural, true), &lone.seats(), Intent::LetThemTalk(3)), 3);
        let silent = lone.mute("mia");
        assert_eq!(most_replies(NATURAL, &silent.seats(), Intent::LetThemTalk(3)), 0);
        assert_eq!(most_replies(NATURAL, &silent.seats(), Intent::Pick), 0);
        // Every round stays within what was shown.
        for seed in 0..200 {
            let picked = round(NATURAL, &table.seats(), Ask::UserMessage("Mia and Leo and Ann"), &mut Draws::new(seed));
            assert!(picked.len() <= most_replies(NATURAL, &table.seats(), Intent::Send));
        }
    }
}
