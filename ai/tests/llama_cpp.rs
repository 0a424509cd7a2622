//! The embedded model on the llama.cpp engine, with the real library (`AMORA_LLAMA_LIB`)
//! and the real SmolLM2 GGUF (`AMORA_MODEL_PATH`), both from `eval "$(scripts/lib/model.sh env)"`:
//! replies, continuous batching, the prefix cache, cancellation, the queue and the errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use amora_ai::AiError;
use amora_ai::chat::embedded::llama_cpp::LlamaCppChatModel;
use amora_ai::chat::{self, ChatMessage, ChatModel, ChatRequest, Engine, FinishReason, ModelSettings, StreamEvent};
use futures_util::StreamExt;

fn settings(concurrent: usize, queue: usize) -> ModelSettings {
    let mut settings = ModelSettings::embedded(support::model_path());
    settings.embedded.llama_library = Some(support::llama_library());
    // One thread: ggml's OpenMP threads spin at every barrier by default, and beside the
    // other tests on two cores a spinning pair took 10-30x longer per decode. (The
    // benchmarks, on an idle machine, use two, like llama-server.)
    settings.embedded.threads = Some(1);
    settings.embedded.concurrent_replies = concurrent;
    settings.embedded.queue_size = queue;
    // A small context keeps each test's KV cache small; the prompts here are short.
    settings.embedded.context_size = Some(1024);
    settings
}

fn model(concurrent: usize, queue: usize) -> Arc<LlamaCppChatModel> {
    Arc::new(LlamaCppChatModel::load(&settings(concurrent, queue)).unwrap())
}

fn greedy(user: &str, max_tokens: u32) -> ChatRequest {
    ChatRequest::new(vec![
        ChatMessage::system("You are Mia, a friendly barista. Answer in two or three sentences."),
        ChatMessage::user(user),
    ])
    .max_tokens(max_tokens)
    .temperature(0.0)
}

