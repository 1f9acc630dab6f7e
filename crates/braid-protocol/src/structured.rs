//! Recognizing a `plan` or `question` written as JSON in an assistant's text (the compatible
//! way; the structured way is the `propose_plan` / `ask_user` tools). Text whose JSON does not
//! validate stays text (seed 002).

use serde_json::Value;

use crate::kinds::{MessageKind, PlanMessage, QuestionMessage};
use crate::validate::Validate;

/// The plan or question in `text`, if it holds one that validates. Looks at the whole text, at
/// fenced code blocks, and at the outermost `{...}` span, in that order. A candidate may also be
/// wrapped as `{"type": "plan", ...}` or `{"plan": {...}}`.
pub fn detect_structured(text: &str) -> Option<MessageKind> {
    candidates(text).find_map(|c| {
        let value: Value = serde_json::from_str(c).ok()?;
        classify(value)
    })
}

fn candidates(text: &str) -> impl Iterator<Item = &str> {
    let trimmed = text.trim();
    let fenced = fenced_blocks(trimmed);
    let braces = match (trimmed.find('{'), trimmed.rfind('}')) {
        (Some(start), Some(end)) if start < end => Some(&trimmed[start..=end]),
        _ => None,
    };
    std::iter::once(trimmed).chain(fenced).chain(braces)
}

fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        // Skip the info string (`json`) up to the end of the line.
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        let Some(end) = body.find("```") else { break };
        blocks.push(body[..end].trim());
        rest = &body[end + 3..];
    }
    blocks
}

fn classify(value: Value) -> Option<MessageKind> {
    let Value::Object(mut object) = value else {
        return None;
    };
    for key in ["plan", "question"] {
        if let Some(inner @ Value::Object(_)) = object.get(key)
            && object.len() == 1
        {
            let inner = inner.clone();
            return classify(inner);
        }
    }
    let tag = object
        .remove("type")
        .or_else(|| object.remove("message_type"))
        .and_then(|t| t.as_str().map(str::to_owned));
    let value = Value::Object(object);
    let looks_like_plan = value.get("goal").is_some() && value.get("steps").is_some();
    let looks_like_question = value.get("question").is_some() && value.get("options").is_some();
    match tag.as_deref() {
        Some("plan") => plan(value),
        Some("question") => question(value),
        _ if looks_like_plan => plan(value),
        _ if looks_like_question => question(value),
        _ => None,
    }
}

fn plan(value: Value) -> Option<MessageKind> {
    let plan: PlanMessage = serde_json::from_value(value).ok()?;
    plan.validate().ok()?;
    Some(MessageKind::Plan(plan))
}

fn question(value: Value) -> Option<MessageKind> {
    let question: QuestionMessage = serde_json::from_value(value).ok()?;
    question.validate().ok()?;
    Some(MessageKind::Question(Box::new(question)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = r#"{"goal":"Fix the bug","steps":[{"step_number":1,"action":"Read","reason":"Understand"}]}"#;

    #[test]
    fn whole_text_plan_is_recognized() {
        assert!(matches!(
            detect_structured(PLAN),
            Some(MessageKind::Plan(_))
        ));
    }

    #[test]
    fn fenced_plan_with_prose_is_recognized() {
        let text = format!("Here is my plan:\n```json\n{PLAN}\n```\nShall I go on?");
        assert!(matches!(
            detect_structured(&text),
            Some(MessageKind::Plan(_))
        ));
    }

    #[test]
    fn question_is_recognized_with_type_tag() {
        let text = r#"{"type":"question","question":"Which DB?","options":[{"label":"SQLite","value":"sqlite"}],"severity":"major"}"#;
        match detect_structured(text) {
            Some(MessageKind::Question(q)) => assert_eq!(q.options.len(), 1),
            other => panic!("expected a question, got {other:?}"),
        }
    }

    #[test]
    fn invalid_plan_stays_text() {
        let text = r#"{"goal":"","steps":[]}"#;
        assert!(detect_structured(text).is_none());
    }

    #[test]
    fn question_without_options_stays_text() {
        assert!(detect_structured(r#"{"question":"Why?","options":[]}"#).is_none());
    }

    #[test]
    fn ordinary_prose_and_json_are_not_structured() {
        assert!(detect_structured("Just some text with {braces}").is_none());
        assert!(detect_structured(r#"{"name":"x"}"#).is_none());
    }
}
