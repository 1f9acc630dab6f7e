//! `braid serve` with a real MCP server from `mcp_servers.json`: status, tools and resources over
//! HTTP, a reload that adds a broken server without disturbing the working one, and a model
//! calling the MCP tool through the server. Needs the servers of
//! `crates/braid-mcp/tests/servers/install.sh`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

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
