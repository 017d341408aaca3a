//! Ultra over MCP: every AI-exposed command a [`Profile`] admits is an MCP tool, with the
//! schema, description and annotations generated from its declaration
//! (`ultra_core::tools`), and a call runs through the same executor as every other
//! surface (policy, security settings, validators, audit). Served over stdio by `ultra
//! mcp`, and as streamable HTTP at `/mcp` by `ultra serve` ([`http_router`]; the WebSocket
//! server in front of it checks `Host`, `Origin` and the bearer token).
//!
//! A failed call is a tool result with `isError` and the structured error as JSON (stable
//! code, message, suggestion, details), so the model reads what to do instead; only an
//! unknown tool is a protocol error. Generic over [`Host`], like the other transports.

mod direct;
mod http_compat;
mod stdio;

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::InputRequiredResult;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, ListToolsResult, PaginatedRequestParams,
    RequestMetaObject, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use ultra_core::tools::{Profile, chosen, mcp_tool, tool_name};
use ultra_core::{Executor, Host};
use ultra_protocol::{CommandResult, Source, SourceKind};

/// Why the MCP server stopped.
#[derive(Debug, thiserror::Error)]
pub enum McpServeError {
    /// The transport could not start or failed.
    #[error("mcp: {0}")]
    Transport(String),
}

/// What the server tells a client about itself.
const INSTRUCTIONS: &str = "Ultra drives this code workspace. Tools read code by line or by symbol (get_lines, get_function, find_definition, ...), search (grep, find_references), edit with content-hash preconditions (apply_edits, replace, write), and run a confined shell (shell). A failed call returns {error: {code, message, suggestion, details}}: follow the suggestion (for STALE_VERSION, re-read the file: details carry the current hash and a diff).";

/// The MCP server: the tools of one profile over one executor.
pub struct McpServer<S: Host> {
    exec: Arc<Executor<S>>,
    tools: Arc<Vec<Tool>>,
    /// Tool name → command id.
    ids: Arc<HashMap<String, &'static str>>,
    /// Over stdio, the records of read-only calls whose results are still on their way
    /// out: written once stdout has taken the next message (see [`stdio::Recording`]).
    unrecorded: Option<stdio::Pending>,
}

impl<S: Host> Clone for McpServer<S> {
    fn clone(&self) -> Self {
        McpServer {
            exec: self.exec.clone(),
            tools: self.tools.clone(),
            ids: self.ids.clone(),
            unrecorded: self.unrecorded.clone(),
        }
    }
}

impl<S: Host> McpServer<S> {
    /// The tools `profile` admits from `exec`'s registry.
    pub fn new(exec: Arc<Executor<S>>, profile: &Profile) -> McpServer<S> {
        let registry = exec.registry();
        let mut tools = Vec::new();
        let mut ids = HashMap::new();
        for c in chosen(registry, profile) {
            let Some(id) = registry.resolve(&c.id) else {
                continue;
            };
            // Generated from our own declarations; one that does not fit MCP's shape is
            // left out rather than offered broken.
            if let Ok(tool) = serde_json::from_value::<Tool>(mcp_tool(c)) {
                ids.insert(tool_name(c), id);
                tools.push(tool);
            }
        }
        McpServer {
            exec,
            tools: Arc::new(tools),
            ids: Arc::new(ids),
            unrecorded: None,
        }
    }

