//! The machine's threads, for runs whose items run apart
//! (`sim_core::labs::fork`: the Routing Lab's rules).

use sim_core::labs::fork::Threads;

/// Run every job on a scoped thread of its own; return when all have.
fn scoped(jobs: &mut [&mut (dyn FnMut() + Send)]) {
    std::thread::scope(|s| {
        for job in jobs.iter_mut() {
            s.spawn(job);
        }
    });
}

/// As many parts as the machine has cores; `LBLAB_THREADS` (1–256) sets
/// another count, and 1 runs everything on the calling thread. The result
/// is the same either way (the parts join bit for bit).
pub fn threads() -> Threads<'static> {
    let asked = std::env::var("LBLAB_THREADS")
        .ok()
        // Capped before it is read, as every input is.
        .filter(|v| v.len() <= 8)
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| (1..=256).contains(n));
    let ways = asked.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    Threads {
        ways,
        fork: &scoped,
    }
}
