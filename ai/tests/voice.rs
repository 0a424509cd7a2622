//! The OpenAI-compatible voice backend against a loopback service that follows
//! `POST /v1/audio/speech` (OpenAI's published API, which Kokoro-FastAPI and others
//! follow) and answers real MP3 made by the embedded synthesiser.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use amora_ai::AiError;
use amora_ai::voice::{
    self, EmbeddedVoiceSettings, Voice, VoiceModel, VoiceModelSettings, embedded::EmbeddedVoiceModel,
};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How the loopback service answers.
#[derive(Clone, Copy)]
enum Mode {
    Speak,
    Status(u16),
    Hang,
    Garbage,
}

struct Service {
    base_url: String,
    requests: Arc<Mutex<Vec<(String, Option<String>, Value)>>>,
}

async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<(String, Option<String>, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let path = head.split_whitespace().nth(1)?.to_owned();
    let header = |name: &str| {
        head.lines()
            .find(|l| l.to_ascii_lowercase().starts_with(&format!("{name}:")))
            .map(|l| l[name.len() + 1..].trim().to_owned())
    };
    let length: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    while buffer.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    Some((path, header("authorization"), buffer[head_end..head_end + length].to_vec()))
}

async fn service(mode: Mode) -> Service {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    let synthesiser = Arc::new(EmbeddedVoiceModel::new(&EmbeddedVoiceSettings::default()));
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            let (seen, synthesiser) = (seen.clone(), synthesiser.clone());
            tokio::spawn(async move {
                let Some((path, auth, body)) = read_request(&mut stream).await else { return };
                let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                seen.lock().unwrap().push((path.clone(), auth, json.clone()));
                let (status, content_type, payload): (u16, &str, Vec<u8>) = match mode {
                    Mode::Hang => {
                        tokio::time::sleep(Duration::from_secs(30)).await;
                        return;
                    }
                    Mode::Status(code) => {
                        (code, "application/json", br#"{"error":{"message":"voice 'zz' is not supported"}}"#.to_vec())
                    }
                    Mode::Garbage => (200, "audio/mpeg", b"<html>not audio</html>".to_vec()),
                    Mode::Speak if path != "/v1/audio/speech" => (404, "application/json", b"{}".to_vec()),
                    Mode::Speak => {
                        // The published API's fields; a service answers 400 without them.
                        let ok = json["model"].is_string()
                            && json["input"].is_string()
                            && json["voice"].is_string()
                            && json["response_format"] == "mp3";
                        if ok {
                            let voice = if json["voice"] == "onyx" { "rms" } else { "slt" };
                            let speech = synthesiser.speak(json["input"].as_str().unwrap(), voice).await.unwrap();
                            (200, "audio/mpeg", speech.bytes)
                        } else {
                            (400, "application/json", br#"{"error":{"message":"missing field"}}"#.to_vec())
                        }
                    }
                };
                let head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    payload.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&payload).await;
            });
        }
    });
    Service { base_url: format!("http://127.0.0.1:{port}/v1"), requests }
}

fn voices() -> Vec<Voice> {
    vec![
        Voice { voice_id: "nova".into(), gender: 0, label: "Nova".into() },
        Voice { voice_id: "onyx".into(), gender: 1, label: "Onyx".into() },
    ]
}

fn settings(base_url: &str) -> VoiceModelSettings {
    let mut settings = VoiceModelSettings::openai(base_url, "tts-1", voices());
    settings.openai.api_key = Some("sk-test".into());
    settings
}

