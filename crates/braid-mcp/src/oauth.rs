//! OAuth 2.1 for streamable HTTP servers (MCP "Authorization"), on rmcp's `auth` module.
//!
//! A server that answers 401 with a `WWW-Authenticate` challenge is authorized like this:
//! protected-resource and authorization-server metadata discovery, then a client identity
//! (the configured client id, a client ID metadata document URL, or dynamic registration,
//! in that order), then the authorization code flow with PKCE. Who approves the request in
//! the authorization server's page is an [`Authorizer`]'s business: the person in a browser,
//! or [`Headless`] for a server that grants at once (the conformance suite's). The connection
//! is then retried once with the tokens; rmcp's [`AuthClient`] refreshes them before expiry
//! and once after a 401.

use std::sync::Arc;

use async_trait::async_trait;
use rmcp::service::ClientInitializeError;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, ClientCredentialsConfig,
    CredentialStore, JwtSigningAlgorithm, OAuthState, StoredCredentials,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse,
};

pub use rmcp::transport::auth::AuthClient;

use crate::dpop::{DpopKey, DpopOAuthHttp, TokenHttp};

/// The redirect URI Braid registers when the configuration names none.
pub const DEFAULT_REDIRECT_URI: &str = "http://localhost/v1/mcp/oauth/callback";

/// How long the authorization server may take to answer a headless authorization request.
const HEADLESS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// A server entry's `oauth` settings (all optional: discovery and dynamic registration need
/// none of them).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct OAuthSettings {
    /// A client id registered with the authorization server beforehand (`clientId`).
    pub client_id: Option<String>,
    /// Its secret, for confidential clients (`clientSecret`).
    pub client_secret: Option<String>,
    /// The URL of a client ID metadata document to use as the client id when the
    /// authorization server supports them (`clientMetadataUrl`).
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for; empty means what the challenge or the metadata suggests (`scopes`).
    pub scopes: Vec<String>,
    /// Where the authorization server sends the browser back (`redirectUri`).
    pub redirect_uri: Option<String>,
    /// How Braid gets its tokens (`grant`).
    pub grant: Grant,
    /// Whether tokens are bound to a key of Braid's (DPoP, RFC 9449; `dpop`).
    pub dpop: DpopUse,
}

/// When Braid asks for DPoP-bound tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DpopUse {
    /// When the server's challenge names the `DPoP` scheme (the default).
    #[default]
    WhenChallenged,
    /// Always (`"dpop": true`), for servers that accept DPoP without asking for it.
    Always,
}

impl std::fmt::Debug for OAuthSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthSettings")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .field("redirect_uri", &self.redirect_uri)
            .field("grant", &self.grant)
            .field("dpop", &self.dpop)
            .finish()
    }
}

/// The OAuth grant Braid uses for a server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Grant {
    /// A person approves Braid in the authorization server's page (the default).
    #[default]
    AuthorizationCode,
    /// Braid authenticates as itself, with no person (`"grant": "client_credentials"`),
    /// by its client secret or a private key.
    ClientCredentials(ClientKey),
    /// Enterprise-managed authorization: an ID token from the enterprise's identity provider
    /// is exchanged there for an identity assertion grant (ID-JAG), which the server's
    /// authorization server redeems for an access token (`clientId`/`clientSecret` are
    /// Braid's registration there).
    EnterpriseManaged(EnterpriseLogin),
    /// Workload identity federation (RFC 7523 JWT bearer grant): a JWT the platform issued
    /// to the workload (Kubernetes, a cloud's metadata service) is exchanged for an access
    /// token, with no person and no secret (`"grant": "workload_identity"`).
    WorkloadIdentity(WorkloadAssertion),
}

/// Where the workload's JWT comes from.
#[derive(Clone, PartialEq, Eq)]
pub enum WorkloadAssertion {
    /// A file the platform keeps current (`assertionFile`), read at each authorization.
    File(std::path::PathBuf),
    /// The JWT itself.
    Token(String),
}

impl std::fmt::Debug for WorkloadAssertion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkloadAssertion::File(path) => f.debug_tuple("File").field(path).finish(),
            WorkloadAssertion::Token(_) => f.write_str("Token(<redacted>)"),
        }
    }
}

impl WorkloadAssertion {
    /// The JWT, read now.
    fn read(&self) -> Result<String, String> {
        let jwt = match self {
            WorkloadAssertion::Token(jwt) => jwt.clone(),
            WorkloadAssertion::File(path) => std::fs::read_to_string(path).map_err(|e| {
                format!(
                    "cannot read the workload identity token {}: {e}",
                    path.display()
                )
            })?,
        };
        let jwt = jwt.trim().to_string();
        if jwt.split('.').count() != 3 {
            return Err(
                "the workload identity token is not a JWT (three dot-separated parts)".into(),
            );
        }
        Ok(jwt)
    }
}

/// What enterprise-managed authorization needs from the identity provider.
#[derive(Clone, PartialEq, Eq)]
pub struct EnterpriseLogin {
    /// The identity provider's issuer URL.
    pub idp_issuer: String,
    /// Its token endpoint.
    pub idp_token_endpoint: String,
    /// Braid's client id at the identity provider.
    pub idp_client_id: String,
    /// The person's ID token from their enterprise sign-in.
    pub id_token: String,
}

