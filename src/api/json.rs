//! JSON request bodies: a size limit, a content-type check, and errors that name the field.

use std::future::Future;
use std::pin::Pin;

use actix_web::{FromRequest, HttpMessage, HttpRequest};
use serde::de::DeserializeOwned;

use crate::domain::Error;
use crate::error::{AppError, FieldError};

pub use crate::http::BODY_LIMIT;

/// A JSON body parsed into `T`; a mistake is a 400 that says which field and why.
pub struct ValidJson<T>(pub T);

/// The path of the first string (or key) holding a NUL character, as `dead[0].reason`.
fn nul_path(value: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    let join = |key: &str| match path {
        "" => key.to_string(),
        _ => format!("{path}.{key}"),
    };
    match value {
        Value::String(s) if s.contains('\0') => Some(if path.is_empty() {
            "body".into()
        } else {
            path.into()
        }),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| nul_path(v, &format!("{path}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if k.contains('\0') {
                Some(join(&k.replace('\0', "")))
            } else {
                nul_path(v, &join(k))
            }
        }),
        _ => None,
    }
}

/// Parses JSON, naming the field of the first problem. Text holding a NUL character is refused
/// (PostgreSQL's text cannot store it), naming where it is.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AppError> {
    if bytes.windows(6).any(|w| w.eq_ignore_ascii_case(b"\\u0000"))
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes)
        && let Some(field) = nul_path(&value, "")
    {
        return Err(Error::invalid(&field, "remove the NUL character: text cannot hold it").into());
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.to_string();
        let field = if path == "." || path.is_empty() {
            // "missing field `x`" and "unknown field `x`" name the field in the message.
            message
                .split('`')
                .nth(1)
                .filter(|_| message.contains("field"))
                .unwrap_or("body")
                .to_string()
        } else {
            path
        };
        let message = message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .to_string();
        AppError::BadRequest {
            detail: format!("{field}: {message}"),
            errors: vec![FieldError::new(field, message)],
        }
    })
}

impl<T: DeserializeOwned + 'static> FromRequest for ValidJson<T> {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, AppError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        let mut payload = payload.take();
        Box::pin(async move {
            let ct = req.content_type().to_string();
            if !(ct == "application/json" || ct.ends_with("+json")) {
                return Err(AppError::BadRequest {
                    detail: "send the body as JSON with Content-Type: application/json".into(),
                    errors: vec![FieldError::new(
                        "Content-Type",
                        format!("`{ct}` is not application/json"),
                    )],
                });
            }
            let bytes = crate::http::body(&req, &mut payload).await?;
            parse(&bytes).map(ValidJson)
        })
    }
}
