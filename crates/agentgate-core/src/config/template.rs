//! Argument templates of custom providers: strings with `{prompt}`,
//! `{model}`, `{session}`, `{cwd}` and `{system}` placeholders, and
//! optional groups that are left out when a placeholder in them has no value.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};

/// A value a template can take from the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placeholder {
    /// `{prompt}`: the prompt (only with `prompt: argv`).
    Prompt,
    /// `{model}`: `--model`; none when the caller gave none.
    Model,
    /// `{session}`: the native session id being resumed; none on a fresh run.
    Session,
    /// `{cwd}`: the working directory of the run.
    Cwd,
    /// `{system}`: `--system` instructions; none when the caller gave none.
    System,
}

impl Placeholder {
    /// Every placeholder.
    pub const ALL: [Placeholder; 5] = [
        Placeholder::Prompt,
        Placeholder::Model,
        Placeholder::Session,
        Placeholder::Cwd,
        Placeholder::System,
    ];

    /// The name between the braces.
    pub fn as_str(self) -> &'static str {
        match self {
            Placeholder::Prompt => "prompt",
            Placeholder::Model => "model",
            Placeholder::Session => "session",
            Placeholder::Cwd => "cwd",
            Placeholder::System => "system",
        }
    }

    fn from_name(name: &str) -> Option<Placeholder> {
        Placeholder::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

impl fmt::Display for Placeholder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}}}", self.as_str())
    }
}

/// The values of one run's placeholders. An empty value counts as none.
#[derive(Debug, Clone, Copy, Default)]
pub struct Values<'a> {
    /// `{prompt}`.
    pub prompt: Option<&'a str>,
    /// `{model}`.
    pub model: Option<&'a str>,
    /// `{session}`.
    pub session: Option<&'a str>,
    /// `{cwd}`.
    pub cwd: Option<&'a str>,
    /// `{system}`.
    pub system: Option<&'a str>,
}

impl<'a> Values<'a> {
    /// The value of `p`, if it has a non-empty one.
    pub fn get(&self, p: Placeholder) -> Option<&'a str> {
        let v = match p {
            Placeholder::Prompt => self.prompt,
            Placeholder::Model => self.model,
            Placeholder::Session => self.session,
            Placeholder::Cwd => self.cwd,
            Placeholder::System => self.system,
        };
        v.filter(|s| !s.is_empty())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Slot(Placeholder),
}

/// One string with placeholders, such as `--model={model}`. `{{` and `}}`
/// stand for literal braces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: String,
    pieces: Vec<Piece>,
}

/// A template that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TemplateError(String);

impl Template {
    /// Parse `source`.
    pub fn parse(source: &str) -> Result<Template, TemplateError> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut chars = source.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' if chars.peek().is_some_and(|(_, n)| *n == '{') => {
                    chars.next();
                    text.push('{');
                }
                '}' if chars.peek().is_some_and(|(_, n)| *n == '}') => {
                    chars.next();
                    text.push('}');
                }
                '{' => {
                    let rest = &source[i + 1..];
                    let Some(end) = rest.find('}') else {
                        return Err(TemplateError(format!(
                            "`{source}` has a `{{` without its `}}` (write `{{{{` for a literal brace)"
                        )));
                    };
                    let name = &rest[..end];
                    let Some(p) = Placeholder::from_name(name.trim()) else {
                        return Err(TemplateError(format!(
                            "`{source}` has an unknown placeholder `{{{name}}}` (known: {{prompt}}, {{model}}, {{session}}, {{cwd}}, {{system}}; write `{{{{` and `}}}}` for literal braces)"
                        )));
                    };
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Slot(p));
                    // Skip the name and the closing brace.
                    for _ in 0..name.chars().count() + 1 {
                        chars.next();
                    }
                }
                c => text.push(c),
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Ok(Template {
            source: source.to_owned(),
            pieces,
        })
    }

    /// A template without placeholders.
    pub fn literal(text: &str) -> Template {
        Template {
            source: text.replace('{', "{{").replace('}', "}}"),
            pieces: if text.is_empty() {
                Vec::new()
            } else {
                vec![Piece::Text(text.to_owned())]
            },
        }
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The placeholders it uses, in order.
    pub fn placeholders(&self) -> impl Iterator<Item = Placeholder> + '_ {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Slot(s) => Some(*s),
            Piece::Text(_) => None,
        })
    }

    /// Whether it uses `p`.
    pub fn uses(&self, p: Placeholder) -> bool {
        self.placeholders().any(|x| x == p)
    }

    /// The text with every placeholder replaced; `Err` names a placeholder
    /// that has no value.
    pub fn expand(&self, values: &Values<'_>) -> Result<String, Placeholder> {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Slot(p) => out.push_str(values.get(*p).ok_or(*p)?),
            }
        }
        Ok(out)
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl<'de> Deserialize<'de> for Template {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A typed string keeps the scalar's text as written (`3`, `yes`).
        let s = String::deserialize(d)?;
        Template::parse(&s).map_err(de::Error::custom)
    }
}

/// One element of a command template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgTemplate {
    /// One argument. A placeholder in it without a value is an error of
    /// the run (the CLI cannot do without it).
    Arg(Template),
    /// An optional group (a YAML list inside the command): its arguments
    /// are passed only when every placeholder in them has a value, as in
    /// `[--model, "{model}"]`.
    Group(Vec<Template>),
}