    /// The tools offered.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Serve one client over stdin and stdout until it disconnects.
    pub async fn serve_stdio(mut self) -> Result<(), McpServeError> {
        let pending = stdio::Pending::default();
        self.unrecorded = Some(pending.clone());
        let out: direct::Out = Arc::new(tokio::sync::Mutex::new(Box::new(stdio::Recording::new(
            stdio::writer(),
            pending,
        ))));
        // rmcp speaks through a pair of pipes in memory; the client's lines reach it
        // through `direct::route`, and its messages reach stdout through `direct::pump`.
        let (to_rmcp, rmcp_in) = tokio::io::duplex(1 << 16);
        let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 16);
        let pump = tokio::spawn(direct::pump(from_rmcp, out.clone()));
        let session = Arc::new(std::sync::OnceLock::new());
        let route = tokio::spawn(direct::route(
            stdio::reader(),
            to_rmcp,
            self.clone(),
            session.clone(),
            out.clone(),
        ));
        let running = self
            .serve((rmcp_in, rmcp_out))
            .await
            .map_err(|e| McpServeError::Transport(e.to_string()))?;
        let _ = session.set(direct::Session::of(running.peer()));
        let stopped = running.waiting().await;
        // rmcp stops when its input ends, that is when the client closed stdin: the
        // calls still running on the direct path finish, then rmcp's last messages go out.
        let _ = route.await;
        let _ = pump.await;
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut *out.lock().await).await;
        stopped.map_err(|e| McpServeError::Transport(e.to_string()))?;
        Ok(())
    }

    /// Send progress notifications for `token` until aborted: `index.progress` events with
    /// their counts, and a heartbeat each second.
    fn report_progress(
        &self,
        token: rmcp::model::ProgressToken,
        peer: rmcp::Peer<RoleServer>,
    ) -> tokio::task::JoinHandle<()> {
        use rmcp::model::ProgressNotificationParam;
        let mut events = self.exec.events().subscribe();
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
            tick.tick().await;
            // Progress must only grow: a counter, with the detail in the message.
            let mut n = 0.0;
            loop {
                let note = tokio::select! {
                    _ = tick.tick() => {
                        ProgressNotificationParam::new(token.clone(), n + 1.0)
                            .with_message(format!("running for {} s", started.elapsed().as_secs()))
                    }
                    e = events.recv() => match e {
                        Ok(e) if e.event == ultra_protocol::event::names::INDEX_PROGRESS => {
                            let done = e.data["done"].as_u64().unwrap_or(0);
                            let total = e.data["total"].as_u64().unwrap_or(0);
                            ProgressNotificationParam::new(token.clone(), n + 1.0)
                                .with_message(format!("indexing: {done} of {total} files"))
                        }
                        Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(_) => return,
                    },
                };
                n += 1.0;
                if peer.notify_progress(note).await.is_err() {
                    return;
                }
            }
        })
    }

    /// Ask the client's user to approve a waiting call (MCP elicitation), then
    /// [`McpServer::settle`] it. `None` when the client could not ask.
    async fn elicit(
        &self,
        id: &str,
        args: Value,
        source: Source,
        confirmation: &Confirmation,
        peer: &rmcp::Peer<RoleServer>,
    ) -> Option<CommandResult> {
        use rmcp::model::ElicitRequestParams;
        let ask = approval_request(id, &args, confirmation);
        let params: ElicitRequestParams = serde_json::from_value(ask["params"].clone()).ok()?;
        let answer = peer.create_elicitation(params).await.ok()?;
        let answer = serde_json::to_value(answer).ok()?;
        self.settle(id, args, source, confirmation, approved(&answer))
            .await
    }

    /// Apply the user's answer to a waiting call: approved, the call runs (its deferred
    /// record is approved and used up); declined, the answer is CONFIRMATION_DENIED.
    async fn settle(
        &self,
        id: &str,
        args: Value,
        source: Source,
        confirmation: &Confirmation,
        approved: bool,
    ) -> Option<CommandResult> {
        let store = self.exec.deferred()?;
        if approved {
            store.resolve(&confirmation.id, true).ok()?;
            Some(self.exec.execute(id, args, source).await)
        } else {
            let _ = store.resolve(&confirmation.id, false);
            Some(CommandResult::err(
                ultra_protocol::CommandError::new(
                    ultra_protocol::ErrorCode::ConfirmationDenied,
                    format!("the user did not approve {id}"),
                )
                .with_suggestion("do not retry the same call; ask the user what they want instead"),
            ))
        }
    }
}

/// The elicitation request that puts a waiting call to the client's user.
fn approval_request(id: &str, args: &Value, confirmation: &Confirmation) -> Value {
    let mut message = format!("An agent wants to run {id} {args}");
    if let Some(p) = &confirmation.preview {
        message.push_str(&format!("\n\n{p}"));
    }
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {"approve": {"type": "boolean", "title": "Approve", "description": "Run it"}},
                "required": ["approve"],
            },
        },
    })
}

/// Whether an elicitation answer (`{action, content}`) approves.
fn approved(answer: &Value) -> bool {
    answer.get("action").and_then(Value::as_str) == Some("accept")
        && answer.pointer("/content/approve").and_then(Value::as_bool) == Some(true)
}

/// Streamable HTTP at `/mcp`: one [`McpServer`] per MCP session. `allowed_hosts` is rmcp's
/// own DNS-rebinding guard (the server in front checks `Host` too); authentication is the
/// job of the server this router is mounted in.
pub fn http_router<S: Host>(server: McpServer<S>, allowed_hosts: Vec<String>) -> axum::Router {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts)
        .with_max_request_body_bytes(16 << 20);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let inner = axum::Router::new().nest_service("/mcp", service);
    inner.clone().layer(axum::middleware::from_fn_with_state(
        inner,
        http_compat::compat,
    ))
}

/// A waiting call's id and preview.
struct Confirmation {
    id: String,
    preview: Option<String>,
}

/// Whether the request speaks MCP 2026-07-28 or later (stateless: no `initialize`, no
/// requests from server to client).
fn stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .is_some_and(|v| !v.has_initialize())
}

