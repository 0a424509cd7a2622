//! The user's personas (issue 18) in `user_personas`, keyed by user and character (`''`
//! for every character); the account's deletion cascades to them.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::persona::UserPersona;
use async_trait::async_trait;
use rusqlite::params;

use super::EmbeddedStore;
use crate::{PersonaRepo, StoreResult, StoredPersona, persona_character, persona_key};

#[async_trait]
impl PersonaRepo for EmbeddedStore {
    async fn personas(&self, user_id: &UserId) -> StoreResult<Vec<StoredPersona>> {
        let user = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT character_id, name, description FROM user_personas WHERE user_id = ?1 ORDER BY character_id",
            )?;
            let rows = statement.query_map(params![user], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?))
            })?;
            rows.map(|row| {
                let (key, name, description) = row?;
                Ok(StoredPersona { character_id: persona_character(&key)?, persona: UserPersona { name, description } })
            })
            .collect()
        })
        .await
    }

    async fn put_persona(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        persona: UserPersona,
    ) -> StoreResult<()> {
        let (user, key) = (user_id.as_str().to_owned(), persona_key(character));
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO user_personas (user_id, character_id, name, description) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (user_id, character_id) DO UPDATE SET name = excluded.name, description = excluded.description",
            )?
            .execute(params![user, key, persona.name, persona.description])?;
            Ok(())
        })
        .await
    }

    async fn delete_persona(&self, user_id: &UserId, character: Option<&CharacterId>) -> StoreResult<bool> {
        let (user, key) = (user_id.as_str().to_owned(), persona_key(character));
        self.with_conn(move |conn| {
            let deleted = conn
                .prepare_cached("DELETE FROM user_personas WHERE user_id = ?1 AND character_id = ?2")?
                .execute(params![user, key])?;
            Ok(deleted > 0)
        })
        .await
    }
}
