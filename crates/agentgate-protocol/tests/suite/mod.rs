mod envelope;
mod errors;
mod events;
mod samples;
mod schema;
mod usage;
