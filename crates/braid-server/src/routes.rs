//! The API's routes as one table: each entry names its method, path, documentation and
//! handler, and both the router ([`crate::app::router`]) and the OpenAPI document
//! ([`crate::openapi`]) are built from it, so a route cannot exist undocumented.
//!
//! Handlers only validate, find the context through the registry, call one handle method and
//! format the answer.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{FromRequestParts, Path, State};
use axum::handler::Handler;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::sse::Sse;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter, on};
use braid_context::{ContextHandle, MessageQuery};
use braid_protocol::api::{
    ApprovalRequest, BranchInfo, BranchList, ContextList, ContextSummary, CreateBranchRequest,
    CreateContextRequest, GetMcpPromptRequest, McpElicitationList, McpElicitationReply,
    McpPromptList, McpPromptText, McpResourceList, McpServerList, MergeHeld, MergeOutcome,
    MergeRequest, MessageList, MessageView, SendMessageResponse, ServerSettings, SetModeRequest,
    StateResponse, ToolList, UpdateBranchRequest, UpdateContextRequest, WorkspaceFileList,
};
use braid_protocol::workflow::{
    RunWorkflowRequest, WorkflowControl, WorkflowList, WorkflowRunResponse,
};
use braid_protocol::{BranchName, ContextId, ErrorCode, KindName, MessageId, SendMessageRequest};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use crate::app::App;
use crate::body::{JsonBody, QueryMap, TextBody};
use crate::error::{ApiFailure, json_response};
use crate::events::{self, StreamStart};

/// Makes the JSON Schema of a body.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// What a route answers on success.
#[derive(Clone, Copy)]
pub enum Answer {
    /// JSON of this schema.
    Json(SchemaFn),
    /// No body.
    Empty,
    /// An SSE stream of context events.
    EventStream,
    /// Plain text (Prometheus metrics).
    Text,
    /// An HTML page for a person's browser (the OAuth callback).
    Html,
}

/// A query parameter of a route.
#[derive(Clone, Copy, Debug)]
pub struct QueryParam {
    /// Its name.
    pub name: &'static str,
    /// What it means.
    pub description: &'static str,
    /// Its JSON Schema type (`string`, `integer`, `boolean`).
    pub kind: &'static str,
}

/// One route of the API.
pub struct Route {
    /// The HTTP method.
    pub method: Method,
    /// The path, with `{name}` parameters.
    pub path: &'static str,
    /// A stable name for the operation.
    pub operation_id: &'static str,
    /// What it does.
    pub summary: &'static str,
    /// Its query parameters.
    pub query: &'static [QueryParam],
    /// The request body's schema, when it takes one.
    pub request: Option<SchemaFn>,
    /// The success status.
    pub status: StatusCode,
    /// The success body.
    pub answer: Answer,
    /// Whether it sits behind the bearer token (every route but health and the UI).
    pub authenticated: bool,
    /// The handler.
    pub handler: MethodRouter<Arc<App>>,
}

impl Route {
    /// The path parameters' names, in order.
    pub fn path_params(&self) -> Vec<&'static str> {
        self.path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect()
    }
}

struct Builder {
    routes: Vec<Route>,
}

#[allow(clippy::too_many_arguments)]
impl Builder {
    fn add<H, T>(
        &mut self,
        method: Method,
        path: &'static str,
        operation_id: &'static str,
        summary: &'static str,
        request: Option<SchemaFn>,
        status: StatusCode,
        answer: Answer,
        handler: H,
    ) -> &mut Route
    where
        H: Handler<T, Arc<App>>,
        T: 'static,
    {
        let filter = match method {
            Method::GET => MethodFilter::GET,
            Method::POST => MethodFilter::POST,
            Method::PUT => MethodFilter::PUT,
            Method::PATCH => MethodFilter::PATCH,
            _ => MethodFilter::DELETE,
        };
        self.routes.push(Route {
            method,
            path,
            operation_id,
            summary,
            query: &[],
            request,
            status,
            answer,
            authenticated: !unauthenticated(path),
            handler: on(filter, handler),
        });
        let last = self.routes.len() - 1;
        &mut self.routes[last]
    }
}

