//! Issue 30: what a reply is made of, whatever the model writes. The model is a loopback
//! OpenAI-compatible API that answers what the test queues and records every prompt
//! (`fakes::chat_api`), so each rule is checked on the exact text a small model was seen
//! writing: speaker labels, lines written as the user, hashtag and emoji tails, a reply in
//! another language, a continuation that starts over, a question about a stated fact.

use serde_json::{Value, json};

use crate::chat::{FREE_CHARACTER, act, chat_app, contents, messages, named, send, until_reply_ends};
use crate::fakes::chat_api::ChatApiFake;

async fn app_on(model: &ChatApiFake) -> (crate::helpers::TestApp, String, crate::cluster::Socket) {
    let (app, _, voucher, socket) = chat_app(&[
        ("AMORA_CHAT__MODEL__KIND", "openai"),
        ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", model.base_url.as_str()),
        ("AMORA_CHAT__MODEL__OPENAI__MODEL", "any"),
    ])
    .await;
    (app, voucher, socket)
}

fn streamed(events: &[Value]) -> String {
    named(events, "chatDelta").iter().map(|e| e["data"]["delta"].as_str().unwrap_or_default()).collect()
}

fn stored(events: &[Value]) -> String {
    let done = named(events, "chatDone");
    assert_eq!(done.len(), 1, "{events:?}");
    done[0]["data"]["message"]["content"].as_str().unwrap_or_default().to_owned()
}

/// Seen in about one reply in five: "Hana Mori:" opening the bubble, a line of the user's,
/// the character starting a new turn of its own, hashtags and a run of emoji at the end.
#[actix_rt::test]
async fn speaker_labels_user_lines_and_tails_never_reach_a_reply() {
    let model = ChatApiFake::start().await;
    let (app, voucher, mut socket) = app_on(&model).await;
    let cases: [(&[&str], &str); 4] = [
        (
            &["Hana Mori: ", "The sky is so clear tonight. ", "Look at Vega! #stars #astronomy 😍😍🌟"],
            "The sky is so clear tonight. Look at Vega!",
        ),
        (&["I love it up here.", "\nHana Mori: Hello and welcome to the observatory!"], "I love it up here."),
        (&["We could stay a little longer.\n", "Tom: Sure, let's stay."], "We could stay a little longer."),
        (&["*smiles* You came back!\n\n", "User: I did."], "*smiles* You came back!"),
    ];
    for (pieces, clean) in cases {
        model.answer_next(&[pieces]);
        send(&mut socket, FREE_CHARACTER, "Tell me about the sky tonight, please.").await;
        let events = until_reply_ends(&mut socket).await;
        assert_eq!(stored(&events), clean, "{pieces:?}");
        assert!(!streamed(&events).starts_with("Hana Mori:"), "the label is never shown: {events:?}");
        assert_eq!(contents(&messages(&app, &voucher, FREE_CHARACTER, None, 5).await)[0], clean);
    }
}

/// Seen in a phone journey: the model answered like an assistant, "Here's a sample
/// response:" and then the reply. The note is neither kept nor sent, even when its line
/// ends only after the characters a start is held back for; a note the stop string
/// "\nHana Mori:" cut off alone is written again; a note about another version later on
/// ends the reply (its line is dropped from `chatDone`'s text, as a next speaker's is).
#[actix_rt::test]
async fn a_note_about_the_reply_is_never_sent_or_kept() {
    let model = ChatApiFake::start().await;
    let (app, voucher, mut socket) = app_on(&model).await;
    let cases: [(&[&[&str]], &str); 3] = [
        (
            &[&["Here's a ", "sample response:\n\n", "Hi Ann, the dome is open tonight. ", "Shall we look at Vega?"]],
            "Hi Ann, the dome is open tonight. Shall we look at Vega?",
        ),
        (
            &[
                &[
                    "Of course! Here is a possible reply written as Hana Mori",
                    ":\n",
                    "Hana Mori: The dome is open, Ann.",
                ],
                &["The dome is open tonight, Ann."],
            ],
            "The dome is open tonight, Ann.",
        ),
        (
            &[&["Vega is bright enough to find at once.\n\nHere's another version:\n", "Vega shines."]],
            "Vega is bright enough to find at once.",
        ),
    ];
    for (pieces, clean) in cases {
        model.answer_next(pieces);
        send(&mut socket, FREE_CHARACTER, "Tell me about the sky tonight, please.").await;
        let events = until_reply_ends(&mut socket).await;
        assert_eq!(stored(&events), clean, "{pieces:?}");
        assert!(streamed(&events).starts_with(clean), "nothing of an opening note was sent: {events:?}");
        assert_eq!(contents(&messages(&app, &voucher, FREE_CHARACTER, None, 5).await)[0], clean);
    }
}

