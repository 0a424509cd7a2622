//! Why an image request was refused, and the API code and text each reason answers with.

use amora_domain::code::ApiCode;
use amora_domain::image::ImageRequestError;
use amora_domain::money::Coins;
use amora_store::StoreError;

/// Why an image request was refused.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ImageError {
    #[error(transparent)]
    Request(#[from] ImageRequestError),
    #[error("no such character")]
    NoCharacter,
    #[error("no such job")]
    NoJob,
    #[error("no such image")]
    NoImage,
    #[error("not enough coins: {cost} needed, {balance} left")]
    NeedPay { cost: Coins, balance: Coins },
    #[error("you have {0} image jobs running already, please wait for them")]
    TooManyJobs(usize),
    #[error("the image queue is full, please try again in a moment")]
    QueueFull,
    #[error("please sign in")]
    NoAccount,
    #[error("store: {0}")]
    Store(String),
    /// The store was briefly away, or an actor did not answer: try again.
    #[error("unavailable: {0}")]
    Unavailable(String),
}

impl ImageError {
    /// The code of API.md §1.3 this error answers with.
    pub fn code(&self) -> ApiCode {
        match self {
            ImageError::Request(ImageRequestError::Invalid(_)) => ApiCode::ParamError,
            ImageError::Request(ImageRequestError::Refused(_)) => ApiCode::InputContentIllegal,
            ImageError::NoCharacter | ImageError::NoJob | ImageError::NoImage => ApiCode::NotFound,
            ImageError::NeedPay { .. } => ApiCode::NeedPay,
            ImageError::TooManyJobs(_) | ImageError::QueueFull => ApiCode::RateLimited,
            ImageError::NoAccount => ApiCode::TokenInvalid,
            ImageError::Store(_) | ImageError::Unavailable(_) => ApiCode::ServerError,
        }
    }

    /// The text clients may show; internal causes stay in the log.
    pub fn public_message(&self) -> String {
        match self.code() {
            ApiCode::ServerError if self.is_temporary() => crate::TRY_AGAIN.to_owned(),
            ApiCode::ServerError => ApiCode::ServerError.default_message().to_owned(),
            _ => self.to_string(),
        }
    }

    /// Whether trying again later may succeed (docs/api.md "Try again").
    pub fn is_temporary(&self) -> bool {
        matches!(self, ImageError::Unavailable(_))
    }
}

impl From<StoreError> for ImageError {
    fn from(error: StoreError) -> Self {
        if error.is_temporary() {
            ImageError::Unavailable(error.to_string())
        } else {
            ImageError::Store(error.to_string())
        }
    }
}

impl From<actix::MailboxError> for ImageError {
    fn from(error: actix::MailboxError) -> Self {
        ImageError::Unavailable(error.to_string())
    }
}

impl From<crate::user::UserError> for ImageError {
    fn from(error: crate::user::UserError) -> Self {
        match error {
            crate::user::UserError::NoAccount => ImageError::NoAccount,
            other if other.is_temporary() => ImageError::Unavailable(other.to_string()),
            other => ImageError::Store(other.to_string()),
        }
    }
}

impl From<crate::chat::ChatError> for ImageError {
    fn from(error: crate::chat::ChatError) -> Self {
        match error {
            crate::chat::ChatError::NoCharacter => ImageError::NoCharacter,
            crate::chat::ChatError::NoAccount => ImageError::NoAccount,
            other => ImageError::Store(other.to_string()),
        }
    }
}
