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

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix::Addr;
use amora_ai::AiError;
use amora_ai::chat::CancellationToken;
use amora_ai::image::{GeneratedImage, ImageModel, ImageRequest, Subject};
use amora_domain::account::{User, UserId};
use amora_domain::appearance::{Look, seed_for};
use amora_domain::character::{Character, CharacterId, Exposure};
use amora_domain::chat::EntryId;
use amora_domain::code::ApiCode;
use amora_domain::creation::ValidLooks;
use amora_domain::image::{ImageChoice, ImageRequestError, NEGATIVE_PROMPT, RawImageRequest};
use amora_domain::money::Coins;
use amora_store::{GalleryRecord, LedgerOutcome, MediaObject, MessageImage, Store, StoreError, image_media_id};
use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, Opts};
use serde::Deserialize;
use tokio::sync::Semaphore;

use crate::bus::EventBus;
use crate::chat::new_entry_id;
use crate::conversations::Conversations;
use crate::moderation::{Moderator, Surface};
use crate::pending::{Journal, Owed, image_debit_txn, image_refund_txn};
use crate::registry::Registry;
use crate::user::UserAddr;
use crate::user::{Account, Credit, Debit};
use crate::wire::events::ServerEvent;
use crate::wire::images::{FeedImageView, GalleryCharacterView, GalleryImageView, ImageFailure, Progress};

/// How image jobs run on this node (config section `[image]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImageJobSettings {
    /// Jobs one user may have unfinished (queued or making) at once.
    pub jobs_per_user: usize,
    /// Images made at once on this node.
    pub concurrent: usize,
    /// Images waiting on this node, all users together; past it new jobs are refused (10003).
    pub queue: usize,
    /// The longest one image may take at the backend.
    pub timeout_secs: u64,
    /// The largest image accepted from a backend, in bytes.
    pub max_bytes: usize,
    /// The size asked of the backend.
    pub width: u32,
    pub height: u32,
    /// The image model (`[image.model]`); the server builds it with `ai::image::build`.
    pub model: amora_ai::image::ImageModelSettings,
}

impl Default for ImageJobSettings {
    fn default() -> Self {
        Self {
            jobs_per_user: 2,
            concurrent: 1,
            queue: 64,
            timeout_secs: 120,
            max_bytes: 8 * 1024 * 1024,
            width: 512,
            height: 768,
            model: amora_ai::image::ImageModelSettings::default(),
        }
    }
}

/// Why an image request was refused.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ImageError {
    #[error(transparent)]
    Request(#[from] ImageRequestError),
    #[error("no such character")]
    NoCharacter,
    #[error("no such job")]
    NoJob,
    #[error("no such image")]
    NoImage,
    #[error("not enough coins: {cost} needed, {balance} left")]
    NeedPay { cost: Coins, balance: Coins },
    #[error("you have {0} image jobs running already, please wait for them")]
    TooManyJobs(usize),
    #[error("the image queue is full, please try again in a moment")]
    QueueFull,
    #[error("please sign in")]
    NoAccount,
    #[error("store: {0}")]
    Store(String),
    #[error("actor: {0}")]
    Unavailable(String),
}

impl ImageError {
    /// The code of API.md §1.3 this error answers with.
    pub fn code(&self) -> ApiCode {
        match self {
            ImageError::Request(ImageRequestError::Invalid(_)) => ApiCode::ParamError,
            ImageError::Request(ImageRequestError::Refused(_)) => ApiCode::InputContentIllegal,
            ImageError::NoCharacter | ImageError::NoJob | ImageError::NoImage => ApiCode::NotFound,
            ImageError::NeedPay { .. } => ApiCode::NeedPay,
            ImageError::TooManyJobs(_) | ImageError::QueueFull => ApiCode::RateLimited,
            ImageError::NoAccount => ApiCode::TokenInvalid,
            ImageError::Store(_) | ImageError::Unavailable(_) => ApiCode::ServerError,
        }
    }