impl std::fmt::Debug for EnterpriseLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnterpriseLogin")
            .field("idp_issuer", &self.idp_issuer)
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .field("id_token", &"<redacted>")
            .finish()
    }
}

/// How a client-credentials client proves who it is.
#[derive(Clone, PartialEq, Eq)]
pub enum ClientKey {
    /// The `clientSecret` of the settings.
    Secret,
    /// A signed JWT assertion (`private_key_jwt`) with this PEM key (`privateKeyFile`).
    PrivateKey {
        /// The PEM text of the key.
        pem: Vec<u8>,
        /// How the assertion is signed (`signingAlgorithm`).
        algorithm: SigningAlgorithm,
    },
}

/// The algorithms a `private_key_jwt` assertion may be signed with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SigningAlgorithm {
    /// RSA with SHA-256 (the default).
    #[default]
    Rs256,
    /// RSA with SHA-384.
    Rs384,
    /// RSA with SHA-512.
    Rs512,
    /// ECDSA P-256 with SHA-256.
    Es256,
    /// ECDSA P-384 with SHA-384.
    Es384,
}

impl SigningAlgorithm {
    /// The algorithm named `name` (`RS256`, `RS384`, `RS512`, `ES256`, `ES384`).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "RS256" => Self::Rs256,
            "RS384" => Self::Rs384,
            "RS512" => Self::Rs512,
            "ES256" => Self::Es256,
            "ES384" => Self::Es384,
            _ => return None,
        })
    }

    fn to_rmcp(self) -> JwtSigningAlgorithm {
        match self {
            Self::Rs256 => JwtSigningAlgorithm::RS256,
            Self::Rs384 => JwtSigningAlgorithm::RS384,
            Self::Rs512 => JwtSigningAlgorithm::RS512,
            Self::Es256 => JwtSigningAlgorithm::ES256,
            Self::Es384 => JwtSigningAlgorithm::ES384,
        }
    }
}

impl std::fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientKey::Secret => f.write_str("Secret"),
            ClientKey::PrivateKey { algorithm, .. } => f
                .debug_struct("PrivateKey")
                .field("pem", &"<redacted>")
                .field("algorithm", algorithm)
                .finish(),
        }
    }
}

/// One server's OAuth state across its connections: the tokens of the last authorization (so
/// a reconnection reuses and refreshes them) and a challenge seen after a handshake (a 403
/// asking for more scope), to be answered before the next one.
pub struct OAuthSession {
    authorizer: Option<Arc<dyn Authorizer>>,
    client: Option<AuthClient<TokenHttp>>,
    last: ChallengeSlot,
    pending: Option<Challenge>,
    authorizations: u32,
    last_authorized: Option<std::time::Instant>,
    kept: Option<KeptCredentials>,
    /// The key DPoP-bound tokens of this server are bound to, once one was asked for.
    dpop_key: Option<Arc<DpopKey>>,
    /// The scopes of the last authorization, kept when a refusal asks for more.
    granted_scopes: Vec<String>,
}

/// The last challenge a server answered with, shared with the live transport.
pub(crate) type ChallengeSlot = Arc<std::sync::Mutex<Option<Challenge>>>;

/// How many authorizations one server may ask for in a row before Braid stops trying: a
/// server that keeps refusing fresh tokens would otherwise loop forever.
pub const MAX_AUTHORIZATIONS: u32 = 3;

/// After this long without an authorization, a refusal starts a fresh series of
/// [`MAX_AUTHORIZATIONS`] (a refresh token that expired days later is not a loop).
pub const AUTHORIZATION_SERIES: std::time::Duration = std::time::Duration::from_secs(600);

impl OAuthSession {
    /// A session whose authorizations go through `authorizer` (none: only client
    /// credentials can be used, and a server that needs a person fails with a clear error).
    pub fn new(authorizer: Option<Arc<dyn Authorizer>>) -> Self {
        Self {
            authorizer,
            client: None,
            last: ChallengeSlot::default(),
            pending: None,
            authorizations: 0,
            last_authorized: None,
            kept: None,
            dpop_key: None,
            granted_scopes: Vec::new(),
        }
    }

    /// The same session, keeping the server's credentials in `tokens` under `server` (so
    /// they outlive Braid) and starting from what is kept there.
    pub fn keeping(mut self, server: &str, tokens: Arc<dyn TokenStore>) -> Self {
        self.kept = Some(KeptCredentials {
            server: server.to_string(),
            tokens,
        });
        self
    }

    /// Takes the challenge the server answered a request of the live session with, and keeps
    /// it for the next connection, which authorizes first. `false` when there was none or
    /// the authorization limit is reached.
    pub fn reauthorize_after_refusal(&mut self) -> bool {
        let seen = self.last.lock().unwrap_or_else(|p| p.into_inner()).take();
        match seen {
            Some(challenge)
                if self.authorizations < MAX_AUTHORIZATIONS
                    || self
                        .last_authorized
                        .is_some_and(|at| at.elapsed() > AUTHORIZATION_SERIES) =>
            {
                self.pending = Some(challenge);
                true
            }
            _ => false,
        }
    }

