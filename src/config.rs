//! Configuration: command-line flags, environment variables and an optional file.

use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {}
