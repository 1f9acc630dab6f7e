//! End-to-end tests of the HTTP + SSE API over real HTTP: a server on a free port, a real SQLite
//! file, the mock LLM.

use crate::common;

use std::time::Duration;

use braid_context::title::TitleSetting;
use braid_server::AppConfig;
use braid_testkit::{Script, StreamReply};
use common::*;
use serde_json::json;

#[tokio::test]
async fn full_conversation_is_read_from_the_event_stream() {
    let s = TestServer::start(Script::new().then(reply(&["Hel", "lo, ", "world"]))).await;
    let id = s.context(json!({})).await;
    let mut events = s.events(&id, "", None).await;
    let sent = s.send_text(&id, "hi").await;
    assert_eq!(sent["queued"], false);
    let message_id = sent["message_id"].as_str().unwrap().to_owned();
    let seen = events.until(is_idle).await;
    // Every logged event has an id, strictly rising by one.
    let ids: Vec<u64> = seen.iter().map(|e| e.id.unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "{ids:?}");
    assert_eq!(text_of(&seen), "Hello, world");
    let created_user = seen.iter().any(|e| {
        e.data["message_update"]["type"] == "created"
            && e.data["message_update"]["message_id"] == message_id.as_str()
    });
    assert!(created_user, "no created update for the sent message");
    let final_pos = seen
        .iter()
        .position(|e| e.event == "content_final")
        .unwrap();
    assert_eq!(seen[final_pos].data["is_final"], true);
    let deltas: Vec<_> = seen.iter().filter(|e| e.event == "content_delta").collect();
    assert!(deltas.iter().all(|d| d.data["is_final"] == false));
    assert_eq!(
        deltas.last().unwrap().data["sequence"],
        seen[final_pos].data["sequence"]
    );
    // The stored history holds both sides.
    let ms = s.messages(&id).await;
    assert_eq!(ms.len(), 2, "{ms:?}");
    assert_eq!(ms[0]["role"], "user");
    assert_eq!(ms[1]["role"], "assistant");
    assert_eq!(ms[1]["data"]["parts"][0]["text"], "Hello, world");
    // The context answer has the contract's fields.
    let (status, ctx) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    assert_eq!(status, 200);
    for field in [
        "id",
        "title",
        "config",
        "state",
        "active_branch",
        "branches",
        "message_count",
        "token_budget",
        "created_at",
        "updated_at",
    ] {
        assert!(ctx.get(field).is_some(), "no {field} in {ctx}");
    }
    assert_eq!(ctx["message_count"], 2);
}

#[tokio::test]
async fn tool_loop_runs_after_approval_over_http() {
    let s = TestServer::start(
        Script::new()
            .then(calls(&[(
                "call_1",
                "read_file",
                json!({"path": "notes.txt"}),
            )]))
            .then(reply(&["The file says hello"])),
    )
    .await;
    let id = s
        .context(json!({"approval_policy": {"type": "manual"}}))
        .await;
    let mut events = s.events(&id, "", None).await;
    s.send_text(&id, "read my notes").await;
    let seen = events
        .until(|e| {
            e.event == "context_update"
                && e.data["current_state"]["type"] == "awaiting_tool_approval"
        })
        .await;
    let state = &seen.last().unwrap().data["current_state"];
    assert_eq!(state["pending_requests"], json!(["call_1"]));
    // A call that is not pending is a conflict.
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/approvals"),
            Some(json!({"decisions": [{"call_id": "nope", "decision": "approve"}]})),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "conflict");
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/approvals"),
            Some(json!({"decisions": [{"call_id": "call_1", "decision": "approve"}]})),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    assert!(body["turn_id"].is_string(), "{body}");
    let rest = events.until(is_idle).await;
    assert_eq!(text_of(&rest), "The file says hello");
    let ms = s.messages(&id).await;
    let result = ms
        .iter()
        .find(|m| m["kind"] == "tool_result")
        .expect("a tool result");
    assert_eq!(result["data"]["call_id"], "call_1");
    assert_eq!(result["data"]["status"], "success", "{result}");
    assert!(
        result["data"]["output"].to_string().contains("first line"),
        "{result}"
    );
    // The model's second request carried the tool result.
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].body.contains("first line"));
}

