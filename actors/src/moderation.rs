//! The moderation service (issue 27): the one place every path where user-written text
//! reaches a model, a prompt, another user or the public asks whether it may pass.
//!
//! A path names its [`Surface`] (where the text comes from); the surface names the rule
//! (`domain::moderation::Policy`) and the code the moderation log keeps. The [`Moderator`]
//! runs the rules first (`check_with`), then, only for a text the rules let pass and only
//! when one is configured, the second layer (`ai::moderation::Classifier`), which can add
//! refusals but never lift one. Every refusal is written to the moderation log (what, where,
//! for whom, by which layer) for the operator, and traced under the target `moderation`
//! without the text (docs/security.md: message text is never logged).
//!
//! docs/security.md "Moderation: which rule each path applies" lists every path's surface.

use std::sync::Arc;

use amora_ai::moderation::Classifier;
use amora_domain::account::UserId;
use amora_domain::moderation::{Policy, Refusal, check_with, states_minor_age};
use amora_store::{MODERATION_EXCERPT_CHARS, ModerationEvent, ModerationLogRepo};

/// Where a text comes from. Each surface holds its text to one policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Surface {
    /// A user's chat message (`chatSend`, `chat/editMessage`).
    ChatMessage,
    /// A character's reply as the model writes it.
    ChatReply,
    /// The user's words of `image/generate`.
    ImagePrompt,
    /// The whole prompt an image backend receives (appearance, presets, the user's words).
    AssembledImagePrompt,
    /// The user's words of `chat/requestPicture`.
    PictureRequest,
    /// An image's prompt when it is shared to the public feed.
    FeedShare,
    /// A display name: set by the user, or derived from an address at sign-up.
    DisplayName,
    /// A persona's name and description.
    Persona,
    /// A memory the user wrote or edited.
    Memory,
    /// A memory the model extracted from the conversation.
    ExtractedMemory,
    /// A text of the character builder (name, introduction, greeting, scenario, looks...).
    CharacterText,
    /// Any string of an imported card, its lorebook and extensions included.
    CardField,
    /// A report's note: checked and recorded for the operator, never a reason to refuse the
    /// report (a report must be able to describe abuse).
    ReportNote,
    /// A blog post the operator publishes.
    BlogPost,
}

impl Surface {
    pub const ALL: [Surface; 14] = [
        Surface::ChatMessage,
        Surface::ChatReply,
        Surface::ImagePrompt,
        Surface::AssembledImagePrompt,
        Surface::PictureRequest,
        Surface::FeedShare,
        Surface::DisplayName,
        Surface::Persona,
        Surface::Memory,
        Surface::ExtractedMemory,
        Surface::CharacterText,
        Surface::CardField,
        Surface::ReportNote,
        Surface::BlogPost,
    ];

    /// The rule the surface holds its texts to.
    pub fn policy(self) -> Policy {
        match self {
            Surface::ChatMessage | Surface::ChatReply | Surface::ReportNote | Surface::BlogPost => Policy::Chat,
            // On an adult platform an image is always a sexual context.
            Surface::ImagePrompt | Surface::AssembledImagePrompt | Surface::PictureRequest | Surface::FeedShare => {
                Policy::Image
            }
            // What users write about themselves goes into prompts as the user's part.
            Surface::DisplayName | Surface::Persona | Surface::Memory | Surface::ExtractedMemory => Policy::Person,
            Surface::CharacterText | Surface::CardField => Policy::Character,
        }
    }

    /// How the moderation log and traces name the surface.
    pub fn code(self) -> &'static str {
        match self {
            Surface::ChatMessage => "chatMessage",
            Surface::ChatReply => "chatReply",
            Surface::ImagePrompt => "imagePrompt",
            Surface::AssembledImagePrompt => "assembledImagePrompt",
            Surface::PictureRequest => "pictureRequest",
            Surface::FeedShare => "feedShare",
            Surface::DisplayName => "displayName",
            Surface::Persona => "persona",
            Surface::Memory => "memory",
            Surface::ExtractedMemory => "extractedMemory",
            Surface::CharacterText => "characterText",
            Surface::CardField => "cardField",
            Surface::ReportNote => "reportNote",
            Surface::BlogPost => "blogPost",
        }
    }
}

