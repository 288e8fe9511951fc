mod envelope;
mod errors;
mod events;
mod line_limit;
mod samples;
mod schema;
mod tool_protocol;
mod usage;
