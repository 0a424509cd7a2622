//! What the `Registry` and the actors it supervises say to each other: it asks one to
//! stop (`Stop`, eviction), whether it is idle (`IdleCheck`) or to give back what it
//! holds (`Shed`, the node over its memory budget), and each says when it stopped
//! (`Passivated`). Here, apart from
//! both, so that a user's or a character's actor holds a `Recipient<Passivated>` and needs
//! nothing of the registry's own type.

use std::time::Duration;

use actix::Message;
use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::group::GroupId;

/// Sent by an actor as it stops.
#[derive(Message)]
#[rtype(result = "()")]
pub enum Passivated {
    User { user_id: UserId, incarnation: u64 },
    Character { character_id: CharacterId, incarnation: u64 },
    Group { owner: UserId, group_id: GroupId, incarnation: u64 },
}

/// Asks an actor to stop now (eviction).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Stop;

/// Asks a user's actor whether it has been idle long enough to stop: the registry's sweep,
/// one timer for all of them rather than one each (an idle actor's timer was ~143 bytes of
/// its memory, issue 35).
#[derive(Message)]
#[rtype(result = "()")]
pub struct IdleCheck;

/// The node is over its memory budget (`actors.memory_budget_mib`): give back what was
/// not used for `unused_for` (conversations held, a user's cached account), keeping
/// whatever is at work (a reply being written, an extraction, a socket's user). All of it
/// is in the store, so nothing is lost; its next use reads it again.
#[derive(Message, Debug, Clone, Copy)]
#[rtype(result = "()")]
pub struct Shed {
    pub unused_for: Duration,
}
