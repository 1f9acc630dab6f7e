//! The names MCP tools get in the `ToolRegistry`: `mcp__<server>__<tool>`.
//!
//! Providers accept tool names of at most 64 bytes made of `[A-Za-z0-9_-]` (OpenAI's rule, the
//! strictest). Server and tool names are free text, so a name that would break the rule is
//! sanitized and truncated, and then gets a short hash of the original pair: two different
//! tools never share a name just because their names were cut or cleaned the same way, and the
//! same tool always gets the same name (histories that mention it stay valid across restarts).

/// The prefix of every MCP tool's registry name.
pub const PREFIX: &str = braid_protocol::config::MCP_TOOL_PREFIX;

/// The longest name providers accept.
pub const MAX_NAME_BYTES: usize = 64;

/// Length of the hash suffix, in hex digits.
const HASH_DIGITS: usize = 8;

/// The registry name of `tool` on `server`: `mcp__<server>__<tool>` when that is a valid name,
/// else a sanitized, truncated form with a hash suffix (see [`hashed_tool_name`]).
pub fn tool_name(server: &str, tool: &str) -> String {
    let plain = format!("{PREFIX}{server}__{tool}");
    if plain.len() <= MAX_NAME_BYTES && plain.chars().all(is_allowed) {
        plain
    } else {
        hashed_tool_name(server, tool)
    }
}

/// The sanitized name with a stable hash of `(server, tool)` appended, used when the plain name
/// is invalid or already taken by another server's tool (`a__b`/`c` and `a`/`b__c` both read
/// `mcp__a__b__c`).
pub fn hashed_tool_name(server: &str, tool: &str) -> String {
    let sanitized: String = format!("{PREFIX}{server}__{tool}")
        .chars()
        .map(|c| if is_allowed(c) { c } else { '_' })
        .collect();
    let keep = MAX_NAME_BYTES - HASH_DIGITS - 1;
    // Every char is ASCII after sanitizing, so byte truncation cuts no character.
    let base = &sanitized[..sanitized.len().min(keep)];
    format!("{base}_{:08x}", pair_hash(server, tool))
}

/// Whether `name` is one [`tool_name`] could have produced (starts with the MCP prefix).
pub fn is_mcp_name(name: &str) -> bool {
    name.starts_with(PREFIX)
}

fn is_allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// FNV-1a over `server \0 tool`, folded to 32 bits: stable across runs and platforms, unlike
/// `std`'s randomly seeded hasher.
fn pair_hash(server: &str, tool: &str) -> u32 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in server.bytes().chain([0]).chain(tool.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (hash ^ (hash >> 32)) as u32
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        !name.is_empty() && name.len() <= MAX_NAME_BYTES && name.chars().all(is_allowed)
    }

    #[test]
    fn clean_short_names_are_kept_readable() {
        assert_eq!(tool_name("everything", "echo"), "mcp__everything__echo");
        assert_eq!(
            tool_name("time", "get_current_time"),
            "mcp__time__get_current_time"
        );
        assert_eq!(tool_name("a-b", "x-y"), "mcp__a-b__x-y");
    }

    #[test]
    fn bad_characters_are_replaced_and_hashed() {
        let name = tool_name("my server", "read.file");
        assert!(valid(&name), "{name}");
        assert!(name.starts_with("mcp__my_server__read_file_"), "{name}");
        // Sanitizing alone would make these two equal; the hash keeps them apart.
        assert_ne!(
            tool_name("my server", "read.file"),
            tool_name("my.server", "read file")
        );
        let unicode = tool_name("сервер", "工具");
        assert!(valid(&unicode), "{unicode}");
    }

    #[test]
    fn long_names_are_truncated_to_64_bytes_without_colliding() {
        let tool_a = format!("{}a", "x".repeat(80));
        let tool_b = format!("{}b", "x".repeat(80));
        let a = tool_name("srv", &tool_a);
        let b = tool_name("srv", &tool_b);
        assert!(valid(&a) && valid(&b), "{a} {b}");
        assert_eq!(a.len(), MAX_NAME_BYTES);
        assert_ne!(a, b);
    }

    #[test]
    fn names_are_stable() {
        assert_eq!(tool_name("s p", "t"), tool_name("s p", "t"));
        assert_eq!(hashed_tool_name("a", "b"), hashed_tool_name("a", "b"));
        // Fixed value: a change of the hash would rename tools in stored histories.
        assert_eq!(hashed_tool_name("a", "b"), "mcp__a__b_e1f4ffab");
        assert_ne!(pair_hash("a__b", "c"), pair_hash("a", "b__c"));
    }

    #[test]
    fn ambiguous_pairs_get_distinct_hashed_names() {
        assert_eq!(tool_name("a__b", "c"), tool_name("a", "b__c"));
        assert_ne!(hashed_tool_name("a__b", "c"), hashed_tool_name("a", "b__c"));
        assert!(is_mcp_name(&hashed_tool_name("a", "b")));
        assert!(!is_mcp_name("read_file"));
    }
}
