//! `GroupActor`: the owner of a group chat's rounds (issue 31, docs/architecture.md "Group
//! chats"). One per group on the node of the socket acting on it, a population of the
//! `Registry` as users' and characters' actors are. It runs one round at a time: a user's
//! message stored and answered by the members the group's turn order picks
//! (`amora_domain::group::turns`), a member the user picked, "let them talk" up to the
//! group's cap, or the newest reply written again or continued by its member. Choosing
//! among a reply's versions takes the round's slot too, so it never races a round. For each speaker it asks the character's actor for its part (the
//! character as the user may see it, its lorebook, the pair's memories), takes what a
//! one-to-one reply costs, and writes the reply through the chat engine with the group's
//! history, streamed as `groupDelta` naming the speaker.
//!
//! It holds no copy of the history: each reply reads the group's newest messages and the
//! group itself from the store (the truth), so a member muted or removed mid-round is
//! passed over, and a change made on another node is seen at the next reply without a
//! notice on the bus.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use amora_ai::chat::CancellationToken;
use amora_domain::account::UserId;
use amora_domain::character::{CharacterId, UsedType};
use amora_domain::chat::MessageId;
use amora_domain::chat::{MessageText, Speaker};
use amora_domain::group::{Ask, Draws, PickRefused, Rules, Seat, TalkPlan, pick, round};
use amora_domain::group::{Group, GroupId, GroupSpeaker};
use amora_store::{GroupReplyVersions, StoredGroupMessage, StoredMessage};
use futures_util::FutureExt;

use super::GroupMessageView;
use crate::character::{CharacterAddr, CharacterPart, GroupPart};
use crate::chat::engine::{ReplyContext, ReplyTo, join_continuation};
use crate::chat::{ChatEngine, ChatError, Chatter, Found, new_entry_id, reply_was_cut};
use crate::moderation::Surface;
use crate::pending::{Journal, Owed, free_message_id};
use crate::supervision::{Passivated, Stop};
use crate::user::{GiveBackFreeMessage, TakeFreeMessage, UserAddr, utc_day};
use crate::wire::events::{ReplyEnd, ServerEvent};

/// The newest messages of the group a reply's prompt is built from (the prompt's token
/// budget keeps what fits), as many as a one-to-one conversation's window.
const HISTORY_WINDOW: u32 = crate::character::HISTORY_WINDOW as u32;

/// How often an idle group actor checks whether to stop.
const IDLE_CHECK: Duration = Duration::from_secs(10);

/// What a group's actor is known by: the owner and the group (another user's id never
/// reaches the owner's actor).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GroupKey {
    pub owner: UserId,
    pub group_id: GroupId,
}

impl std::fmt::Display for GroupKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.owner, self.group_id)
    }
}

/// The actor of a group, spawned if this node has none (asked of the `Registry`).
#[derive(Message)]
#[rtype(result = "Addr<GroupActor>")]
pub struct GroupAddr(pub GroupKey);

/// What starts a round.
#[derive(Debug, Clone)]
pub enum TurnKind {
    /// The user's message (already moderated at the door), answered as the group's turn
    /// order says.
    Send(MessageText),
    /// "Let them talk", up to the group's cap.
    Talk,
    /// The member the user picked speaks.
    Pick(CharacterId),
    /// The member who wrote the newest reply writes it again; the old text is kept as a version.
    Regenerate,
    /// The member who wrote the newest reply writes the rest of it.
    Continue,
}

/// Starts a round; answers the user's stored message for `Send`. Refused (`Busy`) while
/// another round of the group runs here.
#[derive(Message)]
#[rtype(result = "Result<Option<GroupMessageView>, ChatError>")]
pub struct GroupTurn {
    pub chatter: Chatter,
    pub kind: TurnKind,
}

/// Makes version `index` of the group's newest reply the one the group holds; answers the
/// message as it now stands. Refused (`Busy`) while a round runs.
#[derive(Message)]
#[rtype(result = "Result<GroupMessageView, ChatError>")]
pub struct SwipeReply {
    pub user_id: UserId,
    pub message_id: MessageId,
    pub index: u32,
}

