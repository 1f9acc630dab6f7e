//! `braid serve` with a real MCP server from `mcp_servers.json`: status, tools and resources over
//! HTTP, a reload that adds a broken server without disturbing the working one, and a model
//! calling the MCP tool through the server. Needs the servers of
//! `crates/braid-mcp/tests/servers/install.sh`.

use crate::common;

use std::path::PathBuf;
use std::time::Duration;

use braid_testkit::Script;
use common::*;
use serde_json::{Value, json};

fn everything_js() -> String {
    let js = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../braid-mcp/tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        js.exists(),
        "{} is missing: run crates/braid-mcp/tests/servers/install.sh",
        js.display()
    );
    js.to_string_lossy().into_owned()
}

fn write_config(path: &std::path::Path, servers: Value) {
    std::fs::write(path, json!({ "mcpServers": servers }).to_string()).unwrap();
}

async fn wait_for(h: &TestServer, server: &str, status: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (code, body) = h.call("GET", "/v1/mcp/servers", None).await;
        assert_eq!(code, 200);
        if let Some(s) = body["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == server)
            && s["status"] == status
        {
            return s.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{server} never became {status}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn mcp_servers_tools_and_resources_are_served_and_reload_adds_a_broken_one() {
    let config = tempfile::NamedTempFile::new().unwrap();
    write_config(
        config.path(),
        json!({ "everything": { "command": "node", "args": [everything_js(), "stdio"] } }),
    );
    let mut setup = Setup::new(Script::new());
    setup.mcp_config = Some(config.path().to_owned());
    let mut h = TestServer::with(setup).await;

    let ready = wait_for(&h, "everything", "ready").await;
    let names: Vec<String> = ready["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("mcp__everything__")),
        "{names:?}"
    );
    let (_, tools) = h.call("GET", "/v1/tools", None).await;
    let mcp_tool = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["source"] == "mcp")
        .expect("MCP tools listed");
    assert_eq!(mcp_tool["server"], "everything");
    let (_, resources) = h.call("GET", "/v1/mcp/resources", None).await;
    assert!(!resources["resources"].as_array().unwrap().is_empty());

    // A broken server added by a reload is reported, and the working one keeps working.
    write_config(
        config.path(),
        json!({
            "everything": { "command": "node", "args": [everything_js(), "stdio"] },
            "broken": { "command": "/nonexistent/mcp-server" }
        }),
    );
    let (code, _) = h.call("POST", "/v1/mcp/servers/reload", None).await;
    assert_eq!(code, 200);
    let broken = wait_for(&h, "broken", "failed").await;
    assert!(
        broken["error"].as_str().unwrap_or_default().len() > 3,
        "{broken}"
    );
    wait_for(&h, "everything", "ready").await;
    h.stop().await;
}

#[tokio::test]
async fn the_model_calls_an_mcp_tool_through_the_server() {
    let config = tempfile::NamedTempFile::new().unwrap();
    write_config(
        config.path(),
        json!({ "everything": { "command": "node", "args": [everything_js(), "stdio"], "autoApprove": ["echo"] } }),
    );
    let mut setup = Setup::new(Script::new());
    setup.mcp_config = Some(config.path().to_owned());
    let mut h = TestServer::with(setup).await;
    let ready = wait_for(&h, "everything", "ready").await;
    let echo = ready["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .find(|t| t.ends_with("__echo"))
        .unwrap();
    h.mock
        .push_response(calls(&[("m1", &echo, json!({"message": "over the wire"}))]));
    h.mock.push_response(reply(&["echoed"]));
    // Manual policy: the server's autoApprove lets the call run without asking.
    let id = h
        .context(json!({"approval_policy": {"type": "manual"}}))
        .await;
    h.send_text(&id, "use the echo tool").await;
    let state = h.settle(&id).await;
    assert_eq!(state["type"], "idle", "{state}");
    let kinds: Vec<String> = h
        .messages(&id)
        .await
        .iter()
        .map(|m| m["kind"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        kinds.contains(&"mcp_tool_request".to_owned())
            && kinds.contains(&"mcp_tool_result".to_owned()),
        "{kinds:?}"
    );
    assert!(h.mock.requests()[1].body.contains("over the wire"));
    h.stop().await;
}

#[tokio::test]
async fn the_oauth_callback_answers_a_browser_without_the_api_token_and_refuses_unknown_state() {
    let config = tempfile::NamedTempFile::new().unwrap();
    write_config(config.path(), json!({}));
    let mut setup = Setup::new(Script::new());
    setup.mcp_config = Some(config.path().to_owned());
    setup.app.api_token = Some("s3cret".into());
    let mut h = TestServer::with(setup).await;
    // The browser that an authorization server redirects has no token.
    h.token = None;
    let res = h
        .req(
            reqwest::Method::GET,
            "/v1/mcp/oauth/callback?code=c&state=forged",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 400);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let page = res.text().await.unwrap();
    assert!(page.contains("Not authorized"), "{page}");
    assert!(page.contains("no authorization is waiting"), "{page}");
    // Every other route still needs the token.
    let (status, _) = h.call("GET", "/v1/mcp/servers", None).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn a_servers_question_waits_for_the_person_who_answers_it_over_http() {
    let config = tempfile::NamedTempFile::new().unwrap();
    write_config(
        config.path(),
        json!({ "everything": { "command": "node", "args": [everything_js(), "stdio"], "autoApprove": ["trigger-elicitation-request"] } }),
    );
    let mut setup = Setup::new(Script::new());
    setup.mcp_config = Some(config.path().to_owned());
    let mut h = TestServer::with(setup).await;
    let ready = wait_for(&h, "everything", "ready").await;
    let tool = ready["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .find(|t| t.ends_with("__trigger-elicitation-request"))
        .expect("server-everything offers its elicitation tool, since Braid can elicit");
    h.mock.push_response(calls(&[("e1", &tool, json!({}))]));
    h.mock.push_response(reply(&["thanks"]));
    let id = h
        .context(json!({"approval_policy": {"type": "manual"}}))
        .await;
    // A browser is connected: its event stream is open.
    let stream = h
        .req(reqwest::Method::GET, &format!("/v1/contexts/{id}/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status().as_u16(), 200);
    h.send_text(&id, "ask me").await;

    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let question = loop {
        let (status, list) = h.call("GET", "/v1/mcp/elicitations", None).await;
        assert_eq!(status, 200);
        if let Some(q) = list["elicitations"].as_array().unwrap().first() {
            break q.clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "no question came");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(question["server"], "everything");
    assert_eq!(
        question["requested_schema"]["properties"]["name"]["type"],
        "string"
    );
    let path = format!("/v1/mcp/elicitations/{}", question["id"].as_str().unwrap());
    // The form requires `name`.
    let (status, body) = h
        .call(
            "POST",
            &path,
            Some(json!({"action": "accept", "content": {"check": true}})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "content.name");
    let (status, body) = h
        .call(
            "POST",
            &path,
            Some(json!({"action": "accept", "content": {"name": "Ada Lovelace", "check": true}})),
        )
        .await;
    assert_eq!(status, 204, "{body}");
    let state = h.settle(&id).await;
    assert_eq!(state["type"], "idle", "{state}");
    let result = h
        .messages(&id)
        .await
        .into_iter()
        .find(|m| m["kind"] == "mcp_tool_result")
        .unwrap();
    assert!(result.to_string().contains("Ada Lovelace"), "{result}");
    // Answered once: the question is gone.
    let (status, _) = h
        .call("POST", &path, Some(json!({"action": "decline"})))
        .await;
    assert_eq!(status, 404);
    drop(stream);
    h.stop().await;
}

#[tokio::test]
async fn mcp_prompts_are_listed_and_got_with_their_arguments() {
    let config = tempfile::NamedTempFile::new().unwrap();
    write_config(
        config.path(),
        json!({ "everything": { "command": "node", "args": [everything_js(), "stdio"] } }),
    );
    let mut setup = Setup::new(Script::new());
    setup.mcp_config = Some(config.path().to_owned());
    let mut h = TestServer::with(setup).await;
    wait_for(&h, "everything", "ready").await;
    let (status, list) = h.call("GET", "/v1/mcp/prompts", None).await;
    assert_eq!(status, 200);
    let args = list["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "args-prompt")
        .unwrap_or_else(|| panic!("server-everything's args-prompt: {list}"));
    assert_eq!(args["server"], "everything");
    assert_eq!(args["arguments"][0]["name"], "city");
    assert_eq!(args["arguments"][0]["required"], true);
    assert_eq!(args["arguments"][1]["required"], false);

    let (status, got) = h
        .call(
            "POST",
            "/v1/mcp/prompts/everything/args-prompt",
            Some(json!({"arguments": {"city": "Lyon", "state": "Rhône"}})),
        )
        .await;
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["text"], "What's weather in Lyon, Rhône?");
    let (status, body) = h
        .call(
            "POST",
            "/v1/mcp/prompts/everything/args-prompt",
            Some(json!({"arguments": {}})),
        )
        .await;
    assert_eq!(status, 422);
    assert_eq!(body["error"]["field"], "arguments.city");
    let (status, _) = h
        .call("POST", "/v1/mcp/prompts/everything/nope", Some(json!({})))
        .await;
    assert_eq!(status, 404);
    let (status, _) = h
        .call(
            "POST",
            "/v1/mcp/prompts/absent/args-prompt",
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 404);
    h.stop().await;
}

#[tokio::test]
async fn mcp_servers_are_added_replaced_and_removed_in_the_file_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp_servers.json");
    std::fs::write(
        &path,
        r#"{"mcpServers": {"other": {"command": "/nonexistent/server", "disabled": true, "fromAnotherClient": {"x": 1}}}, "theme": "dark"}"#,
    )
    .unwrap();
    let mut setup = Setup::new(Script::new());
    setup.mcp_config = Some(path.clone());
    let mut h = TestServer::with(setup).await;
    let file = || std::fs::read_to_string(&path).unwrap();
    let before = file();

    // Refusals name what is wrong and leave the file as it was.
    for (body, status, field) in [
        (
            json!({"name": "bad name", "server": {"command": "node"}}),
            422,
            "name",
        ),
        (
            json!({"name": "a__b", "server": {"command": "node"}}),
            422,
            "name",
        ),
        (
            json!({"name": "web", "server": {"url": "ftp://h/mcp"}}),
            422,
            "server.url",
        ),
        (
            json!({"name": "web", "server": {"command": "node", "url": "http://h/mcp"}}),
            422,
            "server.url",
        ),
        (
            json!({"name": "x", "server": {"command": "node", "timeout": 0}}),
            422,
            "server.timeout",
        ),
        (
            json!({"name": "x", "server": {"command": "node", "env": {"K": null}}}),
            422,
            "server.env.K",
        ),
        (
            json!({"name": "x", "server": {"command": 3}}),
            422,
            "server.command",
        ),
        (
            json!({"name": "other", "server": {"command": "node"}}),
            409,
            "name",
        ),
    ] {
        let (code, answer) = h.call("POST", "/v1/mcp/servers", Some(body.clone())).await;
        assert_eq!(code, status, "{body}: {answer}");
        let named = answer["error"]["field"].as_str().unwrap_or_default();
        assert!(named.starts_with(field), "{body}: {answer}");
        assert_eq!(file(), before, "{body} changed the file");
    }
    let (code, answer) = h
        .call(
            "PUT",
            "/v1/mcp/servers/nobody",
            Some(json!({"command": "node"})),
        )
        .await;
    assert_eq!(
        (code, answer["error"]["field"].as_str()),
        (404, Some("name"))
    );
    let (code, _) = h.call("DELETE", "/v1/mcp/servers/nobody", None).await;
    assert_eq!(code, 404);
    assert_eq!(file(), before);

    // Added: written, connected, listed with its secret hidden.
    let (code, answer) = h
        .call(
            "POST",
            "/v1/mcp/servers",
            Some(json!({"name": "everything", "server": {
                "command": "node", "args": [everything_js(), "stdio"], "env": {"SECRET_TOKEN": "s3cret"}
            }})),
        )
        .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["editing"], "editable");
    assert!(!answer.to_string().contains("s3cret"), "{answer}");
    let ready = wait_for(&h, "everything", "ready").await;
    assert_eq!(ready["definition"]["env"]["SECRET_TOKEN"], Value::Null);
    assert_eq!(ready["definition"]["command"], "node");
    let written: Value = serde_json::from_str(&file()).unwrap();
    assert_eq!(written["theme"], "dark");
    assert_eq!(written["mcpServers"]["other"]["fromAnotherClient"]["x"], 1);
    assert_eq!(
        written["mcpServers"]["everything"]["env"]["SECRET_TOKEN"],
        "s3cret"
    );

    // Replaced from what the list shows: switched off, the hidden secret kept.
    let mut definition = ready["definition"].clone();
    definition["disabled"] = json!(true);
    let (code, answer) = h
        .call("PUT", "/v1/mcp/servers/everything", Some(definition))
        .await;
    assert_eq!(code, 200, "{answer}");
    wait_for(&h, "everything", "disabled").await;
    let (_, tools) = h.call("GET", "/v1/tools", None).await;
    assert!(
        !tools.to_string().contains("mcp__everything__"),
        "a disabled server's tools are gone"
    );
    let written: Value = serde_json::from_str(&file()).unwrap();
    assert_eq!(
        written["mcpServers"]["everything"]["env"]["SECRET_TOKEN"],
        "s3cret"
    );
    assert_eq!(written["mcpServers"]["everything"]["disabled"], true);

    // Removed: gone from the file and the list; the others stay.
    let (code, answer) = h.call("DELETE", "/v1/mcp/servers/everything", None).await;
    assert_eq!(code, 200, "{answer}");
    let names: Vec<&str> = answer["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["other"]);
    let written: Value = serde_json::from_str(&file()).unwrap();
    assert!(written["mcpServers"].get("everything").is_none());
    assert_eq!(written["mcpServers"]["other"]["fromAnotherClient"]["x"], 1);
    h.stop().await;
}

#[tokio::test]
async fn a_read_only_configuration_file_is_listed_as_such_and_not_edited() {
    let config = tempfile::NamedTempFile::new().unwrap();
    write_config(config.path(), json!({}));
    let before = std::fs::read_to_string(config.path()).unwrap();
    let mut setup = Setup::new(Script::new());
    setup.mcp_config = Some(config.path().to_owned());
    setup.app.mcp_edits = braid_server::app::McpEdits::Refused;
    let mut h = TestServer::with(setup).await;
    let (_, list) = h.call("GET", "/v1/mcp/servers", None).await;
    assert_eq!(list["editing"], "read_only");
    let (code, answer) = h
        .call(
            "POST",
            "/v1/mcp/servers",
            Some(json!({"name": "a", "server": {"command": "node"}})),
        )
        .await;
    assert_eq!(code, 403, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--mcp-config-readonly"),
        "{answer}"
    );
    assert_eq!(std::fs::read_to_string(config.path()).unwrap(), before);
    h.stop().await;
}

#[tokio::test]
async fn without_a_configuration_file_editing_servers_says_how_to_get_one() {
    let mut h = TestServer::start(Script::new()).await;
    let (_, list) = h.call("GET", "/v1/mcp/servers", None).await;
    assert_eq!(list["editing"], "no_file");
    let (code, answer) = h
        .call(
            "POST",
            "/v1/mcp/servers",
            Some(json!({"name": "a", "server": {"command": "node"}})),
        )
        .await;
    assert_eq!(code, 409, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("--mcp-config"), "{message}");
    h.stop().await;
}

/// The names of the tools a request to the model offers (`tools[].function.name`).
fn offered_tools(body: &str) -> Vec<String> {
    let body: Value = serde_json::from_str(body).unwrap();
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_switched_off_mcp_tool_is_not_offered_and_a_call_to_it_gets_an_error_result() {
    let config = tempfile::NamedTempFile::new().unwrap();
    write_config(
        config.path(),
        json!({ "everything": { "command": "node", "args": [everything_js(), "stdio"], "autoApprove": ["echo"] } }),
    );
    let mut setup = Setup::new(Script::new());
    setup.mcp_config = Some(config.path().to_owned());
    let mut h = TestServer::with(setup).await;
    let ready = wait_for(&h, "everything", "ready").await;
    let tools: Vec<String> = ready["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect();
    let echo = tools
        .iter()
        .find(|t| t.ends_with("__echo"))
        .unwrap()
        .clone();
    let other = tools.iter().find(|t| **t != echo).unwrap().clone();

    // The model calls the switched-off tool anyway (it remembers it from earlier).
    h.mock.push_response(calls(&[(
        "m1",
        &echo,
        json!({"message": "should not run"}),
    )]));
    h.mock.push_response(reply(&["understood"]));
    let id = h
        .context(json!({"approval_policy": {"type": "manual"}, "disabled_mcp_tools": [echo]}))
        .await;
    h.send_text(&id, "use the echo tool").await;
    let state = h.settle(&id).await;
    assert_eq!(state["type"], "idle", "{state}");
    let requests = h.mock.requests();
    let offered = offered_tools(&requests[0].body);
    assert!(
        !offered.contains(&echo),
        "the switched-off tool is not offered: {offered:?}"
    );
    assert!(
        offered.contains(&other),
        "the server's other tools are: {offered:?}"
    );
    // Refused without asking the person, with a result the model reads.
    assert!(
        requests[1].body.contains("switched off in this context"),
        "{}",
        requests[1].body
    );
    let messages = h.messages(&id).await;
    let result = messages
        .iter()
        .find(|m| {
            m["kind"]
                .as_str()
                .unwrap_or_default()
                .ends_with("tool_result")
        })
        .expect("a result");
    assert!(
        result.to_string().contains("disabled_mcp_tools"),
        "{result}"
    );

    // The whole server switched off: none of its tools is offered.
    let (code, answer) = h
        .call(
            "PATCH",
            &format!("/v1/contexts/{id}"),
            Some(json!({"config": {"disabled_mcp_tools": null, "disabled_mcp_servers": ["everything"]}})),
        )
        .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(
        answer["config"]["disabled_mcp_servers"],
        json!(["everything"])
    );
    h.mock.push_response(reply(&["fine"]));
    h.send_text(&id, "again").await;
    h.settle(&id).await;
    let offered = offered_tools(&h.mock.requests()[2].body);
    assert!(
        !offered.iter().any(|t| t.starts_with("mcp__everything__")),
        "no tool of a switched-off server is offered: {offered:?}"
    );
    assert!(!offered.is_empty(), "built-in tools still are");

    // A bad tool name is refused, naming the field.
    let (code, answer) = h
        .call(
            "PATCH",
            &format!("/v1/contexts/{id}"),
            Some(json!({"config": {"disabled_mcp_tools": ["echo"]}})),
        )
        .await;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(answer["error"]["field"], "config.disabled_mcp_tools[0]");
    h.stop().await;
}
