//! Accounts, sessions, sign-in links and deletion blocks in SQLite.

use amora_domain::account::{EmailAddress, User, UserId, UserNo};
use amora_domain::gender::Gender;
use async_trait::async_trait;
use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::EmbeddedStore;
use crate::{
    DeletionBlockRepo, NewUser, SessionRecord, SessionRepo, SignInLinkRepo, StoreError, StoreResult, SuspensionRepo,
    UserChange, UserRepo,
};

const USER_COLUMNS: &str = "user_id, user_no, user_name, email, discord_email, apple_email, google_subject,
    discord_id, user_vip_type, coin, user_avatar, utm_source, interested_gender, nsfw, language, password_hash,
    created_at";

fn read_user(row: &Row<'_>) -> rusqlite::Result<StoreResult<User>> {
    let user_id: String = row.get(0)?;
    let user_no: String = row.get(1)?;
    let emails: [Option<String>; 3] = [row.get(3)?, row.get(4)?, row.get(5)?];
    let gender: i64 = row.get(12)?;
    let fields = (
        row.get::<_, String>(2)?,
        row.get::<_, Option<String>>(6)?,
        row.get::<_, Option<String>>(7)?,
        row.get::<_, i64>(8)?,
        row.get::<_, i64>(9)?,
        row.get::<_, String>(10)?,
        row.get::<_, String>(11)?,
        row.get::<_, bool>(13)?,
        row.get::<_, String>(14)?,
        row.get::<_, Option<String>>(15)?,
        row.get::<_, i64>(16)?,
    );
    let (
        user_name,
        google_subject,
        discord_id,
        user_vip_type,
        coin,
        user_avatar,
        utm_source,
        nsfw,
        language,
        password_hash,
        created_at,
    ) = fields;
    let corrupt = |e: amora_domain::Invalid| StoreError::Corrupt(e.to_string());
    let email = |raw: &Option<String>| raw.as_deref().map(EmailAddress::parse).transpose().map_err(corrupt);
    Ok((|| {
        Ok(User {
            user_id: UserId::parse(&user_id).map_err(corrupt)?,
            user_no: UserNo::parse(&user_no).map_err(corrupt)?,
            user_name,
            email: email(&emails[0])?,
            discord_email: email(&emails[1])?,
            apple_email: email(&emails[2])?,
            google_subject,
            discord_id,
            user_vip_type,
            coin: amora_domain::money::Coins::stored(coin),
            user_avatar,
            utm_source,
            interested_gender: Gender::try_from(gender).map_err(corrupt)?,
            nsfw,
            language,
            password_hash,
            created_at,
        })
    })())
}

fn user_where(conn: &Connection, column: &str, value: &dyn ToSql) -> StoreResult<Option<User>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE {column} = ?1");
    let found = conn.prepare_cached(&sql)?.query_row([value], read_user).optional()?;
    found.transpose()
}