#[tokio::test]
async fn reconnect_with_last_event_id_misses_nothing_and_repeats_nothing() {
    let pieces: Vec<String> = (0..40).map(|i| format!("w{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let slow = reply(&refs).chunk_delay(Duration::from_millis(15));
    let s = TestServer::start(Script::new().then(slow)).await;
    let id = s.context(json!({})).await;
    let mut first = s.events(&id, "", None).await;
    s.send_text(&id, "talk slowly").await;
    let mut before = Vec::new();
    while before
        .iter()
        .filter(|e: &&Sse| e.event == "content_delta")
        .count()
        < 5
    {
        let e = first.next().await.unwrap();
        if e.event != "heartbeat" {
            before.push(e);
        }
    }
    let last_id = before.last().unwrap().id.unwrap();
    drop(first);
    // Miss a few chunks while disconnected.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut second = s.events(&id, "", Some(last_id)).await;
    let after = second.until(is_idle).await;
    let mut all = before.clone();
    all.extend(after);
    let ids: Vec<u64> = all.iter().map(|e| e.id.unwrap()).collect();
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "gap or duplicate: {ids:?}"
    );
    assert_eq!(text_of(&all), pieces.concat());
    // A full replay gives the same events.
    let mut replay = s.events(&id, "?after=0", None).await;
    let replayed = replay.until(is_idle).await;
    let replay_ids: Vec<u64> = replayed.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(replay_ids, (1..=*ids.last().unwrap()).collect::<Vec<_>>());
    assert_eq!(text_of(&replayed), pieces.concat());
}

#[tokio::test]
async fn a_resume_id_beyond_the_log_is_told_to_reload_then_the_stream_goes_on_live() {
    let s = TestServer::start(
        Script::new()
            .then(reply(&["first"]))
            .then(reply(&["after ", "reload"])),
    )
    .await;
    let id = s.context(json!({})).await;
    s.send_text(&id, "hello").await;
    s.settle(&id).await;
    let (_, state) = s
        .call("GET", &format!("/v1/contexts/{id}/state"), None)
        .await;
    assert_eq!(state["state"]["type"], "idle", "{state}");
    // An id from a database that was since restored: far beyond this log's end.
    for (query, header) in [("", Some(10_000)), ("?after=10000", None)] {
        let mut events = s.events(&id, query, header).await;
        let first = events.next().await.expect("an answer, not silence");
        assert_eq!(first.event, "error", "{first:?}");
        assert_eq!(first.data["code"], "resume_point_unknown", "{first:?}");
        assert_eq!(first.id, None, "the notice names no event of the log");
        assert!(
            first.data["message"].as_str().unwrap().contains("reload"),
            "{first:?}"
        );
    }
    // The stream continues live after the notice, from the log's real end.
    let mut events = s.events(&id, "", Some(10_000)).await;
    assert_eq!(
        events.next().await.unwrap().data["code"],
        "resume_point_unknown"
    );
    s.send_text(&id, "again").await;
    let live = events.until(is_idle).await;
    assert_eq!(text_of(&live), "after reload");
    let ids: Vec<u64> = live.iter().map(|e| e.id.unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "{ids:?}");
    // A resume id inside the log is placed as before: no notice.
    let mut inside = s.events(&id, "", Some(ids[0])).await;
    let next = inside.next().await.unwrap();
    assert_eq!(next.id, Some(ids[0] + 1), "{next:?}");
}

#[tokio::test]
async fn malformed_payloads_get_400_or_422_naming_the_field() {
    let s = TestServer::start(Script::new()).await;
    let id = s.context(json!({})).await;
    let path = format!("/v1/contexts/{id}/messages");
    let cases = [
        (r#"{"payload":{"type":"text"#, 400, None),
        (r#"{"payload":{"type":"text"}}"#, 422, Some("payload.text")),
        (
            r#"{"payload":{"type":"text","text":5}}"#,
            422,
            Some("payload.text"),
        ),
        (
            r#"{"payload":{"type":"dance","text":"x"}}"#,
            422,
            Some("payload.type"),
        ),
        (r#"{"client_metadata":{}}"#, 422, Some("payload")),
    ];
    for (body, status, field) in cases {
        let (got, answer) = s.raw("POST", &path, body.to_owned()).await;
        assert_eq!(got, status, "{body} -> {answer}");
        assert_eq!(answer["error"]["code"], "invalid_input", "{answer}");
        assert!(answer["error"]["message"].as_str().unwrap().len() > 3);
        if let Some(f) = field {
            assert_eq!(answer["error"]["field"], f, "{body} -> {answer}");
        }
    }
    // Other bodies and parameters.
    let (got, answer) = s
        .call(
            "POST",
            "/v1/contexts",
            Some(json!({"config": {"mode": "dance"}})),
        )
        .await;
    assert_eq!(got, 422);
    assert_eq!(answer["error"]["field"], "config.mode");
    let (got, answer) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/approvals"),
            Some(json!({"decisions": [{"call_id": "c", "decision": "maybe"}]})),
        )
        .await;
    assert_eq!(got, 422);
    assert_eq!(answer["error"]["field"], "decisions[0].decision");
    let (got, answer) = s
        .call(
            "GET",
            &format!("/v1/contexts/{id}/messages?view=pretty"),
            None,
        )
        .await;
    assert_eq!(got, 422);
    assert_eq!(answer["error"]["field"], "query.view");
    let (got, answer) = s
        .call(
            "GET",
            &format!("/v1/contexts/{id}/messages?kind=poem"),
            None,
        )
        .await;
    assert_eq!(got, 422);
    assert_eq!(answer["error"]["field"], "query.kind");
    let (got, answer) = s.call("GET", "/v1/contexts/not-a-uuid", None).await;
    assert_eq!(got, 422);
    assert_eq!(answer["error"]["field"], "id");
    let missing = "0192f0c4-0000-7000-8000-000000000000";
    let (got, answer) = s
        .call("GET", &format!("/v1/contexts/{missing}"), None)
        .await;
    assert_eq!(got, 404);
    assert_eq!(answer["error"]["code"], "not_found");
    let (got, answer) = s.call("GET", "/v1/nothing-here", None).await;
    assert_eq!(got, 404);
    assert_eq!(answer["error"]["code"], "not_found");
    // Nothing was sent to the model.
    assert_eq!(s.mock.request_count(), 0);
}

#[tokio::test]
async fn a_token_is_required_on_every_api_route_when_set() {
    let mut setup = Setup::new(Script::new());
    setup.app.api_token = Some("s3cret".into());
    let mut s = TestServer::with(setup).await;
    let (status, _) = s.call("GET", "/v1/contexts", None).await;
    assert_eq!(status, 200);
    s.token = None;
    for path in ["/v1/contexts", "/v1/tools", "/metrics", "/openapi.json"] {
        let (status, body) = s.call("GET", path, None).await;
        assert_eq!(status, 401, "{path}");
        assert_eq!(body["error"]["code"], "unauthorized");
    }
    let (status, _) = s
        .call("POST", "/v1/contexts", Some(json!({"title": "x"})))
        .await;
    assert_eq!(status, 401);
    s.token = Some("wrong".into());
    let (status, _) = s.call("GET", "/v1/contexts", None).await;
    assert_eq!(status, 401);
    s.token = None;
    let (status, body) = s.call("GET", "/health", None).await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "ok");
}

#[tokio::test]
async fn without_a_model_a_send_gets_an_error_event_naming_the_variables() {
    let mut setup = Setup::new(Script::new());
    setup.with_model = false;
    let s = TestServer::with(setup).await;
    let id = s.context(json!({})).await;
    let mut events = s.events(&id, "", None).await;
    s.send_text(&id, "hi").await;
    let seen = events.until(|e| e.event == "error").await;
    let error = &seen.last().unwrap().data;
    assert_eq!(error["code"], "llm_not_configured");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("BRAID_MODEL") && message.contains("BRAID_LLM_PROVIDER"));
}

#[tokio::test]
async fn an_untitled_context_gets_a_title_from_the_model() {
    let mut setup = Setup::new(
        Script::new()
            .then(reply(&["Hi! How can I help?"]))
            .then(StreamReply::new().text("\"Greeting the assistant.\"")),
    );
    setup.titles = TitleSetting::Auto;
    let s = TestServer::with(setup).await;
    let (status, body) = s.call("POST", "/v1/contexts", Some(json!({}))).await;
    assert_eq!(status, 201);
    assert!(body.get("title").is_none());
    let id = body["id"].as_str().unwrap().to_owned();
    s.send_text(&id, "hello there").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, ctx) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
        if let Some(t) = ctx["title"].as_str() {
            assert_eq!(t, "Greeting the assistant");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never titled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let requests = s.mock.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].body.contains("hello there"));
    assert!(requests[1].body.contains("How can I help"));
}

