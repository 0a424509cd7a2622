//! DRY ("Don't Repeat Yourself"), the repetition penalty of koboldcpp, text-generation-webui
//! and llama.cpp (`dry_multiplier`, `dry_base`, `dry_allowed_length`): a token that would
//! extend a sequence already written earlier in the context (the prompt's history
//! included) is made less likely, the more so the longer the repeat would be. A plain
//! repetition penalty lowers every seen token alike; a small model still copies its
//! previous reply word for word, which DRY stops after a few tokens.
//!
//! Matching stops at a sequence breaker (a token holding a line break, `:`, `"` or `*`), so
//! the chat's structure (names, actions, quotes) is never penalised as a repeat.

use std::collections::HashMap;

/// The penalty's settings (`chat.embedded.dry_*`); `multiplier` 0 turns it off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dry {
    pub multiplier: f32,
    pub base: f32,
    /// A repeat this long or shorter is free.
    pub allowed_length: usize,
    /// How many of the newest tokens are searched for repeats.
    pub last_n: usize,
}

/// The exponent's cap: a repeat this much past the allowed length is already never sampled.
const MAX_EXPONENT: usize = 24;

/// Whether a token's bytes break a sequence: a line break, a colon, a double quote or an asterisk.
pub fn is_breaker(bytes: &[u8]) -> bool {
    bytes.iter().any(|b| matches!(b, b'\n' | b':' | b'"' | b'*'))
}

/// Lowers the logit of each token that would extend a repeat of the end of `context`
/// (oldest first) by `multiplier · base^(length − allowed_length)`, `length` being the
/// longest earlier sequence the end of `context` repeats right before that token.
pub fn apply_dry(logits: &mut [f32], dry: &Dry, context: &[u32], breaker: impl Fn(u32) -> bool) {
    if dry.multiplier <= 0.0 || context.len() < 2 {
        return;
    }
    let context = &context[context.len().saturating_sub(dry.last_n)..];
    let end = context.len() - 1;
    let last = context[end];
    if breaker(last) {
        return;
    }
    let mut longest: HashMap<u32, usize> = HashMap::new();
    for at in (0..end).filter(|&at| context[at] == last) {
        let mut length = 1;
        while length <= at && at + length < end {
            let (earlier, now) = (context[at - length], context[end - length]);
            if earlier != now || breaker(earlier) {
                break;
            }
            length += 1;
        }
        let next = context[at + 1];
        if !breaker(next) {
            let entry = longest.entry(next).or_default();
            *entry = (*entry).max(length);
        }
    }
    for (token, length) in longest {
        if length >= dry.allowed_length
            && let Some(logit) = logits.get_mut(token as usize)
        {
            let exponent = (length - dry.allowed_length).min(MAX_EXPONENT) as i32;
            *logit -= dry.multiplier * dry.base.powi(exponent);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRY: Dry = Dry { multiplier: 0.8, base: 1.75, allowed_length: 2, last_n: 1024 };

    #[test]
    fn the_token_that_would_repeat_a_sequence_is_lowered_by_its_length() {
        // 1 2 3 4 … 1 2 3: 4 would repeat "1 2 3 4" (a match of 3 before it).
        let context = [1, 2, 3, 4, 9, 1, 2, 3];
        let mut logits = vec![0.0; 10];
        apply_dry(&mut logits, &DRY, &context, |_| false);
        assert!((logits[4] - -(0.8 * 1.75)).abs() < 1e-6, "{logits:?}");
        assert!(logits.iter().enumerate().all(|(t, &l)| t == 4 || l == 0.0), "{logits:?}");
    }

    #[test]
    fn a_short_repeat_is_free_and_a_breaker_stops_the_match() {
        let mut logits = vec![0.0; 10];
        apply_dry(&mut logits, &DRY, &[5, 6, 7, 5], |_| false);
        assert!(logits.iter().all(|&l| l == 0.0), "a repeat of one token is allowed: {logits:?}");
        let mut logits = vec![0.0; 10];
        // 8 is a breaker: "1 8 2 3" repeated ends in "8 2 3", but the match stops at 8.
        apply_dry(&mut logits, &DRY, &[1, 8, 2, 3, 4, 1, 8, 2, 3], |t| t == 8);
        assert!((logits[4] - -0.8).abs() < 1e-6, "a match of 2, not 3: {logits:?}");
        let mut off = vec![0.0; 10];
        apply_dry(&mut off, &Dry { multiplier: 0.0, ..DRY }, &[1, 2, 3, 4, 1, 2, 3], |_| false);
        assert!(off.iter().all(|&l| l == 0.0));
    }
}
