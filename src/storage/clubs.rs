//! Clubs.

use sqlx::PgPool;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Club {
    pub id: i64,
    pub slug: String,
    pub name: String,
    pub time_zone: String,
}

/// All clubs, by name.
pub async fn list(pool: &PgPool) -> sqlx::Result<Vec<Club>> {
    sqlx::query_as::<_, Club>("SELECT id, slug, name, time_zone FROM clubs ORDER BY name, id")
        .fetch_all(pool)
        .await
}

/// Creates the demo club if it is not there yet.
pub async fn ensure_demo(pool: &PgPool) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO clubs (slug, name, time_zone) VALUES ('demo', 'Demo Mah Jongg Club', 'America/New_York') \
         ON CONFLICT (slug) DO NOTHING",
    )
    .execute(pool)
    .await?;
    Ok(())
}
