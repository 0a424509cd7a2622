//! The current user.

use crate::api::{ApiReply, ApiResult};

/// `getUserInfo` → `UserInfo`, or `null` when no session was sent (API.md §2). Sign-in
/// does not exist yet, so no request can carry a session and the answer is `null`.
pub async fn get_user_info() -> ApiResult<Option<()>> {
    Ok(ApiReply(None))
}