    /// The text clients may show; internal causes stay in the log.
    pub fn public_message(&self) -> String {
        match self.code() {
            ApiCode::ServerError => ApiCode::ServerError.default_message().to_owned(),
            _ => self.to_string(),
        }
    }
}

impl From<StoreError> for ImageError {
    fn from(error: StoreError) -> Self {
        ImageError::Store(error.to_string())
    }
}

impl From<actix::MailboxError> for ImageError {
    fn from(error: actix::MailboxError) -> Self {
        ImageError::Unavailable(error.to_string())
    }
}

impl From<crate::user::UserError> for ImageError {
    fn from(error: crate::user::UserError) -> Self {
        match error {
            crate::user::UserError::NoAccount => ImageError::NoAccount,
            other => ImageError::Store(other.to_string()),
        }
    }
}

impl From<crate::chat::ChatError> for ImageError {
    fn from(error: crate::chat::ChatError) -> Self {
        match error {
            crate::chat::ChatError::NoCharacter => ImageError::NoCharacter,
            crate::chat::ChatError::NoAccount => ImageError::NoAccount,
            other => ImageError::Store(other.to_string()),
        }
    }
}

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

/// Images made, failed, timed out and cancelled, and how long backends took, for `/metrics`.
#[derive(Clone)]
pub struct ImageMetrics {
    images: IntCounterVec,
    seconds: HistogramVec,
}

impl ImageMetrics {
    pub fn new() -> Self {
        let images = IntCounterVec::new(
            Opts::new("amora_images_total", "Generated images by backend and outcome"),
            &["backend", "outcome"],
        )
        .unwrap_or_else(|e| unreachable!("static counter options are valid: {e}"));
        let seconds = HistogramVec::new(
            HistogramOpts::new("amora_image_seconds", "Time one image took at the backend")
                .buckets(vec![0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0]),
            &["backend"],
        )
        .unwrap_or_else(|e| unreachable!("static histogram options are valid: {e}"));
        Self { images, seconds }
    }

    pub fn register(&self, registry: &prometheus::Registry) -> prometheus::Result<()> {
        registry.register(Box::new(self.images.clone()))?;
        registry.register(Box::new(self.seconds.clone()))
    }
}

impl Default for ImageMetrics {
    fn default() -> Self {
        Self::new()
    }
}

/// A job not yet finished, as this node holds it.
struct LiveJob {
    user_id: UserId,
    cancel: CancellationToken,
}

#[derive(Default)]
struct Queue {
    jobs: HashMap<EntryId, LiveJob>,
    /// Unfinished jobs per user.
    per_user: HashMap<UserId, usize>,
    /// Images queued or being made on this node.
    images: usize,
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

    /// Holds a place for the job, refused past the user's and the node's limits; answers
    /// its cancellation and how many images are ahead of its first.
    fn reserve(
        &self,
        user_id: &UserId,
        job_id: EntryId,
        count: usize,
    ) -> Result<(CancellationToken, usize), ImageError> {
        let mut queue = self.inner.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let running = queue.per_user.get(user_id).copied().unwrap_or(0);
        if running >= self.inner.settings.jobs_per_user {
            return Err(ImageError::TooManyJobs(running));
        }
        let capacity = self.inner.settings.queue.max(1) + self.inner.settings.concurrent.max(1);
        if queue.images + count > capacity {
            return Err(ImageError::QueueFull);
        }
        let cancel = CancellationToken::new();
        queue.jobs.insert(job_id, LiveJob { user_id: user_id.clone(), cancel: cancel.clone() });
        *queue.per_user.entry(user_id.clone()).or_default() += 1;
        let ahead = queue.images;
        queue.images += count;
        Ok((cancel, ahead))
    }

