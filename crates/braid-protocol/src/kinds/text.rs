//! `text`: what a person or the model wrote.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::validate::{FieldPath, Problems, Validate};

/// Text in one or more parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct TextMessage {
    /// The parts, in order. A plain message has one `text` part.
    pub parts: Vec<TextPart>,
}

/// One part of a text message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TextPart {
    /// Visible text (Markdown).
    Text {
        /// The text.
        text: String,
    },
    /// The model's reasoning, shown to the person but never sent back to a model.
    Reasoning {
        /// The reasoning text.
        text: String,
    },
}

impl TextMessage {
    /// A message of one text part.
    pub fn plain(text: impl Into<String>) -> Self {
        Self {
            parts: vec![TextPart::Text { text: text.into() }],
        }
    }

    /// The visible text: every `text` part, joined.
    pub fn text(&self) -> String {
        self.visible_text().into_owned()
    }

    /// [`Self::text`], borrowed when there is one visible part (as there is in most messages):
    /// every request renders every message's text.
    pub fn visible_text(&self) -> std::borrow::Cow<'_, str> {
        let mut visible = self.parts.iter().filter_map(|p| match p {
            TextPart::Text { text } => Some(text.as_str()),
            TextPart::Reasoning { .. } => None,
        });
        match (visible.next(), visible.next()) {
            (None, _) => std::borrow::Cow::Borrowed(""),
            (Some(one), None) => std::borrow::Cow::Borrowed(one),
            (Some(first), Some(second)) => {
                let mut joined = String::from(first);
                joined.push_str(second);
                joined.extend(visible);
                std::borrow::Cow::Owned(joined)
            }
        }
    }

    /// Appends streamed text to the last visible part (or a new one).
    pub fn push_text(&mut self, delta: &str) {
        match self.parts.last_mut() {
            Some(TextPart::Text { text }) => text.push_str(delta),
            _ => self.parts.push(TextPart::Text {
                text: delta.to_owned(),
            }),
        }
    }

    /// Whether there is no visible or reasoning text at all.
    pub fn is_blank(&self) -> bool {
        self.parts.iter().all(|p| match p {
            TextPart::Text { text } | TextPart::Reasoning { text } => text.trim().is_empty(),
        })
    }
}

impl Validate for TextMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        let parts = path.field("parts");
        if self.parts.is_empty() {
            problems.push(&parts, "must have at least one part");
            return;
        }
        // Each part on its own, so a client learns which of several is at fault.
        for (i, part) in self.parts.iter().enumerate() {
            let (TextPart::Text { text } | TextPart::Reasoning { text }) = part;
            let at = parts.index(i).field("text");
            problems.require_text(text, &at);
            problems.check(
                text.contains('\0'),
                &at,
                "must not contain a NUL character (U+0000)",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    #[test]
    fn visible_text_borrows_one_part_and_joins_several_without_reasoning() {
        let one = TextMessage::plain("Done.");
        assert!(matches!(one.visible_text(), Cow::Borrowed("Done.")));
        let several = TextMessage {
            parts: vec![
                TextPart::Reasoning {
                    text: "thinking".to_owned(),
                },
                TextPart::Text {
                    text: "First, ".to_owned(),
                },
                TextPart::Text {
                    text: "then ".to_owned(),
                },
                TextPart::Text {
                    text: "last.".to_owned(),
                },
            ],
        };
        assert_eq!(several.visible_text(), "First, then last.");
        assert_eq!(several.text(), "First, then last.");
        let reasoning_only = TextMessage {
            parts: vec![TextPart::Reasoning {
                text: "thinking".to_owned(),
            }],
        };
        assert_eq!(reasoning_only.visible_text(), "");
    }
}
