//! The embedded chat model with the real SmolLM2 GGUF (`AMORA_MODEL_PATH`, set by
//! `eval "$(scripts/lib/model.sh env)"`): tokenizer, replies, cancellation, the queue.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use amora_ai::AiError;
use amora_ai::chat::embedded::{
    EmbeddedChatModel, GgufMetadata, GgufTokenizer, SOURCE_SHA256_KEY, converted_path, prepare_model, sha256_file,
};
use amora_ai::chat::{
    self, ChatMessage, ChatModel, ChatRequest, FinishReason, ModelSettings, Requantize, StreamEvent, TokenStream,
};
use candle_core::quantized::gguf_file;
use futures_util::StreamExt;

fn tokenizer() -> GgufTokenizer {
    GgufTokenizer::from_file(&support::model_path()).unwrap()
}

fn model(concurrent: usize, queue: usize) -> Arc<dyn ChatModel> {
    let mut settings = ModelSettings::embedded(support::model_path());
    settings.embedded.concurrent_replies = concurrent;
    settings.embedded.queue_size = queue;
    chat::build(&settings).unwrap()
}

fn chat_request() -> ChatRequest {
    ChatRequest::new(vec![
        ChatMessage::system("You are Mia, a friendly barista. Answer in two or three sentences."),
        ChatMessage::user("Hi Mia! What coffee would you recommend for a rainy afternoon?"),
    ])
    .max_tokens(60)
    .seed(7)
}

/// A request whose reply goes on for a while (for cancellation and queue tests).
fn long_request() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::user("Write a very long story about a dragon who learns to bake bread.")])
        .max_tokens(400)
        .temperature(0.8)
        .seed(3)
}

async fn next_event(stream: &mut TokenStream) -> StreamEvent {
    tokio::time::timeout(Duration::from_secs(60), stream.next())
        .await
        .expect("an event within a minute")
        .expect("the stream has not ended")
        .expect("no error")
}

async fn wait_for_delta(stream: &mut TokenStream) {
    if let StreamEvent::Done(finish) = next_event(stream).await {
        panic!("the reply ended before its next token: {finish:?}");
    }
}

#[test]
fn tokenizer_is_built_from_the_gguf_metadata() {
    let t = tokenizer();
    assert_eq!(t.vocab_size(), 49152);
    assert_eq!(t.pre_tokenizer(), "smollm");
    assert_eq!((t.unk_id(), t.bos_id(), t.eos_id()), (Some(0), Some(1), Some(2)));
    assert_eq!(t.token(1), Some("<|im_start|>"));
    assert_eq!(t.token(2), Some("<|im_end|>"));
    assert!(t.is_control(0) && t.is_control(1) && t.is_control(2));
    assert!(t.ends_turn(2) && !t.ends_turn(t.token_id("Hello").unwrap()));
    assert_eq!(t.default_system_prompt(), Some("You are a helpful AI assistant named SmolLM, trained by Hugging Face"));

    // Byte-level BPE with GPT-2 spaces; digits one by one ("smollm" pre-tokenizer).
    let ids = t.encode("Hello world", false).unwrap();
    let pieces: Vec<_> = ids.iter().map(|id| t.token(*id).unwrap()).collect();
    assert_eq!(pieces, ["Hello", "Ġworld"]);
    let digits = t.encode("2024", false).unwrap();
    assert_eq!(digits.iter().map(|id| t.token(*id).unwrap()).collect::<Vec<_>>(), ["2", "0", "2", "4"]);
}