    /// The challenge to answer before the next handshake, if a refusal left one.
    pub(crate) fn take_pending(&mut self) -> Option<Challenge> {
        self.pending.take()
    }

    /// The HTTP client for the next connection: the tokens of the last authorization, or
    /// none yet (requests go out unauthenticated and a 401 starts the authorization).
    pub(crate) async fn client_for(
        &mut self,
        url: &str,
        http: &reqwest::Client,
    ) -> Result<ChallengeWatch<AuthClient<TokenHttp>>, String> {
        if self.client.is_none()
            && let Some(kept) = &self.kept
        {
            self.client = resume(url, http, kept).await;
        }
        let client = match &self.client {
            Some(client) => client.clone(),
            None => AuthClient::new(
                TokenHttp::new(http.clone(), None),
                AuthorizationManager::new(url)
                    .await
                    .map_err(|e| format!("OAuth setup: {e}"))?,
            ),
        };
        Ok(ChallengeWatch {
            inner: client,
            last: self.last.clone(),
        })
    }

    /// The challenge behind a failed handshake: the one the transport saw, else one found in
    /// the error.
    pub(crate) fn refusal(&mut self, found: Option<Challenge>) -> Option<Challenge> {
        let seen = self.last.lock().unwrap_or_else(|p| p.into_inner()).take();
        seen.or(found)
    }

    /// Answers `challenge`: authorizes (through the authorizer, which may wait for a person)
    /// and keeps the tokens for the next connections.
    pub(crate) async fn authorize(
        &mut self,
        server: &str,
        url: &str,
        challenge: &Challenge,
        settings: &OAuthSettings,
        http: &reqwest::Client,
    ) -> Result<(), String> {
        if self
            .last_authorized
            .is_some_and(|at| at.elapsed() > AUTHORIZATION_SERIES)
        {
            self.authorizations = 0;
        }
        if self.authorizations >= MAX_AUTHORIZATIONS {
            return Err(format!(
                "the server still refuses after {MAX_AUTHORIZATIONS} authorizations"
            ));
        }
        self.authorizations += 1;
        self.last_authorized = Some(std::time::Instant::now());
        let wants_dpop = settings.dpop == DpopUse::Always
            || crate::dpop::challenge_wants_dpop(challenge.header());
        if wants_dpop && self.dpop_key.is_none() {
            self.dpop_key = Some(Arc::new(DpopKey::generate().map_err(|e| e.to_string())?));
        }
        let dpop = if wants_dpop {
            self.dpop_key.clone()
        } else {
            None
        };
        let outcome = authorize(
            server,
            url,
            challenge,
            settings,
            &Authorization {
                authorizer: self.authorizer.as_ref(),
                kept: self.kept.clone(),
                dpop: dpop.clone(),
                granted_scopes: &self.granted_scopes,
            },
        )
        .await;
        let manager = outcome?;
        self.granted_scopes = manager.get_current_scopes().await;
        self.client = Some(AuthClient::new(TokenHttp::new(http.clone(), dpop), manager));
        Ok(())
    }
}

/// Where OAuth credentials outlive the process (`braid serve`: its store), as JSON text per
/// server name.
#[async_trait]
pub trait TokenStore: Send + Sync {
    /// The credentials kept for `server`.
    async fn load(&self, server: &str) -> Result<Option<String>, String>;
    /// Keeps (replaces) the credentials of `server`.
    async fn save(&self, server: &str, credentials: &str) -> Result<(), String>;
    /// Forgets the credentials of `server`.
    async fn clear(&self, server: &str) -> Result<(), String>;
}

/// One server's credentials in a [`TokenStore`], as rmcp's credential store.
#[derive(Clone)]
pub(crate) struct KeptCredentials {
    server: String,
    tokens: Arc<dyn TokenStore>,
}

#[async_trait]
impl CredentialStore for KeptCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let Some(text) = self
            .tokens
            .load(&self.server)
            .await
            .map_err(AuthError::InternalError)?
        else {
            return Ok(None);
        };
        match serde_json::from_str(&text) {
            Ok(credentials) => Ok(Some(credentials)),
            Err(error) => {
                // Unreadable credentials are as good as none: the person authorizes again.
                tracing::warn!(server = %self.server, error = %error, "kept MCP credentials unreadable; ignored");
                Ok(None)
            }
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let text = serde_json::to_string(&credentials)
            .map_err(|e| AuthError::InternalError(e.to_string()))?;
        self.tokens
            .save(&self.server, &text)
            .await
            .map_err(AuthError::InternalError)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.tokens
            .clear(&self.server)
            .await
            .map_err(AuthError::InternalError)
    }
}

/// Puts the manager of a fresh `state` on the kept credentials.
fn keep_in(state: &mut OAuthState, kept: Option<KeptCredentials>) {
    if let (OAuthState::Unauthorized(manager), Some(kept)) = (state, kept) {
        manager.set_credential_store(kept);
    }
}

