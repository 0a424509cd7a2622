//! Amora's storage: one repository trait per aggregate, so that the embedded store (a
//! single SQLite file, the default) and a ScyllaDB store can stand behind the same calls.
//!
//! Traits are shaped with a wide-column store in mind: every read names its partition
//! (a gender's catalogue, one media id, one user) and lists come back in clustering order.

use std::sync::Arc;

use amora_domain::account::{EmailAddress, User, UserId, UserNo};
use amora_domain::blog::{BlogDate, BlogKey, BlogPost};
use amora_domain::character::{Character, CharacterCard, CharacterId, CharacterStatus, Exposure};
use amora_domain::chat::{EntryId, MemoryId, MessageId, Speaker};
use amora_domain::creation::{Draft, MyCharacter, Visibility};
use amora_domain::gender::Gender;
use amora_domain::money::{Coins, TxnId};
use amora_domain::paging::PageRequest;
use amora_domain::payment::{Order, OrderId, OrderState, PaymentRoute, Subscription, SubscriptionId};
use amora_domain::persona::UserPersona;
use amora_domain::report::{Report, ReportReason};
use amora_domain::tag::TagFilter;
use amora_domain::telemetry::{ErrorReport, PageEvent};
use amora_domain::viewer::Viewer;
use async_trait::async_trait;

pub mod cql;
pub mod embedded;
pub mod listing;
pub mod media_url;
pub mod pending;
pub mod seed;

pub use media_url::{image_media_url, load_media_url_key, media_id_for_url};
pub use pending::{PendingDebit, PendingDebitRepo};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or answered with an error.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Stored data could not be read back into a domain value.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// A unique field (named) already holds this value.
    #[error("{0} is already taken")]
    Conflict(&'static str),
    /// A media object larger than [`MAX_MEDIA_BYTES`] (its size).
    #[error("a media object of {0} bytes is larger than the store keeps")]
    TooLarge(usize),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A character as it goes into the catalogue, with its place in the listing order.
#[derive(Debug, Clone)]
pub struct CatalogueEntry {
    pub character: Character,
    /// Position in the gender's listing; lower comes first.
    pub rank: i64,
}

/// The character catalogue, partitioned by gender and ordered by rank.
#[async_trait]
pub trait CharacterRepo: Send + Sync {
    /// One page of the cards `viewer` may see in `gender`'s catalogue: `Public` characters
    /// only (seeded ones by rank, then approved created ones, newest approval first).
    async fn list_cards(&self, gender: Gender, viewer: Viewer, page: PageRequest) -> StoreResult<Vec<CharacterCard>>;
    /// One page of the cards `viewer` may see in `gender`'s catalogue that carry at least one
    /// of `tags` (case-insensitive): those sharing more of the tags first, then listing order.
    /// Read from a tag index kept by `upsert`, never by scanning the catalogue.
    async fn list_cards_tagged(
        &self,
        gender: Gender,
        tags: &TagFilter,
        viewer: Viewer,
        page: PageRequest,
    ) -> StoreResult<Vec<CharacterCard>>;
    /// Any character, in any status (with `status`, `creator_id` and card extras): callers
    /// showing it check who may see it.
    async fn get(&self, id: &CharacterId) -> StoreResult<Option<Character>>;
    /// Inserts or replaces entries (seeding): the catalogue fields, status and card extras;
    /// a character is listed only while its status is `Public`. Created characters are
    /// saved with [`CreatedCharacterRepo::save`].
    async fn upsert(&self, entries: Vec<CatalogueEntry>) -> StoreResult<()>;
    async fn count(&self) -> StoreResult<u64>;
    /// Takes a character out of the catalogue (the operator's moderation) or puts it back;
    /// false when there is no such character. `get` still finds a hidden character, so
    /// callers showing it to the public ask `is_hidden`.
    async fn set_hidden(&self, id: &CharacterId, hidden: bool) -> StoreResult<bool>;
    async fn is_hidden(&self, id: &CharacterId) -> StoreResult<bool>;
    /// Every hidden character's id, in id order.
    async fn hidden(&self) -> StoreResult<Vec<CharacterId>>;
}

/// Where approved created characters start in a gender's listing: after every seeded
/// character (ranked from 0), newest approval first. See [`created_rank`].
pub const CREATED_RANK_BASE: i64 = 1 << 62;

/// The catalogue rank of a created character approved at `approved_at` (ms): larger than
/// any seeded rank, smaller for a later approval, so the newest approval lists first.
pub fn created_rank(approved_at: i64) -> i64 {
    CREATED_RANK_BASE - approved_at.clamp(0, CREATED_RANK_BASE - 1)
}

/// A character a user made with the builder or by importing a card, with what only its
/// creator sees (My AI). `character.creator_id` is always set (the creator's user id);
/// `character.status` decides who sees it: the catalogue (`CharacterRepo::list_cards`,
/// `list_cards_tagged`) holds it only while `Public`, while `CharacterRepo::get` and
/// [`CreatedCharacterRepo::get`] find it in every status (callers check who asks).
/// `character.exposure` is `Restricted` for explicit (NSFW) characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedCharacter {
    pub character: Character,
    /// The builder's draft (for an imported card, the one the server made from it).
    pub draft: Draft,
    /// Made from an imported character card.
    pub imported: bool,
    /// The operator's reason while `Rejected`.
    pub review_reason: Option<String>,
    /// Media objects that are only this character's (its portrait, other pictures): the
    /// store deletes them with the character.
    pub media_ids: Vec<String>,
    /// Milliseconds since the epoch. My AI lists newest `created_at` first.
    pub created_at: i64,
    pub updated_at: i64,
    /// When it took its current status (ms): the submission while in `Review` (the review
    /// queue is oldest first by it), the approval while `Public` (the catalogue lists the
    /// newest approval first, see [`created_rank`]), the decision while `Rejected`.
    pub status_at: i64,
}

impl CreatedCharacter {
    /// The creator's id (`None` only for a record that lost it, which the stores refuse).
    pub fn creator(&self) -> Option<UserId> {
        self.character.creator_id.as_deref().and_then(|id| UserId::parse(id).ok())
    }

    /// The record as My AI shows it to its creator.
    pub fn into_view(self) -> MyCharacter {
        let status = self.character.status;
        MyCharacter {
            nsfw: self.character.exposure == Exposure::Restricted,
            status,
            review_reason: self.review_reason,
            visibility: Visibility::of_status(status),
            draft: self.draft,
            imported: self.imported,
            created_at: self.created_at,
            updated_at: self.updated_at,
            character: self.character,
        }
    }
}

