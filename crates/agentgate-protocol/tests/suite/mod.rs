mod envelope;
mod errors;
mod events;
mod samples;
mod schema;
mod tool_protocol;
mod usage;
