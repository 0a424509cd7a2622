//! Fair use of the chat model on this node. The model writes a few replies at once and
//! keeps a short queue in front of it; who gets the next free slot decides how long an
//! honest user waits while others flood. Here, in front of the model:
//! - each user has at most `per_user` replies running or waiting (across characters);
//!   past it *that user* is told to wait (10003), not the others;
//! - the waiting room holds at most `waiting` replies, all users together;
//! - a free slot goes to the waiting reply that ranks first by, in order: (1) how many
//!   *other* replies its user holds (running or waiting): a user's only reply goes before
//!   anyone's second; (2) how many replies its user had started *or had refused* recently
//!   (a count that halves every `RECENT_HALF_LIFE`): a user's first reply in a while goes
//!   before the reply of someone served a moment ago, and a user who sends again at every
//!   refusal ranks after everyone asking once (counted by replies started only, twelve
//!   flooders each given a few replies ranked before a user who had chatted a lot just
//!   before, whose first token so waited 48 s: BENCHMARKS.md "Many accounts flooding the
//!   model"); (3) arrival;
//! - a reply arriving at a full waiting room takes the place of the waiting reply that ranks
//!   last, when it ranks before it; that one is refused as the model being busy (its user
//!   gets the free message back, as for any reply the model did not write).
//!
//! Why: round robin among waiting users (the policy before issue 28) put a newcomer at the
//! back of the line, behind the next reply of every user already waiting; twelve accounts
//! holding two replies each so made a victim wait for twelve replies (73 s), and refused it
//! outright when their replies filled the waiting room. Ranking by what each user already
//! holds and was recently given is least-attained-service scheduling (the idea of start-time
//! fair queuing and of deficit round robin, with a reply as the unit, since replies cost
//! about the same); llama.cpp's server and vLLM's default scheduler are first come, first
//! served and leave fairness between users to what is in front of them, which is this. A
//! user who asks for less than an even share of the model is served at once; the rest share
//! what is left evenly. The ranking is recomputed at each pick over at most `waiting`
//! entries, so it needs no heap to keep in order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use amora_domain::account::UserId;
use tokio::sync::oneshot;

/// A reply started counts half as much after this long, a quarter after twice as long.
pub const RECENT_HALF_LIFE: Duration = Duration::from_secs(60);

/// Users whose recent count fell below this (and who hold nothing) are forgotten.
const FORGOTTEN_BELOW: f64 = 0.01;

/// Past this many remembered users, the forgotten ones are dropped.
const REMEMBERED_USERS: usize = 4096;

/// Why a reply was not let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// This user has `per_user` replies running or waiting already.
    UserBusy,
    /// `waiting` replies of all users wait already, each ranking before this one (or it
    /// waited and another reply took its place).
    QueueFull,
}

#[derive(Debug, Clone, Copy)]
pub struct FairLimits {
    /// Replies the model writes at once.
    pub slots: usize,
    /// Replies that may wait for a slot, all users together.
    pub waiting: usize,
    /// Replies one user may have running or waiting.
    pub per_user: usize,
}

/// A user's replies started recently, decayed to `at`.
#[derive(Debug, Clone, Copy)]
struct Recent {
    count: f64,
    at: Instant,
}

impl Recent {
    fn now(&self, now: Instant) -> f64 {
        let halves = now.saturating_duration_since(self.at).as_secs_f64() / RECENT_HALF_LIFE.as_secs_f64();
        self.count * 0.5f64.powf(halves)
    }
}

/// A waiting reply.
#[derive(Debug, Clone)]
struct Waiter {
    ticket: u64,
    user_id: UserId,
}

/// What `Schedule::admit` decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admit {
    /// A slot was free: the reply runs now.
    Run,
    /// The reply waits as `ticket`; `evicted` is the waiting reply it pushed out of a full
    /// waiting room, now refused.
    Wait {
        ticket: u64,
        evicted: Option<u64>,
    },
    Refused(Refused),
}

