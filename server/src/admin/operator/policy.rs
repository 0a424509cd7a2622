//! Which role each console route needs, and whether it acts (and so needs a `reason`).
//! The guard (`super::guard`) looks every request up here: a route missing from this table
//! answers 404, so a route added to the console without a line here cannot be reached, let
//! alone without its role check.

use amora_store::OperatorRole;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone may call it (signing in).
    Public,
    /// Any signed-in operator, for reading.
    Read(OperatorRole),
    /// A signed-in operator acting: a `reason` is required and the call is audited.
    Act(OperatorRole),
    /// A signed-in operator's own session (`me`, `signOut`): no reason, no role beyond signed in.
    Session,
}

/// Whether the route's own request type has a `reason` field that the guard must leave in
/// the body (`character/reject` tells the creator why; `credit` names its ledger row).
pub fn keeps_reason(path: &str) -> bool {
    matches!(path, "character/reject" | "credit")
}

/// `path` is what follows `/lust/operator/api/`.
pub fn access(method: &actix_web::http::Method, path: &str) -> Option<Access> {
    use OperatorRole::{Admin, Moderator};
    let get = method == actix_web::http::Method::GET;
    let post = method == actix_web::http::Method::POST;
    let found = match (path, get, post) {
        ("signIn", _, true) => Access::Public,
        ("signOut", _, true) | ("me", true, _) => Access::Session,
        // The moderator's desk: queues, their actions, and suspensions.
        ("reports", true, _)
        | ("character/review", true, _)
        | ("feed", true, _)
        | ("moderation/log", true, _)
        | ("users", true, _)
        | ("audit", true, _) => Access::Read(Moderator),
        ("character/hide", _, true)
        | ("character/unhide", _, true)
        | ("character/approve", _, true)
        | ("character/reject", _, true)
        | ("feed/restore", _, true)
        | ("feed/remove", _, true)
        | ("image/remove", _, true)
        | ("report/decide", _, true)
        | ("suspend", _, true)
        | ("unsuspend", _, true) => Access::Act(Moderator),
        // The admin's: users, money, content.
        ("orders", _, true)
        | ("user", true, _)
        | ("blog/posts", true, _)
        | ("blog/post", true, _)
        | ("legal", true, _)
        | ("metrics", true, _)
        | ("money", true, _)
        | ("money/webhooks", true, _) => Access::Read(Admin),
        ("createUser", _, true)
        | ("credit", _, true)
        | ("setVip", _, true)
        | ("refund", _, true)
        | ("endPlan", _, true)
        | ("blog/publish", _, true)
        | ("blog/unpublish", _, true)
        | ("user/endSessions", _, true)
        | ("user/delete", _, true)
        | ("legal/publish", _, true)
        | ("money/webhook/replay", _, true) => Access::Act(Admin),
        // Content: landing pages' copy. Users: one session ended (as `user/endSessions`).
        ("landing", true, _) => Access::Read(Admin),
        ("landing/publish", _, true) | ("user/endSession", _, true) => Access::Act(Admin),
        _ => return None,
    };
    Some(found)
}

/// Whether an operator of `role` may use a route that needs `needed`.
pub fn allows(role: OperatorRole, needed: OperatorRole) -> bool {
    role == OperatorRole::Admin || needed == OperatorRole::Moderator
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::Method;

    #[test]
    fn a_moderator_may_work_the_queues_but_not_money_or_users() {
        assert_eq!(access(&Method::POST, "character/hide"), Some(Access::Act(OperatorRole::Moderator)));
        assert_eq!(access(&Method::POST, "refund"), Some(Access::Act(OperatorRole::Admin)));
        assert_eq!(access(&Method::POST, "report/decide"), Some(Access::Act(OperatorRole::Moderator)));
        assert_eq!(access(&Method::GET, "users"), Some(Access::Read(OperatorRole::Moderator)));
        assert_eq!(access(&Method::GET, "user"), Some(Access::Read(OperatorRole::Admin)));
        assert_eq!(access(&Method::POST, "user/delete"), Some(Access::Act(OperatorRole::Admin)));
        assert_eq!(access(&Method::GET, "metrics"), Some(Access::Read(OperatorRole::Admin)));
        assert_eq!(access(&Method::GET, "money"), Some(Access::Read(OperatorRole::Admin)));
        assert_eq!(access(&Method::GET, "money/webhooks"), Some(Access::Read(OperatorRole::Admin)));
        assert_eq!(access(&Method::POST, "money/webhook/replay"), Some(Access::Act(OperatorRole::Admin)));
        assert!(allows(OperatorRole::Moderator, OperatorRole::Moderator));
        assert!(!allows(OperatorRole::Moderator, OperatorRole::Admin));
        assert!(allows(OperatorRole::Admin, OperatorRole::Moderator));
    }

    #[test]
    fn an_unlisted_route_or_method_has_no_access() {
        assert_eq!(access(&Method::GET, "refund"), None);
        assert_eq!(access(&Method::POST, "deleteEverything"), None);
    }
}
