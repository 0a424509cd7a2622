//! The response codes of API.md §1.3, defined once: the server renders them in envelopes,
//! the actors put them in WebSocket `error` events.

/// Every code an envelope can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiCode {
    Success,
    ParamError,
    EnvelopeError,
    RateLimited,
    TokenInvalid,
    Forbidden,
    NotFound,
    ReRegisterWait,
    BotCheckFailed,
    AccountPwdError,
    CannotPurchasePlan,
    InputContentIllegal,
    NeedPay,
    ServerError,
}

impl ApiCode {
    pub const ALL: [ApiCode; 14] = [
        ApiCode::Success,
        ApiCode::ParamError,
        ApiCode::EnvelopeError,
        ApiCode::RateLimited,
        ApiCode::TokenInvalid,
        ApiCode::Forbidden,
        ApiCode::NotFound,
        ApiCode::ReRegisterWait,
        ApiCode::BotCheckFailed,
        ApiCode::AccountPwdError,
        ApiCode::CannotPurchasePlan,
        ApiCode::InputContentIllegal,
        ApiCode::NeedPay,
        ApiCode::ServerError,
    ];

    pub fn value(self) -> u32 {
        match self {
            ApiCode::Success => 200,
            ApiCode::ParamError => 10001,
            ApiCode::EnvelopeError => 10002,
            ApiCode::RateLimited => 10003,
            ApiCode::TokenInvalid => 10004,
            ApiCode::Forbidden => 10005,
            ApiCode::NotFound => 10006,
            ApiCode::ReRegisterWait => 10007,
            ApiCode::BotCheckFailed => 10008,
            ApiCode::AccountPwdError => 10012,
            ApiCode::CannotPurchasePlan => 10018,
            ApiCode::InputContentIllegal => 10070,
            ApiCode::NeedPay => 40004,
            ApiCode::ServerError => 50000,
        }
    }

    /// The code's name as API.md writes it.
    pub fn name(self) -> &'static str {
        match self {
            ApiCode::Success => "success",
            ApiCode::ParamError => "paramError",
            ApiCode::EnvelopeError => "envelopeError",
            ApiCode::RateLimited => "rateLimited",
            ApiCode::TokenInvalid => "tokenInvalid",
            ApiCode::Forbidden => "forbidden",
            ApiCode::NotFound => "notFound",
            ApiCode::ReRegisterWait => "reRegisterWait",
            ApiCode::BotCheckFailed => "botCheckFailed",
            ApiCode::AccountPwdError => "accountPwdError",
            ApiCode::CannotPurchasePlan => "cannotPurchasePlan",
            ApiCode::InputContentIllegal => "inputContentIllegal",
            ApiCode::NeedPay => "needPay",
            ApiCode::ServerError => "serverError",
        }
    }

    /// The English text sent in `msg` when the error has nothing more specific to say.
    pub fn default_message(self) -> &'static str {
        match self {
            ApiCode::Success => "success",
            ApiCode::ParamError => "The request is missing a field or a field is not valid.",
            ApiCode::EnvelopeError => "The request could not be decrypted.",
            ApiCode::RateLimited => "Too many requests. Please try again later.",
            ApiCode::TokenInvalid => "Please sign in.",
            ApiCode::Forbidden => "This resource is not yours.",
            ApiCode::NotFound => "Not found.",
            ApiCode::ReRegisterWait => {
                "Sorry, your account has already been deleted. You will need to wait 7 days to re-register."
            }
            ApiCode::BotCheckFailed => "Error occurred, please try again.",
            ApiCode::AccountPwdError => "Incorrect username or password.",
            ApiCode::CannotPurchasePlan => "This plan cannot be bought now.",
            ApiCode::InputContentIllegal => "This content is not allowed by the community guidelines.",
            ApiCode::NeedPay => "Not enough tokens or message credits.",
            ApiCode::ServerError => "Something went wrong on our side. Please try again.",
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_code_has_a_distinct_value_and_name() {
        let values: HashSet<_> = ApiCode::ALL.iter().map(|c| c.value()).collect();
        let names: HashSet<_> = ApiCode::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(values.len(), ApiCode::ALL.len());
        assert_eq!(names.len(), ApiCode::ALL.len());
    }

    #[test]
    fn the_values_are_those_of_the_api_contract() {
        assert_eq!(ApiCode::TokenInvalid.value(), 10004);
        assert_eq!(ApiCode::AccountPwdError.value(), 10012);
        assert_eq!(ApiCode::CannotPurchasePlan.value(), 10018);
        assert_eq!(ApiCode::InputContentIllegal.value(), 10070);
        assert_eq!(ApiCode::NeedPay.value(), 40004);
    }
}
