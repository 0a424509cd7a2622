//! The OpenAI-compatible provider against a real llama.cpp `llama-server` (built by
//! `scripts/lib/model.sh llama-server`, path in `AMORA_LLAMA_SERVER`) serving the same GGUF
//! as the embedded model (`AMORA_MODEL_PATH`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::{Duration, Instant};

use amora_ai::AiError;
use amora_ai::chat::embedded::GgufTokenizer;
use amora_ai::chat::{self, ChatMessage, ChatRequest, FinishReason, ModelSettings, StreamEvent};
use futures_util::StreamExt;
use serde_json::{Value, json};
use support::llama_server::LlamaServer;

const THREADS: usize = 2;

async fn server() -> LlamaServer {
    LlamaServer::start(&support::llama_server_binary(), &support::model_path(), THREADS).await
}

fn chat_request() -> ChatRequest {
    ChatRequest::new(vec![
        ChatMessage::system("You are Mia, a friendly barista. Answer in two or three sentences."),
        ChatMessage::user("Hi Mia! What coffee would you recommend for a rainy afternoon?"),
    ])
    .max_tokens(60)
    .temperature(0.7)
    .seed(7)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_a_reply_from_llama_server() {
    let llama = server().await;
    let model = chat::build(&ModelSettings::openai(llama.base_url.clone(), "smollm2")).unwrap();
    assert_eq!(model.info().provider, "openai");

    let reply = model.stream(chat_request()).await.unwrap().collect_reply().await.unwrap();
    println!("reply ({} deltas, {:?}): {}", reply.deltas, reply.finish, reply.text);
    assert!(reply.deltas >= 2, "streamed in {} deltas", reply.deltas);
    assert!(reply.text.split_whitespace().count() >= 3, "{:?}", reply.text);
    assert!(matches!(reply.finish.reason, FinishReason::Stop | FinishReason::Length));
    let usage = reply.finish.usage.expect("llama-server reports usage with stream_options.include_usage");
    assert!(usage.completion_tokens >= 2 && usage.completion_tokens <= 60, "{usage:?}");

    let short = model
        .stream(
            ChatRequest::new(vec![ChatMessage::user("Write a long poem about the sea.")])
                .max_tokens(4)
                .temperature(0.0),
        )
        .await
        .unwrap()
        .collect_reply()
        .await
        .unwrap();
    assert_eq!(short.finish.reason, FinishReason::Length, "{short:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_drops_the_request_and_frees_the_server() {
    let llama = server().await;
    let model = chat::build(&ModelSettings::openai(llama.base_url.clone(), "smollm2")).unwrap();
    let request =
        ChatRequest::new(vec![ChatMessage::user("Write a very long story about a dragon who learns to bake bread.")])
            .max_tokens(1000);
    let cancel = request.cancel.clone();
    let mut stream = model.stream(request).await.unwrap();
    let mut deltas = 0;
    while deltas < 3 {
        match stream.next().await.unwrap().unwrap() {
            StreamEvent::Delta(_) => deltas += 1,
            StreamEvent::Done(finish) => panic!("ended early: {finish:?}"),
        }
    }
    cancel.cancel();
    let done = loop {
        match tokio::time::timeout(Duration::from_secs(5), stream.next()).await.unwrap().unwrap().unwrap() {
            StreamEvent::Done(finish) => break finish,
            StreamEvent::Delta(_) => {}
        }
    };
    assert_eq!(done.reason, FinishReason::Cancelled);
    assert!(stream.next().await.is_none());
    drop(stream);

    // The server notices the closed connection and stops generating (its one slot is idle).
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let slots: Value =
            client.get(format!("http://127.0.0.1:{}/slots", llama.port)).send().await.unwrap().json().await.unwrap();
        let busy = slots.as_array().unwrap().iter().any(|s| s["is_processing"].as_bool() == Some(true));
        if !busy {
            break;
        }
        assert!(Instant::now() < deadline, "llama-server still generates: {slots}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_refused_connection_is_unavailable_after_retries() {
    // A port with nothing listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut settings = ModelSettings::openai(format!("http://127.0.0.1:{port}/v1"), "m");
    settings.openai.connect_retries = 2;
    settings.openai.retry_backoff_ms = 100;
    let model = chat::build(&settings).unwrap();
    let started = Instant::now();
    let error = model.stream(chat_request()).await.unwrap_err();
    assert!(matches!(error, AiError::Unavailable(ref m) if m.contains("3 tries")), "{error:?}");
    assert!(error.is_retryable());
    // Pauses of 100 and 200 ms between the three tries.
    assert!(started.elapsed() >= Duration::from_millis(300), "{:?}", started.elapsed());

    // Cancelled while retrying: no error, a cancelled reply.
    settings.openai.retry_backoff_ms = 2_000;
    let model = chat::build(&settings).unwrap();
    let request = chat_request();
    let cancel = request.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let reply = model.stream(request).await.unwrap().collect_reply().await.unwrap();
    assert_eq!(reply.finish.reason, FinishReason::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn http_errors_map_to_error_kinds() {
    let llama = server().await;
    // llama-server answers 404 for an unknown path.
    let model = chat::build(&ModelSettings::openai(format!("http://127.0.0.1:{}/nope", llama.port), "m")).unwrap();
    let error = model.stream(chat_request()).await.unwrap_err();
    assert!(matches!(error, AiError::BadRequest(ref m) if m.contains("404")), "{error:?}");
}

/// The embedded tokenizer, built from the GGUF metadata, splits text exactly as llama.cpp does.
#[tokio::test]
async fn the_embedded_tokenizer_agrees_with_llama_cpp() {
    let llama = server().await;
    let tokenizer = GgufTokenizer::from_file(&support::model_path()).unwrap();
    let client = reqwest::Client::new();
    for text in [
        "Hello, world!",
        "  leading spaces, trailing spaces  ",
        "Numbers 3.14159 and 1,000,000; tabs\tand\nnew lines\n\n",
        "Ça va? Ünïcödé — 日本語のテキスト, Русский, العربية 🙂❤️‍🔥",
        "it's we'll they're I'd you've DON'T",
        "<|im_start|>user\nhi there<|im_end|>\n<|im_start|>assistant\n",
    ] {
        let answer: Value = client
            .post(format!("http://127.0.0.1:{}/tokenize", llama.port))
            .json(&json!({"content": text, "add_special": false, "parse_special": true}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let expected: Vec<u32> =
            answer["tokens"].as_array().unwrap().iter().map(|t| t.as_u64().unwrap() as u32).collect();
        assert_eq!(tokenizer.encode(text, true).unwrap(), expected, "tokens of {text:?}");
    }
}

/// A kept-alive connection that the service closes without answering (llama-server does
/// this now and then, when it ends a connection the client was about to reuse) is retried
/// at once on a new connection, and the reply comes. llama-server cannot be made to do it
/// on cue, so a bare HTTP peer plays that part: it answers the first request on a
/// connection, reads the second and hangs up; a new connection is answered again.
#[tokio::test]
async fn a_kept_alive_connection_closed_by_the_service_is_retried_on_a_new_one() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = connections.clone();
    tokio::spawn(async move {
        let body = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi there\"},\"finish_reason\":null}]}\n\n\
                    data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: keep-alive\r\n\r\n{body}",
            body.len()
        );
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 64 * 1024];
                for request in 0.. {
                    // One read holds a whole small request on loopback.
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) if request == 0 => stream.write_all(answer.as_bytes()).await.unwrap(),
                        Ok(_) => return, // the second request on this connection: hang up
                    }
                }
            });
        }
    });

    let model = chat::build(&ModelSettings::openai(format!("http://127.0.0.1:{port}/v1"), "m")).unwrap();
    for turn in 0..3 {
        let reply = model.stream(chat_request()).await.unwrap().collect_reply().await.unwrap();
        assert_eq!(reply.text, "Hi there", "turn {turn}");
    }
    // The first connection served turn 1; turn 2 found it closed and went on a second one;
    // turn 3 the same on a third.
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 3);
}
