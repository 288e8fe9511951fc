//! A tool's manifest (`tools/registry/<name>/tool.yaml`, or an entry under
//! `tools:` in the agentgate config), in seed 002's format.

mod types;

pub use types::{
    EnvSpec, ExitCodes, FilesystemPermissions, Health, InputSpec, InputType, Manifest,
    NetworkPermissions, Permissions, Resources, Timeouts,
};
