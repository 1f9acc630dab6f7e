//! The API's routes: each handler's extractors and answer types are its documentation (via
//! `aide`), so the router ([`crate::app::router`]) and the OpenAPI document
//! ([`crate::openapi`]) both come from [`api`] and cannot drift apart.
//!
//! Handlers only validate, find the context through the registry, call one handle method and
//! format the answer.

use std::sync::Arc;

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, patch_with, post_with, put_with};
use aide::transform::TransformOperation;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::Sse;
use axum::response::{IntoResponse, NoContent};
use braid_context::{ContextHandle, MessageQuery};
use braid_protocol::api::{
    AddMcpServerRequest, ApprovalRequest, ApprovalResponse, BranchInfo, BranchList, ContextList,
    ContextSummary, CorrectSummaryRequest, CreateBranchRequest, CreateContextRequest,
    FileChangePreview, FileChangePreviewRequest, GetMcpPromptRequest, McpElicitationList,
    McpElicitationReply, McpPromptList, McpPromptText, McpResourceList, McpServerDefinition,
    McpServerList, MergeHeld, MergeOutcome, MergeRequest, MessageList, MessageSearchHit,
    MessageSearchResults, MessageView, ModelList, ModelRequestList, PageFrom, PinFactRequest,
    ResumeResponse, SendMessageResponse, ServerSettings, SetModeRequest, StateResponse, ToolList,
    TurnView, UpdateBranchRequest, UpdateContextRequest, WorkspaceFileList,
};
use braid_protocol::workflow::{
    RunWorkflowRequest, WorkflowControl, WorkflowList, WorkflowRunResponse,
};
use braid_protocol::{
    BranchName, ContextId, ContextTurnId, ErrorCode, KindName, Message, MessageId, ModelRequestId,
    ModelRequestRecord,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::answer::{Accepted, Created, EventStream, HtmlPage, OpenApiJson, PrometheusText, Reply};
use crate::app::App;
use crate::body::{JsonBody, SendBody};
use crate::error::ApiFailure;
use crate::events::{self, StreamStart};
use crate::params::{LastEventId, PathParams, QueryParams};

/// Routes that answer without the API token: liveness probes, and the OAuth callback a
/// browser reaches from an authorization server (its single-use `state` is the secret).
pub fn unauthenticated(path: &str) -> bool {
    path == "/health" || path == crate::mcp::OAUTH_CALLBACK_PATH
}

/// An operation's id and summary.
fn doc(
    id: &'static str,
    summary: &'static str,
) -> impl for<'a> FnOnce(TransformOperation<'a>) -> TransformOperation<'a> {
    move |op| op.id(id).summary(summary)
}

