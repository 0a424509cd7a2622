//! Voice clips over CQL: `voice_clips` (one row per message, its attempt claimed by
//! lightweight transactions) and `voice_parts`, both partitioned by user so that deleting
//! an account or a conversation finds every clip in one partition. The parts' audio is in
//! the media repository and is deleted through it.

use async_trait::async_trait;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer};
use crate::{MediaRepo, StoreResult, VoiceClip, VoiceClipKey, VoiceClipPart, VoiceClipRepo, VoiceClipState};

pub(super) struct Statements {
    clip: PreparedStatement,
    parts_of_attempt: PreparedStatement,
    parts_of_message: PreparedStatement,
    parts_of_pair: PreparedStatement,
    parts_of_user: PreparedStatement,
    insert_clip: PreparedStatement,
    replace_clip: PreparedStatement,
    finish_clip: PreparedStatement,
    insert_part: PreparedStatement,
    delete_part: PreparedStatement,
    delete_message_parts: PreparedStatement,
    delete_message_clip: PreparedStatement,
    delete_pair_parts: PreparedStatement,
    delete_pair_clips: PreparedStatement,
    delete_user_parts: PreparedStatement,
    delete_user_clips: PreparedStatement,
}

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let message = "user_id = ? AND character_id = ? AND message_id = ?";
        let pair = "user_id = ? AND character_id = ?";
        let read = |cql: String| async move { p.prepare(&cql, Kind::Idempotent).await };
        Ok(Self {
            clip: read(format!("SELECT attempt, state, started_at FROM voice_clips WHERE {message}")).await?,
            parts_of_attempt: read(format!(
                "SELECT idx, media_id, duration_ms FROM voice_parts WHERE {message} AND attempt = ?"
            ))
            .await?,
            parts_of_message: read(format!("SELECT attempt, idx, media_id FROM voice_parts WHERE {message}")).await?,
            parts_of_pair: read(format!("SELECT media_id FROM voice_parts WHERE {pair}")).await?,
            parts_of_user: read("SELECT media_id FROM voice_parts WHERE user_id = ?".into()).await?,
            insert_clip: p
                .prepare(
                    "INSERT INTO voice_clips (user_id, character_id, message_id, attempt, state, started_at)
                     VALUES (?, ?, ?, ?, 'speaking', ?) IF NOT EXISTS",
                    Kind::Conditional,
                )
                .await?,
            replace_clip: p
                .prepare(
                    &format!(
                        "UPDATE voice_clips SET attempt = ?, state = 'speaking', started_at = ?
                         WHERE {message} IF attempt = ? AND state = ?"
                    ),
                    Kind::Conditional,
                )
                .await?,
            finish_clip: p
                .prepare(
                    &format!("UPDATE voice_clips SET state = ? WHERE {message} IF attempt = ? AND state = 'speaking'"),
                    Kind::Conditional,
                )
                .await?,
            insert_part: read(
                "INSERT INTO voice_parts (user_id, character_id, message_id, attempt, idx, media_id, duration_ms)
                 VALUES (?, ?, ?, ?, ?, ?, ?)"
                    .into(),
            )
            .await?,
            delete_part: read(format!("DELETE FROM voice_parts WHERE {message} AND attempt = ? AND idx = ?")).await?,
            delete_message_parts: read(format!("DELETE FROM voice_parts WHERE {message}")).await?,
            delete_message_clip: read(format!("DELETE FROM voice_clips WHERE {message}")).await?,
            delete_pair_parts: read(format!("DELETE FROM voice_parts WHERE {pair}")).await?,
            delete_pair_clips: read(format!("DELETE FROM voice_clips WHERE {pair}")).await?,
            delete_user_parts: read("DELETE FROM voice_parts WHERE user_id = ?".into()).await?,
            delete_user_clips: read("DELETE FROM voice_clips WHERE user_id = ?".into()).await?,
        })
    }
}

impl CqlStore {
    /// Deletes the audio of `media_ids`; the rows that named them go next, so a failure
    /// half-way leaves rows to find and delete again, never rows naming nothing.
    async fn delete_audio(&self, media_ids: Vec<(String,)>) -> StoreResult<()> {
        for (media_id,) in media_ids {
            MediaRepo::delete(self, &media_id).await?;
        }
        Ok(())
    }

    /// Removes the voice clips of one conversation (account deletion and `delete` of a
    /// conversation call it).
    pub(super) async fn delete_pair_voice(&self, user: &str, character: &str) -> StoreResult<()> {
        let s = &self.statements.voice;
        self.delete_audio(self.paged(&s.parts_of_pair, (user, character)).await?).await?;
        self.run(&s.delete_pair_parts, (user, character)).await?;
        self.run(&s.delete_pair_clips, (user, character)).await?;
        Ok(())
    }

