//! Titles for untitled contexts: after the first exchange, a separate small request asks the
//! model for a few words, and the context is renamed. A failure is logged and the context stays
//! untitled.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use braid_context::{ContextHandle, MessageQuery};
use braid_llm::{GenerationOptions, LlmRequest};
use braid_protocol::api::UpdateContextRequest;
use braid_protocol::{ContextEvent, ContextId, Message, MessageKind, Role, StateKind};

use crate::app::App;

/// Whether the model titles untitled contexts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TitleSetting {
    /// After the first exchange.
    Auto,
    /// Never.
    Off,
}

/// The longest title kept, in characters.
const MAX_TITLE_CHARS: usize = 80;
/// The longest excerpt of each message sent for titling, in characters.
const EXCERPT_CHARS: usize = 1500;
/// How long a titler waits for the first exchange to finish.
const WAIT_LIMIT: Duration = Duration::from_secs(600);

/// Starts at most one titling task per context.
#[derive(Debug)]
pub struct Titler {
    setting: TitleSetting,
    running: Mutex<HashSet<ContextId>>,
}

impl Titler {
    /// A titler with this setting.
    pub fn new(setting: TitleSetting) -> Self {
        Self {
            setting,
            running: Mutex::new(HashSet::new()),
        }
    }

    fn claim(&self, id: ContextId) -> bool {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id)
    }

    fn release(&self, id: ContextId) {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }
}

/// Called after a message was sent: titles the context once its first exchange is over, when it
/// has no title.
pub fn after_send(app: &Arc<App>, handle: &ContextHandle) {
    if app.titler.setting == TitleSetting::Off || app.registry.services().llm.is_none() {
        return;
    }
    if !app.titler.claim(handle.id()) {
        return;
    }
    let app = app.clone();
    let handle = handle.clone();
    tokio::spawn(async move {
        let id = handle.id();
        match tokio::time::timeout(WAIT_LIMIT, title(&app, &handle)).await {
            Ok(Ok(Some(t))) => tracing::info!(context = %id, title = %t, "context titled"),
            Ok(Ok(None)) => {}
            Ok(Err(reason)) => {
                tracing::warn!(context = %id, %reason, "context left untitled")
            }
            Err(_) => tracing::warn!(context = %id, "context left untitled: no exchange finished"),
        }
        app.titler.release(id);
    });
}

async fn title(app: &App, handle: &ContextHandle) -> Result<Option<String>, String> {
    let mut events = handle.subscribe();
    let summary = handle.summary().await.map_err(|e| e.to_string())?;
    if summary.title.is_some() {
        return Ok(None);
    }
    let exchange = loop {
        let state = handle.state(false).await.map_err(|e| e.to_string())?.state;
        match state.kind() {
            StateKind::Idle => {
                let messages = handle
                    .messages(MessageQuery {
                        limit: Some(50),
                        ..MessageQuery::default()
                    })
                    .await
                    .map_err(|e| e.to_string())?
                    .messages;
                if let Some(exchange) = first_exchange(&messages) {
                    break exchange;
                }
            }
            StateKind::Failed => return Err("the first exchange failed".into()),
            _ => {}
        }
        // Wait for the next state change.
        loop {
            match events.recv().await {
                Ok(e) if matches!(e.event, ContextEvent::ContextUpdate(ref u) if u.previous_state.is_some()) =>
                {
                    break;
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                    return Err("the context stopped".into());
                }
            }
        }
    };
    let Some(llm) = app.registry.services().llm.clone() else {
        return Ok(None);
    };
    let model = if summary.config.model.is_empty() {
        app.registry.services().settings.default_model.clone()
    } else {
        summary.config.model.clone()
    };
    let prompt = format!(
        "Write a title of at most six words for this conversation. Answer with the title only: no quotes, no period.\n\nUser: {}\n\nAssistant: {}",
        excerpt(&exchange.0),
        excerpt(&exchange.1)
    );
    let mut request = LlmRequest::new(model, vec![Message::user_text(prompt)]);
    request.options = GenerationOptions {
        max_tokens: Some(24),
        ..GenerationOptions::default()
    };
    let answer = llm.complete(&request).await.map_err(|e| e.to_string())?;
    let Some(t) = clean_title(&answer.text) else {
        return Err("the model answered an empty title".into());
    };
    // A person may have named it meanwhile: theirs wins.
    if handle
        .summary()
        .await
        .map_err(|e| e.to_string())?
        .title
        .is_some()
    {
        return Ok(None);
    }
    handle
        .update(UpdateContextRequest {
            title: Some(t.clone()),
            config: None,
        })
        .await
        .map_err(|e| e.to_string())?;
    Ok(Some(t))
}

/// The first user text and the first assistant text after it.
fn first_exchange(messages: &[Message]) -> Option<(String, String)> {
    let text = |m: &Message| match &m.kind {
        MessageKind::Text(t) => Some(t.text()),
        _ => None,
    };
    let user = messages
        .iter()
        .position(|m| m.role == Role::User && text(m).is_some_and(|t| !t.trim().is_empty()))?;
    let assistant = messages[user..]
        .iter()
        .find(|m| m.role == Role::Assistant && text(m).is_some_and(|t| !t.trim().is_empty()))?;
    Some((text(&messages[user])?, text(assistant)?))
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
