//! The security defaults over real HTTP (DESIGN.md "Security defaults"): requests a browser did
//! not mean to send are refused before any handler runs, and workspaces lie only where the
//! operator allows them.

use crate::common;

use braid_testkit::Script;
use common::TestServer;
use serde_json::{Value, json};

/// Sends a request with exactly these headers (plus the ones reqwest adds); answers the status
/// and the JSON body.
async fn send(
    s: &TestServer,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: Option<&str>,
) -> (u16, Value) {
    let mut r = s
        .http
        .request(method.parse().unwrap(), format!("{}{path}", s.url));
    for (name, value) in headers {
        r = r.header(*name, value);
    }
    if let Some(body) = body {
        r = r.body(body.to_owned());
    }
    let res = r.send().await.unwrap();
    let status = res.status().as_u16();
    let text = res.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn port(s: &TestServer) -> u16 {
    s.url.rsplit(':').next().unwrap().parse().unwrap()
}

fn create_body(s: &TestServer) -> String {
    json!({"title": "t", "config": {"workspace": s.workspace.display().to_string()}}).to_string()
}

#[tokio::test]
async fn a_foreign_host_is_forbidden_before_any_handler_runs() {
    let s = TestServer::start(Script::new()).await;
    let json_type = ("content-type", "application/json".to_owned());
    for host in ["attacker.example", "attacker.example:80", "localhost:1"] {
        let (status, body) = send(
            &s,
            "POST",
            "/v1/contexts",
            &[("host", host.to_owned()), json_type.clone()],
            Some(&create_body(&s)),
        )
        .await;
        assert_eq!(status, 403, "{host}: {body}");
        assert_eq!(body["error"]["code"], "forbidden");
        assert_eq!(body["error"]["field"], "headers.host");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("--allowed-host")
        );
    }
    // Reads too (DNS rebinding lets a page read answers), and the web UI.
    for path in ["/v1/contexts", "/", "/openapi.json", "/metrics"] {
        let (status, _) = send(
            &s,
            "GET",
            path,
            &[("host", "attacker.example".into())],
            None,
        )
        .await;
        assert_eq!(status, 403, "{path}");
    }
    // Liveness probes reach /health under any address; it tells nothing else.
    let (status, _) = send(
        &s,
        "GET",
        "/health",
        &[("host", "10.1.2.3:8787".into())],
        None,
    )
    .await;
    assert_eq!(status, 200);
    let (_, list) = send(&s, "GET", "/v1/contexts", &[], None).await;
    assert_eq!(list["contexts"].as_array().unwrap().len(), 0, "{list}");
}