    /// Removes every voice clip of the user.
    pub(super) async fn delete_user_voice(&self, user: &str) -> StoreResult<()> {
        let s = &self.statements.voice;
        self.delete_audio(self.paged(&s.parts_of_user, (user,)).await?).await?;
        self.run(&s.delete_user_parts, (user,)).await?;
        self.run(&s.delete_user_clips, (user,)).await?;
        Ok(())
    }

    /// Removes one message's clip; whether there was one.
    pub(super) async fn delete_message_voice(&self, user: &str, character: &str, message: i64) -> StoreResult<bool> {
        let s = &self.statements.voice;
        let existed: Option<(i32, String, i64)> = self.first(&s.clip, (user, character, message)).await?;
        let parts: Vec<(i32, i32, String)> = self.rows(&s.parts_of_message, (user, character, message)).await?;
        self.delete_audio(parts.into_iter().map(|(_, _, media_id)| (media_id,)).collect()).await?;
        self.run(&s.delete_message_parts, (user, character, message)).await?;
        self.run(&s.delete_message_clip, (user, character, message)).await?;
        Ok(existed.is_some())
    }
}

fn key_values(key: &VoiceClipKey) -> (&str, &str, i64) {
    (key.user_id.as_str(), key.character_id.as_str(), key.message_id.raw())
}

fn int(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

#[async_trait]
impl VoiceClipRepo for CqlStore {
    async fn clip(&self, key: &VoiceClipKey) -> StoreResult<Option<VoiceClip>> {
        let s = &self.statements.voice;
        let (user, character, message) = key_values(key);
        let head: Option<(i32, String, i64)> = self.first(&s.clip, (user, character, message)).await?;
        let Some((attempt, state, started_at)) = head else { return Ok(None) };
        let rows: Vec<(i32, String, i64)> = self.rows(&s.parts_of_attempt, (user, character, message, attempt)).await?;
        let parts = rows
            .into_iter()
            .map(|(index, media_id, duration_ms)| VoiceClipPart {
                index: index.max(0) as u32,
                media_id,
                duration_ms: duration_ms.max(0) as u64,
            })
            .collect();
        Ok(Some(VoiceClip {
            attempt: attempt.max(0) as u32,
            state: VoiceClipState::from_code(&state)?,
            started_at,
            parts,
        }))
    }

    async fn start_clip(
        &self,
        key: &VoiceClipKey,
        attempt: u32,
        replacing: Option<(u32, VoiceClipState)>,
        at: i64,
    ) -> StoreResult<bool> {
        let s = &self.statements.voice;
        let (user, character, message) = key_values(key);
        let started = match replacing {
            None => self.conditional(&s.insert_clip, (user, character, message, int(attempt), at)).await?,
            Some((old_attempt, old_state)) => {
                let values = (int(attempt), at, user, character, message, int(old_attempt), old_state.code());
                self.conditional(&s.replace_clip, values).await?
            }
        };
        if started {
            // What earlier attempts left is not part of this one.
            let parts: Vec<(i32, i32, String)> = self.rows(&s.parts_of_message, (user, character, message)).await?;
            for (part_attempt, index, media_id) in parts.into_iter().filter(|(a, _, _)| *a != int(attempt)) {
                MediaRepo::delete(self, &media_id).await?;
                self.run(&s.delete_part, (user, character, message, part_attempt, index)).await?;
            }
        }
        Ok(started)
    }

    async fn add_clip_part(&self, key: &VoiceClipKey, attempt: u32, part: VoiceClipPart) -> StoreResult<()> {
        let (user, character, message) = key_values(key);
        let values = (
            user,
            character,
            message,
            int(attempt),
            int(part.index),
            &part.media_id,
            i64::try_from(part.duration_ms).unwrap_or(i64::MAX),
        );
        self.run(&self.statements.voice.insert_part, values).await.map(|_| ())
    }

    async fn finish_clip(&self, key: &VoiceClipKey, attempt: u32, state: VoiceClipState) -> StoreResult<bool> {
        let (user, character, message) = key_values(key);
        let values = (state.code(), user, character, message, int(attempt));
        self.conditional(&self.statements.voice.finish_clip, values).await
    }

    async fn delete_clip(&self, key: &VoiceClipKey) -> StoreResult<bool> {
        let (user, character, message) = key_values(key);
        self.delete_message_voice(user, character, message).await
    }
}