/// Seen on the bench: a reply that is only the character's name ("Lena,"), written again
/// like an empty one, and nothing of it sent.
#[actix_rt::test]
async fn a_reply_of_only_a_name_is_written_again_unseen() {
    let model = ChatApiFake::start().await;
    let (_app, _voucher, mut socket) = app_on(&model).await;
    model.answer_next(&[&["Hana,"], &["The dome is open tonight."]]);
    send(&mut socket, FREE_CHARACTER, "What are we doing tonight?").await;
    let events = until_reply_ends(&mut socket).await;
    assert_eq!(stored(&events), "The dome is open tonight.");
    assert_eq!(streamed(&events), "The dome is open tonight.", "nothing of the name was sent");
    assert_eq!(model.prompts().len(), 2);
}

/// "Hi! How was your day?" was answered in French: the reply's language is the
/// conversation's, and a reply the model writes in another one is written again before
/// any of it reaches the user.
#[actix_rt::test]
async fn a_reply_in_another_language_is_written_again_before_any_of_it_is_sent() {
    let model = ChatApiFake::start().await;
    let (_app, _voucher, mut socket) = app_on(&model).await;
    model.answer_next(&[
        &["Ma journée était merveilleuse, merci beaucoup de me le demander. ", "Et la tienne, comment était-elle ?"],
        &["My day was wonderful, thank you so much for asking. ", "How was yours?"],
    ]);
    send(&mut socket, FREE_CHARACTER, "Hi! How was your day?").await;
    let events = until_reply_ends(&mut socket).await;
    assert_eq!(stored(&events), "My day was wonderful, thank you so much for asking. How was yours?");
    assert_eq!(streamed(&events), stored(&events), "nothing of the French attempt was sent");
    let prompts = model.prompts();
    assert_eq!(prompts.len(), 2, "written twice");
    assert!(prompts[1].iter().any(|m| m.ends_with("Reply in English.")), "{:?}", prompts[1]);
}

/// Seen in CI: a regenerated reply the content rules refused ended the turn with
/// `chatError` 10070, though the user asked for nothing refused. A start the rules refuse
/// is written again, nothing of it sent; past the start, the reply ends before the
/// refused sentence, which is never sent.
#[actix_rt::test]
async fn a_reply_the_rules_refuse_is_written_again_or_ends_before_the_refused_sentence() {
    let model = ChatApiFake::start().await;
    let (_app, _voucher, mut socket) = app_on(&model).await;
    model.answer_next(&[&["We once talked about sex with a child, remember?"], &["The dome is open tonight."]]);
    send(&mut socket, FREE_CHARACTER, "What are we doing tonight?").await;
    let events = until_reply_ends(&mut socket).await;
    assert!(named(&events, "chatError").is_empty(), "{events:?}");
    assert_eq!(stored(&events), "The dome is open tonight.");
    assert_eq!(streamed(&events), "The dome is open tonight.", "nothing of the refused start was sent");
    assert_eq!(model.prompts().len(), 2);

    // (Not opening as the previous reply did: that attempt would be written again as a repeat.)
    let kept = "Later the sky over the hills will be perfectly clear, so we can watch the stars.";
    model.answer_next(&[&[kept, " We once talked about sex with a child.", " Shall we go up?"]]);
    send(&mut socket, FREE_CHARACTER, "And after that?").await;
    let events = until_reply_ends(&mut socket).await;
    assert!(named(&events, "chatError").is_empty(), "{events:?}");
    assert_eq!(stored(&events), kept);
    assert_eq!(streamed(&events).trim_end(), kept, "nothing of the refused sentence was sent");
    assert_eq!(model.prompts().len(), 3, "the start was kept, not written again");
}