/// What deleting a created character removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletedCharacter {
    pub character_id: CharacterId,
    pub creator_id: UserId,
    /// Its media objects, deleted with it by the store (for the caller's records and for
    /// anything it keeps elsewhere under the same ids).
    pub media_ids: Vec<String>,
}

/// The outcome of [`CreatedCharacterRepo::set_status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusChange {
    /// Moved; the character as it now is.
    Changed(Box<CreatedCharacter>),
    /// No created character has this id.
    NotFound,
    /// It is in another status than the expected one (given); nothing changed.
    Other(CharacterStatus),
}

/// Characters users created: by id, per creator newest first (a creator index on both
/// stores, `characters_by_creator` on CQL), and the review queue oldest first
/// (`characters_in_review` on CQL). Saving keeps the catalogue listings in step with the
/// status: a created character is listed only while `Public`.
#[async_trait]
pub trait CreatedCharacterRepo: Send + Sync {
    /// Creates or replaces (by id) the character with every field as given.
    async fn save(&self, created: CreatedCharacter) -> StoreResult<()>;
    /// Saves a new character as `save` does, only while its creator has fewer than `limit`
    /// other characters: true when saved, false (nothing stored) at the limit. Atomic
    /// (issue 28): of any number of concurrent calls for one creator, on any nodes, no more
    /// save than there is room for. `delete` and `delete_all_of` give the room back.
    async fn save_new(&self, created: CreatedCharacter, limit: u64) -> StoreResult<bool>;
    /// A created character in any status; `None` for an unknown id or a seeded character.
    async fn get(&self, id: &CharacterId) -> StoreResult<Option<CreatedCharacter>>;
    /// One page of `creator`'s characters, newest `created_at` first (ties by id).
    async fn list_by_creator(&self, creator: &UserId, page: PageRequest) -> StoreResult<Vec<CreatedCharacter>>;
    async fn count_by_creator(&self, creator: &UserId) -> StoreResult<u64>;
    /// Deletes the character, its catalogue rows, its review entry and its media
    /// objects; `None` when there was no created character with this id.
    async fn delete(&self, id: &CharacterId) -> StoreResult<Option<DeletedCharacter>>;
    /// Deletes every character of `creator` (account deletion) as `delete` does.
    async fn delete_all_of(&self, creator: &UserId) -> StoreResult<Vec<DeletedCharacter>>;
    /// Moves the character from `from` to `to` at `at` (ms, its new `status_at`) with the
    /// review reason `reason` (kept only for `Rejected`), only when it is in `from`.
    /// `updated_at` stays (the creator's edits set it).
    async fn set_status(
        &self,
        id: &CharacterId,
        from: CharacterStatus,
        to: CharacterStatus,
        reason: Option<String>,
        at: i64,
    ) -> StoreResult<StatusChange>;
    /// The characters waiting for review, oldest submission first, at most `limit`.
    async fn review_queue(&self, limit: u32) -> StoreResult<Vec<CreatedCharacter>>;
}

/// A post as the blog list shows it: everything but the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlogSummary {
    pub key: BlogKey,
    pub title: String,
    pub description: String,
    pub date: BlogDate,
    pub cover: String,
}

impl From<&BlogPost> for BlogSummary {
    fn from(post: &BlogPost) -> Self {
        Self {
            key: post.key.clone(),
            title: post.title.clone(),
            description: post.description.clone(),
            date: post.date.clone(),
            cover: post.cover.clone(),
        }
    }
}

/// Blog posts by key, listed newest first (by date, then key).
#[async_trait]
pub trait BlogRepo: Send + Sync {
    /// Publishes `post`, replacing the post with the same key if there is one.
    async fn put(&self, post: BlogPost) -> StoreResult<()>;
    async fn get(&self, key: &BlogKey) -> StoreResult<Option<BlogPost>>;
    /// One page, newest first.
    async fn list(&self, page: PageRequest) -> StoreResult<Vec<BlogSummary>>;
    async fn count(&self) -> StoreResult<u64>;
    /// Unpublishes; false when there was no such post.
    async fn delete(&self, key: &BlogKey) -> StoreResult<bool>;
}

/// Reports of characters and replies, for the operator.
#[async_trait]
pub trait ReportRepo: Send + Sync {
    async fn add(&self, report: Report) -> StoreResult<()>;
    /// The newest first, at most `limit`.
    async fn recent(&self, limit: u32) -> StoreResult<Vec<Report>>;
}

/// One text that moderation refused: where, under which rule, for whom (issue 27). The
/// operator reads the newest of them; the text is kept cut to [`MODERATION_EXCERPT_CHARS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModerationEvent {
    /// Unique and time-ordered (newest is greatest).
    pub event_id: EntryId,
    /// Seconds since the epoch.
    pub at: i64,
    /// The user whose text it was; `None` for a visitor or the system.
    pub user_id: Option<UserId>,
    /// Where the text came from: a surface's code, such as `imagePrompt` or `cardField`.
    pub surface: String,
    /// The policy's code (`domain::moderation::Policy::code`).
    pub policy: String,
    /// The refusal's code (`domain::moderation::Refusal::code`).
    pub refusal: String,
    /// Which layer refused: `rules` or `classifier`.
    pub layer: String,
    /// The start of the refused text.
    pub excerpt: String,
}

/// How much of a refused text the moderation log keeps.
pub const MODERATION_EXCERPT_CHARS: usize = 300;

/// The moderation log: what was refused, newest first.
#[async_trait]
pub trait ModerationLogRepo: Send + Sync {
    async fn record(&self, event: ModerationEvent) -> StoreResult<()>;
    /// The newest first: events older than `before`, at most `limit`.
    async fn recent(&self, before: Option<EntryId>, limit: u32) -> StoreResult<Vec<ModerationEvent>>;
}

/// A stored image or sound, addressed by id and served at `/media/{id}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaObject {
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// The widths `/media/{id}?w=` serves resized copies at (docs/api.md, "Media variants").
pub const MEDIA_VARIANT_WIDTHS: [u32; 5] = [160, 320, 480, 750, 1080];

/// The largest media object kept (callers have their own, smaller limits, such as
/// `image.max_bytes`; this one protects the store from any caller).
pub const MAX_MEDIA_BYTES: usize = 16 * 1024 * 1024;

/// The storage key of a variant: `@` never appears in a public media id (the server
/// accepts letters, digits, `-` and `_`), so a variant cannot be asked for by its key.
pub(crate) fn variant_key(id: &str, width: u32) -> String {
    format!("{id}@w{width}")
}

pub(crate) fn check_media_size(object: &MediaObject) -> StoreResult<()> {
    if object.bytes.len() > MAX_MEDIA_BYTES {
        return Err(StoreError::TooLarge(object.bytes.len()));
    }
    Ok(())
}