/// Stops the round: the reply being written keeps its text, nobody speaks after it.
#[derive(Message)]
#[rtype(result = "Result<(), ChatError>")]
pub struct StopRound;

/// Sent by a round's task when it is over.
#[derive(Message)]
#[rtype(result = "()")]
struct RoundEnded {
    round: u64,
}

pub struct GroupActor {
    key: GroupKey,
    engine: Arc<ChatEngine>,
    users: Recipient<UserAddr>,
    characters: Recipient<CharacterAddr>,
    passivated: Recipient<Passivated>,
    incarnation: u64,
    /// The round running (its number and how to stop it).
    round: Option<(u64, CancellationToken)>,
    next_round: u64,
    idle_after: Duration,
    last_active: Instant,
    /// The registry let go of this actor while a round ran: it stops once the round ends.
    evicted: bool,
}

/// What the registry hands a new group actor.
pub struct GroupActorParts {
    pub engine: Arc<ChatEngine>,
    pub users: Recipient<UserAddr>,
    pub characters: Recipient<CharacterAddr>,
    pub passivated: Recipient<Passivated>,
    pub incarnation: u64,
    pub idle_after: Duration,
}

impl GroupActor {
    pub fn new(key: GroupKey, parts: GroupActorParts) -> Self {
        let GroupActorParts { engine, users, characters, passivated, incarnation, idle_after } = parts;
        Self {
            key,
            engine,
            users,
            characters,
            passivated,
            incarnation,
            round: None,
            next_round: 0,
            idle_after,
            last_active: Instant::now(),
            evicted: false,
        }
    }

    fn end_round(&mut self, round: u64, ctx: &mut Context<Self>) {
        if self.round.as_ref().is_some_and(|(running, _)| *running == round) {
            self.round = None;
        }
        self.last_active = Instant::now();
        if self.evicted {
            ctx.stop();
        }
    }
}

impl Actor for GroupActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let every = IDLE_CHECK.min(self.idle_after / 2).max(Duration::from_millis(10));
        ctx.run_interval(every, |actor, ctx| {
            if actor.round.is_none() && actor.last_active.elapsed() >= actor.idle_after {
                ctx.stop();
            }
        });
    }

    fn stopping(&mut self, _: &mut Self::Context) -> Running {
        self.passivated.do_send(Passivated::Group {
            owner: self.key.owner.clone(),
            group_id: self.key.group_id.clone(),
            incarnation: self.incarnation,
        });
        Running::Stop
    }
}

impl Handler<Stop> for GroupActor {
    type Result = ();

    fn handle(&mut self, _: Stop, ctx: &mut Self::Context) {
        // A round stores its replies on its own task and tells us when it ends.
        if self.round.is_some() {
            self.evicted = true;
        } else {
            ctx.stop();
        }
    }
}

impl Handler<GroupTurn> for GroupActor {
    type Result = ResponseActFuture<Self, Result<Option<GroupMessageView>, ChatError>>;

    fn handle(&mut self, GroupTurn { chatter, kind }: GroupTurn, _: &mut Self::Context) -> Self::Result {
        self.last_active = Instant::now();
        if chatter.user_id != self.key.owner {
            return Box::pin(actix::fut::ready(Err(ChatError::NoGroup)));
        }
        // The slot is claimed here, before anything is awaited: one round at a time.
        if self.round.is_some() {
            return Box::pin(actix::fut::ready(Err(ChatError::Busy)));
        }
        self.next_round += 1;
        let round = self.next_round;
        let cancel = CancellationToken::new();
        self.round = Some((round, cancel.clone()));
        let worker = Round {
            engine: self.engine.clone(),
            users: self.users.clone(),
            characters: self.characters.clone(),
            group_id: self.key.group_id.clone(),
            chatter,
            cancel,
            names: HashMap::new(),
        };
        Box::pin(async move { worker.open(kind).await }.into_actor(self).map(move |opened, actor, ctx| match opened {
            Ok((view, plan, worker)) => {
                let me = ctx.address();
                actix::spawn(async move {
                    worker.run(plan).await;
                    me.do_send(RoundEnded { round });
                });
                Ok(view)
            }
            Err(error) => {
                actor.end_round(round, ctx);
                Err(error)
            }
        }))
    }
}

