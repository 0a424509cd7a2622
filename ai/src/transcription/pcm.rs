//! The audio the recognisers take: 16 kHz mono 16-bit PCM ([`SAMPLE_RATE`]), as plain
//! samples. A WAV around them for a program or a service, the samples out of a WAV, and a
//! resampler for audio captured at another rate (browsers record at 48 kHz; espeak-ng
//! writes 22 050 Hz).

use super::SAMPLE_RATE;
use crate::AiError;
use crate::voice::audio::wav_info;

/// Milliseconds that `samples` play at [`SAMPLE_RATE`].
pub fn duration_ms(samples: &[i16]) -> u64 {
    samples.len() as u64 * 1000 / u64::from(SAMPLE_RATE)
}

/// A canonical 44-byte-header WAV (RIFF, `fmt ` PCM, `data`) of mono 16-bit `samples` at
/// `sample_rate`. PocketSphinx 0.8 skips exactly 44 bytes of a `.wav`, so nothing else may
/// come between the header and the samples.
pub fn wav_bytes(samples: &[i16], sample_rate: u32) -> Vec<u8> {
    let data_len = (samples.len() * 2) as u32;
    let mut out = Vec::with_capacity(44 + samples.len() * 2);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&sample_rate.to_le_bytes());
    out.extend_from_slice(&(sample_rate * 2).to_le_bytes()); // bytes a second
    out.extend_from_slice(&2u16.to_le_bytes()); // bytes a frame
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for sample in samples {
        out.extend_from_slice(&sample.to_le_bytes());
    }
    out
}

/// The sample rate and mono samples of a 16-bit PCM WAV; several channels are averaged.
pub fn read_wav(bytes: &[u8]) -> Result<(u32, Vec<i16>), AiError> {
    let info = wav_info(bytes)?;
    if info.bits_per_sample != 16 || info.channels == 0 {
        return Err(AiError::BadRequest(format!(
            "the WAV holds {}-bit audio in {} channels; 16-bit PCM is needed",
            info.bits_per_sample, info.channels
        )));
    }
    let data = &bytes[info.data_start..info.data_start + info.data_len];
    let channels = usize::from(info.channels);
    let samples = data
        .chunks_exact(2 * channels)
        .map(|frame| {
            let sum: i32 = frame.chunks_exact(2).map(|s| i32::from(i16::from_le_bytes([s[0], s[1]]))).sum();
            (sum / channels as i32) as i16
        })
        .collect();
    Ok((info.sample_rate, samples))
}

/// Half the width of the resampling filter, in samples of the lower of the two rates: 16
/// keeps the pass band flat to about 90 % of the lower Nyquist frequency.
const HALF_TAPS: f64 = 16.0;

/// `samples` at `from` Hz converted to `to` Hz by band-limited (windowed-sinc)
/// interpolation. Going down, the filter first removes what the lower rate cannot hold, so
/// nothing above its Nyquist frequency folds back into the speech band as noise.
pub fn resample(samples: &[i16], from: u32, to: u32) -> Vec<i16> {
    if from == to || samples.is_empty() || from == 0 || to == 0 {
        return samples.to_vec();
    }
    let step = f64::from(from) / f64::from(to);
    // The cut-off as a fraction of the input's Nyquist frequency, a little under the
    // output's so the window's transition band falls below it.
    let cutoff = (f64::from(to) / f64::from(from)).min(1.0) * 0.95;
    let half_width = HALF_TAPS / cutoff;
    let out_len = (samples.len() as f64 / step).floor() as usize;
    let kernel = |x: f64| -> f64 {
        if x.abs() >= half_width {
            return 0.0;
        }
        let sinc = if x == 0.0 {
            1.0
        } else {
            let t = std::f64::consts::PI * cutoff * x;
            t.sin() / t
        };
        // Blackman window over [-half_width, half_width].
        let w = std::f64::consts::PI * x / half_width;
        let window = 0.42 + 0.5 * w.cos() + 0.08 * (2.0 * w).cos();
        cutoff * sinc * window
    };
    let last = samples.len() as i64 - 1;
    (0..out_len)
        .map(|n| {
            let t = n as f64 * step;
            let first = (t - half_width).ceil().max(0.0) as i64;
            let end = ((t + half_width).floor() as i64).min(last);
            let value: f64 = (first..=end).map(|k| f64::from(samples[k as usize]) * kernel(t - k as f64)).sum();
            value.round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(hz: f64, rate: u32, ms: u32, amplitude: f64) -> Vec<i16> {
        let n = rate as usize * ms as usize / 1000;
        (0..n)
            .map(|i| (amplitude * (2.0 * std::f64::consts::PI * hz * i as f64 / f64::from(rate)).sin()) as i16)
            .collect()
    }

    fn rms(samples: &[i16]) -> f64 {
        (samples.iter().map(|&s| f64::from(s).powi(2)).sum::<f64>() / samples.len().max(1) as f64).sqrt()
    }

    #[test]
    fn a_wav_round_trips_and_has_the_canonical_header() {
        let samples = tone(440.0, 16_000, 250, 8000.0);
        let wav = wav_bytes(&samples, 16_000);
        assert_eq!(wav.len(), 44 + samples.len() * 2);
        assert_eq!(&wav[36..40], b"data");
        let (rate, back) = read_wav(&wav).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((rate, back), (16_000, samples.clone()));
        assert_eq!(duration_ms(&samples), 250);
    }

    #[test]
    fn stereo_is_averaged_and_8_bit_refused() {
        let mut wav = wav_bytes(&[100, 300, -50, 50], 8_000);
        wav[22] = 2; // channels
        let (_, mono) = read_wav(&wav).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mono, vec![200, 0]);
        wav[34] = 8; // bits per sample
        assert!(matches!(read_wav(&wav), Err(AiError::BadRequest(m)) if m.contains("8-bit")));
    }

    #[test]
    fn resampling_keeps_speech_band_tones_and_drops_what_the_lower_rate_cannot_hold() {
        // 1 kHz at 22 050 Hz → 16 kHz: same length in time, same loudness.
        let input = tone(1000.0, 22_050, 1000, 10_000.0);
        let output = resample(&input, 22_050, 16_000);
        assert!((output.len() as i64 - 16_000).abs() <= 1, "{}", output.len());
        let (a, b) = (rms(&input), rms(&output[200..15_800]));
        assert!((a - b).abs() / a < 0.02, "rms {a} → {b}");
        // Zero crossings count the frequency: 1 kHz crosses 2000 times a second.
        let crossings = output.windows(2).filter(|w| (w[0] < 0) != (w[1] < 0)).count();
        assert!((1990..=2010).contains(&crossings), "{crossings} crossings");
        // 10 kHz is above 16 kHz's Nyquist frequency (8 kHz): filtered out, not folded to 6 kHz.
        let high = resample(&tone(10_000.0, 22_050, 500, 10_000.0), 22_050, 16_000);
        assert!(rms(&high[200..7_800]) < 100.0, "rms {}", rms(&high[200..7_800]));
        // Up from 8 kHz: twice the samples, the tone kept.
        let up = resample(&tone(500.0, 8_000, 500, 10_000.0), 8_000, 16_000);
        assert_eq!(up.len(), 8_000);
        assert!((rms(&up[200..7_800]) - 7071.0).abs() < 200.0, "rms {}", rms(&up[200..7_800]));
        assert_eq!(resample(&input[..10], 16_000, 16_000), input[..10].to_vec());
    }
}