/// Every route of the API, each documented from its handler.
pub fn api() -> ApiRouter<Arc<App>> {
    ApiRouter::new()
        .api_route("/health", get_with(health, doc("health", "Liveness.")))
        .api_route("/metrics", get_with(metrics, doc("metrics", "Prometheus text metrics.")))
        .api_route("/openapi.json", get_with(openapi, doc("openapi", "This document.")))
        .api_route(
            "/v1/contexts",
            get_with(list_contexts, doc("list_contexts", "Every context, most recently updated first."))
                .post_with(create_context, doc("create_context", "Creates a context; answers it as `GET /v1/contexts/{id}` would. Without a `workspace` in its config it works in the server's default workspace, the first allowed root (`--workspace-root`).")),
        )
        .api_route(
            "/v1/contexts/{id}",
            get_with(get_context, doc("get_context", "A context."))
                .patch_with(update_context, doc("update_context", "Changes the title and/or config (a JSON merge patch of the config)."))
                .delete_with(delete_context, doc("delete_context", "Deletes a context and everything it holds.")),
        )
        .api_route(
            "/v1/contexts/{id}/messages",
            get_with(list_messages, doc("list_messages", "Messages of a branch; `view=optimized` is what the model would be sent."))
                .post_with(send_message, doc("send_message", "Adds a message and answers at once with its id; progress arrives as events. `queued` when it waits behind a running turn.")),
        )
        .api_route(
            "/v1/contexts/{id}/messages/{message_id}/retry",
            post_with(retry_message, doc("retry_message", "Runs the pipeline again for input that failed (with the rest of its send); answers at once like a send. 404 for an unknown message, 409 for one that is not failed.")),
        )
        .api_route(
            "/v1/contexts/{id}/messages/{message_id}",
            get_with(get_message, doc("get_message", "One message of the context, as it is stored (a message being streamed shows what is committed so far). 404 for an unknown message."))
                .delete_with(delete_message, doc("delete_message", "Deletes input that failed, or that still waits in the queue (with the rest of its send). 404 for an unknown message, 409 for any other message.")),
        )
        .api_route(
            "/v1/contexts/{id}/messages/{message_id}/pin",
            put_with(pin_message, doc("pin_message", "Pins a message: it is never dropped or summarized to fit the window, and counts against the budget first. Answers the message. 404 for an unknown message; 409 for a notice the model never sees."))
                .delete_with(unpin_message, doc("unpin_message", "Unpins a message: it is under the optimization strategy again. Answers the message.")),
        )
        .api_route(
            "/v1/contexts/{id}/messages/{message_id}/summary",
            put_with(correct_summary, doc("correct_summary", "Corrects a summary's text: later requests get the correction; the model's text stays in `metadata.original_summary`. 409 for a message that is not a summary.")),
        )
        .api_route(
            "/v1/contexts/{id}/pins",
            post_with(pin_fact, doc("pin_fact", "Pins a fact (at most 2,000 characters): a `pinned_fact` notice on the active branch that every request carries in its ledger block while it stays pinned (unpin it like a message).")),
        )
        .api_route(
            "/v1/contexts/{id}/requests",
            get_with(list_model_requests, doc("list_model_requests", "What the model was sent, newest first: one record per request, naming each message sent (whole, truncated, elided or as a summary) with its tokens, the ledger block, the messages left out, the system prompt's and tools' tokens, against the window and reserve. An answer's `metadata.model_request_id` names its record.")),
        )
        .api_route(
            "/v1/contexts/{id}/requests/{request_id}",
            get_with(get_model_request, doc("get_model_request", "One request record. 404 for an unknown one.")),
        )
        .api_route(
            "/v1/contexts/{id}/events",
            get_with(context_events, doc("context_events", "The context's events as SSE (`context_update`, `content_delta`, `content_final`, `error`, `turn_completed`, `heartbeat`); every event of a turn carries its `turn_id` and `branch`, and `turn_completed` ends each turn; every logged event has an `id:`; reconnect with `Last-Event-ID`.")),
        )
        .api_route(
            "/v1/contexts/{id}/turns/{turn_id}",
            get_with(get_turn, doc("get_turn", "Where a turn is: `queued`, `running`, or `completed` with its `outcome` (as its `turn_completed` event said). A send's 202 names its `turn_id`. 404 for an unknown turn.")),
        )
        .api_route(
            "/v1/contexts/{id}/state",
            get_with(get_state, doc("get_state", "The current state, and the transition history with `history=true`.")),
        )
        .api_route(
            "/v1/contexts/{id}/files",
            get_with(list_workspace_files, doc("list_workspace_files", "Files of the context's workspace (gitignored ones left out), for the file picker.")),
        )
        .api_route(
            "/v1/contexts/{id}/files/preview",
            post_with(preview_file_change, doc("preview_file_change", "What a file-changing tool call (`write_file`, `create_file`, `replace_in_file`, `delete_file`) would do to the file as it is in the context's workspace now: the text before and after (each at most 1 MiB), the lines an overwrite replaces, the line a replacement starts at. Reads only. 409 without a workspace; 422 for another tool, bad arguments or a path outside the workspace.")),
        )
        .api_route(
            "/v1/contexts/{id}/approvals",
            post_with(approve, doc("approve", "Approves or denies pending tool calls. Once every waiting call is decided, the 202 names the turn that continues the loop (`turn_id`, and `stream_after` to stream it from); while other calls still wait, it names none.")),
        )
        .api_route(
            "/v1/contexts/{id}/interrupt",
            post_with(interrupt, doc("interrupt", "Stops the loop after the running tool.")),
        )
        .api_route(
            "/v1/contexts/{id}/resume",
            post_with(resume, doc("resume", "Continues a paused or failed loop. The 202 names the turn it runs as (`turn_id`, and `stream_after` to stream it from).")),
        )
        .api_route(
            "/v1/contexts/{id}/mode",
            put_with(set_mode, doc("set_mode", "Switches between plan and act (adds a `mode_change` notice).")),
        )
        .api_route(
            "/v1/contexts/{id}/branches",
            get_with(list_branches, doc("list_branches", "The branches and the active one."))
                .post_with(create_branch, doc("create_branch", "Creates a branch, optionally from any message.")),
        )
        .api_route(
            "/v1/contexts/{id}/branches/{name}/activate",
            post_with(activate_branch, doc("activate_branch", "Makes a branch the active one.")),
        )
        .api_route(
            "/v1/contexts/{id}/branches/{name}",
            patch_with(update_branch, doc("update_branch", "Changes a branch's system-prompt override and pipeline (absent fields stay, `null` clears)."))
                .delete_with(delete_branch, doc("delete_branch", "Deletes a branch that is not active.")),
        )
        .api_route(
            "/v1/contexts/{id}/branches/{name}/merge",
            post_with(merge_branch, doc("merge_branch", "Merges branch `{name}` into `target` (the active branch by default) with a strategy (`append`, `cherry_pick`, `rebase`). `dry_run` previews without changing anything. A merge with conflicts that have no resolution, or with dependency warnings not accepted, answers 409 with the `error` and the same outcome (`warnings`, `conflicts` with their `suggestions`) and changes nothing.")),
        )
        .api_route(
            "/v1/contexts/{id}/plans/{message_id}/execute",
            post_with(execute_plan, doc("execute_plan", "Executes a plan: switches to act mode and sends it for execution.")),
        )
        .api_route(
            "/v1/contexts/{id}/plans/{message_id}/refine",
            post_with(refine_plan, doc("refine_plan", "Asks the agent to refine a plan with feedback.")),
        )
        .api_route(
            "/v1/contexts/{id}/questions/{message_id}/answer",
            post_with(answer_question, doc("answer_question", "Answers a `question` message (the same as sending a `question_answer` payload).")),
        )
        .api_route(
            "/v1/search",
            get_with(search_messages, doc("search_messages", "Searches what people and the model wrote in every conversation: the text messages holding every word of `q` (each word matches the start of a word, in any case), best match first, each with its conversation, a branch showing it and a snippet. 422 names a query with no word, more than 16 words, or a word over 64 characters.")),
        )
        .api_route(
            "/v1/models",
            get_with(list_models, doc("list_models", "The models the model server lists (its `/v1/models`), each with its context window, vision and tool calling as discovered from the server (or Braid's table, or the defaults) and where each figure came from; the first 64 are described. `list_error` says why the list could not be read.")),
        )
        .api_route("/v1/tools", get_with(list_tools, doc("list_tools", "Every registered tool.")))
        .api_route(
            "/v1/settings",
            get_with(get_settings, doc("get_settings", "The server's settings a client shows: the allowed workspace roots.")),
        )
        .api_route(
            "/v1/mcp/servers",
            get_with(list_mcp_servers, doc("list_mcp_servers", "MCP servers and their status."))
                .post_with(add_mcp_server, doc("add_mcp_server", "Adds a server to `mcp_servers.json` (`command` for stdio or `url` for streamable HTTP; 422 names the field, 409 when the name is taken or Braid has no configuration file) and connects to it; answers every server's status.")),
        )
        .api_route(
            "/v1/mcp/servers/{name}",
            put_with(replace_mcp_server, doc("replace_mcp_server", "Replaces a server's definition in `mcp_servers.json` (a `null` env or header value keeps the current one; the entry's other fields stay) and reconnects it; answers every server's status."))
                .delete_with(remove_mcp_server, doc("remove_mcp_server", "Removes a server from `mcp_servers.json` and stops it; answers every server's status.")),
        )
        .api_route(
            "/v1/mcp/servers/reload",
            post_with(reload_mcp_servers, doc("reload_mcp_servers", "Re-reads the MCP configuration and reconnects.")),
        )
        .api_route(
            "/v1/mcp/prompts",
            get_with(list_mcp_prompts, doc("list_mcp_prompts", "Prompts of every ready MCP server (the composer's `/` menu).")),
        )
        .api_route(
            "/v1/mcp/prompts/{server}/{name}",
            post_with(get_mcp_prompt, doc("get_mcp_prompt", "Gets a prompt with its arguments, as the text to send.")),
        )
        .api_route(
            "/v1/mcp/elicitations",
            get_with(list_mcp_elicitations, doc("list_mcp_elicitations", "Questions MCP servers ask the person during tool calls, waiting for an answer.")),
        )
        .api_route(
            "/v1/mcp/elicitations/{id}",
            post_with(reply_mcp_elicitation, doc("reply_mcp_elicitation", "Answers (accepts with the form's values), declines or cancels a server's question.")),
        )
        .api_route(
            crate::mcp::OAUTH_CALLBACK_PATH,
            get_with(mcp_oauth_callback, doc("mcp_oauth_callback", "Where an MCP server's authorization server sends the person's browser back: finishes the authorization and shows a page saying so.")),
        )
        .api_route(
            "/v1/mcp/resources",
            get_with(list_mcp_resources, doc("list_mcp_resources", "Resources of every ready MCP server.")),
        )
        .api_route(
            "/v1/workflows",
            get_with(list_workflows, doc("list_workflows", "Workflow definitions a context can use (its workspace's `.braid/workflows/` and the data directory's `workflows/`; the workspace wins a name clash), each with its parameter schema, source file and errors.")),
        )
        .api_route(
            "/v1/contexts/{id}/workflows/{name}/run",
            post_with(run_workflow, doc("run_workflow", "Starts a workflow run with `{ parameters }` (checked against its schema: 422 names the parameter); answers 202 once its `workflow_execution` message is stored. The run is a turn of its own: the 202 names its `turn_id` (and `stream_after` to stream it from), every event of the run carries it, and one `turn_completed` ends it when the run completes (`answered`), fails (`failed`), is cancelled (`interrupted`), pauses (`paused`, or `interrupted` after an interrupt) or waits at an approval step or a tool call's approval (`awaiting_approval`). A run started by a send (a `workflow` payload, as the `/` menu sends) is that send's turn; a run the model starts with a `workflow__<name>` call goes in the model's turn, which goes on after it. An `Idempotency-Key` replay answers the same run and turn.")),
        )
        .api_route(
            "/v1/contexts/{id}/workflows/executions/{eid}/pause",
            post_with(pause_workflow, doc("pause_workflow", "Pauses a run when its running step ends; the run's turn then ends `paused`.")),
        )
        .api_route(
            "/v1/contexts/{id}/workflows/executions/{eid}/resume",
            post_with(resume_workflow, doc("resume_workflow", "Resumes a paused run from its current step (also: goes past an approval step). The run goes on as a new turn: the 202 names its `turn_id` and `stream_after`, and its `turn_completed` says how the run ended or stopped again.")),
        )
        .api_route(
            "/v1/contexts/{id}/workflows/executions/{eid}/cancel",
            post_with(cancel_workflow, doc("cancel_workflow", "Cancels a run (also: declines an approval step); a running step ends first, and the run's turn then ends `interrupted`. A paused or waiting run's turn has ended already: cancelling it runs no turn.")),
        )
}

