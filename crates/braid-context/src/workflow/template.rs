//! Workflow templates: `{{ params.<name> }}` and `{{ steps.<name>.output }}` (optionally with a
//! field path into a structured output, `{{ steps.diff.output.stdout }}`), nothing else. The
//! checks at load time and the rendering at run time share [`Placeholder::parse`].

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// What a placeholder names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Placeholder {
    /// `params.<path>`.
    Param(Vec<String>),
    /// `steps.<name>.output[.<path>]`.
    StepOutput { step: String, path: Vec<String> },
}

impl Placeholder {
    /// Reads the text between `{{` and `}}`.
    pub fn parse(expression: &str) -> Result<Self, String> {
        let expression = expression.trim();
        let parts: Vec<&str> = expression.split('.').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(format!("`{{{{ {expression} }}}}` is not a valid reference"));
        }
        match parts.as_slice() {
            ["params", rest @ ..] if !rest.is_empty() => Ok(Placeholder::Param(
                rest.iter().map(|s| (*s).to_owned()).collect(),
            )),
            ["steps", step, "output", rest @ ..] => Ok(Placeholder::StepOutput {
                step: (*step).to_owned(),
                path: rest.iter().map(|s| (*s).to_owned()).collect(),
            }),
            _ => Err(format!(
                "`{{{{ {expression} }}}}` is not allowed: templates may use only `params.<name>` and `steps.<name>.output`"
            )),
        }
    }
}

/// The pieces of a template: literal text and placeholders.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    Text(&'a str),
    Hole(&'a str),
}

/// Splits a template into text and placeholders; an unclosed `{{` is an error.
pub(crate) fn pieces(template: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            out.push(Piece::Text(&rest[..open]));
        }
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            return Err("a `{{` is not closed by `}}`".to_owned());
        };
        out.push(Piece::Hole(&after[..close]));
        rest = &after[close + 2..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Ok(out)
}

/// The values a run's templates see.
pub(crate) struct Scope<'a> {
    pub params: &'a Map<String, Value>,
    pub outputs: &'a BTreeMap<String, Value>,
}

impl Scope<'_> {
    /// The value a placeholder names, or why there is none.
    fn lookup(&self, placeholder: &Placeholder) -> Result<Value, String> {
        let (root, path, what) = match placeholder {
            Placeholder::Param(path) => {
                let Some(first) = self.params.get(&path[0]) else {
                    return Err(format!("parameter `{}` has no value", path[0]));
                };
                (first, &path[1..], format!("params.{}", path.join(".")))
            }
            Placeholder::StepOutput { step, path } => {
                let Some(output) = self.outputs.get(step) else {
                    return Err(format!("step `{step}` has no output yet"));
                };
                (output, &path[..], format!("steps.{step}.output"))
            }
        };
        let mut value = root;
        for key in path {
            value = match value {
                Value::Object(m) => m.get(key),
                Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
                _ => None,
            }
            .ok_or_else(|| format!("`{what}` has no field `{key}`"))?;
        }
        Ok(value.clone())
    }

    /// Renders a template to text: a string value as it is, anything else as JSON.
    pub fn render_text(&self, template: &str) -> Result<String, String> {
        let mut out = String::new();
        for piece in pieces(template)? {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Hole(h) => out.push_str(&as_text(&self.lookup(&Placeholder::parse(h)?)?)),
            }
        }
        Ok(out)
    }

    /// Renders every string inside a JSON value. A string that is exactly one placeholder takes
    /// the value itself, so `{{ params.count }}` stays a number.
    pub fn render_value(&self, value: &Value) -> Result<Value, String> {
        Ok(match value {
            Value::String(s) => match pieces(s)?.as_slice() {
                [Piece::Hole(h)] => self.lookup(&Placeholder::parse(h)?)?,
                _ => Value::String(self.render_text(s)?),
            },
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.render_value(v))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), self.render_value(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }
}

/// A value as template text: strings as they are, everything else as JSON.
pub(crate) fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_params_and_step_outputs_are_allowed() {
        assert_eq!(
            Placeholder::parse(" params.focus ").unwrap(),
            Placeholder::Param(vec!["focus".into()])
        );
        assert_eq!(
            Placeholder::parse("steps.diff.output.stdout").unwrap(),
            Placeholder::StepOutput {
                step: "diff".into(),
                path: vec!["stdout".into()]
            }
        );
        assert!(Placeholder::parse("env.HOME").unwrap_err().contains("only"));
        assert!(Placeholder::parse("steps.diff").is_err());
        assert!(Placeholder::parse("params").is_err());
        assert!(pieces("a {{ params.x").is_err());
    }

    #[test]
    fn rendering_keeps_types_of_whole_placeholders_and_interpolates_text() {
        let params = json!({"focus": "speed", "n": 3})
            .as_object()
            .unwrap()
            .clone();
        let mut outputs = BTreeMap::new();
        outputs.insert("diff".to_owned(), json!({"stdout": "+x", "exit_code": 0}));
        let scope = Scope {
            params: &params,
            outputs: &outputs,
        };
        assert_eq!(
            scope
                .render_text("Review for {{ params.focus }}:\n{{ steps.diff.output.stdout }}")
                .unwrap(),
            "Review for speed:\n+x"
        );
        assert_eq!(
            scope
                .render_value(&json!({"count": "{{params.n}}", "s": "n={{ params.n }}"}))
                .unwrap(),
            json!({"count": 3, "s": "n=3"})
        );
        assert!(
            scope
                .render_text("{{ steps.review.output }}")
                .unwrap_err()
                .contains("no output")
        );
    }
}
