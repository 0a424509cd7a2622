//! A character's part in a group chat's reply (issue 31): the group's actor asks the
//! character's actor for what it holds of the character and of the user (the character
//! as the user may see it now, its card's lorebook, the pair's memories), read as a
//! one-to-one turn reads them, and writes the reply itself (docs/architecture.md "Group
//! chats").

use std::sync::Arc;

use actix::prelude::*;
use amora_cards::CompiledLorebook;
use amora_domain::character::Character;
use amora_store::Memory;

use super::{CharacterActor, Needs, after_load, ready};
use crate::chat::{ChatError, Chatter};

/// Asks for the character's part of a group reply. A character the user may no longer
/// open (made private, hidden, gone) answers `NoCharacter`: it stays silent in the group.
#[derive(Message)]
#[rtype(result = "Result<CharacterPart, ChatError>")]
pub struct GroupPart {
    pub chatter: Chatter,
}

/// What a group reply is written from, of the character's.
pub struct CharacterPart {
    pub character: Character,
    pub lorebook: Option<Arc<CompiledLorebook>>,
    /// Every memory of the pair, newest first.
    pub memories: Vec<Memory>,
}

impl Handler<GroupPart> for CharacterActor {
    type Result = AtomicResponse<Self, Result<CharacterPart, ChatError>>;

    fn handle(&mut self, GroupPart { chatter }: GroupPart, _: &mut Self::Context) -> Self::Result {
        let user_id = chatter.user_id.clone();
        // No window and no greeting: a group does not open the one-to-one conversation.
        let needs = Needs { character: true, window: false, memories: true, greeting: false };
        after_load(self, None, &user_id, needs, move |actor, _| {
            let part = actor.visible_character(&chatter).map(|character| CharacterPart {
                character,
                lorebook: actor.lorebook(),
                memories: actor.pair(&chatter.user_id).memories.clone().unwrap_or_default(),
            });
            ready(part)
        })
    }
}