#[async_trait]
pub trait MediaRepo: Send + Sync {
    /// Stores or replaces an object; larger than [`MAX_MEDIA_BYTES`] is refused
    /// ([`StoreError::TooLarge`]).
    async fn put(&self, id: &str, object: MediaObject) -> StoreResult<()>;
    async fn get(&self, id: &str) -> StoreResult<Option<MediaObject>>;
    /// Keeps a resized copy of `id`, at most `width` pixels wide.
    async fn put_variant(&self, id: &str, width: u32, object: MediaObject) -> StoreResult<()>;
    async fn get_variant(&self, id: &str, width: u32) -> StoreResult<Option<MediaObject>>;
    /// Removes the object and every variant of it; true when the object was there.
    async fn delete(&self, id: &str) -> StoreResult<bool>;
}

/// Which message a voice clip speaks: a character's message in a user's conversation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VoiceClipKey {
    pub user_id: UserId,
    pub character_id: CharacterId,
    pub message_id: MessageId,
}

/// Where the synthesis of a clip stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoiceClipState {
    /// Parts are being made (by one node, which claimed the attempt).
    Speaking,
    /// Every part is stored.
    Complete,
    /// The attempt failed (its cost was refunded); a later play starts a new attempt.
    Failed,
}

impl VoiceClipState {
    /// How every store writes the state.
    pub fn code(self) -> &'static str {
        match self {
            VoiceClipState::Speaking => "speaking",
            VoiceClipState::Complete => "complete",
            VoiceClipState::Failed => "failed",
        }
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        match code {
            "speaking" => Ok(VoiceClipState::Speaking),
            "complete" => Ok(VoiceClipState::Complete),
            "failed" => Ok(VoiceClipState::Failed),
            other => Err(StoreError::Corrupt(format!("unknown voice clip state {other:?}"))),
        }
    }
}

/// One stored piece of a clip: a sentence or a few, its audio in the media repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceClipPart {
    /// 0, 1, 2, … in speaking order.
    pub index: u32,
    pub media_id: String,
    pub duration_ms: u64,
}

/// A message's spoken form: the current attempt, where it stands and its parts so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceClip {
    /// 0 for the first attempt; each retry after a failure (or a stalled attempt) adds one.
    pub attempt: u32,
    pub state: VoiceClipState,
    /// When the attempt started (seconds), to tell a stalled one.
    pub started_at: i64,
    /// The attempt's parts, by index.
    pub parts: Vec<VoiceClipPart>,
}

/// Voice clips per (user, conversation message). An attempt is claimed by compare-and-set,
/// so of concurrent first plays on any nodes one synthesises (and charges). Deleting the
/// message, the conversation or the account deletes its clips and their audio.
#[async_trait]
pub trait VoiceClipRepo: Send + Sync {
    async fn clip(&self, key: &VoiceClipKey) -> StoreResult<Option<VoiceClip>>;
    /// Starts attempt `attempt` (state `Speaking`, at `at`), by compare-and-set: with
    /// `replacing = None` only when the message has no clip; with `Some((attempt, state))`
    /// only while the stored clip is at that attempt in that state. True for exactly one of
    /// any number of concurrent calls. The parts of earlier attempts (and their audio) go.
    async fn start_clip(
        &self,
        key: &VoiceClipKey,
        attempt: u32,
        replacing: Option<(u32, VoiceClipState)>,
        at: i64,
    ) -> StoreResult<bool>;
    /// Records a part of `attempt` whose audio is stored already.
    async fn add_clip_part(&self, key: &VoiceClipKey, attempt: u32, part: VoiceClipPart) -> StoreResult<()>;
    /// Ends `attempt` as `Complete` or `Failed`, only while it is the clip's attempt and
    /// `Speaking`; false (nothing changed) otherwise.
    async fn finish_clip(&self, key: &VoiceClipKey, attempt: u32, state: VoiceClipState) -> StoreResult<bool>;
    /// Deletes the clip with every part of every attempt and their audio; false when none.
    async fn delete_clip(&self, key: &VoiceClipKey) -> StoreResult<bool>;
}

/// Browser telemetry and error reports, kept for operators.
#[async_trait]
pub trait TelemetryRepo: Send + Sync {
    async fn record_page_event(&self, event: PageEvent) -> StoreResult<()>;
    async fn record_error_report(&self, report: ErrorReport) -> StoreResult<()>;
    /// The newest error reports first; for operators and tests.
    async fn recent_error_reports(&self, limit: u32) -> StoreResult<Vec<ErrorReport>>;
    async fn recent_page_events(&self, limit: u32) -> StoreResult<Vec<PageEvent>>;
}

/// A new account's fields; the store fills in the defaults of the rest.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub user_id: UserId,
    pub user_no: UserNo,
    pub user_name: String,
    pub email: Option<EmailAddress>,
    pub discord_email: Option<EmailAddress>,
    pub google_subject: Option<String>,
    pub discord_id: Option<String>,
    pub utm_source: String,
    pub language: String,
    pub created_at: i64,
}

/// One change to an account.
#[derive(Debug, Clone)]
pub enum UserChange {
    Profile { user_name: Option<String>, user_avatar: Option<String> },
    Preferences { interested_gender: Option<Gender>, nsfw: Option<bool>, language: Option<String> },
    PasswordHash(String),
    VipType(i64),
    LinkGoogle { subject: String },
    LinkDiscord { discord_id: String, discord_email: Option<EmailAddress> },
}

/// Accounts, unique by id, `userNo`, email and provider identities.
#[async_trait]
pub trait UserRepo: Send + Sync {
    /// Creates the account, or `Conflict("email")` / `Conflict("userNo")` / … when taken.
    async fn create(&self, user: NewUser) -> StoreResult<User>;
    async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>>;
    async fn by_email(&self, email: &EmailAddress) -> StoreResult<Option<User>>;
    async fn by_user_no(&self, user_no: &UserNo) -> StoreResult<Option<User>>;
    async fn by_google_subject(&self, subject: &str) -> StoreResult<Option<User>>;
    async fn by_discord_id(&self, discord_id: &str) -> StoreResult<Option<User>>;
    /// Applies the change and returns the account as it now is (`None` when it is gone).
    async fn update(&self, id: &UserId, change: UserChange) -> StoreResult<Option<User>>;
    /// Deletes the account and everything that is only its own (sessions, conversations,
    /// generated images with their media and feed entries included).
    async fn delete(&self, id: &UserId) -> StoreResult<bool>;
}

/// A signed-in session. Only the SHA-256 of its token is stored, so a copy of the
/// database cannot be used to sign in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub token_hash: String,
    pub user_id: UserId,
    pub created_at: i64,
    pub expires_at: i64,
}

