//! Game entry's lane: its own thread and connections.

use sqlx::PgPool;

/// A lane of its own for entering new games: one thread, and connections whose answers that
/// thread notices. The request workers also answer standings reads; on a busy night a game's
/// answer from the database would sit unnoticed behind them while the game holds one of its
/// league's entry slots, and every other table's game would wait with it.
pub struct EntryLane {
    runtime: Option<tokio::runtime::Runtime>,
    /// Only the lane's tasks use these, so their sockets are watched by the lane's thread.
    pub db: PgPool,
}

impl EntryLane {
    /// Connections at most: more games than a league's entry slots only queue in the database.
    const CONNECTIONS: u32 = 8;

    /// A lane with connections to the database `db` connects to (under the same name, so that
    /// this process knows its own writes' change notices).
    pub fn new(db: &PgPool) -> std::io::Result<EntryLane> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("game-entry")
            .enable_all()
            .build()?;
        let db = {
            // The pool's upkeep runs on the lane.
            let _inside = runtime.enter();
            sqlx::postgres::PgPoolOptions::new()
                .max_connections(Self::CONNECTIONS)
                .acquire_timeout(crate::storage::ACQUIRE_TIMEOUT)
                .connect_lazy_with(db.connect_options().as_ref().clone())
        };
        Ok(EntryLane {
            runtime: Some(runtime),
            db,
        })
    }

    /// Runs `work` on the lane, as part of the caller: when the caller stops waiting (a request
    /// cut at its deadline), `work` stops too, as it would have where it was called. `None`:
    /// `work` panicked (the panic is reported where it happened).
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        /// Aborts the lane's task when dropped before it ends.
        struct Tied<T>(tokio::task::JoinHandle<T>);
        impl<T> Drop for Tied<T> {
            fn drop(&mut self) {
                self.0.abort();
            }
        }
        let mut task = Tied(self.runtime.as_ref()?.spawn(work));
        (&mut task.0).await.ok()
    }
}

impl Drop for EntryLane {
    fn drop(&mut self) {
        // Dropped where blocking is not allowed (an async test's end): let the thread go.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
