//! DPoP (RFC 9449): access tokens bound to a key Braid holds, for servers that require them.
//!
//! rmcp has no DPoP, so it is built here behind rmcp's own interfaces: [`DpopOAuthHttp`] is the
//! [`OAuthHttpClient`] of the authorization (it adds a proof to every token request and
//! answers a `use_dpop_nonce` error by asking again with the nonce), and [`TokenHttp`] is the
//! [`StreamableHttpClient`] under rmcp's [`AuthClient`](rmcp::transport::auth::AuthClient)
//! (it presents the token with the `DPoP` scheme and a fresh proof on every request). One
//! [`DpopKey`], an ES256 key made for the server's session, signs every proof.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::{HeaderName, HeaderValue};
use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRedirectPolicy, OAuthHttpRequest,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use serde_json::json;

/// The `DPoP` request header carrying a proof, and the header a server's nonce comes in.
const DPOP: &str = "dpop";
const DPOP_NONCE: &str = "dpop-nonce";

/// The OAuth error (token endpoint) and challenge (resource server) asking for a nonce.
const USE_DPOP_NONCE: &str = "use_dpop_nonce";

/// The longest OAuth response body read (metadata, registration and token responses are small).
pub(crate) const MAX_OAUTH_RESPONSE_BYTES: usize = 1024 * 1024;

/// How long one OAuth request may take when rmcp suggests no limit.
const OAUTH_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest nonce kept: a server sending more is not sending a nonce.
const MAX_NONCE_BYTES: usize = 1024;

/// Why a DPoP proof could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DpopError {
    /// The system's random source or the signer failed.
    #[error("cannot make a DPoP key or proof: {0}")]
    Crypto(String),
    /// The URL the proof is for cannot be used as its `htu`.
    #[error("cannot make a DPoP proof for `{url}`: {reason}")]
    Url {
        /// The request URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// The key DPoP proofs of one server are signed with (ES256, made when Braid first authorizes
/// the server and kept for the session's tokens), and the last nonce each server gave.
pub struct DpopKey {
    pair: EcdsaKeyPair,
    jwk: serde_json::Value,
    rng: SystemRandom,
    /// The last nonce of the authorization server and of the resource server, by origin.
    nonces: Mutex<HashMap<String, String>>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("jwk", &self.jwk)
            .finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A fresh P-256 key.
    pub fn generate() -> Result<Self, DpopError> {
        let pair = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING)
            .map_err(|e| DpopError::Crypto(e.to_string()))?;
        // An uncompressed point: 0x04, then x and y of 32 bytes each.
        let point = pair.public_key().as_ref();
        if point.len() != 65 || point[0] != 4 {
            return Err(DpopError::Crypto(format!(
                "unexpected public key encoding ({} bytes)",
                point.len()
            )));
        }
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        Ok(Self {
            pair,
            jwk,
            rng: SystemRandom::new(),
            nonces: Mutex::default(),
        })
    }

    /// The public key as a JWK (what a proof's header carries).
    pub fn jwk(&self) -> &serde_json::Value {
        &self.jwk
    }

    /// A proof for one `method` request to `url`: bound to `access_token` when one is sent
    /// (`ath`), with the nonce the server last gave, if any.
    pub fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<String, DpopError> {
        let htu = target_uri(url)?;
        let nonce = self.nonce_for(url);
        let iat = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let header = json!({ "typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk });
        let mut claims = json!({
            "jti": uuid::Uuid::new_v4().to_string(),
            "htm": method,
            "htu": htu,
            "iat": iat,
        });
        if let Some(token) = access_token {
            let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, token.as_bytes());
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(digest.as_ref()));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&self.rng, signing_input.as_bytes())
            .map_err(|e| DpopError::Crypto(e.to_string()))?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }

    /// Keeps the nonce a server at `url` gave, for the next proofs to it.
    fn remember_nonce(&self, url: &str, nonce: &str) {
        if nonce.is_empty() || nonce.len() > MAX_NONCE_BYTES {
            return;
        }
        if let Some(origin) = origin(url) {
            self.nonces
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(origin, nonce.to_string());
        }
    }

    fn nonce_for(&self, url: &str) -> Option<String> {
        let origin = origin(url)?;
        self.nonces
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&origin)
            .cloned()
    }
}