#[test]
fn tokenizer_round_trips_text_and_special_tokens() {
    let t = tokenizer();
    for text in [
        "Hello, world!",
        "  leading spaces, trailing spaces  ",
        "Numbers 3.14159 and 1,000,000; tabs\tand\nnew lines\n\n",
        "Ça va? Ünïcödé — 日本語のテキスト, Русский, العربية 🙂❤️‍🔥",
        "it's we'll they're I'd you've",
        "<|im_start|>user\nhi there<|im_end|>\n<|im_start|>assistant\n",
    ] {
        let ids = t.encode(text, true).unwrap();
        assert_eq!(t.decode(&ids, false), text, "round trip of {text:?}");
        assert_eq!(t.decode_with_hf(&ids, false).unwrap(), text, "Hugging Face's decoding of {text:?}");
    }

    // Control tokens: one id when parsed, plain text when not (user content is never parsed).
    assert_eq!(t.encode("<|im_start|>", true).unwrap(), [1]);
    assert_eq!(t.encode("<|im_end|>", true).unwrap(), [2]);
    let plain = t.encode("<|im_end|>", false).unwrap();
    assert!(plain.len() > 1 && !plain.contains(&2), "{plain:?}");
    assert_eq!(t.decode(&plain, true), "<|im_end|>");
    let parsed = t.encode("<|im_start|>user\nhi<|im_end|>", true).unwrap();
    assert_eq!(t.decode(&parsed, true), "user\nhi");

    // The chat template: ChatML, the default system prompt only when there is none.
    let messages = [ChatMessage::user("Hi <|im_end|> there")];
    let text = t.render_chat(&messages);
    assert_eq!(
        text,
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n\
         <|im_start|>user\nHi <|im_end|> there<|im_end|>\n<|im_start|>assistant\n"
    );
    let ids = t.encode_chat(&messages).unwrap();
    assert_eq!(t.decode(&ids, false), text);
    assert_eq!(ids.iter().filter(|id| **id == 2).count(), 2, "the user's <|im_end|> stays text");
    let with_system = [ChatMessage::system("Be brief."), ChatMessage::user("Hi")];
    assert_eq!(
        t.render_chat(&with_system),
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    );
}

