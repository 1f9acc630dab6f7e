//! Fetching an image a message names by URL, without letting that URL reach into the server's
//! own network: an address that is loopback, private, link-local (cloud metadata at
//! 169.254.169.254), shared, unspecified, multicast or reserved is refused, whether the URL
//! names it, a host name resolves to it, or a redirect leads to it, unless the operator allowed
//! that host (`braid serve --allow-image-host`).

use std::error::Error as StdError;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::redirect::{Attempt, Policy};

use super::ImageError;
use super::loading::{FETCH_TIMEOUT, MAX_IMAGE_BYTES, too_large, unreadable};

/// The most redirects followed for one image.
const MAX_REDIRECTS: usize = 5;

/// Hosts an image URL may name although they are internal: the operator's exceptions, matched
/// by exact name or address (case does not matter).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImageHosts {
    allowed: Vec<String>,
}

impl ImageHosts {
    /// Allows these hosts (names like `images.internal`, or addresses like `10.0.0.7`).
    pub fn allowing(hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            allowed: hosts
                .into_iter()
                .map(|h| normalize(&h.into()))
                .filter(|h| !h.is_empty())
                .collect(),
        }
    }

    /// Whether the operator allowed `host`.
    pub fn allows(&self, host: &str) -> bool {
        let host = normalize(host);
        self.allowed.contains(&host)
    }
}

fn normalize(host: &str) -> String {
    host.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// Why an address is not fetched from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InternalAddress {
    /// This machine (`127.0.0.0/8`, `::1`).
    Loopback,
    /// A private network (`10/8`, `172.16/12`, `192.168/16`, `fc00::/7`).
    Private,
    /// Link-local (`169.254/16`, where clouds answer metadata requests; `fe80::/10`).
    LinkLocal,
    /// Carrier-grade shared space (`100.64/10`).
    Shared,
    /// `0.0.0.0` or `::`.
    Unspecified,
    /// Multicast or broadcast.
    Multicast,
    /// Reserved, documentation or benchmarking ranges that no public server uses.
    Reserved,
}

impl InternalAddress {
    /// The class of `ip`, or `None` for a public address.
    pub fn of(ip: IpAddr) -> Option<Self> {
        match ip {
            IpAddr::V4(v4) => Self::of_v4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self::of_v4(v4),
                None => Self::of_v6(v6),
            },
        }
    }

    fn of_v4(ip: Ipv4Addr) -> Option<Self> {
        let [a, b, c, _] = ip.octets();
        if ip.is_loopback() {
            Some(Self::Loopback)
        } else if ip.is_private() {
            Some(Self::Private)
        } else if ip.is_link_local() {
            Some(Self::LinkLocal)
        } else if a == 100 && (64..128).contains(&b) {
            Some(Self::Shared)
        } else if ip.is_unspecified() || a == 0 {
            Some(Self::Unspecified)
        } else if ip.is_multicast() || ip.is_broadcast() {
            Some(Self::Multicast)
        } else if a >= 240
            || ip.is_documentation()
            || (a == 198 && (b == 18 || b == 19))
            || (a == 192 && b == 0 && c == 0)
        {
            Some(Self::Reserved)
        } else {
            None
        }
    }

    fn of_v6(ip: Ipv6Addr) -> Option<Self> {
        let first = ip.segments()[0];
        if ip.is_loopback() {
            Some(Self::Loopback)
        } else if ip.is_unspecified() {
            Some(Self::Unspecified)
        } else if first & 0xfe00 == 0xfc00 {
            Some(Self::Private)
        } else if first & 0xffc0 == 0xfe80 {
            Some(Self::LinkLocal)
        } else if ip.is_multicast() {
            Some(Self::Multicast)
        } else if first == 0x2001 && ip.segments()[1] == 0x0db8 {
            Some(Self::Reserved)
        } else {
            None
        }
    }
}

impl fmt::Display for InternalAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Loopback => "a loopback address (this machine)",
            Self::Private => "a private network address",
            Self::LinkLocal => "a link-local address (such as cloud metadata)",
            Self::Shared => "a shared (carrier-grade NAT) address",
            Self::Unspecified => "an unspecified address",
            Self::Multicast => "a multicast or broadcast address",
            Self::Reserved => "a reserved address",
        })
    }
}

