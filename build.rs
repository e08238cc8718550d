// The migrations are embedded by `sqlx::migrate!`: a new or changed file rebuilds the crate.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
