//! The progress line on stderr when it is a terminal:
//! `⠋ claude  12.3s  1,204 tokens  running Bash`.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agentgate_protocol::{Event, EventBody, StatusEvent, UsageScope};

const SPINNER: &[char] = &['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

#[derive(Debug, Default)]
struct State {
    provider: String,
    tokens: u64,
    doing: String,
}

/// A progress line redrawn ten times a second by a background thread.
#[derive(Debug)]
pub struct Progress {
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Start drawing.
    pub fn start() -> Self {
        let state = Arc::new(Mutex::new(State {
            doing: "starting".into(),
            ..State::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let state = state.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                let start = Instant::now();
                let mut frame = 0usize;
                while !stop.load(Ordering::Relaxed) {
                    let line = match state.lock() {
                        Ok(s) => format!(
                            "{} {}  {:.1}s  {} tokens  {}",
                            SPINNER[frame % SPINNER.len()],
                            s.provider,
                            start.elapsed().as_secs_f64(),
                            s.tokens,
                            s.doing
                        ),
                        Err(_) => break,
                    };
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\r\x1b[2K{line}");
                    let _ = err.flush();
                    frame += 1;
                    std::thread::sleep(Duration::from_millis(100));
                }
            })
        };
        Progress {
            state,
            stop,
            thread: Some(thread),
        }
    }

    /// Update the line from an event.
    pub fn observe(&mut self, event: &Event) {
        let Ok(mut s) = self.state.lock() else { return };
        if let Some(p) = &event.provider {
            s.provider.clone_from(p);
        }
        match &event.body {
            EventBody::Start(_) => s.doing = "waiting for the model".into(),
            EventBody::ToolUse(t) => s.doing = format!("running {}", t.name),
            EventBody::ToolResult(_) => s.doing = "thinking".into(),
            EventBody::TextDelta(_) | EventBody::Message(_) => s.doing = "writing".into(),
            EventBody::Thinking(_) => s.doing = "thinking".into(),
            EventBody::Usage(u) => match u.scope {
                UsageScope::Turn => s.tokens += u.usage.total_tokens,
                UsageScope::Total => s.tokens = u.usage.total_tokens,
            },
            EventBody::Status(StatusEvent::Retry {
                provider_status, ..
            }) => {
                s.doing = match provider_status {
                    Some(code) => format!("provider retrying after HTTP {code}"),
                    None => "provider retrying".into(),
                }
            }
            EventBody::Status(StatusEvent::Failover { to, error_type, .. }) => {
                s.doing = format!("failing over to {to} after {error_type}");
            }
            EventBody::Status(StatusEvent::Skipped {
                step, error_type, ..
            }) => {
                s.doing = format!("skipped {step} ({error_type})");
            }
            EventBody::Cancelled(_) => s.doing = "cancelling".into(),
            _ => {}
        }
    }

    /// Stop drawing and clear the line.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K");
        let _ = err.flush();
    }
}