/// `{ "status": "ok", "version" }`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    /// Always `ok` when the server answers.
    pub status: String,
    /// The server's version.
    pub version: String,
}

/// `POST .../plans/{message_id}/refine`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RefinePlanRequest {
    /// What the person wants changed.
    pub feedback: String,
}

/// `POST .../questions/{message_id}/answer`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct AnswerQuestionRequest {
    /// The answer (an option's value or free text).
    pub value: String,
}

/// `{id}`: a context.
#[derive(Deserialize, JsonSchema)]
pub struct ContextPath {
    /// The context's id (a UUID).
    pub id: ContextId,
}

/// `{id}` and `{message_id}`: a message of a context.
#[derive(Deserialize, JsonSchema)]
pub struct MessagePath {
    /// The context's id (a UUID).
    pub id: ContextId,
    /// The message's id (a UUID).
    pub message_id: MessageId,
}

/// `{id}` and `{request_id}`: a model request of a context.
#[derive(Deserialize, JsonSchema)]
pub struct RequestPath {
    /// The context's id (a UUID).
    pub id: ContextId,
    /// The request record's id (a UUID).
    pub request_id: ModelRequestId,
}

/// Query of `GET /v1/contexts/{id}/requests`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestsQuery {
    /// Only requests made on this branch.
    pub branch: Option<BranchName>,
    /// Only requests older than this one (the previous page's last id).
    pub before: Option<ModelRequestId>,
    /// At most this many (default 20, at most 1000).
    pub limit: Option<u32>,
}

/// `{id}` and `{turn_id}`: a turn of a context.
#[derive(Deserialize, JsonSchema)]
pub struct TurnPath {
    /// The context's id (a UUID).
    pub id: ContextId,
    /// The turn's id (a UUID), as a send's answer names it.
    pub turn_id: ContextTurnId,
}

/// `{id}` and `{name}`: a branch of a context.
#[derive(Deserialize, JsonSchema)]
pub struct BranchPath {
    /// The context's id (a UUID).
    pub id: ContextId,
    /// The branch's name.
    pub name: BranchName,
}

/// `{id}` and `{name}`: a workflow, run in a context.
#[derive(Deserialize, JsonSchema)]
pub struct WorkflowPath {
    /// The context's id (a UUID).
    pub id: ContextId,
    /// The workflow's name.
    pub name: String,
}

/// `{id}` and `{eid}`: a workflow run of a context.
#[derive(Deserialize, JsonSchema)]
pub struct ExecutionPath {
    /// The context's id (a UUID).
    pub id: ContextId,
    /// The run's execution id (its `workflow_execution` message's `execution_id`).
    pub eid: String,
}

/// `{server}` and `{name}`: an MCP server's prompt.
#[derive(Deserialize, JsonSchema)]
pub struct PromptPath {
    /// The MCP server's name.
    pub server: String,
    /// The prompt's name.
    pub name: String,
}

