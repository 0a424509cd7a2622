//! `ImageJobs`: generated images (docs/api.md "Images"). A job of 1, 2 or 4 images is
//! checked (presets, prompt, the guidelines), paid for in one ledger row through the user's
//! actor (`image:<jobId>`) before anything starts, and queued on this node. At most
//! `image.concurrent` images are made at once (fairly: first come, first served), each
//! within `image.timeout_secs`; a user has at most `image.jobs_per_user` jobs unfinished.
//! Each image is stored (bytes in media, a gallery row) and told to the user's sockets as
//! it comes; an image that fails, times out or is cancelled is refunded by its own
//! compensating row (`image-refund:<imageId>`). The job is in the pending-debit journal
//! from before its debit until its last image (`pending.rs`): a node killed mid-job leaves
//! the row, and a recovery refunds every image of it not in the gallery, once.
//!
//! A chat picture (`chat/requestPicture`) is a one-image job of the conversation's
//! character whose image also becomes the character's message, written through the
//! character's actor (`Conversations::add_picture`).
//!
//! This file holds the door (`ImageJobs::generate`: check, pay, queue) and what a job is;
//! the rest is one file per job: `settings`, `error`, `metrics`, `queue` (places and
//! cancelling), `payment` (the debit and refunds), `making` (the images) and `gallery`.

use std::sync::{Arc, Mutex};

use actix::Addr;
use amora_ai::image::{ImageModel, Subject};
use amora_domain::account::{User, UserId};
use amora_domain::appearance::{Look, seed_for};
use amora_domain::character::{Character, CharacterId, Exposure};
use amora_domain::chat::EntryId;
use amora_domain::creation::ValidLooks;
use amora_domain::image::{ImageChoice, ImageRequestError, RawImageRequest};
use amora_domain::money::Coins;
use amora_store::Store;
use tokio::sync::Semaphore;

use crate::bus::EventBus;
use crate::chat::new_entry_id;
use crate::conversations::Conversations;
use crate::moderation::{Moderator, Surface};
use crate::pending::{Journal, Owed, image_debit_txn};
use crate::registry::Registry;
use crate::user::Account;
use crate::user::UserAddr;
use crate::wire::events::ServerEvent;

mod error;
mod gallery;
mod making;
mod metrics;
mod payment;
mod queue;
mod settings;

pub use error::ImageError;
pub use metrics::ImageMetrics;
use queue::Queue;
pub use settings::ImageJobSettings;

/// A job as asked for: the user's choices, and whether it is a chat picture.
#[derive(Debug, Clone)]
pub struct JobRequest {
    pub character_id: Option<CharacterId>,
    pub choice: RawImageRequest,
    /// Also a message of the conversation with the character (`chat/requestPicture`).
    pub in_chat: bool,
}

/// A job accepted and paid for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobStarted {
    pub job_id: EntryId,
    pub image_ids: Vec<EntryId>,
    /// The balance after the debit.
    pub coin: Coins,
}

struct Inner {
    store: Store,
    bus: EventBus,
    registry: Addr<Registry>,
    conversations: Conversations,
    model: Arc<dyn ImageModel>,
    settings: ImageJobSettings,
    cost_per_image: Coins,
    permits: Semaphore,
    queue: Mutex<Queue>,
    metrics: ImageMetrics,
    /// The node's moderation service: prompts, picture requests and assembled prompts.
    moderator: Moderator,
    /// Pending debits: a job's row lives from before its debit until its last image.
    journal: Journal,
}

/// The node's image jobs.
#[derive(Clone)]
pub struct ImageJobs {
    inner: Arc<Inner>,
}

/// What one image of a job needs, decided when the job is accepted.
#[derive(Clone)]
struct Plan {
    job_id: EntryId,
    user_id: UserId,
    character: Option<Character>,
    subject: Option<Subject>,
    seed: u64,
    prompt: String,
    choice: ImageChoice,
    nsfw: bool,
    restricted: bool,
    in_chat: bool,
}

impl ImageJobs {
    pub fn new(
        store: Store,
        bus: EventBus,
        registry: Addr<Registry>,
        conversations: Conversations,
        model: Arc<dyn ImageModel>,
        settings: ImageJobSettings,
        cost_per_image: Coins,
    ) -> Self {
        let permits = Semaphore::new(settings.concurrent.max(1));
        // The node's one moderation service, which the chat door holds.
        let moderator = conversations.moderator().clone();
        let (store_for_journal, bus_for_journal) = (store.clone(), bus.clone());
        let inner = Inner {
            store,
            bus,
            registry,
            conversations,
            model,
            settings,
            cost_per_image,
            permits,
            queue: Mutex::new(Queue::default()),
            metrics: ImageMetrics::new(),
            moderator,
            journal: Journal::new(store_for_journal, &bus_for_journal),
        };
        Self { inner: Arc::new(inner) }
    }

    pub fn metrics(&self) -> &ImageMetrics {
        &self.inner.metrics
    }

