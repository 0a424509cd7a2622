//! The image metrics on `/metrics`: images by backend and outcome, and how long backends took.

use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, Opts};

/// Images made, failed, timed out and cancelled, and how long backends took, for `/metrics`.
#[derive(Clone)]
pub struct ImageMetrics {
    pub(super) images: IntCounterVec,
    pub(super) seconds: HistogramVec,
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