/// `{name}`: a configured MCP server.
#[derive(Deserialize, JsonSchema)]
pub struct McpServerPath {
    /// The server's name in `mcp_servers.json`.
    pub name: String,
}

/// `{id}`: an MCP server's question.
#[derive(Deserialize, JsonSchema)]
pub struct ElicitationPath {
    /// The question's id.
    pub id: String,
}

/// Query of `GET /v1/contexts/{id}/messages`.
#[derive(Deserialize, JsonSchema)]
pub struct MessagesQuery {
    /// The branch; the active one when absent.
    pub branch: Option<BranchName>,
    /// `full` (stored history, the default) or `optimized` (what the model would be sent).
    pub view: Option<MessageView>,
    /// Only messages of this kind (`text`, `tool_request`...).
    pub kind: Option<KindName>,
    /// Only messages after this message id (the previous page's `next_after`).
    pub after: Option<MessageId>,
    /// Only messages before this message id, the newest of them (the previous page's
    /// `next_before`, or the last message listed to page back from the end); not with `after`.
    pub before: Option<MessageId>,
    /// At most this many (default 100, at most 1000).
    pub limit: Option<u32>,
    /// Without `after` or `before`: `start` (the oldest messages, the default) or `end` (the
    /// newest, with `next_before` to page back), as a reader opening a long conversation wants.
    pub from: Option<PageFrom>,
}

/// Query of `GET /v1/contexts`.
#[derive(Deserialize, JsonSchema)]
pub struct ContextsQuery {
    /// Only contexts listed after this one (the previous page's `next_before`).
    pub before: Option<ContextId>,
    /// At most this many (1 to 1000; all when absent).
    pub limit: Option<u32>,
}

/// Query of `GET /v1/search`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchQuery {
    /// The words to find (letters and digits; anything else separates words).
    pub q: String,
    /// At most this many hits (1 to 100; 20 when absent).
    pub limit: Option<u32>,
}

/// Query of `GET /v1/contexts/{id}/events`.
#[derive(Deserialize, JsonSchema)]
pub struct EventsQuery {
    /// Replay logged events after this sequence first (0 replays everything); `Last-Event-ID`
    /// does the same. Without either the stream starts live.
    pub after: Option<u64>,
}

/// Query of `GET /v1/contexts/{id}/state`.
#[derive(Deserialize, JsonSchema)]
pub struct StateQuery {
    /// Include the transition history.
    pub history: Option<bool>,
}

/// Query of `GET /v1/contexts/{id}/files`.
#[derive(Deserialize, JsonSchema)]
pub struct FilesQuery {
    /// Only files whose path contains this text (ignoring case).
    pub query: Option<String>,
    /// At most this many files (1 to 1000, default 200).
    pub limit: Option<u32>,
}

/// Query of `GET /v1/workflows`.
#[derive(Deserialize, JsonSchema)]
pub struct WorkflowsQuery {
    /// The context whose workspace's workflows to include; without it, only the data
    /// directory's.
    pub context: Option<ContextId>,
}

/// Query of the OAuth callback, as an authorization server sends it (RFC 6749 section 4.1.2).
#[derive(Deserialize, JsonSchema)]
pub struct OAuthCallbackQuery {
    /// The authorization code.
    pub code: Option<String>,
    /// The state Braid sent with the authorization request.
    pub state: Option<String>,
    /// Why the authorization server refused, instead of a code.
    pub error: Option<String>,
    /// The refusal in words.
    pub error_description: Option<String>,
    /// The authorization server's issuer (RFC 9207).
    pub iss: Option<String>,
}

type ApiResult<T> = std::result::Result<T, ApiFailure>;

/// The running context `id`.
async fn handle(app: &App, id: ContextId) -> ApiResult<ContextHandle> {
    Ok(app.registry.get(id).await?)
}

async fn get_settings(State(app): State<Arc<App>>) -> Reply<ServerSettings> {
    let roots = &app.registry.services().settings.workspace_roots;
    Reply(ServerSettings {
        workspace_roots: roots
            .roots()
            .iter()
            .map(|r| r.display().to_string())
            .collect(),
    })
}

async fn health() -> Reply<Health> {
    Reply(Health {
        status: "ok".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    })
}

async fn metrics(State(app): State<Arc<App>>) -> PrometheusText {
    let live = app.registry.live_count().await;
    let mut response = app.metrics.render(live).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(crate::metrics::CONTENT_TYPE),
    );
    PrometheusText(response)
}

async fn openapi(State(app): State<Arc<App>>) -> OpenApiJson {
    OpenApiJson(Reply::<_, 200>(app.openapi.as_ref().clone()).into_response())
}

async fn list_contexts(
    State(app): State<Arc<App>>,
    QueryParams(query): QueryParams<ContextsQuery>,
) -> ApiResult<Reply<ContextList>> {
    check_limit(query.limit)?;
    let contexts = app.registry.list().await?;
    let (contexts, next_before) = page(contexts, query.before, query.limit, |c| c.id)?;
    Ok(Reply(ContextList {
        contexts,
        next_before,
    }))
}

/// The most listed models `GET /v1/models` describes (each is discovered once, at most three
/// requests to the model server).
const DESCRIBED_MODELS: usize = 64;

async fn list_models(State(app): State<Arc<App>>) -> Reply<ModelList> {
    let services = app.registry.services();
    let default_model = Some(services.settings.default_model.clone()).filter(|m| !m.is_empty());
    let Some(llm) = &services.llm else {
        return Reply(ModelList {
            default_model,
            models: Vec::new(),
            list_error: Some(
                "no model server is configured (set BRAID_LLM_PROVIDER and BRAID_LLM_BASE_URL)"
                    .into(),
            ),
        });
    };
    let (ids, list_error) = match llm.list_models().await {
        Ok(ids) => (ids, None),
        Err(error) => {
            tracing::info!(%error, "the model server's model list could not be read");
            (Vec::new(), Some(error.to_string()))
        }
    };
    let ids: Vec<String> = ids.into_iter().take(DESCRIBED_MODELS).collect();
    let found = futures::future::join_all(ids.iter().map(|id| llm.discover(id))).await;
    Reply(ModelList {
        default_model,
        models: found
            .iter()
            .zip(&ids)
            .map(|(capabilities, id)| capabilities.view(id))
            .collect(),
        list_error,
    })
}

