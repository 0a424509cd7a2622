//! Accounts, sessions, sign-in links and deletion blocks over CQL.
//!
//! An account is the static row of its `accounts` partition (the ledger rows cluster
//! under it, see ledger.rs). Uniqueness of email, `userNo` and provider identities is
//! kept by claims in `account_keys`, each taken with INSERT ... IF NOT EXISTS before the
//! account is written: of two concurrent sign-ups with one email exactly one claim wins.

use amora_domain::account::{EmailAddress, User, UserId, UserNo};
use amora_domain::gender::Gender;
use async_trait::async_trait;
use scylla::DeserializeRow;
use scylla::statement::prepared::PreparedStatement;

use super::{CqlStore, Kind, Preparer, corrupt, now_seconds, ttl_until};
use crate::{
    DeletionBlockRepo, NewUser, SessionRecord, SessionRepo, SignInLinkRepo, StoreError, StoreResult, SuspensionRepo,
    UserChange, UserRepo,
};

/// The kinds of claim in `account_keys`, named as `StoreError::Conflict` names the field.
const EMAIL: &str = "email";
const USER_NO: &str = "userNo";
const GOOGLE: &str = "google";
const DISCORD: &str = "discord";

pub(super) struct Statements {
    claim: PreparedStatement,
    release: PreparedStatement,
    owner: PreparedStatement,
    insert_account: PreparedStatement,
    account: PreparedStatement,
    set_user_name: PreparedStatement,
    set_avatar: PreparedStatement,
    set_gender: PreparedStatement,
    set_nsfw: PreparedStatement,
    set_language: PreparedStatement,
    set_password: PreparedStatement,
    set_vip: PreparedStatement,
    set_google: PreparedStatement,
    set_discord: PreparedStatement,
    set_discord_email: PreparedStatement,
    delete_account: PreparedStatement,
    insert_session: PreparedStatement,
    insert_user_session: PreparedStatement,
    session: PreparedStatement,
    delete_session: PreparedStatement,
    user_sessions: PreparedStatement,
    delete_user_session: PreparedStatement,
    delete_user_sessions: PreparedStatement,
    insert_link: PreparedStatement,
    link: PreparedStatement,
    use_link: PreparedStatement,
    insert_block: PreparedStatement,
    block: PreparedStatement,
    delete_credits: PreparedStatement,
    suspend: PreparedStatement,
    lift: PreparedStatement,
    suspension: PreparedStatement,
}

const ACCOUNT_COLUMNS: &str = "user_id, user_no, user_name, email, discord_email, apple_email, google_subject,
    discord_id, user_vip_type, coin, user_avatar, utm_source, interested_gender, nsfw, language, password_hash,
    created_at";

