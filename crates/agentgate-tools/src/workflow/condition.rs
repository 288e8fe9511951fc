//! A step's `when:`, parsed once and evaluated against a [`Scope`].
//!
//! The grammar: an optional leading `!` or `not ` (negating the whole
//! condition), then an operand, optionally followed by `==` or `!=` and a
//! second operand. An operand is a `${...}` reference, a quoted string
//! (`'..'` or `".."`, no escapes), a number, `true`, `false`, `null`, or a
//! bare word (a string, ended by a space, `=` or `!`).
//!
//! Evaluation: a reference without a value is `null`. A lone operand is
//! tested for truth (`null`, `false`, `0`, `""`, `[]` and `{}` are false).
//! `==` compares JSON values (numbers by value), except that a string
//! compared with a number or a boolean compares their text, so
//! `${x} == 3` holds whether `x` is `3` or `"3"`.

use serde_json::Value;

use super::refs::{Reference, Scope};

/// One side of a condition.
#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Ref(Reference),
    Literal(Value),
}

/// `==` or `!=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
}

/// A parsed `when:`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    negated: bool,
    left: Operand,
    compare: Option<(Op, Operand)>,
}

impl Condition {
    /// Parse a condition; the message says what is wrong.
    pub fn parse(text: &str) -> Result<Condition, String> {
        let mut rest = text.trim();
        if rest.is_empty() {
            return Err("an empty condition: write e.g. `${steps.ID.output.ok}`".into());
        }
        let mut negated = false;
        if let Some(after) = rest.strip_prefix('!')
            && !after.starts_with('=')
        {
            negated = true;
            rest = after.trim_start();
        } else if let Some(after) = rest.strip_prefix("not")
            && after.starts_with(char::is_whitespace)
        {
            negated = true;
            rest = after.trim_start();
        }
        let (left, after) = operand(rest, text)?;
        rest = after.trim_start();
        if rest.is_empty() {
            return Ok(Condition {
                negated,
                left,
                compare: None,
            });
        }
        let op = if let Some(after) = rest.strip_prefix("==") {
            rest = after;
            Op::Eq
        } else if let Some(after) = rest.strip_prefix("!=") {
            rest = after;
            Op::Ne
        } else {
            return Err(format!(
                "`{text}`: expected `==` or `!=` before `{rest}` (a value with spaces is quoted)"
            ));
        };
        let (right, after) = operand(rest.trim_start(), text)?;
        let after = after.trim();
        if !after.is_empty() {
            return Err(format!(
                "`{text}`: `{after}` after the comparison (one `==` or `!=` per condition)"
            ));
        }
        Ok(Condition {
            negated,
            left,
            compare: Some((op, right)),
        })
    }

    /// The references the condition holds.
    pub fn references(&self) -> impl Iterator<Item = &Reference> {
        let right = self.compare.as_ref().map(|(_, r)| r);
        [Some(&self.left), right]
            .into_iter()
            .flatten()
            .filter_map(|o| match o {
                Operand::Ref(r) => Some(r),
                Operand::Literal(_) => None,
            })
    }

    /// Whether the condition holds in `scope`.
    pub fn eval(&self, scope: &Scope) -> bool {
        let left = value(&self.left, scope);
        let holds = match &self.compare {
            None => truthy(&left),
            Some((op, right)) => {
                let same = equal(&left, &value(right, scope));
                match op {
                    Op::Eq => same,
                    Op::Ne => !same,
                }
            }
        };
        holds != self.negated
    }
}

/// The operand at the start of `s` and what follows it.
fn operand<'a>(s: &'a str, whole: &str) -> Result<(Operand, &'a str), String> {
    if s.is_empty() {
        return Err(format!("`{whole}`: a value is missing"));
    }
    if let Some(after) = s.strip_prefix("${") {
        let Some(end) = after.find('}') else {
            return Err(format!("`{whole}`: an unclosed `${{`"));
        };
        let reference = Reference::parse(&after[..end])?;
        let rest = &after[end + 1..];
        if rest.starts_with(|c: char| !(c.is_whitespace() || c == '=' || c == '!')) {
            return Err(format!(
                "`{whole}`: text right after `${{{}}}` (quote a value that mixes text and references: only a reference alone is compared)",
                reference.text
            ));
        }
        return Ok((Operand::Ref(reference), rest));
    }
    for quote in ['\'', '"'] {
        if let Some(after) = s.strip_prefix(quote) {
            let Some(end) = after.find(quote) else {
                return Err(format!("`{whole}`: an unclosed {quote}"));
            };
            let text = &after[..end];
            if text.contains("${") {
                return Err(format!(
                    "`{whole}`: a quoted string is literal: compare the reference alone, `${{...}} == 'text'`"
                ));
            }
            return Ok((
                Operand::Literal(Value::String(text.to_owned())),
                &after[end + 1..],
            ));
        }
    }
    let len = s
        .find(|c: char| c.is_whitespace() || c == '=' || c == '!')
        .unwrap_or(s.len());
    let (word, rest) = s.split_at(len);
    if word.is_empty() {
        return Err(format!("`{whole}`: a value is missing before `{s}`"));
    }
    if word.contains("${") {
        return Err(format!(
            "`{whole}`: `{word}` mixes text and a reference: compare the reference alone"
        ));
    }
    let literal = match word {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" => Value::Null,
        _ => number(word).unwrap_or_else(|| Value::String(word.to_owned())),
    };
    Ok((Operand::Literal(literal), rest))
}

/// A word that reads as a number: an integer, else a finite float.
fn number(word: &str) -> Option<Value> {
    if let Ok(n) = word.parse::<i64>() {
        return Some(Value::from(n));
    }
    if let Ok(n) = word.parse::<u64>() {
        return Some(Value::from(n));
    }
    let looks_numeric = word
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
        && word.bytes().any(|b| b.is_ascii_digit());
    let f = word.parse::<f64>().ok().filter(|f| f.is_finite())?;
    looks_numeric
        .then(|| serde_json::Number::from_f64(f).map(Value::Number))
        .flatten()
}

fn value(operand: &Operand, scope: &Scope) -> Value {
    match operand {
        Operand::Ref(r) => scope.resolve(r).unwrap_or(Value::Null),
        Operand::Literal(v) => v.clone(),
    }
}

/// `null`, `false`, `0`, `""`, `[]` and `{}` are false; the rest true.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// JSON equality, numbers by value; a string against a number or a
/// boolean compares their text.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::String(s), other @ (Value::Number(_) | Value::Bool(_)))
        | (other @ (Value::Number(_) | Value::Bool(_)), Value::String(s)) => {
            s.as_str() == other.to_string().as_str()
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests;