async fn search_messages(
    State(app): State<Arc<App>>,
    QueryParams(query): QueryParams<SearchQuery>,
) -> ApiResult<Reply<MessageSearchResults>> {
    let max = braid_store::MAX_SEARCH_HITS;
    let limit = match query.limit {
        None => 20,
        Some(l) if (1..=max).contains(&l) => l,
        Some(_) => {
            return Err(ApiFailure::invalid(
                "query.limit",
                format!("limit must be between 1 and {max}"),
            ));
        }
    };
    let terms = braid_store::SearchTerms::parse(&query.q)
        .map_err(|e| ApiFailure::invalid("query.q", e.to_string()))?;
    let hits = app
        .registry
        .services()
        .store
        .search_messages(&terms, limit)
        .await
        .map_err(braid_context::EngineError::from)?;
    Ok(Reply(MessageSearchResults {
        hits: hits
            .into_iter()
            .map(|hit| MessageSearchHit {
                context_id: hit.context,
                title: Some(hit.title).filter(|t| !t.is_empty()),
                message_id: hit.message,
                branch: hit.branch,
                role: hit.role,
                snippet: hit.snippet,
                created_at: hit.created_at,
            })
            .collect(),
    }))
}

/// A page limit's bounds: 1 to 1000.
fn check_limit(limit: Option<u32>) -> ApiResult<()> {
    if limit.is_some_and(|l| l == 0 || l > 1000) {
        return Err(ApiFailure::invalid(
            "query.limit",
            "limit must be between 1 and 1000",
        ));
    }
    Ok(())
}

/// The page of `items` after the one whose id is `before` (from the start without it), at
/// most `limit` long, and the id to ask the next page `before` when items remain.
fn page<T, Id: PartialEq + Copy + std::fmt::Display>(
    items: Vec<T>,
    before: Option<Id>,
    limit: Option<u32>,
    id: impl Fn(&T) -> Id,
) -> ApiResult<(Vec<T>, Option<Id>)> {
    let start = match before {
        None => 0,
        Some(before) => {
            items
                .iter()
                .position(|item| id(item) == before)
                .ok_or_else(|| {
                    ApiFailure::invalid(
                        "query.before",
                        format!("`{before}` is not in the list (deleted since the previous page?)"),
                    )
                })?
                + 1
        }
    };
    let limit = limit.map_or(usize::MAX, |l| l as usize);
    let rest = items.len().saturating_sub(start);
    let page: Vec<T> = items.into_iter().skip(start).take(limit).collect();
    let next = if rest > page.len() {
        page.last().map(&id)
    } else {
        None
    };
    Ok((page, next))
}

async fn create_context(
    State(app): State<Arc<App>>,
    JsonBody(mut request): JsonBody<CreateContextRequest>,
) -> ApiResult<Created<ContextSummary>> {
    // A conversation starts in the server's default workspace (the first allowed root), so its
    // file tools and workflows work from the first message; `workspace` in the config picks
    // another.
    if request.config.workspace.is_none() {
        request.config.workspace =
            default_workspace(&app.registry.services().settings.workspace_roots);
    }
    let handle = app.registry.create(request).await?;
    Ok(Reply(handle.summary().await?))
}

/// The server's default workspace: the first allowed root that may itself be a workspace (a
/// root that is Braid's own data directory, as when `braid serve` runs inside it, is passed
/// over); none when no root may be.
fn default_workspace(roots: &braid_tools::WorkspaceRoots) -> Option<String> {
    roots
        .roots()
        .iter()
        .map(|root| root.display().to_string())
        .find(|root| roots.open(root).is_ok())
}

async fn get_context(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
) -> ApiResult<Reply<ContextSummary>> {
    Ok(Reply(handle(&app, path.id).await?.summary().await?))
}

async fn update_context(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    JsonBody(request): JsonBody<UpdateContextRequest>,
) -> ApiResult<Reply<ContextSummary>> {
    Ok(Reply(handle(&app, path.id).await?.update(request).await?))
}

async fn delete_context(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
) -> ApiResult<NoContent> {
    app.registry.delete(path.id).await?;
    Ok(NoContent)
}

async fn get_message(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<MessagePath>,
) -> ApiResult<Reply<Message>> {
    let h = handle(&app, path.id).await?;
    match h.message(path.message_id).await {
        Ok(message) => Ok(Reply(message)),
        Err(braid_context::EngineError::NotFound(_)) => Err(ApiFailure::new(
            ErrorCode::NotFound,
            format!("context {} has no message {}", path.id, path.message_id),
            Some("message_id".into()),
        )),
        Err(e) => Err(e.into()),
    }
}

async fn pin_message(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<MessagePath>,
) -> ApiResult<Reply<Message>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.pin(path.message_id, true).await?))
}

async fn unpin_message(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<MessagePath>,
) -> ApiResult<Reply<Message>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.pin(path.message_id, false).await?))
}

async fn pin_fact(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    JsonBody(request): JsonBody<PinFactRequest>,
) -> ApiResult<Created<Message>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.pin_fact(request.text).await?))
}

async fn correct_summary(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<MessagePath>,
    JsonBody(request): JsonBody<CorrectSummaryRequest>,
) -> ApiResult<Reply<Message>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(
        h.correct_summary(path.message_id, request.text).await?,
    ))
}

async fn list_model_requests(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    QueryParams(query): QueryParams<RequestsQuery>,
) -> ApiResult<Reply<ModelRequestList>> {
    check_limit(query.limit)?;
    // Loading the context answers 404 for an unknown one.
    handle(&app, path.id).await?;
    let limit = query.limit.unwrap_or(20);
    let store = &app.registry.services().store;
    let rows = store
        .model_requests(
            path.id,
            query.branch.as_ref().map(BranchName::as_str),
            query.before.map(|id| id.0),
            limit + 1,
        )
        .await
        .map_err(braid_context::EngineError::from)?;
    let has_more = rows.len() > limit as usize;
    let requests = rows
        .iter()
        .take(limit as usize)
        .map(|json| stored_record(json))
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(Reply(ModelRequestList { requests, has_more }))
}

