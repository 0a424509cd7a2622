//! Finding, creating and deleting accounts, and the shapes the browser sees of them.

use amora_actors::moderation::Surface;
use amora_domain::account::{EmailAddress, User, UserId, UserNo, generated_user_name};
use amora_store::{NewUser, StoreError, UserChange};
use rand::Rng;
use serde::Serialize;
use ts_rs::TS;

use super::now;
use crate::api::ApiError;
use crate::state::AppState;

/// `UserInfo` of API.md §4.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UserInfo {
    user_id: String,
    user_no: String,
    user_name: String,
    email: Option<String>,
    discord_email: Option<String>,
    apple_email: Option<String>,
    /// 0 free, above 0 paid.
    #[ts(type = "number")]
    user_vip_type: i64,
    coin: amora_domain::money::Coins,
    user_avatar: String,
    utm_source: String,
    #[ts(type = "GenderValue")]
    interested_gender: u8,
    nsfw: bool,
}

impl From<&User> for UserInfo {
    fn from(user: &User) -> Self {
        let text = |email: &Option<EmailAddress>| email.as_ref().map(ToString::to_string);
        Self {
            user_id: user.user_id.to_string(),
            user_no: user.user_no.as_str().to_owned(),
            user_name: user.user_name.clone(),
            email: text(&user.email),
            discord_email: text(&user.discord_email),
            apple_email: text(&user.apple_email),
            user_vip_type: user.user_vip_type,
            coin: user.coin,
            user_avatar: user.user_avatar.clone(),
            utm_source: user.utm_source.clone(),
            interested_gender: user.interested_gender.code(),
            nsfw: user.nsfw,
        }
    }
}

/// `UserDetail`: what the settings screen needs beyond `UserInfo` (docs/api.md).
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UserDetail {
    #[serde(flatten)]
    info: UserInfo,
    language: String,
    has_password: bool,
    google_linked: bool,
    discord_linked: bool,
    /// Seconds since the epoch.
    #[ts(type = "number")]
    created_at: i64,
}

impl From<&User> for UserDetail {
    fn from(user: &User) -> Self {
        Self {
            info: UserInfo::from(user),
            language: user.language.clone(),
            has_password: user.password_hash.is_some(),
            google_linked: user.google_subject.is_some(),
            discord_linked: user.discord_id.is_some(),
            created_at: user.created_at,
        }
    }
}

/// What is known about a person signing up, besides how they proved who they are.
pub struct Signup {
    pub email: Option<EmailAddress>,
    pub discord_email: Option<EmailAddress>,
    pub google_subject: Option<String>,
    pub discord_id: Option<String>,
    /// The first display name when one is known (a provider's profile name, the
    /// operator's choice); else the account gets a generated one, never its address.
    pub user_name: Option<String>,
    pub utm_source: String,
    pub language: String,
}

/// Answers `reRegisterWait` when any of the addresses was deleted within the block period.
pub async fn ensure_not_blocked(state: &AppState, emails: &[&EmailAddress]) -> Result<(), ApiError> {
    for email in emails {
        if state.store.deletion_blocks.blocked_until(email, now()).await?.is_some() {
            return Err(ApiError::ReRegisterWait);
        }
    }
    Ok(())
}

