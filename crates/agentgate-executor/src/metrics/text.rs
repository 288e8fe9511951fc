//! The Prometheus text exposition format, version 0.0.4: what a scrape of
//! `GET /metrics` answers.
//!
//! Each family is written once, whole: `# HELP`, `# TYPE`, then its
//! samples, `name{label="value",...} value`. Label values escape `\`, `"`
//! and line feeds; help texts escape `\` and line feeds. Values are
//! integers or decimals (never an exponent: Rust's `Display` of `f64`),
//! `+Inf` for the last histogram bucket.

use std::fmt::Write;

/// The `Content-Type` of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A family's type, as `# TYPE` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only goes up (names end in `_total`).
    Counter,
    /// Goes up and down.
    Gauge,
    /// Observations in cumulative buckets, with `_sum` and `_count`.
    Histogram,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// The upper bounds of the run duration histogram's buckets, in seconds
/// (agent runs take from seconds to an hour); `+Inf` follows.
pub const DURATION_BUCKETS: [f64; 12] = [
    0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0,
];

/// Observations counted into [`DURATION_BUCKETS`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    /// Observations at most each bound (not cumulative), then above all.
    counts: [u64; DURATION_BUCKETS.len() + 1],
    sum: f64,
    count: u64,
}

impl Histogram {
    /// Count one observation of `value` (seconds).
    pub fn observe(&mut self, value: f64) {
        let slot = DURATION_BUCKETS
            .iter()
            .position(|bound| value <= *bound)
            .unwrap_or(DURATION_BUCKETS.len());
        if let Some(n) = self.counts.get_mut(slot) {
            *n += 1;
        }
        self.sum += value;
        self.count += 1;
    }
}

/// A page of the text format being written.
#[derive(Debug, Default)]
pub struct Exposition {
    out: String,
}

impl Exposition {
    /// Start a family: its `# HELP` and `# TYPE` lines. Its samples follow.
    pub fn family(&mut self, name: &str, kind: Kind, help: &str) {
        let help = help.replace('\\', "\\\\").replace('\n', "\\n");
        let _ = writeln!(self.out, "# HELP {name} {help}");
        let _ = writeln!(self.out, "# TYPE {name} {}", kind.as_str());
    }

    /// One sample of the family started last.
    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        self.out.push_str(name);
        write_labels(&mut self.out, labels);
        let _ = writeln!(self.out, " {value}");
    }

    /// A histogram's samples: the cumulative buckets, `_sum`, `_count`.
    pub fn histogram(&mut self, name: &str, labels: &[(&str, &str)], histogram: &Histogram) {
        let bucket = format!("{name}_bucket");
        let mut below = 0;
        for (bound, n) in DURATION_BUCKETS.iter().zip(&histogram.counts) {
            below += n;
            let le = bound.to_string();
            let mut with_le = labels.to_vec();
            with_le.push(("le", &le));
            self.sample(&bucket, &with_le, below);
        }
        let mut with_le = labels.to_vec();
        with_le.push(("le", "+Inf"));
        self.sample(&bucket, &with_le, histogram.count);
        self.sample(&format!("{name}_sum"), labels, histogram.sum);
        self.sample(&format!("{name}_count"), labels, histogram.count);
    }

    /// The page.
    pub fn finish(self) -> String {
        self.out
    }
}

fn write_labels(out: &mut String, labels: &[(&str, &str)]) {
    if labels.is_empty() {
        return;
    }
    out.push('{');
    for (i, (name, value)) in labels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(name);
        out.push_str("=\"");
        for c in value.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                '\n' => out.push_str("\\n"),
                c => out.push(c),
            }
        }
        out.push('"');
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_and_help_are_escaped() {
        let mut page = Exposition::default();
        page.family("agentgate_x_total", Kind::Counter, "a \\ b\nc");
        page.sample("agentgate_x_total", &[("provider", "a\"b\\c\nd")], 3);
        page.sample("agentgate_x_total", &[], 0.25);
        assert_eq!(
            page.finish(),
            "# HELP agentgate_x_total a \\\\ b\\nc\n\
             # TYPE agentgate_x_total counter\n\
             agentgate_x_total{provider=\"a\\\"b\\\\c\\nd\"} 3\n\
             agentgate_x_total 0.25\n"
        );
    }

    #[test]
    fn histogram_buckets_are_cumulative() {
        let mut h = Histogram::default();
        for v in [0.1, 0.5, 3.0, 7200.0] {
            h.observe(v);
        }
        let mut page = Exposition::default();
        page.histogram("d_seconds", &[("provider", "p")], &h);
        let text = page.finish();
        let line = |le: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("d_seconds_bucket{{provider=\"p\",le=\"{le}\"}}")))
                .map(|l| l.rsplit(' ').next().unwrap_or_default().to_owned())
        };
        assert_eq!(line("0.5").as_deref(), Some("2"));
        assert_eq!(line("1").as_deref(), Some("2"));
        assert_eq!(line("5").as_deref(), Some("3"));
        assert_eq!(line("3600").as_deref(), Some("3"));
        assert_eq!(line("+Inf").as_deref(), Some("4"));
        assert!(
            text.contains("d_seconds_sum{provider=\"p\"} 7203.6\n"),
            "{text}"
        );
        assert!(
            text.contains("d_seconds_count{provider=\"p\"} 4\n"),
            "{text}"
        );
    }
}