impl Handler<StopRound> for GroupActor {
    type Result = Result<(), ChatError>;

    fn handle(&mut self, _: StopRound, _: &mut Self::Context) -> Self::Result {
        self.last_active = Instant::now();
        match &self.round {
            Some((_, cancel)) => {
                cancel.cancel();
                Ok(())
            }
            None => Err(ChatError::Invalid("no reply is being written in this group".into())),
        }
    }
}

impl Handler<SwipeReply> for GroupActor {
    type Result = ResponseActFuture<Self, Result<GroupMessageView, ChatError>>;

    fn handle(&mut self, swipe: SwipeReply, _: &mut Self::Context) -> Self::Result {
        self.last_active = Instant::now();
        if swipe.user_id != self.key.owner {
            return Box::pin(actix::fut::ready(Err(ChatError::NoGroup)));
        }
        if self.round.is_some() {
            return Box::pin(actix::fut::ready(Err(ChatError::Busy)));
        }
        // The swipe holds the round's slot until it is stored: no round starts meanwhile.
        self.next_round += 1;
        let round = self.next_round;
        self.round = Some((round, CancellationToken::new()));
        let (engine, owner, group_id) = (self.engine.clone(), self.key.owner.clone(), self.key.group_id.clone());
        Box::pin(async move { choose_version(&engine, &owner, &group_id, swipe).await }.into_actor(self).map(
            move |chosen, actor, ctx| {
                actor.end_round(round, ctx);
                chosen
            },
        ))
    }
}

/// `groupSwipe`'s work: version `index` of the newest reply becomes its text, told to the
/// user's sockets (`groupMessage`).
async fn choose_version(
    engine: &ChatEngine,
    owner: &UserId,
    group_id: &GroupId,
    SwipeReply { message_id, index, .. }: SwipeReply,
) -> Result<GroupMessageView, ChatError> {
    let store = engine.store();
    let newest = store.groups.group_messages(owner, group_id, None, 1).await?.into_iter().next();
    let mut reply = match newest {
        Some(reply) if reply.message_id == message_id && reply.speaker.character().is_some() => reply,
        _ => return Err(ChatError::Invalid("only the group's newest reply has versions to switch between".into())),
    };
    let text = match reply.versions.texts.get(index as usize) {
        Some(text) if reply.versions.texts.len() > 1 => text.clone(),
        _ => {
            let count = reply.versions.texts.len().max(1);
            return Err(ChatError::Invalid(format!("index: the reply has {count} version(s), {index} is none")));
        }
    };
    reply.content = text;
    reply.versions.chosen = index;
    if !store.groups.update_group_message(owner, group_id, &reply).await? {
        return Err(ChatError::NoMessage);
    }
    let view = GroupMessageView::from(&reply);
    let event = ServerEvent::GroupMessage { group_id: group_id.clone(), message: view.clone() };
    engine.bus().publish(owner, event).await;
    Ok(view)
}

impl Handler<RoundEnded> for GroupActor {
    type Result = ();

    fn handle(&mut self, RoundEnded { round }: RoundEnded, ctx: &mut Self::Context) {
        self.end_round(round, ctx);
    }
}

/// Who speaks in a round.
enum Plan {
    /// These members, in this order, each once (a user's message, or a pick: `asked`).
    Speakers(Vec<CharacterId>, bool),
    /// "Let them talk": each reply answering the one before.
    Talk(TalkPlan, Draws),
    /// The newest reply again (`Writing::Again`) or its rest (`Writing::Continuation`),
    /// by the member who wrote it.
    Rewrite(Writing),
}

/// What a member's turn writes.
#[derive(Debug, Clone)]
enum Writing {
    /// A new reply after the group's newest message.
    Reply,
    /// Another version of this reply (the group's newest), which stays stored until the
    /// new one is: a new message holding every version takes its place.
    Again(StoredGroupMessage),
    /// The rest of this reply (the group's newest), stored as the same message, longer.
    Continuation(StoredGroupMessage),
}