/// The scheduling policy, without the waiting itself: pure, given the time, so that its
/// ordering is tested deterministically.
#[derive(Debug)]
pub struct Schedule {
    limits: FairLimits,
    free: usize,
    /// Running or waiting, per user.
    held: HashMap<UserId, usize>,
    recent: HashMap<UserId, Recent>,
    /// Waiting replies in arrival order (tickets grow).
    waiting: Vec<Waiter>,
    next_ticket: u64,
}

/// Where a waiting reply (or one asking in) ranks: lower goes first.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rank {
    others_held: usize,
    recent: f64,
    ticket: u64,
}

impl Rank {
    fn before(&self, other: &Rank) -> bool {
        self.others_held
            .cmp(&other.others_held)
            .then(self.recent.total_cmp(&other.recent))
            .then(self.ticket.cmp(&other.ticket))
            .is_lt()
    }
}

impl Schedule {
    pub fn new(limits: FairLimits) -> Self {
        let limits =
            FairLimits { slots: limits.slots.max(1), waiting: limits.waiting, per_user: limits.per_user.max(1) };
        Self {
            limits,
            free: limits.slots,
            held: HashMap::new(),
            recent: HashMap::new(),
            waiting: Vec::new(),
            next_ticket: 1,
        }
    }

    /// A reply of `user_id` asks for a slot at `now`.
    pub fn admit(&mut self, user_id: &UserId, now: Instant) -> Admit {
        let held = self.held_by(user_id);
        if held >= self.limits.per_user {
            self.asked(user_id, now);
            return Admit::Refused(Refused::UserBusy);
        }
        if self.free > 0 && self.waiting.is_empty() {
            self.free -= 1;
            *self.held.entry(user_id.clone()).or_default() += 1;
            self.started(user_id, now);
            return Admit::Run;
        }
        let mut evicted = None;
        match self.room_for(user_id, now) {
            Err(refused) => {
                self.asked(user_id, now);
                return Admit::Refused(refused);
            }
            Ok(None) => {}
            Ok(Some(at)) => {
                let out = self.waiting.remove(at);
                self.release_held(&out.user_id);
                evicted = Some(out.ticket);
            }
        }
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        *self.held.entry(user_id.clone()).or_default() += 1;
        self.waiting.push(Waiter { ticket, user_id: user_id.clone() });
        Admit::Wait { ticket, evicted }
    }

    /// Whether a reply of `user_id` would be let in now (run or wait), taking no place: a
    /// send the engine would refuse is refused before its message is stored. A refusal
    /// here counts against the user's rank like one in `admit` (`asked`).
    pub fn would_admit(&mut self, user_id: &UserId, now: Instant) -> Result<(), Refused> {
        let answer = if self.held_by(user_id) >= self.limits.per_user {
            Err(Refused::UserBusy)
        } else if self.free > 0 && self.waiting.is_empty() {
            Ok(())
        } else {
            self.room_for(user_id, now).map(|_| ())
        };
        if answer.is_err() {
            self.asked(user_id, now);
        }
        answer
    }

    /// Room in the waiting room for a reply of `user_id`: free room (`None`), the place of
    /// the last-ranked waiting reply when the room is full and the newcomer ranks before it
    /// (its index), or `QueueFull`. The newcomer's count of others held is what it holds now.
    fn room_for(&self, user_id: &UserId, now: Instant) -> Result<Option<usize>, Refused> {
        if self.waiting.len() < self.limits.waiting {
            return Ok(None);
        }
        let newcomer =
            Rank { others_held: self.held_by(user_id), recent: self.recent_of(user_id, now), ticket: self.next_ticket };
        let last = self
            .waiting
            .iter()
            .enumerate()
            .map(|(at, w)| (at, self.rank(w, now)))
            .reduce(|worst, next| if worst.1.before(&next.1) { next } else { worst });
        match last {
            Some((at, rank)) if newcomer.before(&rank) => Ok(Some(at)),
            _ => Err(Refused::QueueFull),
        }
    }

    /// A slot is free and a reply waits: the first-ranked one starts, `(ticket, user)`.
    pub fn start_next(&mut self, now: Instant) -> Option<(u64, UserId)> {
        if self.free == 0 {
            return None;
        }
        let (at, _) = self
            .waiting
            .iter()
            .enumerate()
            .map(|(at, w)| (at, self.rank(w, now)))
            .reduce(|best, next| if next.1.before(&best.1) { next } else { best })?;
        let chosen = self.waiting.remove(at);
        self.free -= 1;
        self.started(&chosen.user_id, now);
        Some((chosen.ticket, chosen.user_id))
    }