/// Routes that answer without the API token: liveness probes, and the OAuth callback a
/// browser reaches from an authorization server (its single-use `state` is the secret).
pub fn unauthenticated(path: &str) -> bool {
    path == "/health" || path == crate::mcp::OAUTH_CALLBACK_PATH
}

const OAUTH_CALLBACK_QUERY: &[QueryParam] = &[
    QueryParam {
        name: "code",
        description: "The authorization code.",
        kind: "string",
    },
    QueryParam {
        name: "state",
        description: "The state Braid sent with the authorization request.",
        kind: "string",
    },
    QueryParam {
        name: "error",
        description: "Why the authorization server refused, instead of a code.",
        kind: "string",
    },
];

const MESSAGE_QUERY: &[QueryParam] = &[
    QueryParam {
        name: "branch",
        description: "The branch; the active one when absent.",
        kind: "string",
    },
    QueryParam {
        name: "view",
        description: "`full` (stored history, the default) or `optimized` (what the model would be sent).",
        kind: "string",
    },
    QueryParam {
        name: "kind",
        description: "Only messages of this kind (`text`, `tool_request`...).",
        kind: "string",
    },
    QueryParam {
        name: "after",
        description: "Only messages after this message id (the previous page's `next_after`).",
        kind: "string",
    },
    QueryParam {
        name: "limit",
        description: "At most this many (default 100, at most 1000).",
        kind: "integer",
    },
];

const EVENTS_QUERY: &[QueryParam] = &[QueryParam {
    name: "after",
    description: "Replay logged events after this sequence first (0 replays everything); `Last-Event-ID` does the same. Without either the stream starts live.",
    kind: "integer",
}];

const STATE_QUERY: &[QueryParam] = &[QueryParam {
    name: "history",
    description: "Include the transition history.",
    kind: "boolean",
}];

const FILES_QUERY: &[QueryParam] = &[
    QueryParam {
        name: "query",
        description: "Only files whose path contains this text (ignoring case).",
        kind: "string",
    },
    QueryParam {
        name: "limit",
        description: "At most this many files (1 to 1000, default 200).",
        kind: "integer",
    },
];

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

