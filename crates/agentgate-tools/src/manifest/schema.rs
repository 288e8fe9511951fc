//! A manifest's inputs, both ways: as a JSON Schema (what an MCP client
//! shows the agent) and a call's input object turned into the `--name
//! value` arguments the tool reads (the seed's convention).

use serde_json::{Map, Value, json};

use super::check::WORKSPACE_VAR;
use super::types::{InputSpec, InputType, Manifest};

/// A call's inputs that do not fit the manifest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// An input the manifest does not declare.
    #[error("unknown input `{name}` (the tool takes: {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// The inputs the tool declares, comma-separated.
        known: String,
    },
    /// A required input is missing.
    #[error("the input `{name}` is required")]
    Missing {
        /// The input.
        name: String,
    },
    /// A value of the wrong type.
    #[error("the input `{name}` must be {expected}, not {given}")]
    WrongType {
        /// The input.
        name: String,
        /// Its type.
        expected: &'static str,
        /// What was given (`a string`, `a number`...).
        given: &'static str,
    },
    /// A value outside the input's `enum`.
    #[error("the input `{name}` must be one of {choices}, not `{value}`")]
    NotAChoice {
        /// The input.
        name: String,
        /// The value given.
        value: String,
        /// The allowed values, comma-separated.
        choices: String,
    },
}

fn described(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn expected(kind: InputType) -> &'static str {
    match kind {
        InputType::Path => "a path (a string)",
        InputType::String => "a string",
        InputType::Integer => "an integer",
        InputType::Number => "a number",
        InputType::Boolean => "a boolean",
    }
}

impl Manifest {
    /// The inputs as a JSON Schema object: one property per input with its
    /// type, description and `enum`, the required ones listed, nothing else
    /// allowed.
    pub fn input_schema(&self) -> Value {
        let mut properties = Map::new();
        for input in &self.inputs {
            properties.insert(input.name.clone(), property(input));
        }
        let required: Vec<Value> = self
            .inputs
            .iter()
            .filter(|i| i.required)
            .map(|i| Value::String(i.name.clone()))
            .collect();
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }

    /// The arguments of a call with `inputs`, in the manifest's order:
    /// `--name value`, a boolean as a bare `--name` when true (nothing when
    /// false), `null` as absent.
    pub fn args_for(&self, inputs: &Map<String, Value>) -> Result<Vec<String>, InputError> {
        if let Some(name) = inputs
            .keys()
            .find(|k| !self.inputs.iter().any(|i| i.name == **k))
        {
            return Err(InputError::Unknown {
                name: name.clone(),
                known: if self.inputs.is_empty() {
                    "no inputs".to_owned()
                } else {
                    self.inputs
                        .iter()
                        .map(|i| i.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            });
        }
        let mut args = Vec::new();
        for input in &self.inputs {
            let value = inputs.get(&input.name).filter(|v| !v.is_null());
            let Some(value) = value else {
                if input.required {
                    return Err(InputError::Missing {
                        name: input.name.clone(),
                    });
                }
                continue;
            };
            let wrong = || InputError::WrongType {
                name: input.name.clone(),
                expected: expected(input.kind),
                given: described(value),
            };
            let text = match (input.kind, value) {
                (InputType::Boolean, Value::Bool(b)) => {
                    if *b {
                        args.push(format!("--{}", input.name));
                    }
                    continue;
                }
                (InputType::String | InputType::Path, Value::String(s)) => s.clone(),
                (InputType::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
                (InputType::Number, Value::Number(n)) => n.to_string(),
                _ => return Err(wrong()),
            };
            if let Some(choices) = &input.choices
                && !choices.iter().any(|c| same_choice(input.kind, c, &text))
            {
                return Err(InputError::NotAChoice {
                    name: input.name.clone(),
                    value: text,
                    choices: choices.join(", "),
                });
            }
            args.push(format!("--{}", input.name));
            args.push(text);
        }
        Ok(args)
    }

    /// The filesystem globs (`read`, then `write`) with `${WORKSPACE}`
    /// replaced by `workspace`.
    pub fn filesystem_globs(&self, workspace: &std::path::Path) -> (Vec<String>, Vec<String>) {
        let ws = workspace.display().to_string();
        let ws = ws.trim_end_matches('/');
        let expand = |globs: &[String]| {
            globs
                .iter()
                .map(|g| g.replace(WORKSPACE_VAR, ws))
                .collect::<Vec<_>>()
        };
        (
            expand(&self.permissions.filesystem.read),
            expand(&self.permissions.filesystem.write),
        )
    }
}

fn same_choice(kind: InputType, choice: &str, given: &str) -> bool {
    match kind {
        InputType::Integer | InputType::Number => {
            matches!((choice.parse::<f64>(), given.parse::<f64>()), (Ok(a), Ok(b)) if a == b)
        }
        _ => choice == given,
    }
}

fn property(input: &InputSpec) -> Value {
    let mut p = Map::new();
    p.insert("type".into(), input.kind.schema_type().into());
    let description = match (&input.description, input.kind) {
        (Some(d), _) => Some(d.clone()),
        (None, InputType::Path) => Some(
            "A file or folder path (a relative path is relative to the run's workspace).".into(),
        ),
        (None, _) => None,
    };
    if let Some(d) = description {
        p.insert("description".into(), d.into());
    }
    if let Some(choices) = &input.choices {
        let values: Vec<Value> = choices
            .iter()
            .map(|c| match input.kind {
                InputType::Integer => c
                    .parse::<i64>()
                    .map_or_else(|_| c.clone().into(), Value::from),
                InputType::Number => c
                    .parse::<f64>()
                    .map_or_else(|_| c.clone().into(), Value::from),
                _ => c.clone().into(),
            })
            .collect();
        p.insert("enum".into(), values.into());
    }
    Value::Object(p)
}