impl Statements {
    pub(super) async fn prepare(p: &Preparer<'_>) -> StoreResult<Self> {
        let set = |column: &str| format!("UPDATE accounts SET {column} = ? WHERE user_id = ?");
        Ok(Self {
            claim: p
                .prepare("INSERT INTO account_keys (kind, value, user_id) VALUES (?, ?, ?) IF NOT EXISTS", Kind::Conditional)
                .await?,
            // Only the claim's owner releases it.
            release: p
                .prepare("DELETE FROM account_keys WHERE kind = ? AND value = ? IF user_id = ?", Kind::Conditional)
                .await?,
            owner: p.prepare("SELECT user_id FROM account_keys WHERE kind = ? AND value = ?", Kind::Idempotent).await?,
            insert_account: p
                .prepare(
                    "INSERT INTO accounts (user_id, user_no, user_name, email, discord_email, google_subject, discord_id,
                        user_vip_type, coin, user_avatar, utm_source, interested_gender, nsfw, language, created_at,
                        ledger_seq)
                     VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, '', ?, 0, false, ?, ?, 0) IF NOT EXISTS",
                    Kind::Conditional,
                )
                .await?,
            account: p
                .prepare(&format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE user_id = ? LIMIT 1"), Kind::Idempotent)
                .await?,
            set_user_name: p.prepare(&set("user_name"), Kind::Idempotent).await?,
            set_avatar: p.prepare(&set("user_avatar"), Kind::Idempotent).await?,
            set_gender: p.prepare(&set("interested_gender"), Kind::Idempotent).await?,
            set_nsfw: p.prepare(&set("nsfw"), Kind::Idempotent).await?,
            set_language: p.prepare(&set("language"), Kind::Idempotent).await?,
            set_password: p.prepare(&set("password_hash"), Kind::Idempotent).await?,
            set_vip: p.prepare(&set("user_vip_type"), Kind::Idempotent).await?,
            set_google: p.prepare(&set("google_subject"), Kind::Idempotent).await?,
            set_discord: p.prepare(&set("discord_id"), Kind::Idempotent).await?,
            set_discord_email: p.prepare(&set("discord_email"), Kind::Idempotent).await?,
            delete_account: p.prepare("DELETE FROM accounts WHERE user_id = ?", Kind::Idempotent).await?,
            insert_session: p
                .prepare(
                    "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?) USING TTL ?",
                    Kind::Idempotent,
                )
                .await?,
            insert_user_session: p
                .prepare("INSERT INTO sessions_by_user (user_id, token_hash) VALUES (?, ?) USING TTL ?", Kind::Idempotent)
                .await?,
            session: p
                .prepare(
                    "SELECT token_hash, user_id, created_at, expires_at FROM sessions WHERE token_hash = ?",
                    Kind::Idempotent,
                )
                .await?,
            delete_session: p.prepare("DELETE FROM sessions WHERE token_hash = ?", Kind::Idempotent).await?,
            user_sessions: p
                .prepare("SELECT token_hash FROM sessions_by_user WHERE user_id = ?", Kind::Idempotent)
                .await?,
            delete_user_session: p
                .prepare("DELETE FROM sessions_by_user WHERE user_id = ? AND token_hash = ?", Kind::Idempotent)
                .await?,
            delete_user_sessions: p.prepare("DELETE FROM sessions_by_user WHERE user_id = ?", Kind::Idempotent).await?,
            insert_link: p
                .prepare(
                    "INSERT INTO sign_in_links (token_hash, email, expires_at) VALUES (?, ?, ?) USING TTL ?",
                    Kind::Idempotent,
                )
                .await?,
            link: p
                .prepare("SELECT email, expires_at, used_at FROM sign_in_links WHERE token_hash = ?", Kind::Idempotent)
                .await?,
            // `email = ?` fails on a missing row (where `used_at = null` alone would hold and
            // create one), so only an existing, unused link is marked.
            use_link: p
                .prepare(
                    "UPDATE sign_in_links USING TTL ? SET used_at = ? WHERE token_hash = ? IF used_at = null AND email = ?",
                    Kind::Conditional,
                )
                .await?,
            insert_block: p
                .prepare("INSERT INTO deletion_blocks (email, until) VALUES (?, ?) USING TTL ?", Kind::Idempotent)
                .await?,
            block: p.prepare("SELECT until FROM deletion_blocks WHERE email = ?", Kind::Idempotent).await?,
            delete_credits: p.prepare("DELETE FROM message_credits WHERE user_id = ?", Kind::Idempotent).await?,
            // IF NOT EXISTS keeps the first time when suspended twice.
            suspend: p
                .prepare("INSERT INTO suspensions (user_id, since) VALUES (?, ?) IF NOT EXISTS", Kind::Conditional)
                .await?,
            lift: p.prepare("DELETE FROM suspensions WHERE user_id = ? IF EXISTS", Kind::Conditional).await?,
            suspension: p.prepare("SELECT since FROM suspensions WHERE user_id = ?", Kind::Idempotent).await?,
        })
    }
}