#[async_trait]
impl UserRepo for EmbeddedStore {
    async fn create(&self, user: NewUser) -> StoreResult<User> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO users (user_id, user_no, user_name, email, discord_email, google_subject, discord_id,
                    utm_source, language, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                user.user_id.as_str(),
                user.user_no.as_str(),
                user.user_name,
                user.email.as_ref().map(EmailAddress::as_str),
                user.discord_email.as_ref().map(EmailAddress::as_str),
                user.google_subject,
                user.discord_id,
                user.utm_source,
                user.language,
                user.created_at,
            ])?;
            user_where(conn, "user_id", &user.user_id.as_str())?
                .ok_or_else(|| StoreError::Unavailable("a created user vanished".into()))
        })
        .await
    }

    async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>> {
        let id = id.as_str().to_owned();
        self.with_conn(move |conn| user_where(conn, "user_id", &id)).await
    }

    async fn by_email(&self, email: &EmailAddress) -> StoreResult<Option<User>> {
        let email = email.as_str().to_owned();
        self.with_conn(move |conn| user_where(conn, "email", &email)).await
    }

    async fn by_user_no(&self, user_no: &UserNo) -> StoreResult<Option<User>> {
        let user_no = user_no.as_str().to_owned();
        self.with_conn(move |conn| user_where(conn, "user_no", &user_no)).await
    }

    async fn by_google_subject(&self, subject: &str) -> StoreResult<Option<User>> {
        let subject = subject.to_owned();
        self.with_conn(move |conn| user_where(conn, "google_subject", &subject)).await
    }

    async fn by_discord_id(&self, discord_id: &str) -> StoreResult<Option<User>> {
        let discord_id = discord_id.to_owned();
        self.with_conn(move |conn| user_where(conn, "discord_id", &discord_id)).await
    }

    async fn update(&self, id: &UserId, change: UserChange) -> StoreResult<Option<User>> {
        let id = id.as_str().to_owned();
        self.with_conn(move |conn| {
            match change {
                UserChange::Profile { user_name, user_avatar } => conn
                    .prepare_cached(
                        "UPDATE users SET user_name = COALESCE(?2, user_name), user_avatar = COALESCE(?3, user_avatar)
                         WHERE user_id = ?1",
                    )?
                    .execute(params![id, user_name, user_avatar])?,
                UserChange::Preferences { interested_gender, nsfw, language } => conn
                    .prepare_cached(
                        "UPDATE users SET interested_gender = COALESCE(?2, interested_gender),
                            nsfw = COALESCE(?3, nsfw), language = COALESCE(?4, language)
                         WHERE user_id = ?1",
                    )?
                    .execute(params![id, interested_gender.map(Gender::code), nsfw, language])?,
                UserChange::PasswordHash(hash) => {
                    conn.prepare_cached("UPDATE users SET password_hash = ?2 WHERE user_id = ?1")?.execute(params![id, hash])?
                }
                UserChange::VipType(vip_type) => conn
                    .prepare_cached("UPDATE users SET user_vip_type = ?2 WHERE user_id = ?1")?
                    .execute(params![id, vip_type])?,
                UserChange::LinkGoogle { subject } => conn
                    .prepare_cached("UPDATE users SET google_subject = ?2 WHERE user_id = ?1")?
                    .execute(params![id, subject])?,
                UserChange::LinkDiscord { discord_id, discord_email } => conn
                    .prepare_cached(
                        "UPDATE users SET discord_id = ?2, discord_email = COALESCE(?3, discord_email) WHERE user_id = ?1",
                    )?
                    .execute(params![id, discord_id, discord_email.as_ref().map(EmailAddress::as_str)])?,
            };
            user_where(conn, "user_id", &id)
        })
        .await
    }

    async fn delete(&self, id: &UserId) -> StoreResult<bool> {
        let id = id.as_str().to_owned();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            tx.execute("DELETE FROM sessions WHERE user_id = ?1", params![id])?;
            tx.execute("DELETE FROM ledger WHERE user_id = ?1", params![id])?;
            tx.execute("DELETE FROM messages WHERE user_id = ?1", params![id])?;
            tx.execute("DELETE FROM reply_alternatives WHERE user_id = ?1", params![id])?;
            tx.execute("DELETE FROM reply_choices WHERE user_id = ?1", params![id])?;
            super::gallery::delete_all_of(&tx, &id)?;
            super::voice::delete_voice(&tx, super::voice::VoiceScope { user: &id, character: None, message: None })?;
            tx.execute("DELETE FROM memories WHERE user_id = ?1", params![id])?;
            super::recall::delete_all_of(&tx, &id)?;
            tx.execute("DELETE FROM message_credits WHERE user_id = ?1", params![id])?;
            // The characters it created, with their media (the creator index finds them).
            super::characters::delete_created_of(&tx, &id)?;
            let deleted = tx.execute("DELETE FROM users WHERE user_id = ?1", params![id])?;
            tx.commit()?;
            Ok(deleted > 0)
        })
        .await
    }
}

