//! A usage report as text: an aligned table for people (numbers right
//! aligned, a totals line) and CSV for machines (RFC 4180 quoting).

use std::fmt::Write as _;

use agentgate_store::{UsageFigures, UsageReport};

const CSV_HEADER: &str = "bucket,group,runs,succeeded,failed,cancelled,running,input_tokens,\
output_tokens,cache_read_tokens,cache_write_tokens,reasoning_tokens,total_tokens,cost_usd,\
runs_without_cost,error_types";

/// One line per row, with a header; error types as `type=n` pairs joined
/// by `;`; a run without a group has an empty `group`.
pub fn csv(report: &UsageReport) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for row in &report.rows {
        let f = &row.figures;
        let cells = [
            row.bucket.clone(),
            row.group.clone().unwrap_or_default(),
            f.runs.to_string(),
            f.succeeded.to_string(),
            f.failed.to_string(),
            f.cancelled.to_string(),
            f.running.to_string(),
            f.input_tokens.to_string(),
            f.output_tokens.to_string(),
            f.cache_read_tokens.to_string(),
            f.cache_write_tokens.to_string(),
            f.reasoning_tokens.to_string(),
            f.total_tokens.to_string(),
            format!("{:.6}", f.cost_usd),
            f.runs_without_cost.to_string(),
            errors(f, "=", ";"),
        ];
        let quoted: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
        let _ = writeln!(out, "{}", quoted.join(","));
    }
    out
}

fn csv_cell(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_owned()
    }
}

fn errors(f: &UsageFigures, between: &str, sep: &str) -> String {
    f.error_types
        .iter()
        .map(|(kind, n)| format!("{kind}{between}{n}"))
        .collect::<Vec<_>>()
        .join(sep)
}

/// The table: the range on the first line, a header, a line per row, a
/// totals line; `-` for a row without a group value.
pub fn table(report: &UsageReport) -> String {
    let group = report.group.clone().unwrap_or_default().to_uppercase();
    let mut header = vec![report.by.as_str().to_uppercase()];
    if report.group.is_some() {
        header.push(group);
    }
    header.extend(
        [
            "RUNS",
            "OK",
            "FAILED",
            "CANCELLED",
            "INPUT",
            "OUTPUT",
            "CACHE R",
            "CACHE W",
            "REASONING",
            "TOTAL",
            "COST USD",
            "NO COST",
            "ERRORS",
        ]
        .map(str::to_owned),
    );
    let mut lines = vec![header];
    for row in &report.rows {
        let mut cells = vec![row.bucket.clone()];
        if report.group.is_some() {
            cells.push(row.group.clone().unwrap_or_else(|| "-".to_owned()));
        }
        cells.extend(figures(&row.figures));
        lines.push(cells);
    }
    let mut total = vec!["total".to_owned()];
    if report.group.is_some() {
        total.push(String::new());
    }
    total.extend(figures(&report.totals));
    lines.push(total);
    let text_columns = if report.group.is_some() { 2 } else { 1 };
    let mut out = format!(
        "usage of agent runs started from {} to {} (UTC)\n",
        report.since, report.until
    );
    if report.rows.is_empty() {
        out.push_str("no runs in this range\n");
        return out;
    }
    out.push_str(&aligned(&lines, text_columns));
    out
}

fn figures(f: &UsageFigures) -> Vec<String> {
    vec![
        f.runs.to_string(),
        f.succeeded.to_string(),
        f.failed.to_string(),
        f.cancelled.to_string(),
        f.input_tokens.to_string(),
        f.output_tokens.to_string(),
        f.cache_read_tokens.to_string(),
        f.cache_write_tokens.to_string(),
        f.reasoning_tokens.to_string(),
        f.total_tokens.to_string(),
        format!("{:.4}", f.cost_usd),
        f.runs_without_cost.to_string(),
        errors(f, ":", " "),
    ]
}

/// `lines` padded: the first `text_columns` and the last (errors) left
/// aligned, the numbers between right aligned.
fn aligned(lines: &[Vec<String>], text_columns: usize) -> String {
    let n = lines.first().map_or(0, Vec::len);
    let mut widths = vec![0usize; n];
    for line in lines {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for line in lines {
        let mut text = String::new();
        for (i, (cell, w)) in line.iter().zip(&widths).enumerate() {
            let w = *w;
            if i + 1 == n {
                text.push_str(cell);
            } else if i < text_columns {
                let _ = write!(text, "{cell:<w$}  ");
            } else {
                let _ = write!(text, "{cell:>w$}  ");
            }
        }
        let _ = writeln!(out, "{}", text.trim_end());
    }
    out
}
