//! Just enough of the WAV and MP3 formats to know how long a clip plays: the duration the
//! client shows and the benchmark's real-time factor come from here, not from the backend.

use crate::AiError;

/// The PCM inside a RIFF/WAVE file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WavInfo {
    pub sample_rate: u32,
    pub channels: u16,
    pub bits_per_sample: u16,
    /// Where the sample data starts in the file.
    pub data_start: usize,
    /// Bytes of sample data.
    pub data_len: usize,
}

impl WavInfo {
    /// How long the PCM plays, in milliseconds.
    pub fn duration_ms(&self) -> u64 {
        let frame = u64::from(self.channels) * u64::from(self.bits_per_sample / 8);
        if frame == 0 || self.sample_rate == 0 {
            return 0;
        }
        (self.data_len as u64 / frame) * 1000 / u64::from(self.sample_rate)
    }
}

fn bad(what: &str) -> AiError {
    AiError::Internal(format!("malformed audio: {what}"))
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// Reads the `fmt ` and `data` chunks of a RIFF/WAVE file (PCM only).
pub fn wav_info(bytes: &[u8]) -> Result<WavInfo, AiError> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err(bad("not a RIFF/WAVE file"));
    }
    let mut at = 12;
    let mut format: Option<(u16, u16, u32, u16)> = None;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let len = u32_at(bytes, at + 4).ok_or_else(|| bad("chunk header"))? as usize;
        let body = at + 8;
        if id == b"fmt " {
            let tag = u16_at(bytes, body).ok_or_else(|| bad("fmt chunk"))?;
            let channels = u16_at(bytes, body + 2).ok_or_else(|| bad("fmt chunk"))?;
            let rate = u32_at(bytes, body + 4).ok_or_else(|| bad("fmt chunk"))?;
            let bits = u16_at(bytes, body + 14).ok_or_else(|| bad("fmt chunk"))?;
            format = Some((tag, channels, rate, bits));
        } else if id == b"data" {
            let (tag, channels, sample_rate, bits_per_sample) = format.ok_or_else(|| bad("data before fmt"))?;
            // 1 = PCM, 0xFFFE = WAVE_FORMAT_EXTENSIBLE (PCM in practice for speech).
            if tag != 1 && tag != 0xFFFE {
                return Err(bad("not PCM"));
            }
            // A streamed WAV may say 0 or 0xFFFFFFFF: the data runs to the end then.
            let data_len = len.min(bytes.len() - body);
            let data_len = if len == 0 { bytes.len() - body } else { data_len };
            return Ok(WavInfo { sample_rate, channels, bits_per_sample, data_start: body, data_len });
        }
        // Chunks are padded to an even length.
        at = body.saturating_add(len).saturating_add(len & 1);
    }
    Err(bad("no data chunk"))
}

/// The length of an ID3v2 tag at the start, if there is one.
fn id3v2_len(bytes: &[u8]) -> usize {
    if bytes.len() < 10 || &bytes[0..3] != b"ID3" {
        return 0;
    }
    let size = bytes[6..10].iter().fold(0usize, |acc, b| (acc << 7) | usize::from(b & 0x7F));
    let footer = if bytes[5] & 0x10 != 0 { 10 } else { 0 };
    10 + size + footer
}

/// One MPEG audio Layer III frame header: its length in bytes and the samples it holds.
fn layer3_frame(header: &[u8]) -> Option<(usize, u32, u32)> {
    let (b1, b2) = (header[1], header[2]);
    if header[0] != 0xFF || b1 & 0xE0 != 0xE0 {
        return None;
    }
    let version = (b1 >> 3) & 3; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
    let layer = (b1 >> 1) & 3; // 1 = Layer III
    if version == 1 || layer != 1 {
        return None;
    }
    let bitrate_index = usize::from(b2 >> 4);
    let rate_index = usize::from((b2 >> 2) & 3);
    if bitrate_index == 0 || bitrate_index == 15 || rate_index == 3 {
        return None;
    }
    let padding = usize::from((b2 >> 1) & 1);
    const MPEG1: [u32; 15] = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
    const MPEG2: [u32; 15] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
    let base_rate = [44_100u32, 48_000, 32_000][rate_index];
    let (kbps, sample_rate, samples, coefficient) = match version {
        3 => (MPEG1[bitrate_index], base_rate, 1152u32, 144usize),
        2 => (MPEG2[bitrate_index], base_rate / 2, 576, 72),
        _ => (MPEG2[bitrate_index], base_rate / 4, 576, 72),
    };
    let len = coefficient * kbps as usize * 1000 / sample_rate as usize + padding;
    Some((len, samples, sample_rate))
}