#[async_trait]
impl SessionRepo for EmbeddedStore {
    async fn create(&self, session: SessionRecord) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                session.token_hash,
                session.user_id.as_str(),
                session.created_at,
                session.expires_at
            ])?;
            Ok(())
        })
        .await
    }

    async fn find_live(&self, token_hash: &str, now: i64) -> StoreResult<Option<SessionRecord>> {
        let token_hash = token_hash.to_owned();
        self.with_conn(move |conn| {
            let row = conn
                .prepare_cached(
                    "SELECT token_hash, user_id, created_at, expires_at FROM sessions
                     WHERE token_hash = ?1 AND expires_at > ?2",
                )?
                .query_row(params![token_hash, now], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, row.get(2)?, row.get(3)?))
                })
                .optional()?;
            row.map(|(token_hash, user_id, created_at, expires_at)| {
                Ok(SessionRecord {
                    token_hash,
                    user_id: UserId::parse(&user_id).map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    created_at,
                    expires_at,
                })
            })
            .transpose()
        })
        .await
    }

    async fn revoke(&self, token_hash: &str) -> StoreResult<()> {
        let token_hash = token_hash.to_owned();
        self.with_conn(move |conn| {
            conn.prepare_cached("DELETE FROM sessions WHERE token_hash = ?1")?.execute(params![token_hash])?;
            Ok(())
        })
        .await
    }

    async fn revoke_all(&self, user_id: &UserId) -> StoreResult<()> {
        let user_id = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            conn.prepare_cached("DELETE FROM sessions WHERE user_id = ?1")?.execute(params![user_id])?;
            Ok(())
        })
        .await
    }

    async fn revoke_others(&self, user_id: &UserId, keep_hash: &str) -> StoreResult<()> {
        let (user_id, keep_hash) = (user_id.as_str().to_owned(), keep_hash.to_owned());
        self.with_conn(move |conn| {
            conn.prepare_cached("DELETE FROM sessions WHERE user_id = ?1 AND token_hash <> ?2")?
                .execute(params![user_id, keep_hash])?;
            Ok(())
        })
        .await
    }
    async fn live_sessions(&self, user_id: &UserId, now: i64) -> StoreResult<Vec<SessionRecord>> {
        let user = user_id.clone();
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT token_hash, created_at, expires_at FROM sessions
                 WHERE user_id = ?1 AND expires_at > ?2 ORDER BY created_at, token_hash",
            )?;
            let rows = statement.query_map(params![user.as_str(), now], |row| {
                Ok(SessionRecord {
                    token_hash: row.get(0)?,
                    user_id: user.clone(),
                    created_at: row.get(1)?,
                    expires_at: row.get(2)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }
}

#[async_trait]
impl SignInLinkRepo for EmbeddedStore {
    async fn create(&self, token_hash: &str, email: &EmailAddress, expires_at: i64) -> StoreResult<()> {
        let (token_hash, email) = (token_hash.to_owned(), email.as_str().to_owned());
        self.with_conn(move |conn| {
            conn.prepare_cached("INSERT INTO sign_in_links (token_hash, email, expires_at) VALUES (?1, ?2, ?3)")?
                .execute(params![token_hash, email, expires_at])?;
            // Used and long-expired links are of no further use; keep the table small.
            conn.prepare_cached("DELETE FROM sign_in_links WHERE expires_at < ?1")?
                .execute(params![expires_at - 86_400])?;
            Ok(())
        })
        .await
    }

    async fn consume(&self, token_hash: &str, now: i64) -> StoreResult<Option<EmailAddress>> {
        let token_hash = token_hash.to_owned();
        self.with_conn(move |conn| {
            // One statement marks and returns, so two clicks racing cannot both win.
            let email: Option<String> = conn
                .prepare_cached(
                    "UPDATE sign_in_links SET used_at = ?2
                     WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2
                     RETURNING email",
                )?
                .query_row(params![token_hash, now], |row| row.get(0))
                .optional()?;
            email.map(|e| EmailAddress::parse(&e).map_err(|e| StoreError::Corrupt(e.to_string()))).transpose()
        })
        .await
    }
}

#[async_trait]
impl DeletionBlockRepo for EmbeddedStore {
    async fn block(&self, email: &EmailAddress, until: i64) -> StoreResult<()> {
        let email = email.as_str().to_owned();
        self.with_conn(move |conn| {
            conn.prepare_cached("INSERT OR REPLACE INTO deletion_blocks (email, until) VALUES (?1, ?2)")?
                .execute(params![email, until])?;
            Ok(())
        })
        .await
    }

    async fn blocked_until(&self, email: &EmailAddress, now: i64) -> StoreResult<Option<i64>> {
        let email = email.as_str().to_owned();
        self.with_conn(move |conn| {
            let until = conn
                .prepare_cached("SELECT until FROM deletion_blocks WHERE email = ?1 AND until > ?2")?
                .query_row(params![email, now], |row| row.get(0))
                .optional()?;
            Ok(until)
        })
        .await
    }
}

#[async_trait]
impl SuspensionRepo for EmbeddedStore {
    async fn suspend(&self, user_id: &UserId, since: i64) -> StoreResult<()> {
        let user_id = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            conn.prepare_cached("INSERT OR IGNORE INTO suspensions (user_id, since) VALUES (?1, ?2)")?
                .execute(params![user_id, since])?;
            Ok(())
        })
        .await
    }

    async fn lift(&self, user_id: &UserId) -> StoreResult<bool> {
        let user_id = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            Ok(conn.prepare_cached("DELETE FROM suspensions WHERE user_id = ?1")?.execute(params![user_id])? > 0)
        })
        .await
    }

    async fn suspended_since(&self, user_id: &UserId) -> StoreResult<Option<i64>> {
        let user_id = user_id.as_str().to_owned();
        self.with_conn(move |conn| {
            Ok(conn
                .prepare_cached("SELECT since FROM suspensions WHERE user_id = ?1")?
                .query_row(params![user_id], |row| row.get(0))
                .optional()?)
        })
        .await
    }
}
