//! Upgrades (issue 30, item 4): a database filled as the first schema with games left it (the
//! migrations through 0004), then upgraded by the service itself (`serve` runs every later
//! migration at its start), has lost nothing — every row of every table, every old column's
//! value — and the service reads its league right. And the rule that keeps a rolling upgrade
//! possible: no migration drops or renames a table or a column.

mod common;

use std::collections::BTreeMap;

use serde_json::Value;
use sqlx::{Connection, PgPool};

/// Every row of every table of the `public` schema as JSON, sorted, by table (sqlx's own
/// bookkeeping left out).
async fn snapshot(conn: &mut sqlx::PgConnection) -> BTreeMap<String, Vec<Value>> {
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::TEXT FROM information_schema.tables WHERE table_schema = 'public' \
         AND table_type = 'BASE TABLE' AND table_name <> '_sqlx_migrations' ORDER BY 1",
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    let mut out = BTreeMap::new();
    for t in tables {
        let mut rows: Vec<Value> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT to_jsonb(x) FROM \"{t}\" x"
        )))
        .fetch_all(&mut *conn)
        .await
        .unwrap();
        rows.sort_by_key(|r| r.to_string());
        out.insert(t, rows);
    }
    out
}

/// The first schema with leagues and games, filled as its service would have: a club, its
/// owner, four players, a public league on the built-in card, a closed night with one table and
/// four games (a self-pick, a win on a discard, a wall game and a voided game), their scores and
/// audit entries, a token, a session, a card.
const FILL: &str = r#"
INSERT INTO clubs (id, slug, name, time_zone) VALUES (1, 'old-club', 'Old club', 'America/New_York');
INSERT INTO users (id, email, display_name, password_hash) VALUES (1, 'owner@example.org', 'Owner', '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaA');
INSERT INTO memberships (club_id, user_id, role) VALUES (1, 1, 'owner');
INSERT INTO sessions (token_hash, user_id, expires_at) VALUES ('abc', 1, now() + interval '30 days');
INSERT INTO api_tokens (id, club_id, name, token_hash, scopes, created_by) VALUES (1, 1, 'app', 'def', ARRAY['read'], 1);
INSERT INTO players (id, club_id, name) VALUES (1, 1, 'Ann'), (2, 1, 'Bea'), (3, 1, 'Cy'), (4, 1, 'Dee');
INSERT INTO cards (id, club_id, name, year, source) VALUES (1, 1, 'House card', 2026, 'name = "House card"');
INSERT INTO leagues (id, club_id, name, builtin_card, ruleset, visibility, starts_on)
  VALUES (1, 1, 'Spring league', 'demo-2026', '"nmjl-money"', 'public', '2026-03-01');
INSERT INTO nights (id, league_id, number, night_date, status) VALUES (1, 1, 1, '2026-03-03', 'closed');
INSERT INTO checkins (night_id, player_id) VALUES (1, 1), (1, 2), (1, 3), (1, 4);
INSERT INTO night_tables (id, night_id, number) VALUES (1, 1, 1);
INSERT INTO table_seats (table_id, seat, player_id) VALUES (1, 0, 1), (1, 1, 2), (1, 2, 3), (1, 3, 4);
INSERT INTO games (id, table_id, number, east_player, outcome, submitted, engine, line_id, line_value, winner, discarder, won_by, jokerless, status)
  VALUES (1, 1, 1, 1, 'mahjong', '{"outcome": "mahjong", "winner": 1, "won_by": "self_pick"}', '{}', '2468#1', 25, 1, NULL, 'self_pick', false, 'recorded'),
         (2, 1, 2, 2, 'mahjong', '{"outcome": "mahjong", "winner": 2, "won_by": "discard", "discarder": 3}', '{}', '2468#1', 25, 2, 3, 'discard', true, 'recorded'),
         (3, 1, 3, 3, 'wall', '{"outcome": "wall"}', '{}', NULL, NULL, NULL, NULL, NULL, false, 'recorded'),
         (4, 1, 3, 3, 'mahjong', '{"outcome": "mahjong", "winner": 4, "won_by": "self_pick"}', '{}', '2468#1', 25, 4, NULL, 'self_pick', false, 'voided');
