//! `agentgate-keeper`: the keeper alone, for `agentgate run` to start in
//! front of each CLI instead of its own binary.
//!
//! The keeper runs once per attempt, on the run's critical path, between
//! agentgate and the CLI. Started as `agentgate __keeper`, it costs the
//! start of the whole `agentgate` binary (mapping and relocating tens of
//! megabytes); this binary links only the keeper and starts in a fraction
//! of that time. It takes the same arguments (`__keeper <parent-pid> --
//! <program> [args...]`) and behaves exactly as `agentgate __keeper` (see
//! `agentgate_supervise::keeper_main`). agentgate uses it when it is
//! installed next to the `agentgate` binary, and falls back to itself
//! otherwise.

fn main() {
    let mut args = std::env::args_os().skip(1).peekable();
    // The subcommand word is optional here, so that both spellings work.
    if args
        .peek()
        .is_some_and(|a| a == agentgate_supervise::KEEPER_SUBCOMMAND)
    {
        args.next();
    }
    agentgate_supervise::keeper_main(args.collect())
}