/// On the bench a reply said "Harper Quinn, 17, speaking in French.": chat's rule refuses
/// a minor only with a sexual word, but a reply that makes the character 17 makes her a
/// minor. A start that says so is written again, nothing of it sent; past the start, the
/// reply ends before that sentence. A relative's age passes.
#[actix_rt::test]
async fn a_reply_that_states_an_age_under_18_is_written_again_or_ends_before_it() {
    let model = ChatApiFake::start().await;
    let (_app, _voucher, mut socket) = app_on(&model).await;
    model.answer_next(&[&["I'm 17 and I love the stars already, you know."], &["The dome is open tonight."]]);
    send(&mut socket, FREE_CHARACTER, "How old are you?").await;
    let events = until_reply_ends(&mut socket).await;
    assert!(named(&events, "chatError").is_empty(), "{events:?}");
    assert_eq!(stored(&events), "The dome is open tonight.");
    assert_eq!(streamed(&events), "The dome is open tonight.", "nothing of the minor's start was sent");
    assert_eq!(model.prompts().len(), 2);

    let kept = "Later the sky over the hills will be clear, and my brother, who is 12, will come too.";
    model.answer_next(&[&[kept, " I'm only sixteen, you know.", " Shall we go up?"]]);
    send(&mut socket, FREE_CHARACTER, "And after that?").await;
    let events = until_reply_ends(&mut socket).await;
    assert!(named(&events, "chatError").is_empty(), "{events:?}");
    assert_eq!(stored(&events), kept);
    assert_eq!(streamed(&events).trim_end(), kept, "nothing of the stated age was sent");
    assert_eq!(model.prompts().len(), 3, "the start was kept, not written again");
}

/// On the bench, "Cześć! Ale dzień." (three words) from a user whose interface is English
/// was answered in English: a short first message clearly in one language sets the
/// conversation's, and an English reply to it is written again.
#[actix_rt::test]
async fn a_short_first_message_sets_the_reply_language() {
    let model = ChatApiFake::start().await;
    let (_app, _voucher, mut socket) = app_on(&model).await;
    model.answer_next(&[
        &["Hey there, I'm so glad you're here, how was your day at work today?"],
        &["Cześć! Jak miło cię widzieć, opowiedz mi o swoim dniu."],
    ]);
    send(&mut socket, FREE_CHARACTER, "Cześć! Ale dzień.").await;
    let events = until_reply_ends(&mut socket).await;
    assert_eq!(stored(&events), "Cześć! Jak miło cię widzieć, opowiedz mi o swoim dniu.");
    let prompts = model.prompts();
    assert!(prompts[0].iter().any(|m| m.ends_with("Odpowiadaj po polsku.")), "{:?}", prompts[0]);
    assert_eq!(prompts.len(), 2, "the English attempt was written again");
}

