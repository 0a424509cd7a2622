//! Choosing the next token from the model's logits: the repeat penalty, then greedy or
//! temperature with top-k then top-p, drawn from a seeded generator.
//!
//! The same steps, in the same floating-point order, as candle-transformers 0.11's
//! `LogitsProcessor` (`Sampling::ArgMax` and `TopKThenTopP`) and `apply_repeat_penalty`,
//! which both engines used before: a seed picks the very same tokens as it did, and the
//! llama.cpp engine needs no tensor library (`tests` compares the two when candle is built in).

use std::collections::HashSet;

use rand09::SeedableRng;
use rand09::distr::Distribution;
use rand09::distr::weighted::WeightedIndex;
use rand09::rngs::StdRng;

use crate::AiError;

/// How the next token is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// The most likely token.
    ArgMax,
    /// Among the `k` most likely tokens, the fewest whose probabilities reach `p`, at
    /// `temperature`.
    TopKThenTopP { k: usize, p: f64, temperature: f64 },
}

/// A reply's sampler: its seeded generator and its sampling.
pub struct Sampler {
    rng: StdRng,
    sampling: Sampling,
}

impl Sampler {
    pub fn new(seed: u64, sampling: Sampling) -> Self {
        Self { rng: StdRng::seed_from_u64(seed), sampling }
    }

    /// The next token after `logits` (one per vocabulary entry).
    pub fn sample(&mut self, logits: &[f32]) -> Result<u32, AiError> {
        if logits.is_empty() {
            return Err(AiError::Internal("the model gave no logits".into()));
        }
        match self.sampling {
            Sampling::ArgMax => Ok(argmax(logits)),
            Sampling::TopKThenTopP { k, p, temperature } => {
                let mut probabilities = softmax_at(logits, temperature);
                self.top_k_then_top_p(&mut probabilities, k, p as f32)
            }
        }
    }

    fn multinomial(&mut self, probabilities: &[f32]) -> Result<u32, AiError> {
        let distribution = WeightedIndex::new(probabilities)
            .map_err(|e| AiError::Internal(format!("cannot sample the next token: {e}")))?;
        Ok(distribution.sample(&mut self.rng) as u32)
    }

    /// Top-p (nucleus): the least likely tokens past `top_p` of the mass are set to zero.
    fn top_p(&mut self, probabilities: &mut [f32], top_p: f32) -> Result<u32, AiError> {
        let mut order: Vec<usize> = (0..probabilities.len()).collect();
        order.sort_by(|&i, &j| probabilities[j].total_cmp(&probabilities[i]));
        let mut sum = 0.0;
        for &index in &order {
            if sum >= top_p {
                probabilities[index] = 0.0;
            } else {
                sum += probabilities[index];
            }
        }
        self.multinomial(probabilities)
    }

    fn top_k_then_top_p(&mut self, probabilities: &mut [f32], top_k: usize, top_p: f32) -> Result<u32, AiError> {
        if top_k >= probabilities.len() {
            return self.top_p(probabilities, top_p);
        }
        let mut order: Vec<usize> = (0..probabilities.len()).collect();
        let (best, _, _) = order.select_nth_unstable_by(top_k, |&i, &j| probabilities[j].total_cmp(&probabilities[i]));
        let mut kept: Vec<f32> = best.iter().map(|&i| probabilities[i]).collect();
        let mass = kept.iter().sum::<f32>();
        let index =
            if top_p <= 0.0 || top_p >= mass { self.multinomial(&kept)? } else { self.top_p(&mut kept, top_p)? };
        Ok(best[index as usize] as u32)
    }
}

/// Divides the logits of tokens seen in `context` by `penalty` (multiplies the negative
/// ones), each token once however often it was seen.
pub fn apply_repeat_penalty(logits: &mut [f32], penalty: f32, context: &[u32]) {
    let mut seen = HashSet::new();
    for &token in context {
        if !seen.insert(token) {
            continue;
        }
        if let Some(logit) = logits.get_mut(token as usize) {
            if *logit >= 0.0 {
                *logit /= penalty;
            } else {
                *logit *= penalty;
            }
        }
    }
}

/// The first index of the largest logit.
fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0;
    for (index, &logit) in logits.iter().enumerate().skip(1) {
        if logit > logits[best] {
            best = index;
        }
    }
    best as u32
}

/// The probabilities at `temperature`: the logits scaled by 1/temperature (as an f32
/// multiply, as candle's affine op does), less their maximum, exponentiated and divided by
/// their sum.
fn softmax_at(logits: &[f32], temperature: f64) -> Vec<f32> {
    let scale = (1.0 / temperature) as f32;
    let mut probabilities: Vec<f32> = logits.iter().map(|&l| l * scale + 0.0).collect();
    let max = probabilities.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for p in &mut probabilities {
        *p = (*p - max).exp();
    }
    let sum = sum_like_candle(&probabilities);
    for p in &mut probabilities {
        *p /= sum;
    }
    probabilities
}