/// What a check does when the classifier answers an error (down, timed out, bad answer).
/// `ai::moderation::build` already wraps a classifier configured with `on_error = "allow"`
/// so that it answers no error, so the server builds the node with `Refuse`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ClassifierFailure {
    /// The text passes on the rules alone (they already let it through); the failure is
    /// traced.
    Pass,
    /// The check fails closed: the text is refused as [`Refusal::Unchecked`] (the user is
    /// asked to try again) and the log records it as `unchecked`. The default, as
    /// `[moderation.classifier] on_error`'s.
    #[default]
    Refuse,
}

/// What the node's moderator is built from (besides the store's moderation log).
#[derive(Clone, Default)]
pub struct ModerationParts {
    /// The second layer; `None`: the rules alone.
    pub classifier: Option<Arc<dyn Classifier>>,
    pub on_classifier_error: ClassifierFailure,
}

/// The moderation service: one per node, cheap to clone.
#[derive(Clone, Default)]
pub struct Moderator {
    classifier: Option<Arc<dyn Classifier>>,
    log: Option<Arc<dyn ModerationLogRepo>>,
    on_error: ClassifierFailure,
}

/// Which layer refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    Rules,
    Classifier,
}

impl Layer {
    fn code(self) -> &'static str {
        match self {
            Layer::Rules => "rules",
            Layer::Classifier => "classifier",
        }
    }
}

impl Moderator {
    pub fn new(
        classifier: Option<Arc<dyn Classifier>>,
        log: Option<Arc<dyn ModerationLogRepo>>,
        on_error: ClassifierFailure,
    ) -> Self {
        Self { classifier, log, on_error }
    }

    /// The rules, then the classifier when one is configured and the rules let the text
    /// pass. A refusal is recorded before it is answered.
    pub async fn check(&self, surface: Surface, user: Option<&UserId>, text: &str) -> Result<(), Refusal> {
        if let Some(refusal) = check_with(surface.policy(), text) {
            self.refused(surface, user, text, refusal.code(), Layer::Rules).await;
            return Err(refusal);
        }
        self.check_classifier(surface, user, text).await
    }

    /// The second layer alone, for a caller that ran [`Moderator::check_rules`] on the text
    /// already (a reply is checked by the rules as it streams, by the classifier once whole).
    pub async fn check_classifier(&self, surface: Surface, user: Option<&UserId>, text: &str) -> Result<(), Refusal> {
        let Some(classifier) = &self.classifier else { return Ok(()) };
        match classifier.classify(surface.policy(), text).await {
            Ok(None) => Ok(()),
            Ok(Some(refusal)) => {
                self.refused(surface, user, text, refusal.code(), Layer::Classifier).await;
                Err(refusal)
            }
            Err(error) => {
                tracing::warn!(target: "moderation", surface = surface.code(), %error, "the classifier could not be asked");
                match self.on_error {
                    ClassifierFailure::Pass => Ok(()),
                    // A "try again", not a verdict: the user is told the check could not be made.
                    ClassifierFailure::Refuse => {
                        self.refused(surface, user, text, Refusal::Unchecked.code(), Layer::Classifier).await;
                        Err(Refusal::Unchecked)
                    }
                }
            }
        }
    }

    /// The rules alone, for places that cannot wait (an actor's atomic handler, a reply as
    /// it streams). A refusal is traced at once and written to the log in the background.
    pub fn check_rules(&self, surface: Surface, user: Option<&UserId>, text: &str) -> Result<(), Refusal> {
        let Some(refusal) = check_with(surface.policy(), text) else { return Ok(()) };
        self.refused_now(surface, user, text, refusal);
        Err(refusal)
    }