#[tokio::test]
async fn a_failed_title_request_leaves_the_context_untitled() {
    let mut setup = Setup::new(Script::new().then(reply(&["Sure."])));
    setup.titles = TitleSetting::Auto;
    let s = TestServer::with(setup).await;
    let (_, body) = s.call("POST", "/v1/contexts", Some(json!({}))).await;
    let id = body["id"].as_str().unwrap().to_owned();
    s.send_text(&id, "hello").await;
    s.settle(&id).await;
    // The title request hits an empty script (HTTP 500).
    assert!(
        s.mock.wait_for_requests(2, Duration::from_secs(10)).await,
        "the title request never went out"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (_, ctx) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    assert!(ctx.get("title").is_none(), "{ctx}");
    assert_eq!(ctx["state"]["type"], "idle");
}

#[tokio::test]
async fn a_branch_before_a_message_leaves_that_message_out() {
    let s = TestServer::start(Script::new().then(reply(&["one"]))).await;
    let id = s.context(json!({})).await;
    s.send_text(&id, "first").await;
    s.settle(&id).await;
    let ms = s.messages(&id).await;
    assert!(ms.len() >= 2, "{ms:?}");
    let first = ms[0]["id"].as_str().unwrap().to_owned();
    let answer = ms[1]["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/contexts/{id}/branches");
    // Before the first message: an empty branch, where an edited first message can go.
    let (status, empty) = s
        .call(
            "POST",
            &path,
            Some(json!({"name": "edit", "before_message": first})),
        )
        .await;
    assert_eq!(status, 201, "{empty}");
    assert_eq!(empty["message_count"], 0);
    assert_eq!(empty["parent"], "main");
    assert!(empty.get("fork_point").is_none(), "{empty}");
    // Before the answer: the question stays, the answer goes.
    let (status, again) = s
        .call(
            "POST",
            &path,
            Some(json!({"name": "again", "before_message": answer})),
        )
        .await;
    assert_eq!(status, 201, "{again}");
    assert_eq!(again["message_count"], 1);
    assert_eq!(again["fork_point"], first.as_str());
    // Both bounds at once is refused, naming the field; nothing is created.
    let (status, body) = s
        .call(
            "POST",
            &path,
            Some(json!({"name": "both", "from_message": first, "before_message": answer})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "before_message");
    let (status, body) = s
        .call(
            "POST",
            &path,
            Some(json!({"name": "nowhere", "before_message": "0192f0c4-1111-7000-8000-000000000003"})),
        )
        .await;
    assert_eq!(status, 404, "{body}");
    let (_, list) = s.call("GET", &path, None).await;
    let names: Vec<&str> = list["branches"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["name"].as_str())
        .collect();
    assert_eq!(names.len(), 3, "{list}");
}

#[tokio::test]
async fn branches_mode_state_and_listing_work_over_http() {
    let s = TestServer::start(Script::new().then(reply(&["one"]))).await;
    let id = s.context(json!({})).await;
    s.send_text(&id, "first").await;
    s.settle(&id).await;
    let ms = s.messages(&id).await;
    let first = ms[0]["id"].as_str().unwrap().to_owned();
    let (status, branch) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches"),
            Some(json!({"name": "alt", "from_message": first})),
        )
        .await;
    assert_eq!(status, 201, "{branch}");
    assert_eq!(branch["message_count"], 1);
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches"),
            Some(json!({"name": "alt"})),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches/alt/activate"),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let (_, list) = s
        .call("GET", &format!("/v1/contexts/{id}/branches"), None)
        .await;
    assert_eq!(list["active"], "alt");
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches/nope/activate"),
            None,
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = s
        .call(
            "PUT",
            &format!("/v1/contexts/{id}/mode"),
            Some(json!({"mode": "plan"})),
        )
        .await;
    assert_eq!(status, 204);
    let (_, ctx) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    assert_eq!(ctx["config"]["mode"], "plan");
    let (_, state) = s
        .call(
            "GET",
            &format!("/v1/contexts/{id}/state?history=true"),
            None,
        )
        .await;
    assert!(state["history"].as_array().unwrap().len() > 3);
    // Listing on main, filtered by kind, paged.
    let (_, page) = s
        .call(
            "GET",
            &format!("/v1/contexts/{id}/messages?branch=main&kind=text&limit=1"),
            None,
        )
        .await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 1);
    let next = page["next_after"].as_str().unwrap();
    let (_, page2) = s
        .call(
            "GET",
            &format!("/v1/contexts/{id}/messages?branch=main&kind=text&after={next}"),
            None,
        )
        .await;
    assert_eq!(page2["messages"][0]["role"], "assistant");
    let (status, optimized) = s
        .call(
            "GET",
            &format!("/v1/contexts/{id}/messages?view=optimized"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{optimized}");
    let (status, _) = s
        .call("DELETE", &format!("/v1/contexts/{id}/branches/main"), None)
        .await;
    assert_eq!(status, 204);
    // PATCH and DELETE of the context.
    let (status, ctx) = s
        .call(
            "PATCH",
            &format!("/v1/contexts/{id}"),
            Some(json!({"title": "Renamed"})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(ctx["title"], "Renamed");
    let (_, list) = s.call("GET", "/v1/contexts", None).await;
    assert_eq!(list["contexts"].as_array().unwrap().len(), 1);
    let (status, _) = s.call("DELETE", &format!("/v1/contexts/{id}"), None).await;
    assert_eq!(status, 204);
    let (status, _) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn registry_and_mcp_routes_answer_their_lists() {
    let s = TestServer::start(Script::new()).await;
    let (status, tools) = s.call("GET", "/v1/tools", None).await;
    assert_eq!(status, 200);
    let tools = tools["tools"].as_array().unwrap();
    let read = tools.iter().find(|t| t["name"] == "read_file").unwrap();
    assert_eq!(read["source"], "builtin");
    assert_eq!(read["read_only"], true);
    assert!(read["parameters"].is_object());
    let (status, servers) = s.call("GET", "/v1/mcp/servers", None).await;
    assert_eq!(status, 200);
    assert_eq!(servers, json!({"servers": [], "editing": "no_file"}));
    let (status, resources) = s.call("GET", "/v1/mcp/resources", None).await;
    assert_eq!(status, 200);
    assert_eq!(resources, json!({"resources": []}));
    let (status, _) = s.call("POST", "/v1/mcp/servers/reload", None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_openapi_document_and_the_router_have_the_same_routes() {
    let s = TestServer::start(Script::new()).await;
    let (status, doc) = s.call("GET", "/openapi.json", None).await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.len() >= 35, "{} paths", paths.len());
    let some_id = "0192f0c4-0000-7000-8000-000000000000";
    for (template, item) in paths {
        let path = template
            .split('/')
            .map(|segment| match segment {
                "{id}" | "{message_id}" => some_id,
                s if s.starts_with('{') => "x",
                s => s,
            })
            .collect::<Vec<_>>()
            .join("/");
        let documented = item.as_object().unwrap();
        for method in ["get", "post", "put", "patch", "delete"] {
            let res = s
                .req(method.to_uppercase().parse().unwrap(), &path)
                .send()
                .await
                .unwrap();
            let status = res.status().as_u16();
            let text = res.text().await.unwrap();
            if documented.contains_key(method) {
                assert_ne!(
                    status, 405,
                    "{method} {template} is documented but not routed"
                );
                assert!(
                    !text.contains("no route"),
                    "{method} {template} is documented but not routed: {text}"
                );
            } else {
                assert_eq!(
                    status, 405,
                    "{method} {template} answers {status} but is not documented: {text}"
                );
            }
        }
    }
    for (method, path) in [
        ("get", "/v1/contexts/{id}/events"),
        ("post", "/v1/contexts/{id}/messages"),
        ("put", "/v1/contexts/{id}/mode"),
        ("delete", "/v1/contexts/{id}/branches/{name}"),
        ("post", "/v1/contexts/{id}/branches/{name}/merge"),
        ("get", "/v1/workflows"),
        ("post", "/v1/mcp/servers/reload"),
    ] {
        assert!(doc["paths"][path][method].is_object(), "{method} {path}");
    }
}

#[tokio::test]
async fn metrics_count_requests_streams_and_model_use() {
    let s = TestServer::start(Script::new().then(reply(&["a", "b"]).usage(12, 3))).await;
    let id = s.context(json!({})).await;
    let mut events = s.events(&id, "", None).await;
    s.send_text(&id, "count me").await;
    events.until(is_idle).await;
    let text = s
        .http
        .get(format!("{}/metrics", s.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("braid_open_event_streams 1"), "{text}");
    assert!(text.contains("braid_active_contexts 1"));
    assert!(text.contains("braid_llm_requests_total 1"));
    assert!(text.contains("braid_llm_tokens_total{type=\"prompt\"} 12"));
    assert!(text.contains("braid_llm_tokens_total{type=\"completion\"} 3"));
    assert!(text.contains(
        "braid_http_requests_total{method=\"POST\",route=\"/v1/contexts/{id}/messages\",status=\"202\"} 1"
    ));
    assert!(text.contains("braid_llm_first_chunk_seconds_count 1"));
}

#[tokio::test]
async fn heartbeats_keep_an_idle_stream_alive_without_ids() {
    let s = TestServer::start(Script::new()).await;
    let id = s.context(json!({})).await;
    let mut events = s.events(&id, "", None).await;
    let e = events.next_within(Duration::from_secs(3)).await.unwrap();
    assert_eq!(e.event, "heartbeat");
    assert!(e.id.is_none());
    assert!(e.data["timestamp"].is_string());
}

#[tokio::test]
async fn shutdown_ends_open_streams_with_a_notice_and_keeps_the_history() {
    let mut s = TestServer::start(Script::new().then(reply(&["kept"]))).await;
    let id = s.context(json!({})).await;
    s.send_text(&id, "remember").await;
    s.settle(&id).await;
    let mut events = s.events(&id, "", None).await;
    s.stop().await;
    let mut last = None;
    while let Some(e) = events.next().await {
        last = Some(e);
    }
    let last = last.expect("a notice before the end");
    assert_eq!(last.event, "error");
    assert_eq!(last.data["recoverable"], true);
    assert!(
        last.data["message"]
            .as_str()
            .unwrap()
            .contains("shutting down")
    );
}

#[tokio::test]
async fn the_web_ui_is_served_with_index_html_for_its_routes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "<html>braid ui</html>").unwrap();
    std::fs::create_dir(dir.path().join("assets")).unwrap();
    std::fs::write(dir.path().join("assets/app.js"), "console.log(1)").unwrap();
    let mut setup = Setup::new(Script::new());
    setup.app = AppConfig {
        web_dir: dir.path().to_owned(),
        ..AppConfig::default()
    };
    let s = TestServer::with(setup).await;
    for (path, expected) in [
        ("/", "braid ui"),
        ("/contexts/0192f0c4-0000-7000-8000-000000000000", "braid ui"),
        ("/assets/app.js", "console.log(1)"),
    ] {
        let res = s.http.get(format!("{}{path}", s.url)).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 200, "{path}");
        let body = res.text().await.unwrap();
        assert!(body.contains(expected), "{path}: {body}");
    }
    // Without the files, `/` explains how to build them.
    let bare = TestServer::start(Script::new()).await;
    let page = bare
        .http
        .get(format!("{}/", bare.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("npm run build"), "{page}");
}

#[tokio::test]
async fn a_send_during_a_turn_is_queued() {
    let slow = reply(&["a", "b", "c", "d"]).chunk_delay(Duration::from_millis(100));
    let s = TestServer::start(Script::new().then(slow).then(reply(&["second"]))).await;
    let id = s.context(json!({})).await;
    let first = s.send_text(&id, "one").await;
    assert_eq!(first["queued"], false);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let second = s.send_text(&id, "two").await;
    assert_eq!(second["queued"], true);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let ms = s.messages(&id).await;
        if ms.len() == 4 && s.settle(&id).await["type"] == "idle" {
            // Read again: the list above may predate the answer's final text.
            let ms = s.messages(&id).await;
            assert_eq!(ms[3]["data"]["parts"][0]["text"], "second");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{ms:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_client_that_stops_reading_does_not_hold_the_context_back_and_misses_nothing() {
    let pieces: Vec<String> = (0..3000).map(|i| format!("{i},")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let s = TestServer::start(Script::new().then(reply(&refs))).await;
    let id = s.context(json!({})).await;
    let mut stalled = s.events(&id, "", None).await;
    s.send_text(&id, "flood").await;
    // The turn ends while the client reads nothing.
    let state = s.settle(&id).await;
    assert_eq!(state["type"], "idle");
    let all = stalled.until(is_idle).await;
    let ids: Vec<u64> = all.iter().map(|e| e.id.unwrap()).collect();
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "gap or duplicate after falling behind"
    );
    assert_eq!(text_of(&all), pieces.concat());
}

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    assert_eq!(AppConfig::default().max_body, 10 * 1024 * 1024);
    let mut setup = Setup::new(Script::new().then(reply(&["ok"])));
    setup.app.max_body = 64 * 1024;
    let s = TestServer::with(setup).await;
    let id = s.context(json!({})).await;
    let path = format!("/v1/contexts/{id}/messages");
    let body = |n: usize| {
        format!(
            r#"{{"payload":{{"type":"text","text":"{}"}}}}"#,
            "a".repeat(n)
        )
    };
    let (got, answer) = s.raw("POST", &path, body(200 * 1024)).await;
    assert_eq!(got, 413, "{answer}");
    assert_eq!(answer["error"]["code"], "payload_too_large");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("65536")
    );
    let (got, answer) = s.raw("POST", &path, body(60 * 1024)).await;
    assert_eq!(got, 202, "{answer}");
}

#[tokio::test]
async fn cors_is_off_by_default_and_allows_only_configured_origins() {
    let plain = TestServer::start(Script::new()).await;
    let res = plain
        .http
        .get(format!("{}/v1/contexts", plain.url))
        .header("origin", "http://elsewhere.example")
        .send()
        .await
        .unwrap();
    assert!(res.headers().get("access-control-allow-origin").is_none());

    let mut setup = Setup::new(Script::new());
    setup.app.cors_origins = vec!["http://ui.example".parse().unwrap()];
    let s = TestServer::with(setup).await;
    let preflight = s
        .http
        .request(reqwest::Method::OPTIONS, format!("{}/v1/contexts", s.url))
        .header("origin", "http://ui.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(
        preflight.headers()["access-control-allow-origin"],
        "http://ui.example"
    );
    let other = s
        .http
        .get(format!("{}/v1/contexts", s.url))
        .header("origin", "http://elsewhere.example")
        .send()
        .await
        .unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn workspace_files_are_listed_for_the_picker() {
    let mut s = TestServer::start(Script::new()).await;
    let workspace = s.workspace.display().to_string();
    let id = s
        .context(serde_json::json!({ "workspace": workspace }))
        .await;
    let (code, body) = s
        .call("GET", &format!("/v1/contexts/{id}/files"), None)
        .await;
    assert_eq!(code, 200, "{body}");
    let paths: Vec<&str> = body["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"notes.txt"), "{body}");
    assert_eq!(body["truncated"], false);
    let (_, none) = s
        .call(
            "GET",
            &format!("/v1/contexts/{id}/files?query=nothing-matches"),
            None,
        )
        .await;
    assert!(none["files"].as_array().unwrap().is_empty());
    let (code, _) = s
        .call("GET", &format!("/v1/contexts/{id}/files?limit=many"), None)
        .await;
    assert_eq!(code, 422, "a bad limit names the field");
    let bare = s.context_without_workspace().await;
    let (code, body) = s
        .call("GET", &format!("/v1/contexts/{bare}/files"), None)
        .await;
    assert_eq!(code, 409, "{body}");
    s.stop().await;
}

#[tokio::test]
async fn a_file_change_is_previewed_against_the_file_on_disk() {
    let mut s = TestServer::start(Script::new()).await;
    std::fs::write(
        s.workspace.join("main.rs"),
        "fn main() {}\n\nmod tests {}\n",
    )
    .unwrap();
    let workspace = s.workspace.display().to_string();
    let id = s.context(json!({ "workspace": workspace })).await;
    let preview = format!("/v1/contexts/{id}/files/preview");
    let (code, body) = s
        .call(
            "POST",
            &preview,
            Some(json!({"tool": "write_file", "arguments": {"path": "main.rs", "content": "fn main() {}\n"}})),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["path"], "main.rs");
    assert_eq!(body["change"]["type"], "overwrites");
    assert_eq!(body["change"]["before"], "fn main() {}\n\nmod tests {}\n");
    assert_eq!(body["change"]["before_lines"], 3);
    // Nothing was written.
    assert_eq!(
        std::fs::read_to_string(s.workspace.join("main.rs")).unwrap(),
        "fn main() {}\n\nmod tests {}\n"
    );
    let (code, body) = s
        .call(
            "POST",
            &preview,
            Some(json!({"tool": "run_command", "arguments": {"program": "ls"}})),
        )
        .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["error"]["field"], "tool");
    let (code, body) = s
        .call(
            "POST",
            &preview,
            Some(json!({"tool": "delete_file", "arguments": {"path": "../../etc/passwd"}})),
        )
        .await;
    assert_eq!(code, 422, "a path outside the workspace is refused: {body}");
    let bare = s.context_without_workspace().await;
    let (code, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{bare}/files/preview"),
            Some(json!({"tool": "delete_file", "arguments": {"path": "main.rs"}})),
        )
        .await;
    assert_eq!(code, 409, "{body}");
    s.stop().await;
}

#[tokio::test]
async fn the_context_list_shows_a_streaming_context_as_it_is_now() {
    let hung = StreamReply::new()
        .chunk(braid_testkit::Chunk::Text {
            text: "partial".into(),
        })
        .hang();
    let s = TestServer::start(Script::new().then(hung)).await;
    let id = s.context(json!({})).await;
    let mut events = s.events(&id, "", None).await;
    s.send_text(&id, "go").await;
    events.until(|e| e.event == "content_delta").await;

    let (status, list) = s.call("GET", "/v1/contexts", None).await;
    assert_eq!(status, 200, "{list}");
    let entry = &list["contexts"][0];
    assert_eq!(entry["id"], id.as_str());
    assert_eq!(entry["state"]["type"], "streaming_llm_response", "{entry}");
    assert_eq!(
        entry["message_count"], 2,
        "the question and the answer streaming: {entry}"
    );
    assert!(
        entry.get("token_budget").is_none(),
        "the list does not claim a budget it did not compute: {entry}"
    );

    let (status, _) = s
        .call("POST", &format!("/v1/contexts/{id}/interrupt"), None)
        .await;
    assert_eq!(status, 204);
    s.settle(&id).await;
    let (_, list) = s.call("GET", "/v1/contexts", None).await;
    assert_eq!(list["contexts"][0]["state"]["type"], "idle", "{list}");
}

/// A burst of connections larger than tokio's default listen queue (128) waits for the server
/// instead of being dropped (a dropped handshake costs the client a second before it tries
/// again). The server accepts nothing while they arrive: the test holds the runtime's only
/// thread, so every connection must fit in the queue.
#[tokio::test]
async fn a_burst_of_connections_waits_in_the_listen_queue() {
    let s = TestServer::start(Script::new()).await;
    let addr: std::net::SocketAddr = s.url.trim_start_matches("http://").parse().unwrap();
    // The kernel lowers the queue to `net.core.somaxconn`, and holds one more than its length;
    // the test's own sockets need room under the limit of open files.
    let somaxconn: usize = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(4096);
    let burst = 1_500
        .min(somaxconn + 1)
        .min(open_files_allowed(1_500 + 256).saturating_sub(256));
    let mut held = Vec::with_capacity(burst);
    for i in 0..burst {
        match std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500)) {
            Ok(connection) => held.push(connection),
            Err(e) => panic!("connection {} of {burst} was not queued: {e}", i + 1),
        }
    }
    drop(held);
    let (status, list) = s.call("GET", "/v1/contexts", None).await;
    assert_eq!(status, 200, "the server answers after the burst: {list}");
}

/// Raises this process's limit of open files towards `wanted` (many machines start at 1,024)
/// and answers the limit now in force.
fn open_files_allowed(wanted: usize) -> usize {
    #[cfg(unix)]
    {
        use nix::sys::resource::{Resource, getrlimit, setrlimit};
        let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
            return wanted;
        };
        let raised = soft.max((wanted as u64).min(hard));
        if raised > soft && setrlimit(Resource::RLIMIT_NOFILE, raised, hard).is_err() {
            return usize::try_from(soft).unwrap_or(wanted);
        }
        usize::try_from(raised).unwrap_or(wanted)
    }
    #[cfg(not(unix))]
    {
        wanted
    }
}

#[tokio::test]
async fn search_finds_a_word_of_an_answer_and_names_its_conversation_and_message() {
    let s =
        TestServer::start(Script::new().then(reply(&["The lexer keeps a ", "Zebrafish cursor."])))
            .await;
    let (status, body) = s
        .call(
            "POST",
            "/v1/contexts",
            Some(json!({"title": "Lexer questions"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().unwrap().to_owned();
    s.send_text(&id, "where is the cursor kept?").await;
    s.settle(&id).await;
    let answer = s.messages(&id).await[1]["id"].as_str().unwrap().to_owned();

    let (status, body) = s.call("GET", "/v1/search?q=zebra", None).await;
    assert_eq!(status, 200, "{body}");
    let hits = body["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{body}");
    assert_eq!(hits[0]["context_id"], id.as_str());
    assert_eq!(hits[0]["title"], "Lexer questions");
    assert_eq!(hits[0]["message_id"], answer.as_str());
    assert_eq!(hits[0]["branch"], "main");
    assert_eq!(hits[0]["role"], "assistant");
    assert!(
        hits[0]["snippet"].as_str().unwrap().contains("Zebrafish"),
        "{body}"
    );
    // Both sides of the exchange are searched; every word must be there.
    let (_, body) = s.call("GET", "/v1/search?q=CURSOR", None).await;
    assert_eq!(body["hits"].as_array().unwrap().len(), 2, "{body}");
    let (_, body) = s.call("GET", "/v1/search?q=cursor%20where", None).await;
    assert_eq!(body["hits"].as_array().unwrap().len(), 1, "{body}");

    // A query with no word, or a limit out of bounds, is refused naming the parameter.
    let (status, body) = s.call("GET", "/v1/search?q=%3F%21", None).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "query.q", "{body}");
    let (status, body) = s.call("GET", "/v1/search?q=cursor&limit=0", None).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "query.limit", "{body}");
}

#[tokio::test]
async fn the_model_list_names_the_servers_models_with_their_discovered_figures() {
    let script = Script::new().with_discovery(braid_testkit::DiscoveryReply {
        server: braid_testkit::ServerKind::LlamaCpp,
        model: "mock-model".into(),
        context_window: 16_384,
        vision: true,
        tools: Some(true),
    });
    let s = TestServer::start(script).await;
    let (status, body) = s.call("GET", "/v1/models", None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["default_model"], "mock-model", "{body}");
    assert!(body.get("list_error").is_none(), "{body}");
    let models = body["models"].as_array().unwrap();
    assert_eq!(models.len(), 1, "{body}");
    let model = &models[0];
    assert_eq!(model["model"], "mock-model");
    // The configured override wins over the server's window; vision and tools are the server's.
    assert_eq!(model["context_window"]["value"], 32_768);
    assert_eq!(model["context_window"]["source"], "override");
    assert_eq!(model["vision"]["value"], true);
    assert_eq!(model["vision"]["source"], "server");
    assert_eq!(model["tool_calling"]["value"], "native");
    assert_eq!(model["tool_calling"]["source"], "server");
}

#[tokio::test]
async fn without_a_model_server_the_model_list_says_what_to_set() {
    let mut setup = Setup::new(Script::new());
    setup.with_model = false;
    let s = TestServer::with(setup).await;
    let (status, body) = s.call("GET", "/v1/models", None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["models"], json!([]));
    assert!(
        body["list_error"]
            .as_str()
            .unwrap()
            .contains("BRAID_LLM_BASE_URL"),
        "{body}"
    );
}

#[tokio::test]
async fn a_new_context_works_in_the_servers_default_workspace_and_one_without_says_how_to_set_it() {
    let s = TestServer::start(
        Script::new()
            .then(calls(&[("c1", "read_file", json!({"path": "notes.txt"}))]))
            .then(reply(&["It says hello."]))
            .then(calls(&[("c2", "read_file", json!({"path": "notes.txt"}))]))
            .then(reply(&["No workspace."])),
    )
    .await;
    let root = s.call("GET", "/v1/settings", None).await.1["workspace_roots"][0]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::write(std::path::Path::new(&root).join("notes.txt"), "hello").unwrap();
    let (status, body) = s
        .call(
            "POST",
            "/v1/contexts",
            Some(json!({"config": {"approval_policy": {"type": "auto_all"}}})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["config"]["workspace"], root.as_str());
    let id = body["id"].as_str().unwrap().to_owned();
    s.send_text(&id, "read notes.txt").await;
    s.settle(&id).await;
    let read = s.messages(&id).await;
    let result = read.iter().find(|m| m["kind"] == "tool_result").unwrap();
    assert_eq!(result["data"]["status"], "success", "{result}");
    assert!(
        result["data"]["output"]["content"]
            .as_str()
            .unwrap()
            .contains("hello")
    );

    // Without a workspace, the failure says where to set one.
    let bare = s.context_without_workspace().await;
    s.call(
        "PATCH",
        &format!("/v1/contexts/{bare}"),
        Some(json!({"config": {"approval_policy": {"type": "auto_all"}}})),
    )
    .await;
    s.send_text(&bare, "read notes.txt").await;
    s.settle(&bare).await;
    let failed = s.messages(&bare).await;
    let result = failed.iter().find(|m| m["kind"] == "tool_result").unwrap();
    let text = result.to_string();
    assert!(
        text.contains("Workspace path") && text.contains("--workspace-root"),
        "{text}"
    );
}