INSERT INTO game_scores (game_id, player_id, seat, score, breakdown, dead) VALUES
  (1, 1, 'E', 150, 'self-pick', false), (1, 2, 'S', -50, '', false), (1, 3, 'W', -50, '', false), (1, 4, 'N', -50, '', false),
  (2, 2, 'E', 100, 'discard, jokerless', false), (2, 3, 'S', -60, 'discarder', false), (2, 4, 'W', -20, '', false), (2, 1, 'N', -20, '', true),
  (3, 3, 'E', 0, '', false), (3, 4, 'S', 0, '', false), (3, 1, 'W', 0, '', false), (3, 2, 'N', 0, '', false),
  (4, 4, 'E', 90, '', false), (4, 1, 'S', -30, '', false), (4, 2, 'W', -30, '', false), (4, 3, 'N', -30, '', false);
INSERT INTO game_audit (game_id, actor, action, before, after) VALUES
  (1, 'user 1 (owner@example.org)', 'recorded', NULL, '{}'), (2, 'user 1 (owner@example.org)', 'recorded', NULL, '{}'),
  (3, 'user 1 (owner@example.org)', 'recorded', NULL, '{}'), (4, 'user 1 (owner@example.org)', 'recorded', NULL, '{}'),
  (4, 'user 1 (owner@example.org)', 'voided', '{}', NULL);
INSERT INTO idempotency_keys (club_id, key, request_hash, response_code, response_body) VALUES (1, 'k1', 'h', 201, '{"id": 1}');
SELECT setval('clubs_id_seq', 1); SELECT setval('users_id_seq', 1); SELECT setval('players_id_seq', 4);
SELECT setval('leagues_id_seq', 1); SELECT setval('nights_id_seq', 1); SELECT setval('night_tables_id_seq', 1);
SELECT setval('games_id_seq', 4); SELECT setval('cards_id_seq', 1); SELECT setval('api_tokens_id_seq', 1);
"#;

/// A new database migrated up to `version` with the repository's migration files, and how many
/// migrations there are in all.
async fn database_at(prefix: &str, version: i64) -> (PgPool, usize) {
    let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    let mut admin = common::admin_connection().await;
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
        .execute(&mut admin)
        .await
        .unwrap();
    let mut url = url::Url::parse(&std::env::var("TEST_DATABASE_URL").unwrap()).unwrap();
    url.set_path(&format!("/{name}"));
    let pool = PgPool::connect(url.as_str()).await.unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut up_to = sqlx::migrate::Migrator::new(dir.as_path()).await.unwrap();
    let all = up_to.migrations.len();
    up_to.migrations = up_to
        .migrations
        .iter()
        .filter(|m| m.version <= version)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    up_to.run(&pool).await.unwrap();
    (pool, all)
}

/// Runs every migration of the repository on `pool`.
async fn migrate_all(pool: &PgPool) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let all = sqlx::migrate::Migrator::new(dir.as_path()).await.unwrap();
    all.run(pool).await.unwrap();
}

