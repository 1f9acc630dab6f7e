//! Validation: one `Validate` implementation per kind, each reporting every problem it finds
//! (not just the first) with the path of the field at fault, so a client can fix them all at once.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

/// Where a problem is, as a dotted JSON path such as `data.calls[0].id`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath(String);

impl FieldPath {
    /// The path of the value being validated itself.
    pub fn root() -> Self {
        Self(String::new())
    }

    /// The path of a named field below this one.
    pub fn field(&self, name: &str) -> Self {
        if self.0.is_empty() {
            Self(name.to_owned())
        } else {
            Self(format!("{}.{name}", self.0))
        }
    }

    /// The path of an element of the array at this path.
    pub fn index(&self, i: usize) -> Self {
        Self(format!("{}[{i}]", self.0))
    }

    /// The path as text; the empty path is shown as `(root)`.
    pub fn as_str(&self) -> &str {
        if self.0.is_empty() { "(root)" } else { &self.0 }
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing wrong with a value, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct Problem {
    /// The JSON path of the field at fault, e.g. `data.range.end_line`.
    pub path: String,
    /// What is wrong, in words a person can act on.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Collects problems while a value is walked.
#[derive(Debug, Default)]
pub struct Problems(Vec<Problem>);

impl Problems {
    /// Records a problem at `path`.
    pub fn push(&mut self, path: &FieldPath, message: impl Into<String>) {
        self.0.push(Problem {
            path: path.as_str().to_owned(),
            message: message.into(),
        });
    }

    /// Records a problem when `condition` holds.
    pub fn check(&mut self, condition: bool, path: &FieldPath, message: impl Into<String>) {
        if condition {
            self.push(path, message);
        }
    }

    /// Records that a required text field is empty (or only whitespace).
    pub fn require_text(&mut self, value: &str, path: &FieldPath) {
        self.check(value.trim().is_empty(), path, "must not be empty");
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Turns the collection into a result.
    pub fn into_result(self) -> Result<(), ValidationErrors> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ValidationErrors(self.0))
        }
    }
}

/// Every problem found in a value. Its `Display` lists them one a line as `path: problem`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ValidationErrors(pub Vec<Problem>);

impl ValidationErrors {
    /// The problems, in the order they were found.
    pub fn problems(&self) -> &[Problem] {
        &self.0
    }

    /// Whether some problem is at exactly `path`.
    pub fn has_path(&self, path: &str) -> bool {
        self.0.iter().any(|p| p.path == path)
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

/// A value that can check itself. Implementations push every problem they find; they never stop
/// at the first.
pub trait Validate {
    /// Pushes every problem of `self` (found at `path`) into `problems`.
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems);

    /// Validates `self` as a whole value.
    fn validate(&self) -> Result<(), ValidationErrors> {
        let mut problems = Problems::default();
        self.validate_at(&FieldPath::root(), &mut problems);
        problems.into_result()
    }
}

/// Problems of a workspace-relative or absolute file path as a person or model wrote it: empty,
/// a NUL byte, or a `..` component (traversal is refused before any file system access).
pub fn check_file_path(value: &str, path: &FieldPath, problems: &mut Problems) {
    if value.trim().is_empty() {
        problems.push(path, "must not be empty");
        return;
    }
    problems.check(value.contains('\0'), path, "must not contain a NUL byte");
    problems.check(
        value.split(['/', '\\']).any(|c| c == ".."),
        path,
        "must not contain `..` (paths may not leave the workspace)",
    );
}

/// Normalizes a file path as written: backslashes become slashes, `.` components and repeated
/// separators are removed. `..` is left for validation to refuse.
pub fn normalize_file_path(value: &str) -> String {
    let value = value.trim().replace('\\', "/");
    let absolute = value.starts_with('/');
    let parts: Vec<&str> = value
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_compose_fields_and_indices() {
        let p = FieldPath::root()
            .field("data")
            .field("calls")
            .index(2)
            .field("id");
        assert_eq!(p.as_str(), "data.calls[2].id");
        assert_eq!(FieldPath::root().as_str(), "(root)");
    }

    #[test]
    fn errors_display_one_problem_a_line() {
        let mut problems = Problems::default();
        problems.push(&FieldPath::root().field("a"), "bad");
        problems.push(&FieldPath::root().field("b"), "worse");
        let err = problems.into_result().unwrap_err();
        assert_eq!(err.to_string(), "a: bad\nb: worse");
    }

    #[test]
    fn file_path_with_parent_component_is_refused() {
        let mut problems = Problems::default();
        check_file_path(
            "src/../../etc/passwd",
            &FieldPath::root().field("path"),
            &mut problems,
        );
        let err = problems.into_result().unwrap_err();
        assert!(err.has_path("path"));
        assert!(err.to_string().contains(".."));
    }

    #[test]
    fn file_path_with_nul_is_refused() {
        let mut problems = Problems::default();
        check_file_path("a\0b", &FieldPath::root().field("path"), &mut problems);
        assert!(
            problems
                .into_result()
                .unwrap_err()
                .to_string()
                .contains("NUL")
        );
    }

    #[test]
    fn dotted_names_are_not_traversal() {
        let mut problems = Problems::default();
        check_file_path("src/..hidden/a..b.rs", &FieldPath::root(), &mut problems);
        assert!(problems.is_empty());
    }

    #[test]
    fn normalization_removes_dots_and_repeated_separators() {
        assert_eq!(normalize_file_path("./src//lib.rs"), "src/lib.rs");
        assert_eq!(normalize_file_path("src\\main.rs"), "src/main.rs");
        assert_eq!(normalize_file_path("/abs/./x"), "/abs/x");
        assert_eq!(normalize_file_path("./"), ".");
    }
}