#[async_trait]
pub trait SessionRepo: Send + Sync {
    async fn create(&self, session: SessionRecord) -> StoreResult<()>;
    /// The session, if it exists and has not expired at `now`.
    async fn find_live(&self, token_hash: &str, now: i64) -> StoreResult<Option<SessionRecord>>;
    async fn revoke(&self, token_hash: &str) -> StoreResult<()>;
    async fn revoke_all(&self, user_id: &UserId) -> StoreResult<()>;
    /// Revokes every session of the user except `keep_hash` (a password change keeps the
    /// session it was made in).
    async fn revoke_others(&self, user_id: &UserId, keep_hash: &str) -> StoreResult<()>;
}

/// One-time sign-in links sent by mail (hash of the token, as for sessions).
#[async_trait]
pub trait SignInLinkRepo: Send + Sync {
    async fn create(&self, token_hash: &str, email: &EmailAddress, expires_at: i64) -> StoreResult<()>;
    /// Uses the link: its email if it existed, was unused and live at `now`. Works once.
    async fn consume(&self, token_hash: &str, now: i64) -> StoreResult<Option<EmailAddress>>;
}

/// Emails whose account was deleted recently and may not register again until a time.
#[async_trait]
pub trait DeletionBlockRepo: Send + Sync {
    async fn block(&self, email: &EmailAddress, until: i64) -> StoreResult<()>;
    /// When the block ends, if one is in force at `now`.
    async fn blocked_until(&self, email: &EmailAddress, now: i64) -> StoreResult<Option<i64>>;
}

/// Accounts an operator suspended: they cannot sign in until the suspension is lifted.
#[async_trait]
pub trait SuspensionRepo: Send + Sync {
    /// Suspends the account from `since` (seconds); suspending again keeps the first time.
    async fn suspend(&self, user_id: &UserId, since: i64) -> StoreResult<()>;
    /// Lifts the suspension; true when there was one.
    async fn lift(&self, user_id: &UserId) -> StoreResult<bool>;
    /// Since when the account is suspended, if it is.
    async fn suspended_since(&self, user_id: &UserId) -> StoreResult<Option<i64>>;
}

/// One change of a balance, keyed by an idempotency id: the same `txn_id` applied twice
/// changes the balance once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub user_id: UserId,
    pub txn_id: TxnId,
    /// Positive credits, negative debits.
    pub delta: Coins,
    pub reason: String,
    pub created_at: i64,
}

/// What applying an entry did, with the balance and the ledger's sequence number (rows
/// applied so far) it saw: a balance with a higher `seq` is the newer one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LedgerOutcome {
    /// The entry is new and the balance is now `balance`.
    Applied { balance: Coins, seq: i64 },
    /// An entry with this `txn_id` exists already; nothing changed.
    Replayed { balance: Coins, seq: i64 },
    /// The debit would overdraw; nothing changed.
    Insufficient { balance: Coins, seq: i64 },
    /// No such account.
    NoAccount,
}

/// The append-only coin ledger; the account's balance changes only with a new row, by
/// compare-and-set, so the balance always equals the sum of the rows.
#[async_trait]
pub trait LedgerRepo: Send + Sync {
    async fn apply(&self, entry: LedgerEntry) -> StoreResult<LedgerOutcome>;
    /// Every row of the account, oldest first.
    async fn rows(&self, user_id: &UserId) -> StoreResult<Vec<LedgerEntry>>;
}

/// One message of a conversation as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMessage {
    pub message_id: MessageId,
    pub speaker: Speaker,
    pub content: String,
    /// The picture the message shows (a character's picture asked for in chat).
    pub image: Option<MessageImage>,
}

/// A gallery image shown in a conversation; its bytes are the media object
/// [`image_media_id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageImage {
    pub image_id: EntryId,
    pub width: u32,
    pub height: u32,
}

impl MessageImage {
    /// How every store writes it in one text column: `"<imageId> <width> <height>"`.
    pub fn code(&self) -> String {
        format!("{} {} {}", self.image_id.raw(), self.width, self.height)
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        let corrupt = || StoreError::Corrupt(format!("bad message image {code:?}"));
        let mut parts = code.split(' ');
        let mut next = || parts.next().ok_or_else(corrupt);
        let image_id = EntryId::from_raw(next()?.parse().map_err(|_| corrupt())?);
        let width = next()?.parse().map_err(|_| corrupt())?;
        let height = next()?.parse().map_err(|_| corrupt())?;
        Ok(Self { image_id, width, height })
    }
}

/// The media id of a generated image's bytes; it is served only at its capability address
/// ([`media_url::image_media_url`], `/media/img-<imageId>-<tag>`).
pub fn image_media_id(image_id: EntryId) -> String {
    format!("img-{}", image_id.raw())
}

/// A conversation in the user's chat list: the character and its newest message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationSummary {
    pub character_id: CharacterId,
    pub last_message: StoredMessage,
}

/// Conversations, one per user–character pair, partitioned by that pair and clustered by
/// message id (time), newest first. A conversation exists while it has messages.
///
/// The user's messages are in the pair's recall index ([`RecallRepo`]) while they exist:
/// `append` indexes one, `update_message` indexes its new text instead of the old, and
/// `delete_messages` and `delete` take them out. The character's messages are not indexed:
/// recall brings back what the user said.
#[async_trait]
pub trait ConversationRepo: Send + Sync {
    async fn append(&self, user_id: &UserId, character_id: &CharacterId, message: StoredMessage) -> StoreResult<()>;
    /// Newest first: the messages older than `before` (all when `None`), at most `limit`.
    async fn messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        before: Option<MessageId>,
        limit: u32,
    ) -> StoreResult<Vec<StoredMessage>>;
    /// Replaces a message's text; false when there is no such message.
    async fn update_message(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_id: MessageId,
        content: &str,
    ) -> StoreResult<bool>;
    /// Deletes messages by id (and their voice clips); how many existed.
    async fn delete_messages(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        message_ids: &[MessageId],
    ) -> StoreResult<u64>;
    /// The user's conversations, the most recently active first.
    async fn list(&self, user_id: &UserId) -> StoreResult<Vec<ConversationSummary>>;
    /// Deletes the conversation with all its messages and their voice clips; false when it
    /// had no message.
    async fn delete(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<bool>;
}

/// The versions of one reply (swipes): every text written for the reply to one user message
/// (its parent), oldest first, and which one the conversation holds. Kept by parent so that
/// branching can come later; a reply nobody wrote again has none stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyAlternatives {
    pub parent_id: MessageId,
    /// Index into `texts` of the version the conversation holds.
    pub chosen: u32,
    pub texts: Vec<String>,
}

