//! `GET /openapi.json`: the OpenAPI 3.1 document, generated from the handlers of
//! [`crate::routes::api`] (their path, query, header and body extractors and their answer
//! types), with every schema from the protocol types: answers as the server writes them, inputs
//! as it reads them ([`schemas`]). The web UI's API client is generated from
//! this document (`make generate`), so a route the server lacks is a type error in the UI.

use aide::openapi::{Info, OpenApi};
use schemars::generate::Contract;
use serde_json::{Value, json};

mod schemas;

pub use schemas::answer_schema_for;

/// The OpenAPI document of the API. Problems the generator reports (a parameter declared twice,
/// two bodies) are logged; the test below fails on any.
pub fn document() -> Value {
    generate(|error| tracing::warn!(%error, "OpenAPI document"))
}

/// The document, with `on_error` told of every problem the generator finds. The 422 that
/// several extractors of one route document alike ([`crate::error::invalid_doc`]) is kept once
/// and not a problem.
fn generate(on_error: impl Fn(aide::Error) + 'static) -> Value {
    aide::generate::on_error(move |error| {
        if !matches!(&error, aide::Error::InferredResponseConflict(status) if status == "422") {
            on_error(error);
        }
    });
    aide::generate::in_context(|ctx| ctx.schema = schemas::generator(Contract::Deserialize));
    let mut api = OpenApi {
        info: Info {
            title: "Braid".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: Some(
                "Context engine and server for LLM agents. Errors are `{ \"error\": { \"code\", \"message\", \"field\"? } }`."
                    .into(),
            ),
            ..Info::default()
        },
        ..OpenApi::default()
    };
    let (_router, answers) = schemas::collect_answers(|| crate::routes::api().finish_api(&mut api));
    let mut doc = serde_json::to_value(&api).unwrap_or_else(|error| {
        tracing::error!(%error, "the OpenAPI document is not serializable");
        json!({})
    });
    schemas::add_answers(&mut doc, answers);
    schemas::name_variants(&mut doc);
    doc["components"]["securitySchemes"] = json!({
        "bearer": {"type": "http", "scheme": "bearer", "description": "BRAID_API_TOKEN; required when the server has one."}
    });
    secure(&mut doc);
    idempotent(&mut doc);
    doc
}

/// Documents the `Idempotency-Key` header [`crate::idempotency::idempotent`] reads on every
/// `POST`, with its 409 and 422.
fn idempotent(doc: &mut Value) {
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for item in paths.values_mut() {
        let Some(operation) = item.get_mut("post") else {
            continue;
        };
        let parameter = json!({
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": "A key of the client's choosing (1 to 255 visible ASCII characters; a UUID is usual). The same key with the same body within 24 hours answers the first answer (same status, same body) and does the work once, also after a restart; with another body it is refused (422); while the first request runs, 409.",
            "schema": {"type": "string", "minLength": 1, "maxLength": crate::idempotency::MAX_KEY_LENGTH}
        });
        match operation["parameters"].as_array_mut() {
            Some(parameters) => parameters.push(parameter),
            None => operation["parameters"] = json!([parameter]),
        }
        for (status, text) in [
            (
                "409",
                "The first request with this `Idempotency-Key` is still running, or the state does not allow it.",
            ),
            (
                "422",
                "The request breaks the schema or a rule (`field` names where), or its `Idempotency-Key` was first sent with another body.",
            ),
        ] {
            if operation["responses"][status].is_null() {
                operation["responses"][status] = json!({
                    "description": text,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}}
                });
            }
        }
    }
}

/// Marks every operation behind the bearer token (all but [`crate::routes::unauthenticated`])
/// with the security requirement and its 401 answer.
fn secure(doc: &mut Value) {
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        if crate::routes::unauthenticated(path) {
            continue;
        }
        let Some(operations) = item.as_object_mut() else {
            continue;
        };
        for operation in operations.values_mut() {
            operation["security"] = json!([{"bearer": []}]);
            operation["responses"]["401"] = json!({
                "description": "A token is configured and the request lacks `Authorization: Bearer <token>`.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}}
            });
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;

    /// The committed document the web UI's client is generated from.
    fn committed_document() -> std::path::PathBuf {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../web/src/generated/openapi.json")
    }

    #[test]
    fn the_committed_document_is_current() {
        let fresh = format!("{}\n", serde_json::to_string_pretty(&document()).unwrap());
        let path = committed_document();
        if std::env::var_os("BRAID_UPDATE_TS").is_some() {
            std::fs::write(&path, &fresh).unwrap();
            return;
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            current == fresh,
            "{} is stale: run `make generate` and commit the result",
            path.display()
        );
    }

    #[test]
    fn the_generator_reports_no_problem() {
        let problems = Rc::new(RefCell::new(Vec::new()));
        let seen = problems.clone();
        generate(move |e| seen.borrow_mut().push(e.to_string()));
        assert!(problems.borrow().is_empty(), "{:?}", problems.borrow());
    }

    #[test]
    fn every_reference_resolves_to_a_component() {
        let doc = document();
        let text = doc.to_string();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        for part in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
            let name = part.split('"').next().unwrap();
            assert!(schemas.contains_key(name), "dangling reference to {name}");
        }
        for name in [
            "SendMessageRequest",
            "ContextSummary",
            "ApiError",
            "ContextEvent",
            "MergeHeld",
        ] {
            assert!(
                schemas.contains_key(name),
                "{name} is not in the components"
            );
        }
    }

    #[test]
    fn send_message_documents_202_its_body_and_its_failures() {
        let doc = document();
        let op = &doc["paths"]["/v1/contexts/{id}/messages"]["post"];
        for status in ["202", "400", "401", "413", "422", "404", "default"] {
            assert!(op["responses"][status].is_object(), "no {status}: {op}");
        }
        assert_eq!(
            op["requestBody"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/SendMessageRequest"
        );
        assert_eq!(op["parameters"][0]["name"], "id");
        assert_eq!(op["parameters"][0]["in"], "path");
    }

    #[test]
    fn parameters_come_from_the_handlers_extractors() {
        let doc = document();
        let list = &doc["paths"]["/v1/contexts/{id}/messages"]["get"];
        let names: Vec<&str> = list["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "id", "after", "before", "branch", "from", "kind", "limit", "view"
            ]
        );
        let events = &doc["paths"]["/v1/contexts/{id}/events"]["get"];
        assert!(
            events["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "Last-Event-ID" && p["in"] == "header"),
            "{events}"
        );
        assert!(events["responses"]["200"]["content"]["text/event-stream"].is_object());
    }

    #[test]
    fn health_and_the_oauth_callback_need_no_token() {
        let doc = document();
        assert!(doc["paths"]["/health"]["get"]["security"].is_null());
        assert!(doc["paths"]["/v1/contexts"]["get"]["security"].is_array());
    }

    #[test]
    fn a_held_merge_documents_its_409_body() {
        let doc = document();
        let op = &doc["paths"]["/v1/contexts/{id}/branches/{name}/merge"]["post"];
        assert_eq!(
            op["responses"]["409"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/MergeHeld"
        );
    }
}