/// Every route of the API.
pub fn table() -> Vec<Route> {
    use Answer::{Empty, EventStream, Html, Json, Text};
    let mut b = Builder { routes: Vec::new() };
    let ok = StatusCode::OK;
    let none = StatusCode::NO_CONTENT;
    b.add(
        Method::GET,
        "/health",
        "health",
        "Liveness.",
        None,
        ok,
        Json(schema::<Health>),
        health,
    );
    b.add(
        Method::GET,
        "/metrics",
        "metrics",
        "Prometheus text metrics.",
        None,
        ok,
        Text,
        metrics,
    );
    b.add(
        Method::GET,
        "/openapi.json",
        "openapi",
        "This document.",
        None,
        ok,
        Json(schema::<serde_json::Value>),
        openapi,
    );
    b.add(
        Method::GET,
        "/v1/contexts",
        "list_contexts",
        "Every context, most recently updated first.",
        None,
        ok,
        Json(schema::<ContextList>),
        list_contexts,
    );
    b.add(
        Method::POST,
        "/v1/contexts",
        "create_context",
        "Creates a context; answers it as `GET /v1/contexts/{id}` would.",
        Some(schema::<CreateContextRequest>),
        StatusCode::CREATED,
        Json(schema::<ContextSummary>),
        create_context,
    );
    b.add(
        Method::GET,
        "/v1/contexts/{id}",
        "get_context",
        "A context.",
        None,
        ok,
        Json(schema::<ContextSummary>),
        get_context,
    );
    b.add(
        Method::PATCH,
        "/v1/contexts/{id}",
        "update_context",
        "Changes the title and/or config (a JSON merge patch of the config).",
        Some(schema::<UpdateContextRequest>),
        ok,
        Json(schema::<ContextSummary>),
        update_context,
    );
    b.add(
        Method::DELETE,
        "/v1/contexts/{id}",
        "delete_context",
        "Deletes a context and everything it holds.",
        None,
        none,
        Empty,
        delete_context,
    );
    b.add(
        Method::GET,
        "/v1/contexts/{id}/messages",
        "list_messages",
        "Messages of a branch; `view=optimized` is what the model would be sent.",
        None,
        ok,
        Json(schema::<MessageList>),
        list_messages,
    )
    .query = MESSAGE_QUERY;
    b.add(Method::POST, "/v1/contexts/{id}/messages", "send_message", "Adds a message and answers at once with its id; progress arrives as events. `queued` when it waits behind a running turn.", Some(schema::<SendMessageRequest>), StatusCode::ACCEPTED, Json(schema::<SendMessageResponse>), send_message);
    b.add(
        Method::POST,
        "/v1/contexts/{id}/messages/{message_id}/retry",
        "retry_message",
        "Runs the pipeline again for input that failed (with the rest of its send); answers at once like a send. 404 for an unknown message, 409 for one that is not failed.",
        None,
        StatusCode::ACCEPTED,
        Json(schema::<SendMessageResponse>),
        retry_message,
    );
    b.add(
        Method::DELETE,
        "/v1/contexts/{id}/messages/{message_id}",
        "delete_message",
        "Deletes input that failed, or that still waits in the queue (with the rest of its send). 404 for an unknown message, 409 for any other message.",
        None,
        none,
        Empty,
        delete_message,
    );
    b.add(Method::GET, "/v1/contexts/{id}/events", "context_events", "The context's events as SSE (`context_update`, `content_delta`, `content_final`, `error`, `heartbeat`); every logged event has an `id:`; reconnect with `Last-Event-ID`.", None, ok, EventStream, context_events).query = EVENTS_QUERY;
    b.add(
        Method::GET,
        "/v1/contexts/{id}/state",
        "get_state",
        "The current state, and the transition history with `history=true`.",
        None,
        ok,
        Json(schema::<StateResponse>),
        get_state,
    )
    .query = STATE_QUERY;
    b.add(
        Method::GET,
        "/v1/contexts/{id}/files",
        "list_workspace_files",
        "Files of the context's workspace (gitignored ones left out), for the file picker.",
        None,
        ok,
        Json(schema::<WorkspaceFileList>),
        list_workspace_files,
    )
    .query = FILES_QUERY;
    b.add(
        Method::POST,
        "/v1/contexts/{id}/approvals",
        "approve",
        "Approves or denies pending tool calls.",
        Some(schema::<ApprovalRequest>),
        none,
        Empty,
        approve,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/interrupt",
        "interrupt",
        "Stops the loop after the running tool.",
        None,
        none,
        Empty,
        interrupt,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/resume",
        "resume",
        "Continues a paused or failed loop.",
        None,
        none,
        Empty,
        resume,
    );
    b.add(
        Method::PUT,
        "/v1/contexts/{id}/mode",
        "set_mode",
        "Switches between plan and act (adds a `mode_change` notice).",
        Some(schema::<SetModeRequest>),
        none,
        Empty,
        set_mode,
    );
    b.add(
        Method::GET,
        "/v1/contexts/{id}/branches",
        "list_branches",
        "The branches and the active one.",
        None,
        ok,
        Json(schema::<BranchList>),
        list_branches,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/branches",
        "create_branch",
        "Creates a branch, optionally from any message.",
        Some(schema::<CreateBranchRequest>),
        StatusCode::CREATED,
        Json(schema::<BranchInfo>),
        create_branch,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/branches/{name}/activate",
        "activate_branch",
        "Makes a branch the active one.",
        None,
        none,
        Empty,
        activate_branch,
    );
    b.add(
        Method::PATCH,
        "/v1/contexts/{id}/branches/{name}",
        "update_branch",
        "Changes a branch's system-prompt override and pipeline (absent fields stay, `null` clears).",
        Some(schema::<UpdateBranchRequest>),
        ok,
        Json(schema::<BranchInfo>),
        update_branch,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/branches/{name}/merge",
        "merge_branch",
        "Merges branch `{name}` into `target` (the active branch by default) with a strategy (`append`, `cherry_pick`, `rebase`). `dry_run` previews without changing anything. A merge with conflicts that have no resolution, or with dependency warnings not accepted, answers 409 with the `error` and the same outcome (`warnings`, `conflicts` with their `suggestions`) and changes nothing.",
        Some(schema::<MergeRequest>),
        ok,
        Json(schema::<MergeOutcome>),
        merge_branch,
    );
    b.add(
        Method::DELETE,
        "/v1/contexts/{id}/branches/{name}",
        "delete_branch",
        "Deletes a branch that is not active.",
        None,
        none,
        Empty,
        delete_branch,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/plans/{message_id}/execute",
        "execute_plan",
        "Executes a plan: switches to act mode and sends it for execution.",
        None,
        StatusCode::ACCEPTED,
        Json(schema::<SendMessageResponse>),
        execute_plan,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/plans/{message_id}/refine",
        "refine_plan",
        "Asks the agent to refine a plan with feedback.",
        Some(schema::<RefinePlanRequest>),
        StatusCode::ACCEPTED,
        Json(schema::<SendMessageResponse>),
        refine_plan,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/questions/{message_id}/answer",
        "answer_question",
        "Answers a `question` message (the same as sending a `question_answer` payload).",
        Some(schema::<AnswerQuestionRequest>),
        StatusCode::ACCEPTED,
        Json(schema::<SendMessageResponse>),
        answer_question,
    );
    b.add(
        Method::GET,
        "/v1/tools",
        "list_tools",
        "Every registered tool.",
        None,
        ok,
        Json(schema::<ToolList>),
        list_tools,
    );
    b.add(
        Method::GET,
        "/v1/settings",
        "get_settings",
        "The server's settings a client shows: the allowed workspace roots.",
        None,
        ok,
        Json(schema::<ServerSettings>),
        get_settings,
    );
    b.add(
        Method::GET,
        "/v1/mcp/servers",
        "list_mcp_servers",
        "MCP servers and their status.",
        None,
        ok,
        Json(schema::<McpServerList>),
        list_mcp_servers,
    );
    b.add(
        Method::POST,
        "/v1/mcp/servers/reload",
        "reload_mcp_servers",
        "Re-reads the MCP configuration and reconnects.",
        None,
        ok,
        Json(schema::<McpServerList>),
        reload_mcp_servers,
    );
    b.add(
        Method::GET,
        "/v1/mcp/prompts",
        "list_mcp_prompts",
        "Prompts of every ready MCP server (the composer's `/` menu).",
        None,
        ok,
        Json(schema::<McpPromptList>),
        list_mcp_prompts,
    );
    b.add(
        Method::POST,
        "/v1/mcp/prompts/{server}/{name}",
        "get_mcp_prompt",
        "Gets a prompt with its arguments, as the text to send.",
        Some(schema::<GetMcpPromptRequest>),
        ok,
        Json(schema::<McpPromptText>),
        get_mcp_prompt,
    );
    b.add(
        Method::GET,
        "/v1/mcp/elicitations",
        "list_mcp_elicitations",
        "Questions MCP servers ask the person during tool calls, waiting for an answer.",
        None,
        ok,
        Json(schema::<McpElicitationList>),
        list_mcp_elicitations,
    );
    b.add(
        Method::POST,
        "/v1/mcp/elicitations/{id}",
        "reply_mcp_elicitation",
        "Answers (accepts with the form's values), declines or cancels a server's question.",
        Some(schema::<McpElicitationReply>),
        StatusCode::NO_CONTENT,
        Empty,
        reply_mcp_elicitation,
    );
    b.add(
        Method::GET,
        crate::mcp::OAUTH_CALLBACK_PATH,
        "mcp_oauth_callback",
        "Where an MCP server's authorization server sends the person's browser back: finishes the authorization and shows a page saying so.",
        None,
        ok,
        Html,
        mcp_oauth_callback,
    )
    .query = OAUTH_CALLBACK_QUERY;
    b.add(
        Method::GET,
        "/v1/mcp/resources",
        "list_mcp_resources",
        "Resources of every ready MCP server.",
        None,
        ok,
        Json(schema::<McpResourceList>),
        list_mcp_resources,
    );
    b.add(
        Method::GET,
        "/v1/workflows",
        "list_workflows",
        "Workflow definitions a context can use (its workspace's `.braid/workflows/` and the data directory's `workflows/`; the workspace wins a name clash), each with its parameter schema, source file and errors.",
        None,
        ok,
        Json(schema::<WorkflowList>),
        list_workflows,
    )
    .query = WORKFLOWS_QUERY;
    b.add(
        Method::POST,
        "/v1/contexts/{id}/workflows/{name}/run",
        "run_workflow",
        "Starts a workflow run with `{ parameters }` (checked against its schema: 422 names the parameter); answers 202 once its `workflow_execution` message is stored.",
        Some(schema::<RunWorkflowRequest>),
        StatusCode::ACCEPTED,
        Json(schema::<WorkflowRunResponse>),
        run_workflow,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/workflows/executions/{eid}/pause",
        "pause_workflow",
        "Pauses a run when its running step ends.",
        None,
        none,
        Empty,
        pause_workflow,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/workflows/executions/{eid}/resume",
        "resume_workflow",
        "Resumes a paused run from its current step (also: goes past an approval step).",
        None,
        none,
        Empty,
        resume_workflow,
    );
    b.add(
        Method::POST,
        "/v1/contexts/{id}/workflows/executions/{eid}/cancel",
        "cancel_workflow",
        "Cancels a run (also: declines an approval step); a running step ends first.",
        None,
        none,
        Empty,
        cancel_workflow,
    );
    b.routes
}

