//! The listening stream of a streamable HTTP session comes first: once a session is set up,
//! rmcp opens its standalone GET stream (where the server sends what belongs to no request) on
//! a task of its own, and would let the first requests race it. A server that sends something
//! there while one of those requests runs (a notification, a reply it moved off the request's
//! stream) could find no stream open, or the stream could open only once the request ended.
//! [`ListeningFirst`] holds the session's requests until the server has answered that GET
//! (with a stream or a refusal), for at most [`LISTEN_WAIT`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, ClientRequest, JsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use tokio::sync::watch;

/// How long a request waits for the listening stream before it goes out anyway: a server that
/// never answers the GET must not hold every request back.
pub(crate) const LISTEN_WAIT: Duration = Duration::from_secs(2);

/// Where the session's listening stream is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listening {
    /// No session yet (or a stateless server): there is no listening stream to wait for.
    NotDue,
    /// The session is set up and its GET has not been answered yet.
    Opening,
    /// The server answered the GET (a stream, or a refusal such as 405).
    Answered,
}

/// An HTTP client for rmcp's streamable HTTP transport whose requests wait for the session's
/// listening stream to be answered (see the module's doc).
#[derive(Clone)]
pub(crate) struct ListeningFirst<C> {
    inner: C,
    listening: Arc<watch::Sender<Listening>>,
}

impl<C> ListeningFirst<C> {
    /// Wraps `inner`.
    pub(crate) fn new(inner: C) -> Self {
        Self {
            inner,
            listening: Arc::new(watch::Sender::new(Listening::NotDue)),
        }
    }

    /// Waits, at most [`LISTEN_WAIT`], while the listening stream is being opened.
    async fn wait_for_listening(&self) {
        let mut seen = self.listening.subscribe();
        let opened = seen.wait_for(|state| *state != Listening::Opening);
        if tokio::time::timeout(LISTEN_WAIT, opened).await.is_err() {
            tracing::debug!(
                waited_ms = LISTEN_WAIT.as_millis() as u64,
                "the MCP server has not answered the listening stream's GET; the request goes out"
            );
        }
    }
}

/// What a POST is to the listening stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PostRole {
    /// A request of the session: it waits for the listening stream (the handshake's own
    /// request goes out before there is a session).
    Request,
    /// The `initialized` notification of a session: once it is answered, rmcp opens the
    /// listening stream.
    CompletesHandshake,
    /// Anything else (notifications, answers to the server): sent at once.
    Other,
}

impl PostRole {
    fn of(message: &ClientJsonRpcMessage, in_session: bool) -> Self {
        match message {
            JsonRpcMessage::Request(r)
                if !matches!(r.request, ClientRequest::InitializeRequest(_)) =>
            {
                Self::Request
            }
            JsonRpcMessage::Notification(n)
                if in_session
                    && matches!(
                        n.notification,
                        ClientNotification::InitializedNotification(_)
                    ) =>
            {
                Self::CompletesHandshake
            }
            _ => Self::Other,
        }
    }
}

impl<C> ListeningFirst<C> {
    /// Sends a POST in its place around the listening stream.
    async fn post<T, E>(
        &self,
        role: PostRole,
        send: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        if role == PostRole::Request {
            self.wait_for_listening().await;
        }
        let answer = send.await;
        // Marked before rmcp hears the answer: it opens the stream only after that, and the
        // caller's first request can follow at once.
        if role == PostRole::CompletesHandshake && answer.is_ok() {
            self.listening.send_replace(Listening::Opening);
        }
        answer
    }

    /// Notes that a GET was answered; the listening stream's ends the wait.
    fn got(&self, listening: bool) {
        if listening {
            self.listening.send_if_modified(|state| {
                let was = *state;
                *state = Listening::Answered;
                was == Listening::Opening
            });
        }
    }
}

type Headers = HashMap<HeaderName, HeaderValue>;
type SseStream = futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>;