    /// A running reply of `user_id` ended: its slot is free.
    pub fn finish(&mut self, user_id: &UserId) {
        self.release_held(user_id);
        self.free += 1;
    }

    /// A waiting reply gave up; false when it was not waiting (started or evicted already).
    pub fn abandon(&mut self, ticket: u64) -> bool {
        let Some(at) = self.waiting.iter().position(|w| w.ticket == ticket) else {
            return false;
        };
        let out = self.waiting.remove(at);
        self.release_held(&out.user_id);
        true
    }

    fn rank(&self, waiter: &Waiter, now: Instant) -> Rank {
        Rank {
            others_held: self.held_by(&waiter.user_id).saturating_sub(1),
            recent: self.recent_of(&waiter.user_id, now),
            ticket: waiter.ticket,
        }
    }

    fn held_by(&self, user_id: &UserId) -> usize {
        self.held.get(user_id).copied().unwrap_or(0)
    }

    fn recent_of(&self, user_id: &UserId, now: Instant) -> f64 {
        self.recent.get(user_id).map_or(0.0, |recent| recent.now(now))
    }

    /// A reply of `user_id` was refused: it counts as asked for, like one started, so that
    /// a user sending again at every refusal ranks after one who asks once.
    fn asked(&mut self, user_id: &UserId, now: Instant) {
        self.started(user_id, now);
    }

    fn started(&mut self, user_id: &UserId, now: Instant) {
        let count = self.recent_of(user_id, now) + 1.0;
        self.recent.insert(user_id.clone(), Recent { count, at: now });
        if self.recent.len() > REMEMBERED_USERS {
            let held = &self.held;
            self.recent.retain(|user, recent| held.contains_key(user) || recent.now(now) >= FORGOTTEN_BELOW);
        }
    }

    fn release_held(&mut self, user_id: &UserId) {
        if let Some(held) = self.held.get_mut(user_id) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                self.held.remove(user_id);
            }
        }
    }
}

struct State {
    schedule: Schedule,
    /// How each waiting reply is told its slot came; dropping one tells it it was refused.
    senders: HashMap<u64, oneshot::Sender<()>>,
}

#[derive(Clone)]
pub struct FairQueue {
    state: Arc<Mutex<State>>,
}

/// A slot of the model, held while a reply is written; dropping it passes the slot on.
pub struct Slot {
    queue: FairQueue,
    user_id: UserId,
}

impl FairQueue {
    pub fn new(limits: FairLimits) -> Self {
        let state = State { schedule: Schedule::new(limits), senders: HashMap::new() };
        Self { state: Arc::new(Mutex::new(state)) }
    }

    /// Waits for a slot for `user_id`'s reply, or refuses at once (or, while it waits, when
    /// a reply ranking before it takes its place in a full waiting room).
    pub async fn acquire(&self, user_id: &UserId) -> Result<Slot, Refused> {
        let (ticket, receiver) = {
            let mut state = self.lock();
            match state.schedule.admit(user_id, Instant::now()) {
                Admit::Run => return Ok(Slot { queue: self.clone(), user_id: user_id.clone() }),
                Admit::Refused(refused) => return Err(refused),
                Admit::Wait { ticket, evicted } => {
                    tracing::debug!(
                        user = %user_id, ticket, held = state.schedule.held_by(user_id),
                        recent = state.schedule.recent_of(user_id, Instant::now()),
                        waiting = state.schedule.waiting.len(), "a reply waits for the model"
                    );
                    // Dropping the pushed-out reply's sender tells its waiter.
                    if let Some(evicted) = evicted {
                        state.senders.remove(&evicted);
                    }
                    let (sender, receiver) = oneshot::channel();
                    state.senders.insert(ticket, sender);
                    (ticket, receiver)
                }
            }
        };
        // Counted as held from here: if this wait is abandoned, `Waiting` gives it back.
        let mut waiting = Waiting { queue: self.clone(), user_id: user_id.clone(), ticket, receiver, settled: false };
        let asked = Instant::now();
        let turn = (&mut waiting.receiver).await;
        waiting.settled = true;
        tracing::debug!(user = %user_id, ticket, waited_ms = asked.elapsed().as_millis() as u64, started = turn.is_ok(), "a waiting reply's turn");
        match turn {
            Ok(()) => Ok(Slot { queue: self.clone(), user_id: user_id.clone() }),
            // Pushed out of a full waiting room (the schedule gave its count back).
            Err(_) => Err(Refused::QueueFull),
        }
    }

