//! Group chats over HTTP (docs/api.md "Group chats", issue 31): creating a group, the
//! user's groups, changing the settings, adding, removing and muting members, deleting one,
//! reading its history, editing and deleting the user's own messages, and importing a
//! SillyTavern group chat export as a new group.
//! Each handler parses its payload and hands it to the node's `Groups`, where the rules
//! live (who may join, how many, what is moderated).

use actix_web::{HttpRequest, web};
use amora_actors::groups::{
    ActivationView, GroupChanges, GroupMessagePage, GroupMessageView, GroupView, MemberChanges, NewGroup,
};
use amora_cards::chat_log::parse_chat_log;
use amora_domain::character::CharacterId;
use amora_domain::chat::{MessageId, MessageText};
use amora_domain::group::{GroupId, GroupSettings, TalkCap, Talkativeness};
use serde::Deserialize;
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload, Upload};
use crate::auth::session::SignedIn;
use crate::state::AppState;

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NewMemberRequest {
    character_id: String,
    /// 0–100; 50 when absent.
    #[serde(default)]
    #[ts(optional, type = "number")]
    talkativeness: Option<i64>,
}

fn talkativeness(raw: Option<i64>) -> Result<Talkativeness, amora_domain::Invalid> {
    raw.map_or(Ok(Talkativeness::DEFAULT), Talkativeness::parse)
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CreateGroupRequest {
    name: String,
    #[serde(default)]
    #[ts(optional)]
    scenario: Option<String>,
    /// `natural` when absent.
    #[serde(default)]
    #[ts(optional)]
    activation: Option<ActivationView>,
    #[serde(default)]
    #[ts(optional)]
    allow_self_responses: Option<bool>,
    /// 1–10; 3 when absent.
    #[serde(default)]
    #[ts(optional, type = "number")]
    talk_cap: Option<i64>,
    /// 2–6, in seating order.
    members: Vec<NewMemberRequest>,
}

/// `group/createGroup {name, scenario?, activation?, allowSelfResponses?, talkCap?,
/// members: [{characterId, talkativeness?}]}` → `Group`.
pub async fn create_group(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<CreateGroupRequest>,
) -> ApiResult<GroupView> {
    let new = new_group(payload.into_inner())?;
    // The members' greetings are written in the language the page is read in.
    let language = crate::content::catalogue::request_language(&req);
    Ok(ApiReply(state.node.groups.create(&signed_in.user.user_id, new, language).await?))
}

fn new_group(request: CreateGroupRequest) -> Result<NewGroup, amora_domain::Invalid> {
    let talk_cap = request.talk_cap.map_or(Ok(TalkCap::DEFAULT), TalkCap::parse)?;
    let settings = GroupSettings::parse(
        &request.name,
        request.scenario.as_deref().unwrap_or(""),
        request.activation.map(Into::into).unwrap_or_default(),
        request.allow_self_responses.unwrap_or(false),
        talk_cap,
    )?;
    let members = request
        .members
        .into_iter()
        .map(|m| Ok((CharacterId::parse(&m.character_id)?, talkativeness(m.talkativeness)?)))
        .collect::<Result<Vec<_>, amora_domain::Invalid>>()?;
    Ok(NewGroup { settings, members })
}

/// `group/getGroupList {}` → `Group[]`, the most recently active first.
pub async fn get_group_list(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<Vec<GroupView>> {
    Ok(ApiReply(state.node.groups.list(&signed_in.user.user_id).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GroupRequest {
    group_id: String,
}

/// `group/getGroup {groupId}` → `Group`; 10006 when the user has no such group.
pub async fn get_group(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<GroupRequest>,
) -> ApiResult<GroupView> {
    let id = GroupId::parse(&payload.into_inner().group_id)?;
    Ok(ApiReply(state.node.groups.get(&signed_in.user.user_id, &id).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UpdateGroupRequest {
    group_id: String,
    #[serde(default)]
    #[ts(optional)]
    name: Option<String>,
    #[serde(default)]
    #[ts(optional)]
    scenario: Option<String>,
    #[serde(default)]
    #[ts(optional)]
    activation: Option<ActivationView>,
    #[serde(default)]
    #[ts(optional)]
    allow_self_responses: Option<bool>,
    #[serde(default)]
    #[ts(optional, type = "number")]
    talk_cap: Option<i64>,
}

/// `group/updateGroup {groupId, name?, scenario?, activation?, allowSelfResponses?,
/// talkCap?}` → `Group`: what is given changes, the rest stays.
pub async fn update_group(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<UpdateGroupRequest>,
) -> ApiResult<GroupView> {
    let request = payload.into_inner();
    let id = GroupId::parse(&request.group_id)?;
    let changes = GroupChanges {
        name: request.name,
        scenario: request.scenario,
        activation: request.activation.map(Into::into),
        allow_self_responses: request.allow_self_responses,
        talk_cap: request.talk_cap.map(TalkCap::parse).transpose()?,
    };
    Ok(ApiReply(state.node.groups.update(&signed_in.user.user_id, &id, changes).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AddMemberRequest {
    group_id: String,
    character_id: String,
    #[serde(default)]
    #[ts(optional, type = "number")]
    talkativeness: Option<i64>,
}

/// `group/addMember {groupId, characterId, talkativeness?}` → `Group`: seated last.
pub async fn add_member(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<AddMemberRequest>,
) -> ApiResult<GroupView> {
    let request = payload.into_inner();
    let (group, character) = (GroupId::parse(&request.group_id)?, CharacterId::parse(&request.character_id)?);
    let talkativeness = talkativeness(request.talkativeness)?;
    let user = &signed_in.user.user_id;
    Ok(ApiReply(state.node.groups.add_member(user, &group, &character, talkativeness).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MemberRequest {
    group_id: String,
    character_id: String,
}

/// `group/removeMember {groupId, characterId}` → `Group`; a group keeps two members.
pub async fn remove_member(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<MemberRequest>,
) -> ApiResult<GroupView> {
    let request = payload.into_inner();
    let (group, character) = (GroupId::parse(&request.group_id)?, CharacterId::parse(&request.character_id)?);
    Ok(ApiReply(state.node.groups.remove_member(&signed_in.user.user_id, &group, &character).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UpdateMemberRequest {
    group_id: String,
    character_id: String,
    #[serde(default)]
    #[ts(optional)]
    muted: Option<bool>,
    #[serde(default)]
    #[ts(optional, type = "number")]
    talkativeness: Option<i64>,
}

/// `group/updateMember {groupId, characterId, muted?, talkativeness?}` → `Group`: mutes or
/// unmutes a member, or changes how talkative it is.
pub async fn update_member(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<UpdateMemberRequest>,
) -> ApiResult<GroupView> {
    let request = payload.into_inner();
    let (group, character) = (GroupId::parse(&request.group_id)?, CharacterId::parse(&request.character_id)?);
    let changes = MemberChanges {
        muted: request.muted,
        talkativeness: request.talkativeness.map(Talkativeness::parse).transpose()?,
    };
    Ok(ApiReply(state.node.groups.update_member(&signed_in.user.user_id, &group, &character, changes).await?))
}

/// `group/deleteGroup {groupId}` → `true`: the group and its messages; 10006 when none.
pub async fn delete_group(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<GroupRequest>,
) -> ApiResult<bool> {
    let id = GroupId::parse(&payload.into_inner().group_id)?;
    state.node.groups.delete(&signed_in.user.user_id, &id).await?;
    Ok(ApiReply(true))
}

/// Most messages one page of a group's history holds.
const MAX_PAGE: i64 = 100;

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GroupMessageListRequest {
    group_id: String,
    #[serde(default)]
    #[ts(optional)]
    before_id: Option<String>,
    #[serde(default)]
    #[ts(optional, type = "number")]
    page_size: Option<i64>,
}

/// `group/getMessageList {groupId, beforeId?, pageSize?}` → `GroupMessagePage`, newest
/// first; `pageSize` 1–100 (default 30).
pub async fn get_message_list(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<GroupMessageListRequest>,
) -> ApiResult<GroupMessagePage> {
    let request = payload.into_inner();
    let id = GroupId::parse(&request.group_id)?;
    let before = request.before_id.as_deref().map(|raw| MessageId::parse(raw, "beforeId")).transpose()?;
    let page_size = match request.page_size {
        None => 30,
        Some(n) if (1..=MAX_PAGE).contains(&n) => n as u32,
        Some(_) => return Err(ApiError::Param(format!("pageSize: must be from 1 to {MAX_PAGE}"))),
    };
    Ok(ApiReply(state.node.groups.history(&signed_in.user.user_id, &id, before, page_size).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EditGroupMessageRequest {
    group_id: String,
    message_id: String,
    content: String,
}

/// `group/editMessage {groupId, messageId, content}` → `GroupMessage`: a new text for one
/// of the user's own messages, checked as a new message is.
pub async fn edit_message(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<EditGroupMessageRequest>,
) -> ApiResult<GroupMessageView> {
    let request = payload.into_inner();
    let id = GroupId::parse(&request.group_id)?;
    let message_id = MessageId::parse(&request.message_id, "messageId")?;
    let text = MessageText::parse(&request.content)?;
    Ok(ApiReply(state.node.groups.edit_message(&signed_in.user.user_id, &id, message_id, text).await?))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GroupMessageRequest {
    group_id: String,
    message_id: String,
}

/// `group/deleteMessage {groupId, messageId}` → `true`: one of the user's own messages leaves.
pub async fn delete_message(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Payload<GroupMessageRequest>,
) -> ApiResult<bool> {
    let request = payload.into_inner();
    let id = GroupId::parse(&request.group_id)?;
    let message_id = MessageId::parse(&request.message_id, "messageId")?;
    state.node.groups.delete_message(&signed_in.user.user_id, &id, message_id).await?;
    Ok(ApiReply(true))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportChatRequest {
    #[serde(flatten)]
    group: CreateGroupRequest,
    /// The export's text: SillyTavern's JSONL, one message a line.
    chat: String,
}

/// `group/importChat {name, ..., members, chat}` → `Group`: a new group, as `createGroup`
/// makes it, whose history is a SillyTavern group chat export (JSONL); each character line
/// is said by the member of that name. Read up to the upload limit, and counted against the
/// user's card imports (each text is moderated).
pub async fn import_chat(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    payload: Upload<ImportChatRequest>,
) -> ApiResult<GroupView> {
    let user = &signed_in.user;
    state.limits.card_imports_by_user.check(&user.user_id.as_str().to_owned())?;
    let request = payload.into_inner();
    let log = parse_chat_log(&request.chat).map_err(|e| ApiError::Param(format!("chat: {e}")))?;
    let new = new_group(request.group)?;
    Ok(ApiReply(state.node.groups.import(&user.user_id, new, log).await?))
}