/// A client on the credentials kept from an earlier run, when there are usable ones.
async fn resume(
    url: &str,
    http: &reqwest::Client,
    kept: &KeptCredentials,
) -> Option<AuthClient<TokenHttp>> {
    let mut manager = AuthorizationManager::new(url).await.ok()?;
    manager.set_credential_store(kept.clone());
    match manager.initialize_from_store().await {
        Ok(true) => {
            tracing::info!(server = %kept.server, "MCP server uses its kept OAuth credentials");
            Some(AuthClient::new(TokenHttp::new(http.clone(), None), manager))
        }
        Ok(false) => None,
        Err(error) => {
            tracing::warn!(server = %kept.server, error = %error, "kept MCP credentials not usable");
            None
        }
    }
}

/// Gets a person's (or a machine's) approval at the authorization server.
#[async_trait]
pub trait Authorizer: Send + Sync {
    /// Given the authorization URL for `server`, answers the redirect URL the authorization
    /// server sent back, which carries the `code` and `state`.
    async fn authorize(&self, server: &str, authorization_url: &str) -> Result<String, String>;

    /// The redirect URI to register, when the server entry names none.
    fn redirect_uri(&self) -> String {
        DEFAULT_REDIRECT_URI.to_string()
    }

    /// The authorization URL `server` waits on a person to open, if it does.
    fn waiting(&self, _server: &str) -> Option<String> {
        None
    }

    /// Changes whenever an authorization starts or stops waiting, for status watchers.
    fn changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        None
    }
}

/// An [`Authorizer`] without a person: it requests the authorization URL and takes the
/// redirect the server answers at once. Only for authorization servers that grant without a
/// login page, such as test servers.
pub struct Headless {
    http: reqwest::Client,
}

impl Headless {
    /// A headless authorizer that never follows redirects itself.
    pub fn new() -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(HEADLESS_TIMEOUT)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Self { http })
    }
}

#[async_trait]
impl Authorizer for Headless {
    async fn authorize(&self, server: &str, authorization_url: &str) -> Result<String, String> {
        let response = self
            .http
            .get(authorization_url)
            .send()
            .await
            .map_err(|e| format!("authorization request for `{server}` failed: {e}"))?;
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| {
                format!(
                    "the authorization server answered {} without a redirect; `{server}` needs a person to authorize it",
                    response.status()
                )
            })?;
        Ok(location.to_string())
    }
}

/// What a server's refusal asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Challenge {
    /// 401: no token or an unusable one; the `WWW-Authenticate` header.
    Unauthorized(String),
    /// 403 `insufficient_scope`: the header and the scope the server wants, when it says.
    InsufficientScope(String, Option<String>),
}

impl Challenge {
    fn header(&self) -> &str {
        match self {
            Challenge::Unauthorized(h) | Challenge::InsufficientScope(h, _) => h,
        }
    }
}

/// The authorization challenge behind a failed handshake, found anywhere in its error chain.
pub(crate) fn challenge_of(error: &ClientInitializeError) -> Option<Challenge> {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = current {
        if let Some(required) = e.downcast_ref::<AuthRequiredError>() {
            return Some(Challenge::Unauthorized(
                required.www_authenticate_header.clone(),
            ));
        }
        if let Some(scope) = e.downcast_ref::<InsufficientScopeError>() {
            return Some(Challenge::InsufficientScope(
                scope.www_authenticate_header.clone(),
                scope.required_scope.clone(),
            ));
        }
        current = e.source();
    }
    None
}

/// What one authorization works with besides the settings.
pub(crate) struct Authorization<'a> {
    /// Who approves a request of the authorization code grant.
    pub(crate) authorizer: Option<&'a Arc<dyn Authorizer>>,
    /// Where the tokens are kept.
    pub(crate) kept: Option<KeptCredentials>,
    /// The key tokens are bound to, for a DPoP server.
    pub(crate) dpop: Option<Arc<DpopKey>>,
    /// The scopes an earlier authorization of the server got, kept in the next one.
    pub(crate) granted_scopes: &'a [String],
}

