//! The embedded PostgreSQL is private to the service (issue 12, item 3): a password every
//! connection must give, kept where only the service's account reads it, and a socket directory
//! closed to other accounts.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use sqlx::Connection;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mahjong-league"))
}

#[tokio::test]
async fn the_embedded_database_wants_its_password() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["db", "start", "--throwaway", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let root = dir.path().canonicalize().unwrap().join("postgres");
    let result = async {
        let password = std::fs::read_to_string(root.join("password")).unwrap();
        assert_eq!(password.trim().len(), 64);
        assert!(
            url.contains(&format!(":{}@", password.trim())),
            "the URL carries it"
        );
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root.join("password")), 0o600);
        assert_eq!(
            mode(&root.join("run")),
            0o700,
            "the socket directory is closed to others"
        );
        let hba = std::fs::read_to_string(root.join("data/pg_hba.conf")).unwrap();
        assert!(!hba.contains("trust"), "{hba}");

        let mut conn = sqlx::PgConnection::connect(&url)
            .await
            .expect("the service's URL connects");
        let one: i32 = sqlx::query_scalar("SELECT 1")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(one, 1);
        let without = url.replace(&format!(":{}@", password.trim()), "@");
        let refused = sqlx::PgConnection::connect(&without).await;
        assert!(
            refused.is_err(),
            "a connection without the password is refused"
        );
        let wrong = url.replace(password.trim(), "not-the-password");
        assert!(sqlx::PgConnection::connect(&wrong).await.is_err());
    }
    .await;
    let stop = bin()
        .args(["db", "stop", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(stop.status.success());
    result
}