/// Creates an account with a fresh id and `userNo`, retrying on the rare `userNo` clash.
/// A first display name it came with (a provider's profile name, the operator's choice)
/// passes moderation like one the user sets, as it goes into greetings and prompts; a
/// refused one, or none, becomes a generated name ("Sunny Otter", from the account's id)
/// rather than stopping the sign-up. An address's local part is never used: characters
/// would call the person by it and write memories about it (issue 30).
pub async fn create(state: &AppState, mut signup: Signup) -> Result<User, ApiError> {
    let blocked: Vec<&EmailAddress> = signup.email.iter().chain(signup.discord_email.iter()).collect();
    ensure_not_blocked(state, &blocked).await?;
    if let Some(name) = &signup.user_name
        && state.node.moderator.check(Surface::DisplayName, None, name).await.is_err()
    {
        signup.user_name = None;
    }
    const ATTEMPTS: usize = 5;
    for _ in 0..ATTEMPTS {
        let (id, number) = {
            let mut rng = rand::thread_rng();
            let id: String = (0..20).map(|_| rng.sample(rand::distributions::Alphanumeric) as char).collect();
            (id, rng.r#gen::<u32>())
        };
        let user_id = UserId::parse(&id)?;
        let new_user = NewUser {
            user_name: signup.user_name.clone().unwrap_or_else(|| generated_user_name(&user_id)),
            user_id,
            user_no: UserNo::from_random(number),
            email: signup.email.clone(),
            discord_email: signup.discord_email.clone(),
            google_subject: signup.google_subject.clone(),
            discord_id: signup.discord_id.clone(),
            utm_source: signup.utm_source.clone(),
            language: signup.language.clone(),
            created_at: now(),
        };
        match state.store.users.create(new_user).await {
            Ok(user) => {
                tracing::info!(user = %user.user_id, "account created");
                return grant_new_account_coins(state, user).await;
            }
            Err(StoreError::Conflict("userNo")) => continue,
            Err(other) => return Err(other.into()),
        }
    }
    Err(ApiError::Internal("no free userNo after several attempts".into()))
}

/// The account of `email`, created on first use. Two first uses racing end with one account.
pub async fn find_or_create_by_email(
    state: &AppState,
    email: &EmailAddress,
    utm_source: &str,
) -> Result<User, ApiError> {
    if let Some(user) = state.store.users.by_email(email).await? {
        return Ok(user);
    }
    let signup = Signup {
        email: Some(email.clone()),
        discord_email: None,
        google_subject: None,
        discord_id: None,
        user_name: None,
        utm_source: utm_source.to_owned(),
        language: "en".into(),
    };
    match create(state, signup).await {
        Ok(user) => Ok(user),
        // A concurrent first use created it between our look-up and insert.
        Err(error) => match state.store.users.by_email(email).await? {
            Some(user) => Ok(user),
            None => Err(error),
        },
    }
}

/// Deletes the account and its data, revokes its sessions everywhere, and blocks its
/// addresses from registering again for the block period.
pub async fn delete(state: &AppState, user: &User) -> Result<(), ApiError> {
    let until = now() + state.settings.accounts.deletion_block_secs;
    for email in user.emails() {
        state.store.deletion_blocks.block(&email, until).await?;
    }
    // Its characters (and their portraits, conversations, memories and images) first: a
    // failure here leaves the account in place, to be deleted again.
    let characters = crate::creation::delete_all_of(state, &user.user_id).await?;
    state.store.users.delete(&user.user_id).await?;
    // After the account is gone, so no session can be made for it in between.
    super::session::end(state, &user.user_id, super::session::Ending::All).await?;
    // Every node's actor of the user reads the account again (and finds it gone).
    state.node.account_changed(&user.user_id).await;
    tracing::info!(user = %user.user_id, characters, "account deleted");
    Ok(())
}

/// Suspends an account (operators; later, reports): it cannot sign in, every session ends
/// and every socket closes, on every node. Idempotent.
pub async fn suspend(state: &AppState, user: &User) -> Result<(), ApiError> {
    state.store.suspensions.suspend(&user.user_id, now()).await?;
    super::session::end(state, &user.user_id, super::session::Ending::All).await?;
    tracing::info!(user = %user.user_id, "account suspended");
    Ok(())
}

/// Lifts a suspension; false when the account was not suspended.
pub async fn unsuspend(state: &AppState, user: &User) -> Result<bool, ApiError> {
    let lifted = state.store.suspensions.lift(&user.user_id).await?;
    if lifted {
        tracing::info!(user = %user.user_id, "account suspension lifted");
    }
    Ok(lifted)
}

/// Applies a change through the user's actor and returns the account as it now is.
pub async fn update(state: &AppState, user: &User, change: UserChange) -> Result<User, ApiError> {
    state.node.update_account(&user.user_id, change).await?.ok_or(ApiError::TokenInvalid)
}

/// Which provider vouched for an identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Google,
    Discord,
}

/// The account of a provider identity: found by the provider's id, else by its verified
/// email (and linked), else created.
pub async fn find_or_create_by_identity(
    state: &AppState,
    provider: Provider,
    identity: super::oauth::ProvenIdentity,
    utm_source: &str,
) -> Result<User, ApiError> {
    let users = &state.store.users;
    let existing = match provider {
        Provider::Google => users.by_google_subject(&identity.subject).await?,
        Provider::Discord => users.by_discord_id(&identity.subject).await?,
    };
    if let Some(user) = existing {
        return Ok(user);
    }
    let link = match provider {
        Provider::Google => UserChange::LinkGoogle { subject: identity.subject.clone() },
        Provider::Discord => UserChange::LinkDiscord {
            discord_id: identity.subject.clone(),
            discord_email: identity.verified_email.clone(),
        },
    };
    if let Some(email) = &identity.verified_email
        && let Some(user) = users.by_email(email).await?
    {
        return update(state, &user, link).await;
    }
    // A provider's profile name is one the person chose to show; their address is not.
    let name = identity.name.as_deref().and_then(|name| amora_domain::account::parse_user_name(name).ok());
    let (email, discord_email, google_subject, discord_id) = match provider {
        Provider::Google => (identity.verified_email, None, Some(identity.subject), None),
        Provider::Discord => (None, identity.verified_email, None, Some(identity.subject)),
    };
    create(
        state,
        Signup {
            email,
            discord_email,
            google_subject,
            discord_id,
            user_name: name,
            utm_source: utm_source.to_owned(),
            language: "en".into(),
        },
    )
    .await
}

/// New accounts start with `accounts.new_account_coins`, granted through the ledger like
/// any other credit (idempotent per account).
async fn grant_new_account_coins(state: &AppState, user: User) -> Result<User, ApiError> {
    let coins = state.settings.accounts.new_account_coins;
    if coins <= 0 {
        return Ok(user);
    }
    let coins = amora_domain::money::Coins::change(coins).map_err(|e| ApiError::Internal(e.to_string()))?;
    let txn_id = amora_domain::money::TxnId::derived("new-account-grant", &[]);
    state.node.credit(&user.user_id, coins, "new account grant", txn_id).await?;
    Ok(state.node.account(&user.user_id).await?.unwrap_or(user))
}