/// The sum in candle's order: with AVX2, eight lanes times four accumulators over blocks of
/// 32, the accumulators folded pairwise, the lanes by halves, then the rest one by one;
/// without it, one by one. Float addition is not associative, so the order is what makes the
/// probabilities, and so the seeded draws, the very same.
fn sum_like_candle(values: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        let blocks = values.len() / 32 * 32;
        let mut accumulators = [[0.0f32; 8]; 4];
        for block in values[..blocks].chunks_exact(32) {
            for (j, accumulator) in accumulators.iter_mut().enumerate() {
                for (lane, value) in accumulator.iter_mut().enumerate() {
                    *value += block[j * 8 + lane];
                }
            }
        }
        let mut lanes = [0.0f32; 8];
        for (lane, value) in lanes.iter_mut().enumerate() {
            let a = accumulators[0][lane] + accumulators[1][lane];
            let b = accumulators[2][lane] + accumulators[3][lane];
            *value = a + b;
        }
        let half: [f32; 4] = std::array::from_fn(|l| lanes[l] + lanes[l + 4]);
        let mut sum = (half[0] + half[1]) + (half[2] + half[3]);
        for &value in &values[blocks..] {
            sum += value;
        }
        return sum;
    }
    let mut sum = 0.0;
    for &value in values {
        sum += value;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logits(seed: u64, n: usize) -> Vec<f32> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n).map(|_| rand09::Rng::random_range(&mut rng, -12.0f32..14.0)).collect()
    }

    #[test]
    fn greedy_takes_the_first_largest() {
        let mut sampler = Sampler::new(1, Sampling::ArgMax);
        assert_eq!(sampler.sample(&[0.5, 3.0, -1.0, 3.0]).unwrap_or(9), 1);
        assert!(sampler.sample(&[]).is_err());
    }

    #[test]
    fn top_k_keeps_to_the_k_most_likely_and_a_seed_repeats() {
        let values = logits(7, 500);
        let mut ranked: Vec<usize> = (0..values.len()).collect();
        ranked.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
        let allowed: HashSet<u32> = ranked[..5].iter().map(|&i| i as u32).collect();
        let sampling = Sampling::TopKThenTopP { k: 5, p: 0.99, temperature: 1.5 };
        let draws = |seed| {
            let mut sampler = Sampler::new(seed, sampling);
            (0..200).map(|_| sampler.sample(&values).unwrap_or(u32::MAX)).collect::<Vec<_>>()
        };
        let first = draws(42);
        assert!(first.iter().all(|t| allowed.contains(t)), "{first:?}");
        assert!(first.iter().collect::<HashSet<_>>().len() > 1, "temperature 1.5 over 5 tokens varies");
        assert_eq!(first, draws(42));
        assert_ne!(first, draws(43));
    }

    #[test]
    fn the_repeat_penalty_lowers_each_seen_token_once() {
        let mut values = vec![2.0, -2.0, 1.0];
        apply_repeat_penalty(&mut values, 2.0, &[0, 1, 0, 0, 7]);
        assert_eq!(values, [1.0, -4.0, 1.0]);
    }

    #[test]
    fn the_sum_in_candles_order_is_a_sum() {
        let values = logits(3, 49_152).iter().map(|v| v.abs()).collect::<Vec<_>>();
        let plain: f64 = values.iter().map(|&v| f64::from(v)).sum();
        assert!((f64::from(sum_like_candle(&values)) - plain).abs() / plain < 1e-5);
        assert_eq!(sum_like_candle(&[1.0, 2.0, 3.5]), 6.5);
    }

    /// The proof that a seed draws what it drew before: the same logits through candle's
    /// LogitsProcessor and apply_repeat_penalty, token for token.
    #[cfg(feature = "candle")]
    #[test]
    fn draws_the_very_tokens_candles_logits_processor_draws() {
        use candle_core::{Device, Tensor};
        use candle_transformers::generation::{LogitsProcessor, Sampling as CandleSampling};
        let settings = [
            (Sampling::ArgMax, CandleSampling::ArgMax),
            (
                Sampling::TopKThenTopP { k: 40, p: 0.9, temperature: 0.7 },
                CandleSampling::TopKThenTopP { k: 40, p: 0.9, temperature: 0.7 },
            ),
            (
                Sampling::TopKThenTopP { k: 40, p: 0.95, temperature: 2.5 },
                CandleSampling::TopKThenTopP { k: 40, p: 0.95, temperature: 2.5 },
            ),
            (
                Sampling::TopKThenTopP { k: 60_000, p: 0.9, temperature: 3.0 },
                CandleSampling::TopKThenTopP { k: 60_000, p: 0.9, temperature: 3.0 },
            ),
        ];
        let mut varied = 0;
        for seed in 0..12u64 {
            // SmolLM2's vocabulary size, and one that is not a multiple of 32.
            let size = if seed % 2 == 0 { 49_152 } else { 49_153 };
            for (ours, theirs) in &settings {
                let mut mine = Sampler::new(seed, *ours);
                let mut candle = LogitsProcessor::from_sampling(seed, theirs.clone());
                let mut drawn = HashSet::new();
                for step in 0..40u64 {
                    let mut values = logits(seed * 1000 + step, size);
                    let context: Vec<u32> = (0..64).map(|i| ((i * 7919 + step) % size as u64) as u32).collect();
                    let tensor =
                        Tensor::from_slice(&values, values.len(), &Device::Cpu).unwrap_or_else(|e| panic!("{e}"));
                    let tensor = candle_transformers::utils::apply_repeat_penalty(&tensor, 1.1, &context)
                        .unwrap_or_else(|e| panic!("{e}"));
                    apply_repeat_penalty(&mut values, 1.1, &context);
                    let expected = candle.sample(&tensor).unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(
                        mine.sample(&values).unwrap_or(u32::MAX),
                        expected,
                        "seed {seed}, step {step}, {ours:?}"
                    );
                    drawn.insert(expected);
                }
                varied += usize::from(drawn.len() > 1);
            }
        }
        assert!(varied >= 24, "the sampled settings drew more than one token: {varied} of 48");
    }
}