/// Reply versions per user–character pair, keyed by the parent message they answer, with
/// the chosen index. The conversation's own message row holds the chosen text; these are
/// what the user may switch between.
#[async_trait]
pub trait ReplyAlternativeRepo: Send + Sync {
    /// The versions of the reply to `parent_id`; `None` when none are stored.
    async fn alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
    ) -> StoreResult<Option<ReplyAlternatives>>;
    /// Stores `content` as the next version of the reply to `parent_id` and makes it the
    /// chosen one; answers its index (0 for the first).
    async fn add_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        content: &str,
    ) -> StoreResult<u32>;
    /// Makes version `index` the chosen one; false when there is no such version.
    async fn choose_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
    ) -> StoreResult<bool>;
    /// Replaces the text of version `index` (the reply was continued); false when there is
    /// no such version.
    async fn set_alternative(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_id: MessageId,
        index: u32,
        content: &str,
    ) -> StoreResult<bool>;
    /// Deletes the versions of the replies to `parent_ids` (those messages were deleted).
    async fn delete_alternatives(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        parent_ids: &[MessageId],
    ) -> StoreResult<()>;
    /// Deletes every reply version of the pair (the conversation was deleted).
    async fn delete_pair_alternatives(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<()>;
}

/// How a memory came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryOrigin {
    /// Extracted from the conversation by the chat model.
    Extracted,
    /// Written or edited by the user.
    User,
}

impl MemoryOrigin {
    /// How every store writes the origin.
    pub fn code(self) -> &'static str {
        match self {
            MemoryOrigin::Extracted => "extracted",
            MemoryOrigin::User => "user",
        }
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        match code {
            "extracted" => Ok(MemoryOrigin::Extracted),
            "user" => Ok(MemoryOrigin::User),
            other => Err(StoreError::Corrupt(format!("unknown memory origin {other:?}"))),
        }
    }
}

/// A fact about the user that a character keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    pub memory_id: MemoryId,
    pub content: String,
    pub origin: MemoryOrigin,
    /// The user pinned it: it enters every prompt of the pair.
    pub pinned: bool,
}

/// Long-term memories, partitioned by user–character pair, newest first. Memories are in
/// the pair's recall index ([`RecallRepo`]) while they exist, with their current text.
#[async_trait]
pub trait MemoryRepo: Send + Sync {
    /// Pins or unpins a memory; false when there is no such memory.
    async fn set_pinned(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        pinned: bool,
    ) -> StoreResult<bool>;
    async fn add(&self, user_id: &UserId, character_id: &CharacterId, memory: Memory) -> StoreResult<()>;
    /// Newest first.
    async fn list(&self, user_id: &UserId, character_id: &CharacterId) -> StoreResult<Vec<Memory>>;
    /// Replaces the text (the memory becomes the user's); false when there is no such memory.
    async fn update(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        memory_id: MemoryId,
        content: &str,
    ) -> StoreResult<bool>;
    async fn delete(&self, user_id: &UserId, character_id: &CharacterId, memory_id: MemoryId) -> StoreResult<bool>;
}

/// A persona of the user's (issue 18) with the character it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPersona {
    /// `None`: the persona for every character (the one set in settings).
    pub character_id: Option<CharacterId>,
    pub persona: UserPersona,
}

/// The user's personas: at most one for every character and one per character, all in the
/// user's one partition, so a single read finds which applies where. Deleting the account
/// deletes them (`UserRepo::delete`).
#[async_trait]
pub trait PersonaRepo: Send + Sync {
    /// Every persona of the user: the one for every character first, then by character id.
    async fn personas(&self, user_id: &UserId) -> StoreResult<Vec<StoredPersona>>;
    /// Creates or replaces the persona for `character` (`None`: every character).
    async fn put_persona(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        persona: UserPersona,
    ) -> StoreResult<()>;
    /// Removes the persona for `character` (`None`: every character); false when there was none.
    async fn delete_persona(&self, user_id: &UserId, character: Option<&CharacterId>) -> StoreResult<bool>;
}

/// How both stores write "every character" where a character id goes (no id is empty).
pub(crate) fn persona_key(character: Option<&CharacterId>) -> String {
    character.map(|id| id.as_str().to_owned()).unwrap_or_default()
}

/// The character a stored persona key names (`""`: every character).
pub(crate) fn persona_character(key: &str) -> StoreResult<Option<CharacterId>> {
    if key.is_empty() {
        return Ok(None);
    }
    CharacterId::parse(key).map(Some).map_err(|e| StoreError::Corrupt(format!("persona of {key:?}: {e}")))
}

/// What the recall index holds: the user's messages and the pair's memories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecallKind {
    Message,
    Memory,
}

impl RecallKind {
    /// How every store writes the kind.
    pub fn code(self) -> &'static str {
        match self {
            RecallKind::Message => "message",
            RecallKind::Memory => "memory",
        }
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        match code {
            "message" => Ok(RecallKind::Message),
            "memory" => Ok(RecallKind::Memory),
            other => Err(StoreError::Corrupt(format!("unknown recall kind {other:?}"))),
        }
    }
}

/// One document holding one term, as the index keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecallPosting {
    pub term: String,
    pub kind: RecallKind,
    pub id: EntryId,
    /// How often the term occurs in the document.
    pub count: u32,
    /// The document's length in terms.
    pub length: u32,
}

/// What a lookup in a pair's recall index found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecallMatches {
    /// The postings of the terms asked for, in no particular order.
    pub postings: Vec<RecallPosting>,
    /// How many messages the pair's index holds and their total length in terms.
    pub messages: amora_domain::recall::CollectionSize,
    /// The same for memories.
    pub memories: amora_domain::recall::CollectionSize,
}

/// The recall index of each user–character pair: an inverted index (per term, the
/// documents holding it, with counts and lengths) over the user's messages and the pair's
/// memories, kept by [`ConversationRepo`] and [`MemoryRepo`] as they change (terms by
/// `amora_domain::recall::term_counts`). Scoring is the caller's
/// (`amora_domain::recall::bm25`), so every store ranks alike.
#[async_trait]
pub trait RecallRepo: Send + Sync {
    /// The postings of `terms` in the pair's index and the size of each of its collections.
    async fn recall(
        &self,
        user_id: &UserId,
        character_id: &CharacterId,
        terms: &[String],
    ) -> StoreResult<RecallMatches>;
}

