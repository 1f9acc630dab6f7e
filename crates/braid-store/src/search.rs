//! Search over message text (issue 46): what is indexed, how a person's query becomes each
//! database's full-text query, and what a hit names.
//!
//! Only the visible text of `text` messages is indexed (what a person or the model wrote; not
//! reasoning, tool output or notices). It lives in `message_texts`, written with the message in
//! the same transaction and deleted with it; SQLite indexes it with FTS5, PostgreSQL with a
//! `tsvector` column under a GIN index. Both tokenize without stemming, and a query's words
//! each match as a prefix, so a search for `pars` finds "parser" on either store.

use braid_protocol::{BranchName, ContextId, Message, MessageId, MessageKind, Role};
use chrono::{DateTime, Utc};

/// The most words a query may hold.
pub const MAX_SEARCH_WORDS: usize = 16;

/// The longest word a query may hold, in characters.
pub const MAX_SEARCH_WORD_CHARS: usize = 64;

/// The most hits one search answers.
pub const MAX_SEARCH_HITS: u32 = 100;

/// Why a query cannot be searched.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchTermsError {
    /// It holds no letter or digit.
    #[error("the query has no word to search for (letters or digits)")]
    NoWord,
    /// It holds more words than [`MAX_SEARCH_WORDS`].
    #[error("the query has {0} words; at most {MAX_SEARCH_WORDS} are searched")]
    TooManyWords(usize),
    /// One of its words is longer than [`MAX_SEARCH_WORD_CHARS`].
    #[error("the query's word `{0}…` is longer than {MAX_SEARCH_WORD_CHARS} characters")]
    WordTooLong(String),
}

/// The words of a query: runs of letters and digits, lowercased; everything else separates
/// them. A message matches when its text holds every word, each as the start of a word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchTerms(Vec<String>);

impl SearchTerms {
    /// The words of `query`, or why it cannot be searched.
    pub fn parse(query: &str) -> Result<Self, SearchTermsError> {
        let words: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        if words.is_empty() {
            return Err(SearchTermsError::NoWord);
        }
        if words.len() > MAX_SEARCH_WORDS {
            return Err(SearchTermsError::TooManyWords(words.len()));
        }
        if let Some(long) = words
            .iter()
            .find(|w| w.chars().count() > MAX_SEARCH_WORD_CHARS)
        {
            let start: String = long.chars().take(16).collect();
            return Err(SearchTermsError::WordTooLong(start));
        }
        Ok(Self(words))
    }

    /// The words, in the query's order.
    pub fn words(&self) -> &[String] {
        &self.0
    }

    /// The FTS5 query: every word quoted (a word is only letters and digits, so quoting is
    /// all the escaping needed) and matched as a prefix.
    pub(crate) fn fts5(&self) -> String {
        self.0
            .iter()
            .map(|w| format!("\"{w}\"*"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The `to_tsquery('simple', …)` text: every word as a prefix, all required.
    pub(crate) fn tsquery(&self) -> String {
        self.0
            .iter()
            .map(|w| format!("{w}:*"))
            .collect::<Vec<_>>()
            .join(" & ")
    }
}

/// One message a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchHit {
    /// The context holding it.
    pub context: ContextId,
    /// The context's title (empty when it has none yet).
    pub title: String,
    /// The message.
    pub message: MessageId,
    /// A branch showing it, the context's active branch when that one does; `None` when no
    /// branch shows it any more.
    pub branch: Option<BranchName>,
    /// Who wrote it (a person or the model).
    pub role: Role,
    /// Its text around the first match, at most a few dozen words, without markup.
    pub snippet: String,
    /// When it was written.
    pub created_at: DateTime<Utc>,
}

/// Whether a message's row in `message_texts` may exist yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TextRow {
    /// The message is new in this change set: it has no row to replace or remove.
    New,
    /// The message was stored before: its row may need replacing or removing.
    Stored,
}

/// The text a message is found by: the visible text of a `text` message written by a person or
/// the model; `None` for every other message, and for one with no visible text.
pub(crate) fn searchable_text(message: &Message) -> Option<String> {
    if !matches!(message.role, Role::User | Role::Assistant) {
        return None;
    }
    match &message.kind {
        MessageKind::Text(text) => Some(text.text()).filter(|t| !t.trim().is_empty()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_split_into_lowercased_words_of_letters_and_digits() {
        let terms = SearchTerms::parse("  Tokenizer's \"crash\" -- in v2!").unwrap();
        assert_eq!(terms.words(), ["tokenizer", "s", "crash", "in", "v2"]);
        assert_eq!(
            terms.fts5(),
            "\"tokenizer\"* \"s\"* \"crash\"* \"in\"* \"v2\"*"
        );
        assert_eq!(terms.tsquery(), "tokenizer:* & s:* & crash:* & in:* & v2:*");
    }

    #[test]
    fn query_syntax_of_either_database_is_only_a_separator() {
        let terms = SearchTerms::parse("a:* & !b | (c) NEAR\"d\"").unwrap();
        assert_eq!(terms.words(), ["a", "b", "c", "near", "d"]);
    }

    #[test]
    fn a_query_without_words_or_with_too_many_is_refused() {
        assert_eq!(SearchTerms::parse(" ?! "), Err(SearchTermsError::NoWord));
        let many = vec!["w"; MAX_SEARCH_WORDS + 1].join(" ");
        assert_eq!(
            SearchTerms::parse(&many),
            Err(SearchTermsError::TooManyWords(MAX_SEARCH_WORDS + 1))
        );
        let long = "x".repeat(MAX_SEARCH_WORD_CHARS + 1);
        assert!(matches!(
            SearchTerms::parse(&long),
            Err(SearchTermsError::WordTooLong(_))
        ));
    }

    #[test]
    fn only_the_visible_text_of_text_messages_is_searchable() {
        assert_eq!(
            searchable_text(&Message::user_text("find the lexer")).as_deref(),
            Some("find the lexer")
        );
        assert_eq!(searchable_text(&Message::assistant_text("  ")), None);
    }
}
