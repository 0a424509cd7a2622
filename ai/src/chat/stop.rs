//! Stop strings over streamed text: text that may be the start of a stop string is held
//! back until the next delta tells whether it is one.

pub(crate) struct StopMatcher {
    stops: Vec<String>,
    pending: String,
}

impl StopMatcher {
    pub(crate) fn new(stops: &[String]) -> Self {
        Self { stops: stops.iter().filter(|s| !s.is_empty()).cloned().collect(), pending: String::new() }
    }

    /// Adds `text`; returns what may be emitted now, and whether a stop string came (then
    /// the returned text is everything before it and the rest is dropped).
    pub(crate) fn push(&mut self, text: &str) -> (String, bool) {
        if self.stops.is_empty() {
            return (text.to_owned(), false);
        }
        self.pending.push_str(text);
        if let Some(at) = self.stops.iter().filter_map(|s| self.pending.find(s.as_str())).min() {
            let out = self.pending[..at].to_owned();
            self.pending.clear();
            return (out, true);
        }
        // Hold back the longest tail that some stop string starts with.
        let keep_from = self
            .pending
            .char_indices()
            .map(|(i, _)| i)
            .find(|&i| {
                let tail = &self.pending[i..];
                self.stops.iter().any(|s| s.starts_with(tail))
            })
            .unwrap_or(self.pending.len());
        let rest = self.pending.split_off(keep_from);
        (std::mem::replace(&mut self.pending, rest), false)
    }

    /// The text held back, when the reply ends for another reason.
    pub(crate) fn flush(&mut self) -> String {
        std::mem::take(&mut self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stops: &[&str], pieces: &[&str]) -> (String, bool) {
        let stops: Vec<String> = stops.iter().map(|s| s.to_string()).collect();
        let mut m = StopMatcher::new(&stops);
        let mut out = String::new();
        for p in pieces {
            let (text, stopped) = m.push(p);
            out.push_str(&text);
            if stopped {
                return (out, true);
            }
        }
        out.push_str(&m.flush());
        (out, false)
    }

    #[test]
    fn passes_text_without_stops() {
        assert_eq!(run(&[], &["a", "b"]), ("ab".into(), false));
    }

    #[test]
    fn stops_across_deltas_and_drops_the_stop_string() {
        assert_eq!(run(&["\nUser:"], &["Hi", " there\nUs", "er: next"]), ("Hi there".into(), true));
        assert_eq!(run(&["END", "##"], &["a#", "b##c"]), ("a#b".into(), true));
    }

    #[test]
    fn releases_a_false_start() {
        let stops = vec!["STOP".to_string()];
        let mut m = StopMatcher::new(&stops);
        assert_eq!(m.push("go ST"), ("go ".into(), false));
        assert_eq!(m.push("AY"), ("STAY".into(), false));
        assert_eq!(m.push("é S"), ("é ".into(), false));
        assert_eq!(m.flush(), "S");
    }
}
