//! JSON request bodies: a size limit, a content-type check, and errors that name the field.

use std::future::Future;
use std::pin::Pin;

use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use serde::de::DeserializeOwned;

use crate::error::{AppError, FieldError};

/// Largest request body accepted (a card file is the biggest thing anyone sends).
pub const BODY_LIMIT: usize = 256 * 1024;

/// A JSON body parsed into `T`; a mistake is a 400 that says which field and why.
pub struct ValidJson<T>(pub T);

/// Parses JSON, naming the field of the first problem.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AppError> {
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

/// Reads the body, mapping a too-large body to 413.
pub async fn body(
    req: &HttpRequest,
    payload: &mut actix_web::dev::Payload,
) -> Result<web::Bytes, AppError> {
    web::Bytes::from_request(req, payload).await.map_err(|e| {
        if e.as_response_error().status_code() == actix_web::http::StatusCode::PAYLOAD_TOO_LARGE {
            AppError::TooLarge(format!(
                "the body is larger than the limit of {BODY_LIMIT} bytes"
            ))
        } else {
            AppError::bad_request(format!("the body could not be read: {e}"))
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
            let bytes = body(&req, &mut payload).await?;
            parse(&bytes).map(ValidJson)
        })
    }
}
