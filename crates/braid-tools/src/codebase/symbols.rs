//! Reading definitions and identifier uses out of source files with tree-sitter, for Rust,
//! Python, TypeScript/TSX, JavaScript and Go.
//!
//! Working on syntax trees (instead of text) means a name in a comment or a string is not a
//! reference, and a definition is recognised by its node, not by a guess at its text.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use tree_sitter::{Node, Parser};

/// A language the index understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceLanguage {
    /// `.rs`
    Rust,
    /// `.py`, `.pyi`
    Python,
    /// `.ts`, `.mts`, `.cts`
    TypeScript,
    /// `.tsx`
    Tsx,
    /// `.js`, `.mjs`, `.cjs`, `.jsx`
    JavaScript,
    /// `.go`
    Go,
}

impl SourceLanguage {
    /// The language of a file, from its extension.
    pub fn of(path: &Path) -> Option<Self> {
        Some(match path.extension()?.to_str()? {
            "rs" => Self::Rust,
            "py" | "pyi" => Self::Python,
            "ts" | "mts" | "cts" => Self::TypeScript,
            "tsx" => Self::Tsx,
            "js" | "mjs" | "cjs" | "jsx" => Self::JavaScript,
            "go" => Self::Go,
            _ => return None,
        })
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Self::Rust => tree_sitter_rust::LANGUAGE.into(),
            Self::Python => tree_sitter_python::LANGUAGE.into(),
            Self::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Self::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Self::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Self::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }
}

/// What a definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// A free function.
    Function,
    /// A function inside a type, impl, trait or class.
    Method,
    /// A struct (Rust, Go).
    Struct,
    /// An enum.
    Enum,
    /// One variant of an enum.
    Variant,
    /// A Rust trait.
    Trait,
    /// An interface (TypeScript, Go).
    Interface,
    /// A class.
    Class,
    /// A type alias or other named type.
    Type,
    /// A constant or static.
    Constant,
    /// A top-level variable.
    Variable,
    /// A module.
    Module,
    /// A macro.
    Macro,
}

/// A definition found in a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Definition {
    /// The defined name.
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// 1-based line of the name.
    pub line: u32,
    /// 1-based column of the name.
    pub column: u32,
    /// The definition's first line (its signature), trimmed.
    pub signature: String,
}

/// Definitions and identifier uses of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSymbols {
    /// Every definition, in file order.
    pub definitions: Vec<Definition>,
    /// Every identifier token, by name: 1-based (line, column) positions, in file order.
    pub identifiers: HashMap<String, Vec<(u32, u32)>>,
}

/// Why a file could not be read into symbols.
#[derive(Debug, thiserror::Error)]
pub enum SymbolError {
    /// The grammar and the tree-sitter runtime disagree (an ABI mismatch: a build problem).
    #[error("tree-sitter grammar for {language:?} cannot be loaded: {message}")]
    Grammar {
        /// The language.
        language: SourceLanguage,
        /// The runtime's explanation.
        message: String,
    },
    /// The parser gave up (it was cancelled or timed out).
    #[error("tree-sitter could not parse the file")]
    Parse,
}

/// Parsers, one per language, reused across files.
#[derive(Default)]
pub struct SymbolReader {
    parsers: HashMap<SourceLanguage, Parser>,
}

/// Signatures are cut to this many characters.
const SIGNATURE_CHARS: usize = 200;

impl SymbolReader {
    /// A reader with no parser yet (they are made on first use).
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the definitions and identifiers of `source`, written in `language`.
    pub fn read(
        &mut self,
        language: SourceLanguage,
        source: &[u8],
    ) -> Result<FileSymbols, SymbolError> {
        let parser = match self.parsers.entry(language) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let mut parser = Parser::new();
                parser
                    .set_language(&language.grammar())
                    .map_err(|err| SymbolError::Grammar {
                        language,
                        message: err.to_string(),
                    })?;
                e.insert(parser)
            }
        };
        let tree = parser.parse(source, None).ok_or(SymbolError::Parse)?;
        let mut symbols = FileSymbols::default();
        let mut cursor = tree.walk();
        // Depth-first over every node, without recursion (deep trees would overflow the stack).
        loop {
            let node = cursor.node();
            visit(language, node, source, &mut symbols);
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return Ok(symbols);
                }
            }
        }
    }
}