    /// How many replies wait for a slot now (the operator console's queue depth).
    pub fn waiting(&self) -> usize {
        self.lock().schedule.waiting.len()
    }

    /// Whether a reply of `user_id` would be let in now (`Schedule::would_admit`).
    pub fn would_admit(&self, user_id: &UserId) -> Result<(), Refused> {
        self.lock().schedule.would_admit(user_id, Instant::now())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot came free: the first-ranked waiting reply gets it, else it stays free.
    fn pass_on(state: &mut State) {
        while let Some((ticket, user_id)) = state.schedule.start_next(Instant::now()) {
            if let Some(sender) = state.senders.remove(&ticket)
                && sender.send(()).is_ok()
            {
                return;
            }
            // That wait was abandoned meanwhile: its slot goes to the next one.
            state.schedule.finish(&user_id);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut state = self.queue.lock();
        state.schedule.finish(&self.user_id);
        FairQueue::pass_on(&mut state);
    }
}

/// A reply waiting for its slot. Dropped before it settled (the reply was stopped or its
/// task dropped), it leaves the waiting room, or passes on the slot it was just given.
struct Waiting {
    queue: FairQueue,
    user_id: UserId,
    ticket: u64,
    receiver: oneshot::Receiver<()>,
    settled: bool,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let mut state = self.queue.lock();
        if state.schedule.abandon(self.ticket) {
            state.senders.remove(&self.ticket);
        } else if self.receiver.try_recv().is_ok() {
            // Its slot was handed over but never taken.
            state.schedule.finish(&self.user_id);
            FairQueue::pass_on(&mut state);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn user(name: &str) -> UserId {
        UserId::parse(name).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Two users, one flooding: with one model slot, the flooder gets `per_user` replies in
    /// and the rest refused, and the other user's reply runs after at most one of the
    /// flooder's, not after all of them.
    #[tokio::test]
    async fn a_flood_from_one_user_does_not_starve_another() {
        let queue = FairQueue::new(FairLimits { slots: 1, waiting: 16, per_user: 2 });
        let flooder = user("uFlooder01");
        let other = user("uOther0001");
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut refused = 0;
        let mut tasks = Vec::new();
        let first = queue.acquire(&flooder).await.unwrap_or_else(|_| panic!("the first reply runs"));
        for n in 0..10 {
            let (queue, flooder, order) = (queue.clone(), flooder.clone(), order.clone());
            let attempt = tokio::spawn(async move {
                let slot = queue.acquire(&flooder).await?;
                order.lock().unwrap_or_else(PoisonError::into_inner).push(format!("flooder-{n}"));
                tokio::time::sleep(Duration::from_millis(20)).await;
                drop(slot);
                Ok::<_, Refused>(())
            });
            tasks.push(attempt);
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        let other_task = {
            let (queue, other, order) = (queue.clone(), other.clone(), order.clone());
            tokio::spawn(async move {
                let slot = queue.acquire(&other).await?;
                order.lock().unwrap_or_else(PoisonError::into_inner).push("other".to_owned());
                drop(slot);
                Ok::<_, Refused>(())
            })
        };
        tokio::time::sleep(Duration::from_millis(10)).await;
        drop(first);
        for task in tasks {
            if task.await.unwrap_or(Err(Refused::QueueFull)) == Err(Refused::UserBusy) {
                refused += 1;
            }
        }
        assert!(other_task.await.is_ok_and(|r| r.is_ok()), "the other user's reply ran");
        let order = order.lock().unwrap_or_else(PoisonError::into_inner).clone();
        assert_eq!(refused, 9, "the flooder holds per_user = 2 (one running, one waiting): {order:?}");
        let other_at = order.iter().position(|o| o == "other");
        assert!(other_at.is_some_and(|at| at <= 1), "the other user waited behind at most one: {order:?}");
    }

    /// Issue 28: twelve users each hold two replies (one model slot, a long queue); a
    /// newcomer's first reply is started next, not behind every other user's next reply
    /// (round robin put it at position 12).
    #[tokio::test]
    async fn a_newcomer_goes_before_twelve_users_second_replies() {
        let queue = FairQueue::new(FairLimits { slots: 1, waiting: 32, per_user: 2 });
        let flooders: Vec<UserId> = (0..12).map(|n| user(&format!("uFlood{n:04}"))).collect();
        let running = queue.acquire(&flooders[0]).await.unwrap_or_else(|_| panic!("free slot"));
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        let mut waiters: Vec<UserId> = vec![flooders[0].clone()];
        for flooder in &flooders[1..] {
            waiters.push(flooder.clone());
            waiters.push(flooder.clone());
        }
        waiters.push(user("uNewcomer1"));
        for who in waiters {
            let (queue, order) = (queue.clone(), order.clone());
            tasks.push(tokio::spawn(async move {
                let slot = queue.acquire(&who).await.unwrap_or_else(|_| panic!("room to wait"));
                order.lock().unwrap_or_else(PoisonError::into_inner).push(who.as_str().to_owned());
                drop(slot);
            }));
            tokio::task::yield_now().await;
        }
        drop(running);
        for task in tasks {
            let _ = task.await;
        }
        let order = order.lock().unwrap_or_else(PoisonError::into_inner).clone();
        assert_eq!(order.len(), 24, "every reply ran: {order:?}");
        assert_eq!(order.iter().position(|o| o == "uNewcomer1"), Some(0), "the newcomer went first: {order:?}");
    }

    /// Issue 28: the waiting room is full of other users' second replies; a newcomer's first
    /// reply takes the place of the most-served user's second one, which is refused as the
    /// model being busy, rather than the newcomer being refused.
    #[tokio::test]
    async fn a_full_queue_makes_room_for_a_newcomer() {
        let queue = FairQueue::new(FairLimits { slots: 1, waiting: 4, per_user: 2 });
        let (a, b, c) = (user("uAaaaaaaa1"), user("uBbbbbbbb1"), user("uCcccccccc1"));
        let running = queue.acquire(&a).await.unwrap_or_else(|_| panic!("free slot"));
        let mut tasks = Vec::new();
        for who in [&a, &b, &b, &c] {
            let (queue, who) = (queue.clone(), who.clone());
            tasks.push(tokio::spawn(async move { queue.acquire(&who).await.map(drop) }));
            tokio::task::yield_now().await;
        }
        let newcomer = {
            let queue = queue.clone();
            tokio::spawn(async move { queue.acquire(&user("uNewcomer1")).await.map(drop) })
        };
        tokio::task::yield_now().await;
        drop(running);
        let results: Vec<Result<(), Refused>> = futures_util::future::join_all(tasks)
            .await
            .into_iter()
            .map(|r| r.unwrap_or(Err(Refused::UserBusy)))
            .collect();
        assert_eq!(newcomer.await.ok(), Some(Ok(())), "the newcomer was let in");
        assert_eq!(results.iter().filter(|r| **r == Err(Refused::QueueFull)).count(), 1, "one gave way: {results:?}");
        assert_eq!(results[0], Err(Refused::QueueFull), "the running user's second reply gave way: {results:?}");
    }

    /// A user waiting with one reply goes before a user waiting with three, and the
    /// second's replies run once the first has nothing waiting.
    #[tokio::test]
    async fn a_user_holding_fewer_replies_goes_first() {
        let queue = FairQueue::new(FairLimits { slots: 1, waiting: 16, per_user: 4 });
        let (a, b) = (user("uAaaaaaaa1"), user("uBbbbbbbb1"));
        let running = queue.acquire(&a).await.unwrap_or_else(|_| panic!("free slot"));
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for who in [&a, &a, &a, &b, &b] {
            let (queue, who, order) = (queue.clone(), who.clone(), order.clone());
            tasks.push(tokio::spawn(async move {
                let slot = queue.acquire(&who).await.unwrap_or_else(|_| panic!("room to wait"));
                order.lock().unwrap_or_else(PoisonError::into_inner).push(who.as_str().to_owned());
                drop(slot);
            }));
            tokio::task::yield_now().await;
        }
        drop(running);
        for task in tasks {
            let _ = task.await;
        }
        let order = order.lock().unwrap_or_else(PoisonError::into_inner).clone();
        assert_eq!(order, ["uBbbbbbbb1", "uBbbbbbbb1", "uAaaaaaaa1", "uAaaaaaaa1", "uAaaaaaaa1"]);
    }

    #[tokio::test]
    async fn an_abandoned_wait_gives_its_place_back() {
        let queue = FairQueue::new(FairLimits { slots: 1, waiting: 1, per_user: 2 });
        let a = user("uAaaaaaaa1");
        let running = queue.acquire(&a).await.unwrap_or_else(|_| panic!("free slot"));
        let waiting = tokio::time::timeout(Duration::from_millis(20), queue.acquire(&a)).await;
        assert!(waiting.is_err(), "it waited, then was abandoned");
        let other = tokio::time::timeout(Duration::from_millis(20), queue.acquire(&user("uBbbbbbbb1"))).await;
        assert!(other.is_err(), "another user waits in the freed place rather than being refused");
        drop(running);
    }

    /// The policy alone, at fixed times: twelve users keep two replies each asked for (four
    /// slots, sixteen waiting), sending again the moment one ends or is refused, for two
    /// minutes of one reply ending a second; then a newcomer is let in (the room is full)
    /// and its reply is the next one started. Round robin put it behind all twelve.
    #[test]
    fn the_schedule_starts_a_newcomer_before_a_flood_of_twelve_users() {
        let t0 = Instant::now();
        let mut schedule = Schedule::new(FairLimits { slots: 4, waiting: 16, per_user: 2 });
        let flooders: Vec<UserId> = (0..12).map(|n| user(&format!("uFlood{n:04}"))).collect();
        let mut running = std::collections::VecDeque::new();
        let send_all = |schedule: &mut Schedule, running: &mut std::collections::VecDeque<UserId>, now| {
            for flooder in &flooders {
                while schedule.held_by(flooder) < 2 {
                    match schedule.admit(flooder, now) {
                        Admit::Run => running.push_back(flooder.clone()),
                        Admit::Wait { .. } => {}
                        Admit::Refused(_) => break,
                    }
                }
            }
        };
        send_all(&mut schedule, &mut running, t0);
        for second in 1..=120 {
            let now = t0 + Duration::from_secs(second);
            let done = running.pop_front().unwrap_or_else(|| panic!("four replies run"));
            schedule.finish(&done);
            if let Some((_, started)) = schedule.start_next(now) {
                running.push_back(started);
            }
            send_all(&mut schedule, &mut running, now);
        }
        assert_eq!((running.len(), schedule.waiting.len()), (4, 16), "the flood fills slots and room");
        let now = t0 + Duration::from_secs(121);
        let newcomer = user("uNewcomer1");
        let Admit::Wait { ticket, evicted } = schedule.admit(&newcomer, now) else { panic!("the newcomer waits") };
        assert!(evicted.is_some(), "a flooder's reply gave way in the full room");
        let done = running.pop_front().unwrap_or_else(|| panic!("four replies run"));
        schedule.finish(&done);
        assert_eq!(schedule.start_next(now), Some((ticket, newcomer)), "the newcomer's reply starts next");
    }

    /// Issue 28's bench: a user who chats often (thirty replies just before the flood) asks
    /// while twelve users flood, each sending again the moment a send is refused. Counted by
    /// replies started alone, the flooders (a few each) ranked first and the user's first
    /// token waited 48 s; a refused send counts as asked for, so the users hammering the
    /// door rank after the one asking once, and its reply starts at the next free slot.
    #[test]
    fn a_chatty_user_goes_before_flooders_who_resend_when_refused() {
        let t0 = Instant::now();
        let mut schedule = Schedule::new(FairLimits { slots: 4, waiting: 16, per_user: 2 });
        let chatty = user("uChatty001");
        for _ in 0..30 {
            assert_eq!(schedule.admit(&chatty, t0), Admit::Run);
            schedule.finish(&chatty);
        }
        let flooders: Vec<UserId> = (0..12).map(|n| user(&format!("uFlood{n:04}"))).collect();
        let mut running = std::collections::VecDeque::new();
        let flood = |schedule: &mut Schedule, running: &mut std::collections::VecDeque<UserId>, now| {
            for flooder in &flooders {
                // Three sends a second each, as the clients send again on every refusal.
                for _ in 0..3 {
                    if schedule.would_admit(flooder, now).is_ok() && schedule.admit(flooder, now) == Admit::Run {
                        running.push_back(flooder.clone());
                    }
                }
            }
        };
        let flood_starts = t0 + Duration::from_secs(10);
        flood(&mut schedule, &mut running, flood_starts);
        for second in 1..=60 {
            let now = flood_starts + Duration::from_secs(second);
            let done = running.pop_front().unwrap_or_else(|| panic!("four replies run"));
            schedule.finish(&done);
            if let Some((_, started)) = schedule.start_next(now) {
                running.push_back(started);
            }
            flood(&mut schedule, &mut running, now);
        }
        let now = flood_starts + Duration::from_secs(61);
        assert!(schedule.would_admit(&chatty, now).is_ok(), "the chatty user is let in");
        let Admit::Wait { ticket, .. } = schedule.admit(&chatty, now) else { panic!("the chatty user waits") };
        let done = running.pop_front().unwrap_or_else(|| panic!("four replies run"));
        schedule.finish(&done);
        assert_eq!(schedule.start_next(now), Some((ticket, chatty)), "the chatty user's reply starts next");
    }

    /// Among users who each hold one waiting reply, the one served longest ago (its count
    /// halved since) goes first, whatever the order they asked in.
    #[test]
    fn a_user_served_long_ago_goes_before_one_served_a_moment_ago() {
        let t0 = Instant::now();
        let mut schedule = Schedule::new(FairLimits { slots: 1, waiting: 8, per_user: 2 });
        let (early, late) = (user("uEarly0001"), user("uLate00001"));
        for _ in 0..3 {
            assert_eq!(schedule.admit(&early, t0), Admit::Run);
            schedule.finish(&early);
        }
        let later = t0 + 5 * RECENT_HALF_LIFE;
        for _ in 0..2 {
            assert_eq!(schedule.admit(&late, later), Admit::Run);
            schedule.finish(&late);
        }
        let blocker = user("uBlocker01");
        assert_eq!(schedule.admit(&blocker, later), Admit::Run);
        let Admit::Wait { .. } = schedule.admit(&late, later) else { panic!("waits") };
        let Admit::Wait { ticket, .. } = schedule.admit(&early, later) else { panic!("waits") };
        schedule.finish(&blocker);
        // 3 halved five times (0.09) is less than the 2 just now.
        assert_eq!(schedule.start_next(later), Some((ticket, early)));
    }

    /// A full room lets nobody in who ranks after every waiting reply: a user asking for a
    /// second reply while others wait with their first is refused.
    #[test]
    fn a_full_room_refuses_a_reply_ranking_after_all_waiting() {
        let t0 = Instant::now();
        let mut schedule = Schedule::new(FairLimits { slots: 1, waiting: 2, per_user: 2 });
        let (a, b, c) = (user("uAaaaaaaa1"), user("uBbbbbbbb1"), user("uCcccccccc1"));
        assert_eq!(schedule.admit(&a, t0), Admit::Run);
        assert!(matches!(schedule.admit(&b, t0), Admit::Wait { evicted: None, .. }));
        assert!(matches!(schedule.admit(&c, t0), Admit::Wait { evicted: None, .. }));
        assert_eq!(schedule.admit(&a, t0), Admit::Refused(Refused::QueueFull));
        let Admit::Refused(_) = schedule.admit(&user("uDddddddd1"), t0) else { panic!("full, all equal") };
        schedule.finish(&a);
        let started = schedule.start_next(t0).map(|(_, who)| who);
        assert_eq!(started, Some(b.clone()), "equal ranks go in arrival order");
    }
}