impl ArgTemplate {
    /// The placeholders it uses.
    pub fn placeholders(&self) -> Vec<Placeholder> {
        match self {
            ArgTemplate::Arg(t) => t.placeholders().collect(),
            ArgTemplate::Group(g) => g.iter().flat_map(Template::placeholders).collect(),
        }
    }

    /// Whether it is an optional group.
    pub fn is_group(&self) -> bool {
        matches!(self, ArgTemplate::Group(_))
    }

    /// Append its arguments to `out`; `Err` names a placeholder without a
    /// value in a plain argument (a group without one is left out).
    pub fn expand_into(
        &self,
        values: &Values<'_>,
        out: &mut Vec<String>,
    ) -> Result<(), Placeholder> {
        match self {
            ArgTemplate::Arg(t) => out.push(t.expand(values)?),
            ArgTemplate::Group(g) => {
                let expanded: Result<Vec<String>, Placeholder> =
                    g.iter().map(|t| t.expand(values)).collect();
                if let Ok(args) = expanded {
                    out.extend(args);
                }
            }
        }
        Ok(())
    }
}

/// Expand a whole template list.
pub fn expand_all(
    templates: &[ArgTemplate],
    values: &Values<'_>,
    out: &mut Vec<String>,
) -> Result<(), Placeholder> {
    templates
        .iter()
        .try_for_each(|t| t.expand_into(values, out))
}

impl<'de> Deserialize<'de> for ArgTemplate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ArgVisitor)
    }
}

struct ArgVisitor;

impl ArgVisitor {
    fn quote_it<E: de::Error>(what: &str) -> E {
        E::custom(format!(
            "YAML reads this argument as {what}: quote it (a command element is a string, or a list of strings for an optional group)"
        ))
    }
}

impl<'de> Visitor<'de> for ArgVisitor {
    type Value = ArgTemplate;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an argument (a string) or an optional group (a list of strings)")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<ArgTemplate, E> {
        Template::parse(s).map(ArgTemplate::Arg).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<ArgTemplate, E> {
        Ok(ArgTemplate::Arg(Template::literal(&n.to_string())))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<ArgTemplate, E> {
        Ok(ArgTemplate::Arg(Template::literal(&n.to_string())))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<ArgTemplate, E> {
        Err(Self::quote_it("a number"))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<ArgTemplate, E> {
        Err(Self::quote_it("a boolean"))
    }

    fn visit_unit<E: de::Error>(self) -> Result<ArgTemplate, E> {
        Err(Self::quote_it("null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ArgTemplate, A::Error> {
        let mut group = Vec::new();
        while let Some(t) = seq.next_element::<Template>()? {
            group.push(t);
        }
        if group.is_empty() {
            return Err(de::Error::custom("an optional group is empty"));
        }
        if !group.iter().any(|t| t.placeholders().next().is_some()) {
            return Err(de::Error::custom(
                "an optional group needs a placeholder (it is left out when one of its placeholders has no value); write its arguments as plain elements",
            ));
        }
        Ok(ArgTemplate::Group(group))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Values<'static> {
        Values {
            prompt: Some("hi"),
            model: Some("m1"),
            session: None,
            cwd: Some("/w"),
            system: Some(""),
        }
    }

    #[test]
    fn placeholders_are_replaced_and_braces_escaped() {
        let t = Template::parse("--model={model} {{x}} in {cwd}").unwrap();
        assert_eq!(t.expand(&values()).unwrap(), "--model=m1 {x} in /w");
        assert_eq!(
            t.placeholders().collect::<Vec<_>>(),
            [Placeholder::Model, Placeholder::Cwd]
        );
        assert_eq!(
            Template::parse("{session}").unwrap().expand(&values()),
            Err(Placeholder::Session)
        );
        // An empty value counts as none.
        assert_eq!(
            Template::parse("{system}").unwrap().expand(&values()),
            Err(Placeholder::System)
        );
        assert_eq!(Template::literal("{a}").expand(&values()).unwrap(), "{a}");
    }

    #[test]
    fn bad_templates_say_what_is_wrong() {
        let e = Template::parse("--x={modle}").unwrap_err().to_string();
        assert!(e.contains("unknown placeholder `{modle}`"), "{e}");
        let e = Template::parse("{\"a\": 1}").unwrap_err().to_string();
        assert!(e.contains("{{"), "{e}");
        let e = Template::parse("--x={model").unwrap_err().to_string();
        assert!(e.contains("without its `}`"), "{e}");
    }

    #[test]
    fn groups_are_left_out_without_their_values() {
        let model = ArgTemplate::Group(vec![
            Template::parse("--model").unwrap(),
            Template::parse("{model}").unwrap(),
        ]);
        let session = ArgTemplate::Group(vec![
            Template::parse("--resume").unwrap(),
            Template::parse("{session}").unwrap(),
        ]);
        let mut out = Vec::new();
        expand_all(&[model, session], &values(), &mut out).unwrap();
        assert_eq!(out, ["--model", "m1"]);
        let plain = ArgTemplate::Arg(Template::parse("{session}").unwrap());
        assert_eq!(
            plain.expand_into(&values(), &mut out),
            Err(Placeholder::Session)
        );
    }
}
