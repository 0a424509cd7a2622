//! G.711 μ-law, the audio a call's browser sends (docs/api.md "Voice calls"): one byte a
//! sample, 16 kHz mono here, decoded into the 16-bit PCM the recognisers take. Twilio's
//! Media Streams and telephone lines carry the same code (at 8 kHz), so a phone bridge
//! could feed a call unchanged but for the rate ([`super::pcm::resample`]).
//!
//! A byte is the bit-inverted sign, a 3-bit exponent (segment) and a 4-bit mantissa of
//! the sample's magnitude plus a bias of 132 (ITU-T G.711, table 2a); decoding inverts
//! the bits and undoes the bias. The encoder is the decoder's inverse, for tests and tools
//! that need to make what a browser sends.

/// Added to a magnitude before it is encoded, so that every segment starts at a power of two.
const BIAS: i32 = 0x84;
/// Largest magnitude μ-law holds before the bias (G.711's 8,159 × 4 in 16-bit scale).
const CLIP: i32 = 32_635;

/// One μ-law byte as a 16-bit sample.
pub fn decode_sample(byte: u8) -> i16 {
    let byte = !byte;
    let exponent = (byte >> 4) & 0x07;
    let mantissa = i32::from(byte & 0x0f);
    let magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
    (if byte & 0x80 != 0 { -magnitude } else { magnitude }) as i16
}

/// μ-law bytes as 16-bit samples, one for one.
pub fn decode(bytes: &[u8]) -> Vec<i16> {
    bytes.iter().map(|&b| decode_sample(b)).collect()
}

/// One 16-bit sample as a μ-law byte (the nearest step below its magnitude).
pub fn encode_sample(sample: i16) -> u8 {
    let value = i32::from(sample);
    let sign: u8 = if value < 0 { 0x80 } else { 0 };
    let magnitude = value.abs().min(CLIP) + BIAS;
    // The segment: the highest set bit of the biased magnitude, from bit 7 (segment 0)
    // to bit 14 (segment 7).
    let mut exponent: u8 = 7;
    while exponent > 0 && magnitude & (0x80 << exponent) == 0 {
        exponent -= 1;
    }
    let mantissa = ((magnitude >> (exponent + 3)) & 0x0f) as u8;
    !(sign | (exponent << 4) | mantissa)
}

/// 16-bit samples as μ-law bytes.
pub fn encode(samples: &[i16]) -> Vec<u8> {
    samples.iter().map(|&s| encode_sample(s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_standard_values() {
        // ITU-T G.711 μ-law: 0xFF and 0x7F are zero, 0x80/0x00 the extremes, and the
        // steps of the segments in between.
        for (byte, sample) in [
            (0xFF, 0),
            (0x7F, 0),
            (0xFE, 8),
            (0xF0, 120),
            (0xEF, 132),
            (0xE0, 372),
            (0x8F, 16_764),
            (0x80, 32_124),
            (0x00, -32_124),
            (0x70, -120),
            (0x0F, -16_764),
        ] {
            assert_eq!(decode_sample(byte), sample, "{byte:#04x}");
        }
        assert_eq!(decode(&[0xFF, 0x80, 0x00]), vec![0, 32_124, -32_124]);
    }

    #[test]
    fn every_byte_survives_a_round_trip_and_samples_stay_close() {
        for byte in 0..=255u8 {
            let sample = decode_sample(byte);
            // The two zeros (0x7F is "negative zero") both come back as 0xFF.
            let back = encode_sample(sample);
            assert_eq!(decode_sample(back), sample, "{byte:#04x} → {sample} → {back:#04x}");
        }
        // Quantisation error stays within half a step of the sample's segment (≤ 3.2 %).
        for sample in (-32_000i32..32_000).step_by(97) {
            let sample = sample as i16;
            let back = i32::from(decode_sample(encode_sample(sample)));
            let error = (back - i32::from(sample)).abs();
            assert!(error <= 16 || error * 100 <= i32::from(sample).abs() * 7, "{sample} → {back}");
        }
        assert_eq!(decode_sample(encode_sample(i16::MAX)), 32_124, "clipped to the largest step");
        assert_eq!(decode_sample(encode_sample(i16::MIN)), -32_124);
    }
}