#[test]
fn weights_are_converted_once_and_keep_the_originals_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("model.Q4_1.gguf");
    std::fs::copy(support::model_path(), &original).unwrap();

    let converted = prepare_model(&original, Requantize::Q8_0).unwrap();
    assert_eq!(converted, converted_path(&original, Requantize::Q8_0).unwrap());
    assert_eq!(converted.file_name().unwrap(), "model.Q4_1.q8_0.gguf");
    let sha = sha256_file(&original).unwrap();
    let sidecar = std::fs::read_to_string(dir.path().join("model.Q4_1.q8_0.gguf.sha256")).unwrap();
    assert!(sidecar.starts_with(&sha), "{sidecar}");

    let mut file = std::fs::File::open(&converted).unwrap();
    let content = gguf_file::Content::read(&mut file).unwrap();
    assert_eq!(content.metadata[SOURCE_SHA256_KEY].to_string().unwrap(), &sha);
    let dtypes: std::collections::HashSet<_> = content.tensor_infos.values().map(|t| t.ggml_dtype).collect();
    assert!(!dtypes.contains(&candle_core::quantized::GgmlDType::Q4_1), "{dtypes:?}");
    assert!(dtypes.contains(&candle_core::quantized::GgmlDType::Q8_0), "{dtypes:?}");
    GgufTokenizer::from_file(&converted).unwrap();
    // Our header reader (all the llama.cpp engine reads on our side) agrees with candle's.
    let ours = GgufMetadata::from_file(&converted).unwrap();
    assert_eq!(ours.values.len(), content.metadata.len());
    assert_eq!(ours.tensor_count as usize, content.tensor_infos.len());
    assert_eq!(ours.string(SOURCE_SHA256_KEY), Some(sha.as_str()));
    for (key, value) in &content.metadata {
        if let Ok(text) = value.to_string() {
            assert_eq!(ours.string(key), Some(text.as_str()), "{key}");
        }
        if let Ok(array) = value.to_vec() {
            assert_eq!(ours.get(key).and_then(|v| v.as_array()).map(<[_]>::len), Some(array.len()), "{key}");
        }
    }

    // Unchanged original: the cached copy is used as it is.
    let modified = std::fs::metadata(&converted).unwrap().modified().unwrap();
    assert_eq!(prepare_model(&original, Requantize::Q8_0).unwrap(), converted);
    assert_eq!(std::fs::metadata(&converted).unwrap().modified().unwrap(), modified);
    // No conversion asked: the original.
    assert_eq!(prepare_model(&original, Requantize::None).unwrap(), original);
    // A stale checksum: converted again.
    std::fs::write(dir.path().join("model.Q4_1.q8_0.gguf.sha256"), "0000  other\n").unwrap();
    prepare_model(&original, Requantize::Q8_0).unwrap();
    assert!(std::fs::read_to_string(dir.path().join("model.Q4_1.q8_0.gguf.sha256")).unwrap().starts_with(&sha));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_a_real_reply_in_several_deltas() {
    let model = model(2, 4);
    let info = model.info();
    assert_eq!(info.provider, "embedded");
    assert_eq!(info.context_window, Some(4096));
    assert!(model.count_tokens("Hello world") == 2);

    let reply = model.stream(chat_request()).await.unwrap().collect_reply().await.unwrap();
    println!("reply ({} deltas, {:?}): {}", reply.deltas, reply.finish, reply.text);
    assert!(reply.deltas >= 2, "streamed in {} deltas", reply.deltas);
    assert!(reply.text.split_whitespace().count() >= 3, "{:?}", reply.text);
    assert!(matches!(reply.finish.reason, FinishReason::Stop | FinishReason::Length));
    let usage = reply.finish.usage.unwrap();
    assert!(usage.prompt_tokens > 20 && usage.completion_tokens >= 2 && usage.completion_tokens <= 60, "{usage:?}");
    assert!(!reply.text.contains("<|im_"), "{:?}", reply.text);

    // The same seed gives the same reply; two replies at once share the weights.
    let (a, b) =
        tokio::join!(async { model.stream(chat_request()).await.unwrap().collect_reply().await.unwrap() }, async {
            model.stream(chat_request()).await.unwrap().collect_reply().await.unwrap()
        },);
    assert_eq!(a.text, reply.text);
    assert_eq!(b.text, reply.text);

    // A token limit ends the reply with Length.
    let short = model.stream(long_request().max_tokens(5)).await.unwrap().collect_reply().await.unwrap();
    assert_eq!(short.finish.reason, FinishReason::Length);
    assert_eq!(short.finish.usage.unwrap().completion_tokens, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_stops_a_reply_in_flight() {
    // One slot, no waiting room: a new reply is accepted only once the cancelled one is gone.
    let model = model(1, 0);
    let request = long_request();
    let cancel = request.cancel.clone();
    let mut stream = model.stream(request).await.unwrap();
    wait_for_delta(&mut stream).await;
    wait_for_delta(&mut stream).await;
    assert_eq!(model.stream(chat_request()).await.unwrap_err(), AiError::QueueFull);

    cancel.cancel();
    let done = loop {
        if let StreamEvent::Done(finish) = next_event(&mut stream).await {
            break finish;
        }
    };
    assert_eq!(done.reason, FinishReason::Cancelled);
    assert!(stream.next().await.is_none(), "nothing after Done");

    // The worker drops the cancelled reply at its next token and takes a new one.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut next = loop {
        match model.stream(chat_request()).await {
            Ok(stream) => break stream,
            Err(AiError::QueueFull) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(20)).await,
            Err(e) => panic!("the slot was not freed: {e}"),
        }
    };
    wait_for_delta(&mut next).await;

    // Dropping the stream stops generation too.
    drop(next);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match model.stream(chat_request().max_tokens(3)).await {
            Ok(stream) => {
                let reply = stream.collect_reply().await.unwrap();
                assert_eq!(reply.finish.reason, FinishReason::Length);
                break;
            }
            Err(AiError::QueueFull) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(20)).await,
            Err(e) => panic!("the dropped reply kept its slot: {e}"),
        }
    }

    // A request cancelled before it starts ends at once.
    let request = chat_request();
    request.cancel.cancel();
    let reply = model.stream(request).await.unwrap().collect_reply().await.unwrap();
    assert_eq!((reply.finish.reason, reply.deltas), (FinishReason::Cancelled, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_refuses_and_a_waiting_reply_runs_later() {
    let model = model(1, 1);
    let first = long_request();
    let cancel_first = first.cancel.clone();
    let mut running = model.stream(first).await.unwrap();
    wait_for_delta(&mut running).await;

    let mut waiting = model.stream(chat_request()).await.unwrap();
    let refused = model.stream(chat_request()).await.unwrap_err();
    assert_eq!(refused, AiError::QueueFull);
    assert!(refused.is_retryable());

    // The waiting reply has produced nothing while the first one holds the slot.
    assert!(tokio::time::timeout(Duration::from_millis(300), waiting.next()).await.is_err());
    cancel_first.cancel();
    let reply = waiting.collect_reply().await.unwrap();
    assert!(reply.deltas >= 2 && !reply.text.is_empty(), "{reply:?}");
}

#[tokio::test]
async fn bad_requests_and_settings_are_refused() {
    let model = model(1, 1);
    let empty = model.stream(ChatRequest::new(vec![])).await.unwrap_err();
    assert!(matches!(empty, AiError::BadRequest(_)), "{empty:?}");
    let hot = model.stream(chat_request().temperature(5.0)).await.unwrap_err();
    assert!(matches!(hot, AiError::BadRequest(_)), "{hot:?}");
    let huge = "word ".repeat(5000);
    let too_long = model.stream(ChatRequest::new(vec![ChatMessage::user(huge)])).await.unwrap_err();
    assert!(matches!(too_long, AiError::BadRequest(ref m) if m.contains("context window")), "{too_long:?}");

    // Old history is dropped to fit; the last message stays. On a window of 512 tokens
    // (`context_size`): the model's whole 4,096 took two minutes of prompt on two cores.
    let mut small = ModelSettings::embedded(support::model_path());
    small.embedded.context_size = Some(512);
    let small = chat::build(&small).unwrap();
    let mut messages = vec![ChatMessage::system("Be brief.")];
    for _ in 0..10 {
        messages.push(ChatMessage::user("word ".repeat(200)));
        messages.push(ChatMessage::assistant("ok"));
    }
    messages.push(ChatMessage::user("Say hi."));
    let reply = small.stream(ChatRequest::new(messages).max_tokens(4)).await.unwrap().collect_reply().await.unwrap();
    let prompt_tokens = reply.finish.usage.unwrap().prompt_tokens;
    assert!(
        (200..=512).contains(&prompt_tokens),
        "the prompt was cut to the window, keeping what fits: {prompt_tokens}"
    );

    let missing = chat::build(&ModelSettings::embedded("/nonexistent/model.gguf")).err().unwrap();
    assert!(matches!(missing, AiError::Unavailable(ref m) if m.contains("model.sh")), "{missing:?}");
    let mut wrong_threads = ModelSettings::embedded(support::model_path());
    wrong_threads.embedded.threads = Some(chat::embedded::candle_threads() + 1);
    let error = chat::build(&wrong_threads).err().unwrap();
    assert!(matches!(error, AiError::BadRequest(ref m) if m.contains("CANDLE_NUM_THREADS")), "{error:?}");
}

/// The prompt of a conversation's next turn starts with the previous turn's prompt: the
/// worker feeds only what is new, and the reply is the one a model without the cache
/// writes. A regenerate (the same prompt again) feeds nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_turn_starts_from_the_cached_prompt_and_replies_as_without_it() {
    let load = |cache_tokens: usize| {
        let mut settings = ModelSettings::embedded(support::model_path());
        settings.embedded.prefix_cache_tokens = cache_tokens;
        EmbeddedChatModel::load(&settings).unwrap()
    };
    let (cached, uncached) = (load(4096), load(0));
    let system = ChatMessage::system("You are Mia, a friendly barista. Answer in one or two sentences.");
    let first_line = ChatMessage::user("Hi Mia! What coffee would you recommend for a rainy afternoon?");
    let greedy = |messages: Vec<ChatMessage>| ChatRequest::new(messages).max_tokens(24).temperature(0.0);

    let first = cached.stream(greedy(vec![system.clone(), first_line.clone()])).await.unwrap();
    let first = first.collect_reply().await.unwrap();
    assert_eq!(cached.reused_prompt_tokens(), 0, "nothing was cached yet");
    let first_prompt = u64::from(first.finish.usage.unwrap().prompt_tokens);

    let next_turn = greedy(vec![
        system,
        first_line,
        ChatMessage::assistant(first.text.trim()),
        ChatMessage::user("And something sweet to go with it?"),
    ]);
    let with_cache = cached.stream(next_turn.clone()).await.unwrap().collect_reply().await.unwrap();
    assert_eq!(cached.reused_prompt_tokens(), first_prompt, "the whole first prompt came from the cache");
    let without = uncached.stream(next_turn.clone()).await.unwrap().collect_reply().await.unwrap();
    assert_eq!(uncached.reused_prompt_tokens(), 0);
    println!("next turn: {:?}", with_cache.text);
    assert_eq!(with_cache.text, without.text, "the cache changes nothing in the reply");

    let again = cached.stream(next_turn).await.unwrap().collect_reply().await.unwrap();
    let next_prompt = u64::from(with_cache.finish.usage.unwrap().prompt_tokens);
    assert_eq!(cached.reused_prompt_tokens(), first_prompt + next_prompt, "a regenerate feeds nothing");
    assert_eq!(again.text, with_cache.text);
}

/// A prompt whose last messages change at every turn (recalled facts after the history,
/// `ChatRequest::cache_prefix`): the state after its stable part is what the next turn
/// starts from, so the next turn still feeds only what is new, and replies as without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_with_a_changing_tail_is_cached_up_to_its_stable_part() {
    let load = |cache_tokens: usize| {
        let mut settings = ModelSettings::embedded(support::model_path());
        settings.embedded.prefix_cache_tokens = cache_tokens;
        EmbeddedChatModel::load(&settings).unwrap()
    };
    let (cached, uncached) = (load(4096), load(0));
    let tokenizer = cached.tokenizer().clone();
    let system = ChatMessage::system("You are Mia, a friendly barista. Answer in one or two sentences.");
    let first_line = ChatMessage::user("Hi Mia! My dog Biscuit loves the rain. What coffee would you recommend?");
    let greedy = |messages: Vec<ChatMessage>, stable: usize| {
        ChatRequest::new(messages).max_tokens(16).temperature(0.0).cache_prefix(stable)
    };
    let recalled =
        |text: &str| ChatMessage::system(format!("Things Ann said earlier (about Ann, not about you):\n- Ann: {text}"));

    let first = greedy(vec![system.clone(), first_line.clone(), recalled("I work nights.")], 2);
    let first = cached.stream(first).await.unwrap().collect_reply().await.unwrap();
    assert_eq!(cached.reused_prompt_tokens(), 0, "nothing was cached yet");
    let stable = [&system, &first_line]
        .iter()
        .map(|m| tokenizer.encode_turn(m.role.as_str(), &m.content).unwrap().len() as u64)
        .sum::<u64>();

    let next_turn = greedy(
        vec![
            system,
            first_line,
            ChatMessage::assistant(first.text.trim()),
            ChatMessage::user("And something sweet for Biscuit's owner?"),
            recalled("My dog is called Biscuit."),
        ],
        4,
    );
    let with_cache = cached.stream(next_turn.clone()).await.unwrap().collect_reply().await.unwrap();
    assert_eq!(cached.reused_prompt_tokens(), stable, "the first prompt up to its recalled part came from the cache");
    let stats = cached.prompt_cache().unwrap();
    let first_prompt = u64::from(first.finish.usage.unwrap().prompt_tokens);
    let next_prompt = u64::from(with_cache.finish.usage.unwrap().prompt_tokens);
    assert_eq!((stats.prompt_tokens, stats.reused_tokens), (first_prompt + next_prompt, stable));
    let without = uncached.stream(next_turn).await.unwrap().collect_reply().await.unwrap();
    assert_eq!(with_cache.text, without.text, "the cache changes nothing in the reply");
}