async fn get_model_request(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<RequestPath>,
) -> ApiResult<Reply<ModelRequestRecord>> {
    handle(&app, path.id).await?;
    let store = &app.registry.services().store;
    match store
        .model_request(path.id, path.request_id.0)
        .await
        .map_err(braid_context::EngineError::from)?
    {
        Some(json) => Ok(Reply(stored_record(&json)?)),
        None => Err(ApiFailure::new(
            ErrorCode::NotFound,
            format!(
                "context {} has no model request {}",
                path.id, path.request_id
            ),
            Some("request_id".into()),
        )),
    }
}

/// A stored request record, read back; one the server cannot read is its own fault (500).
fn stored_record(json: &str) -> ApiResult<ModelRequestRecord> {
    serde_json::from_str(json).map_err(|e| {
        ApiFailure::new(
            ErrorCode::Internal,
            format!("a stored model request record could not be read: {e}"),
            None,
        )
    })
}

async fn get_turn(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<TurnPath>,
) -> ApiResult<Reply<TurnView>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.turn(path.turn_id).await?))
}

async fn list_messages(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    QueryParams(query): QueryParams<MessagesQuery>,
) -> ApiResult<Reply<MessageList>> {
    check_limit(query.limit)?;
    let message_query = MessageQuery {
        branch: query.branch,
        view: query.view.unwrap_or(MessageView::Full),
        kind: query.kind,
        after: query.after,
        before: query.before,
        limit: query.limit,
        from: query.from.unwrap_or_default(),
    };
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.messages(message_query).await?))
}

async fn send_message(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    SendBody(request): SendBody,
) -> ApiResult<Accepted<SendMessageResponse>> {
    let h = handle(&app, path.id).await?;
    let answer = h.send_message(request).await?;
    Ok(Reply(answer))
}

async fn retry_message(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<MessagePath>,
) -> ApiResult<Accepted<SendMessageResponse>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.retry_message(path.message_id).await?))
}

async fn delete_message(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<MessagePath>,
) -> ApiResult<NoContent> {
    handle(&app, path.id)
        .await?
        .delete_message(path.message_id)
        .await?;
    Ok(NoContent)
}

async fn context_events(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    QueryParams(query): QueryParams<EventsQuery>,
    LastEventId(from_header): LastEventId,
) -> ApiResult<EventStream> {
    let start = match from_header.or(query.after) {
        Some(n) => StreamStart::After(n),
        None => StreamStart::Live,
    };
    let mut response = if events_elsewhere(&app, path.id).await? {
        Sse::new(events::follow_log(app.clone(), path.id, start)).into_response()
    } else {
        let h = handle(&app, path.id).await?;
        Sse::new(events::stream(app.clone(), h, start)).into_response()
    };
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(EventStream(response))
}

/// Whether another live replica runs the context: its events are then served from the shared
/// log instead of loading it here.
async fn events_elsewhere(app: &App, id: ContextId) -> ApiResult<bool> {
    if app.registry.is_live(id).await {
        return Ok(false);
    }
    let store = &app.registry.services().store;
    Ok(store
        .lease(id)
        .await
        .map_err(braid_context::EngineError::from)?
        .is_some_and(|l| l.live && !l.mine))
}

async fn get_state(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    QueryParams(query): QueryParams<StateQuery>,
) -> ApiResult<Reply<StateResponse>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.state(query.history.unwrap_or(false)).await?))
}

async fn list_workspace_files(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    QueryParams(query): QueryParams<FilesQuery>,
) -> ApiResult<Reply<WorkspaceFileList>> {
    let h = handle(&app, path.id).await?;
    let files = h
        .workspace_files(query.query.unwrap_or_default(), query.limit.unwrap_or(200))
        .await?;
    Ok(Reply(files))
}

async fn preview_file_change(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    JsonBody(request): JsonBody<FileChangePreviewRequest>,
) -> ApiResult<Reply<FileChangePreview>> {
    if !braid_tools::preview::PREVIEWED_TOOLS.contains(&request.tool.as_str()) {
        return Err(ApiFailure::invalid(
            "tool",
            format!(
                "`{}` changes no file; a preview is for {}",
                request.tool,
                braid_tools::preview::PREVIEWED_TOOLS.join(", ")
            ),
        ));
    }
    let summary = handle(&app, path.id).await?.summary().await?;
    let Some(root) = summary.config.workspace else {
        return Err(ApiFailure::new(
            ErrorCode::Conflict,
            "this context has no workspace: set `workspace` in its config",
            Some("config.workspace".to_owned()),
        ));
    };
    let workspace = app
        .registry
        .services()
        .settings
        .workspace_roots
        .open(&root)
        .map_err(|e| ApiFailure::invalid("config.workspace", e.to_string()))?;
    let preview = tokio::task::spawn_blocking(move || {
        braid_tools::preview::preview_file_change(&workspace, &request.tool, request.arguments)
    })
    .await
    .map_err(|e| {
        ApiFailure::new(
            ErrorCode::Internal,
            format!("the preview stopped: {e}"),
            None,
        )
    })?
    .map_err(|e| {
        let field = match e.code {
            braid_tools::ToolErrorCode::InvalidArguments => "arguments",
            _ => "arguments.path",
        };
        ApiFailure::invalid(field, e.message)
    })?;
    Ok(Reply(preview))
}

async fn approve(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    JsonBody(request): JsonBody<ApprovalRequest>,
) -> ApiResult<Accepted<ApprovalResponse>> {
    Ok(Reply(handle(&app, path.id).await?.approve(request).await?))
}

async fn interrupt(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
) -> ApiResult<NoContent> {
    handle(&app, path.id).await?.interrupt().await?;
    Ok(NoContent)
}

async fn resume(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
) -> ApiResult<Accepted<ResumeResponse>> {
    Ok(Reply(handle(&app, path.id).await?.resume().await?))
}

async fn set_mode(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    JsonBody(request): JsonBody<SetModeRequest>,
) -> ApiResult<NoContent> {
    handle(&app, path.id).await?.set_mode(request.mode).await?;
    Ok(NoContent)
}

async fn list_branches(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
) -> ApiResult<Reply<BranchList>> {
    Ok(Reply(handle(&app, path.id).await?.branches().await?))
}