#[derive(DeserializeRow)]
struct AccountRow {
    user_id: String,
    user_no: Option<String>,
    user_name: Option<String>,
    email: Option<String>,
    discord_email: Option<String>,
    apple_email: Option<String>,
    google_subject: Option<String>,
    discord_id: Option<String>,
    user_vip_type: Option<i64>,
    coin: Option<i64>,
    user_avatar: Option<String>,
    utm_source: Option<String>,
    interested_gender: Option<i32>,
    nsfw: Option<bool>,
    language: Option<String>,
    password_hash: Option<String>,
    created_at: Option<i64>,
}

impl AccountRow {
    /// The account, or `None` for a partition without one (only `user_no` is always set).
    fn into_user(self) -> StoreResult<Option<User>> {
        let Some(user_no) = self.user_no else { return Ok(None) };
        let email = |raw: Option<String>| raw.as_deref().map(EmailAddress::parse).transpose().map_err(corrupt);
        Ok(Some(User {
            user_id: UserId::parse(&self.user_id).map_err(corrupt)?,
            user_no: UserNo::parse(&user_no).map_err(corrupt)?,
            user_name: self.user_name.unwrap_or_default(),
            email: email(self.email)?,
            discord_email: email(self.discord_email)?,
            apple_email: email(self.apple_email)?,
            google_subject: self.google_subject,
            discord_id: self.discord_id,
            user_vip_type: self.user_vip_type.unwrap_or(0),
            coin: amora_domain::money::Coins::stored(self.coin.unwrap_or(0)),
            user_avatar: self.user_avatar.unwrap_or_default(),
            utm_source: self.utm_source.unwrap_or_default(),
            interested_gender: Gender::try_from(i64::from(self.interested_gender.unwrap_or(0))).map_err(corrupt)?,
            nsfw: self.nsfw.unwrap_or(false),
            language: self.language.unwrap_or_else(|| "en".into()),
            password_hash: self.password_hash,
            created_at: self.created_at.unwrap_or(0),
        }))
    }
}

impl CqlStore {
    /// Takes the claim of `value` for `user_id`; false when another account holds it.
    async fn claim(&self, kind: &str, value: &str, user_id: &UserId) -> StoreResult<bool> {
        let s = &self.statements.accounts;
        if self.conditional(&s.claim, (kind, value, user_id.as_str())).await? {
            return Ok(true);
        }
        // A claim left by an earlier attempt of the same account (a retried sign-up) is ours.
        let owner: Option<(Option<String>,)> = self.first(&s.owner, (kind, value)).await?;
        Ok(owner.and_then(|(o,)| o).as_deref() == Some(user_id.as_str()))
    }

    async fn release(&self, kind: &str, value: &str, user_id: &UserId) -> StoreResult<()> {
        self.conditional(&self.statements.accounts.release, (kind, value, user_id.as_str())).await.map(|_| ())
    }

    /// The account holding the claim of `value`.
    async fn by_key(&self, kind: &str, value: &str) -> StoreResult<Option<User>> {
        let owner: Option<(Option<String>,)> = self.first(&self.statements.accounts.owner, (kind, value)).await?;
        let Some(owner) = owner.and_then(|(o,)| o) else { return Ok(None) };
        let user = self.account(&UserId::parse(&owner).map_err(corrupt)?).await?;
        // A claim whose account was never written (a sign-up that died half-way) or
        // moved on names nobody.
        Ok(user.filter(|user| match kind {
            EMAIL => user.email.as_ref().is_some_and(|e| e.as_str() == value),
            USER_NO => user.user_no.as_str() == value,
            GOOGLE => user.google_subject.as_deref() == Some(value),
            _ => user.discord_id.as_deref() == Some(value),
        }))
    }

    pub(super) async fn account(&self, id: &UserId) -> StoreResult<Option<User>> {
        let row: Option<AccountRow> = self.first(&self.statements.accounts.account, (id.as_str(),)).await?;
        row.map(AccountRow::into_user).transpose().map(Option::flatten)
    }

