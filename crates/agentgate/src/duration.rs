//! Durations on the command line: `90`, `90s`, `1500ms`, `5m`, `1h30m`.

use std::time::Duration;

/// Parse a duration; a bare number is seconds.
pub fn parse(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    if let Ok(secs) = s.parse::<f64>() {
        return seconds(secs, s);
    }
    let mut total = Duration::ZERO;
    let mut rest = s;
    while !rest.is_empty() {
        let split = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("`{s}`: a number needs a unit (ms, s, m, h)"))?;
        let (num, tail) = rest.split_at(split);
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at(unit_len);
        let n: f64 = num
            .parse()
            .map_err(|_| format!("`{s}` is not a duration (examples: 30s, 1500ms, 5m, 1h30m)"))?;
        let secs = match unit {
            "ms" => n / 1000.0,
            "s" | "sec" => n,
            "m" | "min" => n * 60.0,
            "h" => n * 3600.0,
            other => return Err(format!("`{s}`: unknown unit `{other}` (use ms, s, m or h)")),
        };
        total += seconds(secs, s)?;
        rest = next;
    }
    Ok(total)
}

fn seconds(secs: f64, s: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(secs).map_err(|_| format!("`{s}` is not a valid duration"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!(parse("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse("1500ms").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse("1h30m").unwrap(), Duration::from_secs(5400));
        assert!(parse("5x").unwrap_err().contains("unknown unit"));
        assert!(parse("").is_err());
        assert!(parse("-3").is_err());
    }
}