/// Runs the whole authorization for the server at `url` and answers the manager holding its
/// tokens.
pub(crate) async fn authorize(
    server: &str,
    url: &str,
    challenge: &Challenge,
    settings: &OAuthSettings,
    with: &Authorization<'_>,
) -> Result<AuthorizationManager, String> {
    let kept = with.kept.clone();
    let failed = |step: &str, e: &dyn std::fmt::Display| format!("OAuth {step} failed: {e}");
    if let Grant::ClientCredentials(key) = &settings.grant {
        let client_id = settings
            .client_id
            .clone()
            .ok_or_else(|| "the client_credentials grant needs oauth.clientId".to_string())?;
        let credentials = match key {
            ClientKey::Secret => ClientCredentialsConfig::ClientSecret {
                client_id,
                client_secret: settings.client_secret.clone().ok_or_else(|| {
                    "the client_credentials grant needs oauth.clientSecret or oauth.privateKeyFile"
                        .to_string()
                })?,
                scopes: settings.scopes.clone(),
                resource: Some(url.to_string()),
            },
            ClientKey::PrivateKey { pem, algorithm } => ClientCredentialsConfig::PrivateKeyJwt {
                client_id,
                signing_key: pem.clone(),
                signing_algorithm: algorithm.to_rmcp(),
                token_endpoint_audience: None,
                scopes: settings.scopes.clone(),
                resource: Some(url.to_string()),
            },
        };
        return client_credentials(url.to_string(), credentials, kept).await;
    }
    if let Grant::EnterpriseManaged(login) = &settings.grant {
        return enterprise_managed(url, challenge, settings, login, kept).await;
    }
    if let Grant::WorkloadIdentity(assertion) = &settings.grant {
        return workload_identity(url, challenge, settings, assertion, kept).await;
    }
    let authorizer = with.authorizer.ok_or_else(|| {
        "the server requires OAuth authorization by a person, and none is available here"
            .to_string()
    })?;
    let state = match &with.dpop {
        Some(key) => {
            let client = DpopOAuthHttp::new(key.clone())?;
            OAuthState::new_with_oauth_http_client(url, Arc::new(client)).await
        }
        None => OAuthState::new(url, None).await,
    };
    let mut state = state.map_err(|e| failed("setup", &e))?;
    keep_in(&mut state, kept);
    let redirect_uri = settings
        .redirect_uri
        .clone()
        .unwrap_or_else(|| authorizer.redirect_uri());
    let mut request = AuthorizationRequest::new(redirect_uri)
        .with_client_name("Braid")
        .with_challenge(challenge.header());
    let scopes = requested_scopes(settings, with.granted_scopes, challenge);
    if scopes.is_empty() {
        request = request.with_initial_scope_selection();
    } else {
        request = request.with_scopes(scopes);
    }
    if let Some(id) = &settings.client_id {
        request = request.with_preregistered_client(id.clone());
        if let Some(secret) = &settings.client_secret {
            request = request.with_client_secret(secret.clone());
        }
    }
    if let Some(metadata_url) = &settings.client_metadata_url {
        request = request.with_client_metadata_url(metadata_url.clone());
    }
    state
        .start_authorization(request)
        .await
        .map_err(|e| failed("discovery or client registration", &e))?;
    let authorization_url = state
        .get_authorization_url()
        .await
        .map_err(|e| failed("authorization URL", &e))?;
    tracing::info!(server = %server, "MCP server needs authorization");
    let callback = authorizer.authorize(server, &authorization_url).await?;
    state
        .handle_callback_url(&callback)
        .await
        .map_err(|e| failed("token exchange", &e))?;
    state
        .into_authorization_manager()
        .ok_or_else(|| "OAuth ended without an authorized session".to_string())
}

/// The scopes of a new authorization: the configured ones and, when the server asks for more
/// scope, those already granted plus those it asks for (a step-up keeps what was granted).
/// Empty: let the challenge or the metadata choose.
fn requested_scopes(
    settings: &OAuthSettings,
    granted: &[String],
    challenge: &Challenge,
) -> Vec<String> {
    let mut scopes = settings.scopes.clone();
    if let Challenge::InsufficientScope(_, Some(asked)) = challenge {
        scopes.extend(granted.iter().cloned());
        scopes.extend(asked.split_whitespace().map(str::to_string));
    }
    let mut seen = std::collections::HashSet::new();
    scopes.retain(|scope| seen.insert(scope.clone()));
    scopes
}

/// An HTTP client for the streamable HTTP transport that remembers the last authorization
/// challenge a server answered with: rmcp's transport worker reports a 401 only as "auth
/// required", without the `WWW-Authenticate` header that authorization starts from.
#[derive(Clone)]
pub(crate) struct ChallengeWatch<C> {
    inner: C,
    last: ChallengeSlot,
}

impl<C> ChallengeWatch<C> {
    fn note<T, E>(
        &self,
        result: Result<T, StreamableHttpError<E>>,
    ) -> Result<T, StreamableHttpError<E>>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let seen = match &result {
            Err(StreamableHttpError::AuthRequired(e)) => {
                Some(Challenge::Unauthorized(e.www_authenticate_header.clone()))
            }
            Err(StreamableHttpError::InsufficientScope(e)) => Some(Challenge::InsufficientScope(
                e.www_authenticate_header.clone(),
                e.required_scope.clone(),
            )),
            _ => None,
        };
        if let Some(challenge) = seen {
            *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(challenge);
        }
        result
    }
}

type Headers = std::collections::HashMap<http::HeaderName, http::HeaderValue>;
type SseStream = futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>;

impl<C> StreamableHttpClient for ChallengeWatch<C>
where
    C: StreamableHttpClient + Sync,
{
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: rmcp::model::ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let result = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        self.note(result)
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
        let result = self
            .inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.note(result)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let result = self
            .inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await;
        self.note(result)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<SseStream, StreamableHttpError<Self::Error>> {
        let result = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        self.note(result)
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
        let result = self
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
        self.note(result)
    }
}

