//! Structured logs with `tracing`: human-readable by default, JSON for log shippers.

use tracing_subscriber::EnvFilter;

use crate::settings::{LogFormat, LogSettings};

/// Installs the global subscriber once; later calls (several apps in one test process) are no-ops.
pub fn init_logging(settings: &LogSettings) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&settings.filter));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_target(true);
    let _already_set = match settings.format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Pretty => builder.compact().try_init(),
    };
}
