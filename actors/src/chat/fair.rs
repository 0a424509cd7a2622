//! Fair use of the chat model on this node. The model writes a few replies at once and
//! keeps a short queue; in arrival order, one user sending to many characters at once
//! filled it, and everyone else's message was answered "busy". Here, in front of the model:
//! - each user has at most `per_user` replies running or waiting (across characters);
//!   past it *that user* is told to wait (10003), not the others;
//! - free slots go to waiting users in turn (round robin), each user's own replies in the
//!   order they were sent, so a burst waits behind everyone else's next reply.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use amora_domain::account::UserId;
use tokio::sync::oneshot;

/// Why a reply was not let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// This user has `per_user` replies running or waiting already.
    UserBusy,
    /// `waiting` replies of all users wait already.
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

#[derive(Default)]
struct State {
    free: usize,
    /// Running or waiting, per user.
    held: HashMap<UserId, usize>,
    /// Users with waiting replies, in turn order.
    turns: VecDeque<UserId>,
    /// Each user's waiting replies, oldest first.
    queues: HashMap<UserId, VecDeque<oneshot::Sender<()>>>,
    waiting: usize,
}

#[derive(Clone)]
pub struct FairQueue {
    limits: FairLimits,
    state: Arc<Mutex<State>>,
}

/// A slot of the model, held while a reply is written; dropping it passes the slot on.
pub struct Slot {
    queue: FairQueue,
    user_id: UserId,
}

impl FairQueue {
    pub fn new(limits: FairLimits) -> Self {
        let limits =
            FairLimits { slots: limits.slots.max(1), waiting: limits.waiting, per_user: limits.per_user.max(1) };
        Self { limits, state: Arc::new(Mutex::new(State { free: limits.slots, ..State::default() })) }
    }

    /// Waits for a slot for `user_id`'s reply, or refuses at once.
    pub async fn acquire(&self, user_id: &UserId) -> Result<Slot, Refused> {
        let turn = {
            let mut state = self.lock();
            let held = state.held.get(user_id).copied().unwrap_or(0);
            if held >= self.limits.per_user {
                return Err(Refused::UserBusy);
            }
            if state.free > 0 && state.waiting == 0 {
                state.free -= 1;
                *state.held.entry(user_id.clone()).or_default() += 1;
                return Ok(Slot { queue: self.clone(), user_id: user_id.clone() });
            }
            if state.waiting >= self.limits.waiting {
                return Err(Refused::QueueFull);
            }
            let (sender, receiver) = oneshot::channel();
            *state.held.entry(user_id.clone()).or_default() += 1;
            state.waiting += 1;
            let queue = state.queues.entry(user_id.clone()).or_default();
            queue.push_back(sender);
            if queue.len() == 1 {
                state.turns.push_back(user_id.clone());
            }
            receiver
        };
        // Counted as held from here: if this wait is abandoned, `Forfeit` gives it back.
        let forfeit = Forfeit { queue: self.clone(), user_id: user_id.clone(), armed: true };
        match turn.await {
            Ok(()) => {
                let mut forfeit = forfeit;
                forfeit.armed = false;
                Ok(Slot { queue: self.clone(), user_id: user_id.clone() })
            }
            // The queue never drops a sender it has not used; treat it as full.
            Err(_) => Err(Refused::QueueFull),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot came free: the next user in turn gets it, else it stays free.
    fn pass_on(&self, state: &mut State) {
        while let Some(user_id) = state.turns.pop_front() {
            let Some(queue) = state.queues.get_mut(&user_id) else {
                continue;
            };
            let Some(sender) = queue.pop_front() else {
                state.queues.remove(&user_id);
                continue;
            };
            state.waiting -= 1;
            if queue.is_empty() {
                state.queues.remove(&user_id);
            } else {
                state.turns.push_back(user_id.clone());
            }
            if sender.send(()).is_ok() {
                return;
            }
            // That wait was abandoned; `Forfeit` already gave its count back. Next one.
        }
        state.free += 1;
    }

    fn release_held(state: &mut State, user_id: &UserId) {
        if let Some(held) = state.held.get_mut(user_id) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                state.held.remove(user_id);
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let queue = self.queue.clone();
        let mut state = queue.lock();
        FairQueue::release_held(&mut state, &self.user_id);
        queue.pass_on(&mut state);
    }
}

/// Gives back the count of a wait that ended without a slot (the reply was stopped or its
/// task dropped while waiting); a sender left in the queue is skipped when its turn comes.
struct Forfeit {
    queue: FairQueue,
    user_id: UserId,
    armed: bool,
}

impl Drop for Forfeit {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let queue = self.queue.clone();
        let mut state = queue.lock();
        FairQueue::release_held(&mut state, &self.user_id);
        // Its sender is still queued (closed) unless its turn already came and failed.
        if let Some(senders) = state.queues.get_mut(&self.user_id) {
            let before = senders.len();
            senders.retain(|sender| !sender.is_closed());
            let removed = before - senders.len();
            state.waiting -= removed;
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

    #[tokio::test]
    async fn turns_alternate_between_waiting_users() {
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
        assert_eq!(order, ["uAaaaaaaa1", "uBbbbbbbb1", "uAaaaaaaa1", "uBbbbbbbb1", "uAaaaaaaa1"]);
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
}
