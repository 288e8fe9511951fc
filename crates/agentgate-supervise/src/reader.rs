use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::sync::{Notify, mpsc, watch};

use super::keeper::parse_survivor_line;
use super::lines::{LineSplitter, OutputLine, Stream};
use super::report::Survivor;

/// Where the stderr reader puts the keeper's survivor reports (`None`
/// without a keeper: a CLI's own line is never taken for one).
pub(crate) type SurvivorReports = Option<Arc<std::sync::Mutex<Vec<Survivor>>>>;

/// Bytes read per call; a pipe holds 64 KiB on Linux.
const CHUNK: usize = 256 * 1024;

/// After the drain timeout, how much more is read from a pipe that still
/// has data at hand (a leaked writer may write without end).
const AFTER_STOP_BUDGET: usize = 1024 * 1024;

/// How a reader ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReaderEnd {
    /// The stream reached end of file (or failed, which ends it too).
    Eof,
    /// Reading was stopped while the stream was still open.
    Leaked,
}

/// Reads one output stream to its end and sends its lines.
///
/// Every chunk read wakes `activity` (the idle watchdog). When `stop` turns
/// true the reader takes what the pipe holds at that moment and returns
/// [`ReaderEnd::Leaked`] unless that reaches end of file. Lines are still
/// read, and dropped, when the receiver of `lines` is gone, so the child
/// never blocks on a full pipe. A keeper's survivor report on stderr is
/// recorded in `survivors` (and passed on like any line).
pub(crate) async fn read_lines<R>(
    mut pipe: R,
    stream: Stream,
    lines: mpsc::Sender<OutputLine>,
    activity: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
    survivors: SurvivorReports,
) -> ReaderEnd
where
    R: AsyncRead + Unpin,
{
    let mut splitter = LineSplitter::new(stream);
    let mut buf = vec![0u8; CHUNK];
    let mut out = Vec::new();
    let mut lines = Some(lines);
    let mut stopped_budget: Option<usize> = None;
    let end = loop {
        let read = match stopped_budget {
            None => {
                tokio::select! {
                    r = pipe.read(&mut buf) => r,
                    changed = stop.changed() => {
                        if changed.is_err() || *stop.borrow() {
                            stopped_budget = Some(AFTER_STOP_BUDGET);
                        }
                        continue;
                    }
                }
            }
            Some(0) => break ReaderEnd::Leaked,
            Some(_) => {
                // Take only what is ready now: a biased select polls the read
                // once before the always-ready branch.
                tokio::select! {
                    biased;
                    r = pipe.read(&mut buf) => r,
                    () = std::future::ready(()) => break ReaderEnd::Leaked,
                }
            }
        };
        let n = match read {
            Ok(0) => break ReaderEnd::Eof,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::warn!(
                    ?stream,
                    "failed to read the child's output, treating it as closed: {e}"
                );
                break ReaderEnd::Eof;
            }
        };
        if let Some(budget) = stopped_budget.as_mut() {
            *budget = budget.saturating_sub(n);
        }
        activity.notify_one();
        splitter.push(&buf[..n], &mut out);
        send_all(&mut lines, &mut out, &survivors).await;
    };
    match end {
        ReaderEnd::Eof => splitter.finish(&mut out),
        ReaderEnd::Leaked => splitter.cut(&mut out),
    }
    send_all(&mut lines, &mut out, &survivors).await;
    end
}

async fn send_all(
    lines: &mut Option<mpsc::Sender<OutputLine>>,
    out: &mut Vec<OutputLine>,
    survivors: &SurvivorReports,
) {
    for line in out.drain(..) {
        if let Some(reports) = survivors
            && line.stream == Stream::Stderr
            && !line.partial
            && let Some(survivor) = parse_survivor_line(&line.bytes)
            && let Ok(mut reports) = reports.lock()
        {
            reports.push(survivor);
        }
        if let Some(tx) = lines.as_ref()
            && tx.send(line).await.is_err()
        {
            *lines = None;
        }
    }
}