/// Free message credits: how many messages a user sent on a UTC day.
#[async_trait]
pub trait MessageCreditRepo: Send + Sync {
    /// Takes one of `limit` credits of `day` (days since the epoch): the number used
    /// afterwards, or `None` when all were used already. Atomic across nodes.
    async fn take(&self, user_id: &UserId, day: i64, limit: u32) -> StoreResult<Option<u32>>;
    /// Gives a credit back (the message was refused or its reply failed).
    async fn give_back(&self, user_id: &UserId, day: i64) -> StoreResult<()>;
    async fn used(&self, user_id: &UserId, day: i64) -> StoreResult<u32>;
}

/// A generated image as the gallery keeps it; its bytes are the media object
/// [`image_media_id`]. Ids are time-ordered (`EntryId`), so the newest sort first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GalleryRecord {
    pub image_id: EntryId,
    pub job_id: EntryId,
    /// The owner; never shown to anyone else.
    pub user_id: UserId,
    pub character_id: Option<CharacterId>,
    /// The character's name when the image was made.
    pub character_name: Option<String>,
    /// The user's own words (empty when only presets were chosen).
    pub prompt: String,
    pub scene: Option<String>,
    pub outfit: Option<String>,
    pub pose: Option<String>,
    pub style: Option<String>,
    pub width: u32,
    pub height: u32,
    /// Made with an explicit preset.
    pub nsfw: bool,
    /// Drawn by the embedded illustrator rather than a photo model.
    pub illustration: bool,
    /// Restricted exposure in the public feed: explicit, or of a restricted character.
    pub restricted: bool,
    /// The feed entry's id while the image is shared (time-ordered: when it was shared).
    pub feed_id: Option<EntryId>,
}

/// An image in the public feed, newest share first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEntry {
    pub feed_id: EntryId,
    pub image_id: EntryId,
    /// Who shared it: for the operator, never sent to clients.
    pub owner: UserId,
    pub character_id: Option<CharacterId>,
    pub character_name: Option<String>,
    pub prompt: String,
    pub width: u32,
    pub height: u32,
    pub restricted: bool,
}

/// A character the user has images of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GalleryCharacter {
    pub character_id: CharacterId,
    pub count: u64,
    /// The newest image of the character (the list is ordered by it, newest first).
    pub newest_image_id: EntryId,
}

/// Users' generated images, newest first, per user and per user and character, and the
/// public feed of shared ones. Deleting an account deletes its images (`UserRepo::delete`).
#[async_trait]
pub trait GalleryRepo: Send + Sync {
    async fn add(&self, image: GalleryRecord) -> StoreResult<()>;
    async fn get(&self, user_id: &UserId, image_id: EntryId) -> StoreResult<Option<GalleryRecord>>;
    /// Newest first: the user's images (of `character` only, when given) older than
    /// `before`, at most `limit`.
    async fn list(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        before: Option<EntryId>,
        limit: u32,
    ) -> StoreResult<Vec<GalleryRecord>>;
    /// The characters the user has images of, with how many; the most recent first.
    async fn characters(&self, user_id: &UserId) -> StoreResult<Vec<GalleryCharacter>>;
    /// Shares the image under the new feed id `feed_id`, or (`None`) takes it out of the
    /// feed; the image as it now is, `None` when the user has no such image. Sharing a
    /// shared image keeps its first feed entry.
    async fn set_shared(
        &self,
        user_id: &UserId,
        image_id: EntryId,
        feed_id: Option<EntryId>,
    ) -> StoreResult<Option<GalleryRecord>>;
    /// Deletes the image's record, its feed entry and its bytes (the media object
    /// [`image_media_id`]); false when the user has no such image.
    async fn delete(&self, user_id: &UserId, image_id: EntryId) -> StoreResult<bool>;
    /// The feed, newest share first: entries older than `before` (a feed id), at most
    /// `limit`; restricted entries only when `include_restricted`.
    async fn feed(&self, before: Option<EntryId>, limit: u32, include_restricted: bool) -> StoreResult<Vec<FeedEntry>>;
    /// One feed entry by its id, restricted or hidden or not (the operator's moderation).
    async fn feed_entry(&self, feed_id: EntryId) -> StoreResult<Option<FeedEntry>>;
}

/// A user's report of an image in the public feed (issue 27). One per reporter and image:
/// a reporter's later report of the same image replaces their earlier one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedReport {
    /// Time-ordered, as message ids are; a reporter's later report replaces it.
    pub report_id: EntryId,
    /// The image's owner and id: reports follow the image, not one share of it, so that
    /// taking an image out of the feed and sharing it again does not shed them.
    pub owner: UserId,
    pub image_id: EntryId,
    pub reporter_id: UserId,
    pub reason: ReportReason,
    pub note: String,
    /// Seconds since the epoch.
    pub created_at: i64,
}

/// A feed entry as the operator moderates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeratedFeedEntry {
    pub entry: FeedEntry,
    /// Distinct reporters since the operator last restored the image.
    pub reports: u32,
    /// When it was taken out of the feed (seconds), while it is.
    pub hidden_at: Option<i64>,
}

/// Which feed entries the operator lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedFilter {
    All,
    /// Reported or hidden: what awaits the operator's decision.
    Flagged,
    Hidden,
}

/// Reports of feed images and the hold that keeps an image out of the feed until the
/// operator decides (issue 27). A held image is in no page of `GalleryRepo::feed`,
/// whoever reads it, shared again or not; `GalleryRepo::delete` and deleting its owner's
/// account take its reports and hold with it.
#[async_trait]
pub trait FeedModerationRepo: Send + Sync {
    /// Records the report; answers how many distinct reporters the image now has (the
    /// same reporter twice counts once).
    async fn report(&self, report: FeedReport) -> StoreResult<u32>;
    /// Takes the image out of the feed (again: no change) until `restore`.
    async fn hide(&self, owner: &UserId, image_id: EntryId, at: i64) -> StoreResult<()>;
    /// The operator's "keep it": the image is back in the feed (if still shared) and its
    /// reports are cleared, so that hiding it again takes as many new reporters.
    async fn restore(&self, owner: &UserId, image_id: EntryId) -> StoreResult<()>;
    /// Whether the image is held out of the feed.
    async fn is_hidden(&self, owner: &UserId, image_id: EntryId) -> StoreResult<bool>;
    /// The feed as the operator sees it, newest share first: entries older than `before`
    /// (a feed id), at most `limit`, restricted and hidden ones included, with their
    /// reports and hold; only flagged or hidden ones when `filter` says so.
    async fn list(
        &self,
        before: Option<EntryId>,
        limit: u32,
        filter: FeedFilter,
    ) -> StoreResult<Vec<ModeratedFeedEntry>>;
}

/// What a provider's transaction did, as a payment claim records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaymentClaimKind {
    /// The money of an order arrived (a capture, a finished invoice, a notification).
    Payment,
    /// The money of a paid order went back (a refund or a chargeback).
    Refund,
    /// A subscription's provider charged another period.
    Renewal,
}

