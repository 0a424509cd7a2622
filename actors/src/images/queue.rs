//! The node's queue of image jobs: a job holds its places from acceptance to its last image,
//! within the user's and the node's limits, and can be cancelled by its user.

use std::collections::HashMap;

use amora_ai::chat::CancellationToken;
use amora_domain::account::UserId;
use amora_domain::chat::EntryId;

use super::{ImageError, ImageJobs};

/// A job not yet finished, as this node holds it.
struct LiveJob {
    user_id: UserId,
    cancel: CancellationToken,
}

#[derive(Default)]
pub(super) struct Queue {
    jobs: HashMap<EntryId, LiveJob>,
    /// Unfinished jobs per user.
    per_user: HashMap<UserId, usize>,
    /// Images queued or being made on this node.
    images: usize,
}

impl ImageJobs {
    /// Holds a place for the job, refused past the user's and the node's limits; answers
    /// its cancellation and how many images are ahead of its first.
    pub(super) fn reserve(
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
    pub(super) fn release(&self, job_id: EntryId, images: usize) {
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

    pub(super) fn release_image(&self) {
        let mut queue = self.inner.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        queue.images = queue.images.saturating_sub(1);
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
}