/// A fetch refused because of where it would go.
#[derive(Debug)]
struct Refused {
    host: String,
    ip: IpAddr,
    class: InternalAddress,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host == self.ip.to_string() {
            write!(f, "{} is {}", self.ip, self.class)?;
        } else {
            write!(f, "{} resolves to {}, {}", self.host, self.ip, self.class)?;
        }
        write!(
            f,
            "; images are not fetched from internal addresses unless the operator allows the host (`braid serve --allow-image-host {}`)",
            self.host
        )
    }
}

impl StdError for Refused {}

/// The refusal for a URL host that is an address literal, if it is internal and not allowed.
fn refuse_literal(host: &str, hosts: &ImageHosts) -> Option<Refused> {
    let ip: IpAddr = normalize(host).parse().ok()?;
    if hosts.allows(host) {
        return None;
    }
    InternalAddress::of(ip).map(|class| Refused {
        host: ip.to_string(),
        ip,
        class,
    })
}

/// Resolves names like the system does, then keeps only public addresses (all of them for an
/// allowed host), so a connection can only go where the policy allows.
struct PublicAddresses {
    hosts: ImageHosts,
}

impl Resolve for PublicAddresses {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let allowed = self.hosts.allows(&host);
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if allowed {
                return Ok(Box::new(found.into_iter()) as Addrs);
            }
            let public: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|a| InternalAddress::of(a.ip()).is_none())
                .collect();
            match (public.is_empty(), found.first()) {
                (false, _) => Ok(Box::new(public.into_iter()) as Addrs),
                (true, Some(first)) => {
                    let ip = first.ip();
                    let class = InternalAddress::of(ip).unwrap_or(InternalAddress::Reserved);
                    Err(Box::new(Refused { host, ip, class }) as Box<dyn StdError + Send + Sync>)
                }
                (true, None) => Err(format!("{host} has no address").into()),
            }
        })
    }
}

/// Follows at most [`MAX_REDIRECTS`] redirects, each to http(s) and not to an internal address
/// literal (names are checked by the resolver when connecting).
fn redirects(hosts: ImageHosts) -> Policy {
    Policy::custom(move |attempt: Attempt<'_>| {
        if attempt.previous().len() >= MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        let url = attempt.url();
        if !matches!(url.scheme(), "http" | "https") {
            let scheme = url.scheme().to_owned();
            return attempt.error(format!("a redirect to a `{scheme}:` URL"));
        }
        match url.host_str().and_then(|h| refuse_literal(h, &hosts)) {
            Some(refused) => attempt.error(refused),
            None => attempt.follow(),
        }
    })
}

/// The bytes at `url` (http or https), at most [`MAX_IMAGE_BYTES`], within [`FETCH_TIMEOUT`],
/// refusing internal addresses that `hosts` does not allow.
pub async fn fetch(url: &str, hosts: &ImageHosts) -> Result<Vec<u8>, ImageError> {
    let parsed =
        reqwest::Url::parse(url).map_err(|e| unreadable(url, &format!("it is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(unreadable(
            url,
            "only http, https and base64 data: URLs are fetched",
        ));
    }
    if let Some(refused) = parsed.host_str().and_then(|h| refuse_literal(h, hosts)) {
        return Err(unreadable(url, &refused.to_string()));
    }
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .redirect(redirects(hosts.clone()))
        .dns_resolver(Arc::new(PublicAddresses {
            hosts: hosts.clone(),
        }))
        // A proxy would resolve the name itself, past the address check.
        .no_proxy()
        .build()
        .map_err(|e| unreadable(url, &e.to_string()))?;
    let mut response = client
        .get(parsed)
        .send()
        .await
        .map_err(|e| unreadable(url, &chain(&e)))?;
    if !response.status().is_success() {
        return Err(unreadable(
            url,
            &format!("the server answered {}", response.status()),
        ));
    }
    if let Some(len) = response.content_length()
        && len > MAX_IMAGE_BYTES as u64
    {
        return Err(too_large(usize::try_from(len).unwrap_or(usize::MAX)));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| unreadable(url, &chain(&e)))?
    {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(too_large(bytes.len()));
        }
    }
    Ok(bytes)
}

