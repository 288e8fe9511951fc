//! Argument templates: strings with placeholders such as `{model}`, and
//! optional groups that are left out when a placeholder in them has no
//! value. Built-in providers write them as static text in their argv
//! tables; the config file's described CLIs as YAML, checked on load.

use std::borrow::Cow;
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
    /// `{dir}`: one extra directory (`--add-dir`), in a built-in table's
    /// per-directory part.
    Dir,
    /// `{output_schema}`: the absolute path of `--output-schema`, for CLIs
    /// that enforce a schema themselves.
    OutputSchema,
    /// `{max_retries}`: `--max-provider-retries`, for CLIs with a setting
    /// for it.
    MaxRetries,
}

impl Placeholder {
    /// The placeholders a described CLI's config may use.
    pub const ALL: [Placeholder; 5] = [
        Placeholder::Prompt,
        Placeholder::Model,
        Placeholder::Session,
        Placeholder::Cwd,
        Placeholder::System,
    ];

    /// Every placeholder, those of built-in tables included.
    pub const BUILTIN: [Placeholder; 8] = [
        Placeholder::Prompt,
        Placeholder::Model,
        Placeholder::Session,
        Placeholder::Cwd,
        Placeholder::System,
        Placeholder::Dir,
        Placeholder::OutputSchema,
        Placeholder::MaxRetries,
    ];

    /// The name between the braces.
    pub fn as_str(self) -> &'static str {
        match self {
            Placeholder::Prompt => "prompt",
            Placeholder::Model => "model",
            Placeholder::Session => "session",
            Placeholder::Cwd => "cwd",
            Placeholder::System => "system",
            Placeholder::Dir => "dir",
            Placeholder::OutputSchema => "output_schema",
            Placeholder::MaxRetries => "max_retries",
        }
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
    /// `{dir}`.
    pub dir: Option<&'a str>,
    /// `{output_schema}`.
    pub output_schema: Option<&'a str>,
    /// `{max_retries}`.
    pub max_retries: Option<&'a str>,
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
            Placeholder::Dir => self.dir,
            Placeholder::OutputSchema => self.output_schema,
            Placeholder::MaxRetries => self.max_retries,
        };
        v.filter(|s| !s.is_empty())
    }
}

/// A piece of a template: text, or a placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'t> {
    Text(&'t str),
    /// A doubled brace, standing for one.
    Brace(char),
    Slot(Placeholder),
}

/// One string with placeholders, such as `--model={model}`. `{{` and `}}`
/// stand for literal braces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: Cow<'static, str>,
}

/// A template that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TemplateError(String);

/// Why a template could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpandError {
    /// This placeholder has no value.
    Missing(Placeholder),
    /// The template does not parse (a built-in table with a typo: the
    /// tests of every built-in table keep this from happening).
    Invalid(TemplateError),
}

impl Template {
    /// Parse `source` as a described CLI's config writes it: only the
    /// placeholders of [`Placeholder::ALL`].
    pub fn parse(source: &str) -> Result<Template, TemplateError> {
        let t = Template {
            source: Cow::Owned(source.to_owned()),
        };
        t.pieces(&Placeholder::ALL)?;
        Ok(t)
    }

    /// A template of a built-in provider's table (any placeholder of
    /// [`Placeholder::BUILTIN`]), checked when it is expanded.
    pub const fn builtin(source: &'static str) -> Template {
        Template {
            source: Cow::Borrowed(source),
        }
    }

    /// A template without placeholders.
    pub fn literal(text: &str) -> Template {
        Template {
            source: Cow::Owned(text.replace('{', "{{").replace('}', "}}")),
        }
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The template's pieces, with placeholders limited to `known`.
    fn pieces(&self, known: &[Placeholder]) -> Result<Vec<Piece<'_>>, TemplateError> {
        let source: &str = &self.source;
        let mut pieces = Vec::new();
        let mut rest = source;
        while let Some(at) = rest.find(['{', '}']) {
            if at > 0 {
                pieces.push(Piece::Text(&rest[..at]));
            }
            let brace = rest[at..].chars().next().unwrap_or('{');
            let after = &rest[at + 1..];
            if after.starts_with(brace) {
                pieces.push(Piece::Brace(brace));
                rest = &after[1..];
                continue;
            }
            if brace == '}' {
                // A lone `}` is taken as written.
                pieces.push(Piece::Brace('}'));
                rest = after;
                continue;
            }
            let Some(end) = after.find('}') else {
                return Err(TemplateError(format!(
                    "`{source}` has a `{{` without its `}}` (write `{{{{` for a literal brace)"
                )));
            };
            let name = &after[..end];
            let Some(p) = known.iter().copied().find(|p| p.as_str() == name.trim()) else {
                let names: Vec<String> = known.iter().map(ToString::to_string).collect();
                return Err(TemplateError(format!(
                    "`{source}` has an unknown placeholder `{{{name}}}` (known: {}; write `{{{{` and `}}}}` for literal braces)",
                    names.join(", ")
                )));
            };
            pieces.push(Piece::Slot(p));
            rest = &after[end + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest));
        }
        Ok(pieces)
    }

    /// The placeholders it uses, in order (none for a template that does
    /// not parse).
    pub fn placeholders(&self) -> impl Iterator<Item = Placeholder> + '_ {
        self.pieces(&Placeholder::BUILTIN)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|p| match p {
                Piece::Slot(s) => Some(s),
                Piece::Text(_) | Piece::Brace(_) => None,
            })
    }

    /// Whether it uses `p`.
    pub fn uses(&self, p: Placeholder) -> bool {
        self.placeholders().any(|x| x == p)
    }

    /// The text with every placeholder replaced; `Err` names a placeholder
    /// that has no value.
    pub fn expand(&self, values: &Values<'_>) -> Result<String, ExpandError> {
        let mut out = String::new();
        for piece in self
            .pieces(&Placeholder::BUILTIN)
            .map_err(ExpandError::Invalid)?
        {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Brace(b) => out.push(b),
                Piece::Slot(p) => out.push_str(values.get(p).ok_or(ExpandError::Missing(p))?),
            }
        }
        Ok(out)
    }

    /// Check a built-in table's template: it parses.
    pub fn check(&self) -> Result<(), TemplateError> {
        self.pieces(&Placeholder::BUILTIN).map(|_| ())
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

/// One element of a described CLI's command.
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
            ..Values::default()
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
            Err(ExpandError::Missing(Placeholder::Session))
        );
        // An empty value counts as none.
        assert_eq!(
            Template::parse("{system}").unwrap().expand(&values()),
            Err(ExpandError::Missing(Placeholder::System))
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
        // The built-in tables' own placeholders are not a config's.
        let e = Template::parse("--add-dir={dir}").unwrap_err().to_string();
        assert!(e.contains("unknown placeholder `{dir}`"), "{e}");
        assert!(
            e.contains("{system}") && !e.contains("{max_retries}"),
            "{e}"
        );
        let dir = Template::builtin("--add-dir={dir}");
        let v = Values {
            dir: Some("/x"),
            ..Values::default()
        };
        assert_eq!(dir.expand(&v).unwrap(), "--add-dir=/x");
        assert!(matches!(
            Template::builtin("{nope}").expand(&v),
            Err(ExpandError::Invalid(_))
        ));
    }
}