    /// The claims a new account needs, in the order they are taken.
    fn claims_of(user: &NewUser) -> Vec<(&'static str, String)> {
        let mut claims = vec![(USER_NO, user.user_no.as_str().to_owned())];
        if let Some(email) = &user.email {
            claims.push((EMAIL, email.as_str().to_owned()));
        }
        if let Some(subject) = &user.google_subject {
            claims.push((GOOGLE, subject.clone()));
        }
        if let Some(discord_id) = &user.discord_id {
            claims.push((DISCORD, discord_id.clone()));
        }
        claims
    }

    /// Links a provider identity: claims it, records it, and releases the one it replaces.
    async fn link(
        &self,
        id: &UserId,
        kind: &'static str,
        value: &str,
        old: Option<&str>,
        set: &PreparedStatement,
    ) -> StoreResult<()> {
        if old == Some(value) {
            return Ok(());
        }
        if !self.claim(kind, value, id).await? {
            return Err(StoreError::Conflict(kind));
        }
        self.run(set, (value, id.as_str())).await?;
        if let Some(old) = old {
            self.release(kind, old, id).await?;
        }
        Ok(())
    }
}

#[async_trait]
impl UserRepo for CqlStore {
    async fn create(&self, user: NewUser) -> StoreResult<User> {
        let claims = Self::claims_of(&user);
        let mut taken = Vec::new();
        for (kind, value) in &claims {
            if !self.claim(kind, value, &user.user_id).await? {
                // Give back what this attempt took, so the values stay free for others.
                for (kind, value) in taken {
                    self.release(kind, value, &user.user_id).await?;
                }
                return Err(StoreError::Conflict(kind));
            }
            taken.push((*kind, value.as_str()));
        }
        let s = &self.statements.accounts;
        let values = (
            user.user_id.as_str(),
            user.user_no.as_str(),
            &user.user_name,
            user.email.as_ref().map(EmailAddress::as_str),
            user.discord_email.as_ref().map(EmailAddress::as_str),
            &user.google_subject,
            &user.discord_id,
            &user.utm_source,
            &user.language,
            user.created_at,
        );
        if !self.conditional(&s.insert_account, values).await? {
            for (kind, value) in taken {
                self.release(kind, value, &user.user_id).await?;
            }
            return Err(StoreError::Conflict("userId"));
        }
        self.account(&user.user_id).await?.ok_or_else(|| StoreError::Unavailable("a created user vanished".into()))
    }

    async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>> {
        self.account(id).await
    }

    async fn by_email(&self, email: &EmailAddress) -> StoreResult<Option<User>> {
        self.by_key(EMAIL, email.as_str()).await
    }

    async fn by_user_no(&self, user_no: &UserNo) -> StoreResult<Option<User>> {
        self.by_key(USER_NO, user_no.as_str()).await
    }

    async fn by_google_subject(&self, subject: &str) -> StoreResult<Option<User>> {
        self.by_key(GOOGLE, subject).await
    }

    async fn by_discord_id(&self, discord_id: &str) -> StoreResult<Option<User>> {
        self.by_key(DISCORD, discord_id).await
    }

    async fn update(&self, id: &UserId, change: UserChange) -> StoreResult<Option<User>> {
        // Writing to a deleted account would bring its partition back: look first.
        let Some(user) = self.account(id).await? else { return Ok(None) };
        let s = &self.statements.accounts;
        let key = id.as_str();
        match change {
            UserChange::Profile { user_name, user_avatar } => {
                if let Some(name) = user_name {
                    self.run(&s.set_user_name, (name, key)).await?;
                }
                if let Some(avatar) = user_avatar {
                    self.run(&s.set_avatar, (avatar, key)).await?;
                }
            }
            UserChange::Preferences { interested_gender, nsfw, language } => {
                if let Some(gender) = interested_gender {
                    self.run(&s.set_gender, (i32::from(gender.code()), key)).await?;
                }
                if let Some(nsfw) = nsfw {
                    self.run(&s.set_nsfw, (nsfw, key)).await?;
                }
                if let Some(language) = language {
                    self.run(&s.set_language, (language, key)).await?;
                }
            }
            UserChange::PasswordHash(hash) => {
                self.run(&s.set_password, (hash, key)).await?;
            }
            UserChange::VipType(vip_type) => {
                self.run(&s.set_vip, (vip_type, key)).await?;
            }
            UserChange::LinkGoogle { subject } => {
                self.link(id, GOOGLE, &subject, user.google_subject.as_deref(), &s.set_google).await?;
            }
            UserChange::LinkDiscord { discord_id, discord_email } => {
                self.link(id, DISCORD, &discord_id, user.discord_id.as_deref(), &s.set_discord).await?;
                if let Some(email) = discord_email {
                    self.run(&s.set_discord_email, (email.as_str(), key)).await?;
                }
            }
        }
        self.account(id).await
    }

