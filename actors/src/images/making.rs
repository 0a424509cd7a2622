//! Making images: a job's images one after another as places at the backend free up, each
//! stored and told to the user's sockets as it comes (or refunded when it fails), and one
//! picture outside any job (a created character's portrait).

use std::time::{Duration, Instant};

use amora_ai::AiError;
use amora_ai::chat::CancellationToken;
use amora_ai::image::{GeneratedImage, ImageRequest};
use amora_domain::chat::EntryId;
use amora_domain::code::ApiCode;
use amora_domain::image::NEGATIVE_PROMPT;
use amora_store::{GalleryRecord, MediaObject, MessageImage, image_media_id};

use super::{ImageError, ImageJobs, Plan};
use crate::pending::image_debit_txn;
use crate::wire::events::ServerEvent;
use crate::wire::images::{GalleryImageView, ImageFailure, Progress};

impl ImageJobs {
    /// Makes the job's images one after another, each when a place at the backend is free.
    pub(super) async fn run(self, plan: Plan, image_ids: Vec<EntryId>, position: usize, cancel: CancellationToken) {
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
                .wrapping_add(index.wrapping_mul(amora_ai::image::JOB_SEED_STEP))
                .wrapping_add(if plan.character.is_some() { 0 } else { image_id.raw() as u64 }),
            width: inner.settings.width,
            height: inner.settings.height,
            subject: plan.subject.clone(),
            scene: plan.choice.scene.map(|p| p.key.to_owned()),
            outfit: plan.choice.outfit.map(|p| p.key.to_owned()),
            pose: plan.choice.pose.map(|p| p.key.to_owned()),
            style: plan.choice.style.map(|p| p.key.to_owned()),
            nsfw: plan.nsfw,
            // The image's place in its job (a job has at most a few images).
            variant: u32::try_from(index).unwrap_or(u32::MAX),
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
