//! Building and running the application.

use crate::config::ServeArgs;

pub fn serve_main(_args: ServeArgs) -> u8 {
    1
}