/// An error with its causes: reqwest's own message ("error sending request") hides the reason,
/// such as the refused address, in its source chain.
fn chain(error: &(dyn StdError + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    #[test]
    fn internal_addresses_are_classed_and_public_ones_pass() {
        let class = |s: &str| InternalAddress::of(s.parse().unwrap());
        assert_eq!(class("127.0.0.1"), Some(InternalAddress::Loopback));
        assert_eq!(class("::1"), Some(InternalAddress::Loopback));
        assert_eq!(class("::ffff:127.0.0.1"), Some(InternalAddress::Loopback));
        assert_eq!(class("10.1.2.3"), Some(InternalAddress::Private));
        assert_eq!(class("172.16.0.1"), Some(InternalAddress::Private));
        assert_eq!(class("192.168.1.1"), Some(InternalAddress::Private));
        assert_eq!(class("fd00::1"), Some(InternalAddress::Private));
        assert_eq!(class("169.254.169.254"), Some(InternalAddress::LinkLocal));
        assert_eq!(class("fe80::1"), Some(InternalAddress::LinkLocal));
        assert_eq!(class("100.64.0.1"), Some(InternalAddress::Shared));
        assert_eq!(class("0.0.0.0"), Some(InternalAddress::Unspecified));
        assert_eq!(class("::"), Some(InternalAddress::Unspecified));
        assert_eq!(class("224.0.0.1"), Some(InternalAddress::Multicast));
        assert_eq!(class("255.255.255.255"), Some(InternalAddress::Multicast));
        assert_eq!(class("240.0.0.1"), Some(InternalAddress::Reserved));
        assert_eq!(class("93.184.216.34"), None);
        assert_eq!(class("2606:4700::1111"), None);
        assert_eq!(class("172.32.0.1"), None);
    }

    /// A one-request-at-a-time HTTP server on loopback answering `answer(path)` as raw HTTP.
    async fn server(answer: fn(&str, u16) -> Vec<u8>) -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut buf = vec![0u8; 4096];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&buf[..n]).to_string();
                let path = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let _ = socket.write_all(&answer(&path, port)).await;
                let _ = socket.shutdown().await;
            }
        });
        port
    }

    fn image_or_redirect(path: &str, port: u16) -> Vec<u8> {
        if path == "/hop" {
            format!("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{port}/image\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").into_bytes()
        } else {
            let body = b"\x89PNG\r\n\x1a\nrest";
            let mut out = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )
            .into_bytes();
            out.extend_from_slice(body);
            out
        }
    }

    #[tokio::test]
    async fn a_loopback_url_is_refused_naming_the_address_class() {
        let port = server(image_or_redirect).await;
        let err = fetch(
            &format!("http://127.0.0.1:{port}/image"),
            &ImageHosts::default(),
        )
        .await
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("loopback"), "{text}");
        assert!(text.contains("--allow-image-host 127.0.0.1"), "{text}");
    }

    #[tokio::test]
    async fn a_name_that_resolves_to_loopback_is_refused() {
        let port = server(image_or_redirect).await;
        let err = fetch(
            &format!("http://localhost:{port}/image"),
            &ImageHosts::default(),
        )
        .await
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("localhost resolves to"), "{text}");
        assert!(text.contains("loopback"), "{text}");
    }

    #[tokio::test]
    async fn metadata_and_private_literals_are_refused_before_connecting() {
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:10.0.0.1]/x.png",
            "http://0.0.0.0/x.png",
        ] {
            let err = fetch(url, &ImageHosts::default()).await.unwrap_err();
            assert!(
                err.to_string().contains("internal addresses"),
                "{url}: {err}"
            );
        }
        let err = fetch("file:///etc/passwd", &ImageHosts::default())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("only http"), "{err}");
    }

    #[tokio::test]
    async fn an_allowed_host_is_fetched() {
        let port = server(image_or_redirect).await;
        let bytes = fetch(
            &format!("http://127.0.0.1:{port}/image"),
            &ImageHosts::allowing(["127.0.0.1"]),
        )
        .await
        .unwrap();
        assert!(bytes.starts_with(b"\x89PNG"));
    }

    #[tokio::test]
    async fn a_redirect_to_an_internal_address_is_refused() {
        let port = server(image_or_redirect).await;
        let err = fetch(
            &format!("http://localhost:{port}/hop"),
            &ImageHosts::allowing(["localhost"]),
        )
        .await
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("127.0.0.1 is a loopback address"), "{text}");
    }
}