/// A proof's `htu`: the request URL without its query and fragment (RFC 9449 §4.2).
fn target_uri(url: &str) -> Result<String, DpopError> {
    let mut parsed = url::Url::parse(url).map_err(|e| DpopError::Url {
        url: url.to_string(),
        reason: e.to_string(),
    })?;
    parsed.set_query(None);
    parsed.set_fragment(None);
    Ok(parsed.to_string())
}

/// Nonces are per server: the scheme, host and port of its URL.
fn origin(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .map(|u| u.origin().ascii_serialization())
}

/// Whether a challenge or error body asks for a DPoP nonce.
fn asks_for_nonce(text: &str) -> bool {
    text.contains(USE_DPOP_NONCE)
}

/// Whether a `WWW-Authenticate` challenge names the DPoP scheme (the server wants DPoP-bound
/// tokens).
pub fn challenge_wants_dpop(www_authenticate: &str) -> bool {
    www_authenticate
        .split(',')
        .flat_map(|part| part.split_whitespace().next())
        .any(|scheme| scheme.eq_ignore_ascii_case("DPoP"))
}

/// The OAuth HTTP client of a DPoP authorization: every token request carries a proof, and a
/// `use_dpop_nonce` answer is retried once with the nonce the authorization server gave.
pub struct DpopOAuthHttp {
    key: Arc<DpopKey>,
    follow: reqwest::Client,
    stop: reqwest::Client,
}

impl DpopOAuthHttp {
    /// A client signing with `key`.
    pub fn new(key: Arc<DpopKey>) -> Result<Self, String> {
        let build = |policy| {
            reqwest::Client::builder()
                .redirect(policy)
                .build()
                .map_err(|e| format!("cannot build the OAuth HTTP client: {e}"))
        };
        Ok(Self {
            key,
            follow: build(reqwest::redirect::Policy::limited(10))?,
            stop: build(reqwest::redirect::Policy::none())?,
        })
    }

    async fn send(
        &self,
        request: &http::Request<Vec<u8>>,
        policy: OAuthHttpRedirectPolicy,
        timeout: Duration,
        proof: Option<String>,
    ) -> Result<http::Response<Vec<u8>>, String> {
        let client = match policy {
            OAuthHttpRedirectPolicy::Stop => &self.stop,
            _ => &self.follow,
        };
        let mut builder = client
            .request(request.method().clone(), request.uri().to_string())
            .headers(request.headers().clone())
            .body(request.body().clone())
            .timeout(timeout);
        if let Some(proof) = proof {
            builder = builder.header(DPOP, proof);
        }
        let response = builder
            .send()
            .await
            .map_err(|e| format!("OAuth request to {} failed: {e}", request.uri()))?;
        let mut answer = http::Response::builder().status(response.status());
        for (name, value) in response.headers() {
            answer = answer.header(name, value);
        }
        let uri = request.uri().to_string();
        let body = bounded_body(response, MAX_OAUTH_RESPONSE_BYTES, &uri).await?;
        answer
            .body(body)
            .map_err(|e| format!("unusable OAuth response: {e}"))
    }
}

/// The body of an OAuth response from `url`, refused past `limit` bytes.
pub(crate) async fn bounded_body(
    mut response: reqwest::Response,
    limit: usize,
    url: &str,
) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("the OAuth response from {url} failed: {e}"))?
    {
        if body.len() + chunk.len() > limit {
            return Err(format!(
                "the OAuth response from {url} is larger than {limit} bytes"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Whether a request is a token request (the only OAuth requests that carry a proof).
fn is_token_request(request: &http::Request<Vec<u8>>) -> bool {
    request.method() == http::Method::POST
        && url::form_urlencoded::parse(request.body()).any(|(key, _)| key == "grant_type")
}

impl OAuthHttpClient for DpopOAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let policy = request.redirect_policy;
            let timeout = request.timeout.unwrap_or(OAUTH_TIMEOUT);
            let request = request.request;
            if !is_token_request(&request) {
                return Ok(self.send(&request, policy, timeout, None).await?);
            }
            let url = request.uri().to_string();
            let mut retried = false;
            loop {
                let proof = self.key.proof("POST", &url, None).map_err(Box::new)?;
                let response = self.send(&request, policy, timeout, Some(proof)).await?;
                let nonce = response
                    .headers()
                    .get(DPOP_NONCE)
                    .and_then(|v| v.to_str().ok());
                if let Some(nonce) = nonce {
                    self.key.remember_nonce(&url, nonce);
                }
                let wants_nonce = response.status() == http::StatusCode::BAD_REQUEST
                    && nonce.is_some()
                    && asks_for_nonce(&String::from_utf8_lossy(response.body()));
                if wants_nonce && !retried {
                    tracing::debug!(url = %url, "token endpoint asked for a DPoP nonce; asking again");
                    retried = true;
                    continue;
                }
                return Ok(response);
            }
        })
    }
}

