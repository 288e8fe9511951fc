//! Output lines, stdin, and the bounded drain.

use std::time::Duration;

use agentgate_supervise::{EndReason, MAX_LINE_BYTES, Stream};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::support::{PidFile, assert_alive, assert_all_gone, config, misbehave, run, texts};

fn the_pattern(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .enumerate()
        .all(|(i, b)| *b == b'a' + (i % 26) as u8)
}

#[tokio::test]
async fn a_line_of_the_limit_arrives_whole_and_byte_exact() {
    let mib = MAX_LINE_BYTES / (1024 * 1024);
    let inv = misbehave().args(["--huge-line-mib", &mib.to_string(), "--print", "after"]);
    let (report, lines) = run(inv, config()).await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(lines.len(), 2);
    let huge = &lines[0];
    assert!(!huge.partial && huge.cut_from.is_none());
    assert_eq!(huge.bytes.len(), MAX_LINE_BYTES);
    assert!(the_pattern(&huge.bytes), "the huge line's bytes differ");
    assert_eq!(lines[1].bytes, b"after");
}

#[tokio::test]
async fn a_longer_line_arrives_cut_to_the_limit_with_its_length() {
    let inv = misbehave().args(["--huge-line-mib", "40", "--print", "after"]);
    let (report, lines) = run(inv, config()).await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(lines.len(), 2, "one line, cut; not pieces");
    let huge = &lines[0];
    assert_eq!(huge.bytes.len(), MAX_LINE_BYTES);
    assert_eq!(huge.cut_from, Some(40 * 1024 * 1024));
    assert!(the_pattern(&huge.bytes), "the kept bytes differ");
    assert_eq!(lines[1].bytes, b"after");
}

#[tokio::test]
async fn invalid_utf8_and_crlf_pass_untouched() {
    let inv = misbehave().args(["--print-bytes", "ff fe 41 c3 28 0a 61 0d 0a 00 80 0a"]);
    let (_, lines) = run(inv, config()).await;
    let got: Vec<&[u8]> = lines.iter().map(|l| l.bytes.as_slice()).collect();
    assert_eq!(got, [&b"\xff\xfeA\xc3("[..], b"a", b"\x00\x80"]);
}

#[tokio::test]
async fn a_last_line_without_newline_arrives_whole() {
    let inv = misbehave().args(["--print", "first", "--print-bytes", "7461696c"]);
    let (_, lines) = run(inv, config()).await;
    assert_eq!(texts(&lines), ["first", "tail"]);
    assert!(lines.iter().all(|l| !l.partial));
}

#[tokio::test]
async fn stderr_lines_are_marked() {
    let inv = misbehave().args(["--eprint", "warning: x", "--print", "out"]);
    let (_, lines) = run(inv, config()).await;
    let mut got: Vec<(Stream, String)> = lines
        .iter()
        .map(|l| (l.stream, String::from_utf8_lossy(&l.bytes).into_owned()))
        .collect();
    got.sort_by_key(|(s, _)| *s == Stream::Stdout);
    assert_eq!(
        got,
        [
            (Stream::Stderr, "warning: x".to_owned()),
            (Stream::Stdout, "out".to_owned())
        ]
    );
}

#[tokio::test]
async fn stdin_bytes_reach_the_child_then_end_of_file() {
    let inv = misbehave()
        .args(["--echo-stdin"])
        .stdin(b"prompt\n\x00\xff".to_vec());
    let (report, lines) = run(inv, config()).await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(texts(&lines), ["stdin:70726f6d70740a00ff"]);
}

#[tokio::test]
async fn no_stdin_means_dev_null() {
    let inv = misbehave().args(["--echo-stdin"]);
    let (_, lines) = run(inv, config()).await;
    assert_eq!(texts(&lines), ["stdin:"]);
}

#[tokio::test]
async fn a_grandchild_in_the_group_holding_stdout_is_swept_not_leaked() {
    let pids = PidFile::new();
    let inv = misbehave().args(pids.arg()).args([
        "--grandchildren",
        "2",
        "--grandchildren-keep-stdout",
        "--print",
        "bye",
        "--exit",
        "0",
    ]);
    let cfg = agentgate_supervise::SupervisorConfig {
        drain_timeout: Duration::from_secs(20),
        ..config()
    };
    let (report, lines) = run(inv, cfg).await;
    assert!(!report.output_leaked);
    assert_eq!(texts(&lines), ["bye"]);
    assert_all_gone(&pids.read()).await;
}

#[tokio::test]
async fn a_leaked_stdout_does_not_hang_the_run_and_is_reported() {
    let pids = PidFile::new();
    // The leaker leaves the group and holds stdout for 30 s.
    let inv =
        misbehave()
            .args(pids.arg())
            .args(["--leak-stdout", "--print", "before", "--exit", "0"]);
    let cfg = agentgate_supervise::SupervisorConfig {
        drain_timeout: Duration::from_millis(500),
        ..config()
    };
    let (report, lines) = tokio::time::timeout(Duration::from_secs(15), run(inv, cfg))
        .await
        .unwrap_or_else(|_| panic!("the run hung on the leaked stdout"));
    assert_eq!(report.ended_by, EndReason::Exited);
    assert!(report.output_leaked);
    assert_eq!(texts(&lines), ["before"]);
    let started = pids.read();
    let (leader, leaker) = (started[0], started[started.len() - 1]);
    assert_all_gone(&[leader]).await;
    // Out of the group, out of reach: the test cleans it up.
    assert_alive(leaker);
    kill(Pid::from_raw(leaker), Signal::SIGKILL).unwrap();
    assert_all_gone(&[leaker]).await;
}