async fn reply(model: &dyn ChatModel, request: ChatRequest) -> chat::Reply {
    let stream = model.stream(request).await.unwrap();
    tokio::time::timeout(Duration::from_secs(120), stream.collect_reply())
        .await
        .expect("a reply within 2 minutes")
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_auto_engine_picks_llama_cpp_when_its_library_is_set_and_a_reply_streams_in_whole_characters() {
    let mut settings = settings(2, 4);
    assert_eq!(settings.embedded.resolved_engine(), Engine::LlamaCpp);
    let model = chat::build(&settings).unwrap();
    assert_eq!(model.info().provider, "embedded");
    assert!(model.info().model.to_lowercase().contains("smollm2"), "{:?}", model.info());
    assert_eq!(model.info().context_window, Some(1024));

    let mut stream =
        model.stream(greedy("Hi Mia! What coffee would you recommend for a rainy afternoon?", 40)).await.unwrap();
    let mut text = String::new();
    let mut deltas = 0;
    let finish = loop {
        match stream.next().await.expect("an item").unwrap() {
            StreamEvent::Delta(delta) => {
                assert!(!delta.is_empty());
                text.push_str(&delta);
                deltas += 1;
            }
            StreamEvent::Done(finish) => break finish,
        }
    };
    assert!(deltas > 3, "streamed in pieces: {deltas}");
    assert!(text.split_whitespace().count() >= 5, "a reply of words: {text:?}");
    let usage = finish.usage.expect("usage");
    assert!(usage.prompt_tokens > 20 && usage.completion_tokens >= 1, "{usage:?}");
    assert!(usage.completion_tokens <= 40);

    // Without a library `auto` means candle, which a build without `--features candle` does
    // not have: it says what to set instead.
    settings.embedded.llama_library = None;
    assert_eq!(settings.embedded.resolved_engine(), Engine::Candle);
    if !cfg!(feature = "candle") {
        let error = chat::build(&settings).err().expect("no engine without candle or a library");
        assert!(matches!(error, AiError::Unavailable(ref m) if m.contains("llama_library")), "{error:?}");
    }
    settings.embedded.engine = Engine::LlamaCpp;
    let error = chat::build(&settings).err().expect("llama_cpp without a library is refused");
    assert!(matches!(error, AiError::BadRequest(ref m) if m.contains("llama_library")), "{error:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn greedy_replies_are_repeatable_and_stop_strings_end_them() {
    // Without the prefix cache each reply is computed in the same pieces, so the same greedy
    // request gives the same text.
    let model = model_with_no_cache();
    let question = "Hi Mia! What coffee would you recommend for a rainy afternoon?";
    let first = reply(model.as_ref(), greedy(question, 30)).await;
    let second = reply(model.as_ref(), greedy(question, 30)).await;
    assert_eq!(first.text, second.text, "the same greedy request twice");
    let word = first.text.split_whitespace().nth(3).expect("four words").to_owned();
    let stopped = reply(model.as_ref(), greedy(question, 30).stop([word.clone()])).await;
    assert_eq!(stopped.finish.reason, FinishReason::Stop);
    assert!(!stopped.text.contains(&word), "{:?} stops before {word:?}", stopped.text);
    assert!(first.text.starts_with(&stopped.text), "{:?} is the start of {:?}", stopped.text, first.text);
}

/// Continue on a reply that had ended: the model ended its turn at once, three times, and
/// Continue failed (the swipes journey, 2026-11-29). `min_tokens` holds the end back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_turn_waits_for_min_tokens() {
    let model = model_with_no_cache();
    let ended = || greedy("Say hello.", 30).prefill("Hello! It is so nice to meet you. Have a lovely day!");
    let at_once = reply(model.as_ref(), ended()).await;
    let held = reply(model.as_ref(), ended().min_tokens(6)).await;
    let written = |r: &chat::Reply| r.finish.usage.expect("usage").completion_tokens;
    assert!(written(&held) >= 6, "{:?}: {:?}", held.text, held.finish);
    assert!(written(&held) > written(&at_once), "{:?} then {:?}", at_once.text, held.text);
}

/// A reply that opened with a stop string said nothing (the journeys' "the model wrote no
/// usable reply in 3 tries", 2026-11-29): written again with `avoid_stop_openings`, its first
/// token is neither a stop string's first token nor whitespace alone, so it says something.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_written_again_does_not_open_with_a_stop_string() {
    let model = model_with_no_cache();
    let question = "Hi Mia! What coffee would you recommend for a rainy afternoon?";
    let natural = reply(model.as_ref(), greedy(question, 30)).await;
    let first_word = natural.text.split_whitespace().next().expect("a word").to_owned();
    let label = format!("{first_word}:");
    // Stopped at its opening word, the reply says nothing...
    let stopped = reply(model.as_ref(), greedy(question, 30).stop([first_word.clone(), format!("\n{label}")])).await;
    assert_eq!(stopped.text.trim(), "", "{:?} stops at once", natural.text);
    // ...and written again so, it opens otherwise and says something.
    let again = reply(
        model.as_ref(),
        greedy(question, 30).stop([first_word.clone(), format!("\n{label}")]).avoid_stop_openings(true),
    )
    .await;
    assert!(!again.text.trim().is_empty(), "{:?} said nothing again", natural.text);
    assert!(!again.text.starts_with(char::is_whitespace) && !again.text.starts_with(&first_word), "{:?}", again.text);
    // With a prefill the model goes on from the caller's text: nothing is held back.
    let prefilled = greedy(question, 30).prefill("Well,").avoid_stop_openings(true);
    assert!(!reply(model.as_ref(), prefilled).await.text.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_written_at_once_share_their_decodes() {
    let model = model(4, 4);
    let questions = [
        "What is your favourite pastry?",
        "Tell me about the best tea you sell.",
        "How do you make a flat white?",
        "What music do you play in the cafe?",
    ];
    let before = model.batch_stats();
    let replies = futures_util::future::join_all(questions.iter().map(|q| reply(model.as_ref(), greedy(q, 48)))).await;
    let after = model.batch_stats();
    let written: u64 = replies.iter().map(|r| u64::from(r.finish.usage.unwrap().completion_tokens)).sum();
    let decodes = after.decodes - before.decodes;
    for reply in &replies {
        assert!(!reply.text.trim().is_empty(), "{replies:?}");
    }
    // One at a time, each token written would be a decode of its own (and each prompt at
    // least one more). Together, a decode carries the next token of every reply.
    assert!(written > 60, "{written} tokens written");
    assert!(
        decodes * 2 < written,
        "{decodes} decodes for {written} reply tokens of 4 replies at once: they were not batched"
    );
    assert!(after.tokens - before.tokens >= written, "{after:?} {before:?}");

    // Each reply answers its own conversation: it starts as it would alone (greedy). Only its
    // start: a token's logits computed in a batch of four differ from those computed alone in
    // the last bits (other kernels' summation order), and a 135M model's near-ties then part
    // the two texts a few words in, as they do in llama-server.
    for (question, together) in questions.iter().zip(&replies) {
        let alone = reply(model.as_ref(), greedy(question, 8)).await;
        assert_eq!(first_words(&alone.text, 2), first_words(&together.text, 2), "{question}");
    }
}

fn first_words(text: &str, n: usize) -> Vec<&str> {
    text.split_whitespace().take(n).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_turn_starts_from_the_kept_prompt() {
    let model = model(1, 4);
    let mut messages = vec![
        ChatMessage::system(
            "You are Luna, a warm storyteller. You live in a lighthouse by the sea and love \
             talking about ships, storms and the stars over the water at night.",
        ),
        ChatMessage::user("Hello Luna! How was the storm last night?"),
    ];
    let first = reply(model.as_ref(), ChatRequest::new(messages.clone()).max_tokens(24).temperature(0.0)).await;
    let prompt_of_first = u64::from(first.finish.usage.unwrap().prompt_tokens);
    let before = model.prompt_cache().unwrap();
    messages.push(ChatMessage::assistant(first.text.clone()));
    messages.push(ChatMessage::user("Did any ship come close to the rocks?"));
    let second = reply(model.as_ref(), ChatRequest::new(messages.clone()).max_tokens(24).temperature(0.0)).await;
    let after = model.prompt_cache().unwrap();
    let reused = after.reused_tokens - before.reused_tokens;
    assert!(
        reused >= prompt_of_first - 1,
        "the second turn reused {reused} tokens; the first turn's prompt was {prompt_of_first}"
    );
    assert!(!second.text.trim().is_empty());

    // A regenerate (the same prompt again) feeds only its last token, and starts as the reply
    // of a model that never saw the prompt (only its start: see the batching test).
    let again = reply(model.as_ref(), ChatRequest::new(messages.clone()).max_tokens(8).temperature(0.0)).await;
    let fresh = model_with_no_cache();
    let cold = reply(fresh.as_ref(), ChatRequest::new(messages).max_tokens(8).temperature(0.0)).await;
    assert_eq!(first_words(&again.text, 2), first_words(&cold.text, 2), "from the cache and from nothing");
    assert!(model.prompt_cache().unwrap().reused_tokens > after.reused_tokens, "the regenerate reused the prompt");
    assert_eq!(fresh.prompt_cache().unwrap().reused_tokens, 0);
}

fn model_with_no_cache() -> Arc<LlamaCppChatModel> {
    let mut settings = settings(1, 4);
    settings.embedded.prefix_cache_tokens = 0;
    Arc::new(LlamaCppChatModel::load(&settings).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_reply_frees_its_slot_and_a_full_queue_is_refused() {
    let model = model(1, 1);
    let long = || {
        ChatRequest::new(vec![ChatMessage::user("Write a very long story about a dragon who learns to bake bread.")])
            .max_tokens(400)
            .temperature(0.8)
            .seed(3)
    };
    let first = long();
    let cancel = first.cancel.clone();
    let mut running = model.stream(first).await.unwrap();
    assert!(matches!(running.next().await, Some(Ok(StreamEvent::Delta(_)))), "the first reply is being written");
    let waiting = model.stream(long()).await.unwrap();
    let refused = model.stream(long()).await.expect_err("the queue of one is full");
    assert_eq!(refused, AiError::QueueFull);

    cancel.cancel();
    let mut reason = None;
    while let Some(event) = running.next().await {
        if let StreamEvent::Done(finish) = event.unwrap() {
            reason = Some(finish.reason);
        }
    }
    assert_eq!(reason, Some(FinishReason::Cancelled));
    // The waiting reply gets the slot.
    let mut waiting = waiting;
    let started = tokio::time::timeout(Duration::from_secs(60), waiting.next()).await.expect("the next reply starts");
    assert!(matches!(started, Some(Ok(StreamEvent::Delta(_)))), "{started:?}");
    drop(waiting);
    let after = reply(model.as_ref(), greedy("Hello!", 8)).await;
    assert!(after.finish.usage.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_over_the_window_and_a_missing_library_are_clear_errors() {
    let model = model(1, 1);
    let long = "word ".repeat(3000);
    let error = model.stream(greedy(&long, 8)).await.expect_err("over the window");
    assert!(matches!(error, AiError::BadRequest(ref m) if m.contains("context window")), "{error:?}");

    let mut settings = settings(1, 1);
    settings.embedded.llama_library = Some(PathBuf::from("/nonexistent/libamora_llama.so"));
    let error = LlamaCppChatModel::load(&settings).expect_err("no library");
    assert!(matches!(error, AiError::Unavailable(ref m) if m.contains("llama-shim")), "{error:?}");

    let mut settings = self::settings(1, 1);
    let not_gguf = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(not_gguf.path(), b"not a model").unwrap();
    settings.embedded.model_path = Some(not_gguf.path().to_path_buf());
    let error = LlamaCppChatModel::load(&settings).expect_err("not a GGUF");
    assert!(matches!(error, AiError::BadRequest(ref m) if m.contains("not a GGUF")), "{error:?}");
}

/// Issue 30: the language bias, built from the real vocabulary, leaves every token of a
/// sentence in the language alone and never lets one of another script through.
#[test]
fn the_language_bias_keeps_a_languages_own_tokens_and_bans_other_scripts() {
    let tokenizer = amora_ai::chat::embedded::GgufTokenizer::from_file(&support::model_path()).unwrap();
    let vocabulary = tokenizer.vocab_size();
    for (language, own, other) in [
        ("en", "Hey! I just got home from work, it was a long day.", "こんにちは"),
        ("de", "Ich wohne seit drei Jahren in Leipzig, in einer kleinen Wohnung.", "Привет"),
        ("ja", "私は札幌に住んでいます。冬はとても寒いです。", "Hello"),
        ("ko", "나는 부산에 살아. 바다가 가까워서 좋아.", "東京"),
    ] {
        let bias = tokenizer.language_bias(language, false).unwrap();
        assert_eq!(bias.len(), vocabulary, "one bias a token");
        for id in tokenizer.encode(own, false).unwrap() {
            let text = tokenizer.decode(&[id], false);
            assert!(bias[id as usize] > -7.0, "{language}: {text:?} ({id}) is held back: {}", bias[id as usize]);
        }
        let banned = tokenizer.encode(other, false).unwrap();
        assert!(banned.iter().any(|&id| bias[id as usize] < -1000.0), "{language}: {other} is let through");
    }
}
