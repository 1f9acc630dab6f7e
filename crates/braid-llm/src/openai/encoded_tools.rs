//! Tool definitions as the chat-completions body sends them, encoded once per tool set.
//!
//! A context sends the same shared set of definitions (`LlmRequest::tools`, an `Arc`) turn
//! after turn, and contexts built alike share one set. Serializing every schema for every
//! request was most of the cost of encoding a body: with a thousand one-chunk turns, 3.6% of
//! the process's CPU went to walking the same schemas again.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde_json::value::RawValue;

use super::request::tool_definitions;
use crate::request::ToolDefinition;

/// How many tool sets keep their encoding: a server's contexts use a handful of sets at a
/// time (one per role, mode and configuration in use).
const KEPT_SETS: usize = 16;

/// A tool set (held weakly) and its encoding.
type Entry = (Weak<[ToolDefinition]>, Arc<RawValue>);

/// The encodings of the tool sets requests used last, each kept while its set lives.
#[derive(Debug, Default)]
pub(crate) struct EncodedTools {
    /// Newest first. A [`Weak`] keeps its set's allocation, so no other set can take its
    /// address while the entry exists: the same address is the same set.
    recent: Mutex<VecDeque<Entry>>,
}

impl EncodedTools {
    /// `tools` in OpenAI's `function` format, as JSON text: the kept encoding when this set was
    /// encoded before, else a new one, which is kept.
    pub(crate) fn of(
        &self,
        tools: &Arc<[ToolDefinition]>,
    ) -> Result<Arc<RawValue>, serde_json::Error> {
        if let Some(encoded) = find(&mut self.recent(), tools) {
            return Ok(encoded);
        }
        // Encoded outside the lock, as other requests may be looking meanwhile.
        let encoded: Arc<RawValue> =
            serde_json::value::to_raw_value(&tool_definitions(tools))?.into();
        Ok(self.keep(tools, encoded))
    }

    /// Keeps `encoded` as the encoding of `tools`, unless another request encoded the same set
    /// first: then that one is kept and answered, so a set started by many requests at once
    /// takes one entry, not one each.
    fn keep(&self, tools: &Arc<[ToolDefinition]>, encoded: Arc<RawValue>) -> Arc<RawValue> {
        let mut recent = self.recent();
        if let Some(kept) = find(&mut recent, tools) {
            return kept;
        }
        recent.push_front((Arc::downgrade(tools), Arc::clone(&encoded)));
        recent.truncate(KEPT_SETS);
        encoded
    }

    fn recent(&self) -> std::sync::MutexGuard<'_, VecDeque<Entry>> {
        // The list only ever holds whole entries: a panic elsewhere leaves it usable.
        self.recent.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The kept encoding of `tools`, forgetting the entries of sets that are gone.
fn find(recent: &mut VecDeque<Entry>, tools: &Arc<[ToolDefinition]>) -> Option<Arc<RawValue>> {
    recent.retain(|(kept, _)| kept.strong_count() > 0);
    let set = Arc::as_ptr(tools);
    recent
        .iter()
        .find(|(kept, _)| std::ptr::addr_eq(kept.as_ptr(), set))
        .map(|(_, encoded)| Arc::clone(encoded))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn tools(name: &str) -> Arc<[ToolDefinition]> {
        Arc::from([ToolDefinition {
            name: name.to_owned(),
            description: "Reads a file.".to_owned(),
            parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }])
    }

    #[test]
    fn a_set_is_encoded_as_its_definitions_serialize() {
        let set = tools("read_file");
        let encoded = EncodedTools::default().of(&set).unwrap();
        assert_eq!(
            encoded.get(),
            serde_json::to_string(&tool_definitions(&set)).unwrap()
        );
    }

    #[test]
    fn the_same_set_is_encoded_once_and_another_set_apart() {
        let memo = EncodedTools::default();
        let set = tools("read_file");
        let first = memo.of(&set).unwrap();
        assert!(Arc::ptr_eq(&first, &memo.of(&Arc::clone(&set)).unwrap()));
        let other = memo.of(&tools("write_file")).unwrap();
        assert!(other.get().contains("write_file"), "{}", other.get());
        assert!(first.get().contains("read_file"), "{}", first.get());
    }

    #[test]
    fn a_set_encoded_twice_at_once_keeps_the_first_encoding_and_one_entry() {
        let memo = EncodedTools::default();
        let set = tools("read_file");
        let first = memo.of(&set).unwrap();
        // A second request that encoded the same set meanwhile, before finding the first.
        let second: Arc<RawValue> = serde_json::value::to_raw_value(&tool_definitions(&set))
            .unwrap()
            .into();
        let kept = memo.keep(&set, second);
        assert!(Arc::ptr_eq(&first, &kept), "the first encoding is answered");
        assert_eq!(memo.recent().len(), 1, "the set took a second entry");
    }

    #[test]
    fn a_set_that_is_gone_leaves_no_encoding_behind() {
        let memo = EncodedTools::default();
        memo.of(&tools("read_file")).unwrap();
        let live = tools("write_file");
        memo.of(&live).unwrap();
        assert_eq!(memo.recent().len(), 1, "the dropped set's entry was kept");
    }

    #[test]
    fn only_the_newest_sets_keep_their_encoding() {
        let memo = EncodedTools::default();
        let sets: Vec<_> = (0..KEPT_SETS + 4)
            .map(|i| tools(&format!("tool_{i}")))
            .collect();
        for set in &sets {
            memo.of(set).unwrap();
        }
        assert_eq!(memo.recent().len(), KEPT_SETS);
    }
}