    /// Lets go of `images` places of the job, and of the job when it is done.
    fn release(&self, job_id: EntryId, images: usize) {
        let mut queue = self.inner.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        queue.images = queue.images.saturating_sub(images);
        if let Some(job) = queue.jobs.remove(&job_id)
            && let Some(count) = queue.per_user.get_mut(&job.user_id)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                queue.per_user.remove(&job.user_id);
            }
        }
    }

    fn release_image(&self) {
        let mut queue = self.inner.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        queue.images = queue.images.saturating_sub(1);
    }

    /// Debits the whole job; the balance after it.
    async fn pay(&self, user_id: &UserId, job_id: EntryId, cost: Coins) -> Result<Coins, ImageError> {
        let txn_id = image_debit_txn(job_id);
        let actor = self.inner.registry.send(UserAddr(user_id.clone())).await?;
        let debit = Debit { amount: cost, reason: "image".into(), txn_id };
        match actor.send(debit).await?? {
            LedgerOutcome::Applied { balance, .. } | LedgerOutcome::Replayed { balance, .. } => Ok(balance),
            LedgerOutcome::Insufficient { balance, .. } => Err(ImageError::NeedPay { cost, balance }),
            LedgerOutcome::NoAccount => Err(ImageError::NoAccount),
        }
    }

    /// Cancels the user's job: its images not done yet end as `cancelled` and are refunded.
    pub fn cancel(&self, user_id: &UserId, job_id: EntryId) -> Result<(), ImageError> {
        let queue = self.inner.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match queue.jobs.get(&job_id) {
            Some(job) if &job.user_id == user_id => {
                job.cancel.cancel();
                Ok(())
            }
            _ => Err(ImageError::NoJob),
        }
    }

    async fn publish(&self, user_id: &UserId, event: ServerEvent) {
        self.inner.bus.publish(user_id, event).await;
    }

    /// Makes the job's images one after another, each when a place at the backend is free.
    async fn run(self, plan: Plan, image_ids: Vec<EntryId>, position: usize, cancel: CancellationToken) {
        let character_id = plan.character.as_ref().map(|c| c.card.character_id.clone());
        for (ahead, image_id) in image_ids.iter().enumerate() {
            let event = ServerEvent::ImageQueued {
                job_id: plan.job_id,
                image_id: *image_id,
                character_id: character_id.clone(),
                position: u32::try_from(position + ahead).unwrap_or(u32::MAX),
            };
            self.publish(&plan.user_id, event).await;
        }
        for (index, image_id) in image_ids.iter().enumerate() {
            let outcome = self.make(&plan, *image_id, index as u64, &cancel).await;
            self.release_image();
            match outcome {
                Ok(record) => self.delivered(&plan, record).await,
                Err(failure) => self.failed(&plan, *image_id, failure).await,
            }
        }
        // Every image is stored or refunded: nothing is pending.
        self.inner.journal.close(image_debit_txn(plan.job_id).as_str()).await;
        self.release(plan.job_id, 0);
    }

    /// Makes and stores one image.
    async fn make(
        &self,
        plan: &Plan,
        image_id: EntryId,
        index: u64,
        cancel: &CancellationToken,
    ) -> Result<GalleryRecord, Failure> {
        let inner = &self.inner;
        let _permit = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(Failure::Cancelled),
            permit = inner.permits.acquire() => permit.map_err(|_| Failure::Failed("the node is stopping".into()))?,
        };
        let request = ImageRequest {
            prompt: plan.prompt.clone(),
            negative_prompt: NEGATIVE_PROMPT.to_owned(),
            // Stable per character, varied per image of the job.
            seed: plan
                .seed
                .wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .wrapping_add(if plan.character.is_some() { 0 } else { image_id.raw() as u64 }),
            width: inner.settings.width,
            height: inner.settings.height,
            subject: plan.subject.clone(),
            scene: plan.choice.scene.map(|p| p.key.to_owned()),
            outfit: plan.choice.outfit.map(|p| p.key.to_owned()),
            pose: plan.choice.pose.map(|p| p.key.to_owned()),
            style: plan.choice.style.map(|p| p.key.to_owned()),
            nsfw: plan.nsfw,
        };
        let (progress_tx, mut progress_rx) = tokio::sync::mpsc::unbounded_channel::<f32>();
        let forward = {
            let (jobs, user_id, job_id) = (self.clone(), plan.user_id.clone(), plan.job_id);
            tokio::spawn(async move {
                let mut last = None;
                while let Some(fraction) = progress_rx.recv().await {
                    let progress = Progress::of(fraction);
                    if last != Some(progress) {
                        last = Some(progress);
                        jobs.publish(&user_id, ServerEvent::ImageProgress { job_id, image_id, progress }).await;
                    }
                }
            })
        };
        let backend = inner.model.info().backend;
        let started = Instant::now();
        let timeout = Duration::from_secs(inner.settings.timeout_secs.max(1));
        let made = tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(Failure::Cancelled),
            made = tokio::time::timeout(timeout, inner.model.generate(request, progress_tx)) => match made {
                Err(_) => Err(Failure::TimedOut),
                Ok(Err(AiError::BadRequest(reason))) => Err(Failure::Refused(reason)),
                Ok(Err(other)) => Err(Failure::Failed(other.to_string())),
                Ok(Ok(image)) => Ok(image),
            },
        };
        // Every progress report is told before the image's end.
        let _ = forward.await;
        inner.metrics.seconds.with_label_values(&[backend]).observe(started.elapsed().as_secs_f64());
        let image = made?;
        if image.bytes.len() > inner.settings.max_bytes {
            return Err(Failure::Failed(format!("the backend's image is {} bytes", image.bytes.len())));
        }
        if !matches!(image.content_type.as_str(), "image/png" | "image/jpeg" | "image/webp") {
            return Err(Failure::Failed(format!("the backend answered {}", image.content_type)));
        }
        let record = GalleryRecord {
            image_id,
            job_id: plan.job_id,
            user_id: plan.user_id.clone(),
            character_id: plan.character.as_ref().map(|c| c.card.character_id.clone()),
            character_name: plan.character.as_ref().map(|c| c.card.character_name.clone()),
            prompt: plan.choice.prompt.clone().unwrap_or_default(),
            scene: plan.choice.scene.map(|p| p.key.to_owned()),
            outfit: plan.choice.outfit.map(|p| p.key.to_owned()),
            pose: plan.choice.pose.map(|p| p.key.to_owned()),
            style: plan.choice.style.map(|p| p.key.to_owned()),
            width: image.width,
            height: image.height,
            nsfw: plan.nsfw,
            illustration: inner.model.info().illustration,
            restricted: plan.restricted,
            feed_id: None,
        };
        // A recovery took the job over (this node's lease lapsed) and refunds what is not
        // in the gallery: this image is not ours to store any more.
        if !inner.journal.still_owns(image_debit_txn(plan.job_id).as_str()).await {
            return Err(Failure::Failed("the job was settled by a recovery".into()));
        }
        let media = MediaObject { content_type: image.content_type, bytes: image.bytes };
        let stored = async {
            inner.store.media.put(&image_media_id(image_id), media).await?;
            inner.store.gallery.add(record.clone()).await
        };
        if let Err(error) = stored.await {
            return Err(Failure::Failed(format!("the image could not be stored: {error}")));
        }
        Ok(record)
    }

    async fn delivered(&self, plan: &Plan, record: GalleryRecord) {
        let backend = self.inner.model.info().backend;
        self.inner.metrics.images.with_label_values(&[backend, "done"]).inc();
        let event = ServerEvent::ImageDone {
            job_id: plan.job_id,
            image_id: record.image_id,
            image: GalleryImageView::from(&record),
        };
        self.publish(&plan.user_id, event).await;
        if plan.in_chat
            && let Some(character_id) = &record.character_id
        {
            let image = MessageImage { image_id: record.image_id, width: record.width, height: record.height };
            if let Err(error) = self.inner.conversations.add_picture(&plan.user_id, character_id, image).await {
                tracing::error!(%error, image = %record.image_id, "a chat picture could not be added to the conversation");
            }
        }
    }

    async fn failed(&self, plan: &Plan, image_id: EntryId, failure: Failure) {
        let backend = self.inner.model.info().backend;
        self.inner.metrics.images.with_label_values(&[backend, failure.label()]).inc();
        match &failure {
            Failure::Failed(cause) => tracing::error!(%cause, image = %image_id, backend, "an image failed"),
            Failure::Refused(cause) => {
                tracing::info!(%cause, image = %image_id, backend, "the backend refused an image")
            }
            Failure::TimedOut | Failure::Cancelled => {}
        }
        let refunded = self.refund(&plan.user_id, image_id).await;
        let (reason, code, msg) = failure.wire();
        let event = ServerEvent::ImageFailed { job_id: plan.job_id, image_id, reason, code, msg, refunded };
        self.publish(&plan.user_id, event).await;
    }

    /// Gives one image's price back; what was given (nothing when the ledger could not be
    /// written: logged, and the same row is tried a few times).
    async fn refund(&self, user_id: &UserId, image_id: EntryId) -> Coins {
        let amount = self.inner.cost_per_image;
        let txn_id = image_refund_txn(image_id);
        for attempt in 0..3 {
            let credit = Credit { amount, reason: "image refund".into(), txn_id: txn_id.clone() };
            let outcome = match self.inner.registry.send(UserAddr(user_id.clone())).await {
                Ok(actor) => {
                    actor.send(credit).await.map_err(|e| e.to_string()).and_then(|r| r.map_err(|e| e.to_string()))
                }
                Err(error) => Err(error.to_string()),
            };
            match outcome {
                Ok(LedgerOutcome::Applied { .. } | LedgerOutcome::Replayed { .. }) => return amount,
                Ok(other) => {
                    tracing::error!(?other, image = %image_id, "an image refund was not applied");
                    return Coins::ZERO;
                }
                Err(error) => {
                    tracing::error!(%error, attempt, image = %image_id, "an image refund failed");
                    tokio::time::sleep(Duration::from_millis(200 * (attempt + 1))).await;
                }
            }
        }
        Coins::ZERO
    }

    /// Draws one picture outside any job: a created character's portrait (at creation and
    /// for the builder's previews). Not paid for, kept in no gallery; it waits for one of
    /// the node's image places like a job's image does, within `image.timeout_secs`.
    pub async fn draw(&self, request: ImageRequest) -> Result<GeneratedImage, ImageError> {
        let inner = &self.inner;
        let _permit =
            inner.permits.acquire().await.map_err(|_| ImageError::Unavailable("the node is stopping".into()))?;
        let backend = inner.model.info().backend;
        let started = Instant::now();
        let timeout = Duration::from_secs(inner.settings.timeout_secs.max(1));
        let (progress, _ignored) = tokio::sync::mpsc::unbounded_channel::<f32>();
        let made = tokio::time::timeout(timeout, inner.model.generate(request, progress)).await;
        inner.metrics.seconds.with_label_values(&[backend]).observe(started.elapsed().as_secs_f64());
        let image = match made {
            Err(_) => Err(ImageError::Unavailable(format!("{backend} took longer than {timeout:?}"))),
            Ok(Err(error)) => Err(ImageError::Unavailable(format!("{backend}: {error}"))),
            Ok(Ok(image)) => Ok(image),
        };
        let outcome = if image.is_ok() { "portrait" } else { "portraitFailed" };
        inner.metrics.images.with_label_values(&[backend, outcome]).inc();
        let image = image?;
        if image.bytes.len() > inner.settings.max_bytes {
            return Err(ImageError::Unavailable(format!("the backend's image is {} bytes", image.bytes.len())));
        }
        if !matches!(image.content_type.as_str(), "image/png" | "image/jpeg" | "image/webp") {
            return Err(ImageError::Unavailable(format!("the backend answered {}", image.content_type)));
        }
        Ok(image)
    }

    /// A page of the user's images (of one character when given), newest first.
    pub async fn gallery(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        before: Option<EntryId>,
        limit: u32,
    ) -> Result<Vec<GalleryImageView>, ImageError> {
        let records = self.inner.store.gallery.list(user_id, character, before, limit).await?;
        Ok(records.iter().map(GalleryImageView::from).collect())
    }

    /// The characters the user has images of, most recent first, with their photo as the
    /// catalogue has it now (a character gone from it keeps its images, without a photo).
    pub async fn gallery_characters(&self, user_id: &UserId) -> Result<Vec<GalleryCharacterView>, ImageError> {
        let mut list = Vec::new();
        for entry in self.inner.store.gallery.characters(user_id).await? {
            let character = self.inner.store.characters.get(&entry.character_id).await?;
            let (name, photo) = match character {
                Some(character) => (character.card.character_name, character.card.character_photo),
                None => (String::new(), String::new()),
            };
            list.push(GalleryCharacterView {
                character_id: entry.character_id,
                character_name: name,
                character_photo: photo,
                count: entry.count,
            });
        }
        Ok(list)
    }

    /// Puts one of the user's images in the public feed, or takes it out. Its words are
    /// checked again before anyone else sees them, under the image rule (any minor is
    /// refused on its own), whatever rule let the image be made: the feed is public, and
    /// images made before a rule was tightened are still in galleries. A refusal is
    /// written to the moderation log.
    pub async fn share(
        &self,
        user_id: &UserId,
        image_id: EntryId,
        shared: bool,
    ) -> Result<GalleryImageView, ImageError> {
        let gallery = &self.inner.store.gallery;
        let image = gallery.get(user_id, image_id).await?.ok_or(ImageError::NoImage)?;
        if shared {
            // Through the moderation service (`Surface::FeedShare`, the image rule), which
            // writes a refusal to the moderation log.
            self.moderate(Surface::FeedShare, user_id, &image.prompt).await?;
        }
        let feed_id = shared.then(new_entry_id);
        let image = gallery.set_shared(user_id, image_id, feed_id).await?.ok_or(ImageError::NoImage)?;
        Ok(GalleryImageView::from(&image))
    }

    /// A page of the public feed, newest share first; restricted images only for viewers
    /// who may see them (established members whose adult-content preference is on).
    pub async fn feed(
        &self,
        before: Option<EntryId>,
        limit: u32,
        include_restricted: bool,
    ) -> Result<Vec<FeedImageView>, ImageError> {
        let entries = self.inner.store.gallery.feed(before, limit, include_restricted).await?;
        Ok(entries.iter().map(FeedImageView::from).collect())
    }

    /// Deletes one of the user's images: its record, feed entry and bytes.
    pub async fn delete(&self, user_id: &UserId, image_id: EntryId) -> Result<(), ImageError> {
        if !self.inner.store.gallery.delete(user_id, image_id).await? {
            return Err(ImageError::NoImage);
        }
        Ok(())
    }
}

/// Why one image did not come, as the job saw it.
#[derive(Debug)]
enum Failure {
    Failed(String),
    Refused(String),
    TimedOut,
    Cancelled,
}

impl Failure {
    fn label(&self) -> &'static str {
        match self {
            Failure::Failed(_) => "failed",
            Failure::Refused(_) => "refused",
            Failure::TimedOut => "timedOut",
            Failure::Cancelled => "cancelled",
        }
    }

    /// The reason, code and text of its `imageFailed` event.
    fn wire(&self) -> (ImageFailure, Option<u32>, String) {
        match self {
            Failure::Failed(_) => (
                ImageFailure::Failed,
                Some(ApiCode::ServerError.value()),
                "The image could not be made. Your coins were refunded.".into(),
            ),
            Failure::Refused(_) => (
                ImageFailure::Refused,
                Some(ApiCode::InputContentIllegal.value()),
                "The image service refused this content. Your coins were refunded.".into(),
            ),
            Failure::TimedOut => (
                ImageFailure::TimedOut,
                Some(ApiCode::ServerError.value()),
                "The image took too long. Your coins were refunded.".into(),
            ),
            Failure::Cancelled => (ImageFailure::Cancelled, None, "Cancelled. Your coins were refunded.".into()),
        }
    }
}
