//! Voice clips in SQLite: `voice_clips` holds each message's attempt and state, and
//! `voice_parts` its parts, whose audio is in `media`. Deleting a message, a conversation
//! or an account deletes the clips and their audio in the same transaction
//! (`delete_voice`).

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};

use super::EmbeddedStore;
use crate::{StoreResult, VoiceClip, VoiceClipKey, VoiceClipPart, VoiceClipRepo, VoiceClipState};

/// Which clips `delete_voice` removes: a user's, a conversation's or one message's.
pub(super) struct VoiceScope<'a> {
    pub user: &'a str,
    pub character: Option<&'a str>,
    pub message: Option<i64>,
}

/// Deletes the clips in `scope` with their parts and audio; how many clips there were.
pub(super) fn delete_voice(conn: &Connection, scope: VoiceScope<'_>) -> rusqlite::Result<usize> {
    // NULL matches every conversation / message of the scope.
    let filter = "user_id = ?1 AND (?2 IS NULL OR character_id = ?2) AND (?3 IS NULL OR message_id = ?3)";
    let values = params![scope.user, scope.character, scope.message];
    conn.prepare_cached(&format!(
        "DELETE FROM media WHERE media_id IN (SELECT media_id FROM voice_parts WHERE {filter})"
    ))?
    .execute(values)?;
    conn.prepare_cached(&format!("DELETE FROM voice_parts WHERE {filter}"))?.execute(values)?;
    conn.prepare_cached(&format!("DELETE FROM voice_clips WHERE {filter}"))?.execute(values)
}

fn key_values(key: &VoiceClipKey) -> (String, String, i64) {
    (key.user_id.as_str().to_owned(), key.character_id.as_str().to_owned(), key.message_id.raw())
}

#[async_trait]
impl VoiceClipRepo for EmbeddedStore {
    async fn clip(&self, key: &VoiceClipKey) -> StoreResult<Option<VoiceClip>> {
        let (user, character, message) = key_values(key);
        self.with_conn(move |conn| {
            let head: Option<(i64, String, i64)> = conn
                .prepare_cached(
                    "SELECT attempt, state, started_at FROM voice_clips
                     WHERE user_id = ?1 AND character_id = ?2 AND message_id = ?3",
                )?
                .query_row(params![user, character, message], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
                .optional()?;
            let Some((attempt, state, started_at)) = head else { return Ok(None) };
            let mut statement = conn.prepare_cached(
                "SELECT idx, media_id, duration_ms FROM voice_parts
                 WHERE user_id = ?1 AND character_id = ?2 AND message_id = ?3 AND attempt = ?4 ORDER BY idx",
            )?;
            let parts = statement
                .query_map(params![user, character, message, attempt], |row| {
                    Ok(VoiceClipPart {
                        index: row.get::<_, i64>(0)? as u32,
                        media_id: row.get(1)?,
                        duration_ms: row.get::<_, i64>(2)? as u64,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Some(VoiceClip {
                attempt: attempt as u32,
                state: VoiceClipState::from_code(&state)?,
                started_at,
                parts,
            }))
        })
        .await
    }

    async fn start_clip(
        &self,
        key: &VoiceClipKey,
        attempt: u32,
        replacing: Option<(u32, VoiceClipState)>,
        at: i64,
    ) -> StoreResult<bool> {
        let (user, character, message) = key_values(key);
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let started = match replacing {
                None => tx
                    .prepare_cached(
                        "INSERT OR IGNORE INTO voice_clips (user_id, character_id, message_id, attempt, state, started_at)
                         VALUES (?1, ?2, ?3, ?4, 'speaking', ?5)",
                    )?
                    .execute(params![user, character, message, i64::from(attempt), at])?,
                Some((old_attempt, old_state)) => tx
                    .prepare_cached(
                        "UPDATE voice_clips SET attempt = ?4, state = 'speaking', started_at = ?5
                         WHERE user_id = ?1 AND character_id = ?2 AND message_id = ?3 AND attempt = ?6 AND state = ?7",
                    )?
                    .execute(params![
                        user,
                        character,
                        message,
                        i64::from(attempt),
                        at,
                        i64::from(old_attempt),
                        old_state.code()
                    ])?,
            } > 0;
            if started {
                // What earlier attempts left is not part of this one.
                let stale = "user_id = ?1 AND character_id = ?2 AND message_id = ?3 AND attempt <> ?4";
                let values = params![user, character, message, i64::from(attempt)];
                tx.prepare_cached(&format!(
                    "DELETE FROM media WHERE media_id IN (SELECT media_id FROM voice_parts WHERE {stale})"
                ))?
                .execute(values)?;
                tx.prepare_cached(&format!("DELETE FROM voice_parts WHERE {stale}"))?.execute(values)?;
            }
            tx.commit()?;
            Ok(started)
        })
        .await
    }

    async fn add_clip_part(&self, key: &VoiceClipKey, attempt: u32, part: VoiceClipPart) -> StoreResult<()> {
        let (user, character, message) = key_values(key);
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO voice_parts
                 (user_id, character_id, message_id, attempt, idx, media_id, duration_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                user,
                character,
                message,
                i64::from(attempt),
                i64::from(part.index),
                part.media_id,
                part.duration_ms as i64
            ])?;
            Ok(())
        })
        .await
    }

    async fn finish_clip(&self, key: &VoiceClipKey, attempt: u32, state: VoiceClipState) -> StoreResult<bool> {
        let (user, character, message) = key_values(key);
        self.with_conn(move |conn| {
            let changed = conn
                .prepare_cached(
                    "UPDATE voice_clips SET state = ?5
                     WHERE user_id = ?1 AND character_id = ?2 AND message_id = ?3 AND attempt = ?4 AND state = 'speaking'",
                )?
                .execute(params![user, character, message, i64::from(attempt), state.code()])?;
            Ok(changed > 0)
        })
        .await
    }

    async fn delete_clip(&self, key: &VoiceClipKey) -> StoreResult<bool> {
        let (user, character, message) = key_values(key);
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let deleted =
                delete_voice(&tx, VoiceScope { user: &user, character: Some(&character), message: Some(message) })?;
            tx.commit()?;
            Ok(deleted > 0)
        })
        .await
    }
}
