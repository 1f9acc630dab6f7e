//! `GET /openapi.json`: the OpenAPI 3.1 document, built from the route table
//! ([`crate::routes::table`]) with every body's JSON Schema generated from the protocol types.

use braid_protocol::ContextEvent;
use braid_protocol::api::ApiError;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::routes::{Answer, Route};

/// The OpenAPI document of these routes.
pub fn document(routes: &[Route]) -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .into_generator();
    let error = generator.subschema_for::<ApiError>().to_value();
    let event = generator.subschema_for::<ContextEvent>().to_value();
    let mut paths = Map::new();
    for route in routes {
        let mut parameters: Vec<Value> = route
            .path_params()
            .into_iter()
            .map(|name| {
                json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}})
            })
            .collect();
        for q in route.query {
            parameters.push(json!({
                "name": q.name, "in": "query", "required": false,
                "description": q.description, "schema": {"type": q.kind}
            }));
        }
        if matches!(route.answer, Answer::EventStream) {
            parameters.push(json!({
                "name": "Last-Event-ID", "in": "header", "required": false,
                "description": "The `id:` of the last event received: the stream replays what came after it.",
                "schema": {"type": "integer"}
            }));
        }
        let success = match route.answer {
            Answer::Json(schema) => json!({
                "description": "Success.",
                "content": {"application/json": {"schema": schema(&mut generator).to_value()}}
            }),
            Answer::Empty => json!({"description": "Done."}),
            Answer::Text => json!({
                "description": "Prometheus text exposition format.",
                "content": {"text/plain": {"schema": {"type": "string"}}}
            }),
            Answer::Html => json!({
                "description": "An HTML page for the person's browser.",
                "content": {"text/html": {"schema": {"type": "string"}}}
            }),
            Answer::EventStream => json!({
                "description": "Server-Sent Events: `event:` is the event's name (`context_update`, `content_delta`, `content_final`, `error`, `heartbeat`), `data:` its payload (the variant's fields without `type`), `id:` its sequence in the context's event log (absent on heartbeats and the shutdown notice).",
                "content": {"text/event-stream": {"schema": event.clone()}}
            }),
        };
        let mut responses = Map::new();
        responses.insert(route.status.as_u16().to_string(), success);
        let error_body = json!({"application/json": {"schema": error.clone()}});
        let mut failures: Vec<(&str, &str)> = Vec::new();
        if route.request.is_some() {
            failures.push(("400", "The body is not JSON."));
            failures.push((
                "413",
                "The body is larger than the limit (10 MiB by default).",
            ));
        }
        if route.request.is_some() || !route.query.is_empty() || route.path.contains('{') {
            failures.push((
                "422",
                "The request breaks the schema or a rule; `field` names where.",
            ));
        }
        if route.path.contains('{') {
            failures.push(("404", "No such context, branch or message."));
            failures.push(("409", "Conflicts with what the context is doing."));
        }
        if route.authenticated {
            failures.push((
                "401",
                "A token is configured and the request lacks `Authorization: Bearer <token>`.",
            ));
        }
        for (status, description) in failures {
            responses.insert(
                status.to_owned(),
                json!({"description": description, "content": error_body.clone()}),
            );
        }
        let mut operation = json!({
            "operationId": route.operation_id,
            "summary": route.summary,
            "parameters": parameters,
            "responses": responses,
        });
        if let Some(schema) = route.request {
            operation["requestBody"] = json!({
                "required": true,
                "content": {"application/json": {"schema": schema(&mut generator).to_value()}}
            });
        }
        if route.authenticated {
            operation["security"] = json!([{"bearer": []}]);
        }
        let entry = paths
            .entry(route.path.to_owned())
            .or_insert_with(|| json!({}));
        entry[route.method.as_str().to_ascii_lowercase()] = operation;
    }
    let schemas = generator.take_definitions(true);
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Braid",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Context engine and server for LLM agents. Errors are `{ \"error\": { \"code\", \"message\", \"field\"? } }`."
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "BRAID_API_TOKEN; required when the server has one."}}
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::routes::table;

    #[test]
    fn every_route_and_method_is_documented() {
        let routes = table();
        let doc = document(&routes);
        for r in &routes {
            let op = &doc["paths"][r.path][r.method.as_str().to_ascii_lowercase()];
            assert!(
                op.is_object(),
                "{} {} missing from the document",
                r.method,
                r.path
            );
            assert_eq!(op["operationId"], r.operation_id);
        }
    }

    #[test]
    fn every_reference_resolves_to_a_component() {
        let doc = document(&table());
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
        ] {
            assert!(
                schemas.contains_key(name),
                "{name} is not in the components"
            );
        }
    }

    #[test]
    fn send_message_documents_202_and_its_failures() {
        let doc = document(&table());
        let op = &doc["paths"]["/v1/contexts/{id}/messages"]["post"];
        for status in ["202", "400", "413", "422", "404"] {
            assert!(op["responses"][status].is_object(), "no {status}");
        }
    }
}
