//! OpenAI's moderation API and services that copy it: `POST {base_url}/moderations` with
//! `{model, input}` and a bearer key, answered with
//! `{id, model, results: [{flagged, categories: {"sexual/minors": bool, …},
//! category_scores: {"sexual/minors": number, …}}]}`; errors come as
//! `{error: {message, type, param, code}}` (401 for a wrong key, 429 when rate limited).
//!
//! Only `sexual/minors` refuses, as [`Refusal::Minors`], under every policy: it is the one
//! category that names what this platform forbids everywhere. `flagged` is not read, since
//! it is also true for plain `sexual` content, which an adult platform allows; the API has
//! no category for non-consent or bestiality (the rules cover those).

use async_trait::async_trait;
use serde_json::{Value, json};

use super::{Classifier, ClassifierSettings};
use crate::AiError;
use crate::image::http;
use amora_domain::moderation::{Policy, Refusal};

/// The category that refuses.
const MINORS: &str = "sexual/minors";

pub struct OpenAiModeration {
    client: reqwest::Client,
    url: String,
    model: String,
    api_key: Option<String>,
    score_threshold: Option<f64>,
}

impl std::fmt::Debug for OpenAiModeration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the key.
        f.debug_struct("OpenAiModeration").field("url", &self.url).field("model", &self.model).finish()
    }
}

impl OpenAiModeration {
    /// The client for `settings`; nothing is sent until the first check.
    pub fn new(settings: &ClassifierSettings) -> Result<Self, AiError> {
        Ok(Self {
            client: http::client(settings.timeout(), settings.timeout())?,
            url: settings.endpoint("moderations"),
            model: settings.model.trim().to_owned(),
            api_key: settings.key().map(str::to_owned),
            score_threshold: settings.score_threshold,
        })
    }

    /// The verdict in one answer to a single input.
    fn verdict(&self, answer: &Value) -> Result<Option<Refusal>, AiError> {
        let url = &self.url;
        let malformed = |what: &str| Err(AiError::Internal(format!("{url} answered without {what}")));
        let Some(result) = answer["results"].as_array().and_then(|results| results.first()) else {
            return malformed("a result");
        };
        let Some(flagged) = result["categories"][MINORS].as_bool() else {
            return malformed("a \"sexual/minors\" category");
        };
        let over_threshold = match self.score_threshold {
            None => false,
            Some(threshold) => match result["category_scores"][MINORS].as_f64() {
                Some(score) => score >= threshold,
                None => return malformed("a \"sexual/minors\" score"),
            },
        };
        Ok((flagged || over_threshold).then_some(Refusal::Minors))
    }
}

#[async_trait]
impl Classifier for OpenAiModeration {
    async fn classify(&self, _policy: Policy, text: &str) -> Result<Option<Refusal>, AiError> {
        // Nothing written, nothing to refuse: no call spent on it.
        if text.trim().is_empty() {
            return Ok(None);
        }
        let url = self.url.as_str();
        let mut call = self.client.post(url).json(&json!({"model": self.model, "input": text}));
        if let Some(key) = &self.api_key {
            call = call.bearer_auth(key);
        }
        let answer = http::json(url, http::send(url, call).await?).await?;
        self.verdict(&answer)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn classifier(score_threshold: Option<f64>) -> OpenAiModeration {
        let settings = ClassifierSettings {
            kind: super::super::ClassifierKind::Openai,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "omni-moderation-latest".into(),
            score_threshold,
            ..ClassifierSettings::default()
        };
        OpenAiModeration::new(&settings).unwrap()
    }

    fn answer(sexual: bool, minors: bool, minors_score: f64) -> Value {
        json!({
            "id": "modr-1",
            "model": "omni-moderation-latest",
            "results": [{
                "flagged": sexual || minors,
                "categories": {"sexual": sexual, "sexual/minors": minors, "violence": false},
                "category_scores": {"sexual": if sexual { 0.9 } else { 0.01 }, "sexual/minors": minors_score},
            }],
        })
    }

    #[test]
    fn only_sexual_minors_refuses_and_the_threshold_only_adds_refusals() {
        let plain = classifier(None);
        assert_eq!(plain.verdict(&answer(false, true, 0.9)).unwrap(), Some(Refusal::Minors));
        assert_eq!(plain.verdict(&answer(true, false, 0.2)).unwrap(), None, "adult content is allowed");
        let strict = classifier(Some(0.2));
        assert_eq!(strict.verdict(&answer(true, false, 0.2)).unwrap(), Some(Refusal::Minors));
        assert_eq!(strict.verdict(&answer(true, false, 0.19)).unwrap(), None);
        assert_eq!(strict.verdict(&answer(false, true, 0.01)).unwrap(), Some(Refusal::Minors), "the flag still counts");
    }

    #[test]
    fn answers_without_the_category_are_errors() {
        let strict = classifier(Some(0.5));
        for answer in [
            json!({}),
            json!({"results": []}),
            json!({"results": [{"flagged": false, "categories": {"sexual": false}}]}),
            json!({"results": [{"categories": {"sexual/minors": "no"}}]}),
            json!({"results": [{"categories": {"sexual/minors": false}, "category_scores": {}}]}),
        ] {
            assert!(matches!(strict.verdict(&answer), Err(AiError::Internal(_))), "{answer}");
        }
    }
}
