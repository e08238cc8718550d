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

/// What the document says of every string in a body (`api::text_rules`): no NUL character.
pub const NO_NUL_PATTERN: &str = "^[^\\u0000]*$";

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

/// Numbers written with a fraction of zero (`8547.0`) as the integers they are: JSON Schema
/// counts them as integers, so an integer field takes them.
fn whole_numbers(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64())
                && f.fract() == 0.0
                && f >= i64::MIN as f64
                && f < i64::MAX as f64
            {
                *value = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers),
        Value::Object(map) => map.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

fn bad_request(field: String, message: String) -> AppError {
    AppError::BadRequest {
        detail: format!("{field}: {message}"),
        errors: vec![FieldError::new(field, message)],
    }
}

/// Parses a JSON object into `T`, naming the field of the first problem. Text holding a NUL
/// character is refused (PostgreSQL's text cannot store it), naming where it is.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AppError> {
    let mut value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        let message = e.to_string();
        let message = message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .to_string();
        bad_request("body".into(), format!("this is not JSON: {message}"))
    })?;
    if !value.is_object() {
        return Err(bad_request(
            "body".into(),
            "send a JSON object ({...}) with the fields of this operation".into(),
        ));
    }
    if let Some(field) = nul_path(&value, "") {
        return Err(Error::invalid(&field, "remove the NUL character: text cannot hold it").into());
    }
    whole_numbers(&mut value);
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
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
        bad_request(field, message)
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