/// A waiting call's question as a 2026-07-28 input-required result: the elicitation under
/// `approve`, and the call's confirmation id as the state the client echoes back.
fn input_required(id: &str, args: &Value, confirmation: &Confirmation) -> InputRequiredResult {
    let ask = serde_json::from_value(approval_request(id, args, confirmation)).ok();
    let requests = ask.map(|a| std::collections::BTreeMap::from([("approve".to_string(), a)]));
    InputRequiredResult::new(requests, Some(confirmation.id.clone()))
}

/// The deferred confirmation a failed result waits on, if that is why it failed.
fn needs_person(result: &CommandResult) -> Option<Confirmation> {
    let e = result.error.as_ref()?;
    if e.code != ultra_protocol::ErrorCode::ConfirmationRequired {
        return None;
    }
    let d = e.details.as_ref()?;
    Some(Confirmation {
        id: d.get("confirmationId")?.as_str()?.to_string(),
        preview: d.get("preview").and_then(Value::as_str).map(String::from),
    })
}

/// Whether the client can ask its user (elicitation): what this request's `_meta` says
/// (MCP 2026-07-28's stateless requests carry the client's capabilities each time), else
/// what it said at `initialize`.
fn client_elicits(meta: Option<&RequestMetaObject>, context: &RequestContext<RoleServer>) -> bool {
    let said = meta.and_then(RequestMetaObject::client_capabilities);
    match said.or_else(|| context.meta.client_capabilities()) {
        Some(caps) => caps.elicitation.is_some(),
        None => context
            .peer
            .peer_info()
            .is_some_and(|p| p.capabilities.elicitation.is_some()),
    }
}

/// The client's name, which attributes its calls (audit, undo by agent): this request's
/// `_meta` first (a 2026-07-28 client sends no `initialize`), else `initialize`'s.
fn client_name(
    meta: Option<&RequestMetaObject>,
    context: &RequestContext<RoleServer>,
) -> Option<String> {
    meta.and_then(RequestMetaObject::client_info)
        .or_else(|| context.meta.client_info())
        .map(|i| i.name)
        .or_else(|| context.peer.peer_info().map(|p| p.client_info.name.clone()))
}

/// A command's result as an MCP tool result. The content is text for the model: the
/// command's own rendering when it declares one (numbered lines, matches, a diff, a
/// script's output; see `ultra_core::render`), else the data's JSON, cut at
/// `render::MAX_TEXT` with a note. The data itself goes in `structuredContent` when it is an
/// object. A failure is `isError` with the error in a few readable lines: code and
/// message, what to do, the details as JSON, whether a retry can help.
fn to_tool_result(result: CommandResult, text: Option<String>) -> CallToolResult {
    use ultra_core::render;
    if result.success {
        let mut data = result.data.unwrap_or(Value::Null);
        let text = text.unwrap_or_else(|| match &data {
            Value::String(s) => s.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        });
        // A result's `text` rendering is sent once, as the content the model reads, not
        // again in the structured copy (the output schema leaves it optional). Then the
        // structured copy no longer holds what a cut would leave out of the text.
        let mut whole_elsewhere = true;
        if let Some(obj) = data.as_object_mut()
            && obj
                .get("text")
                .and_then(Value::as_str)
                .is_some_and(|t| text.contains(t))
        {
            obj.remove("text");
            whole_elsewhere = false;
        }
        let text = render::capped(text, whole_elsewhere);
        let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
        if !result.warnings.is_empty() || result.feedback.is_some() {
            let extra = json!({ "warnings": result.warnings, "feedback": result.feedback });
            out.content.push(ContentBlock::text(extra.to_string()));
        }
        if data.is_object() {
            out.structured_content = Some(data);
        }
        out
    } else {
        // Text only: clients check any structured content against the tool's output
        // schema, errors included (the TypeScript SDK does), and the text holds every
        // field of the error.
        let mut text = result.error.as_ref().map(render::error).unwrap_or_default();
        if let Some(f) = &result.feedback {
            text.push_str(&format!("Feedback: {}\n", json!(f)));
        }
        CallToolResult::error(vec![ContentBlock::text(text)])
    }
}

impl<S: Host> ServerHandler for McpServer<S> {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ultra", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(id) = self.ids.get(request.name.as_ref()).copied() else {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`: tools/list gives the tools this server offers",
                    request.name
                ),
                None,
            ));
        };
        let args = request.arguments.map_or(json!({}), Value::Object);
        let agent = client_name(request.meta.as_ref(), &context);
        let ask = if !client_elicits(request.meta.as_ref(), &context) {
            Ask::Nobody
        } else if stateless(&context) {
            Ask::Retry {
                state: request.request_state.as_deref(),
                answer: request
                    .input_responses
                    .as_ref()
                    .and_then(|r| r.get("approve")),
            }
        } else {
            Ask::Elicit
        };
        let call = Call {
            id,
            args,
            agent,
            progress: context.meta.get_progress_token(),
        };
        Ok(match self.call(call, ask, &context.peer).await {
            Answer::Done(result) => result.into(),
            Answer::InputRequired(asked) => asked.into(),
        })
    }
}