impl Writing {
    /// The reply being written again or continued.
    fn rewritten(&self) -> Option<&StoredGroupMessage> {
        match self {
            Writing::Reply => None,
            Writing::Again(reply) | Writing::Continuation(reply) => Some(reply),
        }
    }
}

/// How one member's turn went.
enum Spoke {
    /// Its reply is stored.
    Stored,
    /// It stays silent (the user may no longer open it): the round goes on.
    Silent,
    /// The round ends here (stopped, failed, or the user cannot pay for it).
    End,
}

/// A round's work, off the actor: it owns nothing the actor holds.
struct Round {
    engine: Arc<ChatEngine>,
    users: Recipient<UserAddr>,
    characters: Recipient<CharacterAddr>,
    group_id: GroupId,
    chatter: Chatter,
    cancel: CancellationToken,
    /// The characters' names as read this round (members and former members who spoke).
    names: HashMap<CharacterId, String>,
}

impl Round {
    fn owner(&self) -> &UserId {
        &self.chatter.user_id
    }

    /// The round's speakers, after storing the user's message for a send.
    async fn open(mut self, kind: TurnKind) -> Result<(Option<GroupMessageView>, Plan, Self), ChatError> {
        let group = self.group().await?;
        self.read_names(&group).await?;
        let rules = rules(&group);
        let mut draws = Draws::new(rand::random());
        match kind {
            TurnKind::Send(text) => {
                // The door ran both layers of moderation; the rules hold here too, for any way in.
                let moderator = self.engine.moderator();
                moderator
                    .check_rules(Surface::ChatMessage, Some(self.owner()), text.as_str())
                    .map_err(ChatError::Refused)?;
                let message = StoredGroupMessage::new(new_entry_id(), GroupSpeaker::User, text.into_string());
                let store = self.engine.store();
                store.groups.append_group_message(self.owner(), &self.group_id, message.clone()).await?;
                let view = GroupMessageView::from(&message);
                let event = ServerEvent::GroupMessage { group_id: self.group_id.clone(), message: view.clone() };
                self.engine.bus().publish(self.owner(), event).await;
                let speakers = {
                    let seats = self.seats(&group);
                    round(rules, &seats, Ask::UserMessage(&message.content), &mut draws)
                };
                Ok((Some(view), Plan::Speakers(speakers, false), self))
            }
            TurnKind::Pick(chosen) => {
                let picked = pick(&self.seats(&group), &chosen).map_err(|refused| match refused {
                    PickRefused::NotAMember(_) => ChatError::NoCharacter,
                    PickRefused::Muted(_) => ChatError::Invalid(format!("{refused}: unmute it to let it speak")),
                })?;
                Ok((None, Plan::Speakers(vec![picked], true), self))
            }
            TurnKind::Talk => {
                let plan = TalkPlan::new(group.settings.talk_cap.replies());
                Ok((None, Plan::Talk(plan, draws), self))
            }
            TurnKind::Regenerate | TurnKind::Continue => {
                let store = self.engine.store();
                let newest = store.groups.group_messages(self.owner(), &self.group_id, None, 1).await?;
                let Some(reply) = newest.into_iter().next().filter(|m| m.speaker.character().is_some()) else {
                    let none = "the group does not end with a member's reply to write again or continue";
                    return Err(ChatError::Invalid(none.into()));
                };
                let speaker = reply.speaker.character().cloned().unwrap_or_else(|| unreachable!("filtered above"));
                // Its member must still be able to speak: seated and not muted.
                pick(&self.seats(&group), &speaker).map_err(|refused| match refused {
                    PickRefused::NotAMember(_) => ChatError::Invalid(format!("{refused}: the reply's member left")),
                    PickRefused::Muted(_) => ChatError::Invalid(format!("{refused}: unmute it to let it speak")),
                })?;
                let writing = if matches!(kind, TurnKind::Regenerate) {
                    // The old reply leaves the screen now; it is put back if no new one comes.
                    let event = ServerEvent::GroupMessageDeleted {
                        group_id: self.group_id.clone(),
                        message_ids: vec![reply.message_id],
                    };
                    self.engine.bus().publish(self.owner(), event).await;
                    Writing::Again(reply)
                } else {
                    Writing::Continuation(reply)
                };
                Ok((None, Plan::Rewrite(writing), self))
            }
        }
    }