impl PaymentClaimKind {
    pub const ALL: [PaymentClaimKind; 3] =
        [PaymentClaimKind::Payment, PaymentClaimKind::Refund, PaymentClaimKind::Renewal];

    /// How every store writes the kind.
    pub fn code(self) -> &'static str {
        match self {
            PaymentClaimKind::Payment => "payment",
            PaymentClaimKind::Refund => "refund",
            PaymentClaimKind::Renewal => "renewal",
        }
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        PaymentClaimKind::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown payment claim kind {code:?}")))
    }

    /// Which claims exclude each other. Money in (a payment, a renewal) is one space, so a
    /// sale reported once as the first payment and once as a renewal credits once; money
    /// out is another, because some providers report a refund under the payment's own id
    /// (NOWPayments' `payment_id` keeps its id through `refunded`).
    pub fn space(self) -> &'static str {
        match self {
            PaymentClaimKind::Payment | PaymentClaimKind::Renewal => "in",
            PaymentClaimKind::Refund => "out",
        }
    }
}

/// One reversal of an order (a refund or a chargeback), as [`OrderRepo::reverse`] records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reversal {
    /// The provider's id of the refund or chargeback: a reversal counts once by it.
    pub provider_txn_id: String,
    /// The money it gave back, in the order's minor units.
    pub refunded_minor: i64,
    /// The order's price, in the same units.
    pub price_minor: i64,
    /// What the order credited (its ledger row; zero when it never did).
    pub credited: Coins,
    /// Seconds since the epoch.
    pub at: i64,
}

/// What an order's reversals gave back so far: money (capped at its price) and coins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReversalTotals {
    pub refunded_minor: i64,
    pub reversed: Coins,
}

/// The totals after `reversal`, given the totals `before` it (issue 28): the money given
/// back adds up to at most the price, and the coins taken back are that share of what the
/// order credited, rounded down, so that together they never pass `credited` (and the
/// whole price back takes back all of it, to the last coin). Never less than before.
pub fn reversal_totals(before: ReversalTotals, reversal: &Reversal) -> ReversalTotals {
    let price = reversal.price_minor.max(0);
    let refunded_minor = before.refunded_minor.saturating_add(reversal.refunded_minor.max(0)).clamp(0, price);
    let credited = reversal.credited.units().max(0);
    let due =
        if price == 0 { 0 } else { (i128::from(credited) * i128::from(refunded_minor) / i128::from(price)) as i64 };
    ReversalTotals { refunded_minor, reversed: Coins::stored(due.max(before.reversed.units())) }
}

/// A provider transaction, claimed once for one order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentClaim {
    pub route: PaymentRoute,
    /// The provider's id of the money movement (capture, sale, invoice payment, refund).
    pub provider_txn_id: String,
    pub order_id: OrderId,
    pub kind: PaymentClaimKind,
    /// Seconds since the epoch.
    pub claimed_at: i64,
}

/// Orders, by id, by the provider's reference and per user newest first (by `created_at`,
/// ties by the greater id), and the claims of provider transactions that make each payment
/// count once.
///
/// Orders are financial records: deleting an account leaves its orders and payment claims
/// in place (with the deleted user's id, which is never given to another account), for
/// refunds, chargebacks and the books. They hold no name, email or address, only the id.
#[async_trait]
pub trait OrderRepo: Send + Sync {
    /// Stores a new order as given; `Conflict("orderId")` when the id is taken.
    async fn create(&self, order: Order) -> StoreResult<()>;
    async fn get(&self, id: &OrderId) -> StoreResult<Option<Order>>;
    /// The order that carries the provider's reference `provider_ref` on `route`.
    async fn by_provider_ref(&self, route: PaymentRoute, provider_ref: &str) -> StoreResult<Option<Order>>;
    /// Records the provider's id of the order (set once): true when the order now carries
    /// `provider_ref` (set now, or set to it before), false when there is no such order or
    /// it carries another one. `Conflict("providerRef")` when another order of the same
    /// route carries it.
    async fn set_provider_ref(&self, id: &OrderId, provider_ref: &str) -> StoreResult<bool>;
    /// Moves the order from `from` to `to` at `at` (its `updated_at`), by compare-and-set:
    /// only when it is stored in `from` and `from.may_become(to)`. True when this call moved
    /// it; false (nothing changed) otherwise. Of any number of concurrent calls on any nodes,
    /// one moves it.
    async fn transition(&self, id: &OrderId, from: OrderState, to: OrderState, at: i64) -> StoreResult<bool>;
    /// The user's newest orders first, at most `limit` (the operator's listing too).
    async fn list_for_user(&self, user_id: &UserId, limit: u32) -> StoreResult<Vec<Order>>;
    /// The user's newest order (`getUserLastFlowId`).
    async fn latest_for_user(&self, user_id: &UserId) -> StoreResult<Option<Order>>;
    /// Claims the provider transaction `provider_txn_id` on `route` for `order_id`: true for
    /// exactly one of any number of concurrent calls, false for every other, ever. Claims
    /// are unique per route and per `kind.space()`: a payment and a renewal exclude each
    /// other, a refund is claimed apart.
    ///
    /// A caller that made the claim and then failed before finishing its work leaves the
    /// claim taken; a redelivery reads it back with `payment_claim` and, when it names the
    /// same order, may finish the work, which must itself be idempotent (a ledger row keyed
    /// by the claim).
    async fn claim_payment(
        &self,
        route: PaymentRoute,
        provider_txn_id: &str,
        order_id: &OrderId,
        kind: PaymentClaimKind,
        at: i64,
    ) -> StoreResult<bool>;
    /// The claim of `provider_txn_id` on `route` in `kind`'s space, whichever kind took it.
    async fn payment_claim(
        &self,
        route: PaymentRoute,
        kind: PaymentClaimKind,
        provider_txn_id: &str,
    ) -> StoreResult<Option<PaymentClaim>>;
    /// The claims made for an order (its payment, renewals, refunds), oldest first; what a
    /// refund names at the processor.
    async fn claims_of(&self, order_id: &OrderId) -> StoreResult<Vec<PaymentClaim>>;
    /// Records a reversal of the order and answers the coins it takes back: the growth of
    /// [`reversal_totals`] over the order's earlier reversals, so that all of them together
    /// never take back more than the order credited (issue 28). Atomic: of concurrent
    /// reversals of one order on any nodes, each sees the others'. The same
    /// `provider_txn_id` again answers what it took the first time and changes nothing.
    async fn reverse(&self, order_id: &OrderId, reversal: Reversal) -> StoreResult<Coins>;
    /// What the order's reversals gave back so far.
    async fn reversed(&self, order_id: &OrderId) -> StoreResult<ReversalTotals>;
}