    pub fn cost_per_image(&self) -> Coins {
        self.inner.cost_per_image
    }

    /// True when the backend draws illustrations (the embedded illustrator).
    pub fn illustration(&self) -> bool {
        self.inner.model.info().illustration
    }

    async fn moderate(&self, surface: Surface, user_id: &UserId, text: &str) -> Result<(), ImageError> {
        self.inner
            .moderator
            .check(surface, Some(user_id), text)
            .await
            .map_err(|refusal| ImageError::Request(ImageRequestError::Refused(refusal)))
    }

    async fn account(&self, user_id: &UserId) -> Result<User, ImageError> {
        let actor = self.inner.registry.send(UserAddr(user_id.clone())).await?;
        actor.send(Account).await??.ok_or(ImageError::NoAccount)
    }

    /// Checks, pays for and queues a job; its images then arrive as events.
    pub async fn generate(&self, user_id: &UserId, request: JobRequest) -> Result<JobStarted, ImageError> {
        let account = self.account(user_id).await?;
        // The user's words first, under the image rule, before anything is read or paid
        // (parsing checks them by the same rule; this records a refusal for the operator).
        let surface = if request.in_chat { Surface::PictureRequest } else { Surface::ImagePrompt };
        if let Some(words) = request.choice.prompt.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            self.moderate(surface, user_id, words).await?;
        }
        let choice = ImageChoice::parse(&request.choice, account.nsfw)?;
        let character = match &request.character_id {
            Some(id) => Some(self.inner.conversations.visible_character(user_id, id).await?),
            None => None,
        };
        let (appearance, subject, seed) = match &character {
            Some(character) => {
                // Boxed: the store's read is a large future, and this one is awaited deep in
                // request handling (debug builds overflowed a test thread's stack).
                let (look, words) = Box::pin(self.appearance(character)).await?;
                let subject = Subject { gender: character.card.gender.code(), look: look.to_array() };
                (Some(words), Some(subject), seed_for(&character.card.character_id))
            }
            None => (None, None, rand::random::<u64>()),
        };
        // The prompt the backend will read, as a whole: words that pass one by one may not
        // pass together.
        let prompt = choice.prompt_text(appearance.as_deref());
        self.moderate(Surface::AssembledImagePrompt, user_id, &prompt).await?;
        let count = usize::from(choice.count);
        let job_id = new_entry_id();
        let image_ids: Vec<EntryId> = (0..count).map(|_| new_entry_id()).collect();
        let (cancel, position) = self.reserve(user_id, job_id, count)?;
        // At most a few images at a price of at most `Coins::MAX_CHANGE`: never past `i64`.
        let cost = self.inner.cost_per_image.checked_mul(count as i64).unwrap_or(Coins::stored(i64::MAX));
        // The journal's row goes first: a node killed after the debit leaves it for a
        // recovery, which refunds every image not in the gallery (`pending.rs`).
        let debit_id = image_debit_txn(job_id);
        let owed = Owed::Images {
            job_id: job_id.raw(),
            image_ids: image_ids.iter().map(|id| id.raw()).collect(),
            per_image: self.inner.cost_per_image.units(),
        };
        if let Err(error) = self.inner.journal.open(debit_id.as_str(), user_id, &owed).await {
            self.release(job_id, count);
            return Err(error.into());
        }
        let coin = match self.pay(user_id, job_id, cost).await {
            Ok(coin) => coin,
            Err(error) => {
                self.inner.journal.close(debit_id.as_str()).await;
                self.release(job_id, count);
                return Err(error);
            }
        };
        let restricted = choice.is_nsfw() || character.as_ref().is_some_and(|c| c.exposure == Exposure::Restricted);
        let plan = Plan {
            job_id,
            user_id: user_id.clone(),
            nsfw: choice.is_nsfw(),
            character,
            subject,
            seed,
            prompt,
            choice,
            restricted,
            in_chat: request.in_chat,
        };
        let jobs = self.clone();
        let ids = image_ids.clone();
        tokio::spawn(async move { jobs.run(plan, ids, position, cancel).await });
        Ok(JobStarted { job_id, image_ids, coin })
    }

    /// What the character looks like, as the illustrator draws it and in words: a created
    /// character's chosen looks (so its images agree with its portrait), a seeded one's
    /// catalogue look, else a look picked from its seed.
    async fn appearance(&self, character: &Character) -> Result<(Look, String), ImageError> {
        let id = &character.card.character_id;
        let gender = character.card.gender;
        if character.creator_id.is_some()
            && let Some(created) = self.inner.store.created.get(id).await?
            && let Ok(looks) = ValidLooks::parse(created.draft.gender, &created.draft.looks)
        {
            return Ok((looks.look(), looks.describe()));
        }
        let look = amora_store::seed::look_of(id).unwrap_or_else(|| Look::from_seed(seed_for(id)));
        Ok((look, look.describe(gender)))
    }

    async fn publish(&self, user_id: &UserId, event: ServerEvent) {
        self.inner.bus.publish(user_id, event).await;
    }
}
