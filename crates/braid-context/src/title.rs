//! Titles for untitled contexts: when a context's first exchange is over, the context asks the
//! model for a few words and takes them as its title. A failure is logged and the context stays
//! untitled; the person's own title always wins.

use std::time::Duration;

use braid_llm::{GenerationOptions, LlmRequest};
use braid_protocol::{Message, MessageKind, Metadata, Role};
use braid_store::ContextChanges;

use crate::host::Host;

/// Whether the model titles untitled contexts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TitleSetting {
    /// After the first exchange.
    Auto,
    /// Never (the engine's default: an embedder or `braid serve --titles auto` turns it on).
    #[default]
    Off,
}

/// The longest title kept, in characters.
const MAX_TITLE_CHARS: usize = 80;
/// The longest excerpt of each message sent for titling, in characters.
const EXCERPT_CHARS: usize = 1500;
/// How long the title request may take; the context stays responsive meanwhile.
const TITLE_LIMIT: Duration = Duration::from_secs(30);

/// Titles the context if it has no title and its first exchange just ended (one answer in
/// text on the active branch): asks the model, then stores and announces the title.
pub(crate) async fn title_after_first_exchange<H: Host>(host: &mut H) {
    if host.settings().titles == TitleSetting::Off || !host.data().record.title.is_empty() {
        return;
    }
    let Some(llm) = host.llm() else {
        return;
    };
    let messages: Vec<Message> = host.data().active_messages().into_iter().cloned().collect();
    let answers = messages.iter().filter(|m| is_answer(m)).count();
    let Some((question, answer)) = first_exchange(&messages).filter(|_| answers == 1) else {
        return;
    };
    let model = host
        .settings()
        .model_in_use(&host.data().record.config.model);
    let request = title_request(model, &question, &answer);
    let id = host.context_id();
    let answered = host
        .serve_until(tokio::time::timeout(TITLE_LIMIT, llm.complete(&request)))
        .await;
    let title = match answered {
        Ok(Ok(completion)) => match clean_title(&completion.text) {
            Some(t) => t,
            None => {
                tracing::warn!(context = %id, "context left untitled: the model answered an empty title");
                return;
            }
        },
        Ok(Err(error)) => {
            tracing::warn!(context = %id, %error, "context left untitled: the title request failed");
            return;
        }
        Err(_) => {
            tracing::warn!(context = %id, limit_secs = TITLE_LIMIT.as_secs(), "context left untitled: the title request took too long");
            return;
        }
    };
    // A person may have named it meanwhile: theirs wins.
    if !host.data().record.title.is_empty() {
        return;
    }
    let changes = ContextChanges {
        title: Some(title.clone()),
        ..ContextChanges::new()
    };
    match host.commit(changes).await {
        Ok(()) => {
            host.emit_update(None, None, Metadata::new()).await;
            tracing::info!(context = %id, %title, "context titled");
        }
        Err(error) => {
            tracing::warn!(context = %id, %error, "context left untitled: the title could not be stored")
        }
    }
}

/// The request that asks `model` for a title of the exchange.
fn title_request(model: String, question: &str, answer: &str) -> LlmRequest {
    let prompt = format!(
        "Write a title of at most six words for this conversation. Answer with the title only: no quotes, no period.\n\nUser: {}\n\nAssistant: {}",
        excerpt(question),
        excerpt(answer)
    );
    let mut request = LlmRequest::new(model, vec![Message::user_text(prompt)]);
    request.options = GenerationOptions {
        max_tokens: Some(24),
        ..GenerationOptions::default()
    };
    request
}

/// The text of a message in text, if it has any.
fn text_of(m: &Message) -> Option<String> {
    match &m.kind {
        MessageKind::Text(t) => Some(t.text()).filter(|t| !t.trim().is_empty()),
        _ => None,
    }
}

/// Whether `m` is an answer of the model in text.
fn is_answer(m: &Message) -> bool {
    m.role == Role::Assistant && text_of(m).is_some()
}

/// The first user text and the first assistant text after it.
fn first_exchange(messages: &[Message]) -> Option<(String, String)> {
    let user = messages
        .iter()
        .position(|m| m.role == Role::User && text_of(m).is_some())?;
    let answer = messages[user..].iter().find(|m| is_answer(m))?;
    Some((text_of(&messages[user])?, text_of(answer)?))
}

fn excerpt(text: &str) -> String {
    text.chars().take(EXCERPT_CHARS).collect()
}

/// The model's answer as a title: one line, no quotes or trailing period, at most
/// [`MAX_TITLE_CHARS`].
pub fn clean_title(answer: &str) -> Option<String> {
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.strip_prefix("Title:").unwrap_or(line).trim();
    let trimmed = line
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '*' | '#' | '“' | '”'))
        .trim_end_matches('.')
        .trim();
    if trimmed.is_empty() {
        return None;
    }
    Some(trimmed.chars().take(MAX_TITLE_CHARS).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_lose_quotes_periods_and_extra_lines() {
        assert_eq!(
            clean_title("\"Refactor the parser.\"\nmore").as_deref(),
            Some("Refactor the parser")
        );
        assert_eq!(
            clean_title("Title: Fix login bug").as_deref(),
            Some("Fix login bug")
        );
        assert_eq!(clean_title("  \n \"\" "), None);
        assert_eq!(
            clean_title(&"x".repeat(200)).map(|t| t.len()),
            Some(MAX_TITLE_CHARS)
        );
    }

    #[test]
    fn first_exchange_needs_a_reply() {
        let only_user = vec![Message::user_text("hi")];
        assert_eq!(first_exchange(&only_user), None);
        let both = vec![Message::user_text("hi"), Message::assistant_text("hello")];
        assert_eq!(
            first_exchange(&both),
            Some(("hi".to_owned(), "hello".to_owned()))
        );
    }
}