type Headers = HashMap<HeaderName, HeaderValue>;
type SseStream = futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>;

/// The streamable HTTP client under rmcp's `AuthClient`: without a key the access token goes
/// out as a bearer token; with one (a DPoP-bound session) as `Authorization: DPoP <token>`
/// with a fresh proof, never as a bearer.
#[derive(Clone)]
pub struct TokenHttp {
    inner: reqwest::Client,
    key: Option<Arc<DpopKey>>,
}

impl TokenHttp {
    /// A client over `inner`, binding its tokens to `key` when there is one.
    pub fn new(inner: reqwest::Client, key: Option<Arc<DpopKey>>) -> Self {
        Self { inner, key }
    }

    /// The bearer token to hand to the inner client: none when the token is DPoP-bound (it
    /// goes in the headers [`Self::bind`] adds).
    fn bearer(&self, token: Option<String>) -> Option<String> {
        if self.key.is_some() { None } else { token }
    }

    /// `headers` plus the token and a proof for one `method` request to `uri`.
    fn bind(
        &self,
        method: &str,
        uri: &str,
        token: Option<&str>,
        mut headers: Headers,
    ) -> Result<Headers, StreamableHttpError<reqwest::Error>> {
        let (Some(token), Some(key)) = (token, &self.key) else {
            return Ok(headers);
        };
        let unusable = |what: &str, e: &dyn std::fmt::Display| {
            StreamableHttpError::UnexpectedServerResponse(format!("{what}: {e}").into())
        };
        let proof = key
            .proof(method, uri, Some(token))
            .map_err(|e| unusable("DPoP proof", &e))?;
        headers.insert(
            http::header::AUTHORIZATION,
            HeaderValue::from_str(&format!("DPoP {token}"))
                .map_err(|e| unusable("access token", &e))?,
        );
        headers.insert(
            HeaderName::from_static(DPOP),
            HeaderValue::from_str(&proof).map_err(|e| unusable("DPoP proof", &e))?,
        );
        Ok(headers)
    }