    /// The rules for a reply of the character `character_name` as it streams: chat's, and no
    /// age under 18 stated for the one it describes or given to the character
    /// (`states_minor_age`). Chat's rule lets a minor pass without a sexual word, but a
    /// reply that makes the character 17 makes a minor of someone the user may take
    /// anywhere next; as a character's own texts, a relative's age or a past one passes.
    pub fn check_reply_rules(&self, user: Option<&UserId>, text: &str, character_name: &str) -> Result<(), Refusal> {
        self.check_rules(Surface::ChatReply, user, text)?;
        if states_minor_age(text, character_name) {
            self.refused_now(Surface::ChatReply, user, text, Refusal::MinorCharacter);
            return Err(Refusal::MinorCharacter);
        }
        Ok(())
    }

    /// Traces a refusal at once and writes it to the log in the background.
    fn refused_now(&self, surface: Surface, user: Option<&UserId>, text: &str, refusal: Refusal) {
        let event = self.trace(surface, user, text, refusal.code(), Layer::Rules);
        if let Some(log) = self.log.clone()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move { write(log.as_ref(), event).await });
        }
    }

    /// Checks named texts in order; the first refused answers its name with the refusal.
    /// The rules read each text; the classifier reads them together, a few thousand
    /// characters a request, so that a card with thousands of strings (lorebook keys) costs
    /// a handful of requests to the service rather than one each. Its refusal names the
    /// first field of the batch it refused.
    pub async fn check_fields<'a>(
        &self,
        surface: Surface,
        user: Option<&UserId>,
        fields: impl IntoIterator<Item = (String, &'a str)>,
    ) -> Result<(), (String, Refusal)> {
        let fields: Vec<(String, &str)> = fields.into_iter().collect();
        for (name, text) in &fields {
            if let Some(refusal) = check_with(surface.policy(), text) {
                self.refused(surface, user, text, refusal.code(), Layer::Rules).await;
                return Err((name.clone(), refusal));
            }
        }
        if self.classifier.is_none() {
            return Ok(());
        }
        for (first, batch) in batches(&fields) {
            self.check_classifier(surface, user, &batch).await.map_err(|refusal| (first.to_owned(), refusal))?;
        }
        Ok(())
    }

    async fn refused(&self, surface: Surface, user: Option<&UserId>, text: &str, refusal: &str, layer: Layer) {
        let event = self.trace(surface, user, text, refusal, layer);
        if let Some(log) = &self.log {
            write(log.as_ref(), event).await;
        }
    }

    /// Traces a refusal (without the text) and makes its log event.
    fn trace(
        &self,
        surface: Surface,
        user: Option<&UserId>,
        text: &str,
        refusal: &str,
        layer: Layer,
    ) -> ModerationEvent {
        let policy = surface.policy();
        tracing::info!(
            target: "moderation",
            surface = surface.code(),
            policy = policy.code(),
            refusal,
            layer = layer.code(),
            user = user.map(UserId::as_str),
            "refused"
        );
        ModerationEvent {
            event_id: crate::chat::new_entry_id(),
            at: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64),
            user_id: user.cloned(),
            surface: surface.code().to_owned(),
            policy: policy.code().to_owned(),
            refusal: refusal.to_owned(),
            layer: layer.code().to_owned(),
            excerpt: text.chars().take(MODERATION_EXCERPT_CHARS).collect(),
        }
    }
}

/// The most characters one request to the classifier carries when fields are batched
/// (OpenAI's moderation input and Llama Guard's context both hold several times this).
const CLASSIFIER_BATCH_CHARS: usize = 6_000;

/// Fields joined by blank lines into batches of at most [`CLASSIFIER_BATCH_CHARS`] (a
/// longer field is a batch of its own), each with the name of its first field.
fn batches<'f>(fields: &'f [(String, &str)]) -> Vec<(&'f str, String)> {
    let mut batches: Vec<(&str, String)> = Vec::new();
    for (name, text) in fields {
        if text.trim().is_empty() {
            continue;
        }
        match batches.last_mut() {
            Some((_, batch)) if batch.chars().count() + text.chars().count() + 2 <= CLASSIFIER_BATCH_CHARS => {
                batch.push_str("\n\n");
                batch.push_str(text);
            }
            _ => batches.push((name.as_str(), (*text).to_owned())),
        }
    }
    batches
}