    /// Runs the round to its end, then says so (`groupIdle`).
    async fn run(mut self, plan: Plan) {
        let mut replies = 0u32;
        match plan {
            Plan::Speakers(speakers, asked) => {
                for speaker in speakers {
                    if self.cancel.is_cancelled() {
                        break;
                    }
                    // The group as it is now: a member muted or removed meanwhile is passed over.
                    let group = match self.group().await {
                        Ok(group) => group,
                        Err(error) => {
                            self.fail(None, None, &error).await;
                            break;
                        }
                    };
                    if group.member(&speaker).is_none_or(|member| member.muted) {
                        continue;
                    }
                    match self.speak(&group, &speaker, Writing::Reply, asked).await {
                        Spoke::Stored => replies += 1,
                        Spoke::Silent => {}
                        Spoke::End => break,
                    }
                }
            }
            Plan::Talk(mut plan, mut draws) => loop {
                if self.cancel.is_cancelled() {
                    break;
                }
                let group = match self.group().await {
                    Ok(group) => group,
                    Err(error) => {
                        self.fail(None, None, &error).await;
                        break;
                    }
                };
                let next = async {
                    self.read_names(&group).await?;
                    let store = self.engine.store();
                    let last = store.groups.group_messages(self.owner(), &self.group_id, None, 1).await?;
                    let (speaker, text) =
                        last.into_iter().next().map_or((GroupSpeaker::User, String::new()), |m| (m.speaker, m.content));
                    let seats = self.seats(&group);
                    Ok::<_, ChatError>(plan.next(rules(&group), &seats, (&speaker, &text), &mut draws))
                };
                let speaker = match next.await {
                    Ok(Some(speaker)) => speaker,
                    Ok(None) => break,
                    Err(error) => {
                        self.fail(None, None, &error).await;
                        break;
                    }
                };
                match self.speak(&group, &speaker, Writing::Reply, false).await {
                    Spoke::Stored => replies += 1,
                    Spoke::Silent => {}
                    Spoke::End => break,
                }
            },
            Plan::Rewrite(writing) => {
                let speaker = writing.rewritten().and_then(|reply| reply.speaker.character().cloned());
                let spoke = match (self.group().await, speaker) {
                    (Ok(group), Some(speaker)) => self.speak(&group, &speaker, writing.clone(), true).await,
                    (Err(error), _) => {
                        self.fail(None, None, &error).await;
                        Spoke::End
                    }
                    (Ok(_), None) => Spoke::End,
                };
                match spoke {
                    Spoke::Stored => replies += 1,
                    // No new text: the reply stands as it was, for every socket of the user.
                    Spoke::Silent | Spoke::End => self.put_back(&writing).await,
                }
            }
        }
        let event = ServerEvent::GroupIdle { group_id: self.group_id.clone(), replies };
        self.engine.bus().publish(self.owner(), event).await;
    }