#[tokio::test]
async fn speaks_through_the_service_and_measures_the_audio() {
    let service = service(Mode::Speak).await;
    let model = voice::build(&settings(&service.base_url)).unwrap();
    assert_eq!(model.voices(), voices());
    let speech = model.speak("Good evening. I kept a seat for you.", "nova").await.unwrap();
    assert_eq!(speech.content_type, "audio/mpeg");
    assert!(speech.bytes.starts_with(&[0xFF, 0xF3]), "the service's MP3");
    assert!((1000..5000).contains(&speech.duration_ms), "{} ms", speech.duration_ms);
    let requests = service.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let (path, auth, body) = &requests[0];
    assert_eq!(path, "/v1/audio/speech");
    assert_eq!(auth.as_deref(), Some("Bearer sk-test"));
    assert_eq!(body["model"], "tts-1");
    assert_eq!(body["voice"], "nova");
    assert_eq!(body["input"], "Good evening. I kept a seat for you.");
    assert_eq!(body["response_format"], "mp3");

    // Refused before anything is sent: an unknown voice, no text.
    assert!(matches!(model.speak("Hi", "alloy").await, Err(AiError::BadRequest(_))));
    assert!(matches!(model.speak(" ", "nova").await, Err(AiError::BadRequest(_))));
    assert_eq!(service.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn service_errors_map_to_error_kinds() {
    let bad = service(Mode::Status(400)).await;
    let error = voice::build(&settings(&bad.base_url)).unwrap().speak("Hi", "nova").await.unwrap_err();
    assert!(matches!(error, AiError::BadRequest(ref m) if m.contains("not supported")), "{error:?}");
    for busy in [429, 503] {
        let service = service(Mode::Status(busy)).await;
        let error = voice::build(&settings(&service.base_url)).unwrap().speak("Hi", "nova").await.unwrap_err();
        assert!(matches!(error, AiError::Busy(_)), "{busy}: {error:?}");
    }
    let broken = service(Mode::Status(500)).await;
    let error = voice::build(&settings(&broken.base_url)).unwrap().speak("Hi", "nova").await.unwrap_err();
    assert!(matches!(error, AiError::Unavailable(_)), "{error:?}");
    let garbage = service(Mode::Garbage).await;
    let error = voice::build(&settings(&garbage.base_url)).unwrap().speak("Hi", "nova").await.unwrap_err();
    assert!(matches!(error, AiError::Internal(ref m) if m.contains("neither MP3 nor WAV")), "{error:?}");
}

#[tokio::test]
async fn an_absent_or_silent_service_is_unavailable_in_time() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let error =
        voice::build(&settings(&format!("http://127.0.0.1:{port}/v1"))).unwrap().speak("Hi", "nova").await.unwrap_err();
    assert!(matches!(error, AiError::Unavailable(ref m) if m.contains("connect")), "{error:?}");

    let hanging = service(Mode::Hang).await;
    let mut settings = settings(&hanging.base_url);
    settings.openai.request_timeout_ms = 500;
    let started = Instant::now();
    let error = voice::build(&settings).unwrap().speak("Hi", "nova").await.unwrap_err();
    assert!(matches!(error, AiError::Unavailable(ref m) if m.contains("in time")), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_character_keeps_its_voice_and_gender() {
    let voices = vec![
        Voice { voice_id: "a".into(), gender: 0, label: "A".into() },
        Voice { voice_id: "b".into(), gender: 0, label: "B".into() },
        Voice { voice_id: "c".into(), gender: 0, label: "C".into() },
        Voice { voice_id: "m".into(), gender: 1, label: "M".into() },
    ];
    let pick = |gender: u8, key: &str| voice::choose_voice(&voices, gender, key).map(|v| v.voice_id.clone());
    assert_eq!(pick(1, "bf-001"), Some("m".into()));
    assert_eq!(pick(0, "gf-001"), pick(0, "gf-001"), "stable");
    let chosen: std::collections::HashSet<_> = (1..40).filter_map(|n| pick(0, &format!("gf-{n:03}"))).collect();
    assert_eq!(chosen.len(), 3, "female characters spread over the female voices");
    // No voice of the gender: any voice rather than silence.
    let only_female = &voices[..3];
    assert!(voice::choose_voice(only_female, 1, "bf-001").is_some());
    assert!(voice::choose_voice(&[], 0, "x").is_none());
}
