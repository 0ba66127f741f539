//! Normalising an Ollama address the way `OLLAMA_HOST` is written.
//!
//! Accepted: `host:port`, `http://host:port`, `https://host[:port]`, `:port`, `host`,
//! IPv6 (`[::1]:11434`, `::1`). Without a scheme the port defaults to 11434; with an
//! explicit `http://` or `https://` and no port it defaults to 80 / 443, as the `ollama`
//! CLI does, so the same `OLLAMA_HOST` reaches the same server. The wildcard addresses a
//! server listens on (`0.0.0.0`, `::`) are not connectable everywhere, so they become
//! loopback. Path, query and trailing slash are dropped: the API lives at the root.
//! The result is always `scheme://host:port` with no trailing slash.

use thiserror::Error;

/// Where Ollama listens unless told otherwise.
pub const DEFAULT_HOST: &str = "http://127.0.0.1:11434";
/// Ollama's port when the address names none and has no scheme.
pub const DEFAULT_PORT: u16 = 11434;

/// Why an address could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HostError {
    #[error("invalid Ollama address {input:?}: unsupported scheme {scheme:?} (use http://)")]
    Scheme { input: String, scheme: String },
    #[error("invalid Ollama address {input:?}: port {port:?} is not a number from 1 to 65535")]
    Port { input: String, port: String },
    #[error("invalid Ollama address {input:?}: {reason}")]
    Invalid { input: String, reason: &'static str },
    #[error(
        "Ollama address {url} uses https, which this build cannot speak (no TLS); \
         use http:// or a local tunnel"
    )]
    HttpsUnsupported { url: String },
}

/// Normalise an `OLLAMA_HOST`-style address to `scheme://host:port`.
///
/// An empty (or blank) input means the default, as an unset `OLLAMA_HOST` does.
pub fn parse_host(input: &str) -> Result<String, HostError> {
    let s = input.trim();
    if s.is_empty() {
        return Ok(DEFAULT_HOST.to_string());
    }
    let invalid = |reason| HostError::Invalid {
        input: input.to_string(),
        reason,
    };
    let (scheme, rest, default_port) = match s.split_once("://") {
        None => ("http", s, DEFAULT_PORT),
        Some((scheme, rest)) => match scheme.to_ascii_lowercase().as_str() {
            "http" => ("http", rest, 80),
            "https" => ("https", rest, 443),
            _ => {
                return Err(HostError::Scheme {
                    input: input.to_string(),
                    scheme: scheme.to_string(),
                });
            }
        },
    };
    let hostport = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if hostport.is_empty() && s.contains("://") {
        // "http://" alone would mean 127.0.0.1:80: never what was meant.
        return Err(invalid(
            "nothing after the scheme: give a host, e.g. http://127.0.0.1:11434",
        ));
    }
    if hostport.contains('@') {
        return Err(invalid("user names and passwords are not supported"));
    }
    let (host, port) =
        split_host_port(hostport).ok_or_else(|| invalid("unclosed '[' in IPv6 address"))?;
    let host = match host {
        "" | "0.0.0.0" => "127.0.0.1".to_string(),
        "::" | "[::]" => "[::1]".to_string(),
        h if h.contains(':') && !h.starts_with('[') => format!("[{h}]"),
        h => h.to_string(),
    };
    let host_ok = host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '[' | ']' | ':' | '%'));
    if !host_ok {
        return Err(invalid(
            "the host name has characters a host name cannot have",
        ));
    }
    let port = match port {
        None | Some("") => default_port,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => n,
            _ => {
                return Err(HostError::Port {
                    input: input.to_string(),
                    port: p.to_string(),
                });
            }
        },
    };
    Ok(format!("{scheme}://{host}:{port}"))
}