/// Plans bought as subscriptions, by id, by the provider's reference and per user newest
/// first (by `created_at`, ties by the greater id). Their state changes only by the
/// compare-and-set methods below, each of which answers whether it applied; of concurrent
/// calls that would make the same change, one applies.
///
/// Like orders, subscriptions stay when the account is deleted (the service cancels a
/// renewing one at its provider first); their period end no longer grants anything to anyone.
#[async_trait]
pub trait SubscriptionRepo: Send + Sync {
    /// Stores a new subscription as given; `Conflict("subscriptionId")` when the id is taken.
    async fn create(&self, subscription: Subscription) -> StoreResult<()>;
    async fn get(&self, id: &SubscriptionId) -> StoreResult<Option<Subscription>>;
    /// The subscription that carries the provider's reference on `route` (PayPal's `I-…`).
    async fn by_provider_ref(&self, route: PaymentRoute, provider_ref: &str) -> StoreResult<Option<Subscription>>;
    /// As `OrderRepo::set_provider_ref`: set once; `Conflict("providerRef")` when another
    /// subscription of the route carries it.
    async fn set_provider_ref(&self, id: &SubscriptionId, provider_ref: &str) -> StoreResult<bool>;
    /// The user's subscriptions, newest first.
    async fn list_for_user(&self, user_id: &UserId) -> StoreResult<Vec<Subscription>>;
    /// The first payment arrived: Pending → Active, with the period it paid for.
    async fn activate(&self, id: &SubscriptionId, started_at: i64, period_end: i64, at: i64) -> StoreResult<bool>;
    /// Another period was paid: moves `current_period_end` to `period_end`, only forward
    /// (a later end than the stored one), never back, and leaves the state as it is. Applies
    /// to an Active subscription, and to a Cancelled one, since a renewal charged just before
    /// the cancellation still paid for its period; never to a Pending or Ended one.
    async fn renew(&self, id: &SubscriptionId, period_end: i64, at: i64) -> StoreResult<bool>;
    /// Stops renewal: Active → Cancelled. The period end stays, and with it the access
    /// already paid for (`Subscription::grants_access`).
    async fn cancel(&self, id: &SubscriptionId, at: i64) -> StoreResult<bool>;
    /// Ends it now, whatever it was (never paid, refunded, period over, the operator):
    /// Pending, Active or Cancelled → Ended. The period end stays as a record.
    async fn end(&self, id: &SubscriptionId, at: i64) -> StoreResult<bool>;
}

/// Whether the store answers at all; `/readyz` asks this.
#[async_trait]
pub trait Health: Send + Sync {
    async fn ping(&self) -> StoreResult<()>;
    /// Round trips to the database so far (reads and writes), for benchmarks that count
    /// what a chat turn costs the store.
    fn round_trips(&self) -> u64;
}

/// Every repository of one store implementation, shared across the server.
#[derive(Clone)]
pub struct Store {
    pub characters: Arc<dyn CharacterRepo>,
    /// Characters users created (My AI, review); the same rows as `characters`.
    pub created: Arc<dyn CreatedCharacterRepo>,
    pub media: Arc<dyn MediaRepo>,
    pub voice_clips: Arc<dyn VoiceClipRepo>,
    pub telemetry: Arc<dyn TelemetryRepo>,
    pub users: Arc<dyn UserRepo>,
    pub sessions: Arc<dyn SessionRepo>,
    pub sign_in_links: Arc<dyn SignInLinkRepo>,
    pub deletion_blocks: Arc<dyn DeletionBlockRepo>,
    pub suspensions: Arc<dyn SuspensionRepo>,
    pub ledger: Arc<dyn LedgerRepo>,
    pub conversations: Arc<dyn ConversationRepo>,
    /// Reply versions (swipes), by the message they answer.
    pub alternatives: Arc<dyn ReplyAlternativeRepo>,
    pub memories: Arc<dyn MemoryRepo>,
    /// The user's personas (issue 18).
    pub personas: Arc<dyn PersonaRepo>,
    /// The recall index over the user's messages and the pair's memories.
    pub recall: Arc<dyn RecallRepo>,
    pub message_credits: Arc<dyn MessageCreditRepo>,
    pub blog: Arc<dyn BlogRepo>,
    pub reports: Arc<dyn ReportRepo>,
    /// What moderation refused (issue 27), for the operator.
    pub moderation_log: Arc<dyn ModerationLogRepo>,
    pub orders: Arc<dyn OrderRepo>,
    pub subscriptions: Arc<dyn SubscriptionRepo>,
    pub gallery: Arc<dyn GalleryRepo>,
    /// Reports and holds of feed images (issue 27).
    pub feed_moderation: Arc<dyn FeedModerationRepo>,
    /// Debits whose outcome is not stored yet, and node leases (issue 28).
    pub pending: Arc<dyn PendingDebitRepo>,
    pub health: Arc<dyn Health>,
}

impl Store {
    /// Every repository served by one implementation that has them all.
    pub fn from_one<T>(shared: Arc<T>) -> Self
    where
        T: CharacterRepo
            + CreatedCharacterRepo
            + MediaRepo
            + VoiceClipRepo
            + TelemetryRepo
            + UserRepo
            + SessionRepo
            + SignInLinkRepo
            + DeletionBlockRepo
            + SuspensionRepo
            + LedgerRepo
            + ConversationRepo
            + ReplyAlternativeRepo
            + MemoryRepo
            + PersonaRepo
            + RecallRepo
            + MessageCreditRepo
            + BlogRepo
            + ReportRepo
            + ModerationLogRepo
            + OrderRepo
            + SubscriptionRepo
            + GalleryRepo
            + FeedModerationRepo
            + PendingDebitRepo
            + Health
            + 'static,
    {
        Store {
            characters: shared.clone(),
            created: shared.clone(),
            media: shared.clone(),
            voice_clips: shared.clone(),
            telemetry: shared.clone(),
            users: shared.clone(),
            sessions: shared.clone(),
            sign_in_links: shared.clone(),
            deletion_blocks: shared.clone(),
            suspensions: shared.clone(),
            ledger: shared.clone(),
            conversations: shared.clone(),
            alternatives: shared.clone(),
            memories: shared.clone(),
            personas: shared.clone(),
            recall: shared.clone(),
            message_credits: shared.clone(),
            blog: shared.clone(),
            reports: shared.clone(),
            moderation_log: shared.clone(),
            orders: shared.clone(),
            subscriptions: shared.clone(),
            gallery: shared.clone(),
            feed_moderation: shared.clone(),
            pending: shared.clone(),
            health: shared,
        }
    }
}