async fn create_branch(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ContextPath>,
    JsonBody(request): JsonBody<CreateBranchRequest>,
) -> ApiResult<Created<BranchInfo>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.create_branch(request).await?))
}

async fn activate_branch(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<BranchPath>,
) -> ApiResult<NoContent> {
    handle(&app, path.id)
        .await?
        .switch_branch(path.name)
        .await?;
    Ok(NoContent)
}

async fn update_branch(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<BranchPath>,
    JsonBody(request): JsonBody<UpdateBranchRequest>,
) -> ApiResult<Reply<BranchInfo>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.update_branch(path.name, request).await?))
}

/// Why a merge request did not merge: held by conflicts or warnings (409 with the outcome), or
/// any other failure.
enum MergeRefusal {
    Held(Box<Reply<MergeHeld, 409>>),
    Failed(ApiFailure),
}

impl From<ApiFailure> for MergeRefusal {
    fn from(failure: ApiFailure) -> Self {
        MergeRefusal::Failed(failure)
    }
}

impl IntoResponse for MergeRefusal {
    fn into_response(self) -> axum::response::Response {
        match self {
            MergeRefusal::Held(held) => held.into_response(),
            MergeRefusal::Failed(failure) => failure.into_response(),
        }
    }
}

impl aide::OperationOutput for MergeRefusal {
    type Inner = MergeHeld;

    fn inferred_responses(
        ctx: &mut aide::generate::GenContext,
        operation: &mut aide::openapi::Operation,
    ) -> Vec<(Option<aide::openapi::StatusCode>, aide::openapi::Response)> {
        let mut responses = vec![(
            Some(aide::openapi::StatusCode::Code(409)),
            crate::answer::json_doc::<MergeHeld>(
                ctx,
                "Held: conflicts without a resolution or warnings not accepted (the outcome says which), or the context is busy (an error without an outcome). Nothing changed.",
            ),
        )];
        responses.extend(ApiFailure::inferred_responses(ctx, operation));
        responses
    }
}

async fn merge_branch(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<BranchPath>,
    JsonBody(request): JsonBody<MergeRequest>,
) -> Result<Reply<MergeOutcome>, MergeRefusal> {
    let h = handle(&app, path.id).await?;
    match h.merge(path.name, request).await {
        Ok(outcome) => Ok(Reply(outcome)),
        Err(braid_context::EngineError::MergeHeld(outcome)) => {
            let failure = ApiFailure::from(braid_context::EngineError::MergeHeld(outcome.clone()));
            Err(MergeRefusal::Held(Box::new(Reply(MergeHeld {
                error: failure.body.error,
                outcome: *outcome,
            }))))
        }
        Err(e) => Err(ApiFailure::from(e).into()),
    }
}

async fn delete_branch(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<BranchPath>,
) -> ApiResult<NoContent> {
    handle(&app, path.id)
        .await?
        .delete_branch(path.name)
        .await?;
    Ok(NoContent)
}

async fn execute_plan(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<MessagePath>,
) -> ApiResult<Accepted<SendMessageResponse>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.execute_plan(path.message_id).await?))
}

async fn refine_plan(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<MessagePath>,
    JsonBody(request): JsonBody<RefinePlanRequest>,
) -> ApiResult<Accepted<SendMessageResponse>> {
    if request.feedback.trim().is_empty() {
        return Err(ApiFailure::invalid(
            "feedback",
            "feedback must not be empty",
        ));
    }
    let h = handle(&app, path.id).await?;
    Ok(Reply(
        h.refine_plan(path.message_id, request.feedback).await?,
    ))
}

async fn answer_question(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<MessagePath>,
    JsonBody(request): JsonBody<AnswerQuestionRequest>,
) -> ApiResult<Accepted<SendMessageResponse>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(
        h.answer_question(path.message_id, request.value).await?,
    ))
}

async fn list_tools(State(app): State<Arc<App>>) -> Reply<ToolList> {
    let tools = app.registry.services().tools.all_infos();
    Reply(ToolList { tools })
}

async fn list_mcp_servers(State(app): State<Arc<App>>) -> Reply<McpServerList> {
    Reply(app.mcp.servers().await)
}

async fn reload_mcp_servers(State(app): State<Arc<App>>) -> Reply<McpServerList> {
    Reply(app.mcp.reload().await)
}

async fn add_mcp_server(
    State(app): State<Arc<App>>,
    JsonBody(request): JsonBody<AddMcpServerRequest>,
) -> ApiResult<Reply<McpServerList>> {
    app.mcp
        .add_server(request)
        .await
        .map(Reply)
        .map_err(|e| edit_failure(e, "server."))
}

async fn replace_mcp_server(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<McpServerPath>,
    JsonBody(definition): JsonBody<McpServerDefinition>,
) -> ApiResult<Reply<McpServerList>> {
    app.mcp
        .replace_server(&path.name, definition)
        .await
        .map(Reply)
        .map_err(|e| edit_failure(e, ""))
}

async fn remove_mcp_server(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<McpServerPath>,
) -> ApiResult<Reply<McpServerList>> {
    app.mcp
        .remove_server(&path.name)
        .await
        .map(Reply)
        .map_err(|e| edit_failure(e, ""))
}

/// An MCP configuration edit's failure as an API error; a definition's fields are named as the
/// body names them (after `prefix`).
fn edit_failure(e: crate::mcp::ServerEditError, prefix: &str) -> ApiFailure {
    use crate::mcp::ServerEditError;
    use braid_mcp::EditError;
    let message = e.to_string();
    match e {
        ServerEditError::NoConfigFile => ApiFailure::new(ErrorCode::Conflict, message, None),
        ServerEditError::ReadOnly => ApiFailure::new(ErrorCode::Forbidden, message, None),
        ServerEditError::Edit(EditError::UnknownServer { .. }) => {
            ApiFailure::new(ErrorCode::NotFound, message, Some("name".into()))
        }
        ServerEditError::Edit(EditError::DuplicateServer(_)) => {
            ApiFailure::new(ErrorCode::Conflict, message, Some("name".into()))
        }
        ServerEditError::Edit(EditError::Name(_)) => ApiFailure::invalid("name", message),
        ServerEditError::Edit(EditError::Field { field, .. }) => {
            ApiFailure::invalid(format!("{prefix}{field}"), message)
        }
        ServerEditError::Edit(EditError::File(_)) => {
            ApiFailure::new(ErrorCode::Conflict, message, None)
        }
        ServerEditError::Edit(EditError::Write { .. }) => {
            tracing::error!(error = %message, "MCP configuration not written");
            ApiFailure::new(ErrorCode::StorageFailed, message, None)
        }
        ServerEditError::Interrupted(_) => {
            tracing::error!(error = %message, "MCP configuration edit interrupted");
            ApiFailure::new(ErrorCode::Internal, message, None)
        }
    }
}