/// On the bench, Polish replies began in Polish and went on in English ("…plaży. I
/// understand, I don't need to explain again."): past its start, a reply is sent sentence
/// by sentence, each judged, and it ends before the first in another language.
#[actix_rt::test]
async fn a_reply_ends_before_a_sentence_in_another_language_which_is_never_sent() {
    let model = ChatApiFake::start().await;
    let (_app, _voucher, mut socket) = app_on(&model).await;
    model.answer_next(&[&[
        "Cześć! Jak miło cię poznać, ja też kocham morze i spacery po plaży. ",
        "Wieczorem lubię patrzeć na statki. ",
        "I understand, I don't need to explain again. ",
        "I got a lesson tomorrow, ok?",
    ]]);
    send(&mut socket, FREE_CHARACTER, "Cześć! Mieszkam w Gdańsku, niedaleko morza.").await;
    let events = until_reply_ends(&mut socket).await;
    let polish =
        "Cześć! Jak miło cię poznać, ja też kocham morze i spacery po plaży. Wieczorem lubię patrzeć na statki.";
    assert_eq!(stored(&events), polish);
    assert_eq!(streamed(&events).trim_end(), polish, "nothing of the English was sent");
    assert_eq!(model.prompts().len(), 1, "the Polish start was kept, not written again");
}

/// Continue after Stop repeated the whole reply ("…every day Sofia Marin: Hello and
/// welcome…"): the model now goes on from the reply's own text (a prefill, the final
/// assistant message), and only what it adds is appended.
#[actix_rt::test]
async fn continue_appends_only_what_comes_after_the_reply_so_far() {
    let model = ChatApiFake::start().await;
    let (app, voucher, mut socket) = app_on(&model).await;
    model.answer_next(&[&["The dome opened in 1971, and every night"]]);
    send(&mut socket, FREE_CHARACTER, "When was the observatory built?").await;
    let first = stored(&until_reply_ends(&mut socket).await);
    assert_eq!(first, "The dome opened in 1971, and every night");

    model.answer_next(&[&[" it turns to a new part of the sky.", "\nHana Mori: Hello and welcome!"]]);
    act(&mut socket, "chatContinue", json!({ "characterId": FREE_CHARACTER })).await;
    let events = until_reply_ends(&mut socket).await;
    let continued = "The dome opened in 1971, and every night it turns to a new part of the sky.";
    assert_eq!(stored(&events), continued);
    assert_eq!(streamed(&events), " it turns to a new part of the sky.", "only the new text is streamed");
    let prompt = model.prompts().pop().unwrap_or_default();
    assert_eq!(prompt.last().map(String::as_str), Some(format!("assistant: {first}").as_str()), "{prompt:?}");
    assert_eq!(contents(&messages(&app, &voucher, FREE_CHARACTER, None, 5).await)[0], continued);
}

/// "Do you remember my dog's name and where I live?" was answered "I am Lena Fischer and I
/// will be a rock climber…": asked about what they told, the user gets it back.
#[actix_rt::test]
async fn a_question_about_a_stated_fact_is_answered_with_it() {
    let model = ChatApiFake::start().await;
    let (_app, _voucher, mut socket) = app_on(&model).await;
    model.answer_next(&[&["What a lovely name for a dog!"], &["Porto has such beautiful light."]]);
    send(&mut socket, FREE_CHARACTER, "My dog is called Pixel.").await;
    until_reply_ends(&mut socket).await;
    send(&mut socket, FREE_CHARACTER, "I live in Porto, by the river.").await;
    until_reply_ends(&mut socket).await;

    model.answer_next(&[&[" I think about you two a lot."]]);
    send(&mut socket, FREE_CHARACTER, "Do you remember my dog's name and where I live?").await;
    let reply = stored(&until_reply_ends(&mut socket).await);
    assert!(reply.contains("Pixel") && reply.contains("Porto"), "{reply}");
    assert!(reply.ends_with("I think about you two a lot."), "the model goes on from the answer: {reply}");

    // A question to the character is not one about the user: no answer is put in its mouth.
    model.answer_next(&[&["I'm Hana, I watch the stars."]]);
    send(&mut socket, FREE_CHARACTER, "What is your name?").await;
    assert_eq!(stored(&until_reply_ends(&mut socket).await), "I'm Hana, I watch the stars.");
}