    /// One member's reply (or its new version, or its rest, as `writing` says): its part
    /// asked of its actor, paid for, written, stored.
    ///
    /// `asked`: the user asked this member by name (a pick, a new version, a continuation);
    /// one nobody asked whose model wrote nothing usable stays silent, its free message
    /// given back, and the round goes on (as SillyTavern's group chats pass over an empty
    /// reply), where an asked one ends the round with the error.
    async fn speak(&mut self, group: &Group, speaker: &CharacterId, writing: Writing, asked: bool) -> Spoke {
        let part = match self.part(speaker).await {
            Ok(part) => part,
            // Made private, hidden or gone since it joined: silent for this user.
            Err(ChatError::NoCharacter) => return Spoke::Silent,
            Err(error) => {
                self.fail(Some(speaker), None, &error).await;
                return Spoke::End;
            }
        };
        let CharacterPart { mut character, lorebook, memories } = part;
        // A stop that came while the part was read: nothing was taken yet, nothing is owed.
        if self.cancel.is_cancelled() {
            return Spoke::End;
        }
        let debit = match self.take_credit(character.card.used_type).await {
            Ok(debit) => debit,
            Err(error) => {
                self.fail(Some(speaker), None, &error).await;
                return Spoke::End;
            }
        };
        // The group's scenario, when it has one, replaces the character's own.
        if !group.settings.scenario.is_empty() {
            character.scenario = group.settings.scenario.clone();
        }
        // A new version reads the history the old one was written from; a continuation
        // reads it with the reply at its end (the engine makes that its prefill).
        let before = match &writing {
            Writing::Again(reply) => Some(reply.message_id),
            Writing::Reply | Writing::Continuation(_) => None,
        };
        let window = match self.window(speaker, before).await {
            Ok(window) => window,
            Err(error) => {
                self.give_back(debit).await;
                self.fail(Some(speaker), None, &error).await;
                return Spoke::End;
            }
        };
        let engine = self.engine.clone();
        let lore = engine.choose_lore(lorebook, &window).await;
        let lore = lore.entries();
        let reply_id = match &writing {
            Writing::Continuation(reply) => reply.message_id,
            Writing::Reply | Writing::Again(_) => new_entry_id(),
        };
        // Recall reads a one-to-one conversation's index: a group reply has none yet.
        let nothing = Found::default();
        let context = ReplyContext {
            chatter: &self.chatter,
            character: &character,
            window: &window,
            window_is_whole: window.len() < HISTORY_WINDOW as usize,
            memories: &memories,
            lore: &lore,
            partial: None,
            continues: matches!(writing, Writing::Continuation(_)),
            recall: &nothing,
            reply_to: ReplyTo::Group(self.group_id.clone()),
        };
        // A panic while writing (a bug) ends the reply with an error the user sees.
        let written = AssertUnwindSafe(engine.write_reply(&context, reply_id, self.cancel.clone()))
            .catch_unwind()
            .await
            .unwrap_or_else(|_| {
                tracing::error!(reply = %reply_id, "writing a group reply panicked");
                Err(ChatError::Model("writing the reply failed".into()))
            });
        match written {
            Ok(Some((content, finish))) => {
                let said = GroupSpeaker::Character(speaker.clone());
                let stored = self.store_written(&writing, StoredGroupMessage::new(reply_id, said, content)).await;
                let message = match stored {
                    Ok(message) => message,
                    Err(error) => {
                        self.give_back(debit).await;
                        self.fail(Some(speaker), Some(reply_id), &error).await;
                        return Spoke::End;
                    }
                };
                self.spend(debit).await;
                let event = ServerEvent::GroupDone {
                    group_id: self.group_id.clone(),
                    character_id: speaker.clone(),
                    reply_id,
                    cut: reply_was_cut(&message.content, finish),
                    message: Some(GroupMessageView::from(&message)),
                    finish_reason: ReplyEnd::from(finish),
                };
                engine.bus().publish(self.owner(), event).await;
                Spoke::Stored
            }
            Ok(None) => {
                // Stopped before any text: the reply never came, what it took goes back
                // (a stop between two members may land before the next one wrote a word).
                self.give_back(debit).await;
                let event = ServerEvent::GroupDone {
                    group_id: self.group_id.clone(),
                    character_id: speaker.clone(),
                    reply_id,
                    message: None,
                    finish_reason: ReplyEnd::Cancelled,
                    cut: false,
                };
                engine.bus().publish(self.owner(), event).await;
                Spoke::End
            }
            Err(ChatError::NothingWritten(tries)) if !asked => {
                self.give_back(debit).await;
                tracing::info!(tries, user = %self.owner(), group = %self.group_id, character = %speaker, "a group member had nothing to say");
                Spoke::Silent
            }
            Err(error) => {
                self.give_back(debit).await;
                self.fail(Some(speaker), Some(reply_id), &error).await;
                Spoke::End
            }
        }
    }

