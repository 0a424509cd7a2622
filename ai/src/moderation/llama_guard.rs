//! A Llama Guard model (3 or 4; 1B, 8B or 12B) behind an OpenAI-compatible chat server:
//! `POST {base_url}/chat/completions` with the text as the one user turn, `temperature: 0`.
//! The model's own chat template (in the GGUF or the tokenizer's config) wraps that turn in
//! Meta's published classification prompt with the hazard taxonomy, so the server must
//! apply it: `llama-server --jinja`, vLLM and Ollama do. The model answers `safe`, or
//! `unsafe` and a line of the violated categories, comma-separated (`unsafe\nS1,S4`).
//!
//! The taxonomy (MLCommons hazards, the same codes in Llama Guard 3 and 4): S1 violent
//! crimes, S2 non-violent crimes, S3 sex-related crimes, S4 child sexual exploitation, S5
//! defamation, S6 specialized advice, S7 privacy, S8 intellectual property, S9
//! indiscriminate weapons, S10 hate, S11 suicide and self-harm, S12 sexual content, S13
//! elections, S14 code interpreter abuse. S4 refuses as [`Refusal::Minors`] and S3 as
//! [`Refusal::NonConsent`] (sexual assault, trafficking), under every policy; nothing else
//! is this layer's to refuse: S12 is what an adult platform is for.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::{Classifier, ClassifierSettings};
use crate::AiError;
use crate::image::http;
use amora_domain::moderation::{Policy, Refusal};

/// The answer is two short lines; room for every category at once, and no more, so a
/// server whose template is wrong cannot run on.
const MAX_TOKENS: u32 = 48;

pub struct LlamaGuard {
    client: reqwest::Client,
    url: String,
    model: String,
    api_key: Option<String>,
}

impl std::fmt::Debug for LlamaGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the key.
        f.debug_struct("LlamaGuard").field("url", &self.url).field("model", &self.model).finish()
    }
}

impl LlamaGuard {
    /// The client for `settings`; nothing is sent until the first check.
    pub fn new(settings: &ClassifierSettings) -> Result<Self, AiError> {
        Ok(Self {
            client: http::client(settings.timeout(), settings.timeout())?,
            url: settings.endpoint("chat/completions"),
            model: settings.model.trim().to_owned(),
            api_key: settings.key().map(str::to_owned),
        })
    }
}

/// The categories of a Llama Guard answer: empty for `safe`, the listed codes (`S4`) for
/// `unsafe`; `None` when the text is not such an answer (a chat model, a wrong template).
fn parse_answer(answer: &str) -> Option<Vec<u8>> {
    let mut lines = answer.lines().map(str::trim).filter(|line| !line.is_empty());
    match lines.next()?.to_ascii_lowercase().as_str() {
        "safe" => lines.next().is_none().then(Vec::new),
        "unsafe" => {
            let codes: Option<Vec<u8>> = lines
                .next()?
                .split(',')
                .map(|code| {
                    let code = code.trim();
                    let number = code.strip_prefix('S').or_else(|| code.strip_prefix('s'))?;
                    number.parse::<u8>().ok().filter(|n| (1..=14).contains(n))
                })
                .collect();
            codes.filter(|codes| !codes.is_empty() && lines.next().is_none())
        }
        _ => None,
    }
}

/// What the platform refuses among the categories: child sexual exploitation first, as
/// the graver, then sex-related crimes.
fn refusal_for(categories: &[u8]) -> Option<Refusal> {
    if categories.contains(&4) {
        Some(Refusal::Minors)
    } else if categories.contains(&3) {
        Some(Refusal::NonConsent)
    } else {
        None
    }
}

#[async_trait]
impl Classifier for LlamaGuard {
    async fn classify(&self, _policy: Policy, text: &str) -> Result<Option<Refusal>, AiError> {
        // Nothing written, nothing to refuse: no call spent on it.
        if text.trim().is_empty() {
            return Ok(None);
        }
        let url = self.url.as_str();
        let body = json!({
            "model": self.model,
            "messages": [{"role": "user", "content": text}],
            "temperature": 0,
            "max_tokens": MAX_TOKENS,
            "stream": false,
        });
        let mut call = self.client.post(url).json(&body);
        if let Some(key) = &self.api_key {
            call = call.bearer_auth(key);
        }
        let answer: Value = http::json(url, http::send(url, call).await?).await?;
        let Some(content) = answer["choices"][0]["message"]["content"].as_str() else {
            return Err(AiError::Internal(format!("{url} answered without choices[0].message.content")));
        };
        let Some(categories) = parse_answer(content) else {
            let start: String = content.chars().take(80).collect();
            return Err(AiError::Internal(format!(
                "{url} answered {start:?}, not Llama Guard's \"safe\" or \"unsafe\" and categories \
                 (is the model a Llama Guard, and does the server apply its chat template?)"
            )));
        };
        Ok(refusal_for(&categories))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_as_the_model_card_writes_them() {
        assert_eq!(parse_answer("safe"), Some(vec![]));
        assert_eq!(parse_answer("\n\nsafe\n"), Some(vec![]));
        assert_eq!(parse_answer("unsafe\nS4"), Some(vec![4]));
        assert_eq!(parse_answer("\n\nunsafe\nS1,S4"), Some(vec![1, 4]));
        assert_eq!(parse_answer("unsafe\nS3, S12"), Some(vec![3, 12]));
        for wrong in ["", "unsafe", "unsafe\n", "unsafe\nS15", "unsafe\nO3", "unsafe\nS4,", "Sure! Here is", "safe\nS4"]
        {
            assert_eq!(parse_answer(wrong), None, "{wrong:?}");
        }
    }

    #[test]
    fn s4_refuses_as_minors_s3_as_non_consent_and_adult_content_passes() {
        assert_eq!(refusal_for(&[4]), Some(Refusal::Minors));
        assert_eq!(refusal_for(&[3, 4]), Some(Refusal::Minors));
        assert_eq!(refusal_for(&[3]), Some(Refusal::NonConsent));
        assert_eq!(refusal_for(&[12]), None);
        assert_eq!(refusal_for(&[1, 2, 10]), None);
        assert_eq!(refusal_for(&[]), None);
    }
}