/// True when the bytes start like an MP3 file: an ID3v2 tag or a Layer III frame sync.
pub fn looks_like_mp3(bytes: &[u8]) -> bool {
    bytes.starts_with(b"ID3") || (bytes.len() >= 4 && layer3_frame(&bytes[..4]).is_some())
}

/// How long an MP3 (MPEG-1/2/2.5 Layer III) plays, by walking its frames; the encoder's
/// Xing/Info frame, which holds no sound, is not counted.
pub fn mp3_duration_ms(bytes: &[u8]) -> Result<u64, AiError> {
    let mut at = id3v2_len(bytes);
    let mut micros: u64 = 0;
    let mut frames = 0u32;
    while at + 4 <= bytes.len() {
        let Some((len, samples, sample_rate)) = layer3_frame(&bytes[at..at + 4]) else {
            if frames == 0 {
                return Err(bad("no MPEG Layer III frame where one should start"));
            }
            // An ID3v1 tag or trailing bytes: the sound has ended.
            break;
        };
        let frame = &bytes[at..bytes.len().min(at + len)];
        let info = frames == 0 && (contains(frame, b"Xing") || contains(frame, b"Info"));
        if !info {
            micros += u64::from(samples) * 1_000_000 / u64::from(sample_rate);
        }
        frames += 1;
        at += len.max(1);
    }
    if frames == 0 {
        return Err(bad("no MPEG Layer III frame"));
    }
    Ok(micros / 1000)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).take(64).any(|w| w == needle)
}

/// The content type and duration of audio a backend sent: MP3 or WAV, told by its bytes.
pub fn identify(bytes: &[u8]) -> Result<(&'static str, u64), AiError> {
    if bytes.starts_with(b"RIFF") {
        return Ok(("audio/wav", wav_info(bytes)?.duration_ms()));
    }
    if looks_like_mp3(bytes) {
        return Ok(("audio/mpeg", mp3_duration_ms(bytes)?));
    }
    Err(bad("neither MP3 nor WAV"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wav(rate: u32, samples: usize) -> Vec<u8> {
        let data = samples * 2;
        let mut out = Vec::new();
        out.extend_from_slice(b"RIFF");
        out.extend_from_slice(&((36 + data) as u32).to_le_bytes());
        out.extend_from_slice(b"WAVEfmt ");
        out.extend_from_slice(&16u32.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&rate.to_le_bytes());
        out.extend_from_slice(&(rate * 2).to_le_bytes());
        out.extend_from_slice(&2u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(b"data");
        out.extend_from_slice(&(data as u32).to_le_bytes());
        out.resize(out.len() + data, 0);
        out
    }

    #[test]
    fn a_wav_plays_for_its_samples_over_its_rate() {
        let info = wav_info(&wav(16_000, 24_000)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((info.sample_rate, info.channels, info.bits_per_sample), (16_000, 1, 16));
        assert_eq!((info.data_start, info.data_len), (44, 48_000));
        assert_eq!(info.duration_ms(), 1500);
        assert!(wav_info(b"RIFF....WAVEjunk").is_err());
        assert!(wav_info(b"not audio at all").is_err());
    }

    #[test]
    fn mp3_frames_are_counted_past_an_id3_tag() {
        // MPEG-2 Layer III, 32 kbps, 16 kHz, no padding: 72 * 32000 / 16000 = 144 bytes, 576 samples.
        let mut frame = vec![0xFF, 0xF3, 0x48, 0xC4];
        frame.resize(144, 0);
        let mut mp3 = b"ID3\x04\x00\x00\x00\x00\x00\x05".to_vec();
        mp3.extend_from_slice(&[0; 5]);
        for _ in 0..100 {
            mp3.extend_from_slice(&frame);
        }
        mp3.extend_from_slice(b"TAG trailing ID3v1");
        assert!(looks_like_mp3(&mp3));
        assert_eq!(mp3_duration_ms(&mp3).unwrap_or_else(|e| panic!("{e}")), 3600, "100 frames of 36 ms");
        assert_eq!(identify(&mp3).unwrap_or_else(|e| panic!("{e}")), ("audio/mpeg", 3600));
        assert!(mp3_duration_ms(b"\x00\x01garbage").is_err());
        assert!(identify(b"<html>oops</html>").is_err());
    }
}