/// The client-credentials grant. rmcp's exchange future is not `Send` (it keeps a form
/// serializer across an await), so it runs on its own single-threaded runtime on a blocking
/// thread instead of the caller's task; the manager it answers is used from any thread.
async fn client_credentials(
    url: String,
    credentials: ClientCredentialsConfig,
    kept: Option<KeptCredentials>,
) -> Result<AuthorizationManager, String> {
    let exchange = move || -> Result<AuthorizationManager, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the OAuth runtime: {e}"))?;
        runtime.block_on(async move {
            let mut state = OAuthState::new(url.as_str(), None)
                .await
                .map_err(|e| format!("OAuth setup failed: {e}"))?;
            keep_in(&mut state, kept);
            state
                .authenticate_client_credentials(credentials)
                .await
                .map_err(|e| format!("OAuth client credentials grant failed: {e}"))?;
            state
                .into_authorization_manager()
                .ok_or_else(|| "OAuth ended without an authorized session".to_string())
        })
    };
    tokio::task::spawn_blocking(exchange)
        .await
        .map_err(|e| format!("the OAuth exchange task failed: {e}"))?
}

/// Enterprise-managed authorization: discover the server's authorization server, exchange the
/// ID token at the identity provider for an ID-JAG, redeem it there, and hold the access token
/// in a manager like any other.
async fn enterprise_managed(
    url: &str,
    challenge: &Challenge,
    settings: &OAuthSettings,
    login: &EnterpriseLogin,
    kept: Option<KeptCredentials>,
) -> Result<AuthorizationManager, String> {
    use rmcp::transport::auth::default_oauth_http_client;
    use rmcp::transport::auth::enterprise::{
        EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
    };
    let client_id = settings
        .client_id
        .clone()
        .ok_or_else(|| "enterprise-managed authorization needs oauth.clientId".to_string())?;
    let manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| format!("OAuth setup failed: {e}"))?;
    let metadata = manager
        .resolve_metadata_from_challenge(Some(challenge.header()))
        .await
        .map_err(|e| format!("OAuth discovery failed: {e}"))?
        .metadata;
    let issuer = metadata
        .issuer
        .clone()
        .ok_or_else(|| "the authorization server's metadata names no issuer".to_string())?;
    let mut resource_as = EmaAuthorizationServer::new(issuer, metadata.token_endpoint, &client_id);
    if let Some(secret) = &settings.client_secret {
        resource_as = resource_as.with_client_authentication(
            EmaClientAuthentication::ClientSecretBasic(oauth2::ClientSecret::new(secret.clone())),
        );
    }
    let idp = EmaAuthorizationServer::new(
        &login.idp_issuer,
        &login.idp_token_endpoint,
        &login.idp_client_id,
    );
    let http = default_oauth_http_client().map_err(|e| format!("OAuth setup failed: {e}"))?;
    let token = EmaExchangeRequest::new_with_id_token(idp, resource_as, url, &login.id_token)
        .with_scopes(settings.scopes.iter().cloned())
        .exchange(&http, &http)
        .await
        .map_err(|e| format!("enterprise-managed token exchange failed: {e}"))?;
    let mut response = serde_json::json!({
        "access_token": token.access_token.secret(),
        "token_type": "Bearer",
    });
    if let Some(expires_in) = token.expires_in {
        response["expires_in"] = serde_json::json!(expires_in.as_secs());
    }
    let response = serde_json::from_value(response)
        .map_err(|e| format!("cannot keep the access token: {e}"))?;
    let mut state = OAuthState::new(url, None)
        .await
        .map_err(|e| format!("OAuth setup failed: {e}"))?;
    keep_in(&mut state, kept);
    state
        .set_credentials(&client_id, response)
        .await
        .map_err(|e| format!("cannot keep the access token: {e}"))?;
    state
        .into_authorization_manager()
        .ok_or_else(|| "OAuth ended without an authorized session".to_string())
}