    async fn delete(&self, id: &UserId) -> StoreResult<bool> {
        let Some(user) = self.account(id).await? else { return Ok(false) };
        let s = &self.statements.accounts;
        self.revoke_all(id).await?;
        self.delete_chats_of(id).await?;
        self.delete_groups_of(id).await?;
        self.delete_gallery_of(id).await?;
        // The characters it created, with their media (found by `characters_by_creator`).
        crate::CreatedCharacterRepo::delete_all_of(self, id).await?;
        // Every clip of the user, in the user's one partition.
        self.delete_user_voice(id.as_str()).await?;
        self.run(&s.delete_credits, (id.as_str(),)).await?;
        self.run(&self.statements.personas.delete_all, (id.as_str(),)).await?;
        // The account (with its ledger) goes before its claims, so a claim is never free
        // while an account still answers to it.
        self.run(&s.delete_account, (id.as_str(),)).await?;
        self.release(USER_NO, user.user_no.as_str(), id).await?;
        if let Some(email) = &user.email {
            self.release(EMAIL, email.as_str(), id).await?;
        }
        if let Some(subject) = &user.google_subject {
            self.release(GOOGLE, subject, id).await?;
        }
        if let Some(discord_id) = &user.discord_id {
            self.release(DISCORD, discord_id, id).await?;
        }
        Ok(true)
    }
}

#[async_trait]
impl SessionRepo for CqlStore {
    async fn create(&self, session: SessionRecord) -> StoreResult<()> {
        let s = &self.statements.accounts;
        let ttl = ttl_until(session.expires_at, now_seconds());
        let user = session.user_id.as_str();
        self.run(&s.insert_user_session, (user, &session.token_hash, ttl)).await?;
        self.run(&s.insert_session, (&session.token_hash, user, session.created_at, session.expires_at, ttl)).await?;
        Ok(())
    }

    async fn find_live(&self, token_hash: &str, now: i64) -> StoreResult<Option<SessionRecord>> {
        let row: Option<(String, String, i64, i64)> =
            self.first(&self.statements.accounts.session, (token_hash,)).await?;
        // The TTL removes the row in time; the check keeps `now` (not the server's clock)
        // the judge, as on the embedded store.
        row.filter(|(_, _, _, expires_at)| *expires_at > now)
            .map(|(token_hash, user_id, created_at, expires_at)| {
                Ok(SessionRecord {
                    token_hash,
                    user_id: UserId::parse(&user_id).map_err(corrupt)?,
                    created_at,
                    expires_at,
                })
            })
            .transpose()
    }

    async fn revoke(&self, token_hash: &str) -> StoreResult<()> {
        let s = &self.statements.accounts;
        let row: Option<(String, String, i64, i64)> = self.first(&s.session, (token_hash,)).await?;
        self.run(&s.delete_session, (token_hash,)).await?;
        if let Some((_, user_id, _, _)) = row {
            self.run(&s.delete_user_session, (user_id, token_hash)).await?;
        }
        Ok(())
    }

    async fn revoke_all(&self, user_id: &UserId) -> StoreResult<()> {
        let s = &self.statements.accounts;
        let tokens: Vec<(String,)> = self.paged(&s.user_sessions, (user_id.as_str(),)).await?;
        for (token_hash,) in tokens {
            self.run(&s.delete_session, (token_hash,)).await?;
        }
        self.run(&s.delete_user_sessions, (user_id.as_str(),)).await?;
        Ok(())
    }

