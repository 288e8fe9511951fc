//! Prompt assembly: agent files, personas, context files, task input.
