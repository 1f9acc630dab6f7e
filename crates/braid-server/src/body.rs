//! Request extractors whose failures are API errors: a JSON body (400 when it is not JSON, 422
//! naming the field when it breaks the schema, 413 above the limit) and the query string.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use braid_protocol::body::parse_body;
use serde::de::DeserializeOwned;

use crate::error::ApiFailure;

/// The body limit in force, stored in the request extensions by the app so the 413 message can
/// name it.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub usize);

/// A JSON body parsed into `T`.
pub struct JsonBody<T>(pub T);

/// A body read as UTF-8 text, for bodies with their own parser (`SendMessageRequest`).
pub struct TextBody(pub String);

impl<S: Send + Sync> FromRequest<S> for TextBody {
    type Rejection = ApiFailure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let limit = req
            .extensions()
            .get::<BodyLimit>()
            .map(|l| l.0)
            .unwrap_or_default();
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|r| rejection(r, limit))?;
        String::from_utf8(bytes.to_vec())
            .map(TextBody)
            .map_err(|e| ApiFailure::unreadable(format!("the body is not UTF-8: {e}")))
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiFailure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let TextBody(text) = TextBody::from_request(req, state).await?;
        parse_body::<T>(&text)
            .map(JsonBody)
            .map_err(|e| ApiFailure::from(&e))
    }
}

fn rejection(r: BytesRejection, limit: usize) -> ApiFailure {
    if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiFailure::too_large(limit)
    } else {
        ApiFailure::unreadable(format!("the body could not be read: {}", r.body_text()))
    }
}

/// The query string's parameters (the last value wins when one is repeated).
pub struct QueryMap(pub HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for QueryMap {
    type Rejection = ApiFailure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map(|q| QueryMap(q.0))
            .map_err(|r| ApiFailure::unreadable(format!("bad query string: {}", r.body_text())))
    }
}

impl QueryMap {
    /// A parameter parsed with `FromStr`; a bad value is a 422 naming `query.<name>`.
    pub fn parse<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, ApiFailure>
    where
        T::Err: std::fmt::Display,
    {
        match self.0.get(name) {
            None => Ok(None),
            Some(v) if v.is_empty() => Ok(None),
            Some(v) => v.parse::<T>().map(Some).map_err(|e| {
                ApiFailure::invalid(format!("query.{name}"), format!("`{v}` is not valid: {e}"))
            }),
        }
    }

    /// A parameter as text.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}