    /// Learns the nonce a resource server's `use_dpop_nonce` refusal of a POST carried.
    ///
    /// rmcp's reqwest transport turns a 401 into [`AuthRequiredError`] with the
    /// `WWW-Authenticate` header only, dropping the `DPoP-Nonce` header the nonce is in, so
    /// Braid sends the refused request again itself (it was refused before any processing,
    /// and is refused again the same way) and reads the nonce from that answer.
    async fn learn_nonce(
        &self,
        uri: &str,
        message: &rmcp::model::ClientJsonRpcMessage,
        session_id: Option<&str>,
        headers: &Headers,
    ) -> Result<bool, StreamableHttpError<reqwest::Error>> {
        let mut request = self
            .inner
            .post(uri)
            .header(http::header::ACCEPT, "application/json, text/event-stream")
            .json(message);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if let Some(session) = session_id {
            request = request.header("mcp-session-id", session);
        }
        let response = request.send().await?;
        if response.status() != http::StatusCode::UNAUTHORIZED {
            return Err(StreamableHttpError::UnexpectedServerResponse(
                format!(
                    "the server asked for a DPoP nonce, then answered {} to the same request without one",
                    response.status()
                )
                .into(),
            ));
        }
        match response
            .headers()
            .get(DPOP_NONCE)
            .and_then(|v| v.to_str().ok())
        {
            Some(nonce) => {
                if let Some(key) = &self.key {
                    key.remember_nonce(uri, nonce);
                }
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

impl StreamableHttpClient for TokenHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: rmcp::model::ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.post_message_with_max_sse_event_size(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            crate::MAX_MESSAGE_BYTES,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: rmcp::model::ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let token = auth_header.as_deref();
        let headers = self.bind("POST", &uri, token, custom_headers.clone())?;
        let first = self
            .inner
            .post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                self.bearer(auth_header.clone()),
                headers,
                max_sse_event_size,
            )
            .await;
        match first {
            Err(StreamableHttpError::AuthRequired(AuthRequiredError {
                www_authenticate_header,
                ..
            })) if token.is_some()
                && self.key.is_some()
                && asks_for_nonce(&www_authenticate_header) =>
            {
                let probe = self.bind("POST", &uri, token, custom_headers.clone())?;
                if !self
                    .learn_nonce(&uri, &message, session_id.as_deref(), &probe)
                    .await?
                {
                    return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                        www_authenticate_header,
                    )));
                }
                tracing::debug!(url = %uri, "server asked for a DPoP nonce; asking again");
                let headers = self.bind("POST", &uri, token, custom_headers)?;
                self.inner
                    .post_message_with_max_sse_event_size(
                        uri,
                        message,
                        session_id,
                        None,
                        headers,
                        max_sse_event_size,
                    )
                    .await
            }
            other => other,
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let headers = self.bind("DELETE", &uri, auth_header.as_deref(), custom_headers)?;
        self.inner
            .delete_session(uri, session_id, self.bearer(auth_header), headers)
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
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            crate::MAX_MESSAGE_BYTES,
        )
        .await
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
        let headers = self.bind("GET", &uri, auth_header.as_deref(), custom_headers)?;
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                self.bearer(auth_header),
                headers,
                max_sse_event_size,
            )
            .await
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    fn part(jwt: &str, index: usize) -> serde_json::Value {
        let text = jwt.split('.').nth(index).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(text).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_is_signed_by_the_key_in_its_header_and_bound_to_the_token() {
        let key = DpopKey::generate().unwrap();
        let proof = key
            .proof("POST", "https://mcp.example/mcp?x=1#f", Some("tok"))
            .unwrap();
        let header = part(&proof, 0);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(&header["jwk"], key.jwk());
        assert!(header["jwk"].get("d").is_none(), "no private part");
        let claims = part(&proof, 1);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, b"tok");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(digest.as_ref()));
        assert!(claims.get("nonce").is_none());
        // The signature verifies with the public key of the header.
        let (input, signature) = proof.rsplit_once('.').unwrap();
        let jwk = key.jwk();
        let mut point = vec![4u8];
        for c in ["x", "y"] {
            point.extend(URL_SAFE_NO_PAD.decode(jwk[c].as_str().unwrap()).unwrap());
        }
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
            .verify(
                input.as_bytes(),
                &URL_SAFE_NO_PAD.decode(signature).unwrap(),
            )
            .unwrap();
    }

    #[test]
    fn every_proof_is_fresh_and_carries_the_servers_nonce() {
        let key = DpopKey::generate().unwrap();
        let a = part(
            &key.proof("POST", "http://as.example/token", None).unwrap(),
            1,
        );
        key.remember_nonce("http://as.example/token", "n1");
        let b = part(
            &key.proof("POST", "http://as.example/token", None).unwrap(),
            1,
        );
        assert_ne!(a["jti"], b["jti"]);
        assert!(a.get("ath").is_none());
        assert_eq!(b["nonce"], "n1");
        // Another server's nonce is its own.
        let c = part(&key.proof("GET", "http://rs.example/mcp", None).unwrap(), 1);
        assert!(c.get("nonce").is_none());
    }

    #[test]
    fn a_dpop_challenge_is_recognised_among_schemes() {
        assert!(challenge_wants_dpop(
            r#"DPoP resource_metadata="http://h/.well-known/x""#
        ));
        assert!(challenge_wants_dpop(
            r#"Bearer realm="r", DPoP algs="ES256""#
        ));
        assert!(!challenge_wants_dpop(r#"Bearer resource_metadata="x""#));
    }
}