/// Path parameters, with failures as API errors.
pub struct Params(HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiFailure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map(|p| Params(p.0))
            .map_err(|r| ApiFailure::unreadable(format!("bad path: {}", r.body_text())))
    }
}

impl Params {
    fn text(&self, name: &str) -> Result<&str, ApiFailure> {
        self.0
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| ApiFailure::invalid(name, format!("missing path parameter `{name}`")))
    }

    fn context(&self) -> Result<ContextId, ApiFailure> {
        let raw = self.text("id")?;
        raw.parse()
            .map_err(|_| ApiFailure::invalid("id", format!("`{raw}` is not a context id (a UUID)")))
    }

    fn message(&self) -> Result<MessageId, ApiFailure> {
        let raw = self.text("message_id")?;
        raw.parse().map_err(|_| {
            ApiFailure::invalid(
                "message_id",
                format!("`{raw}` is not a message id (a UUID)"),
            )
        })
    }

    fn branch(&self) -> Result<BranchName, ApiFailure> {
        self.text("name").map(BranchName::from)
    }
}

type ApiResult<T> = std::result::Result<T, ApiFailure>;

fn ok<T: Serialize>(status: StatusCode, body: &T) -> Response {
    json_response(status, body)
}

async fn handle(app: &App, params: &Params) -> ApiResult<ContextHandle> {
    Ok(app.registry.get(params.context()?).await?)
}