/// A log that cannot be written must not turn a refusal into a fault: the refusal stands
/// and the failure is traced.
async fn write(log: &dyn ModerationLogRepo, event: ModerationEvent) {
    if let Err(error) = log.record(event).await {
        tracing::warn!(target: "moderation", %error, "the moderation log could not be written");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use amora_ai::AiError;
    use amora_domain::chat::EntryId;
    use amora_store::StoreResult;
    use async_trait::async_trait;

    use super::*;

    /// A log kept in memory, as the operator would read it.
    #[derive(Default)]
    struct Kept(Mutex<Vec<ModerationEvent>>);

    #[async_trait]
    impl ModerationLogRepo for Kept {
        async fn record(&self, event: ModerationEvent) -> StoreResult<()> {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).push(event);
            Ok(())
        }
        async fn recent(&self, _: Option<EntryId>, _: u32) -> StoreResult<Vec<ModerationEvent>> {
            Ok(self.0.lock().unwrap_or_else(|e| e.into_inner()).clone())
        }
    }

    /// A classifier that flags texts holding `flag`, or fails.
    struct Flags(Option<&'static str>);

    #[async_trait]
    impl Classifier for Flags {
        async fn classify(&self, _: Policy, text: &str) -> Result<Option<Refusal>, AiError> {
            match self.0 {
                Some(flag) => Ok(text.contains(flag).then_some(Refusal::Minors)),
                None => Err(AiError::Unavailable("down".into())),
            }
        }
    }

    fn user() -> UserId {
        UserId::parse("user1").unwrap_or_else(|e| panic!("{e}"))
    }

    #[actix_rt::test]
    async fn the_rules_refuse_first_and_the_refusal_is_logged_with_its_surface_and_layer() {
        let log = Arc::new(Kept::default());
        let moderator = Moderator::new(Some(Arc::new(Flags(Some("zzz")))), Some(log.clone()), ClassifierFailure::Pass);
        let long = format!("a 14 year old girl, nude {}", "x".repeat(1000));
        assert_eq!(moderator.check(Surface::ImagePrompt, Some(&user()), &long).await, Err(Refusal::Minors));
        let events = log.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(events.len(), 1);
        let event = &events[0];
        assert_eq!(
            (event.surface.as_str(), event.policy.as_str(), event.layer.as_str()),
            ("imagePrompt", "image", "rules")
        );
        assert_eq!(event.refusal, "minors");
        assert_eq!(event.user_id, Some(user()));
        assert_eq!(event.excerpt.chars().count(), MODERATION_EXCERPT_CHARS);
    }

    #[actix_rt::test]
    async fn the_classifier_only_adds_refusals() {
        let log = Arc::new(Kept::default());
        let moderator = Moderator::new(Some(Arc::new(Flags(Some("zzz")))), Some(log.clone()), ClassifierFailure::Pass);
        assert_eq!(moderator.check(Surface::ChatMessage, None, "hello there").await, Ok(()));
        assert_eq!(moderator.check(Surface::ChatMessage, None, "hello zzz").await, Err(Refusal::Minors));
        let events = log.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(events.iter().map(|e| e.layer.as_str()).collect::<Vec<_>>(), ["classifier"]);
    }

    #[actix_rt::test]
    async fn an_unanswered_classifier_passes_or_refuses_as_configured() {
        let text = "a walk on the beach";
        let passing = Moderator::new(Some(Arc::new(Flags(None))), None, ClassifierFailure::Pass);
        assert_eq!(passing.check(Surface::Persona, None, text).await, Ok(()));
        let log = Arc::new(Kept::default());
        let refusing = Moderator::new(Some(Arc::new(Flags(None))), Some(log.clone()), ClassifierFailure::Refuse);
        assert_eq!(refusing.check(Surface::Persona, None, text).await, Err(Refusal::Unchecked));
        let events = log.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(events.iter().map(|e| e.refusal.as_str()).collect::<Vec<_>>(), [Refusal::Unchecked.code()]);
    }

    #[test]
    fn a_reply_may_not_make_the_character_a_minor() {
        let moderator = Moderator::default();
        let name = "Harper Quinn";
        for minor in ["Harper Quinn, 17, speaking in French.", "J'ai 16 ans, tu sais.", "I'm seventeen!"] {
            assert_eq!(moderator.check_reply_rules(None, minor, name), Err(Refusal::MinorCharacter), "{minor}");
        }
        for fine in
            ["My brother is 12.", "When I was 15 we moved to Rennes.", "Harper, 15 minutes from here.", "I'm 25."]
        {
            assert_eq!(moderator.check_reply_rules(None, fine, name), Ok(()), "{fine}");
        }
        assert_eq!(moderator.check_reply_rules(None, "sex with a child", name), Err(Refusal::Minors));
    }

    #[actix_rt::test]
    async fn the_sync_check_logs_in_the_background() {
        let log = Arc::new(Kept::default());
        let moderator = Moderator::new(None, Some(log.clone()), ClassifierFailure::Pass);
        assert!(moderator.check_rules(Surface::ChatReply, None, "sex with a child").is_err());
        for _ in 0..100 {
            if !log.0.lock().unwrap_or_else(|e| e.into_inner()).is_empty() {
                return;
            }
            tokio::task::yield_now().await;
        }
        panic!("the refusal was never logged");
    }

    #[test]
    fn every_surface_names_its_policy_and_code() {
        let codes: std::collections::HashSet<_> = Surface::ALL.iter().map(|s| s.code()).collect();
        assert_eq!(codes.len(), Surface::ALL.len());
        assert_eq!(Surface::ImagePrompt.policy(), Policy::Image);
        assert_eq!(Surface::CardField.policy(), Policy::Character);
        assert_eq!(Surface::DisplayName.policy(), Policy::Person);
        assert_eq!(Surface::ChatReply.policy(), Policy::Chat);
    }

    /// A classifier that counts its requests and flags texts holding `flag`.
    struct Counting(std::sync::atomic::AtomicUsize, &'static str);

    #[async_trait]
    impl Classifier for Counting {
        async fn classify(&self, _: Policy, text: &str) -> Result<Option<Refusal>, AiError> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(text.contains(self.1).then_some(Refusal::Minors))
        }
    }

    #[actix_rt::test]
    async fn many_fields_reach_the_classifier_in_a_few_batches_and_a_refusal_names_its_batch() {
        let counting = Arc::new(Counting(Default::default(), "zzz"));
        let moderator = Moderator::new(Some(counting.clone()), None, ClassifierFailure::Refuse);
        let keys: Vec<(String, String)> =
            (0..3_000).map(|i| (format!("lorebook[{i}].keys[0]"), format!("key {i}"))).collect();
        let fields = || keys.iter().map(|(name, text)| (name.clone(), text.as_str()));
        assert_eq!(moderator.check_fields(Surface::CardField, None, fields()).await, Ok(()));
        let requests = counting.0.load(std::sync::atomic::Ordering::SeqCst);
        // 3,000 keys of 6-8 characters: about 30,000 characters, 5-6 batches, not 3,000.
        assert!((2..=10).contains(&requests), "{requests} requests");
        let mut flagged = keys.clone();
        flagged[2_500].1 = "zzz".into();
        let fields = flagged.iter().map(|(name, text)| (name.clone(), text.as_str()));
        let refused = moderator.check_fields(Surface::CardField, None, fields).await;
        let (field, refusal) = refused.err().unwrap_or_else(|| panic!("the flagged key passed"));
        assert_eq!(refusal, Refusal::Minors);
        // The batch's first field is named: at or before the flagged key.
        let index: usize = field["lorebook[".len()..field.find(']').unwrap_or(0)].parse().unwrap_or(usize::MAX);
        assert!(index <= 2_500 && 2_500 - index < 1_000, "{field}");
    }
}
