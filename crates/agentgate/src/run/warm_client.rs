//! `agentgate run --warm`: the run is planned here (to refuse a bad one
//! before any host starts, and to know whether it needs the tool server),
//! then sent to the session host, which runs it with its warm processes;
//! its lines are printed as a local run prints.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use agentgate_core::Config;
use agentgate_core::EventSink;
use agentgate_core::plan;
use agentgate_core::session_host::client::connect_or_start;
use agentgate_core::session_host::{ClientLine, HostAddress, HostLine, HostRequest};
use agentgate_store::StoreLocation;
use agentgate_store::store_choice;
use anyhow::Context;

use super::print::CliSink;
use super::progress::Progress;
use super::{Args, read_task_text, start_runtime};
use crate::cli_process::forward_signals;
use crate::output::{error_note, note, quiet};

/// How long a client waits for a host it started to listen.
const HOST_START_WAIT: Duration = Duration::from_secs(20);

pub(super) fn run(
    args: &Args,
    config: Option<&Path>,
    store: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let task = read_task_text(args)?;
    let cwd = std::env::current_dir().context("failed to read the working directory")?;
    let request = args.request(task, &cwd);
    let cfg = Config::load(config)?;
    for w in &cfg.warnings {
        note!("agentgate: config: {w}");
    }
    // Planned here too: a run the host would refuse is refused before a
    // host starts, with the same message.
    let (flags, task) = request.to_flags()?;
    let planned = plan(&cfg, &flags, task)?;
    let location = store_choice::choose(store_choice::given(store)?, cfg.store.as_ref())?;
    // The host runs the tools (its relay outlives this client, as the warm
    // CLI's MCP server does); a registry that cannot be found is said here.
    let tools_from = match planned.steps.iter().any(|s| !s.tools.is_empty()) {
        true => {
            crate::tool_cmd::registry_of(&cfg)?;
            Some(cwd.clone())
        }
        false => None,
    };
    let line = ClientLine::Run(Box::new(HostRequest {
        request,
        config: cfg.source.clone(),
        store: location_text(&location),
        tools_from,
        sandbox: args.sandbox.sandbox,
    }));
    let address = HostAddress::for_this_process()?;
    let exe = std::env::current_exe().context("cannot find the agentgate binary")?;
    let progress =
        (!args.stream && !quiet() && std::io::stderr().is_terminal()).then(Progress::start);
    let chunks = args
        .coalesce
        .options()?
        .map(super::coalesce::ChunkPump::start);
    let mut sink = CliSink::new(args.stream, progress, chunks);
    let rt = start_runtime()?;
    let ended = rt.block_on(async {
        let (mut reader, mut writer) = connect_or_start(&address, &exe, HOST_START_WAIT)
            .await?
            .split();
        writer.send(&line).await?;
        let (_forwarding, mut cancel) = forward_signals()?;
        loop {
            tokio::select! {
                line = reader.next() => match line? {
                    Some(HostLine::Event { event }) => sink.emit(&event),
                    Some(HostLine::Warning { message }) => note!("agentgate: warning: {message}"),
                    Some(end @ (HostLine::End { .. } | HostLine::Refused { .. })) => {
                        return anyhow::Ok(Some(end));
                    }
                    None => return anyhow::Ok(None),
                },
                Some(c) = cancel.recv() => {
                    // A host that is gone ends the read above.
                    let _ = writer.send(&ClientLine::Cancel { immediate: c.immediate }).await;
                }
            }
        }
    });
    let failed = sink.finish();
    match ended? {
        Some(HostLine::End {
            envelope,
            exit_code,
            audit,
        }) => {
            let printed = match failed {
                Some(e) => Err(e.into()),
                None if args.stream => Ok(()),
                None => super::print::print_result(
                    &envelope,
                    args,
                    args.envelope.unwrap_or(cfg.envelope),
                ),
            };
            note!("{audit}");
            printed?;
            Ok(ExitCode::from(u8::try_from(exit_code).unwrap_or(1)))
        }
        Some(HostLine::Refused { message, exit_code }) => {
            error_note!("agentgate: {message}");
            Ok(ExitCode::from(u8::try_from(exit_code).unwrap_or(2)))
        }
        _ => {
            error_note!(
                "agentgate: the session host ended before the run did (its log: {})",
                address.log().display()
            );
            Ok(ExitCode::from(
                u8::try_from(agentgate_protocol::EXIT_ALL_RECOVERABLE).unwrap_or(1),
            ))
        }
    }
}

/// A store as `--store` takes it (the URL with its password: the host is
/// this user's, and the line goes over its private socket).
fn location_text(location: &StoreLocation) -> String {
    match location {
        StoreLocation::Sqlite(path) => path.display().to_string(),
        StoreLocation::Postgres(url) => url.clone(),
    }
}