    /// Stores `written` as `writing` says: a new message; a new version, as a new message
    /// holding every version, in place of the old reply (stored before the old one goes, so
    /// a crash between the two loses neither); or the continued reply, longer. Answers the
    /// message as stored.
    async fn store_written(
        &self,
        writing: &Writing,
        mut written: StoredGroupMessage,
    ) -> Result<StoredGroupMessage, ChatError> {
        let groups = &self.engine.store().groups;
        match writing {
            Writing::Reply => {
                groups.append_group_message(self.owner(), &self.group_id, written.clone()).await?;
            }
            Writing::Again(old) => {
                let mut texts = old.versions.texts.clone();
                if texts.is_empty() {
                    texts.push(old.content.clone());
                }
                texts.push(written.content.clone());
                let chosen = u32::try_from(texts.len() - 1).unwrap_or(u32::MAX);
                written.versions = GroupReplyVersions { texts, chosen };
                groups.append_group_message(self.owner(), &self.group_id, written.clone()).await?;
                groups.delete_group_messages(self.owner(), &self.group_id, &[old.message_id]).await?;
            }
            Writing::Continuation(old) => {
                let joined = join_continuation(&old.content, &written.content);
                let mut versions = old.versions.clone();
                if let Some(text) = versions.texts.get_mut(versions.chosen as usize) {
                    text.clone_from(&joined);
                }
                written = StoredGroupMessage { content: joined, versions, ..old.clone() };
                if !groups.update_group_message(self.owner(), &self.group_id, &written).await? {
                    return Err(ChatError::NoMessage);
                }
            }
        }
        Ok(written)
    }

    /// After a new version or a continuation that brought no text: the reply stands as it
    /// was (still stored), and the user's sockets are told so (`groupMessage`).
    async fn put_back(&self, writing: &Writing) {
        let Some(reply) = writing.rewritten() else { return };
        let groups = &self.engine.store().groups;
        // As stored now (a continuation may have been stored before a later step failed).
        let stands = match groups.group_message(self.owner(), &self.group_id, reply.message_id).await {
            Ok(Some(stored)) => stored,
            Ok(None) => return,
            Err(error) => {
                tracing::error!(%error, user = %self.owner(), "the reply a rewrite replaced could not be read back");
                reply.clone()
            }
        };
        let event =
            ServerEvent::GroupMessage { group_id: self.group_id.clone(), message: GroupMessageView::from(&stands) };
        self.engine.bus().publish(self.owner(), event).await;
    }

    async fn group(&self) -> Result<Group, ChatError> {
        self.engine.store().groups.group(self.owner(), &self.group_id).await?.ok_or(ChatError::NoGroup)
    }

    /// Reads the names of the group's members not read yet this round.
    async fn read_names(&mut self, group: &Group) -> Result<(), ChatError> {
        for member in &group.members {
            self.read_name(&member.character_id).await?;
        }
        Ok(())
    }

    async fn read_name(&mut self, character_id: &CharacterId) -> Result<(), ChatError> {
        if !self.names.contains_key(character_id) {
            let character = self.engine.load_character(character_id).await?;
            let name = character.map(|c| c.card.character_name).unwrap_or_default();
            self.names.insert(character_id.clone(), name);
        }
        Ok(())
    }

    fn seats<'a>(&'a self, group: &'a Group) -> Vec<Seat<'a>> {
        group
            .members
            .iter()
            .map(|member| Seat::of(member, self.names.get(&member.character_id).map_or("", String::as_str)))
            .collect()
    }

    /// The character's part, asked of its actor.
    async fn part(&self, character_id: &CharacterId) -> Result<CharacterPart, ChatError> {
        let actor = self.characters.send(CharacterAddr(character_id.clone())).await?;
        actor.send(GroupPart { chatter: self.chatter.clone() }).await?
    }