async fn get_settings(State(app): State<Arc<App>>) -> Response {
    let roots = &app.registry.services().settings.workspace_roots;
    ok(
        StatusCode::OK,
        &ServerSettings {
            workspace_roots: roots
                .roots()
                .iter()
                .map(|r| r.display().to_string())
                .collect(),
        },
    )
}

async fn health() -> Response {
    ok(
        StatusCode::OK,
        &Health {
            status: "ok".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
    )
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    let live = app.registry.live_count().await;
    let mut response = app.metrics.render(live).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(crate::metrics::CONTENT_TYPE),
    );
    response
}

async fn openapi(State(app): State<Arc<App>>) -> Response {
    ok(StatusCode::OK, app.openapi.as_ref())
}

async fn list_contexts(State(app): State<Arc<App>>) -> ApiResult<Response> {
    let contexts = app.registry.list().await?;
    Ok(ok(StatusCode::OK, &ContextList { contexts }))
}

async fn create_context(
    State(app): State<Arc<App>>,
    JsonBody(request): JsonBody<CreateContextRequest>,
) -> ApiResult<Response> {
    let handle = app.registry.create(request).await?;
    Ok(ok(StatusCode::CREATED, &handle.summary().await?))
}

async fn get_context(State(app): State<Arc<App>>, params: Params) -> ApiResult<Response> {
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::OK, &h.summary().await?))
}

