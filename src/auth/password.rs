//! Password hashing: argon2id at the crate's default (OWASP-recommended) parameters, on a fixed
//! set of threads of its own — one per core — each with its argon2 memory (19 MiB) allocated
//! once and used for every hash it computes. More checks than threads wait in a short queue;
//! past it a check is refused at once (`Busy`), so a burst of password checks costs a known
//! amount of memory and never more threads.
//!
//! Why the memory is the threads' own: argon2 asks for its 19 MiB afresh on every hash. On
//! glibc the first such block freed raises the allocator's mmap threshold above 19 MiB, so every
//! later one comes out of the heap, which fragments and is never given back. With hashes on the
//! executor's blocking pool (as many at once as requests) 400 checks from 16 clients grew the
//! process by 3.3 GB and kept 3.2 GB (`scripts/bench-passwords.sh`; one malloc arena changed
//! nothing; a fixed mmap threshold gave it all back but still peaked 300 MB higher, 16 hashes at
//! once). Here: two threads on two cores, 38 MiB made once, nothing more.

use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};

/// Checks waiting for a thread, per thread, before further ones are refused.
const QUEUE_PER_THREAD: usize = 16;
/// The most argon2 memory a stored hash may ask for (in 1 KiB blocks): a hash from elsewhere
/// asking for more is not verified (64 MiB).
const MAX_BLOCKS: usize = 64 * 1024;

/// A password could not be hashed or checked.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Every hashing thread is busy and the queue is full: try again in a moment.
    #[error("too many passwords are being checked at once")]
    Busy,
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

enum Job {
    Hash(String, tokio::sync::oneshot::Sender<anyhow::Result<String>>),
    Verify(
        String,
        Option<String>,
        tokio::sync::oneshot::Sender<anyhow::Result<bool>>,
    ),
}

struct Pool {
    jobs: SyncSender<Job>,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = threads();
        let (jobs, queue) = sync_channel::<Job>(threads * QUEUE_PER_THREAD);
        let queue = std::sync::Arc::new(std::sync::Mutex::new(queue));
        for i in 0..threads {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("password-{i}"))
                .spawn(move || work(&queue))
                .expect("starting a password thread");
        }
        Pool { jobs }
    })
}

/// Threads that hash: one per core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// A hashing thread: takes jobs until the process ends, with one memory for all of them.
fn work(queue: &std::sync::Mutex<Receiver<Job>>) {
    let mut memory: Vec<Block> = vec![Block::new(); Params::DEFAULT.block_count()];
    loop {
        let job = {
            let queue = queue.lock().unwrap_or_else(|e| e.into_inner());
            match queue.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        match job {
            Job::Hash(password, reply) => {
                let _ = reply.send(hash_with(&password, &mut memory));
            }
            Job::Verify(password, stored, reply) => {
                let _ = reply.send(verify_with(&password, stored.as_deref(), &mut memory));
            }
        }
    }
}

fn hash_with(password: &str, memory: &mut Vec<Block>) -> anyhow::Result<String> {
    let params = Params::DEFAULT;
    let salt_bytes: [u8; 16] = rand::random();
    let salt = Salt::new(&salt_bytes).map_err(|e| anyhow::anyhow!("salt: {e}"))?;
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    let blocks = params.block_count();
    memory.resize(blocks.max(memory.len()), Block::new());
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone())
        .hash_password_into_with_memory(password.as_bytes(), &salt, &mut out, &mut memory[..blocks])
        .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))?;
    let hash = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| anyhow::anyhow!("params: {e}"))?,
        salt: Some(salt),
        hash: Some(Output::new(&out).map_err(|e| anyhow::anyhow!("output: {e}"))?),
    };
    Ok(hash.to_string())
}

/// A valid hash of a password nobody has, verified for unknown accounts so that an unknown
/// email takes as long as a wrong password.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$gZiV/M1gPc22ElAH/Jh1Hw$CWOrkoo7oJBQ/iyh7uJ0LO2aLEfrHwTWllSAxT0zRno";

