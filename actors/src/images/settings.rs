//! How image jobs run on this node: the `[image]` config section.

use serde::Deserialize;

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