/// A tool call, resolved to its command.
struct Call {
    id: &'static str,
    args: Value,
    /// The client's name, which attributes the call.
    agent: Option<String>,
    /// Where to report progress, when the client asked for it.
    progress: Option<rmcp::model::ProgressToken>,
}

/// How a call that needs a person reaches the client's user.
enum Ask<'a> {
    /// The client cannot ask: the call fails with CONFIRMATION_REQUIRED.
    Nobody,
    /// An elicitation request to the client.
    Elicit,
    /// MCP 2026-07-28: the question goes back as an input-required result, and the
    /// client retries with the answer (`answer`) and the echoed state (`state`).
    Retry {
        state: Option<&'a str>,
        answer: Option<&'a Value>,
    },
}

/// What a tool call comes to.
enum Answer {
    Done(CallToolResult),
    InputRequired(InputRequiredResult),
}

impl<S: Host> McpServer<S> {
    /// Run a tool call: progress to the client while it runs (when it asked), a
    /// confirmation put to its user as `ask` says, the result rendered for the model.
    /// rmcp's dispatch and the direct path over stdio both answer through this.
    async fn call(&self, call: Call, ask: Ask<'_>, peer: &rmcp::Peer<RoleServer>) -> Answer {
        let Call {
            id,
            args,
            agent,
            progress,
        } = call;
        let source = Source {
            agent_id: agent,
            ..Source::new(SourceKind::Ai)
        };
        // A client that asked for progress hears about the index being built and, for
        // anything slower than a second, that the call is still running.
        let progress = progress.map(|token| self.report_progress(token, peer.clone()));
        let (mut result, after) = self
            .exec
            .execute_then(id, args.clone(), source.clone())
            .await;
        if let (Some(pending), Some(after)) = (&self.unrecorded, after) {
            pending.push(after);
        }
        // A call that needs a person, from a client that can ask its user: ask there.
        if let Some(confirmation) = needs_person(&result) {
            match ask {
                Ask::Nobody => {}
                Ask::Elicit => {
                    result = self
                        .elicit(id, args, source, &confirmation, peer)
                        .await
                        .unwrap_or(result);
                }
                // 2026-07-28 forbids requests to the client: the question goes back as an
                // input-required result, and the client retries with the answer. The
                // state is only the waiting call's id, and it counts only for this very
                // call (the same call waits under the same id).
                Ask::Retry { state, answer } => {
                    match answer.filter(|_| state == Some(confirmation.id.as_str())) {
                        Some(answer) => {
                            result = self
                                .settle(id, args, source, &confirmation, approved(answer))
                                .await
                                .unwrap_or(result);
                        }
                        None => {
                            if let Some(task) = progress {
                                task.abort();
                            }
                            return Answer::InputRequired(input_required(id, &args, &confirmation));
                        }
                    }
                }
            }
        }
        if let Some(task) = progress {
            task.abort();
        }
        let text = result
            .data
            .as_ref()
            .filter(|_| result.success)
            .and_then(|data| self.exec.registry().render(id, data));
        Answer::Done(to_tool_result(result, text))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use ultra_protocol::CommandResult;

    use super::to_tool_result;

    fn first_text(r: &rmcp::model::CallToolResult) -> String {
        let block = serde_json::to_value(&r.content[0]).unwrap();
        block["text"].as_str().unwrap().to_string()
    }

    /// A cut rendering points to the structured copy only when that copy holds the rest:
    /// a result's `text` sent as the content is left out of it.
    #[test]
    fn a_cut_answer_says_where_the_rest_is_only_when_it_is_there() {
        let long = "a line of text\n".repeat(10_000);
        let r = to_tool_result(
            CommandResult::ok(json!({"text": long, "n": 1})),
            Some(long.clone()),
        );
        let text = first_text(&r);
        assert!(text.contains("[cut at "), "{}", &text[text.len() - 200..]);
        assert!(
            !text.contains("structuredContent"),
            "{}",
            &text[text.len() - 200..]
        );
        assert_eq!(r.structured_content, Some(json!({"n": 1})));

        let items: Vec<_> = (0..5_000).map(|i| json!({"item": i})).collect();
        let r = to_tool_result(CommandResult::ok(json!({"items": items})), None);
        let text = first_text(&r);
        assert!(text.contains("the full answer is in structuredContent"));
        assert_eq!(
            r.structured_content.unwrap()["items"]
                .as_array()
                .unwrap()
                .len(),
            5_000
        );
    }
}