/// The grant type of RFC 7523's JWT bearer grant.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Workload identity federation: discover the server's authorization server and exchange the
/// workload's JWT there for an access token (RFC 7523 §2.1). A refusal is final: the grant is
/// neither retried nor swapped for another, since a rejected assertion does not get better.
async fn workload_identity(
    url: &str,
    challenge: &Challenge,
    settings: &OAuthSettings,
    assertion: &WorkloadAssertion,
    kept: Option<KeptCredentials>,
) -> Result<AuthorizationManager, String> {
    let jwt = assertion.read()?;
    let manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| format!("OAuth setup failed: {e}"))?;
    let metadata = manager
        .resolve_metadata_from_challenge(Some(challenge.header()))
        .await
        .map_err(|e| format!("OAuth discovery failed: {e}"))?
        .metadata;
    let token_endpoint = metadata.token_endpoint;
    let scopes = requested_scopes(settings, &[], challenge);
    let mut form: Vec<(&str, String)> = vec![
        ("grant_type", JWT_BEARER.to_string()),
        ("assertion", jwt),
        ("resource", url.to_string()),
    ];
    if let Some(id) = &settings.client_id {
        form.push(("client_id", id.clone()));
    }
    if let Some(secret) = &settings.client_secret {
        form.push(("client_secret", secret.clone()));
    }
    if !scopes.is_empty() {
        form.push(("scope", scopes.join(" ")));
    }
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&form)
        .finish();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(HEADLESS_TIMEOUT)
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
    let response = http
        .post(&token_endpoint)
        .header(reqwest::header::ACCEPT, "application/json")
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(body)
        .send()
        .await
        .map_err(|e| format!("workload identity token request to {token_endpoint} failed: {e}"))?;
    let status = response.status();
    let body = crate::dpop::bounded_body(
        response,
        crate::dpop::MAX_OAUTH_RESPONSE_BYTES,
        &token_endpoint,
    )
    .await?;
    let answer: serde_json::Value = serde_json::from_slice(&body).map_err(|e| {
        format!("the token endpoint {token_endpoint} answered {status} with no JSON: {e}")
    })?;
    if !status.is_success() {
        let error = answer.get("error").and_then(|v| v.as_str()).unwrap_or("?");
        let description = answer
            .get("error_description")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        return Err(format!(
            "the authorization server refused the workload identity token: {error} {description}"
        ));
    }
    let access_token = answer
        .get("access_token")
        .and_then(|v| v.as_str())
        .ok_or_else(|| format!("the token endpoint {token_endpoint} answered no access_token"))?;
    let mut response = serde_json::json!({
        "access_token": access_token,
        "token_type": "Bearer",
    });
    if let Some(expires_in) = answer.get("expires_in").and_then(|v| v.as_u64()) {
        response["expires_in"] = serde_json::json!(expires_in);
    }
    if let Some(scope) = answer.get("scope").and_then(|v| v.as_str()) {
        response["scope"] = serde_json::json!(scope);
    }
    let response = serde_json::from_value(response)
        .map_err(|e| format!("cannot keep the access token: {e}"))?;
    let mut state = OAuthState::new(url, None)
        .await
        .map_err(|e| format!("OAuth setup failed: {e}"))?;
    keep_in(&mut state, kept);
    let client_id = settings.client_id.as_deref().unwrap_or("braid");
    state
        .set_credentials(client_id, response)
        .await
        .map_err(|e| format!("cannot keep the access token: {e}"))?;
    state
        .into_authorization_manager()
        .ok_or_else(|| "OAuth ended without an authorized session".to_string())
}

/// How long Braid waits for a person to finish an authorization in their browser.
pub const AUTHORIZATION_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// How many authorizations may wait for a person at once (one per server is the norm).
pub const MAX_WAITING_AUTHORIZATIONS: usize = 64;

/// The [`Authorizer`] of `braid serve`: an authorization waits until the person opens its URL
/// (the UI's "Authorize" button) and the authorization server sends the browser back to
/// Braid's callback route, which hands the redirect to [`PersonAuthorizer::complete`].
pub struct PersonAuthorizer {
    redirect_uri: String,
    waiting: std::sync::Mutex<std::collections::HashMap<String, Waiting>>,
    changes: tokio::sync::watch::Sender<u64>,
}

/// One authorization waiting for its callback, by its `state`.
struct Waiting {
    server: String,
    authorization_url: String,
    done: tokio::sync::oneshot::Sender<String>,
}

/// A callback that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CallbackError {
    /// The callback carries no `state` parameter.
    #[error("the callback has no `state` parameter")]
    MissingState,
    /// No authorization with that `state` waits (it expired, or was finished already).
    #[error("no authorization is waiting for this callback (it expired or was already used)")]
    UnknownState,
    /// The authorization server refused (the person declined, or an error).
    #[error("the authorization server answered `{0}`")]
    Refused(String),
}

impl PersonAuthorizer {
    /// An authorizer whose callbacks come back to `redirect_uri` (Braid's callback route).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
            waiting: std::sync::Mutex::default(),
            changes: tokio::sync::watch::Sender::new(0),
        }
    }

    fn changed(&self) {
        self.changes.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// Finishes the authorization a callback URL belongs to; answers its server's name.
    pub fn complete(&self, callback_url: &str) -> Result<String, CallbackError> {
        let query = callback_url.split_once('?').map(|(_, q)| q).unwrap_or("");
        let state = query_value(query, "state").ok_or(CallbackError::MissingState)?;
        let waiting = self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&state)
            .ok_or(CallbackError::UnknownState)?;
        if let Some(error) = query_value(query, "error") {
            // Dropping the sender ends the wait with the refusal's reason below.
            tracing::warn!(server = %waiting.server, error = %error, "MCP authorization refused");
            return Err(CallbackError::Refused(error));
        }
        let server = waiting.server.clone();
        let _ = waiting.done.send(callback_url.to_string());
        Ok(server)
    }
}

/// The decoded value of `key` in a URL query.
fn query_value(query: &str, key: &str) -> Option<String> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

/// Removes an authorization from the waiting list when its wait ends, however it ends.
struct ForgetWaiting<'a> {
    authorizer: &'a PersonAuthorizer,
    state: String,
}

impl Drop for ForgetWaiting<'_> {
    fn drop(&mut self) {
        self.authorizer
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.state);
        self.authorizer.changed();
    }
}