impl<C> StreamableHttpClient for ListeningFirst<C>
where
    C: StreamableHttpClient + Sync,
{
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let role = PostRole::of(&message, session_id.is_some());
        self.post(
            role,
            self.inner
                .post_message(uri, message, session_id, auth_header, custom_headers),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let role = PostRole::of(&message, session_id.is_some());
        self.post(
            role,
            self.inner.post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            ),
        )
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        let listening = session_id.is_some() && last_event_id.is_none();
        let answer = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        self.got(listening);
        answer
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        let listening = session_id.is_some() && last_event_id.is_none();
        let answer = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.got(listening);
        answer
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;

    /// A server that accepts every POST and answers the listening stream's GET (with a 405)
    /// after `get_delay`, or never; it logs what it was sent, in order.
    #[derive(Clone)]
    struct Server {
        log: Arc<Mutex<Vec<String>>>,
        get_delay: Option<Duration>,
    }

    impl Server {
        fn new(get_delay: Option<Duration>) -> Self {
            Self {
                log: Arc::default(),
                get_delay,
            }
        }

        fn log(&self) -> Vec<String> {
            self.log.lock().unwrap().clone()
        }
    }

    impl StreamableHttpClient for Server {
        type Error = std::io::Error;

        async fn post_message(
            &self,
            _uri: Arc<str>,
            message: ClientJsonRpcMessage,
            _session_id: Option<Arc<str>>,
            _auth_header: Option<String>,
            _custom_headers: Headers,
        ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
            let method = serde_json::to_value(&message).unwrap()["method"].clone();
            self.log.lock().unwrap().push(format!("POST {method}"));
            Ok(StreamableHttpPostResponse::Accepted)
        }

        async fn delete_session(
            &self,
            _uri: Arc<str>,
            _session_id: Arc<str>,
            _auth_header: Option<String>,
            _custom_headers: Headers,
        ) -> Result<(), StreamableHttpError<Self::Error>> {
            Ok(())
        }

        async fn get_stream(
            &self,
            _uri: Arc<str>,
            _session_id: Option<Arc<str>>,
            _last_event_id: Option<String>,
            _auth_header: Option<String>,
            _custom_headers: Headers,
        ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
            match self.get_delay {
                Some(delay) => tokio::time::sleep(delay).await,
                None => std::future::pending().await,
            }
            self.log.lock().unwrap().push("GET answered".to_owned());
            Err(StreamableHttpError::ServerDoesNotSupportSse)
        }
    }

    fn message(value: serde_json::Value) -> ClientJsonRpcMessage {
        serde_json::from_value(value).unwrap()
    }

    fn initialized() -> ClientJsonRpcMessage {
        message(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    }

    fn tool_call() -> ClientJsonRpcMessage {
        message(json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "echo", "arguments": {}}
        }))
    }

    /// Sets up a session (or a stateless one), then starts the listening stream on a task of
    /// its own, as rmcp does, and sends a request at once.
    async fn handshake_then_call(server: &Server, session: Option<&str>) {
        let client = ListeningFirst::new(server.clone());
        let uri: Arc<str> = Arc::from("http://mcp.test/mcp");
        let session: Option<Arc<str>> = session.map(Arc::from);
        client
            .post_message(
                uri.clone(),
                initialized(),
                session.clone(),
                None,
                Headers::new(),
            )
            .await
            .unwrap();
        if session.is_some() {
            let listener = client.clone();
            let (uri, session) = (uri.clone(), session.clone());
            tokio::spawn(async move {
                let _ = listener
                    .get_stream(uri, session, None, None, Headers::new())
                    .await;
            });
        }
        client
            .post_message(uri, tool_call(), session, None, Headers::new())
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_sessions_first_request_waits_until_the_listening_stream_is_answered() {
        let server = Server::new(Some(Duration::from_millis(300)));
        handshake_then_call(&server, Some("s-1")).await;
        assert_eq!(
            server.log(),
            [
                "POST \"notifications/initialized\"",
                "GET answered",
                "POST \"tools/call\""
            ]
        );
    }

    #[tokio::test]
    async fn a_request_goes_out_after_the_wait_when_the_listening_stream_is_never_answered() {
        let server = Server::new(None);
        let started = tokio::time::Instant::now();
        handshake_then_call(&server, Some("s-1")).await;
        assert_eq!(
            server.log(),
            ["POST \"notifications/initialized\"", "POST \"tools/call\""]
        );
        assert!(started.elapsed() >= LISTEN_WAIT);
    }

    #[tokio::test]
    async fn a_stateless_servers_requests_never_wait() {
        let server = Server::new(None);
        let started = tokio::time::Instant::now();
        handshake_then_call(&server, None).await;
        assert_eq!(
            server.log(),
            ["POST \"notifications/initialized\"", "POST \"tools/call\""]
        );
        assert!(started.elapsed() < LISTEN_WAIT / 2);
    }
}
