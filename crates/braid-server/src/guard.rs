//! The request guard: refuses, before any handler runs, the requests a browser did not mean to
//! send (DESIGN.md "Security defaults").
//!
//! - The `Host` header must name the bound address, `localhost`, `127.0.0.1`, `[::1]` (with the
//!   bound port or none) or a host the operator allowed (`--allowed-host`), else 403. A page on
//!   another site that rebinds its DNS name to 127.0.0.1 still sends its own name as `Host`, so
//!   this defeats DNS rebinding.
//! - An `Origin` header must be the server's own origin (the accepted `Host` with the same port)
//!   or a `--cors-origin`, else 403: a page elsewhere cannot drive the API.
//! - A request with a body must say `Content-Type: application/json`, else 415: the "simple"
//!   requests a page may send cross-site without a CORS preflight (`text/plain`, forms) never
//!   reach a handler.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::uri::Authority;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use braid_protocol::ErrorCode;
use braid_protocol::api::ApiError;

use crate::error::ApiFailure;

/// Host names every server accepts (with the bound port or none).
const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// What the guard lets through.
#[derive(Clone, Debug)]
pub struct RequestGuard {
    port: u16,
    /// Lower-case host names accepted with the bound port or without a port.
    hosts: Vec<String>,
    /// Lower-case `host:port` pairs the operator allowed with an explicit port.
    host_ports: Vec<(String, u16)>,
    /// Lower-case origins allowed besides the server's own (`--cors-origin`).
    origins: Vec<String>,
}

/// A host in `--allowed-host` / `BRAID_ALLOWED_HOSTS` that cannot be a `Host` header.
#[derive(Debug, thiserror::Error)]
#[error(
    "invalid allowed host `{0}`: give a host name or address, optionally with a port (`braid.example.com`, `10.0.0.5:8787`)"
)]
pub struct InvalidAllowedHost(pub String);

impl RequestGuard {
    /// The guard of a server bound to `bound`, accepting also `allowed_hosts` (`name` or
    /// `name:port`) and the origins `cors_origins`.
    pub fn new(
        bound: SocketAddr,
        allowed_hosts: &[String],
        cors_origins: &[String],
    ) -> Result<Self, InvalidAllowedHost> {
        let mut hosts: Vec<String> = LOOPBACK_NAMES.iter().map(|h| (*h).to_owned()).collect();
        if !bound.ip().is_unspecified() {
            hosts.push(host_text(bound.ip()));
        }
        let mut host_ports = Vec::new();
        for given in allowed_hosts {
            let trimmed = given.trim();
            let authority: Authority = trimmed
                .parse()
                .map_err(|_| InvalidAllowedHost(given.clone()))?;
            if trimmed.contains('@') || trimmed.contains('/') || authority.host().is_empty() {
                return Err(InvalidAllowedHost(given.clone()));
            }
            let host = normal_host(authority.host());
            match authority.port_u16() {
                Some(port) => host_ports.push((host, port)),
                None => hosts.push(host),
            }
        }
        Ok(Self {
            port: bound.port(),
            hosts,
            host_ports,
            origins: cors_origins
                .iter()
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
                .collect(),
        })
    }

    /// Checks a request's headers; the refusal says which header is wrong and which setting
    /// would allow it.
    pub fn check(
        &self,
        headers: &HeaderMap,
        uri_authority: Option<&Authority>,
    ) -> Result<(), ApiFailure> {
        let host = self.check_host(headers, uri_authority)?;
        self.check_origin(headers, &host)?;
        check_content_type(headers)
    }

    fn check_host(
        &self,
        headers: &HeaderMap,
        uri_authority: Option<&Authority>,
    ) -> Result<Authority, ApiFailure> {
        let given = match headers.get(header::HOST) {
            Some(value) => value
                .to_str()
                .ok()
                .and_then(|v| v.parse::<Authority>().ok()),
            None => uri_authority.cloned(),
        };
        let Some(authority) = given else {
            return Err(refused(
                "headers.host",
                "the request has no valid Host header".to_owned(),
            ));
        };
        let host = normal_host(authority.host());
        let port = authority.port_u16();
        let named = self.hosts.contains(&host) && port.is_none_or(|p| p == self.port);
        let listed =
            port.is_some_and(|p| self.host_ports.iter().any(|(h, hp)| *h == host && *hp == p));
        if named || listed {
            Ok(authority)
        } else {
            tracing::warn!(host = %authority, "request with a foreign Host refused");
            Err(refused(
                "headers.host",
                format!(
                    "the Host `{authority}` is not this server's: use http://127.0.0.1:{port} or http://localhost:{port}, \
                     or start braid serve with --allowed-host (BRAID_ALLOWED_HOSTS) naming it",
                    port = self.port
                ),
            ))
        }
    }

    fn check_origin(&self, headers: &HeaderMap, host: &Authority) -> Result<(), ApiFailure> {
        let Some(value) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let text = value.to_str().unwrap_or_default();
        let origin = text.trim_end_matches('/').to_ascii_lowercase();
        if self.origins.contains(&origin) || same_origin(&origin, host) {
            return Ok(());
        }
        tracing::warn!(origin = %text, "request with a foreign Origin refused");
        Err(refused(
            "headers.origin",
            format!(
                "the Origin `{text}` is not this server's own ({host}); start braid serve with --cors-origin {text} to allow it"
            ),
        ))
    }
}