#[async_trait]
impl Authorizer for PersonAuthorizer {
    async fn authorize(&self, server: &str, authorization_url: &str) -> Result<String, String> {
        let query = authorization_url
            .split_once('?')
            .map(|(_, q)| q)
            .unwrap_or("");
        let state = query_value(query, "state")
            .ok_or_else(|| "the authorization URL has no `state` parameter".to_string())?;
        let (done, answer) = tokio::sync::oneshot::channel();
        {
            let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
            // A new authorization of the same server replaces its old one.
            waiting.retain(|_, w| w.server != server);
            if waiting.len() >= MAX_WAITING_AUTHORIZATIONS {
                return Err(format!(
                    "{MAX_WAITING_AUTHORIZATIONS} authorizations already wait for a person"
                ));
            }
            waiting.insert(
                state.clone(),
                Waiting {
                    server: server.to_string(),
                    authorization_url: authorization_url.to_string(),
                    done,
                },
            );
        }
        self.changed();
        tracing::info!(server = %server, "MCP server waits for a person to authorize it");
        // The wait ends however the authorization ends, also when the server is stopped while
        // it waits (the future is dropped).
        let _forget = ForgetWaiting {
            authorizer: self,
            state: state.clone(),
        };
        let outcome = tokio::time::timeout(AUTHORIZATION_WAIT, answer).await;
        match outcome {
            Ok(Ok(callback)) => Ok(callback),
            Ok(Err(_)) => Err("the authorization was refused or replaced".to_string()),
            Err(_) => Err(format!(
                "nobody authorized the server within {} minutes",
                AUTHORIZATION_WAIT.as_secs() / 60
            )),
        }
    }

    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        Some(self.changes.subscribe())
    }

    fn waiting(&self, server: &str) -> Option<String> {
        self.waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .find(|w| w.server == server)
            .map(|w| w.authorization_url.clone())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn a_step_up_keeps_the_granted_scopes_and_adds_the_asked_ones() {
        let settings = OAuthSettings {
            scopes: vec!["profile".into()],
            ..OAuthSettings::default()
        };
        let granted = ["profile".to_string(), "mcp:basic".to_string()];
        let step_up = Challenge::InsufficientScope("Bearer".into(), Some("mcp:write".into()));
        assert_eq!(
            requested_scopes(&settings, &granted, &step_up),
            ["profile", "mcp:basic", "mcp:write"]
        );
        // A plain 401 starts over from the configuration (or the challenge's choice).
        let fresh = Challenge::Unauthorized("Bearer".into());
        assert_eq!(requested_scopes(&settings, &granted, &fresh), ["profile"]);
        assert!(requested_scopes(&OAuthSettings::default(), &granted, &fresh).is_empty());
    }

    #[test]
    fn a_workload_token_must_be_a_jwt_and_is_read_from_its_file_each_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "a.b.c\n").unwrap();
        let assertion = WorkloadAssertion::File(path.clone());
        assert_eq!(assertion.read().unwrap(), "a.b.c");
        std::fs::write(&path, "d.e.f").unwrap();
        assert_eq!(assertion.read().unwrap(), "d.e.f");
        assert!(WorkloadAssertion::Token("opaque".into()).read().is_err());
        assert!(
            WorkloadAssertion::File(dir.path().join("missing"))
                .read()
                .unwrap_err()
                .contains("cannot read")
        );
        assert_eq!(
            format!("{:?}", WorkloadAssertion::Token("a.b.c".into())),
            "Token(<redacted>)"
        );
    }

    #[tokio::test]
    async fn a_person_authorizes_through_the_callback() {
        let authorizer = Arc::new(PersonAuthorizer::new("http://127.0.0.1:8080/cb"));
        let waiting = {
            let authorizer = authorizer.clone();
            tokio::spawn(async move {
                authorizer
                    .authorize(
                        "github",
                        "https://as.example/authorize?client_id=b&state=s%201",
                    )
                    .await
            })
        };
        while authorizer.waiting("github").is_none() {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            authorizer.waiting("github").unwrap(),
            "https://as.example/authorize?client_id=b&state=s%201"
        );
        assert_eq!(
            authorizer.complete("http://127.0.0.1:8080/cb?code=c&state=other"),
            Err(CallbackError::UnknownState)
        );
        assert_eq!(
            authorizer.complete("http://127.0.0.1:8080/cb?code=c&state=s+1"),
            Ok("github".to_string())
        );
        assert_eq!(
            waiting.await.unwrap().unwrap(),
            "http://127.0.0.1:8080/cb?code=c&state=s+1"
        );
        assert!(authorizer.waiting("github").is_none());
        // A callback is used once.
        assert_eq!(
            authorizer.complete("http://127.0.0.1:8080/cb?code=c&state=s+1"),
            Err(CallbackError::UnknownState)
        );
    }

    #[tokio::test]
    async fn a_refused_authorization_ends_the_wait_with_the_reason() {
        let authorizer = Arc::new(PersonAuthorizer::new("http://h/cb"));
        let waiting = {
            let authorizer = authorizer.clone();
            tokio::spawn(async move { authorizer.authorize("s", "https://as/a?state=x").await })
        };
        while authorizer.waiting("s").is_none() {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            authorizer.complete("http://h/cb?error=access_denied&state=x"),
            Err(CallbackError::Refused("access_denied".into()))
        );
        assert!(waiting.await.unwrap().is_err());
        assert_eq!(
            authorizer.complete("http://h/cb?code=1"),
            Err(CallbackError::MissingState)
        );
    }
}
