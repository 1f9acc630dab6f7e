//! Fuzz target (issue 13) for the MCP configuration reader (`mcp_servers.json`): arbitrary
//! bytes, arbitrary JSON and mutated valid files. Properties: nothing panics; text that is not
//! JSON, or JSON whose top level is not `{"mcpServers": {...}}`, is a syntax error; every other
//! refusal names the server and the field at fault; every accepted server is usable (a
//! non-empty command or an http(s) URL, a timeout and TTLs within a day).
//!
//! Case counts: `PROPTEST_CASES` (else the default below); `make fuzz` runs them long, bounded
//! by `BRAID_FUZZ_SECONDS`.

use std::time::Duration;

use braid_mcp::config::{ConfigError, McpConfig, TransportConfig};
use braid_testkit::fuzz::{self, any_bytes, json_with_keys, mutated_bytes, mutated_json};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The default case count of each target in `make test`.
const CASES: u32 = 512;

/// Every field a server entry may have: a refusal names one of them (or the entry itself, or
/// its name).
const ENTRY_FIELDS: &[&str] = &[
    "command",
    "args",
    "env",
    "url",
    "headers",
    "disabled",
    "autoApprove",
    "timeout",
    "resourceTtl",
    "resourceTtlByMimeType",
    "trustToolHints",
];

/// The keys arbitrary JSON is built from: the entry fields, the top-level key, a MIME type and a
/// server name.
fn config_keys() -> &'static [&'static str] {
    let mut keys = ENTRY_FIELDS.to_vec();
    keys.extend(["mcpServers", "text/plain", "everything"]);
    keys.leak()
}

const DAY: Duration = Duration::from_secs(86_400);

fn valid_file() -> Value {
    json!({"mcpServers": {
        "everything": {"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1"},
                       "autoApprove": ["echo"], "timeout": 2.5, "alwaysAllow": ["x"]},
        "remote": {"url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer t"},
                   "resourceTtl": 60, "resourceTtlByMimeType": {"text/plain": 5}},
        "off": {"command": "mcp-server-time", "disabled": true}
    }})
}

fn check_config(text: &str) -> Result<(), TestCaseError> {
    let value = serde_json::from_str::<Value>(text).ok();
    match McpConfig::parse(text) {
        Ok(config) => {
            prop_assert!(value.is_some());
            for (name, server) in &config.servers {
                prop_assert!(!name.is_empty());
                match &server.transport {
                    TransportConfig::Stdio { command, .. } => {
                        prop_assert!(!command.trim().is_empty())
                    }
                    TransportConfig::StreamableHttp { url, .. } => {
                        prop_assert!(url.starts_with("http://") || url.starts_with("https://"))
                    }
                }
                prop_assert!(server.timeout > Duration::ZERO && server.timeout <= DAY);
                let ttl = &server.resource_ttl;
                prop_assert!(ttl.default > Duration::ZERO && ttl.default <= DAY);
                for t in ttl.by_mime_type.values() {
                    prop_assert!(*t > Duration::ZERO && *t <= DAY);
                }
            }
        }
        Err(ConfigError::Syntax { reason, .. }) => {
            prop_assert!(!reason.is_empty());
            if let Some(value) = value {
                // JSON is refused as a whole only for its top level.
                let servers = value.get("mcpServers");
                prop_assert!(
                    !value.is_object() || servers.is_some_and(|s| !s.is_object() && !s.is_null()),
                    "a syntax error for a well-shaped file: {}",
                    reason
                );
            }
        }
        Err(ConfigError::Field {
            server,
            field,
            reason,
        }) => {
            let value = value.expect("a field error needs JSON");
            prop_assert!(
                value["mcpServers"].get(&server).is_some(),
                "the refusal names server `{}`, which the file does not have",
                server
            );
            let head = field.split(['.', '[']).next().unwrap_or_default();
            prop_assert!(
                ENTRY_FIELDS.contains(&head) || head == "name" || head == "(entry)",
                "`{}` is not a field: {}",
                field,
                reason
            );
            prop_assert!(!reason.is_empty());
        }
        Err(e @ ConfigError::Read { .. }) => prop_assert!(false, "parse read a file: {}", e),
    }
    Ok(())
}

#[test]
fn mcp_config_from_arbitrary_bytes() {
    fuzz::run("mcp_config_bytes", CASES, any_bytes(256), |bytes| {
        check_config(&String::from_utf8_lossy(&bytes))
    });
}

#[test]
fn mcp_config_from_arbitrary_json() {
    let strategy = prop_oneof![
        json_with_keys(config_keys()),
        json_with_keys(config_keys()).prop_map(|servers| json!({ "mcpServers": servers })),
        (json_with_keys(config_keys()), "[a-z]{0,4}")
            .prop_map(|(entry, name)| json!({ "mcpServers": { name: entry } })),
    ];
    fuzz::run("mcp_config_json", CASES, strategy, |value| {
        check_config(&value.to_string())
    });
}

#[test]
fn mcp_config_mutated() {
    McpConfig::parse(&valid_file().to_string()).unwrap();
    let strategy = prop_oneof![
        mutated_json(valid_file(), config_keys()).prop_map(|v| v.to_string()),
        mutated_bytes(valid_file().to_string().into_bytes())
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ];
    fuzz::run("mcp_config_mutated", CASES, strategy, |text| {
        check_config(&text)
    });
}