fn verify_with(
    password: &str,
    stored: Option<&str>,
    memory: &mut Vec<Block>,
) -> anyhow::Result<bool> {
    let known = stored.is_some();
    let parsed = PasswordHash::new(stored.unwrap_or(DUMMY_HASH))
        .map_err(|e| anyhow::anyhow!("stored hash: {e}"))?;
    let (Some(salt), Some(expected)) = (&parsed.salt, &parsed.hash) else {
        anyhow::bail!("stored hash has no salt or output");
    };
    let algorithm = Algorithm::try_from(parsed.algorithm.as_str())
        .map_err(|e| anyhow::anyhow!("stored hash's algorithm: {e}"))?;
    let version = parsed
        .version
        .map(Version::try_from)
        .transpose()
        .map_err(|e| anyhow::anyhow!("stored hash's version: {e}"))?
        .unwrap_or_default();
    let params = Params::try_from(&parsed).map_err(|e| anyhow::anyhow!("stored hash: {e}"))?;
    let blocks = params.block_count();
    if blocks > MAX_BLOCKS {
        anyhow::bail!("stored hash asks for {blocks} KiB of memory");
    }
    memory.resize(blocks.max(memory.len()), Block::new());
    let mut out = vec![0u8; expected.len()];
    Argon2::new(algorithm, version, params)
        .hash_password_into_with_memory(password.as_bytes(), salt, &mut out, &mut memory[..blocks])
        .map_err(|e| anyhow::anyhow!("checking a password: {e}"))?;
    let computed = Output::new(&out).map_err(|e| anyhow::anyhow!("output: {e}"))?;
    // `Output`'s equality takes the same time wherever the two differ.
    Ok(computed == *expected && known)
}

fn send(job: Job) -> Result<(), HashError> {
    pool().jobs.try_send(job).map_err(|e| match e {
        TrySendError::Full(_) => HashError::Busy,
        TrySendError::Disconnected(_) => HashError::Failed(anyhow::anyhow!("no password threads")),
    })
}

/// Hashes a password into a PHC string.
pub async fn hash_password(password: String) -> Result<String, HashError> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    send(Job::Hash(password, reply))?;
    Ok(answer
        .await
        .map_err(|_| anyhow::anyhow!("a password thread stopped"))??)
}

/// Checks a password against a stored hash (or the dummy hash when there is none).
pub async fn verify_password(password: String, stored: Option<String>) -> Result<bool, HashError> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    send(Job::Verify(password, stored, reply))?;
    Ok(answer
        .await
        .map_err(|_| anyhow::anyhow!("a password thread stopped"))??)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_unknown_accounts_never_do() {
        let hash = hash_password("correct horse".into()).await.unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(
            verify_password("correct horse".into(), Some(hash.clone()))
                .await
                .unwrap()
        );
        assert!(!verify_password("wrong".into(), Some(hash)).await.unwrap());
        assert!(!verify_password("anything".into(), None).await.unwrap());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn past_the_queue_a_check_is_refused_at_once_and_the_rest_are_answered() {
        let many = threads() * (QUEUE_PER_THREAD + 1) + 40;
        let checks: Vec<_> = (0..many)
            .map(|i| tokio::spawn(verify_password(format!("guess {i}"), None)))
            .collect();
        let (mut answered, mut busy) = (0, 0);
        for c in checks {
            match c.await.unwrap() {
                Ok(false) => answered += 1,
                Err(HashError::Busy) => busy += 1,
                other => panic!("{other:?}"),
            }
        }
        assert!(busy >= 40 - threads(), "{busy} refused of {many}");
        assert!(
            answered >= threads() * QUEUE_PER_THREAD,
            "{answered} answered"
        );
        // Once the burst is over, checks are answered again.
        assert!(!verify_password("again".into(), None).await.unwrap());
    }

    #[test]
    fn hashes_made_by_the_crate_itself_verify_here_and_back() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let mut memory = Vec::new();
        // A hash from the crate's own one-shot API (as stored by earlier versions) verifies here…
        let theirs = Argon2::default()
            .hash_password(b"battery staple")
            .unwrap()
            .to_string();
        assert!(verify_with("battery staple", Some(&theirs), &mut memory).unwrap());
        assert!(!verify_with("battery stapler", Some(&theirs), &mut memory).unwrap());
        // …and one made here verifies with the crate's own check.
        let ours = hash_with("battery staple", &mut memory).unwrap();
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"battery staple", &parsed)
                .is_ok()
        );
        // Other parameters (a smaller memory) are read from the stored hash.
        let small = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(4096, 3, 1, None).unwrap(),
        )
        .hash_password(b"battery staple")
        .unwrap()
        .to_string();
        assert!(verify_with("battery staple", Some(&small), &mut memory).unwrap());
    }
}