async fn update_context(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<UpdateContextRequest>,
) -> ApiResult<Response> {
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::OK, &h.update(request).await?))
}

async fn delete_context(State(app): State<Arc<App>>, params: Params) -> ApiResult<StatusCode> {
    app.registry.delete(params.context()?).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_messages(
    State(app): State<Arc<App>>,
    params: Params,
    query: QueryMap,
) -> ApiResult<Response> {
    let view = match query.get("view") {
        None | Some("full") => MessageView::Full,
        Some("optimized") => MessageView::Optimized,
        Some(other) => {
            return Err(ApiFailure::invalid(
                "query.view",
                format!("`{other}` is not a view: use `full` or `optimized`"),
            ));
        }
    };
    let limit: Option<u32> = query.parse("limit")?;
    if limit.is_some_and(|l| l == 0 || l > 1000) {
        return Err(ApiFailure::invalid(
            "query.limit",
            "limit must be between 1 and 1000",
        ));
    }
    let message_query = MessageQuery {
        branch: query.get("branch").map(BranchName::from),
        view,
        kind: query.parse::<KindName>("kind")?,
        after: query.parse::<MessageId>("after")?,
        limit,
    };
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::OK, &h.messages(message_query).await?))
}

async fn send_message(
    State(app): State<Arc<App>>,
    params: Params,
    TextBody(body): TextBody,
) -> ApiResult<Response> {
    let request = SendMessageRequest::from_json(&body).map_err(|e| ApiFailure::from(&e))?;
    let h = handle(&app, &params).await?;
    let answer = h.send_message(request).await?;
    crate::title::after_send(&app, &h);
    Ok(ok(StatusCode::ACCEPTED, &answer))
}

async fn retry_message(State(app): State<Arc<App>>, params: Params) -> ApiResult<Response> {
    let message = params.message()?;
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::ACCEPTED, &h.retry_message(message).await?))
}

async fn delete_message(State(app): State<Arc<App>>, params: Params) -> ApiResult<StatusCode> {
    let message = params.message()?;
    handle(&app, &params).await?.delete_message(message).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn context_events(
    State(app): State<Arc<App>>,
    params: Params,
    query: QueryMap,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let from_header = match headers.get("last-event-id") {
        None => None,
        Some(v) => Some(
            v.to_str()
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    ApiFailure::invalid(
                        "Last-Event-ID",
                        "Last-Event-ID must be an event sequence number",
                    )
                })?,
        ),
    };
    let start = match from_header.or(query.parse::<u64>("after")?) {
        Some(n) => StreamStart::After(n),
        None => StreamStart::Live,
    };
    let mut response = match events_elsewhere(&app, &params).await? {
        Some(context) => Sse::new(events::follow_log(app.clone(), context, start)).into_response(),
        None => {
            let h = handle(&app, &params).await?;
            Sse::new(events::stream(app.clone(), h, start)).into_response()
        }
    };
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

/// The context, when another live replica runs it: its events are then served from the
/// shared log instead of loading it here.
async fn events_elsewhere(app: &App, params: &Params) -> ApiResult<Option<ContextId>> {
    let id = params.context()?;
    if app.registry.is_live(id).await {
        return Ok(None);
    }
    let store = &app.registry.services().store;
    let elsewhere = store
        .lease(id)
        .await
        .map_err(braid_context::EngineError::from)?
        .is_some_and(|l| l.live && !l.mine);
    Ok(elsewhere.then_some(id))
}