#[tokio::test]
async fn an_operator_listed_host_is_accepted() {
    let mut setup = common::Setup::new(Script::new());
    setup.app.allowed_hosts = vec!["braid.example.com".into()];
    let s = TestServer::with(setup).await;
    let (status, body) = send(
        &s,
        "GET",
        "/v1/contexts",
        &[
            ("host", "braid.example.com".into()),
            ("origin", "https://braid.example.com".into()),
        ],
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_foreign_origin_is_forbidden() {
    let s = TestServer::start(Script::new()).await;
    let host = format!("127.0.0.1:{}", port(&s));
    for origin in [
        "http://attacker.example",
        "null",
        &format!("http://localhost:{}", port(&s)),
    ] {
        let (status, body) = send(
            &s,
            "POST",
            "/v1/contexts",
            &[
                ("host", host.clone()),
                ("origin", origin.to_owned()),
                ("content-type", "application/json".into()),
            ],
            Some(&create_body(&s)),
        )
        .await;
        assert_eq!(status, 403, "{origin}: {body}");
        assert_eq!(body["error"]["field"], "headers.origin");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("--cors-origin")
        );
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_is_unsupported() {
    let s = TestServer::start(Script::new()).await;
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let headers: Vec<(&str, String)> = content_type
            .map(|t| vec![("content-type", t.to_owned())])
            .unwrap_or_default();
        let (status, body) =
            send(&s, "POST", "/v1/contexts", &headers, Some(&create_body(&s))).await;
        assert_eq!(status, 415, "{content_type:?}: {body}");
        assert_eq!(body["error"]["code"], "unsupported_media_type");
        assert_eq!(body["error"]["field"], "headers.content-type");
    }
    let (_, list) = send(&s, "GET", "/v1/contexts", &[], None).await;
    assert_eq!(list["contexts"].as_array().unwrap().len(), 0, "{list}");
    // JSON with a charset passes.
    let (status, body) = send(
        &s,
        "POST",
        "/v1/contexts",
        &[("content-type", "application/json; charset=utf-8".into())],
        Some(&create_body(&s)),
    )
    .await;
    assert_eq!(status, 201, "{body}");
}

#[tokio::test]
async fn the_uis_own_requests_pass_from_127_0_0_1_and_localhost_sse_included() {
    let s = TestServer::start(Script::new()).await;
    let port = port(&s);
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
        let same_origin = vec![("host", host.clone()), ("origin", format!("http://{host}"))];
        let mut with_json = same_origin.clone();
        with_json.push(("content-type", "application/json".into()));
        let (status, created) = send(
            &s,
            "POST",
            "/v1/contexts",
            &with_json,
            Some(&create_body(&s)),
        )
        .await;
        assert_eq!(status, 201, "{host}: {created}");
        let id = created["id"].as_str().unwrap();
        // A POST without a body needs no content type.
        let (status, body) = send(
            &s,
            "POST",
            &format!("/v1/contexts/{id}/interrupt"),
            &same_origin,
            None,
        )
        .await;
        assert!(status < 400 || status == 409, "{host}: {status} {body}");
        let (status, _) = send(&s, "GET", "/v1/contexts", &same_origin, None).await;
        assert_eq!(status, 200);
        // The event stream (EventSource sends no Origin on same-origin GETs, fetch may).
        let mut r = s.http.get(format!("{}/v1/contexts/{id}/events", s.url));
        for (name, value) in &same_origin {
            r = r.header(*name, value);
        }
        let res = r.send().await.unwrap();
        assert_eq!(res.status().as_u16(), 200, "{host}");
        assert!(
            res.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        drop(res);
        // The web UI (a missing build answers its explanation page, still 200).
        let (status, _) = send(&s, "GET", "/", &same_origin[..1], None).await;
        assert_eq!(status, 200, "{host}");
    }
}

/// Creates a context on `workspace`; answers the status and body.
async fn create_on(s: &TestServer, workspace: &str) -> (u16, Value) {
    s.call(
        "POST",
        "/v1/contexts",
        Some(json!({"title": "t", "config": {"workspace": workspace}})),
    )
    .await
}

fn assert_workspace_refused(status: u16, body: &Value, why: &str) {
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "config.workspace", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains(why), "{message}");
}

#[tokio::test]
async fn workspaces_outside_the_roots_are_refused_naming_config_workspace() {
    let s = TestServer::start(Script::new()).await;
    let outside = tempfile::tempdir().unwrap();
    let data = s.dir.path().join("data");
    std::fs::create_dir_all(data.join("sub")).unwrap();
    let link = s.dir.path().join("escape");
    std::os::unix::fs::symlink(outside.path(), &link).unwrap();
    let cases = [
        ("/".to_owned(), "file system root"),
        ("/proc".to_owned(), "system directory"),
        ("/proc/self".to_owned(), "system directory"),
        (outside.path().display().to_string(), "--workspace-root"),
        (link.display().to_string(), "resolves to"),
        (data.display().to_string(), "data directory"),
        (data.join("sub").display().to_string(), "data directory"),
    ];
    for (workspace, why) in &cases {
        let (status, body) = create_on(&s, workspace).await;
        assert_workspace_refused(status, &body, why);
    }
    let (_, list) = s.call("GET", "/v1/contexts", None).await;
    assert_eq!(list["contexts"].as_array().unwrap().len(), 0, "{list}");

    // PATCH is held to the same rule; the stored workspace stays.
    let id = s.context(json!({})).await;
    for (workspace, why) in &cases {
        let (status, body) = s
            .call(
                "PATCH",
                &format!("/v1/contexts/{id}"),
                Some(json!({"config": {"workspace": workspace}})),
            )
            .await;
        assert_workspace_refused(status, &body, why);
    }
    let (_, summary) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    assert_eq!(
        summary["config"]["workspace"],
        s.workspace.display().to_string()
    );
    // A directory inside the root is fine.
    let inner = s.workspace.join("inner");
    std::fs::create_dir(&inner).unwrap();
    let (status, body) = create_on(&s, &inner.display().to_string()).await;
    assert_eq!(status, 201, "{body}");
}

#[tokio::test]
async fn the_allowed_roots_are_shown_to_the_ui() {
    let s = TestServer::start(Script::new()).await;
    let (status, body) = s.call("GET", "/v1/settings", None).await;
    assert_eq!(status, 200, "{body}");
    let roots = body["workspace_roots"].as_array().unwrap();
    assert_eq!(roots.len(), 1);
    assert_eq!(
        roots[0],
        s.dir.path().canonicalize().unwrap().display().to_string()
    );
}

/// A command the policy approves runs, through `braid serve`, in the server's default sandbox
/// (`workspace_write`): it cannot create a file beside the workspace, and its result names the
/// rule that refused it.
#[tokio::test]
async fn an_approved_command_runs_in_the_sandbox() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().canonicalize().unwrap().join("planted");
    let script = Script::new()
        .then(common::calls(&[(
            "c1",
            "run_command",
            json!({"program": "touch", "args": [target.display().to_string()]}),
        )]))
        .then(common::reply(&["done"]));
    let s = TestServer::start(script).await;
    let id = s
        .context(json!({"approval_policy": {"type": "auto_all"}}))
        .await;
    s.send_text(&id, "plant a file").await;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    let expected = format!(
        "denied by the sandbox: write outside the workspace: {}",
        target.display()
    );
    loop {
        let messages = serde_json::to_string(&s.messages(&id).await).unwrap();
        if messages.contains(&expected) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no sandbox denial in {messages}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(!target.exists(), "the command wrote outside the workspace");
}