    async fn revoke_others(&self, user_id: &UserId, keep_hash: &str) -> StoreResult<()> {
        let s = &self.statements.accounts;
        let tokens: Vec<(String,)> = self.paged(&s.user_sessions, (user_id.as_str(),)).await?;
        for (token_hash,) in tokens.into_iter().filter(|(hash,)| hash != keep_hash) {
            self.run(&s.delete_session, (token_hash.as_str(),)).await?;
            self.run(&s.delete_user_session, (user_id.as_str(), token_hash.as_str())).await?;
        }
        Ok(())
    }
    async fn live_sessions(&self, user_id: &UserId, now: i64) -> StoreResult<Vec<SessionRecord>> {
        let tokens: Vec<(String,)> = self.paged(&self.statements.accounts.user_sessions, (user_id.as_str(),)).await?;
        let mut sessions = Vec::with_capacity(tokens.len());
        for (token_hash,) in tokens {
            // A session ended between the two reads is simply not listed.
            if let Some(session) = self.find_live(&token_hash, now).await? {
                sessions.push(session);
            }
        }
        sessions.sort_by(|a, b| (a.created_at, &a.token_hash).cmp(&(b.created_at, &b.token_hash)));
        Ok(sessions)
    }
}

#[async_trait]
impl SignInLinkRepo for CqlStore {
    async fn create(&self, token_hash: &str, email: &EmailAddress, expires_at: i64) -> StoreResult<()> {
        let ttl = ttl_until(expires_at, now_seconds());
        self.run(&self.statements.accounts.insert_link, (token_hash, email.as_str(), expires_at, ttl)).await.map(|_| ())
    }

    async fn consume(&self, token_hash: &str, now: i64) -> StoreResult<Option<EmailAddress>> {
        let s = &self.statements.accounts;
        let row: Option<(String, i64, Option<i64>)> = self.first(&s.link, (token_hash,)).await?;
        let Some((email, expires_at, None)) = row else { return Ok(None) };
        if expires_at <= now {
            return Ok(None);
        }
        // Two clicks racing: the conditional update lets exactly one through.
        let ttl = ttl_until(expires_at, now_seconds());
        if !self.conditional(&s.use_link, (ttl, now, token_hash, &email)).await? {
            return Ok(None);
        }
        EmailAddress::parse(&email).map(Some).map_err(corrupt)
    }
}

#[async_trait]
impl DeletionBlockRepo for CqlStore {
    async fn block(&self, email: &EmailAddress, until: i64) -> StoreResult<()> {
        let ttl = ttl_until(until, now_seconds());
        self.run(&self.statements.accounts.insert_block, (email.as_str(), until, ttl)).await.map(|_| ())
    }

    async fn blocked_until(&self, email: &EmailAddress, now: i64) -> StoreResult<Option<i64>> {
        let row: Option<(i64,)> = self.first(&self.statements.accounts.block, (email.as_str(),)).await?;
        Ok(row.map(|(until,)| until).filter(|until| *until > now))
    }
}

#[async_trait]
impl SuspensionRepo for CqlStore {
    async fn suspend(&self, user_id: &UserId, since: i64) -> StoreResult<()> {
        self.run(&self.statements.accounts.suspend, (user_id.as_str(), since)).await.map(|_| ())
    }

    async fn lift(&self, user_id: &UserId) -> StoreResult<bool> {
        let existed = self.suspended_since(user_id).await?.is_some();
        self.run(&self.statements.accounts.lift, (user_id.as_str(),)).await?;
        Ok(existed)
    }

    async fn suspended_since(&self, user_id: &UserId) -> StoreResult<Option<i64>> {
        let row: Option<(i64,)> = self.first(&self.statements.accounts.suspension, (user_id.as_str(),)).await?;
        Ok(row.map(|(since,)| since))
    }
}
