//! The keeper as a standalone program, for tests: `keeper __keeper
//! <parent-pid> -- <program> [args...]`, what `agentgate __keeper` does.

fn main() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(agentgate_supervise::KEEPER_SUBCOMMAND.as_ref()) {
        eprintln!("usage: keeper __keeper <parent-pid> -- <program> [args...]");
        std::process::exit(2);
    }
    agentgate_supervise::keeper_main(args.collect())
}
