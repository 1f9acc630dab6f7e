//! The web UI: its built files (`web/dist`) served at `/`, with `index.html` for the UI's own
//! routes (`/contexts/{id}`...) so a reload or a shared link opens the right page. When the
//! files are missing, a page says how to build them.

use std::path::Path;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tower_http::services::{ServeDir, ServeFile};

/// The UI's files, or the instructions to build them.
#[derive(Clone)]
pub struct WebUi {
    files: Option<ServeDir<ServeFile>>,
    dir: String,
}

impl WebUi {
    /// The UI built into `dir`; when `dir/index.html` is missing, the build instructions.
    pub fn new(dir: &Path) -> Self {
        let index = dir.join("index.html");
        let files = index
            .is_file()
            .then(|| ServeDir::new(dir).fallback(ServeFile::new(index)));
        if files.is_none() {
            tracing::warn!(dir = %dir.display(), "web UI not built: `/` explains how to build it");
        }
        Self {
            files,
            dir: dir.display().to_string(),
        }
    }

    /// Answers a GET for a UI path.
    pub async fn serve(&self, req: Request) -> Response {
        let Some(files) = &self.files else {
            return self.missing();
        };
        match files.clone().try_call(req).await {
            Ok(response) => response.map(Body::new),
            Err(error) => {
                tracing::error!(%error, "web UI file not served");
                StatusCode::INTERNAL_SERVER_ERROR.into_response()
            }
        }
    }

    fn missing(&self) -> Response {
        let page = format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Braid</title></head>\
             <body style=\"font-family:sans-serif;max-width:40em;margin:3em auto\">\
             <h1>Braid is running</h1>\
             <p>The API answers under <code>/v1</code> (see <a href=\"/openapi.json\">/openapi.json</a>), \
             but the web UI has not been built: <code>{}/index.html</code> is missing.</p>\
             <p>Build it with:</p><pre>cd web\nnpm ci\nnpm run build</pre>\
             <p>or run <code>make run</code>, which builds it and starts the server. \
             Then reload this page.</p></body></html>",
            html_escape(&self.dir)
        );
        let mut response = (StatusCode::OK, page).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        response
    }
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