async fn get_state(
    State(app): State<Arc<App>>,
    params: Params,
    query: QueryMap,
) -> ApiResult<Response> {
    let history = query.parse::<bool>("history")?.unwrap_or(false);
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::OK, &h.state(history).await?))
}

async fn list_workspace_files(
    State(app): State<Arc<App>>,
    params: Params,
    query: QueryMap,
) -> ApiResult<Response> {
    let limit = query.parse::<u32>("limit")?.unwrap_or(200);
    let text = query.get("query").unwrap_or_default().to_owned();
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::OK, &h.workspace_files(text, limit).await?))
}

async fn approve(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<ApprovalRequest>,
) -> ApiResult<StatusCode> {
    handle(&app, &params).await?.approve(request).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn interrupt(State(app): State<Arc<App>>, params: Params) -> ApiResult<StatusCode> {
    handle(&app, &params).await?.interrupt().await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn resume(State(app): State<Arc<App>>, params: Params) -> ApiResult<StatusCode> {
    handle(&app, &params).await?.resume().await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn set_mode(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<SetModeRequest>,
) -> ApiResult<StatusCode> {
    handle(&app, &params).await?.set_mode(request.mode).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_branches(State(app): State<Arc<App>>, params: Params) -> ApiResult<Response> {
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::OK, &h.branches().await?))
}

async fn create_branch(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<CreateBranchRequest>,
) -> ApiResult<Response> {
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::CREATED, &h.create_branch(request).await?))
}

async fn activate_branch(State(app): State<Arc<App>>, params: Params) -> ApiResult<StatusCode> {
    let name = params.branch()?;
    handle(&app, &params).await?.switch_branch(name).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn update_branch(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<UpdateBranchRequest>,
) -> ApiResult<Response> {
    let name = params.branch()?;
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::OK, &h.update_branch(name, request).await?))
}

async fn merge_branch(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<MergeRequest>,
) -> ApiResult<Response> {
    let source = params.branch()?;
    let h = handle(&app, &params).await?;
    match h.merge(source, request).await {
        Ok(outcome) => Ok(ok(StatusCode::OK, &outcome)),
        Err(braid_context::EngineError::MergeHeld(outcome)) => {
            let failure = ApiFailure::from(braid_context::EngineError::MergeHeld(outcome.clone()));
            Ok(ok(
                failure.status,
                &MergeHeld {
                    error: failure.body.error,
                    outcome: *outcome,
                },
            ))
        }
        Err(e) => Err(e.into()),
    }
}