    /// The group's newest messages as `speaker` reads them, oldest first: its own lines
    /// are its replies, everyone else's come as the user's turn, each labelled with its
    /// speaker's name ("Mia: …", the user by their name).
    /// `before`: only the messages older than that one.
    async fn window(
        &mut self,
        speaker: &CharacterId,
        before: Option<MessageId>,
    ) -> Result<Vec<StoredMessage>, ChatError> {
        let store = self.engine.store().clone();
        let mut newest = store.groups.group_messages(self.owner(), &self.group_id, before, HISTORY_WINDOW).await?;
        newest.reverse();
        let mut window = Vec::with_capacity(newest.len());
        for message in newest {
            let (said_by, content) = match &message.speaker {
                GroupSpeaker::Character(id) if id == speaker => (Speaker::Character, message.content),
                GroupSpeaker::Character(id) => {
                    self.read_name(id).await?;
                    let name = self.names.get(id).map_or("", String::as_str);
                    (Speaker::User, format!("{name}: {}", message.content))
                }
                GroupSpeaker::User => (Speaker::User, format!("{}: {}", self.chatter.user_name, message.content)),
            };
            window.push(StoredMessage { message_id: message.message_id, speaker: said_by, content, image: None });
        }
        Ok(window)
    }

    /// What a one-to-one reply with the character costs, taken now: one of the day's free
    /// messages for a free user (journaled, `pending.rs`), nothing for a paid one; a premium
    /// character speaks only for a paid user. Answers the journal row to close.
    async fn take_credit(&self, used_type: UsedType) -> Result<Option<String>, ChatError> {
        if self.chatter.paid {
            return Ok(None);
        }
        if used_type == UsedType::Premium {
            return Err(ChatError::PremiumCharacter);
        }
        let user_id = self.owner().clone();
        let user = self.users.send(UserAddr(user_id.clone())).await?;
        let limit = self.engine.settings().free_messages_per_day;
        if !user.send(TakeFreeMessage { limit }).await?? {
            return Err(ChatError::OutOfCredits);
        }
        let journal = Journal::new(self.engine.store().clone(), self.engine.bus());
        let debit_id = free_message_id(&user_id, new_entry_id());
        if let Err(error) = journal.open(&debit_id, &user_id, &Owed::Reply { day: utc_day() }).await {
            user.send(GiveBackFreeMessage).await??;
            return Err(ChatError::from(error));
        }
        Ok(Some(debit_id))
    }

    /// The reply is stored (or stopped): the free message is spent, its row goes.
    async fn spend(&self, debit: Option<String>) {
        if let Some(debit_id) = debit {
            Journal::new(self.engine.store().clone(), self.engine.bus()).close(&debit_id).await;
        }
    }

    /// The reply never came: the free message goes back, unless a recovery gave it back
    /// already (its row is gone then).
    async fn give_back(&self, debit: Option<String>) {
        let Some(debit_id) = debit else { return };
        let journal = Journal::new(self.engine.store().clone(), self.engine.bus());
        if !journal.close(&debit_id).await {
            return;
        }
        let given = async {
            let user = self.users.send(UserAddr(self.owner().clone())).await?;
            user.send(GiveBackFreeMessage).await??;
            Ok::<_, ChatError>(())
        };
        if let Err(error) = given.await {
            tracing::error!(%error, user = %self.owner(), "a free message could not be given back");
        }
    }

    /// Tells the user the round ended on `error` (`groupError`).
    async fn fail(
        &self,
        character_id: Option<&CharacterId>,
        reply_id: Option<amora_domain::chat::EntryId>,
        error: &ChatError,
    ) {
        if error.is_fault() {
            tracing::error!(%error, user = %self.owner(), group = %self.group_id, "a group reply failed");
        }
        let event = ServerEvent::GroupError {
            group_id: self.group_id.clone(),
            character_id: character_id.cloned(),
            reply_id,
            code: error.code().value(),
            msg: error.public_message(),
        };
        self.engine.bus().publish(self.owner(), event).await;
    }
}

fn rules(group: &Group) -> Rules {
    Rules { activation: group.settings.activation, allow_self_responses: group.settings.allow_self_responses }
}