/// `host` and the text after its `:`, if any. A bare IPv6 address (several colons, no
/// brackets) is all host. None for an unclosed bracket.
fn split_host_port(hostport: &str) -> Option<(&str, Option<&str>)> {
    if hostport.starts_with('[') {
        let close = hostport.find(']')?;
        let (host, after) = hostport.split_at(close + 1);
        return match after {
            "" => Some((host, None)),
            a => a.strip_prefix(':').map(|p| (host, Some(p))),
        };
    }
    match hostport.matches(':').count() {
        0 => Some((hostport, None)),
        1 => hostport.split_once(':').map(|(h, p)| (h, Some(p))),
        _ => Some((hostport, None)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ok(input: &str) -> String {
        parse_host(input).unwrap()
    }

    #[test]
    fn host_and_port() {
        assert_eq!(ok("localhost:8080"), "http://localhost:8080");
        assert_eq!(ok("192.168.1.5:11434"), "http://192.168.1.5:11434");
    }

    #[test]
    fn explicit_schemes_keep_their_port_or_use_the_scheme_default() {
        assert_eq!(ok("http://gpu-box:11434"), "http://gpu-box:11434");
        assert_eq!(ok("HTTP://gpu-box:9"), "http://gpu-box:9");
        assert_eq!(
            ok("https://ollama.example.com"),
            "https://ollama.example.com:443"
        );
        assert_eq!(
            ok("https://ollama.example.com:8443"),
            "https://ollama.example.com:8443"
        );
        assert_eq!(ok("http://gpu-box"), "http://gpu-box:80");
    }

    #[test]
    fn bare_port_means_loopback() {
        assert_eq!(ok(":11500"), "http://127.0.0.1:11500");
        assert_eq!(ok("http://:11500"), "http://127.0.0.1:11500");
    }

    #[test]
    fn bare_host_gets_the_ollama_port() {
        assert_eq!(ok("gpu-box"), "http://gpu-box:11434");
        assert_eq!(ok("gpu-box:"), "http://gpu-box:11434");
    }

    #[test]
    fn wildcard_listen_addresses_connect_to_loopback() {
        assert_eq!(ok("0.0.0.0"), "http://127.0.0.1:11434");
        assert_eq!(ok("0.0.0.0:9999"), "http://127.0.0.1:9999");
        assert_eq!(ok("http://0.0.0.0:11434"), "http://127.0.0.1:11434");
        assert_eq!(ok("[::]:11434"), "http://[::1]:11434");
        assert_eq!(ok("::"), "http://[::1]:11434");
    }

    #[test]
    fn ipv6_forms() {
        assert_eq!(ok("[::1]:8000"), "http://[::1]:8000");
        assert_eq!(ok("[fe80::1]"), "http://[fe80::1]:11434");
        assert_eq!(ok("::1"), "http://[::1]:11434");
    }

    #[test]
    fn path_query_and_trailing_slash_are_dropped() {
        assert_eq!(ok("http://127.0.0.1:11434/"), "http://127.0.0.1:11434");
        assert_eq!(ok("http://127.0.0.1:11434/api/"), "http://127.0.0.1:11434");
        assert_eq!(ok("localhost:1/x?y=1#z"), "http://localhost:1");
        assert_eq!(ok("  localhost:7  "), "http://localhost:7");
    }

    #[test]
    fn empty_means_default() {
        assert_eq!(ok(""), DEFAULT_HOST);
        assert_eq!(ok("   "), DEFAULT_HOST);
    }

    #[test]
    fn bad_input_says_what_is_wrong() {
        assert!(matches!(
            parse_host("ftp://x:1"),
            Err(HostError::Scheme { scheme, .. }) if scheme == "ftp"
        ));
        assert!(matches!(
            parse_host("localhost:99999"),
            Err(HostError::Port { port, .. }) if port == "99999"
        ));
        assert!(matches!(
            parse_host("localhost:abc"),
            Err(HostError::Port { .. })
        ));
        assert!(matches!(
            parse_host("localhost:0"),
            Err(HostError::Port { .. })
        ));
        assert!(matches!(parse_host("[::1"), Err(HostError::Invalid { .. })));
        // A scheme alone is not an address (it used to become 127.0.0.1:80).
        for bare in ["http://", "https://", "http:///api"] {
            assert!(
                matches!(parse_host(bare), Err(HostError::Invalid { .. })),
                "{bare}"
            );
        }
        assert_eq!(ok("http://:8080"), "http://127.0.0.1:8080");
        assert!(matches!(
            parse_host("user:pw@host:1"),
            Err(HostError::Invalid { .. })
        ));
        assert!(matches!(
            parse_host("my host:1"),
            Err(HostError::Invalid { .. })
        ));
        let msg = parse_host("localhost:abc").unwrap_err().to_string();
        assert!(
            msg.contains("\"localhost:abc\"") && msg.contains("\"abc\""),
            "{msg}"
        );
    }
}
