//! Cron expressions: five fields, evaluated in a time zone with jiff.
//!
//! `minute hour day-of-month month day-of-week`, as in crontab(5):
//! each field is `*`, a value, a range `a-b`, a step `*/n`, `a-b/n` or
//! `a/n` (from `a` to the field's end), or a comma list of these. Months
//! and weekdays also take English names (`jan`, `mon`, case-insensitive);
//! weekday 0 and 7 are Sunday. The macros `@yearly` (`@annually`),
//! `@monthly`, `@weekly`, `@daily` (`@midnight`) and `@hourly` stand for
//! their usual expressions. There is no seconds field: six fields are
//! refused, so a schedule fires at most once a minute.
//!
//! Day of month and day of week combine as in cron: when both are
//! restricted (neither starts with `*`), a day matches if either matches;
//! otherwise only the restricted one counts. A day of month that no month
//! of the expression has (`0 0 30 2 *`) is refused, so every expression
//! fires again within a few years.
//!
//! [`CronExpr::next_after`] gives the next fire strictly after an instant,
//! in a time zone, across daylight-saving changes: a local time skipped
//! by a jump forward fires once, shifted by the jump; a local time that
//! happens twice fires once, at its first occurrence (`next.rs`).

mod next;

use std::fmt;
use std::str::FromStr;

/// A parsed cron expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronExpr {
    text: String,
    minutes: u64,
    hours: u32,
    days: u32,
    months: u16,
    weekdays: u8,
    days_restricted: bool,
    weekdays_restricted: bool,
}

/// An expression refused, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid cron expression `{text}`: {reason}")]
pub struct CronError {
    /// The expression as given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

struct Field {
    name: &'static str,
    min: u32,
    max: u32,
    names: &'static [&'static str],
}

const MINUTE: Field = Field {
    name: "minute",
    min: 0,
    max: 59,
    names: &[],
};
const HOUR: Field = Field {
    name: "hour",
    min: 0,
    max: 23,
    names: &[],
};
const DAY: Field = Field {
    name: "day of month",
    min: 1,
    max: 31,
    names: &[],
};
const MONTH: Field = Field {
    name: "month",
    min: 1,
    max: 12,
    names: &[
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ],
};
const WEEKDAY: Field = Field {
    name: "day of week",
    min: 0,
    max: 7,
    names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
};

/// The most days each month can have (February: in a leap year).
const MONTH_DAYS: [u32; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

impl CronExpr {
    /// Parse `text` (see the module notes for the syntax).
    pub fn parse(text: &str) -> Result<CronExpr, CronError> {
        let fail = |reason: String| CronError {
            text: text.to_owned(),
            reason,
        };
        let trimmed = text.trim();
        let expanded = match trimmed.to_ascii_lowercase().as_str() {
            "@yearly" | "@annually" => "0 0 1 1 *".to_owned(),
            "@monthly" => "0 0 1 * *".to_owned(),
            "@weekly" => "0 0 * * 0".to_owned(),
            "@daily" | "@midnight" => "0 0 * * *".to_owned(),
            "@hourly" => "0 * * * *".to_owned(),
            other if other.starts_with('@') => {
                return Err(fail(format!(
                    "unknown macro `{trimmed}` (known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)"
                )));
            }
            _ => trimmed.to_owned(),
        };
        let fields: Vec<&str> = expanded.split_whitespace().collect();
        match fields.len() {
            5 => {}
            6 => {
                return Err(fail(
                    "6 fields: seconds are not supported; give 5 fields (minute hour day-of-month month day-of-week)".to_owned(),
                ));
            }
            n => {
                return Err(fail(format!(
                    "{n} fields; give 5 (minute hour day-of-month month day-of-week)"
                )));
            }
        }
        let minutes = parse_field(fields[0], &MINUTE).map_err(fail)?;
        let hours = parse_field(fields[1], &HOUR).map_err(fail)?;
        let days = parse_field(fields[2], &DAY).map_err(fail)?;
        let months = parse_field(fields[3], &MONTH).map_err(fail)?;
        let mut weekdays = parse_field(fields[4], &WEEKDAY).map_err(fail)?;
        if weekdays & (1 << 7) != 0 {
            weekdays = (weekdays | 1) & !(1 << 7);
        }
        let expr = CronExpr {
            text: trimmed.to_owned(),
            minutes,
            hours: low_bits(hours),
            days: low_bits(days),
            months: u16::try_from(months & 0x1ffe).unwrap_or(0),
            weekdays: u8::try_from(weekdays & 0x7f).unwrap_or(0),
            days_restricted: !fields[2].starts_with('*'),
            weekdays_restricted: !fields[4].starts_with('*'),
        };
        if !expr.weekdays_restricted && !expr.some_day_exists() {
            return Err(fail(
                "no month of the expression has that day of month, so it would never fire"
                    .to_owned(),
            ));
        }
        Ok(expr)
    }

    /// The expression as given (trimmed).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn some_day_exists(&self) -> bool {
        (1..=12u32).any(|m| {
            self.months & (1 << m) != 0
                && (1..=MONTH_DAYS[(m - 1) as usize]).any(|d| self.days & (1 << d) != 0)
        })
    }
}

fn low_bits(set: u64) -> u32 {
    u32::try_from(set & u64::from(u32::MAX)).unwrap_or(0)
}

impl FromStr for CronExpr {
    type Err = CronError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CronExpr::parse(s)
    }
}

impl fmt::Display for CronExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// One field as a bit set (bit `n` = value `n`).
fn parse_field(text: &str, field: &Field) -> Result<u64, String> {
    let mut set = 0u64;
    for item in text.split(',') {
        set |= parse_item(item, field)
            .map_err(|reason| format!("{} field `{text}`: {reason}", field.name))?;
    }
    Ok(set)
}

fn parse_item(item: &str, field: &Field) -> Result<u64, String> {
    if item.is_empty() {
        return Err("an empty item".to_owned());
    }
    let (range, step) = match item.split_once('/') {
        Some((range, step)) => {
            let step: u32 = step
                .parse()
                .map_err(|_| format!("step `{step}` is not a number"))?;
            if step == 0 {
                return Err("a step of 0".to_owned());
            }
            (range, Some(step))
        }
        None => (item, None),
    };
    let (low, high) = if range == "*" {
        (field.min, field.max)
    } else if let Some((a, b)) = range.split_once('-') {
        (value(a, field)?, value(b, field)?)
    } else {
        let a = value(range, field)?;
        // `a/n` runs from `a` to the field's end.
        (a, if step.is_some() { field.max } else { a })
    };
    if low > high {
        return Err(format!("range `{range}` runs backwards"));
    }
    let step = step.unwrap_or(1);
    let mut set = 0u64;
    let mut v = low;
    while v <= high {
        set |= 1 << v;
        v += step;
    }
    Ok(set)
}

fn value(text: &str, field: &Field) -> Result<u32, String> {
    let lower = text.to_ascii_lowercase();
    if let Some(i) = field.names.iter().position(|n| *n == lower) {
        let i = u32::try_from(i).unwrap_or(0);
        return Ok(i + field.min);
    }
    let n: u32 = text.parse().map_err(|_| {
        if field.names.is_empty() {
            format!("`{text}` is not a number")
        } else {
            format!(
                "`{text}` is not a number or a name ({})",
                field.names.join(", ")
            )
        }
    })?;
    if n < field.min || n > field.max {
        return Err(format!(
            "{n} is out of range ({} to {})",
            field.min, field.max
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests;