async fn delete_branch(State(app): State<Arc<App>>, params: Params) -> ApiResult<StatusCode> {
    let name = params.branch()?;
    handle(&app, &params).await?.delete_branch(name).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn execute_plan(State(app): State<Arc<App>>, params: Params) -> ApiResult<Response> {
    let plan = params.message()?;
    let h = handle(&app, &params).await?;
    Ok(ok(StatusCode::ACCEPTED, &h.execute_plan(plan).await?))
}

async fn refine_plan(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<RefinePlanRequest>,
) -> ApiResult<Response> {
    let plan = params.message()?;
    if request.feedback.trim().is_empty() {
        return Err(ApiFailure::invalid(
            "feedback",
            "feedback must not be empty",
        ));
    }
    let h = handle(&app, &params).await?;
    Ok(ok(
        StatusCode::ACCEPTED,
        &h.refine_plan(plan, request.feedback).await?,
    ))
}

async fn answer_question(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<AnswerQuestionRequest>,
) -> ApiResult<Response> {
    let question = params.message()?;
    let h = handle(&app, &params).await?;
    Ok(ok(
        StatusCode::ACCEPTED,
        &h.answer_question(question, request.value).await?,
    ))
}

async fn list_tools(State(app): State<Arc<App>>) -> Response {
    let tools = app.registry.services().tools.all_infos();
    ok(StatusCode::OK, &ToolList { tools })
}

async fn list_mcp_servers(State(app): State<Arc<App>>) -> Response {
    ok(StatusCode::OK, &app.mcp.servers().await)
}

async fn reload_mcp_servers(State(app): State<Arc<App>>) -> Response {
    ok(StatusCode::OK, &app.mcp.reload().await)
}

async fn list_mcp_prompts(State(app): State<Arc<App>>) -> Response {
    ok(StatusCode::OK, &app.mcp.prompts().await)
}

async fn get_mcp_prompt(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<GetMcpPromptRequest>,
) -> ApiResult<Response> {
    use crate::mcp::PromptError;
    let server = params.text("server")?;
    let name = params.text("name")?;
    let text = app
        .mcp
        .get_prompt(server, name, request.arguments)
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
    Ok(ok(StatusCode::OK, &text))
}

async fn list_mcp_elicitations(State(app): State<Arc<App>>) -> Response {
    ok(StatusCode::OK, &app.mcp.elicitations())
}

async fn reply_mcp_elicitation(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(reply): JsonBody<McpElicitationReply>,
) -> ApiResult<Response> {
    let id = params.text("id")?;
    app.mcp.reply_elicitation(id, reply).map_err(|e| match e {
        braid_mcp::elicitation::ReplyError::Unknown(_) => {
            ApiFailure::new(ErrorCode::NotFound, e.to_string(), Some("id".into()))
        }
        braid_mcp::elicitation::ReplyError::Invalid { ref field, .. } => {
            ApiFailure::invalid(format!("content.{field}"), e.to_string())
        }
    })?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn mcp_oauth_callback(State(app): State<Arc<App>>, uri: axum::http::Uri) -> Response {
    let callback = format!(
        "http://localhost{}?{}",
        crate::mcp::OAUTH_CALLBACK_PATH,
        uri.query().unwrap_or("")
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
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
        page,
    )
        .into_response()
}

/// Text made safe to place in HTML.
fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

async fn list_mcp_resources(State(app): State<Arc<App>>) -> Response {
    ok(StatusCode::OK, &app.mcp.resources().await)
}

const WORKFLOWS_QUERY: &[QueryParam] = &[QueryParam {
    name: "context",
    description: "The context whose workspace's workflows to include; without it, only the data directory's.",
    kind: "string",
}];

async fn list_workflows(State(app): State<Arc<App>>, query: QueryMap) -> ApiResult<Response> {
    let workflows = match query.get("context") {
        Some(raw) => {
            let id: ContextId = raw.parse().map_err(|_| {
                ApiFailure::invalid("context", format!("`{raw}` is not a context id (a UUID)"))
            })?;
            app.registry.get(id).await?.workflows().await?
        }
        None => braid_context::workflow::Catalog::discover(
            None,
            app.registry.services().settings.user_workflows.as_deref(),
        )
        .infos(),
    };
    Ok(ok(StatusCode::OK, &WorkflowList { workflows }))
}

async fn run_workflow(
    State(app): State<Arc<App>>,
    params: Params,
    JsonBody(request): JsonBody<RunWorkflowRequest>,
) -> ApiResult<Response> {
    let name = params.text("name")?.to_owned();
    let h = handle(&app, &params).await?;
    Ok(ok(
        StatusCode::ACCEPTED,
        &h.run_workflow(&name, request).await?,
    ))
}

async fn control_workflow(
    app: &App,
    params: &Params,
    control: WorkflowControl,
) -> ApiResult<StatusCode> {
    let execution = params.text("eid")?.to_owned();
    handle(app, params)
        .await?
        .control_workflow(&execution, control)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn pause_workflow(State(app): State<Arc<App>>, params: Params) -> ApiResult<StatusCode> {
    control_workflow(&app, &params, WorkflowControl::Pause).await
}

async fn resume_workflow(State(app): State<Arc<App>>, params: Params) -> ApiResult<StatusCode> {
    control_workflow(&app, &params, WorkflowControl::Resume).await
}

async fn cancel_workflow(State(app): State<Arc<App>>, params: Params) -> ApiResult<StatusCode> {
    control_workflow(&app, &params, WorkflowControl::Cancel).await
}