fn visit(language: SourceLanguage, node: Node<'_>, source: &[u8], symbols: &mut FileSymbols) {
    if node.child_count() == 0 && node.kind().ends_with("identifier") {
        if let Ok(text) = node.utf8_text(source) {
            let pos = node.start_position();
            symbols
                .identifiers
                .entry(text.to_owned())
                .or_default()
                .push((pos.row as u32 + 1, pos.column as u32 + 1));
        }
        return;
    }
    let Some(kind) = definition_kind(language, node) else {
        return;
    };
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    if !name.kind().ends_with("identifier") {
        return;
    }
    let Ok(name_text) = name.utf8_text(source) else {
        return;
    };
    let pos = name.start_position();
    symbols.definitions.push(Definition {
        name: name_text.to_owned(),
        kind,
        line: pos.row as u32 + 1,
        column: pos.column as u32 + 1,
        signature: signature(node, source),
    });
}

fn parent_kind(node: Node<'_>) -> &'static str {
    node.parent().map_or("", |p| p.kind())
}

fn grandparent_kind(node: Node<'_>) -> &'static str {
    node.parent()
        .and_then(|p| p.parent())
        .map_or("", |p| p.kind())
}

fn definition_kind(language: SourceLanguage, node: Node<'_>) -> Option<SymbolKind> {
    use SymbolKind as K;
    let kind = node.kind();
    match language {
        SourceLanguage::Rust => Some(match kind {
            "function_item" if parent_kind(node) == "declaration_list" => K::Method,
            "function_item" => K::Function,
            "function_signature_item" => K::Method,
            "struct_item" | "union_item" => K::Struct,
            "enum_item" => K::Enum,
            "enum_variant" => K::Variant,
            "trait_item" => K::Trait,
            "type_item" => K::Type,
            "const_item" | "static_item" => K::Constant,
            "mod_item" => K::Module,
            "macro_definition" => K::Macro,
            _ => return None,
        }),
        SourceLanguage::Python => Some(match kind {
            "function_definition" if grandparent_kind(node) == "class_definition" => K::Method,
            "function_definition" => K::Function,
            "class_definition" => K::Class,
            _ => return None,
        }),
        SourceLanguage::TypeScript | SourceLanguage::Tsx | SourceLanguage::JavaScript => {
            Some(match kind {
                "function_declaration"
                | "generator_function_declaration"
                | "function_signature" => K::Function,
                "method_definition" | "method_signature" | "abstract_method_signature" => K::Method,
                "class_declaration" | "abstract_class_declaration" => K::Class,
                "interface_declaration" => K::Interface,
                "type_alias_declaration" => K::Type,
                "enum_declaration" => K::Enum,
                "variable_declarator" => {
                    let value = node.child_by_field_name("value").map_or("", |v| v.kind());
                    if matches!(
                        value,
                        "arrow_function"
                            | "function_expression"
                            | "function"
                            | "generator_function"
                    ) {
                        K::Function
                    } else if matches!(value, "class") {
                        K::Class
                    } else if matches!(grandparent_kind(node), "program" | "export_statement") {
                        K::Variable
                    } else {
                        return None;
                    }
                }
                _ => return None,
            })
        }
        SourceLanguage::Go => Some(match kind {
            "function_declaration" => K::Function,
            "method_declaration" | "method_elem" => K::Method,
            "type_spec" | "type_alias" => {
                match node.child_by_field_name("type").map(|t| t.kind()) {
                    Some("struct_type") => K::Struct,
                    Some("interface_type") => K::Interface,
                    _ => K::Type,
                }
            }
            "const_spec" => K::Constant,
            "var_spec" if grandparent_kind(node) == "source_file" => K::Variable,
            _ => return None,
        }),
    }
}

fn signature(node: Node<'_>, source: &[u8]) -> String {
    let text = node.utf8_text(source).unwrap_or("");
    let first = text.lines().next().unwrap_or("").trim();
    let first = first.strip_suffix('{').map_or(first, str::trim_end);
    if first.chars().count() > SIGNATURE_CHARS {
        let cut: String = first.chars().take(SIGNATURE_CHARS).collect();
        format!("{cut}…")
    } else {
        first.to_owned()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn defs(language: SourceLanguage, source: &str) -> Vec<(String, SymbolKind, u32)> {
        let symbols = SymbolReader::new()
            .read(language, source.as_bytes())
            .unwrap();
        symbols
            .definitions
            .into_iter()
            .map(|d| (d.name, d.kind, d.line))
            .collect()
    }

    #[test]
    fn every_grammar_loads() {
        let mut reader = SymbolReader::new();
        for lang in [
            SourceLanguage::Rust,
            SourceLanguage::Python,
            SourceLanguage::TypeScript,
            SourceLanguage::Tsx,
            SourceLanguage::JavaScript,
            SourceLanguage::Go,
        ] {
            reader.read(lang, b"").unwrap();
        }
    }

    #[test]
    fn rust_definitions_and_methods() {
        let d = defs(
            SourceLanguage::Rust,
            "struct Point { x: i32 }\nimpl Point {\n    fn norm(&self) -> i32 { self.x }\n}\nfn main() {}\nenum E { A }\n",
        );
        assert_eq!(
            d,
            [
                ("Point".into(), SymbolKind::Struct, 1),
                ("norm".into(), SymbolKind::Method, 3),
                ("main".into(), SymbolKind::Function, 5),
                ("E".into(), SymbolKind::Enum, 6),
                ("A".into(), SymbolKind::Variant, 6),
            ]
        );
    }

    #[test]
    fn python_typescript_and_go_definitions() {
        assert_eq!(
            defs(
                SourceLanguage::Python,
                "class A:\n    def m(self):\n        pass\ndef f():\n    pass\n"
            ),
            [
                ("A".into(), SymbolKind::Class, 1),
                ("m".into(), SymbolKind::Method, 2),
                ("f".into(), SymbolKind::Function, 4)
            ]
        );
        assert_eq!(
            defs(
                SourceLanguage::TypeScript,
                "interface I { x: number }\nexport const add = (a: number) => a;\nclass C { run() {} }\n"
            ),
            [
                ("I".into(), SymbolKind::Interface, 1),
                ("add".into(), SymbolKind::Function, 2),
                ("C".into(), SymbolKind::Class, 3),
                ("run".into(), SymbolKind::Method, 3),
            ]
        );
        assert_eq!(
            defs(
                SourceLanguage::Go,
                "package p\ntype S struct{}\nfunc (s S) M() {}\nfunc F() {}\n"
            ),
            [
                ("S".into(), SymbolKind::Struct, 2),
                ("M".into(), SymbolKind::Method, 3),
                ("F".into(), SymbolKind::Function, 4)
            ]
        );
    }

    #[test]
    fn identifiers_in_comments_and_strings_are_not_uses() {
        let symbols = SymbolReader::new()
            .read(
                SourceLanguage::Rust,
                b"// helper\nfn a() { helper(); let s = \"helper\"; }\n",
            )
            .unwrap();
        assert_eq!(symbols.identifiers["helper"], [(2, 10)]);
    }

    #[test]
    fn signature_is_the_first_line_without_brace() {
        let symbols = SymbolReader::new()
            .read(
                SourceLanguage::Rust,
                b"pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
            )
            .unwrap();
        assert_eq!(
            symbols.definitions[0].signature,
            "pub fn add(a: i32, b: i32) -> i32"
        );
    }
}
