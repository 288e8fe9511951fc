//! JSON Schemas generated from the types.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::envelope::Envelope;
use crate::error::ErrorInfo;
use crate::events::Event;
use crate::tool_protocol::{ToolEnvelope, ToolMessage};
use crate::usage::Usage;

/// The JSON Schemas of the contract, as `(file name, schema)`: one per
/// top-level type, JSON Schema draft 2020-12, describing what agentgate
/// writes (fields that are always written are `required`).
///
/// The same schemas are checked in under `schemas/` beside this crate's
/// `Cargo.toml`; a test fails when they drift.
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("event.schema.json", schema_of::<Event>()),
        ("envelope.schema.json", schema_of::<Envelope>()),
        ("error.schema.json", schema_of::<ErrorInfo>()),
        ("usage.schema.json", schema_of::<Usage>()),
        ("tool-message.schema.json", schema_of::<ToolMessage>()),
        ("tool-envelope.schema.json", schema_of::<ToolEnvelope>()),
    ]
}

fn schema_of<T: JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}