#[tokio::test]
async fn a_database_of_the_first_schema_upgrades_with_nothing_lost() {
    // The first schema with games: migrations 0001 to 0004, from the repository's files.
    let (pool, all) = database_at("upgrade", 4).await;
    let mut conn = pool.acquire().await.unwrap();
    sqlx::raw_sql(FILL).execute(&mut *conn).await.unwrap();
    let before = snapshot(&mut conn).await;
    drop(conn);
    assert!(before.len() >= 14, "{:?}", before.keys());

    // The service upgrades it at its start, as an operator's upgrade does.
    let data = tempfile::tempdir().unwrap();
    let mut served = common::serve_process_on_database(&pool, data.path(), &[]).unwrap();
    let applied: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations WHERE success")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(applied as usize, all, "every migration ran");

    // Every table of the first schema keeps every row, and every column it had keeps its value.
    let mut conn = sqlx::PgConnection::connect_with(&pool.connect_options())
        .await
        .unwrap();
    let after = snapshot(&mut conn).await;
    for (table, rows) in &before {
        let now = after
            .get(table)
            .unwrap_or_else(|| panic!("table {table} is gone"));
        let mut kept: Vec<Value> = now
            .iter()
            .map(|row| {
                let old_columns = rows
                    .first()
                    .and_then(Value::as_object)
                    .map(|o| o.keys().cloned().collect::<Vec<_>>())
                    .unwrap_or_default();
                let object = row.as_object().unwrap();
                Value::Object(
                    old_columns
                        .iter()
                        .map(|c| {
                            (
                                c.clone(),
                                object
                                    .get(c)
                                    .cloned()
                                    .unwrap_or_else(|| panic!("column {table}.{c} is gone")),
                            )
                        })
                        .collect(),
                )
            })
            .collect();
        kept.sort_by_key(|r| r.to_string());
        assert_eq!(&kept, rows, "table {table}");
    }

    // The service reads the old league right: standings rebuilt from the old games (the voided
    // one left out), worked by hand.
    let standings: Value = reqwest::get(format!("{}/api/v1/leagues/1/standings", served.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let rows: Vec<(String, i64, i64, i64, i64, i64)> = standings["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["player"].as_str().unwrap().to_string(),
                s["games"].as_i64().unwrap(),
                s["wins"].as_i64().unwrap(),
                s["points"].as_i64().unwrap(),
                s["deal_ins"].as_i64().unwrap(),
                s["dead_hands"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("Ann".to_string(), 3, 1, 130, 0, 1),
            ("Bea".to_string(), 3, 1, 50, 0, 0),
            ("Dee".to_string(), 3, 0, -70, 0, 0),
            ("Cy".to_string(), 3, 0, -110, 1, 0),
        ]
    );
    let games: Value = reqwest::get(format!("{}/api/v1/leagues/1/games", served.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(games["games"].as_array().unwrap().len(), 4, "{games}");
    served.child.kill().unwrap();
    served.child.wait().unwrap();
}

/// The rule of the README's upgrade section: migrations add before they remove, so the version
/// before keeps running while the next one's migrations are applied. None drops or renames a
/// table or a column.
#[test]
fn no_migration_drops_or_renames_a_table_or_a_column() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path())
            .unwrap()
            .to_uppercase();
        let code: String = text
            .lines()
            .map(|l| l.split("--").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        for forbidden in ["DROP TABLE", "DROP COLUMN", "RENAME"] {
            assert!(
                !code.contains(forbidden),
                "{} has {forbidden}",
                entry.path().display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 20);
}

/// Names stay names (issue 51): rows stored before with line breaks, tabs or direction marks in
/// single-line text are cleaned by migration 0034, and each change is written down.
#[tokio::test]
async fn stored_names_with_breaks_and_direction_marks_are_cleaned_and_logged() {
    let (pool, _) = database_at("clean", 33).await;
    sqlx::raw_sql(
        "INSERT INTO clubs (id, slug, name) VALUES (1, 'maple', E'Maple\\u202E Street');
         INSERT INTO users (id, email, display_name, password_hash)
           VALUES (1, 'a@example.org', E'Ann\\r\\nBcc: all@example.org', 'x'), (2, 'b@example.org', 'Bea', 'x');
         INSERT INTO leagues (id, club_id, name, builtin_card, ruleset) VALUES (1, 1, E'Spring\\tleague', 'demo-2026', '\"nmjl-money\"');",
    )
    .execute(&pool)
    .await
    .unwrap();
    migrate_all(&pool).await;
    let names: (String, String, String, String) = sqlx::query_as(
        "SELECT (SELECT name FROM clubs WHERE id = 1), (SELECT display_name FROM users WHERE id = 1), \
                (SELECT display_name FROM users WHERE id = 2), (SELECT name FROM leagues WHERE id = 1)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        names,
        (
            "Maple Street".to_string(),
            "Ann Bcc: all@example.org".to_string(),
            "Bea".to_string(),
            "Spring league".to_string()
        )
    );
    let logged: Vec<(String, i64, String, String)> = sqlx::query_as(
        "SELECT table_name, row_id, column_name, after FROM cleaned_text ORDER BY table_name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        logged,
        vec![
            ("clubs".into(), 1, "name".into(), "Maple Street".into()),
            ("leagues".into(), 1, "name".into(), "Spring league".into()),
            (
                "users".into(),
                1,
                "display_name".into(),
                "Ann Bcc: all@example.org".into()
            ),
        ]
    );
}

/// Issue 53's migration: every member from before is on the player list (a player made under
/// their name, or a claim on the unlinked player of that name, which an organizer confirms), and
/// every club's time zone is an IANA name: a name in another case is spelled right, a word for
/// a United States zone becomes that zone, anything else keeps UTC and is kept to be asked about.
#[tokio::test]
async fn members_from_before_get_players_and_clubs_get_a_clock_they_can_read() {
    let (pool, _) = database_at("roster", 35).await;
    sqlx::raw_sql(
        "INSERT INTO clubs (id, slug, name, time_zone) VALUES (1, 'aa', 'A', 'Eastern'), \
           (2, 'bb', 'B', 'america/chicago'), (3, 'cc', 'C', 'Narnia'), (4, 'dd', 'D', 'Europe/London'), \
           (5, 'ee', 'E', 'US/Pacific'), (6, 'ff', 'F', 'UTC');
         INSERT INTO users (id, email, display_name, password_hash) VALUES (1, 'o@example.org', 'Owner', 'x'), \
           (2, 'm@example.org', 'Mia Chen', 'x'), (3, 'k@example.org', 'Kit', 'x'), (4, 'a@example.org', 'Ann', 'x'), \
           (5, 's@example.org', 'Sam', 'x');
         INSERT INTO memberships (club_id, user_id, role) VALUES (1, 1, 'owner'), (1, 2, 'member'), \
           (1, 3, 'member'), (1, 4, 'member'), (1, 5, 'scorer');
         INSERT INTO players (id, club_id, name, user_id) VALUES (1, 1, 'Mia Chen', NULL), (2, 1, 'Ann', 1);
         SELECT setval('players_id_seq', 2);",
    )
    .execute(&pool)
    .await
    .unwrap();
    migrate_all(&pool).await;
    let zones: Vec<(String, String, Option<String>)> =
        sqlx::query_as("SELECT slug, time_zone, time_zone_was FROM clubs ORDER BY id")
            .fetch_all(&pool)
            .await
            .unwrap();
    let want = [
        ("aa", "America/New_York", None),
        ("bb", "America/Chicago", None),
        ("cc", "UTC", Some("Narnia")),
        ("dd", "Europe/London", None),
        ("ee", "America/Los_Angeles", None),
        ("ff", "UTC", None),
    ];
    assert_eq!(
        zones,
        want.map(|(s, z, w)| (s.to_string(), z.to_string(), w.map(String::from)))
    );
    let players: Vec<(String, Option<i64>, Option<i64>)> =
        sqlx::query_as("SELECT name, user_id, claimed_by FROM players ORDER BY id")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(
        players,
        vec![
            // Mia says she is the Mia Chen the club had; an organizer confirms it.
            ("Mia Chen".to_string(), None, Some(2)),
            ("Ann".to_string(), Some(1), None),
            // Kit gets a player; Ann's name is taken by someone linked, so hers says who she is.
            ("Kit".to_string(), Some(3), None),
            ("Ann (4)".to_string(), Some(4), None),
        ],
        "staff (Sam, a scorer) get a player when they reply to a night"
    );
}
