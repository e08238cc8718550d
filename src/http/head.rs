//! `HEAD` on the API: answered as the `GET` of the same URL (status and headers: `ETag`,
//! `RateLimit-*`, `Link`, CORS), without the body. CORS already names `HEAD` beside `GET`.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;

pub async fn as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let head = req.method() == Method::HEAD && req.path().starts_with("/api/");
    if head {
        req.head_mut().method = Method::GET;
    }
    let res = next.call(req).await?;
    if head {
        // The GET's answer, less its body (its length is not said: a HEAD answer may leave it out).
        return Ok(res.map_body(|h, _| {
            h.headers.remove(actix_web::http::header::CONTENT_LENGTH);
            BoxBody::new(())
        }));
    }
    Ok(res.map_into_boxed_body())
}
