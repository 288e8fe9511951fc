//! Labels: `key=value` pairs a caller attaches to a run, a job, a workflow
//! or a session (`--label ticket=T-42`, the API's `labels` object), to find
//! them again (`agentgate runs --label`, `GET /v1/runs?label=`), cancel them
//! together (`agentgate cancel --label`) and name their log files.
//!
//! The bounds, checked by [`check_labels`] wherever labels come in:
//!
//! - a key is 1 to [`LABEL_KEY_MAX`] bytes of ASCII letters, digits, `.`,
//!   `_` and `-`, starting with a letter or a digit (keys are compared as
//!   written: `Chat` and `chat` are two keys);
//! - a value is 1 to [`LABEL_VALUE_MAX`] bytes of any text without control
//!   characters;
//! - a run has at most [`LABELS_MAX`] labels.

use std::collections::BTreeMap;

/// Labels, by key (one value per key; ordered, so output is stable).
pub type Labels = BTreeMap<String, String>;

/// The longest label key, in bytes.
pub const LABEL_KEY_MAX: usize = 63;

/// The longest label value, in bytes.
pub const LABEL_VALUE_MAX: usize = 256;

/// The most labels one run (job, workflow, session) carries.
pub const LABELS_MAX: usize = 16;

/// A label refused: what is wrong, as a sentence that names the label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelError(pub String);

impl std::fmt::Display for LabelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LabelError {}

/// Check a label key (see the module's bounds).
pub fn check_label_key(key: &str) -> Result<(), LabelError> {
    if key.is_empty() {
        return Err(LabelError("a label key is empty".to_owned()));
    }
    if key.len() > LABEL_KEY_MAX {
        return Err(LabelError(format!(
            "label key `{}...` is longer than {LABEL_KEY_MAX} bytes",
            cut(key, 32)
        )));
    }
    let first_ok = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let rest_ok = key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !first_ok || !rest_ok {
        return Err(LabelError(format!(
            "label key `{}` is not a key: use ASCII letters, digits, `.`, `_` and `-`, \
             starting with a letter or a digit",
            cut(key, 64).escape_debug()
        )));
    }
    Ok(())
}

/// Check a label value (see the module's bounds); `key` names it in the
/// error.
pub fn check_label_value(key: &str, value: &str) -> Result<(), LabelError> {
    if value.is_empty() {
        return Err(LabelError(format!("label `{key}` has an empty value")));
    }
    if value.len() > LABEL_VALUE_MAX {
        return Err(LabelError(format!(
            "the value of label `{key}` is longer than {LABEL_VALUE_MAX} bytes"
        )));
    }
    if value.chars().any(char::is_control) {
        return Err(LabelError(format!(
            "the value of label `{key}` holds a control character"
        )));
    }
    Ok(())
}

/// Check a run's labels: each key and value, and how many.
pub fn check_labels(labels: &Labels) -> Result<(), LabelError> {
    if labels.len() > LABELS_MAX {
        return Err(LabelError(format!(
            "{} labels given; a run carries at most {LABELS_MAX}",
            labels.len()
        )));
    }
    for (key, value) in labels {
        check_label_key(key)?;
        check_label_value(key, value)?;
    }
    Ok(())
}

/// Read one `key=value` (a `--label` flag, a `?label=` query value),
/// checked. The value is everything after the first `=` (it may hold
/// more).
pub fn parse_label(text: &str) -> Result<(String, String), LabelError> {
    let Some((key, value)) = text.split_once('=') else {
        return Err(LabelError(format!(
            "`{}` is not a label: write key=value",
            cut(text, 64).escape_debug()
        )));
    };
    check_label_key(key)?;
    check_label_value(key, value)?;
    Ok((key.to_owned(), value.to_owned()))
}

/// Read several `key=value` into labels: a key given twice is refused (it
/// would silently keep one of the two), and the whole is checked.
pub fn parse_labels<'a>(texts: impl IntoIterator<Item = &'a str>) -> Result<Labels, LabelError> {
    let mut labels = Labels::new();
    for text in texts {
        let (key, value) = parse_label(text)?;
        if labels.contains_key(&key) {
            return Err(LabelError(format!("label `{key}` is given twice")));
        }
        labels.insert(key, value);
    }
    check_labels(&labels)?;
    Ok(labels)
}

fn cut(text: &str, max_chars: usize) -> &str {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_reads_as_key_and_value() {
        assert_eq!(
            parse_label("chat=42").unwrap(),
            ("chat".to_owned(), "42".to_owned())
        );
        // The value is everything after the first `=`.
        assert_eq!(
            parse_label("q=a=b c").unwrap(),
            ("q".to_owned(), "a=b c".to_owned())
        );
        assert_eq!(
            parse_label("team.sub_x-1=v").unwrap().0,
            "team.sub_x-1".to_owned()
        );
    }

    #[test]
    fn bad_labels_are_refused_with_the_reason() {
        let err = |t: &str| parse_label(t).unwrap_err().0;
        assert!(err("chat").contains("write key=value"), "{}", err("chat"));
        assert!(err("=42").contains("empty"), "{}", err("=42"));
        assert!(err("chat=").contains("empty value"), "{}", err("chat="));
        assert!(err("a/b=1").contains("not a key"), "{}", err("a/b=1"));
        assert!(err("-a=1").contains("not a key"), "{}", err("-a=1"));
        assert!(err("ä=1").contains("not a key"), "{}", err("ä=1"));
        let long_key = format!("{}=1", "k".repeat(LABEL_KEY_MAX + 1));
        assert!(
            err(&long_key).contains("longer than 63"),
            "{}",
            err(&long_key)
        );
        assert!(parse_label(&format!("{}=1", "k".repeat(LABEL_KEY_MAX))).is_ok());
        let long_value = format!("k={}", "v".repeat(LABEL_VALUE_MAX + 1));
        assert!(err(&long_value).contains("longer than 256"));
        assert!(parse_label(&format!("k={}", "v".repeat(LABEL_VALUE_MAX))).is_ok());
        assert!(err("k=a\nb").contains("control character"));
    }

    #[test]
    fn a_run_carries_at_most_sixteen_labels_each_once() {
        let texts: Vec<String> = (0..=LABELS_MAX).map(|i| format!("k{i}=v")).collect();
        let err = parse_labels(texts.iter().map(String::as_str)).unwrap_err();
        assert!(err.0.contains("at most 16"), "{err}");
        assert_eq!(
            parse_labels(texts[..LABELS_MAX].iter().map(String::as_str))
                .unwrap()
                .len(),
            LABELS_MAX
        );
        let err = parse_labels(["a=1", "a=2"]).unwrap_err();
        assert!(err.0.contains("given twice"), "{err}");
    }

    #[test]
    fn check_labels_checks_a_map_from_the_api() {
        let mut labels = Labels::new();
        labels.insert("ok".to_owned(), "1".to_owned());
        assert!(check_labels(&labels).is_ok());
        labels.insert(String::new(), "1".to_owned());
        assert!(check_labels(&labels).unwrap_err().0.contains("empty"));
    }
}