/// Whether `origin` (`scheme://host[:port]`, lower case) is the origin of the server reached
/// under `host`: the same host and the same port (an absent port is the scheme's default).
fn same_origin(origin: &str, host: &Authority) -> bool {
    let (default_port, rest) = if let Some(rest) = origin.strip_prefix("http://") {
        (80, rest)
    } else if let Some(rest) = origin.strip_prefix("https://") {
        (443, rest)
    } else {
        return false;
    };
    let Ok(origin_authority) = rest.parse::<Authority>() else {
        return false;
    };
    if rest.contains('/') || rest.contains('@') {
        return false;
    }
    normal_host(origin_authority.host()) == normal_host(host.host())
        && origin_authority.port_u16().unwrap_or(default_port)
            == host.port_u16().unwrap_or(default_port)
}

/// Refuses a request with a body that is not JSON.
fn check_content_type(headers: &HeaderMap) -> Result<(), ApiFailure> {
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let has_body = length.is_some_and(|n| n > 0)
        || (length.is_none() && headers.contains_key(header::TRANSFER_ENCODING));
    if !has_body {
        return Ok(());
    }
    let given = headers
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("(not text)"));
    let essence = given
        .and_then(|v| v.split(';').next())
        .map(str::trim)
        .unwrap_or_default();
    if essence.eq_ignore_ascii_case("application/json") {
        return Ok(());
    }
    Err(ApiFailure {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        body: ApiError::new(
            ErrorCode::UnsupportedMediaType,
            match given {
                Some(v) => format!(
                    "request bodies must be JSON: send `Content-Type: application/json`, not `{v}`"
                ),
                None => {
                    "request bodies must be JSON: send `Content-Type: application/json`".to_owned()
                }
            },
            Some("headers.content-type".to_owned()),
        ),
    })
}

fn refused(field: &str, message: String) -> ApiFailure {
    ApiFailure::new(ErrorCode::Forbidden, message, Some(field.to_owned()))
}

/// A host in the form a `Host` header gives it (IPv6 in brackets).
fn host_text(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

/// Lower case, without the trailing dot of a fully qualified name.
fn normal_host(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// The middleware: runs [`RequestGuard::check`] on every request, API and web UI alike.
pub async fn guard(State(guard): State<Arc<RequestGuard>>, req: Request, next: Next) -> Response {
    // Liveness answers nothing worth reading and has no body; probes (containers, load
    // balancers) reach it under whatever address they know.
    if req.uri().path() == "/health" && req.method() == axum::http::Method::GET {
        return next.run(req).await;
    }
    match guard.check(req.headers(), req.uri().authority()) {
        Ok(()) => next.run(req).await,
        Err(failure) => failure.into_response(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn guard() -> RequestGuard {
        RequestGuard::new(
            "127.0.0.1:8787".parse().unwrap(),
            &[
                "braid.example.com".to_owned(),
                "proxy.example:8443".to_owned(),
            ],
            &["https://app.example".to_owned()],
        )
        .unwrap()
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(
                header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        map
    }

    fn status(pairs: &[(&str, &str)]) -> Option<u16> {
        guard()
            .check(&headers(pairs), None)
            .err()
            .map(|f| f.status.as_u16())
    }

    #[test]
    fn loopback_names_pass_with_the_bound_port_or_none() {
        for host in [
            "127.0.0.1:8787",
            "localhost:8787",
            "LOCALHOST",
            "[::1]:8787",
            "localhost.",
        ] {
            assert_eq!(status(&[("host", host)]), None, "{host}");
        }
    }

    #[test]
    fn foreign_hosts_and_other_ports_are_forbidden() {
        for host in [
            "attacker.example",
            "attacker.example:8787",
            "localhost:9999",
            "127.0.0.2:8787",
        ] {
            assert_eq!(status(&[("host", host)]), Some(403), "{host}");
        }
        assert_eq!(status(&[]), Some(403));
    }

    #[test]
    fn operator_listed_hosts_pass() {
        assert_eq!(status(&[("host", "braid.example.com")]), None);
        assert_eq!(status(&[("host", "braid.example.com:8787")]), None);
        assert_eq!(status(&[("host", "proxy.example:8443")]), None);
        assert_eq!(status(&[("host", "proxy.example")]), Some(403));
    }

    #[test]
    fn origin_must_be_the_servers_own_or_listed() {
        let host = ("host", "localhost:8787");
        assert_eq!(status(&[host, ("origin", "http://localhost:8787")]), None);
        assert_eq!(status(&[host, ("origin", "https://app.example")]), None);
        assert_eq!(
            status(&[host, ("origin", "http://127.0.0.1:8787")]),
            Some(403)
        );
        assert_eq!(
            status(&[host, ("origin", "http://localhost:3000")]),
            Some(403)
        );
        assert_eq!(status(&[host, ("origin", "null")]), Some(403));
        assert_eq!(
            status(&[
                ("host", "braid.example.com"),
                ("origin", "https://braid.example.com")
            ]),
            None
        );
    }

    #[test]
    fn bodies_must_be_json() {
        let host = ("host", "127.0.0.1:8787");
        assert_eq!(
            status(&[
                host,
                ("content-length", "2"),
                ("content-type", "text/plain")
            ]),
            Some(415)
        );
        assert_eq!(status(&[host, ("content-length", "2")]), Some(415));
        assert_eq!(status(&[host, ("transfer-encoding", "chunked")]), Some(415));
        assert_eq!(
            status(&[
                host,
                ("content-length", "2"),
                ("content-type", "application/json; charset=utf-8")
            ]),
            None
        );
        assert_eq!(
            status(&[
                host,
                ("content-length", "0"),
                ("content-type", "text/plain")
            ]),
            None
        );
    }

    #[test]
    fn bad_allowed_hosts_are_refused() {
        let bound = "127.0.0.1:1".parse().unwrap();
        assert!(RequestGuard::new(bound, &["http://x/".to_owned()], &[]).is_err());
        assert!(RequestGuard::new(bound, &["a b".to_owned()], &[]).is_err());
    }
}
