//! A tool's manifest (`tools/registry/<name>/tool.yaml`, or an entry under
//! `tools.define` in the agentgate config), in seed 002's format.
//!
//! `types.rs` is the format; `load.rs` reads it strictly; `check.rs` holds
//! the checks past parsing (each fault located by its field's path);
//! `schema.rs` turns the inputs into a JSON Schema and a call's input
//! object into the tool's arguments.

mod check;
mod fault;
mod load;
mod schema;
mod types;

pub(crate) use check::check;
pub use check::{MAX_NAME_LEN, PROTOCOL_VERSION, WORKSPACE_VAR, is_safe_name, is_variable_name};
pub(crate) use fault::Fault;
pub(crate) use load::located;
pub use load::{MANIFEST_MAX_BYTES, ManifestError};
pub use schema::InputError;
pub(crate) use types::result_required;
pub use types::{
    EnvSpec, ExitCodes, FilesystemPermissions, Health, InputSpec, InputType, Manifest,
    NetworkPermissions, Permissions, Resources, Timeouts,
};

#[cfg(test)]
mod tests;
