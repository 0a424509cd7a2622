//! The API's vocabulary: the code table (from `domain::code`), the one error type, the
//! payload extractor and the reply type. Every handler under `/lust/api` speaks through these.

pub mod error;
pub mod payload;
pub mod reply;

pub use amora_domain::code::ApiCode;
pub use error::ApiError;
pub use payload::{Payload, Upload};
pub use reply::ApiReply;

pub type ApiResult<T> = Result<ApiReply<T>, ApiError>;
