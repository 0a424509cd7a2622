//! What browsers report about themselves: page events (`/spm`) and error reports
//! (`/webError`). Both are untrusted and bounded before they are kept.

use crate::text::truncate_chars;

/// Longest text kept per field; longer input is cut, not refused, so a report of a huge
/// stack trace still arrives.
pub const MAX_REPORT_FIELD_CHARS: usize = 4_000;
pub const MAX_SHORT_FIELD_CHARS: usize = 500;

/// An error report from the browser (spec §3 "Error report").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorReport {
    pub error_type: String,
    pub message: String,
    pub user_agent: String,
    pub url: String,
    pub user_id: String,
    pub timestamp: i64,
    pub stack: String,
}

impl ErrorReport {
    /// Builds a report from raw fields, cutting each to its limit.
    #[allow(clippy::too_many_arguments)]
    pub fn bounded(
        error_type: &str,
        message: &str,
        user_agent: &str,
        url: &str,
        user_id: &str,
        timestamp: i64,
        stack: &str,
    ) -> Self {
        Self {
            error_type: truncate_chars(error_type, MAX_SHORT_FIELD_CHARS).to_owned(),
            message: truncate_chars(message, MAX_REPORT_FIELD_CHARS).to_owned(),
            user_agent: truncate_chars(user_agent, MAX_SHORT_FIELD_CHARS).to_owned(),
            url: truncate_chars(url, MAX_SHORT_FIELD_CHARS).to_owned(),
            user_id: truncate_chars(user_id, MAX_SHORT_FIELD_CHARS).to_owned(),
            timestamp,
            stack: truncate_chars(stack, MAX_REPORT_FIELD_CHARS).to_owned(),
        }
    }
}

/// One telemetry event from `/spm`: the query fields, each bounded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageEvent {
    pub location: String,
    pub screen: String,
    pub version: String,
    pub user_id: String,
    pub time: String,
    pub client: String,
    pub system: String,
    pub utm_source: String,
    pub utm_medium: String,
    pub distinct_id: String,
    /// The `info` JSON as text (category, action and more), kept as sent.
    pub info: String,
}

impl PageEvent {
    /// Cuts every field to its limit.
    pub fn bounded(mut self) -> Self {
        for field in [
            &mut self.location,
            &mut self.screen,
            &mut self.version,
            &mut self.user_id,
            &mut self.time,
            &mut self.client,
            &mut self.system,
            &mut self.utm_source,
            &mut self.utm_medium,
            &mut self.distinct_id,
        ] {
            let cut = truncate_chars(field, MAX_SHORT_FIELD_CHARS).len();
            field.truncate(cut);
        }
        let cut = truncate_chars(&self.info, MAX_REPORT_FIELD_CHARS).len();
        self.info.truncate(cut);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_report_is_cut_not_refused() {
        let long = "x".repeat(MAX_REPORT_FIELD_CHARS * 2);
        let report = ErrorReport::bounded("TypeError", &long, "ua", "/", "", 1, &long);
        assert_eq!(report.message.chars().count(), MAX_REPORT_FIELD_CHARS);
        assert_eq!(report.stack.chars().count(), MAX_REPORT_FIELD_CHARS);
    }

    #[test]
    fn page_event_fields_are_bounded() {
        let event = PageEvent { location: "é".repeat(900), ..PageEvent::default() }.bounded();
        assert_eq!(event.location.chars().count(), MAX_SHORT_FIELD_CHARS);
    }
}
