//! The user's personas (issue 18) over CQL: `user_personas`, one partition per user,
//! clustered by character id (`''` for every character, so it sorts first).

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::persona::UserPersona;
use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::{PersonaRepo, StoreResult, StoredPersona, persona_character, persona_key};

pub(super) struct Statements {
    of_user: PreparedStatement,
    one: PreparedStatement,
    put: PreparedStatement,
    delete_one: PreparedStatement,
    pub(super) delete_all: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        Ok(Self {
            of_user: p
                .prepare(
                    "SELECT character_id, name, description FROM user_personas WHERE user_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            one: p
                .prepare(
                    "SELECT character_id FROM user_personas WHERE user_id = ? AND character_id = ?",
                    Kind::Idempotent,
                )
                .await?,
            put: p
                .prepare(
                    "INSERT INTO user_personas (user_id, character_id, name, description) VALUES (?, ?, ?, ?)",
                    Kind::Idempotent,
                )
                .await?,
            delete_one: p
                .prepare("DELETE FROM user_personas WHERE user_id = ? AND character_id = ?", Kind::Idempotent)
                .await?,
            delete_all: p.prepare("DELETE FROM user_personas WHERE user_id = ?", Kind::Idempotent).await?,
        })
    }
}

#[async_trait]
impl PersonaRepo for CqlStore {
    async fn personas(&self, user_id: &UserId) -> StoreResult<Vec<StoredPersona>> {
        let rows: Vec<(String, String, String)> =
            self.rows(&self.statements.personas.of_user, (user_id.as_str(),)).await?;
        rows.into_iter()
            .map(|(key, name, description)| {
                Ok(StoredPersona { character_id: persona_character(&key)?, persona: UserPersona { name, description } })
            })
            .collect()
    }

    async fn put_persona(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        persona: UserPersona,
    ) -> StoreResult<()> {
        let key = persona_key(character);
        self.run(&self.statements.personas.put, (user_id.as_str(), key, persona.name, persona.description)).await?;
        Ok(())
    }

    async fn delete_persona(&self, user_id: &UserId, character: Option<&CharacterId>) -> StoreResult<bool> {
        let s = &self.statements.personas;
        let key = persona_key(character);
        // Whether it existed is read first: a plain delete answers nothing, and a
        // conditional one would cost a Paxos round for a settings page.
        let existed: Option<(String,)> = self.first(&s.one, (user_id.as_str(), key.as_str())).await?;
        if existed.is_none() {
            return Ok(false);
        }
        self.run(&s.delete_one, (user_id.as_str(), key.as_str())).await?;
        Ok(true)
    }
}