async fn list_mcp_prompts(State(app): State<Arc<App>>) -> Reply<McpPromptList> {
    Reply(app.mcp.prompts().await)
}

async fn get_mcp_prompt(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<PromptPath>,
    JsonBody(request): JsonBody<GetMcpPromptRequest>,
) -> ApiResult<Reply<McpPromptText>> {
    use crate::mcp::PromptError;
    let text = app
        .mcp
        .get_prompt(&path.server, &path.name, request.arguments)
        .await
        .map_err(|e| match &e {
            PromptError::UnknownServer(_) => {
                ApiFailure::new(ErrorCode::NotFound, e.to_string(), Some("server".into()))
            }
            PromptError::UnknownPrompt { .. } => {
                ApiFailure::new(ErrorCode::NotFound, e.to_string(), Some("name".into()))
            }
            PromptError::MissingArgument { argument, .. } => {
                ApiFailure::invalid(format!("arguments.{argument}"), e.to_string())
            }
            PromptError::Server(_) => ApiFailure::new(ErrorCode::ToolFailed, e.to_string(), None),
        })?;
    Ok(Reply(text))
}

async fn list_mcp_elicitations(State(app): State<Arc<App>>) -> Reply<McpElicitationList> {
    Reply(app.mcp.elicitations())
}

async fn reply_mcp_elicitation(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ElicitationPath>,
    JsonBody(reply): JsonBody<McpElicitationReply>,
) -> ApiResult<NoContent> {
    app.mcp
        .reply_elicitation(&path.id, reply)
        .map_err(|e| match e {
            braid_mcp::elicitation::ReplyError::Unknown(_) => {
                ApiFailure::new(ErrorCode::NotFound, e.to_string(), Some("id".into()))
            }
            braid_mcp::elicitation::ReplyError::Invalid { ref field, .. } => {
                ApiFailure::invalid(format!("content.{field}"), e.to_string())
            }
        })?;
    Ok(NoContent)
}

async fn mcp_oauth_callback(
    State(app): State<Arc<App>>,
    QueryParams(query): QueryParams<OAuthCallbackQuery>,
) -> HtmlPage {
    let pairs = [
        ("code", query.code),
        ("state", query.state),
        ("error", query.error),
        ("error_description", query.error_description),
        ("iss", query.iss),
    ];
    let mut encoded = form_urlencoded::Serializer::new(String::new());
    for (name, value) in &pairs {
        if let Some(value) = value {
            encoded.append_pair(name, value);
        }
    }
    let callback = format!(
        "http://localhost{}?{}",
        crate::mcp::OAUTH_CALLBACK_PATH,
        encoded.finish()
    );
    let (status, title, detail) = match app.mcp.complete_authorization(&callback) {
        Ok(server) => (
            StatusCode::OK,
            "Authorized".to_string(),
            format!(
                "Braid can now use the MCP server \u{201c}{server}\u{201d}. You can close this tab."
            ),
        ),
        Err(reason) => (
            StatusCode::BAD_REQUEST,
            "Not authorized".to_string(),
            reason,
        ),
    };
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Braid: {title}</title></head><body><h1>{title}</h1><p>{}</p></body></html>",
        html_escape(&detail)
    );
    HtmlPage(
        (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            page,
        )
            .into_response(),
    )
}

/// Text made safe to place in HTML.
fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

async fn list_mcp_resources(State(app): State<Arc<App>>) -> Reply<McpResourceList> {
    Reply(app.mcp.resources().await)
}

async fn list_workflows(
    State(app): State<Arc<App>>,
    QueryParams(query): QueryParams<WorkflowsQuery>,
) -> ApiResult<Reply<WorkflowList>> {
    let workflows = match query.context {
        Some(id) => app.registry.get(id).await?.workflows().await?,
        None => braid_context::workflow::Catalog::discover(
            None,
            app.registry.services().settings.user_workflows.as_deref(),
        )
        .infos(),
    };
    Ok(Reply(WorkflowList { workflows }))
}

async fn run_workflow(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<WorkflowPath>,
    JsonBody(request): JsonBody<RunWorkflowRequest>,
) -> ApiResult<Accepted<WorkflowRunResponse>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.run_workflow(&path.name, request).await?))
}

async fn control_workflow(
    app: &App,
    path: ExecutionPath,
    control: WorkflowControl,
) -> ApiResult<NoContent> {
    handle(app, path.id)
        .await?
        .control_workflow(&path.eid, control)
        .await?;
    Ok(NoContent)
}

async fn pause_workflow(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ExecutionPath>,
) -> ApiResult<NoContent> {
    control_workflow(&app, path, WorkflowControl::Pause).await
}

async fn resume_workflow(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ExecutionPath>,
) -> ApiResult<Accepted<ResumeResponse>> {
    let h = handle(&app, path.id).await?;
    Ok(Reply(h.resume_workflow(&path.eid).await?))
}

async fn cancel_workflow(
    State(app): State<Arc<App>>,
    PathParams(path): PathParams<ExecutionPath>,
) -> ApiResult<NoContent> {
    control_workflow(&app, path, WorkflowControl::Cancel).await
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_default_workspace_passes_over_a_root_that_is_the_data_directory() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        let project = project.canonicalize().unwrap().display().to_string();

        let roots = braid_tools::WorkspaceRoots::new(
            [data.clone(), project.clone().into()],
            [data.clone()],
        )
        .unwrap();
        assert_eq!(default_workspace(&roots), Some(project));

        let only_data = braid_tools::WorkspaceRoots::new([data.clone()], [data]).unwrap();
        assert_eq!(default_workspace(&only_data), None);
    }
}
